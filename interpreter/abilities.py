"""Abilities carried by cards, and rule values that cards change.

A card declared with ``while in ZONE [when COND] { ... }`` gives the player who owns that
zone (``owner``) the actions, triggers, conversions and ``modify`` contributions inside the
block, while the card (``self``) sits there and COND holds.  ``instances`` lists, for one
such group, the copies of the card that are active now and their owners: a lookup of where
each copy is, so it costs a few list reads.

A rule value (``rule strike_limit(p: player): int = 1 combine max``) is its base value
combined with every contribution that applies now: top-level ``modify`` lines and those of
active cards.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional

import attrs

from .card_index import OwnedIndex
from .static_conditions import live_copies, live_only


@attrs.define
class CAbility:
    card: str
    copies: tuple          # the card ids of every copy of the card
    slots: frozenset       # zone instances where it works
    when: Optional[Callable]   # the group's condition, its game-fixed part left out
    fixed: Optional[Callable] = None  # the part fixed for a whole game (static_conditions.py)
    key: int = 0           # the group's number (what a game remembers of `fixed` is keyed by it)
    pure: bool = True      # `when` draws no random number (so it may be read after other conditions)
    by_owner: dict = attrs.field(factory=dict)  # player -> the zones of `slots` the player owns
    hidden: tuple = ()     # ((zone, owner), ...) of the zones of `slots` a player owns that are not public


def face_down_holders(st, ab: CAbility, first_but=None) -> list:
    """The players who own one of the zones where ab's card works, holding a card not every player
    sees (in zone order).  Public: it says where face-down cards are, never which.
    first_but: a set of players: only the first such player not in it, if any."""
    zones, n, revealed, shown, out = st.zones, st.n, st.revealed, st.shown, []
    glimpses = st.prog.glimpses
    seen = None  # the cards shown to all, as a set (made when first needed)
    for zi, p in ab.hidden:
        cards = zones[zi]
        if not cards or p >= n or p in out or zi in revealed:
            continue
        if glimpses:  # cards seen by all on their own (a top card, known to everyone)
            if all(map(st.is_revealed, cards)):
                continue
        elif shown:  # (a card shown to all is not face down)
            if seen is None:
                seen = set(shown)
            if seen.issuperset(cards):
                continue
        if first_but is not None:
            if p in first_but:
                continue
            return [p]
        out.append(p)
    return out


def face_down_in(st, zones: frozenset) -> bool:
    """Does one of these zones (all owned by one player) hold a card not every player sees?
    (face_down_holders for one player.)"""
    all_zones, slots, revealed, shown = st.zones, st.prog.slots, st.revealed, st.shown
    for zi in zones:
        cards = all_zones[zi]
        if not cards or slots[zi].visibility == "public" or zi in revealed:
            continue
        if st.prog.glimpses:
            if not all(map(st.is_revealed, cards)):
                return True
        elif not shown or any(c not in shown for c in cards):
            return True
    return False


def could_apply(st, ab: CAbility, p: int, cond: Optional[Callable], base: Optional[dict] = None,
                cond_first: bool = False) -> bool:
    """Were p's face-down card a copy of ab's card, would the group's condition and `cond` hold?
    (Any copy: copies may differ in their properties.)  Read with public facts only.
    cond_first: read `cond` before the group's condition (both draw no random number, so the
    order changes nothing but the cost: 'target == owner' fails for most players at once)."""
    env = dict(base) if base else {}
    env["owner"] = p
    when = ab.when
    for c in live_copies(st, ab):
        env["self"] = c
        if cond_first:
            if (cond is None or cond(st, env)) and (when is None or when(st, env)):
                return True
        elif (when is None or when(st, env)) and (cond is None or cond(st, env)):
            return True
    return False


def placed(st, ab: CAbility) -> list:
    """[(card, owner)] of the copies of ab's card that lie where it works, with an owner in the
    game (its group's condition not read yet)."""
    where, slots, n = st.where, st.prog.slots, st.n
    copies = ab.copies
    if ab.fixed is not None:
        copies = st.opts.live.get(ab.key)
        if copies is None:
            copies = live_copies(st, ab)
    out = []
    for c in copies:
        zi = where[c]
        if zi in ab.slots:
            owner = slots[zi].owner
            if owner is not None and owner < n:
                out.append((c, owner))
    return out


def instances(st, ab: CAbility) -> list:
    """[(card, owner)] of the copies of ab's card that work now."""
    when = ab.when
    if when is None:
        return placed(st, ab)
    return [(c, owner) for c, owner in placed(st, ab) if when(st, {"owner": owner, "self": c})]


def active_for(st, ab: Optional[CAbility], player: int) -> list:
    """The copies of ab's card that work for `player` now ([None] for a top-level declaration)."""
    if ab is None:
        return [None]
    if not ab.pure:  # its condition is read for every copy in place, whoever owns it
        return [c for c, owner in instances(st, ab) if owner == player]
    mine = ab.by_owner.get(player)
    if mine is None or player >= st.n:
        return []
    copies = ab.copies if ab.fixed is None else (st.opts.live.get(ab.key) or live_copies(st, ab))
    where, when = st.where, ab.when
    if when is None:
        return [c for c in copies if where[c] in mine]
    return [c for c in copies if where[c] in mine and when(st, {"owner": player, "self": c})]


_MISSING = object()

COMBINE = {"sum": operator.add, "max": max, "min": min,
           "any": lambda a, b: bool(a or b), "all": lambda a, b: bool(a and b)}


@attrs.define
class CModify:
    args: list             # the names the rule's arguments have in VALUE and COND
    value: Callable
    when: Optional[Callable]
    ability: Optional[CAbility]
    owner_arg: Optional[int] = None  # the argument `when` says is the card's owner (owner_keys.py)


@attrs.define
class CRule:
    name: str
    params: list
    base: Callable
    combine: Callable
    modifies: list = attrs.field(factory=list)
    pure: bool = False     # draws no random number: its value may be memoised while nothing changes
    key: tuple = attrs.field(init=False)  # what a game remembers of its live modify lines by
    plan_key: tuple = attrs.field(init=False)  # ... and of how it reads them (_RulePlan)

    def __attrs_post_init__(self):
        self.key = ("rule", self.name)
        self.plan_key = ("rule plan", self.name)

    def value(self, st, args: list):
        memo = st._memo  # a dict while the engine lists actions or triggers: the state cannot change
        if memo is None or not self.pure:
            return self._value(st, args)
        key = (self.key,) + tuple([tuple(a) if isinstance(a, list) else a for a in args])
        v = memo.get(key, _MISSING)
        if v is _MISSING:
            v = memo[key] = self._value(st, args)
        return v

    def _value(self, st, args: list):
        v = self.base(st, dict(zip(self.params, args)))
        if not self.modifies:
            return v
        plan = st.opts.live.get(self.plan_key)
        if plan is None:
            plan = _rule_plan(st, self)
        combine = self.combine
        if plan.indexes is None:
            for m in plan.modifies:  # one by one, in order
                v = self._one(st, m, args, v)
            return v
        # the lines of cards that name their player: only that player's cards (card_index.py);
        # every line is then read in order, as one by one
        todo = []
        for pos, m in plan.others:
            if m.ability is None:
                todo.append((pos, -1, None))
            else:
                for c, owner in instances(st, m.ability):
                    todo.append((pos, c, owner))
        for arg, index in plan.indexes:
            p = args[arg]
            for pos, c, m in index.placed(st, p):
                when = m.ability.when
                if when is None or when(st, {"owner": p, "self": c}):
                    todo.append((pos, c, p))
        if len(todo) > 1:
            todo.sort(key=_position)
        modifies = plan.modifies
        for pos, c, owner in todo:
            m = modifies[pos]
            env = dict(zip(m.args, args))
            if c >= 0:
                env["owner"], env["self"] = owner, c
            if m.when is None or m.when(st, env):
                v = combine(v, m.value(st, env))
        return v

    def _one(self, st, m: CModify, args: list, v):
        """v combined with what one modify line gives."""
        combine = self.combine
        env = dict(zip(m.args, args))
        if m.ability is None:
            if m.when is None or m.when(st, env):
                v = combine(v, m.value(st, env))
            return v
        if m.owner_arg is not None:  # only the copies of the player its condition names (owner_keys.py)
            p = args[m.owner_arg]
            for c in active_for(st, m.ability, p):
                e = dict(env)
                e["owner"], e["self"] = p, c
                if m.when(st, e):
                    v = combine(v, m.value(st, e))
            return v
        for c, owner in instances(st, m.ability):
            e = dict(env)
            e["owner"], e["self"] = owner, c
            if m.when is None or m.when(st, e):
                v = combine(v, m.value(st, e))
        return v


def _position(x: tuple) -> tuple:
    return x[0], x[1]


class _RulePlan:
    """A rule's modify lines that can work in this game (static_conditions.py), and, when the
    rule draws no random number, those that name their player indexed by card (card_index.py)."""
    __slots__ = ("modifies", "others", "indexes")

    def __init__(self, st, rule: CRule):
        self.modifies = live_only(st, rule.key, rule.modifies)
        self.others: list = []    # [(position, line)] read for every copy
        self.indexes = None       # [(argument, OwnedIndex)], or None: every line read one by one
        keyed: dict = {}
        for pos, m in enumerate(self.modifies):
            if m.owner_arg is None:
                self.others.append((pos, m))
            else:
                keyed.setdefault(m.owner_arg, []).append((pos, m))
        if rule.pure and keyed:
            self.indexes = [(arg, OwnedIndex(st, items)) for arg, items in keyed.items()]


def _rule_plan(st, rule: CRule) -> _RulePlan:
    plan = st.opts.live[rule.plan_key] = _RulePlan(st, rule)
    return plan
