"""The helpers generated expression code calls, and the names it finds them under.

Every generated function (expressions.py, expression_writer.py) runs in a namespace that starts
as a copy of _HELPERS, where the code finds each helper under its function's name (``_item``,
``_prop``, ``_div``, ``_lt`` ...): a new helper is listed in _HELPERS.  The plain helpers
(``_bounded_range``, ``_best``, ``_fold`` ...) are what the fast code needs beyond Python's
operators; the checked ones do what the fast code does, or raise RuleRuntimeError at the node
whose site (path, span) they are given.
"""
from __future__ import annotations

import operator
from itertools import combinations
from math import comb

from rulespec.lang.checker import MAX_RANGE  # the largest range a rule may build, at run time too

from .errors import RuleRuntimeError
from .rng import Rng

# Python errors a fast function may raise where the checked one reports a rules error.
_PY_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)

# A stack entry is a list [id, effect name, by, target, cards, against, cancelled, fields].
ENTRY_FIELD_INDEX = {"kind": 1, "by": 2, "target": 3, "cards": 4, "against": 5, "cancelled": 6}


# ====================================================================== helpers the generated code calls
def _fail(site, msg: str):
    raise RuleRuntimeError(msg, site[0], site[1])


def _bounded_range(a: int, b: int) -> list:
    if b - a >= MAX_RANGE:
        raise ValueError("range too large")
    return list(range(a, b + 1))


def _players_after(a, n):
    return [(a + k) % n for k in range(1, n + 1)]


def _players_from(a, n):
    return [(a + k) % n for k in range(n)]


def _best(pairs: list, better):
    """argmax/argmin over [(item, value)]: better is > or < (the first of equal values wins)
    or >= or <= (ties last: the last wins)."""
    if not pairs:
        raise ValueError("empty")
    best, best_v = pairs[0]
    for x, v in pairs:
        if better(v, best_v):
            best, best_v = x, v
    return best


def _tagged(st, eid, tag: str, tags: dict) -> bool:
    return eid is not None and tag in tags[st.entry(eid)[1]]


# ---- checked mode: each helper does what the fast code does, or raises at its node
def _prop(vals: list, c, name: str, site):
    if c is None:
        _fail(site, f"no card to read '{name}' from")
    return vals[c]


def _play_field(play, k: int, name: str, site):
    if play is None:
        _fail(site, f"no play to read '{name}' from")
    return play[0] if k == 0 else list(play[1]) if k == 1 else len(play[1])


def _record_field(rec, name: str, site):
    if rec is None:
        _fail(site, f"no value to read '{name}' from (it is none)")
    return rec[name]


def _entry_field(st, eid, k: int, name: str, site):
    """A built-in field of a stack entry (both modes: entries are read rarely)."""
    if eid is None:
        _fail(site, f"no stack entry to read '{name}' from")
    v = st.entry(eid)[k]
    return list(v) if k == 4 else v


def _entry_data(st, eid, name: str, site):
    """A field an effect declares (this.n), on a stack entry (both modes)."""
    if eid is None:
        _fail(site, f"no stack entry to read '{name}' from")
    entry = st.entry(eid)
    data = entry[7]
    if name not in data:
        _fail(site, f"an entry of effect '{entry[1]}' has no field '{name}'")
    return data[name]


def _player_index(p, site):
    if p is None:
        _fail(site, "indexed with 'none' instead of a player")
    return p


def _item(xs, i, site):
    try:
        return xs[i]
    except IndexError:
        _fail(site, f"index {i} is outside a list of {len(xs)}")


def _range(a: int, b: int, site) -> list:
    if b - a >= MAX_RANGE:
        _fail(site, f"the range {a}..{b} has more than {MAX_RANGE} numbers")
    return list(range(a, b + 1))


def _ordered(op: str, compare):
    def check(a, b, site):
        if a is None or b is None:
            _fail(site, f"'{op}' compares with none")
        return compare(a, b)
    return check


def _arithmetic(op: str, compute):
    def check(a, b, site):
        if a is None or b is None:
            _fail(site, f"'{op}' with none instead of a number")
        return compute(a, b)
    return check


def _negate(a, site):
    if a is None:
        _fail(site, "'-' of none instead of a number")
    return -a


def _div(a, b, site):
    if b == 0:
        _fail(site, "division by zero")
    return a // b


def _mod(a, b, site):
    if b == 0:
        _fail(site, "division by zero")
    return a % b


MAX_EXPONENT = 10_000  # a power's largest exponent (a rules error past it: the number would be huge)


def _power(a: int, b: int) -> int:
    """a ^ b of two whole numbers (fast: a Python error where the checked version explains)."""
    if b < 0 or b > MAX_EXPONENT:
        raise ValueError("power")
    return a ** b


