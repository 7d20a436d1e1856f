"""The branches of a rules file, for rule coverage that counts them (like coverage.py's branch mode).

A branch is one way control can go at a fork in the rules:

  * every arm of every ``if`` statement in every block (phases' enter/after/exit, actions'
    effects, effects' resolve and cancelled blocks, triggers' bodies): the first condition,
    each ``elif``, and the ``else`` -- written or not: an ``if`` without ``else`` has a branch
    where no condition holds and nothing runs, as coverage.py counts it;
  * every ``next`` clause of a phase that has more than one (which way the phase went on).

Not counted: ``if ... then ... else`` expressions and the ``when`` of triggers and modifies.
Expressions are also worked out where no rule is played (listing legal actions, explaining a
refusal, observations, memoised defs), so counting them would measure how the engine evaluates,
not what the games did, and the two engines evaluate them differently often; a trigger's
``when`` is counted by the trigger's own coverage (it ran, or never did).

The engine counts a branch under ``key`` in its coverage counter when it takes it (a Program
built with ``branches=True``, interpreter/compiler.py); rulespec fuzz reports the ones never
taken (rulespec/tools/fuzzing/results.py).
"""
from __future__ import annotations

from typing import Iterator, Optional

import attrs

from . import ast as A
from .graph import source_text

TEXT_WIDTH = 60  # a condition longer than this is cut (with "...") where a branch is named


def if_key(s: A.If, arm: int) -> str:
    """The counter key of arm `arm` of an if statement: 0 .. len(branches) - 1 for its
    conditions, len(branches) for its else (written or not)."""
    return f"branch:{s.span.line}:{s.span.col}:{arm}"


def log_key(s) -> str:
    """The counter key of a `log` or `announce` statement (counted where it runs, so that a
    position trace names the line that wrote a log entry; not a branch)."""
    return f"log:{s.span.line}:{s.span.col}"


def next_key(p: A.PhaseDecl, i: int) -> str:
    """The counter key of the i-th 'next' clause of a phase with several."""
    return f"branch:{p.span.line}:{p.span.col}:{i}"


def counts_nexts(p: A.PhaseDecl) -> bool:
    """Are a phase's 'next' clauses branches (it has more than one)?"""
    return len(p.nexts) > 1


@attrs.frozen
class Branch:
    key: str    # its coverage counter key
    line: int   # where the arm is: its condition, its else block, or the if (an else not written)
    col: int
    kind: str   # "if" or "next"
    arm: str    # "then", "else", "implicit else" or "next"
    text: str   # the fork, as written: "if count(stock) == 0", "elif x > 1", "next deal when ..."
    rule: str   # the rule it is in: "phase 'play': after", "action 'draw'", ...

    def describe(self, path: str) -> str:
        """'games/x.rules:123:5 if count(stock) == 0 (then)'"""
        return f"{path}:{self.line}:{self.col} {self.text} ({self.arm})"


def branches(model) -> list[Branch]:
    """Every branch of a checked model, in the order of the source."""
    src = model.source
    text = _Text(src)
    out: list[Branch] = []
    for rule, block in _blocks(model):
        for s in _ifs(block):
            out.extend(_if_arms(text, s, rule))
    for p in model.phases.values():
        if counts_nexts(p):
            for i, n in enumerate(p.nexts):
                text = _cut(source_text(src, n.span))  # 'next deal when ...', as written
                out.append(Branch(next_key(p, i), n.span.line, n.span.col, "next", "next", text, f"phase '{p.name}'"))
    seen: set = set()  # an if reached from two rules is one fork
    unique = [b for b in out if not (b.key in seen or seen.add(b.key))]
    return sorted(unique, key=lambda b: (b.line, b.col, b.key))


def if_at(model, line: int, col: int) -> Optional[A.If]:
    """The if statement whose arm starts at (line, col) (a Branch's line and col), or None."""
    text = _Text(model.source)
    for rule, block in _blocks(model):
        for s in _ifs(block):
            if (s.span.line, s.span.col) == (line, col) or any((b.line, b.col) == (line, col)
                                                                 for b in _if_arms(text, s, rule)):
                return s
    return None


