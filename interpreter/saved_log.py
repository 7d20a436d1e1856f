"""The log entries of a saved state, checked one by one against what the engine writes.

Each kind of entry has one shape (the engine's writers: state.py, compiler.py, machine.py); an
entry of another shape, or naming a zone, card, player, phase or effect that does not exist,
would break the log's rendering (observation.py) or a tool reading it much later, so the
state is refused when it is read (serialise.py).  The entries' values are checked, not their
history: a move need not match where the cards are now (a re-dealt world keeps its log).

Each check is a function of (entry, validator) that is true for a good entry; it runs for
every entry of a state read, so each is a few comparisons (no message is built unless it fails).
"""
from __future__ import annotations

from itertools import chain


def _number(v) -> bool:
    """A whole number (true and false pass too: every reader of the log takes them as 1 and 0,
    and the quick pass, _all_fit, cannot tell them apart at its speed)."""
    return type(v) is int or type(v) is bool


def _zone(v, val) -> bool:
    return _number(v) and 0 <= v < val.zone_count


def _card(v, val) -> bool:
    return _number(v) and 0 <= v < val.card_count


def _player(v, val) -> bool:
    return v is None or (_number(v) and 0 <= v < val.n)


def _cards(v, val) -> bool:
    count = val.card_count
    return type(v) is list and all(_number(c) and 0 <= c < count for c in v)


def _players(v, val) -> bool:
    n = val.n
    return type(v) is list and all(_number(p) and 0 <= p < n for p in v) and len(set(v)) == len(v)


def _entry_id(v, val) -> bool:
    return _number(v) and 0 <= v < val.next_entry


def _effect(v, val) -> bool:
    return type(v) is str and v in val.prog.effects


def _text(e, val) -> bool:
    return len(e) == 2 and type(e[1]) is str


def _phase(e, val) -> bool:
    return len(e) == 2 and type(e[1]) is str and e[1] in val.prog.phases


def _action(e, val) -> bool:
    # the optional fourth value: who may read the decision (state._mask_decision), in seat order
    return 3 <= len(e) <= 4 and _player(e[1], val) and type(e[2]) is str and \
        (len(e) == 3 or (_players(e[3], val) and e[3] == sorted(e[3])))


def _move(e, val) -> bool:
    if not (3 <= len(e) <= 5 and _zone(e[1], val) and type(e[2]) is list and e[2]):
        return False
    count, zones = val.card_count, val.zone_count
    for m in e[2]:
        if not (type(m) is list and len(m) == 2 and _number(m[0]) and 0 <= m[0] < count
                and _number(m[1]) and 0 <= m[1] < zones):
            return False
    if len(e) == 3:
        return True
    # the zones among the destination and the sources that were revealed when the cards moved
    # (none, when the entry goes on to its glimpses)
    shown = e[3]
    if not (type(shown) is list and (shown or len(e) == 5) and len(set(shown)) == len(shown) and
            all(_number(z) and (z == e[1] or any(m[1] == z for m in e[2])) for z in shown)):
        return False
    return len(e) == 4 or _glimpses(e[4], e[2], val)


def _glimpses(glimpses, moved: list, val) -> bool:
    """[[card, [seat, ...]], ...]: cards of the move seen on their own, each once, by the players
    listed (in seat order, each once)."""
    if type(glimpses) is not list or not glimpses:
        return False
    cards = [m[0] for m in moved]
    for g in glimpses:
        if not (type(g) is list and len(g) == 2 and g[0] in cards and _players(g[1], val) and g[1]
                and g[1] == sorted(g[1])):
            return False
    return len({g[0] for g in glimpses}) == len(glimpses)


def _reveal(e, val) -> bool:
    return len(e) == 3 and _zone(e[1], val) and _cards(e[2], val)


def _reveal_card(e, val) -> bool:
    return len(e) == 2 and _card(e[1], val)


def _look(e, val) -> bool:
    return len(e) == 3 and _player(e[1], val) and _cards(e[2], val)


def _stack(e, val) -> bool:
    return len(e) == 4 and _entry_id(e[1], val) and _effect(e[2], val) and _player(e[3], val)


def _resolve(e, val) -> bool:
    return len(e) == 4 and _entry_id(e[1], val) and _effect(e[2], val) and type(e[3]) is bool


def _end(e, val) -> bool:
    return len(e) == 2 and _players(e[1], val)


def _limit(e, val) -> bool:
    return len(e) == 2 and _number(e[1]) and e[1] >= 0


