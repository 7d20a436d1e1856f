"""Pytest runs every scenario file under tests/scenarios/ (see rulespec/tools/scenario/).

Each YAML document becomes one test item; a failing scenario is reported with
the runner's one-line message (file:line: expected ..., got ...).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# The model cache (rulespec/lang/model_cache.py) of a test run lives and dies with it: tests never read
# models a developer's earlier run left in ~/.cache, nor leave theirs there.
os.environ["RULESPEC_CACHE_DIR"] = tempfile.mkdtemp(prefix="rulespec-test-cache-")

from hypothesis import settings as _hypothesis_settings

# make test draws the same property-test examples every run, so CI is red only for a change that
# broke something; HYPOTHESIS_PROFILE=explore draws new ones each run (long random exploration
# is what `rulespec fuzz` is for).
_hypothesis_settings.register_profile("repeatable", derandomize=True)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

from rulespec.tools.scenario import ScenarioError, load_file, run_scenario

SCENARIOS = Path(__file__).resolve().parent / "scenarios"


def pytest_collect_file(parent, file_path: Path):
    if file_path.suffix in (".yaml", ".yml") and file_path.resolve().is_relative_to(SCENARIOS):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self):
        try:
            scenarios = load_file(self.path)
        except ScenarioError as e:
            yield ScenarioItem.from_parent(self, name=self.path.name, scenario=None, error=e)
            return
        for sc in scenarios:  # every scenario on both engines: the compiled one and the reference
            yield ScenarioItem.from_parent(self, name=sc.name, scenario=sc, error=None)
            yield ScenarioItem.from_parent(self, name=f"{sc.name} [interpreted]", scenario=sc, error=None,
                                           engine="interpreted")


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario, error, engine=None, **kwargs):
        super().__init__(**kwargs)
        self.scenario = scenario
        self.error = error
        self.engine = engine  # None: the default engine (compiled)

    def runtest(self):
        if self.error is not None:
            raise self.error
        before = os.environ.get("RULESPEC_ENGINE")
        if self.engine is not None:
            os.environ["RULESPEC_ENGINE"] = self.engine
        try:
            run_scenario(self.scenario)
        finally:
            if before is None:
                os.environ.pop("RULESPEC_ENGINE", None)
            else:
                os.environ["RULESPEC_ENGINE"] = before

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioError):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        line = self.scenario.line - 1 if self.scenario is not None else 0
        return self.path, line, f"scenario: {self.name}"
