"""Every distinct set of cards a choice may pick, enumerated by kind, never by subset.

Cards that are alike (same name and values, same zone) are interchangeable, so a hand is
grouped into classes and we pick how many of each class to take.  With ``same PROP`` only
classes that share the property's value are combined; ``distinct PROP`` takes one card of each
of k values; ``wild`` cards join any group.  A 15-card hand never costs 2^15.  Cards the chooser
cannot see form one class per zone, of face-down markers, or one per place with ``by position``
(markers.py).  One decision lists at
most ``Game.max_choices`` candidates (TooManyChoices past it).
"""
from __future__ import annotations

from itertools import combinations, product
from typing import Iterator

from .markers import any_marker, position_marker
from .program_parts import CParam

# `prog` below is the compiled game (compiler.Program).  It is not named as a type here: the
# compiler imports this module (through blocks.py and choices.py), and this module needs only
# the tables it reads.

DEFAULT_MAX_CHOICES = 100_000  # candidate fillings one decision may list (Game.max_choices changes it)


class TooManyChoices(Exception):
    """One decision's candidates passed the limit (turned into a rules error naming the action)."""


def _limit(st) -> int:
    return getattr(st.game, "max_choices", DEFAULT_MAX_CHOICES)


def _extend(out: list, items, limit: int) -> None:
    """out.extend(items), stopping with TooManyChoices once out holds more than `limit`."""
    for x in items:
        out.append(x)
        if len(out) > limit:
            raise TooManyChoices()


def _multiset_combos(classes: list, k: int, start: int = 0) -> Iterator[list]:
    """Every way to take k cards from classes [(key, [cards])], as lists of card ids."""
    if k == 0:
        yield []
        return
    for i in range(start, len(classes)):
        cards = classes[i][1]
        for take in range(min(k, len(cards)), 0, -1):
            for rest in _multiset_combos(classes, k - take, i + 1):
                yield cards[:take] + rest


def _combos(classes: list, k: int, out: list, limit: int = DEFAULT_MAX_CHOICES) -> None:
    """Append every way to take k cards from classes to out (the order of _multiset_combos);
    TooManyChoices once out would hold more than `limit`."""
    if k == 2 and len(classes) * (len(classes) + 1) // 2 + len(out) > limit:
        raise TooManyChoices()
    if k == 1:
        for _, cards in classes:
            out.append([cards[0]])
    elif k == 2:  # the common pair size, spelled out
        n = len(classes)
        for i in range(n):
            cards = classes[i][1]
            c = cards[0]
            if len(cards) >= 2:
                out.append([c, cards[1]])
            for j in range(i + 1, n):
                out.append([c, classes[j][1][0]])
    elif k > 0:
        _extend(out, _multiset_combos(classes, k), limit)


def _sizes(prog, p: CParam, st, env) -> list:
    if p.size is None:
        return []
    v = p.size(st, env)
    return v if isinstance(v, list) else [v]


def card_classes(prog, p: CParam, st, env, who, name: str = None, prefilter: bool = True) -> tuple:
    """The classes of alike cards choice p may pick from, as card_choices groups them: (a dict
    class key -> its cards, in the order met; how many cards in all).  `who` sees the cards."""
    by_class: dict = {}
    total = 0
    kind, n_slots = prog.card_kind, len(prog.slots)
    names = prog.card_names
    seen_zone: dict = {}  # zone -> can `who` see it?
    printed = p.printed if prefilter else None  # 'where c.prop == V': other cards never qualify
    if printed is not None:
        pvals, want = printed[0], printed[1](st, env)
        printed = (pvals, want)
    if p.zones is not None:  # zones and card lists: no (card, zone) pairs built
        zones, slots = st.zones, prog.slots
        for is_zone, f in p.zones:
            if is_zone:
                zi = f(st, env)
                zone = zones[zi]
                slot = slots[zi]
                if not (slot.visibility == "public" or (slot.visibility == "owner" and slot.owner == who)
                        or who is None or zi in st.revealed):
                    if zone:
                        total += hidden_zone_classes(prog, p, st, zi, who, name, printed, by_class)
                    continue
                if name is not None:  # a 'use' choice: only the cards of that name
                    zone = [c for c in zone if names[c] == name]
                if printed is not None:
                    zone = [c for c in zone if pvals[c] == want]
                total += len(zone)
                for c in zone:
                    key = kind[c] * n_slots + zi
                    cs = by_class.get(key)
                    if cs is None:
                        by_class[key] = [c]
                    else:
                        cs.append(c)
                continue
            where = st.where
            total += _group_pairs(prog, st, [(c, where[c]) for c in f(st, env)], who, name, printed,
                                  by_class, seen_zone)  # a list of cards, each in its own zone
    else:
        total += _group_pairs(prog, st, p.domain(st, env), who, name, printed, by_class, seen_zone)
    return by_class, total


