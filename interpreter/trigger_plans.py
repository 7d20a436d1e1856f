"""Per (event, timing): the triggers that can run in this game, arranged for events.jobs_for.

Worked out once per set of options (kept in ``st.opts.live``, like static_conditions.py) and
shared by every state of a game and its clones.  A plan holds

  * ``others``: the triggers read one by one, in declaration order: the rules' own, and the
    cards' triggers whose condition does not say whose card it is, or draws a random number;
  * ``groups``: the cards' triggers whose condition says which player's card it can be
    (owner_keys.py), one group per way of saying it (``p == owner``, ``source == hand[owner]``):
    for such an event only that player's cards need looking at (card_index.py);
  * ``optional`` and ``secret_groups``: the optional triggers of cards that may lie face down
    (events.secret_candidates), read one by one, or grouped as above.  When one of them draws a
    random number, all are read one by one, in declaration order, as they always were.

Nothing in a plan depends on where cards are: that is read from the state at every event.
"""
from __future__ import annotations

from .card_index import OwnedIndex
from .frames import TIMINGS
from .static_conditions import live_only

_PLANS = "trigger plans"  # the key of st.opts.live that keeps them


class Group:
    """The card triggers of one (event, timing) whose condition names their owner the same way."""
    __slots__ = ("field", "owner_zones", "triggers", "index")

    def __init__(self, field: str, owner_zones, triggers: list, index: OwnedIndex):
        self.field = field              # the event's field that names the player
        self.owner_zones = owner_zones  # as a zone of theirs (owner_keys.key_player), or None
        self.triggers = triggers        # in declaration order
        self.index = index              # the triggers by the cards that carry them (card_index.py)


class Plan:
    __slots__ = ("others", "groups", "optional", "secret_groups")

    def __init__(self, others: list, groups: list, optional: list, secret_groups: list):
        self.others, self.groups, self.optional, self.secret_groups = others, groups, optional, secret_groups


def plans_for(st, event: str) -> tuple:
    """The event's plans at its three timings (frames.TIMINGS), None where no trigger can run."""
    memo = st.opts.live.get(_PLANS)
    if memo is None:
        memo = st.opts.live[_PLANS] = {}
    plans = memo.get(event)
    if plans is None:
        plans = memo[event] = tuple(_make_plan(st, (event, timing)) for timing in TIMINGS)
    return plans


def _make_plan(st, key: tuple):
    prog = st.prog
    trigs = prog.triggers_at.get(key)
    trigs = live_only(st, ("triggers", key), trigs) if trigs else []
    if not trigs:
        return None
    optional = prog.secret_at.get(key)
    optional = live_only(st, ("secret", key), optional) if optional else []
    others, groups = _grouped(st, trigs)
    if all(t.pure and t.ability.pure for t in optional):
        optional, secret_groups = _grouped(st, optional)
    else:
        secret_groups = []
    return Plan(others, groups, optional, secret_groups)


def _grouped(st, trigs: list) -> tuple:
    """([the triggers read one by one], [the groups of the others]): one group per event field
    (``source == hand[owner]`` and ``source == equip[owner]`` share one: each trigger's own
    condition still says which zone)."""
    others: list = []
    keyed: dict = {}
    for t in trigs:
        if t.owner_key is None:
            others.append(t)
        else:
            keyed.setdefault((t.owner_key, t.owner_zones is None), []).append(t)
    groups = []
    for (field, as_player), ts in keyed.items():
        zones = None if as_player else frozenset().union(*(t.owner_zones for t in ts))
        groups.append(Group(field, zones, ts, OwnedIndex(st, [(t.index, t) for t in ts])))
    return others, groups
