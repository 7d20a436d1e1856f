"""Reading a scenario file: its YAML nodes with their lines, the keys each part allows, and
ScenarioError (``file:line: problem``).  load_file splits a file into its scenarios; _Reader takes
plain values (text, numbers, mappings) out of the nodes and fails at the node's line."""
from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional

import attrs
import yaml
from yaml.constructor import SafeConstructor

from rulespec.lang.diagnostics import did_you_mean

# ---------------------------------------------------------------------- the keys of the format
TOP_KEYS = ("rules", "name", "doc", "players", "seed", "options", "start_order", "check_invariants", "face_down_asks",
            "position", "steps")
REST_STAYS = "stay"  # 'rest: stay': the cards not placed stay where they are
POSITION_KEYS = ("phase", "enter", "resume", "active", "zones", "plays", "rest", "keep", "vars", "revealed",
                 "revealed_zones", "known", "stack",
                 "check_invariants")
STACK_ENTRY_KEYS = ("effect", "by", "target", "cards", "fields", "cancelled")
STEP_KEYS = ("play", "illegal", "fails", "legal", "legal_exactly", "legal_count", "position", "expect", "check", "finish")
STEP_EXTRA_KEYS = ("because", "note")  # allowed next to the step's one key
CHECKS = ("cards", "invariants", "legal", "round_trip", "secrecy", "replay")  # for `check:`
EXPECT_KEYS = ("active", "phase", "terminal", "vars", "zones", "order", "plays", "counts", "scores", "winners",
               "log_contains", "log_lacks", "viewer", "sees", "hidden", "shown", "knows")
NOBODY = ("nobody", "none")  # how a scenario writes "no player" (the engine prints "nobody")


class ScenarioError(Exception):
    """A bad scenario file or a failed scenario; the message is ``file:line: problem``."""

    def __init__(self, path: str, line: Optional[int], message: str):
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@attrs.define
class Scenario:
    path: str        # the file as shown in messages
    name: str
    line: int        # where its YAML document starts
    node: yaml.Node = attrs.field(repr=False)
    file: str = ""   # the file's absolute path


# ---------------------------------------------------------------------- YAML nodes with lines
_constructor = SafeConstructor()


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _display_path(path) -> str:
    p = str(path)
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return p
    return rel if not rel.startswith(".." + os.sep + ".." + os.sep) else p


def _show(v) -> str:
    """A value as it would be written in the scenario (YAML flow style)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    return str(v)


def load_file(path) -> list[Scenario]:
    """Parse a scenario file into its scenarios (one per YAML document); checks only the YAML."""
    shown = _display_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(shown, None, f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ScenarioError(shown, None, "not a UTF-8 text file") from None
    try:
        docs = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        context = getattr(e, "context", None)
        msg = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
        if problem == "mapping values are not allowed here":
            msg += "; put text that contains ': ' in quotes"
        if mark is not None and "flow" in str(context or ""):
            lines = text.splitlines()
            if mark.line < len(lines) and re.search(r"\w\[\w+\]", lines[mark.line]):
                msg += "; inside { } or [ ] write zone names in quotes: {\"hand[P1]\": ...}"
        raise ScenarioError(shown, mark.line + 1 if mark else None, msg) from None
    except RecursionError:
        raise ScenarioError(shown, None, "the YAML nests too deeply") from None
    if not docs:
        raise ScenarioError(shown, None, "the file holds no scenario")
    out: list[Scenario] = []
    seen: Counter = Counter()
    stem = Path(path).stem
    for i, doc in enumerate(docs):
        if not isinstance(doc, yaml.MappingNode):
            raise ScenarioError(shown, _line(doc), "a scenario is a mapping of keys (rules:, steps:, ...)")
        name = None
        for k, v in doc.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "name" and isinstance(v, yaml.ScalarNode):
                name = str(v.value).strip()
        if not name:
            name = stem if len(docs) == 1 else f"{stem} #{i + 1}"
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name} #{seen[name]}"
        out.append(Scenario(shown, name, _line(doc), doc, os.path.abspath(path)))
    return out


class _Reader:
    """Plain values out of YAML nodes; every problem is a ScenarioError at the node's line."""

    def __init__(self, sc: Scenario):
        self.path, self.default_line = sc.path, sc.line

    def fail(self, node: Optional[yaml.Node], msg: str):
        raise ScenarioError(self.path, _line(node) if node is not None else self.default_line, msg)

    def scalar(self, node: yaml.Node, what: str):
        if isinstance(node, yaml.SequenceNode):
            self.fail(node, f"{what} should be a single value, not a list")
        if isinstance(node, yaml.MappingNode):
            hint = "; put text that contains ': ' in quotes" if len(node.value) == 1 else ""
            self.fail(node, f"{what} should be a single value, not a mapping{hint}")
        try:
            return _constructor.construct_object(node)
        except yaml.YAMLError as e:
            self.fail(node, f"{what}: {getattr(e, 'problem', e)}")

    def is_null(self, node: yaml.Node, what: str) -> bool:
        """Is node YAML's null (an empty value, ~ or null)?"""
        return isinstance(node, yaml.ScalarNode) and self.scalar(node, what) is None

    def is_nobody(self, node: yaml.Node, what: str) -> bool:
        """Is node null, 'nobody' or 'none' (how a scenario writes 'no player')?"""
        if not isinstance(node, yaml.ScalarNode):
            return False
        v = self.scalar(node, what)
        return v is None or (isinstance(v, str) and v.strip().lower() in NOBODY)

    def text(self, node: yaml.Node, what: str) -> str:
        v = self.scalar(node, what)
        if not isinstance(v, str) or not v.strip():
            self.fail(node, f"{what} should be text, not {_show(v)}")
        return v.strip()

    def integer(self, node: yaml.Node, what: str) -> int:
        v = self.scalar(node, what)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(node, f"{what} should be a whole number, not {_show(v)}")
        return v

    def boolean(self, node: yaml.Node, what: str) -> bool:
        v = self.scalar(node, what)
        if not isinstance(v, bool):
            self.fail(node, f"{what} should be true or false, not {_show(v)}")
        return v

    def mapping(self, node: yaml.Node, what: str, allowed: Optional[Iterable[str]] = None) -> list:
        """[(key, key node, value node)] of a mapping node; unknown or repeated keys are errors."""
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{what} should be a mapping (key: value)")
        allowed = list(allowed) if allowed is not None else None
        out, seen = [], set()
        for k, v in node.value:
            key = self.scalar(k, f"a key in {what}")
            key = str(key) if key is not None else "null"
            if key in seen:
                self.fail(k, f"'{key}' is given twice in {what}")
            seen.add(key)
            if allowed is not None and key not in allowed:
                hint = did_you_mean(key, allowed)
                self.fail(k, f"unknown key '{key}' in {what}" + (f"; {hint}" if hint else f" (known: {', '.join(allowed)})"))
            out.append((key, k, v))
        return out

    def keyed(self, node: yaml.Node, what: str, allowed: Iterable[str]) -> dict:
        """{key: (key node, value node)} of a mapping with known keys."""
        return {k: (kn, v) for k, kn, v in self.mapping(node, what, allowed)}

    def seq(self, node: yaml.Node, what: str, scalar_ok: bool = False) -> list:
        if isinstance(node, yaml.SequenceNode):
            return list(node.value)
        if scalar_ok and isinstance(node, yaml.ScalarNode):
            return [node]
        self.fail(node, f"{what} should be a list")