def hidden_zone_classes(prog, p: CParam, st, zi: int, who, name, printed, by_class: dict) -> int:
    """The cards of zone zi, which `who` cannot see, into by_class (as card_classes groups them);
    how many joined.  A card shown to `who` all the same (revealed on its own) is offered by name
    like any card; the others face down, after it: one class of markers for the zone, or with
    `by position` a marker per place (markers.py).  printed: (values, wanted value) or None."""
    zone = st.zones[zi]
    seen = [c for c in zone if st.can_see_card(c, who)]
    total = 0
    if seen:
        kind, n_slots, names = prog.card_kind, len(prog.slots), prog.card_names
        for c in seen:
            if (name is None or names[c] == name) and (printed is None or printed[0][c] == printed[1]):
                by_class.setdefault(kind[c] * n_slots + zi, []).append(c)
                total += 1
    if name is not None:
        return total  # a 'use' choice names its cards: face-down ones are not offered
    if p.by_position:
        for i, c in enumerate(zone):
            if not seen or c not in seen:
                by_class[("face down", zi, i)] = [position_marker(prog, zi, i)]
    elif len(zone) > len(seen):
        by_class.setdefault(("face down", zi), []).extend([any_marker(prog, zi)] * (len(zone) - len(seen)))
    return total + len(zone) - len(seen)


def hidden_zone_values(prog, p: CParam, st, env, zi: int, who) -> list:
    """card_choices' values for a card choice from the one zone zi, which `who` cannot see (the
    compiled engine's listers ask this)."""
    printed = p.printed
    if printed is not None:
        printed = (printed[0], printed[1](st, env))
    by_class: dict = {}
    if st.zones[zi]:
        hidden_zone_classes(prog, p, st, zi, who, None, printed, by_class)
    return [cards[0] for cards in by_class.values()]


def card_choices(prog, p: CParam, st, env, who=None, name: str = None, prefilter: bool = True) -> list:
    """Every distinct choice for a card / cards parameter: alike cards (same name and
    properties, same zone) are interchangeable, so each combination of kinds appears once.
    Cards `who` cannot see are alike too: a hidden zone is one class of face-down markers
    (choices.py).  With `name`, only cards of that name (visible ones) are offered."""
    if who is None:
        who = st.active
    by_class, total = card_classes(prog, p, st, env, who, name, prefilter)
    if p.kind in ("card", "use"):
        return [cards[0] for cards in by_class.values()]
    classes = list(by_class.items())
    if p.same is not None or p.distinct is not None or p.wild is not None or p.sum_of is not None:
        classes = [item for item in classes if not isinstance(item[0], tuple)]  # face-down cards have no known values
    sizes = _sizes(prog, p, st, env)
    if not sizes:
        sizes = range(1, total + 1)
    limit = _limit(st)
    if p.sum_of is not None:
        return _sum_choices(p, st, env, classes, sizes, limit)
    if p.distinct is not None:
        return _distinct_choices(prog, p, classes, sizes, limit)
    if p.wild is not None:
        return _wild_choices(prog, p, st, env, classes, sizes, limit)
    class_groups, totals = same_groups(prog, p, classes)
    out: list = []
    for k in sizes:
        if k <= 0:
            if k == 0:  # 'size 0..N': choosing none is a choice too
                out.append([])
            continue
        for group, total in zip(class_groups, totals):
            if k <= total:
                _combos(group, k, out, limit)
    return out


