"""Which player a card's trigger or modify line can work for, read from its condition once.

Most conditions of a card's trigger start with ``p == owner``: the event's player must be the
card's owner (``on phase_begins when p == owner and name == "start"``), and a modify line
likewise names the rule's argument (``modify distance_bonus(a, b) = 1 when b == owner``).  The
compiler finds such a conjunct (``split_owner_key``), and the engine then looks only at the
copies of the card that the named player owns, without reading the condition for anyone else.
Since the condition draws no random number and has no side effect (the engine checks that
before it skips a reading), its value is the same: only the work of finding it out is saved.
"""
from __future__ import annotations

from typing import Optional

from rulespec.lang import ast as A


def owner_key(refs: dict, parts: list, names) -> Optional[str]:
    """The first local of `names` that one of a condition's conjuncts (`parts`: see
    static_conditions.conjuncts) compares with ``owner`` (``NAME == owner`` or ``owner ==
    NAME``), or None.  Only plain locals count: reading one cannot fail."""
    for part in parts:
        if not (isinstance(part, A.BinOp) and part.op == "==" and isinstance(part.left, A.Name)
                and isinstance(part.right, A.Name)):
            continue
        left, right = part.left, part.right
        if refs.get(left, ("",))[0] != "local" or refs.get(right, ("",))[0] != "local":
            continue
        if right.name == "owner" and left.name in names:
            return left.name
        if left.name == "owner" and right.name in names:
            return right.name
    return None


def zones_by_owner(slots: list, zones: frozenset) -> dict:
    """player -> the zone instances among `zones` that the player owns (shared zones left out)."""
    out: dict = {}
    for zi in sorted(zones):
        p = slots[zi].owner
        if p is not None:
            out.setdefault(p, set()).add(zi)
    return {p: frozenset(z) for p, z in out.items()}