def _power_checked(a, b, site) -> int:
    if a is None or b is None:
        _fail(site, "'^' with none instead of a number")
    if b < 0:
        _fail(site, f"a negative power ({a} ^ {b}) is not a whole number")
    if b > MAX_EXPONENT:
        _fail(site, f"the power {a} ^ {b} is too large (an exponent is at most {MAX_EXPONENT:,})")
    return a ** b


def _rank(order: dict, member):
    """An enum member's place in its enum's order (its declaration): what '<' and max compare;
    None for none (the checked helpers that compare then report it)."""
    return None if member is None else order[member]


def _extreme_member(values: list, order: dict, kind: str, site):
    """max/min over members of one enum, in the enum's order (checked)."""
    _extreme([_rank(order, v) for v in values], kind, site)  # (reports an empty list, or none)
    return (max if kind == "max" else min)(values, key=order.__getitem__)


def _sorted_members(xs: list, order: dict, site):
    """sorted() of members of one enum: in the enum's order (checked)."""
    if None in xs:
        _fail(site, "sorted() of a list holding none")
    return sorted(xs, key=order.__getitem__)


SCALED = ("*=", "/=")  # the assignments that scale a number (the others add to it, or set it)


def _scaled(op: str, old, value, site):
    """What 'x *= value' or 'x /= value' makes of the number x ('/' rounds down)."""
    if old is None or value is None:
        _fail(site, f"'{op}' with none instead of a number")
    return old * value if op == "*=" else _div(old, value, site)


def _updated(op: str, old, value, site):
    """What 'x OP= value' makes of the number x: +=, -=, *= or /=."""
    if op in SCALED:
        return _scaled(op, old, value, site)
    return old + value if op == "+=" else old - value


def _revealed(st, c, site) -> bool:
    if c is None:
        _fail(site, "'revealed' of none instead of a card")
    return st.is_revealed(c)


def _sees(st, p, c, site) -> bool:
    if p is None or c is None:
        _fail(site, f"'sees' of none instead of a {'player' if p is None else 'card'}")
    return st.can_see_card(c, p)


def _random(st, xs, site):
    if not xs:
        _fail(site, "random() of an empty list")
    return Rng.pick(st, xs, site)


def _fold(value, segments, *args):
    """The rest of a long chain: each segment applies its operators to the value so far."""
    for segment in segments:
        value = segment(value, *args)
    return value


def _join(a, b, site):
    if a is None or b is None:
        _fail(site, "'+' joins texts: none instead of a text")
    return a + b


MAX_SUBSETS = 1 << 16  # subsets()/combinations() lists at most this many (a rules error past it)


def _subsets(xs: list, k, site) -> list:
    """subsets(xs) (k None: every size, smallest first) or combinations(xs, k), as lists."""
    n = len(xs)
    if k is None:
        if n > 16:
            _fail(site, f"subsets() of {n} items would list {2 ** n:,} subsets (at most {MAX_SUBSETS:,}: "
                        f"16 items)")
        return [list(c) for r in range(n + 1) for c in combinations(xs, r)]
    if k < 0 or comb(n, k) > MAX_SUBSETS:
        _fail(site, f"combinations() of {n} items, {k} at a time: " +
              ("a size cannot be negative" if k < 0 else f"{comb(n, k):,} lists (at most {MAX_SUBSETS:,})"))
    return [list(c) for c in combinations(xs, k)]


def _extreme(values: list, kind: str, site):
    if not values:
        _fail(site, f"'{kind}' over an empty list")
    if None in values:
        _fail(site, f"'{kind}' compares with none")
    return max(values) if kind == "max" else min(values)


def _best_checked(pairs: list, better, kind: str, site):
    if not pairs:
        _fail(site, f"'{kind}' over an empty list")
    if any(v is None for _, v in pairs):
        _fail(site, f"'{kind}' compares with none")
    return _best(pairs, better)


_HELPERS = {f.__name__: f for f in (
    _bounded_range, _players_after, _players_from, _best, _tagged, _prop, _play_field, _record_field,
    _entry_field, _entry_data, _player_index, _item, _range, _negate, _div, _mod, _revealed, _sees, _random,
    _extreme, _best_checked, _subsets, _join, _fold, _power, _power_checked, _rank, _extreme_member,
    _sorted_members, _scaled)}
_ORDER = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
_HELPERS.update({name: _ordered(op, getattr(operator, name[1:])) for op, name in _ORDER.items()})
_ARITHMETIC = {"+": "_add", "-": "_sub", "*": "_mul"}
_HELPERS.update({name: _arithmetic(op, getattr(operator, name[1:])) for op, name in _ARITHMETIC.items()})
_BETTER = {("argmax", False): operator.gt, ("argmax", True): operator.ge,
           ("argmin", False): operator.lt, ("argmin", True): operator.le}
