"""For tests about speed, which time nothing: counting the work a call does, and loading the
benchmark scripts (benchmarks/*.py, not a package) to test them or reuse their inputs."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def benchmark_module(name: str):
    """benchmarks/NAME.py as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def python_calls(fn) -> int:
    """How many Python function calls (and generator steps) fn() makes: a count of operations
    that, unlike a time, does not depend on how busy the machine is."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1
    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls
