"""The card sets of a 'cards' choice for the compiled engine's listers: cardsets.card_choices'
very lists (the same sets in the same order, the same TooManyChoices), made faster for the
usual choices (listing.py)."""
from __future__ import annotations

from itertools import combinations
from math import comb

from ..cardsets import TooManyChoices, _combos, _group_by, _limit, _sizes, _wild_choices, card_choices, card_classes, same_groups


def first_of_each_kind(kind: list, zone) -> list:
    """The first card of each kind in a zone, in zone order (card_choices' classes of one zone)."""
    if len(set(map(kind.__getitem__, zone))) == len(zone):  # no two alike (the usual hand)
        return zone
    seen: set = set()
    out = []
    for c in zone:
        k = kind[c]
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def card_sets(prog, p, st, env, who) -> list:
    """card_choices for a 'cards' parameter: the very same list (and the same TooManyChoices), with
    the sets of plain and 'same' choices made faster (combinations of cards no two alike in one
    go), and wild-card choices with no wild card at hand made without trying every count of
    wilds.  'distinct', 'sum' and wild cards that change during a game: the runtime's own."""
    if p.distinct is not None or p.sum_of is not None or \
            (p.wild is not None and (not p.wild_static or p.same is None)):
        return card_choices(prog, p, st, env, who)
    if who is None:
        who = st.active
    by_class, total = card_classes(prog, p, st, env, who)
    classes = list(by_class.items())
    if p.same is not None or p.wild is not None:
        classes = [item for item in classes if not isinstance(item[0], tuple)]  # (face-down cards)
    sizes = _sizes(prog, p, st, env)
    if not sizes:
        sizes = range(1, total + 1)
    limit = _limit(st)
    if p.wild is not None:
        live = st.opts.live
        table = live.get(("wild", id(p)))  # (the table _wild_choices keeps)
        if table is None or any(table[cs[0]] for _, cs in classes):
            return _wild_choices(prog, p, st, env, classes, sizes, limit)
        return _unwild(prog, p, classes, sizes, limit)
    class_groups, totals = same_groups(prog, p, classes)
    out: list = []
    for k in sizes:
        if k <= 0:
            if k == 0:  # (the empty set, as card_choices offers it)
                out.append([])
            continue
        for group, n in zip(class_groups, totals):
            if k <= n:
                _fast_combos(group, n, k, out, limit)
    return out


def _fast_combos(group: list, n: int, k: int, out: list, limit: int) -> None:
    """cardsets._combos (the same sets in the same order, TooManyChoices alike); n: the group's
    cards.  Cards no two alike, 3 or more at a time: itertools' combinations, counted first."""
    if k >= 3 and n == len(group):
        if len(out) + comb(n, k) > limit:
            raise TooManyChoices()
        out.extend([list(t) for t in combinations([cs[0] for _, cs in group], k)])
    else:
        _combos(group, k, out, limit)


def _unwild(prog, p, classes: list, sizes, limit: int) -> list:
    """cardsets._wild_choices when no class is wild: its sets (each group of alike cards alone,
    without wilds to add), with its limits (each group's sets counted on their own, then with
    those before them)."""
    groups = [(g, sum(len(cs) for _, cs in g)) for g in _group_by(prog, p.same, classes)]
    biggest = max([n for _, n in groups], default=0)
    out: list = []
    for k in sizes:
        if k == 0:
            out.append([])
        if k <= 0 or k > biggest:
            continue
        for group, n in groups:
            if k <= n:
                base: list = []
                _fast_combos(group, n, k, base, limit)
                if len(out) + len(base) > limit:
                    raise TooManyChoices()
                out.extend(base)
    return out