def nothing_to_choose(prog, p: CParam, st, env, who) -> bool:
    """Is it sure, without listing, that choice p offers nothing?  For a 'use "NAME"' choice with no
    conversion to NAME in the game, or a 'where c.prop == V' card choice: when no card of that
    name or printed value lies in its zones and lists, and none of its zones is hidden from the
    chooser (that would offer face-down cards).  Looks at the few cards of that name or value only."""
    cards = st.opts.live.get(id(p))  # the cards it could offer, once per game (ids never clash with
    # the small numbers that key abilities there)
    if cards is None:
        cards = st.opts.live[id(p)] = _only_cards(prog, p, st, env)
    if cards is False:
        return False
    where = st.where
    for is_zone, f in p.zones:
        if is_zone:
            zi = f(st, env)
            if st.zones[zi] and not st.can_see(zi, who):
                return False
            for c in cards:
                if where[c] == zi:
                    return False
        else:
            listed = f(st, env)
            if listed and (any(c in listed for c in cards) or any(not st.can_see(where[c], who) for c in listed)):
                return False
    return True


def _only_cards(prog, p: CParam, st, env):
    """The only cards choice p can offer (visible ones), or False when that is not known ahead."""
    if p.zones is None:
        return False
    if p.kind == "use":
        if prog.conversions_to.get(p.role):
            return False
        return list(prog.copies_of.get(p.role, ()))
    if p.printed is not None and p.kind == "card":
        pvals, want = p.printed[0], p.printed[1](st, env)  # (fixed for a game)
        return [c for c in range(prog.card_count) if pvals[c] == want]
    return False


def _group_pairs(prog, st, pairs, who, name, printed, by_class: dict, seen_zone: dict) -> int:
    """Group (card, zone) pairs into classes of alike cards (by_class), as card_choices does for a
    zone; returns how many cards joined.  printed: (values, wanted value) or None."""
    kind, n_slots, names = prog.card_kind, len(prog.slots), prog.card_names
    total = 0
    for c, zi in pairs:
        visible = seen_zone.get(zi)
        if visible is None:
            visible = seen_zone[zi] = st.can_see(zi, who)
        if not visible and not st.can_see_card(c, who):
            if name is None:
                by_class.setdefault(("face down", zi), []).append(any_marker(prog, zi))
                total += 1
            continue
        if name is not None and names[c] != name:
            continue
        if printed is not None and printed[0][c] != printed[1]:
            continue
        total += 1
        key = kind[c] * n_slots + zi
        cs = by_class.get(key)
        if cs is None:
            by_class[key] = [c]
        else:
            cs.append(c)
    return total


def _group_by(prog, prop_name: str, classes: list) -> list:
    prop = prog.card_names if prop_name == "name" else prog.card_props[prop_name]
    groups: dict = {}
    for item in classes:
        groups.setdefault(prop[item[1][0]], []).append(item)
    return list(groups.values())


def _sum_choices(p: CParam, st, env, classes: list, sizes, limit: int) -> list:
    """'sum PROP == E': the sets of each size whose values of PROP add up to E, built class by
    class and cut off as soon as the rest cannot make the total (never every subset: a table of
    ten cards makes 1,013 sets of 2 to 10, of which a handful add up).  The order is that of the
    unfiltered listing (_multiset_combos), less the sets that miss the total."""
    values, target = p.sum_of[0], p.sum_of[1](st, env)
    items = [(values[cards[0]] or 0, cards) for _, cards in classes]
    n = len(items)
    # the most and the least any j of the cards can add up to (a loose bound, worked out once)
    top = sorted((v for v, cards in items for _ in cards), reverse=True)
    hi_j = [sum(top[:j]) for j in range(len(top) + 1)]
    lo_j = [sum(top[::-1][:j]) for j in range(len(top) + 1)]
    out: list = []

    def grow(start: int, k: int, need: int, taken: list) -> None:
        if k == 0:
            if need == 0:
                out.append(list(taken))
                if len(out) > limit:
                    raise TooManyChoices()
            return
        if k >= len(hi_j) or need > hi_j[k] or need < lo_j[k]:
            return  # even the largest (smallest) k cards left cannot make it
        for i in range(start, n):
            v, cards = items[i]
            for take in range(min(k, len(cards)), 0, -1):
                taken.extend(cards[:take])
                grow(i + 1, k - take, need - v * take, taken)
                del taken[len(taken) - take:]
    for k in sizes:
        if 0 <= k <= len(top):  # (no card: the empty set, when the total to make is 0)
            grow(0, k, target, [])
    return out


