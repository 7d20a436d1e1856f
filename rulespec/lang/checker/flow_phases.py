"""Reveals that last across phases, for the flow check (flow.py).

A phase that can only end after a reveal (its `end when b` flag is set only by actions that
reveal a zone, and reset on entering it) shows that zone to everyone when it exits; the zone
stays shown in the phases after it until cards move into its family or it is concealed.  A zone
is named with its index as an expression (`hand[active]` in a phase whose `enter` makes
`knocker` active is `hand[knocker]`), kept only while nothing assigns what the index reads.
A must-analysis over the phase graph: a fact holds on entering a phase when it holds on leaving
every phase that leads there.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .flow_cond import assigned


def canon(e, lets: dict, refs: dict) -> Optional[str]:
    """An expression of game variables as text, locals replaced by what they were let to (None
    for a local let to something else, or any other expression)."""
    if isinstance(e, A.Name):
        ref = refs.get(e)
        if e.name in lets:
            return lets[e.name]
        return e.name if ref is not None and ref[0] in ("var", "enum") or e.name == "active" else None
    if isinstance(e, A.Call) and refs.get(e, ("",))[0] in ("builtin_func", "def"):
        args = [canon(a, lets, refs) for a in e.args]
        return None if None in args else f"{e.func}({', '.join(args)})"
    return None


def names(text: str) -> set:
    """The names a canon text reads."""
    return set(text.replace("(", " ").replace(")", " ").replace(",", " ").split())


def lets_of(env: dict) -> dict:
    """The locals of a flow env that name a canon expression."""
    return {k[1]: v for k, v in env.items() if isinstance(k, tuple) and k[0] == "$let" and v is not None}


def moved_into(stmts, out: set) -> set:
    """Zone families that stmts move cards into or conceal (nested blocks too)."""
    for s in stmts:
        if isinstance(s, (A.Move, A.Deal, A.Play)):
            out.add(family(s.dest))
        elif isinstance(s, A.Reveal) and not s.reveal:
            out.add(family(s.zone))
        elif isinstance(s, A.If):
            for b in [b for _, b in s.branches] + ([s.else_] if s.else_ is not None else []):
                moved_into(b.stmts, out)
        elif isinstance(s, A.For):
            moved_into(s.body.stmts, out)
    return out


def family(e) -> Optional[str]:
    """The zone family a zone expression names (`hand[p]`: hand)."""
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Index) and isinstance(e.obj, A.Name):
        return e.obj.name
    return "*"  # a zone we cannot name: any family


def _set_to(stmts, var: str) -> Optional[A.Expr]:
    """The value a top-level `var = X` in stmts sets (the last one), or None."""
    out = None
    for s in stmts:
        if isinstance(s, A.Assign) and s.op == "=" and s.target.name == var and s.target.index is None:
            out = s.value
    return out


def _top_reveals(stmts) -> list:
    return [s.zone for s in stmts if isinstance(s, A.Reveal) and s.reveal]


def phase_entry_shown(checker) -> dict:
    """phase name -> frozenset of (zone, index as canon text or None) shown on entering it."""
    phases, actions = checker.phases, checker.actions
    blocks_of = {n: [b for b in (p.enter, p.after, p.exit) if b is not None]
                 + [actions[a.name].effect for a in p.actions if a.name in actions
                    and actions[a.name].effect is not None] for n, p in phases.items()}
    # what every trigger and effect may do, whenever it runs
    anywhere = [t.body for t in checker.triggers] + [b for e in checker.effects.values()
                                                     for b in (e.resolve, e.cancelled) if b is not None]
    every_block = [b for bs in blocks_of.values() for b in bs] + anywhere
    moved_any = set()
    for b in anywhere:
        moved_into(b.stmts, moved_any)
    set_any = set()
    for b in anywhere:
        set_any |= assigned(b.stmts)
    kill_zones = {n: moved_into([s for b in bs for s in b.stmts], set(moved_any)) for n, bs in blocks_of.items()}
    kill_vars = {n: set_any | {v for b in bs for v in assigned(b.stmts)} for n, bs in blocks_of.items()}
    gen = {n: _gen(p, actions, every_block, anywhere, checker.refs) for n, p in phases.items()}
    preds = {n: [] for n in phases}
    for n, p in phases.items():
        for x in p.nexts:
            if x.target.name in preds:
                preds[x.target.name].append(n)
    universe = frozenset(f for g in gen.values() for f in g)
    start = checker.game.start.name if checker.game is not None and checker.game.start is not None else None
    inn = {n: (frozenset() if n == start or not preds[n] else universe) for n in phases}

    def out(n):
        kept = {f for f in inn[n] if not _killed(f, kill_zones[n], kill_vars[n])}
        return frozenset(kept | gen[n])

    for _ in range(len(phases) + 2):
        changed = False
        for n in phases:
            if n == start or not preds[n]:
                continue
            new = frozenset.intersection(*(out(q) for q in preds[n]))
            if new != inn[n]:
                inn[n], changed = new, True
        if not changed:
            break
    return inn


def _killed(fact, zones: set, vars_: set) -> bool:
    return fact[0] in zones or "*" in zones or (fact[1] is not None and names(fact[1]) & vars_)


def _gen(p: A.PhaseDecl, actions: dict, every_block: list, anywhere: list, refs: dict) -> frozenset:
    """Zones shown when phase p exits: revealed by its enter/exit, or by the actions whose
    flag alone can end it (`end when b`, b reset on entry and set only by those actions)."""
    enter = p.enter.stmts if p.enter is not None else []
    act = _set_to(enter, "active")
    own = [b for b in (p.after, p.exit) if b is not None] + anywhere + [
        actions[a.name].effect for a in p.actions if a.name in actions and actions[a.name].effect is not None]
    changed = {v for b in own for v in assigned(b.stmts)}
    a = canon(act, {}, refs) if act is not None and "active" not in changed else None
    lets = {"active": a} if a is not None else {}
    facts = _gen_facts(p, actions, every_block, lets, refs)
    # an index whose variables change within the phase names no one zone at its exit, and cards
    # moved in after the last action (its after or exit block) are not the ones shown
    later = moved_into([s for b in (p.after, p.exit) if b is not None for s in b.stmts], set())
    return frozenset(f for f in facts if (f[1] is None or not names(f[1]) & changed)
                     and f[0] not in later and "*" not in later)


def _gen_facts(p, actions, every_block, lets, refs) -> frozenset:
    enter = p.enter.stmts if p.enter is not None else []
    zones = _top_reveals(enter) + (_top_reveals(p.exit.stmts) if p.exit is not None else [])
    b = p.end_when.name if isinstance(p.end_when, A.Name) else None
    reset = b is not None and isinstance(_set_to(enter, b), A.BoolLit) and not _set_to(enter, b).value
    if reset:
        mine = [actions[a.name].effect for a in p.actions if a.name in actions]
        setters = [blk for blk in every_block if blk is not p.enter and b in assigned(blk.stmts)]
        falses = [blk for blk in setters if isinstance(_set_to(blk.stmts, b), A.BoolLit)
                  and not _set_to(blk.stmts, b).value and blk not in mine]
        ending = [blk for blk in setters if blk in mine and isinstance(_set_to(blk.stmts, b), A.BoolLit)
                  and _set_to(blk.stmts, b).value]
        if ending and len(ending) + len(falses) == len(setters):
            shown = None
            for blk in ending:  # the zones every one of them reveals
                z = {_fact(x, lets, refs) for x in _top_reveals(blk.stmts)}
                shown = z if shown is None else shown & z
            zones_facts = {_fact(x, lets, refs) for x in zones} | (shown or set())
            return frozenset(f for f in zones_facts if f is not None)
    return frozenset(f for f in (_fact(x, lets, refs) for x in zones) if f is not None)


def _fact(z, lets: dict, refs: dict) -> Optional[tuple]:
    if isinstance(z, A.Name):
        return (z.name, None)
    if isinstance(z, A.Index) and isinstance(z.obj, A.Name):
        i = canon(z.index, lets, refs)
        if i is not None and "active" not in names(i):  # active is only known through lets
            return (z.obj.name, i)
    return None
