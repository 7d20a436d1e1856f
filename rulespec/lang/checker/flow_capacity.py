"""Conditions that prove zones face up, for the flow check (flow.py), from zone capacities.

A zone declared `at most N cards` holds no more than N: a condition can then prove that every
card in it is face up, so reading it where the condition holds tells nothing.
`count(collect g in Z1 + Z2 where revealed(g) and ...) == N`, N the sum of their capacities (or
>=, >; also `count g in ... where revealed(g)`): they are full and every card is face up;
`any g in Z where revealed(g)` with Z a one-card zone: its card is face up.  Defs in the condition
are unfolded, a parameter standing for the name its call passes; zones are named as written,
(name, index) as flow_labels.zone_key names them.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .flow_labels import requires_face_up

_MIRROR = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def face_up_zones(cond, holds: bool, refs: dict, zones: dict) -> frozenset:
    """The zones (name, index as written) whose every card is face up wherever cond is `holds`."""
    return frozenset(_face_up(cond, holds, refs, zones, {}))


def _face_up(e, holds: bool, refs: dict, zones: dict, subst: dict) -> set:
    if isinstance(e, A.Unary) and e.op == "not":
        return _face_up(e.operand, not holds, refs, zones, subst)
    if isinstance(e, A.Chain) and set(e.ops) == {"and" if holds else "or"}:  # each operand is `holds`
        out = set()
        for x in e.operands:
            out |= _face_up(x, holds, refs, zones, subst)
        return out
    body = _unfold(e, refs, subst)
    if body is not None:
        return _face_up(body[0], holds, refs, zones, body[1])
    if isinstance(e, A.BinOp) and e.op in _MIRROR:
        op = e.op if holds else _NEGATE[e.op]
        for counted, n, o in ((e.left, e.right, op), (e.right, e.left, _MIRROR[op])):
            if isinstance(n, A.IntLit) and o in ("==", ">=", ">"):
                full = _counted(counted, refs, zones, subst)
                if full is not None and n.value + (o == ">") >= full[1] > 0:
                    return full[0]
        return set()
    if isinstance(e, A.Quant) and e.kind == "any" and holds and _only_face_up(e):
        held = _zones_in(e.domain, refs, zones, subst)
        if held is not None and held[1] == 1:
            return held[0]
    return set()


def _counted(e, refs: dict, zones: dict, subst: dict) -> Optional[tuple]:
    """(zones, their capacity) when e counts the face-up cards of zones with a capacity."""
    if isinstance(e, A.Call) and e.func == "count" and len(e.args) == 1 and refs.get(e, ("",))[0] != "def":
        e = e.args[0]
        while (body := _unfold(e, refs, subst)) is not None:
            e, subst = body
        if not (isinstance(e, A.Quant) and e.kind == "collect"):
            return None
    if isinstance(e, A.Quant) and (e.kind == "count" or e.kind == "collect" and e.body is None) and _only_face_up(e):
        return _zones_in(e.domain, refs, zones, subst)
    return None


def _only_face_up(q: A.Quant) -> bool:
    """Does q pass only face-up cards (`where revealed(g) ...`; `any`/`count` also `: revealed(g)`)?"""
    conds = (q.where,) if q.kind == "collect" else (q.where, q.body)
    return any(c is not None and requires_face_up(c, q.var) for c in conds)


def _zones_in(e, refs: dict, zones: dict, subst: dict) -> Optional[tuple]:
    """(zones as written, the sum of their capacities) when e is the cards of zones that each have
    a capacity (`cards(Z)`, Z, joined by +), else None."""
    body = _unfold(e, refs, subst)
    if body is not None:
        return _zones_in(body[0], refs, zones, body[1])
    if isinstance(e, A.Chain) and set(e.ops) == {"+"}:
        out, total = set(), 0
        for x in e.operands:
            got = _zones_in(x, refs, zones, subst)
            if got is None:
                return None
            out |= got[0]
            total += got[1]
        return out, total
    if isinstance(e, A.Call) and e.func == "cards" and len(e.args) == 1:
        e = e.args[0]
    z = None
    if isinstance(e, A.Name) and refs.get(e, ("",))[0] == "zone":
        z, index = zones.get(e.name), None
    elif isinstance(e, A.Index) and isinstance(e.obj, A.Name) and isinstance(e.index, A.Name) \
            and refs.get(e, ("",))[0] == "pzone":
        z, index = zones.get(e.obj.name), subst.get(e.index.name, e.index.name)
        if index is None:
            return None
    if z is None or getattr(z, "capacity", None) is None:
        return None
    return {(z.name, index)}, z.capacity


def _unfold(e, refs: dict, subst: dict) -> Optional[tuple]:
    """(body, parameter -> the name its argument is written as) of a call of a def, else None;
    an argument that is no plain name stands for nothing a zone could be indexed by (None)."""
    ref = refs.get(e) if isinstance(e, A.Call) else None
    if ref is None or ref[0] != "def":
        return None
    d = ref[1]
    inner = {}
    for p, a in zip(d.params, e.args):
        inner[p.name] = subst.get(a.name, a.name) if isinstance(a, A.Name) else None
    return d.body, inner