def _distinct_choices(prog, p: CParam, classes: list, sizes, limit: int) -> list:
    """Sets whose cards all differ in a property: k groups of that property, one card from each."""
    groups = _group_by(prog, p.distinct, classes)
    out: list = []
    for k in sizes:
        if k < 0 or k > len(groups):
            continue
        for chosen in combinations(groups, k):  # (k = 0: the empty set)
            _extend(out, ([cards[0] for _, cards in pick] for pick in product(*chosen)), limit)
    return out


def _wild_choices(prog, p: CParam, st, env, classes: list, sizes, limit: int) -> list:
    """Sets of alike cards (``same``) that wild cards may join: each group of alike ordinary
    cards with 0..k-1 wilds added, and the wild cards' own groups on their own."""
    wild, plain = [], []
    if p.wild_static:  # which cards are wild is fixed for the game: read it from a table
        live = st.opts.live
        table = live.get(("wild", id(p)))
        if table is None:
            table = live[("wild", id(p))] = [bool(p.wild(st, env, c)) for c in range(prog.card_count)]
        for item in classes:
            (wild if table[item[1][0]] else plain).append(item)
    else:
        for item in classes:
            (wild if p.wild(st, env, item[1][0]) else plain).append(item)
    n_wild = sum(len(cards) for _, cards in wild)
    plain_groups = [(g, sum(len(cs) for _, cs in g)) for g in _group_by(prog, p.same, plain)]
    wild_groups = [(g, sum(len(cs) for _, cs in g)) for g in _group_by(prog, p.same, wild)]
    biggest_plain = max([t for _, t in plain_groups], default=0) + n_wild  # no set of more cards
    biggest_wild = max([t for _, t in wild_groups], default=0)
    extras_by_j: dict = {0: [[]]}
    out: list = []
    for k in sizes:
        if k <= 0:
            if k == 0:
                out.append([])
            continue
        if k <= biggest_plain:
            for group, total in plain_groups:
                lo, hi = k - total, k - 1  # how many wilds join: k - total .. k - 1, at most n_wild
                if lo < 0:
                    lo = 0
                if hi > n_wild:
                    hi = n_wild
                for j in range(lo, hi + 1):
                    base: list = []
                    _combos(group, k - j, base, limit)
                    extras = extras_by_j.get(j)
                    if extras is None:
                        extras = extras_by_j[j] = []
                        _combos(wild, j, extras, limit)
                    if len(out) + len(base) * len(extras) > limit:
                        raise TooManyChoices()
                    for b in base:
                        for x in extras:
                            out.append(b + x)
        if k <= biggest_wild:
            for group, total in wild_groups:
                if k <= total:
                    _combos(group, k, out, limit)
    return out


def same_groups(prog, p, classes: list) -> tuple:
    """The kinds of cards a set may be made of, grouped by the value of the choice's 'same'
    property (one group without 'same'), and how many cards each group holds."""
    if p.same is not None:
        prop = prog.card_names if p.same == "name" else prog.card_props[p.same]
        groups: dict = {}
        for item in classes:
            v = prop[item[1][0]]
            g = groups.get(v)
            if g is None:
                groups[v] = [item]
            else:
                g.append(item)
        class_groups = list(groups.values())
    else:
        class_groups = [classes]
    return class_groups, [sum(len(cs) for _, cs in group) for group in class_groups]
