"""What one player's cards give them: found by looking at that player's cards, not at every card.

Actions, triggers, conversions and modify lines that a card carries (``while in ZONE``) work for
the owner of the zone the card lies in.  When the engine needs those working for one player (the
actions of the player to act, a trigger whose condition names the player, a rule's value for
a player), looking up where every copy of every such card is costs a few reads per item, and a
game with a card per character and weapon has hundreds of items.  An OwnedIndex, made once per set of options (kept
in ``st.opts.live``), knows which zones of each player those items work in and which items
each card carries: the player's few cards there give the answer.

Only items whose card's group condition draws no random number may be indexed (the group's
condition is then read for fewer copies, which changes nothing else); the caller reads that
condition, as before.
"""
from __future__ import annotations

from .static_conditions import live_copies


class OwnedIndex:
    __slots__ = ("items", "zones_of", "by_card", "copies")

    def __init__(self, st, items: list):
        """items: [(position, item)], each item with an ``ability`` (abilities.CAbility)."""
        self.items = items
        zones_of: dict = {}
        self.by_card: dict = {}  # card -> [(position, item)] of the items it carries, in order
        self.copies = 0          # (item, live copy) pairs: what looking copy by copy costs
        for pos, item in items:
            ab = item.ability
            copies = live_copies(st, ab)
            self.copies += len(copies)
            for c in copies:
                self.by_card.setdefault(c, []).append((pos, item))
            for p, zones in ab.by_owner.items():
                zones_of[p] = zones_of.get(p, frozenset()) | zones
        self.zones_of = {p: tuple(sorted(z)) for p, z in zones_of.items()}  # player -> zones where items work

    def placed(self, st, p) -> list:
        """[(position, card, item)] of the items whose card lies where it works in a zone of p's,
        by position, then card (the group's condition not read yet)."""
        zs = self.zones_of.get(p)
        if zs is None or p >= st.n:
            return []
        zones = st.zones
        held = 0
        for zi in zs:
            held += len(zones[zi])
        out = []
        if held <= self.copies:  # fewer cards to look at than copies: by card
            by_card = self.by_card
            for zi in zs:
                for c in zones[zi]:
                    got = by_card.get(c)
                    if got is not None:
                        for pos, item in got:
                            if zi in item.ability.slots:
                                out.append((pos, c, item))
            if len(out) > 1:
                out.sort(key=_position)
        else:  # by copy
            where, live = st.where, st.opts.live
            for pos, item in self.items:
                ab = item.ability
                mine = ab.by_owner.get(p)
                if mine is None:
                    continue
                for c in (ab.copies if ab.fixed is None else (live.get(ab.key) or live_copies(st, ab))):
                    if where[c] in mine:
                        out.append((pos, c, item))
        return out


def _position(x: tuple) -> tuple:
    return x[0], x[1]


def owned_index(st, key, items_of) -> OwnedIndex:
    """The index kept under `key` with the options, made from items_of() the first time."""
    live = st.opts.live
    got = live.get(key)
    if got is None:
        got = live[key] = OwnedIndex(st, items_of())
    return got
