"""Reveals an event's `on` triggers make, for the flow check (flow.py): public in its `after` ones.

An event's `after` triggers run only once its `on` timing is over (a `prevent` stops every later
trigger).  The `on` triggers that always run then (top-level, no `for`, not optional, no `when`,
or only `when not revealed(x)` for the card x they reveal) have shown what they reveal: a zone
indexed by a record field (`reveal hand[p]`), each card of a list they loop over (`for g in
cards(hand[p]) { if not revealed(g) { reveal g } }`: every card of hand[p] ends face up), also
by emitting an event whose own such `on` triggers reveal its card field (when no trigger of that
event may prevent it).  Such a zone stays shown in the event's `after` triggers unless a block
that may run during an event (a trigger, an effect's resolve or cancelled, a response) moves
cards into its family without revealing them later in its block, or conceals or shuffles there,
or a trigger of the event sets that field.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .flow_cond import assigned, nested
from .flow_phases import family


def event_shown_after(checker) -> dict:
    """event name -> frozenset of (zone, field name or None): shown in its `after` triggers."""
    return _Events(checker).shown_after()


class _Events:
    def __init__(self, checker):
        self.c = checker
        self.by_event: dict = {}
        for t in checker.triggers:
            self.by_event.setdefault(t.event.name, []).append(t)
        self.memo: dict = {}

    def shown_after(self) -> dict:
        kills = _kills(self.c)
        out = {}
        if "*" in kills:
            return out
        for ev, ts in self.by_event.items():
            if not any(t.timing == "after" for t in ts):
                continue
            set_ = {v for t in ts for v in assigned(t.body.stmts)}
            facts = frozenset((a[1], a[2]) for a in self.on_facts(ev)
                              if a[0] == "zone" and a[1] not in kills and a[2] not in set_)
            if facts:
                out[ev] = facts
        return out

    def prevented(self, ev: str) -> bool:
        return any(t.timing in ("before", "on") and _prevents(t.body.stmts) for t in self.by_event.get(ev, ()))

    def on_facts(self, ev: str) -> frozenset:
        """What is face up once ev's `on` timing is over: ("zone", z, field or None), ("card", field)."""
        if ev in self.memo:
            return self.memo[ev]
        self.memo[ev] = frozenset()  # an event that emits itself: nothing more on the way round
        fields = {n for n, _ in self.c.event_params(ev)}
        set_ = {v for t in self.by_event.get(ev, ()) if t.timing != "after" for v in assigned(t.body.stmts)}
        out = set()
        for t in self.by_event.get(ev, ()):
            if t.timing != "on" or t in self.c.abilities or t.for_var is not None or t.optional is not None:
                continue
            facts = self.block(t.body.stmts)
            if t.when is not None:  # `when not revealed(x)`: x is face up, revealed here or before
                x = _face_down_test(t.when)
                facts = {("card", x)} & facts if x is not None else set()
            bound = _bound(t.body.stmts, set())
            out |= {a for a in facts if a[-1] is None or a[-1] in fields and a[-1] not in bound and a[-1] not in set_}
        self.memo[ev] = frozenset(out)
        return self.memo[ev]

    def block(self, stmts) -> set:
        """What stmts leave face up, whichever way they go: atoms over the block's names."""
        out = set()
        for s in stmts:
            if isinstance(s, A.Reveal) and s.reveal:
                out |= self.parts(s.zone, None)
            elif isinstance(s, A.Emit) and not self.prevented(s.event.name):
                out |= self.emitted(s)
            elif isinstance(s, A.If):
                arms = [self.block(b.stmts) for _, b in s.branches]
                if s.else_ is not None:
                    out |= set.intersection(*arms, self.block(s.else_.stmts))
                elif len(arms) == 1:  # `if not revealed(x) { ...reveal x... }`: x ends face up
                    x = _face_down_test(s.branches[0][0])
                    if x is not None and ("card", x) in arms[0]:
                        out.add(("card", x))
            elif isinstance(s, A.For) and ("card", s.var) in self.block(s.body.stmts):
                out |= self.parts(s.iterable, None)  # every card of the list
        return out

    def emitted(self, s: A.Emit) -> set:
        """What an emitted event's `on` triggers leave face up, over the emitting block's names."""
        args = {n: (a[1] if isinstance(a, tuple) else a)
                for (n, _), a in zip(self.c.event_params(s.event.name), s.args)}
        out = set()
        for a in self.on_facts(s.event.name):
            arg = args.get(a[-1])
            if a[0] == "card" and arg is not None:
                out |= self.parts(arg, None)
            elif a[0] == "zone" and a[2] is None:
                out.add(a)
            elif a[0] == "zone" and isinstance(arg, A.Name) and self.c.refs.get(arg, ("",))[0] == "local":
                out.add(("zone", a[1], arg.name))
        return out

    def parts(self, e, subst: Optional[dict]) -> set:
        """The atoms all of e's cards are among: zones (`cards(Z)`, `A + B`, defs) or a local."""
        ref = self.c.refs.get(e)
        kind = ref[0] if ref else None
        if isinstance(e, A.Name):
            if kind == "zone":
                return {("zone", e.name, None)}
            n = e.name if subst is None else subst.get(e.name)
            return {("card", n)} if kind == "local" and n is not None else set()
        if isinstance(e, A.Index) and kind == "pzone" and isinstance(e.index, A.Name) \
                and self.c.refs.get(e.index, ("",))[0] == "local":
            n = e.index.name if subst is None else subst.get(e.index.name)
            return {("zone", e.obj.name, n)} if n is not None else set()
        if isinstance(e, A.Call) and kind == "builtin_func" and e.func == "cards" and len(e.args) == 1:
            return self.parts(e.args[0], subst)
        if isinstance(e, A.Call) and kind == "def":
            d = ref[1]
            names = {p.name: (self.parts_name(a, subst)) for p, a in zip(d.params, e.args)}
            return self.parts(d.body, names)
        return set().union(*(self.parts(x, subst) for x in _summands(e)))

    def parts_name(self, a, subst: Optional[dict]) -> Optional[str]:
        """The caller's local name an argument is (None: not a plain local)."""
        if isinstance(a, A.Name) and self.c.refs.get(a, ("",))[0] == "local":
            return a.name if subst is None else subst.get(a.name)
        return None


