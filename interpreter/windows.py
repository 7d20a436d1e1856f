"""Response windows: who is asked, and why asking never gives a hidden card away.

When an effect is on top of the response stack, its window asks players in order (the
effect's ``ask`` list, by default everyone clockwise after the player who stacked it)
whether they respond.  A player is asked when

  * they have a legal response now, or
  * they could hold one in cards the other players cannot see: some response they may take
    (its requirements that do not depend on its choices hold) draws its cards from a zone
    that is theirs to see and hidden from another player -- or, for a response a card gives,
    one of their zones where such a card works holds a card another player cannot see.

In the second case they can only answer "no response".  So whether a player is asked, and
what they answer, depends only on what the others can see (how many cards they hold, where),
never on which cards those are.  A ``mandatory`` effect offers no "no response" to a player
who has a response; a player who has none is not asked.
"""
from __future__ import annotations

from .abilities import could_apply, instances
from .errors import RuleRuntimeError

NO_RESPONSE = "no response"  # the text of declining to respond in a response window


def responses_for(st, eid: int) -> list:
    """The names of the responses that may answer this entry."""
    prog = st.prog
    kind = st.entry(eid)[1]
    cache = prog.cache.setdefault("responses", {})
    names = cache.get(kind)
    if names is None:
        tags = prog.effects[kind].tags
        names = cache[kind] = [a.name for a in prog.responses if a.respond_to & tags]
    return names


def open_window(st, eid: int) -> list:
    """The players this entry's window asks, in order."""
    e = st.entry(eid)
    eff = st.prog.effects[e[1]]
    if eff.ask is not None:
        st.active = st.turn_active
        order = list(eff.ask(st, {"this": eid}))
        if any(not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < st.n for p in order):
            raise RuleRuntimeError(f"the window of '{e[1]}' asks {order}, which is not a list of players",
                                   st.prog.path, eff.decl.span)
        return order
    by = e[2] if e[2] is not None else st.turn_active
    return [(by + k) % st.n for k in range(1, st.n + 1)]


def should_ask(st, eid: int, p: int) -> bool:
    """Is player p (already st.active) asked in this entry's window?"""
    names = responses_for(st, eid)
    if not names:
        return False
    legal = st._list_actions(names)
    if legal:
        return True
    if st.prog.effects[st.entry(eid)[1]].mandatory:
        return False
    return could_respond_unseen(st, names, p)


def could_respond_unseen(st, names: list, p: int) -> bool:
    prog = st.prog
    for name in names:
        act = prog.actions[name]
        if act.ability is not None:
            if any(_face_down_to_others(st, c, p) for zi in act.ability.slots
                   if prog.slots[zi].owner == p for c in st.zones[zi]) and could_apply(st, act.ability, p, act.ready):
                return True
            continue
        if act.ready is not None and not act.ready(st, {}):
            continue
        for cp in act.params:
            if cp.kind not in ("card", "cards", "use"):
                continue
            for c, zi in cp.domain(st, {}):
                if _face_down_to_others(st, c, p):
                    return True
            if cp.kind == "use":
                for conv in prog.conversions_to.get(cp.role, ()):
                    if conv.ability is not None and any(owner == p for _, owner in instances(st, conv.ability)):
                        return True
    return False


def _face_down_to_others(st, c: int, p: int) -> bool:
    """Does p see card c while some other player does not?  (A card revealed to everyone, say a
    face-up general in a zone hidden from others, gives nothing away.)"""
    return st.can_see_card(c, p) and any(not st.can_see_card(c, q) for q in range(st.n) if q != p)
