"""Conditional reveals for the flow check (flow.py): `if C { reveal Z }` shows Z when C holds.

A read of Z in the same decision, under the same condition C (an `if C`, or the `else` of
`if not C`, also inside a def called there), tells nothing the reveal does not show, as long as
nothing in the block changes what C reads.  Conditions are kept simple and compared by their
shape: `x == y`, `x != y`, `b`, `not b`, with x, y, b game variables, enum members or literals.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A


def cond_key(e, refs: dict) -> Optional[tuple]:
    """(shape, holds) of a simple condition on game variables, or None: `x != y` is the shape
    of `x == y` with holds False; `not b` that of `b`."""
    if isinstance(e, A.Unary) and e.op == "not":
        k = cond_key(e.operand, refs)
        return None if k is None else (k[0], not k[1])
    if isinstance(e, A.BinOp) and e.op in ("==", "!="):
        a, b = _atom(e.left, refs), _atom(e.right, refs)
        if a is None or b is None:
            return None
        return ("eq",) + tuple(sorted((a, b))), e.op == "=="
    a = _atom(e, refs)
    return None if a is None or a[0] != "var" else (("is", a), True)


def _atom(e, refs: dict) -> Optional[tuple]:
    if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit)):
        return ("lit", repr(e.value))
    if isinstance(e, A.NoneLit):
        return ("lit", "none")
    if isinstance(e, A.Name):
        ref = refs.get(e)
        if ref is not None and ref[0] in ("var", "enum"):
            return (ref[0], e.name)
    return None


def cond_vars(key: tuple) -> set:
    return {x[1] for x in key[1:] if x[0] == "var"} if key[0] == "eq" else {key[1][1]}


def assigned(stmts) -> set:
    """The names assigned anywhere in stmts (nested blocks too)."""
    out = set()
    for s in stmts:
        if isinstance(s, A.Assign):
            out.add(s.target.name)
        for c in nested(s):
            out |= assigned(c.stmts)
    return out


def nested(s) -> list:
    """The blocks right inside a statement: an if's arms, a loop's body."""
    if isinstance(s, A.If):
        return [b for _, b in s.branches] + ([s.else_] if s.else_ is not None else [])
    if isinstance(s, A.For):
        return [s.body]
    return []
