"""A small TextMate grammar engine: a subset, for previews and tests.

It tokenizes text with a TextMate grammar in JSON (such as editors/rulespec.tmLanguage.json) the
way TextMate, VS Code and Shiki do, line by line with a stack of open begin/end rules carried from
one line to the next, but only with the features that grammar uses:

- ``match`` rules with a ``name`` and ``captures``;
- ``begin``/``end`` rules with ``name``, ``contentName``, ``beginCaptures``, ``endCaptures``
  (or ``captures`` for both) and inner ``patterns``;
- ``include`` of ``#name`` (the grammar's ``repository``), ``$self`` and ``$base``;
- rules that are only a list of ``patterns``;
- scope names with several scopes separated by spaces.

As in those engines, at each position the pattern that matches earliest wins, ties going to the
end pattern of the open rule and then to the first pattern listed. Regexes are Python's ``re``
(Oniguruma's ``(?<name>...)`` groups are rewritten); anything else a grammar may hold (``while``
rules, back-references in ``end``, captures with their own patterns, injections) raises
``ValueError`` rather than being silently tokenized wrong. tests/test_editor_preview.py uses it
to draw the pictures of docs/editors.md; it is not used by rulespec itself.

    grammar = Grammar.load("editors/rulespec.tmLanguage.json")
    for line in grammar.tokenize(text):
        for token in line:
            print(token.text, token.scopes)
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

_SUPPORTED = {"name", "match", "captures", "begin", "end", "beginCaptures", "endCaptures",
              "contentName", "patterns", "include", "comment"}


@dataclass(frozen=True)
class Token:
    """A piece of one line: its columns (from 0, in characters), its text and its scopes, the
    outermost (the grammar's scopeName) first."""
    start: int
    end: int
    text: str
    scopes: tuple


class _Rule:
    def __init__(self, grammar: "Grammar", raw: dict, where: str):
        unknown = set(raw) - _SUPPORTED
        if unknown:
            raise ValueError(f"{where}: not supported by this TextMate subset: {sorted(unknown)}")
        self.grammar = grammar
        self.raw = raw
        self.where = where
        self.include = raw.get("include")
        self.name = raw.get("name", "").split()
        self.content_name = raw.get("contentName", "").split()
        self.match = self.begin = self.end = None
        if "match" in raw:
            self.match = _compile(raw["match"], where)
            self.captures = _captures(raw.get("captures"), where)
        elif "begin" in raw:
            if "end" not in raw:
                raise ValueError(f"{where}: a begin rule without an end")
            if re.search(r"\\[1-9]", raw["end"]):
                raise ValueError(f"{where}: back-references in end are not supported")
            self.begin = _compile(raw["begin"], where)
            self.end = _compile(raw["end"], where)
            both = raw.get("captures")
            self.begin_captures = _captures(raw.get("beginCaptures", both), where)
            self.end_captures = _captures(raw.get("endCaptures", both), where)
        self.patterns = [_Rule(grammar, p, f"{where}.patterns[{i}]") for i, p in enumerate(raw.get("patterns", []))]
        self._flat = None

    def flat(self) -> list:
        """The match and begin rules of this rule's patterns, includes expanded, in order."""
        if self._flat is None:
            self._flat = _expand(self.patterns, set())
        return self._flat


def _expand(rules: list, seen: set) -> list:
    out = []
    for r in rules:
        if r.include is not None:
            target = r.grammar.resolve(r.include, r.where)
            if id(target) in seen:
                continue
            out += _expand([target], seen | {id(target)})
        elif r.match is not None or r.begin is not None:
            out.append(r)
        else:
            out += _expand(r.patterns, seen)
    return out


def _compile(pattern: str, where: str):
    py = re.sub(r"\(\?<(?![=!])", "(?P<", pattern)
    try:
        return re.compile(py)
    except re.error as e:
        raise ValueError(f"{where}: the regex {pattern!r} does not compile: {e}") from None


def _captures(raw, where: str) -> dict:
    out = {}
    for k, v in (raw or {}).items():
        if set(v) - {"name"}:
            raise ValueError(f"{where}: captures with {sorted(set(v) - {'name'})} are not supported")
        out[int(k)] = v.get("name", "").split()
    return out


@dataclass(frozen=True)
class _Frame:
    rule: _Rule
    scopes: tuple          # for the begin and end matches: the outer scopes and the rule's name
    content: tuple         # between them: contentName too


class Grammar:
    """A TextMate grammar, read from its JSON."""

    def __init__(self, raw: dict):
        self.raw = raw
        self.scope_name = raw["scopeName"]
        self.repository = {k: _Rule(self, v, f"repository.{k}") for k, v in raw.get("repository", {}).items()}
        self.root = _Rule(self, {"patterns": raw.get("patterns", [])}, "patterns")
        for rule in self.repository.values():   # every include resolves, every rule compiles
            rule.flat()
        self.root.flat()

    @classmethod
    def load(cls, path) -> "Grammar":
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def resolve(self, include: str, where: str) -> _Rule:
        if include in ("$self", "$base"):
            return self.root
        if include.startswith("#") and include[1:] in self.repository:
            return self.repository[include[1:]]
        raise ValueError(f"{where}: include {include!r} is not in the repository (other grammars are not supported)")

    def initial_stack(self) -> tuple:
        return (_Frame(self.root, (self.scope_name,), (self.scope_name,)),)

    def tokenize(self, text: str) -> list:
        """The tokens of every line of text (lines split at \\n; a \\r before it is dropped)."""
        stack = self.initial_stack()
        out = []
        for line in text.split("\n"):
            tokens, stack = self.tokenize_line(line.removesuffix("\r"), stack)
            out.append(tokens)
        return out

    def tokenize_line(self, line: str, stack: tuple) -> tuple:
        """(tokens of one line, the stack for the next line)."""
        stack = list(stack)
        scopes = [None] * len(line)          # the scopes of each character
        pos = last = 0
        stalled = 0                          # steps in a row that consumed nothing
        while pos <= len(line):
            stalled = 0 if pos > last else stalled + 1
            last = pos
            if stalled > 1000:
                raise ValueError(f"the grammar loops without consuming text at column {pos} of {line!r}")
            frame = stack[-1]
            best = None                      # (start, order, kind, rule, match)
            candidates = []
            if frame.rule.end is not None:
                candidates.append(("end", frame.rule, frame.rule.end))
            for r in frame.rule.flat():
                candidates.append(("match" if r.match is not None else "begin", r, r.match or r.begin))
            for order, (kind, rule, rx) in enumerate(candidates):
                m = rx.search(line, pos)
                if m and (best is None or m.start() < best[0]):
                    best = (m.start(), order, kind, rule, m)
                    if m.start() == pos:
                        break
            if best is None:
                _paint(scopes, pos, len(line), frame.content)
                break
            start, _, kind, rule, m = best
            _paint(scopes, pos, start, frame.content)
            if kind == "end":
                _paint_match(scopes, m, frame.scopes, rule.end_captures)
                stack.pop()
                pos = m.end()
                continue
            if kind == "match":
                if m.end() == m.start():     # an empty match: no progress, go on by one character
                    if start >= len(line):
                        break
                    _paint(scopes, start, start + 1, frame.content)
                    pos = start + 1
                    continue
                _paint_match(scopes, m, frame.content + tuple(rule.name), rule.captures)
                pos = m.end()
                continue
            # begin
            outer = frame.content + tuple(rule.name)
            new = _Frame(rule, outer, outer + tuple(rule.content_name))
            _paint_match(scopes, m, outer, rule.begin_captures)
            stack.append(new)
            if m.end() == m.start():         # an empty begin whose end also matches here would loop
                e = rule.end.search(line, m.end())
                if e and e.start() == e.end() == m.end():
                    stack.pop()
                    if start >= len(line):
                        break
                    _paint(scopes, start, start + 1, frame.content)
                    pos = start + 1
                    continue
            pos = m.end()
        return _tokens(line, scopes), tuple(stack)


def _paint(scopes: list, start: int, end: int, value: tuple) -> None:
    for i in range(start, end):
        scopes[i] = value


def _paint_match(scopes: list, m, base: tuple, captures: dict) -> None:
    """The scopes of a match: base for all of it, then each capture's names on its group's text.
    Groups are numbered by their opening parenthesis, so an enclosing group comes before the
    groups inside it and inner names end up innermost."""
    _paint(scopes, m.start(), m.end(), base)
    for group in sorted(captures):
        names = captures[group]
        if not names or group > (m.re.groups or 0) or m.start(group) < 0:
            continue
        for i in range(m.start(group), m.end(group)):
            scopes[i] = scopes[i] + tuple(names)


def _tokens(line: str, scopes: list) -> list:
    out = []
    i = 0
    while i < len(line):
        j = i + 1
        while j < len(line) and scopes[j] == scopes[i]:
            j += 1
        out.append(Token(i, j, line[i:j], scopes[i]))
        i = j
    return out


# ---------------------------------------------------------------------- themes
def theme_rule(scopes: tuple, rules: list):
    """The rule of a theme that colours a token, as TextMate themes choose: the innermost scope
    that some selector matches decides, and among the selectors matching it the longest (a
    selector matches a scope equal to it or starting with it and a dot). rules is a list of
    (selector, value) pairs; the value of the chosen rule is returned (None if none matches)."""
    for scope in reversed(scopes):
        best = None
        for selector, value in rules:
            if (scope == selector or scope.startswith(selector + ".")) and (best is None or len(selector) > len(best[0])):
                best = (selector, value)
        if best is not None:
            return best[1]
    return None