# kind -> (its check, the shape said when it fails)
ENTRY_KINDS = {
    "text": (_text, '["text", text]'),
    "announce": (_text, '["announce", text]'),
    "phase": (_phase, '["phase", phase] naming a phase of the rules'),
    "action": (_action, '["action", player or null, text] or ["action", player or null, text, '
                        '[the players who may read it, in seat order]]'),
    "move": (_move, '["move", zone, [[card, zone], ...]] with at least one card, or '
                    '["move", zone, [[card, zone], ...], [revealed zone, ...]] whose revealed zones are '
                    'distinct and among the destination and the sources, or that and '
                    '[[card, [player, ...]], ...] naming cards of the move and who saw each'),
    "reveal": (_reveal, '["reveal", zone, [card, ...]]'),
    "reveal_card": (_reveal_card, '["reveal_card", card]'),
    "look": (_look, '["look", player or null, [card, ...]]'),
    "stack": (_stack, '["stack", entry id, effect, player or null] with an id below \'next_entry\''),
    "resolve": (_resolve, '["resolve", entry id, effect, cancelled (true or false)] with an id below \'next_entry\''),
    "end": (_end, '["end", [winner, ...]] naming each winner once'),
    "limit": (_limit, '["limit", the number of decisions the rules allow]'),
}


def check_log(log, val, start: int = 0) -> None:
    """Refuse (val.fail) the first log entry the engine could not have written (`start`: the
    index of the first of them in the whole log, for the message)."""
    if type(log) is not list:
        val.fail("'log' must be a list of log entries")
    if _all_fit(log, val):
        return
    for i, e in enumerate(log, start):
        problem = entry_problem(e, val)
        if problem is not None:
            val.fail(f"log entry {i}: {problem}")


def entry_problem(e, val):
    """What is wrong with one log entry, or None."""
    if type(e) is not list or not e or type(e[0]) is not str:
        return f"a log entry is a list that starts with its kind, not {_short(e)}"
    check = ENTRY_KINDS.get(e[0])
    if check is None:
        return f"unknown kind {e[0]!r} (kinds: {', '.join(ENTRY_KINDS)})"
    if not check[0](e, val):
        return f"a{'n' if e[0][0] in 'aeiou' else ''} {e[0]} entry needs {check[1]}, not {_short(e)}"
    return None


def _all_fit(log: list, val) -> bool:
    """The quick pass over a whole log (a long game's log has thousands of entries): the common
    kinds checked inline, their zones, cards, players and entry ids gathered and checked at once
    at the end, at C speed.  True only when every entry fits (ENTRY_KINDS' checks say the same);
    False sends the log through them, one by one, to name the first entry that does not."""
    zones: list = []
    cards: list = []
    players: list = []
    ids: list = []
    moves: list = []  # the [[card, zone], ...] of the moves
    phases, effects = val.prog.phases, val.prog.effects
    text = str
    try:
        for e in log:
            kind = e[0]
            size = len(e)
            if kind == "action":
                if type(e[2]) is not text:
                    return False
                if size == 4:  # who may read it: players in seat order, each once
                    readers = e[3]
                    if type(readers) is not list or readers != sorted(set(readers)):
                        return False
                    players += readers
                elif size != 3:
                    return False
                if e[1] is not None:
                    players.append(e[1])
            elif kind == "move":
                moved = e[2]
                if size != 3 or type(moved) is not list or not moved:
                    if not _move(e, val):
                        return False
                    continue
                zones.append(e[1])
                if len(moved) == 1:  # (most moves move one card)
                    m = moved[0]
                    if len(m) != 2:
                        return False
                    cards.append(m[0])
                    zones.append(m[1])
                else:
                    moves.append(moved)
            elif kind == "phase" or kind == "text" or kind == "announce":
                if size != 2 or type(e[1]) is not text or (kind == "phase" and e[1] not in phases):
                    return False
            elif kind == "stack" or kind == "resolve":
                last = e[3]
                if size != 4 or e[2] not in effects:
                    return False
                if kind == "resolve":
                    if type(last) is not bool:
                        return False
                elif last is not None:
                    players.append(last)
                ids.append(e[1])
            else:
                check = ENTRY_KINDS.get(kind)
                if check is None or not check[0](e, val):
                    return False
        pairs = list(chain.from_iterable(moves))  # every [card, zone] of the moves of several cards
        if pairs:
            if set(map(len, pairs)) != {2}:
                return False
            flat = list(chain.from_iterable(pairs))  # card, zone, card, zone, ...
            cards += flat[::2]
            zones += flat[1::2]
        return _numbers_below(zones, val.zone_count) and _numbers_below(cards, val.card_count) \
            and _numbers_below(players, val.n) and _numbers_below(ids, val.next_entry)
    except (TypeError, ValueError, IndexError, KeyError):
        return False


def _numbers_below(values, bound: int) -> bool:
    """Are all values numbers from 0 to bound - 1?  (The sum is a quick type check: it fails on
    a text, a list or null, and is not a whole number if one value is not.)"""
    if not values:
        return True
    if type(sum(values)) is not int:
        return False
    distinct = set(values)  # (few: a game's zones, cards, players; comparisons are slow)
    return min(distinct) >= 0 and max(distinct) < bound


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 120 else text[:117] + "..."