def _face_down_test(e) -> Optional[str]:
    """x when e is `not revealed(x)` with x a name."""
    if isinstance(e, A.Unary) and e.op == "not" and isinstance(e.operand, A.Call) and e.operand.func == "revealed" \
            and len(e.operand.args) == 1 and isinstance(e.operand.args[0], A.Name):
        return e.operand.args[0].name
    return None


def _prevents(stmts) -> bool:
    return any(isinstance(s, A.Prevent) or any(_prevents(b.stmts) for b in nested(s)) for s in stmts)


def _bound(stmts, out: set) -> set:
    """Names a block binds anew (let, choose, let ... = emit): they may hide a record field."""
    for s in stmts:
        if isinstance(s, (A.Let, A.Choose)):
            out.add(s.name)
        elif isinstance(s, A.Emit) and s.target is not None:
            out.add(s.target)
        for b in nested(s):
            _bound(b.stmts, out)
    return out


# ---------------------------------------------------------------- what may hide them again
def _kills(checker) -> set:
    """Zone families where a block that may run during an event puts face-down cards: a move
    into it whose cards its block does not reveal afterwards, a conceal, a shuffle ("*": any)."""
    blocks = [t.body for t in checker.triggers]
    blocks += [b for e in checker.effects.values() for b in (e.resolve, e.cancelled) if b is not None]
    blocks += [a.effect for a in checker.actions.values() if a.respond_to and a.effect is not None]
    out: set = set()
    for b in blocks:
        _kill_walk(checker, b.stmts, frozenset(), {}, out)
    return out


def _revealed_names(stmts) -> set:
    """What a block's top level reveals: card locals by name, zones by their key (not once the
    name is set anew)."""
    out, rebound = set(), set()
    for s in stmts:
        if isinstance(s, A.Reveal) and s.reveal:
            k = _key(s.zone)
            if k not in rebound and not (isinstance(k, tuple) and k[1] in rebound):
                out.add(k)
        rebound |= _bound([s], set()) | assigned([s])
    return out


def _key(e):
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Index) and isinstance(e.obj, A.Name) and isinstance(e.index, A.Name):
        return (e.obj.name, e.index.name)
    return None


def _kill_walk(checker, stmts, later_out: frozenset, where: dict, out: set) -> None:
    """where: card local -> the zone families it may be in (known from a choice or a move)."""
    for i, s in enumerate(stmts):
        later = later_out | _revealed_names(stmts[i + 1:])
        if isinstance(s, (A.Move, A.Play, A.Deal)):
            fam = family(s.dest)
            cards = getattr(s, "cards", None)
            if _key(s.dest) not in later and not (isinstance(cards, A.Name) and cards.name in later):
                out.add(fam)
            if isinstance(cards, A.Name):
                where[cards.name] = frozenset((fam,))
        elif isinstance(s, A.Reveal) and not s.reveal or isinstance(s, A.Shuffle):
            z = checker.zone_of(s.zone)
            if z is not None:
                out.add(z.name)
            else:
                out |= where.get(s.zone.name, {"*"}) if isinstance(s.zone, A.Name) else {"*"}
        elif isinstance(s, A.Choose):
            fams = _zone_families(checker, s.param.domain) if s.param.kind == "card" and s.param.domain is not None else None
            if fams:
                where[s.name] = frozenset(fams)
            else:
                where.pop(s.name, None)
        elif isinstance(s, A.Let):
            v = s.value
            if isinstance(v, A.Name) and v.name in where:
                where[s.name] = where[v.name]
            else:
                where.pop(s.name, None)
        elif isinstance(s, A.Assign) and not s.target.path and s.target.index is None:
            where.pop(s.target.name, None)
        for b in nested(s):
            for _ in range(2 if isinstance(s, A.For) else 1):  # a second round starts where the first left
                inner = dict(where)
                if isinstance(s, A.For):  # the loop's card is one of its list's
                    fams = _zone_families(checker, s.iterable)
                    inner.pop(s.var, None)
                    if fams:
                        inner[s.var] = frozenset(fams)
                _kill_walk(checker, b.stmts, later, inner, out)
                _merge(where, inner)


def _merge(where: dict, inner: dict) -> None:
    """After a branch or a round, a card may be where either way left it (unknown if either lost it)."""
    for k in list(where):
        if k in inner:
            where[k] = where[k] | inner[k]
        else:
            del where[k]


def _zone_families(checker, e) -> set:
    """The zone families an expression's cards come from (empty when it reads anything else)."""
    z = checker.zone_of(e)
    if z is not None:
        return {z.name}
    if isinstance(e, A.Call) and e.func == "cards" and len(e.args) == 1:
        return _zone_families(checker, e.args[0])
    parts = _summands(e)
    fams = [_zone_families(checker, x) for x in parts] if len(parts) > 1 else [set()]
    return set().union(*fams) if all(fams) else set()


def _summands(e) -> list:
    """The lists `A + B + C` joins (none for another expression)."""
    if isinstance(e, A.BinOp) and e.op == "+":
        return [e.left, e.right]
    if isinstance(e, A.Chain) and set(e.ops) == {"+"}:
        return list(e.operands)
    return []