def statements(model) -> Iterator[A.Stmt]:
    """Every statement of every rule's block, nested ones included."""
    def walk(block):
        for s in (block.stmts if block is not None else ()):
            yield s
            if isinstance(s, A.If):
                for _, b in s.branches:
                    yield from walk(b)
                yield from walk(s.else_)
            elif isinstance(s, A.For):
                yield from walk(s.body)
    for _, block in _blocks(model):
        yield from walk(block)


def statement_at(model, line: int, col: int) -> Optional[A.Stmt]:
    """The statement that starts at (line, col) in a rule's block, or None."""
    return next((s for s in statements(model) if (s.span.line, s.span.col) == (line, col)), None)


def _blocks(model) -> Iterator[tuple[str, Optional[A.Block]]]:
    for p in model.phases.values():
        yield f"phase '{p.name}': enter", p.enter
        yield f"phase '{p.name}': after", p.after
        yield f"phase '{p.name}': exit", p.exit
    for a in model.actions.values():
        yield f"action '{a.name}'", a.effect
    for e in model.effects.values():
        yield f"effect '{e.name}'", e.resolve
        yield f"effect '{e.name}': cancelled", e.cancelled
    for t in model.triggers:
        yield f"trigger '{t.name}'", t.body


def _ifs(block: Optional[A.Block]) -> Iterator[A.If]:
    if block is None:
        return
    for s in block.stmts:
        if isinstance(s, A.If):
            yield s
            for _, b in s.branches:
                yield from _ifs(b)
            yield from _ifs(s.else_)
        elif isinstance(s, A.For):
            yield from _ifs(s.body)


def _if_arms(text: "_Text", s: A.If, rule: str) -> list[Branch]:
    """An if's arms, each named by the words before its block: 'if COND', 'elif COND' (as
    written, brackets and an 'if ask P "question"' included); the else by the if's words."""
    out = []
    after = (s.span.line, s.span.col)  # where the words of the next arm start
    head = ""
    for i, (_, body) in enumerate(s.branches):
        words, line, col = text.between(after, body.span)
        head = head or words
        out.append(Branch(if_key(s, i), line, col, "if", "then", words, rule))
        after = (body.span.end_line, body.span.end_col)
    n = len(s.branches)
    if s.else_ is not None:
        _, line, col = text.between(after, s.else_.span)
        out.append(Branch(if_key(s, n), line, col, "if", "else", head, rule))
    else:
        out.append(Branch(if_key(s, n), s.span.line, s.span.col, "if", "implicit else", head, rule))
    return out


class _Text:
    """The source, read between two places."""

    def __init__(self, src: str):
        self.lines = src.split("\n")  # as the parser counts lines

    def between(self, start: tuple, span: A.Span) -> tuple:
        """(the words from `start` (line, col) up to where `span` starts, comments left out and
        cut to TEXT_WIDTH; the line and column of the first of them)."""
        (line, col), (end_line, end_col) = start, (span.line, span.col)
        parts = []
        first = None
        for k in range(line, min(end_line, len(self.lines)) + 1):
            text = self.lines[k - 1]
            lo = col - 1 if k == line else 0
            hi = end_col - 1 if k == end_line else len(text)
            piece = _uncommented(text[lo:hi])
            if first is None and piece.strip():
                first = (k, lo + len(piece) - len(piece.lstrip()) + 1)
            parts.append(piece)
        where = first or (line, col)
        return _cut(" ".join(parts)), where[0], where[1]


def _uncommented(text: str) -> str:
    """A piece of a line without its comment (a '#' outside a string)."""
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        elif ch == "#" and not quoted:
            return text[:i]
    return text


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_WIDTH else text[:TEXT_WIDTH - 3].rstrip() + "..."
