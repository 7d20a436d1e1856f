"""Which player a card's trigger or modify line can work for, read from its condition once.

Most conditions of a card's trigger name the one player whose card it can be: the event's
player must be the card's owner (``on phase_begins when p == owner and name == "start"``), or
the cards left the owner's zone (``after moved when source == hand[owner]``); a modify line
likewise names the rule's argument (``modify distance_bonus(a, b) = 1 when b == owner``).  The
compiler finds such a conjunct (``owner_key``), and the engine then looks only at the copies of
the card that player owns, without reading the condition for anyone else.

Conditions that do not say whose card it is often start with a test of the event alone
(``when name == "end" and p != owner ...``): ``guard_parts`` is that test, read once for all
the copies instead of once for each; when it cannot fail (``cannot_fail``), before anything
else, even where no copy would have read it.

Both are used only for conditions that draw no random number (the compiler checks): a
condition has no other effect, so reading it for fewer players changes nothing but the work.
"""
from __future__ import annotations

from typing import Optional

from rulespec.lang import ast as A


def owner_key(refs: dict, types: dict, parts: list, names) -> Optional[tuple]:
    """(local, zones) from the first of a condition's conjuncts (`parts`: see
    static_conditions.conjuncts) that says which player is ``owner``:

      * ``NAME == owner`` (or ``owner == NAME``): (NAME, None): the player NAME holds;
      * ``NAME == Z[owner]``, or several such joined by ``or`` (``source == hand[owner] or
        source == equip[owner]``): (NAME, {Z, ...}): the owner of the zone NAME holds, when it
        is one of those zones (none otherwise).

    NAME is one of `names` (locals the caller binds before the condition is read), a player or a
    zone as its type (`types`) says; None when no conjunct says it.  Only plain locals count:
    reading one cannot fail."""
    for part in parts:
        got = _key_of(refs, types, part, names)
        if got is not None:
            return got
    return None


def _key_of(refs: dict, types: dict, e, names) -> Optional[tuple]:
    if isinstance(e, A.BinOp) and e.op == "==":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if not (isinstance(a, A.Name) and a.name in names and _is_local(refs, a)):
                continue
            kind = getattr(types.get(a), "name", None)
            if isinstance(b, A.Name) and b.name == "owner" and _is_local(refs, b) and kind == "player":
                return a.name, None
            if isinstance(b, A.Index) and refs.get(b, ("",))[0] == "pzone" and isinstance(b.index, A.Name) \
                    and b.index.name == "owner" and _is_local(refs, b.index) and kind == "zone":
                return a.name, frozenset([refs[b][1].name])
        return None
    if isinstance(e, A.Chain) and all(op == "or" for op in e.ops):
        keys = [_key_of(refs, types, x, names) for x in e.operands]
        if all(k is not None and k[1] is not None for k in keys) and len({k[0] for k in keys}) == 1:
            return keys[0][0], frozenset().union(*(k[1] for k in keys))
    return None


def _is_local(refs: dict, name: A.Name) -> bool:
    return refs.get(name, ("",))[0] == "local"


def guard_parts(refs: dict, parts: list) -> list:
    """The conjuncts at the head of a condition that read neither ``owner`` nor ``self``: true or
    false for every copy of a card alike.  (Only the head: a later one may rely on an earlier
    one that reads the owner, and must not be read where the condition would not read it.)"""
    out = []
    for part in parts:
        if _reads_owner(refs, part):
            break
        out.append(part)
    return out


def cannot_fail(refs: dict, e) -> bool:
    """Is e made only of names, literals, ``==``, ``!=``, ``and``, ``or`` and ``not``?  Reading it
    cannot fail, so it may be read earlier than the condition it heads would read it."""
    if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
        return True
    if isinstance(e, A.Name):
        return refs.get(e, ("",))[0] in ("local", "var", "option", "enum", "zone", "builtin")
    if isinstance(e, A.BinOp):
        return e.op in ("==", "!=") and cannot_fail(refs, e.left) and cannot_fail(refs, e.right)
    if isinstance(e, A.Chain):
        return all(op in ("and", "or") for op in e.ops) and all(cannot_fail(refs, x) for x in e.operands)
    if isinstance(e, A.Unary):
        return e.op == "not" and cannot_fail(refs, e.operand)
    return False


def _reads_owner(refs: dict, e) -> bool:
    if isinstance(e, A.Name):
        return e.name in ("owner", "self") and _is_local(refs, e)
    return any(_reads_owner(refs, c) for c in A.children(e))


def zones_by_owner(slots: list, zones: frozenset) -> dict:
    """player -> the zone instances among `zones` that the player owns (shared zones left out)."""
    out: dict = {}
    for zi in sorted(zones):
        p = slots[zi].owner
        if p is not None:
            out.setdefault(p, set()).add(zi)
    return {p: frozenset(z) for p, z in out.items()}


def key_player(st, value, zones: Optional[frozenset]):
    """The player an owner key names (see owner_key), given the value of its local: that value
    itself, or the owner of the zone it holds (None when the zone is not one of `zones`)."""
    if zones is None:
        return value
    if type(value) is not int or not 0 <= value < len(st.prog.slots):
        return None
    slot = st.prog.slots[value]
    return slot.owner if slot.zone in zones else None
