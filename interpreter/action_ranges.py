"""An int choice over a range, listed as one entry: a betting game's 'raise to x' for every x from
the smallest raise to a whole stack is one RangeSegment at a decision, not 200 Actions.

An action is listed as a range when (decided once, at compile time: `range_ends`)
  * its only parameter is `x: int in LO..HI`, with no 'where' condition;
  * none of its requirements reads x (they are all checked before listing: every x is legal);
  * no card gives it (that lists it once per card);
  * its text is "NAME x" or a template "PREFIX{x}SUFFIX": distinct numbers write distinct
    texts, and a text gives its number back;
  * LO and HI draw nothing from the game's random generator;
and when no other action offered with it can write one of its texts (`range_actions`, once per
list of actions): the listing tells equal texts apart with " #2", which a range cannot do, so
only a proof from the fixed start and end of every text lets a range stand.  Anything else is
listed as it always was.

A decision's legal actions are then a LazyActions: the Actions and the segments in listing
order.  Its length, its i-th action and the action of a text are found without making the
segment's actions; iterating it makes them all, in the order listing them would have.
"""
from __future__ import annotations

from typing import Optional

from rulespec.lang import ast as A
from rulespec.lang.checker import MAX_RANGE  # the largest range a rule may build (expression_runtime.py)

from .action_value import Action, new_action
from .windows import NO_RESPONSE

_DIGITS = "0123456789"


# ---------------------------------------------------------------------- at compile time
def text_ends(model, decl: A.ActionDecl) -> tuple[str, str]:
    """The fixed start and end of every text the action writes (its literal words before the
    first hole and after the last; '' where a hole is)."""
    if decl.text is None:
        if not decl.params:
            return decl.name, decl.name
        return decl.name + " ", ""
    parts = model.templates.get(decl.text, [decl.text.value])
    holes = [i for i, part in enumerate(parts) if not isinstance(part, str)]
    if not holes:
        whole = "".join(parts)
        return whole, whole
    return "".join(parts[:holes[0]]), "".join(parts[holes[-1] + 1:])


def range_ends(model, decl: A.ActionDecl) -> Optional[tuple[str, str]]:
    """For an action whose texts are PREFIX + str(x) + SUFFIX for its one int parameter x over a
    range, with no 'where': (PREFIX, SUFFIX); otherwise None.  (The compiler adds what it knows:
    no requirement reads x, no card gives it, the bounds draw nothing.)"""
    if len(decl.params) != 1:
        return None
    p = decl.params[0]
    if p.kind != "int" or not isinstance(p.domain, A.Range) or p.cond is not None:
        return None
    if decl.text is None:
        return decl.name + " ", ""  # "NAME x": an int is written str(x), labels or not
    parts = model.templates.get(decl.text, [decl.text.value])
    holes = [i for i, part in enumerate(parts) if not isinstance(part, str)]
    if len(holes) != 1:
        return None
    hole = parts[holes[0]]
    if not (isinstance(hole, A.Name) and hole.name == p.name and model.refs.get(hole, ("",))[0] == "local"):
        return None  # (a template writes an int with str(), as the default text does)
    return "".join(parts[:holes[0]]), "".join(parts[holes[0] + 1:])


# ---------------------------------------------------------------------- per list of actions
def range_actions(prog, names: list) -> frozenset:
    """The actions of `names` (a phase's actions or a window's responses) listed as ranges."""
    key = tuple(names)
    cache = prog.cache.setdefault("ranges", {})
    got = cache.get(key)
    if got is None:
        actions = prog.actions
        ends = [(n, actions[n].text_ends) for n in key] + [(NO_RESPONSE, (NO_RESPONSE, NO_RESPONSE))]
        got = cache[key] = frozenset(
            n for n in key if actions[n].int_range is not None and key.count(n) == 1
            and all(_apart(actions[n].int_range[2:], other) for m, other in ends if m != n))
    return got


def _apart(seg: tuple, other: tuple) -> bool:
    """Can no text PREFIX + number + SUFFIX of a range (seg) equal a text that starts with `start`
    and ends with `end` (other), nor that text with the listing's " #K" added?"""
    prefix, suffix = seg
    start, end = other
    if not (prefix.startswith(start) or start.startswith(prefix)):
        return True  # they differ before either fixed start ends (" #K" goes at the end)
    # they differ in their last characters: a range's ends in no digit, a text with " #K" in one
    return suffix != "" and suffix[-1] not in _DIGITS and not (suffix.endswith(end) or end.endswith(suffix))


# ---------------------------------------------------------------------- at a decision
class RangeSegment:
    """The actions NAME with x = lo, lo + 1, ..., hi, texts PREFIX + str(x) + SUFFIX (lo <= hi)."""
    __slots__ = ("name", "pname", "lo", "hi", "prefix", "suffix")

    def __init__(self, name: str, pname: str, lo: int, hi: int, prefix: str, suffix: str):
        self.name, self.pname, self.lo, self.hi, self.prefix, self.suffix = name, pname, lo, hi, prefix, suffix

    def __len__(self) -> int:
        return self.hi - self.lo + 1

    def action(self, x: int) -> Action:
        return new_action(self.name, ((self.pname, x),), f"{self.prefix}{x}{self.suffix}")

    def value_of(self, text: str) -> Optional[int]:
        """The x whose text this is, or None."""
        prefix, suffix = self.prefix, self.suffix
        end = len(text) - len(suffix)
        if end <= len(prefix) or not text.startswith(prefix) or not text.endswith(suffix):
            return None
        written = text[len(prefix):end]
        try:
            x = int(written)
        except ValueError:
            return None
        if str(x) != written:  # "007", "+7", " 7", "7_0": not how a number is written
            return None
        return x if self.lo <= x <= self.hi else None


def segment(act, st, pname: str) -> Optional[object]:
    """The range act offers at this decision: a RangeSegment, an Action when it is one number,
    None when it is empty, or False when its bounds are not plain numbers within the language's
    largest range (then it is listed as usual, which says what is wrong)."""
    lo_f, hi_f, prefix, suffix = act.int_range
    lo, hi = lo_f(st, {}), hi_f(st, {})
    if type(lo) is not int or type(hi) is not int or hi - lo >= MAX_RANGE:
        return False
    if hi < lo:
        return None
    seg = RangeSegment(act.name, pname, lo, hi, prefix, suffix)
    return seg.action(lo) if lo == hi else seg


class LazyActions:
    """A decision's legal actions with its ranges kept whole: `items`, Actions and RangeSegments in
    listing order.  A read-only sequence of Actions (len, [i], iteration) that also finds the
    action of a text (`find`); `append` adds one Action at the end ("no response")."""
    __slots__ = ("items", "count", "_plain")

    def __init__(self, items: list, count: int):
        self.items, self.count, self._plain = items, count, None

    def __len__(self) -> int:
        return self.count

    def append(self, action: Action) -> None:
        self.items.append(action)
        self.count += 1
        self._plain = None

    def __getitem__(self, i: int) -> Action:
        if not isinstance(i, int):
            raise TypeError(f"legal action indices must be integers, not {type(i).__name__}")
        n = self.count
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("legal action index out of range")
        for item in self.items:
            if type(item) is RangeSegment:
                k = item.hi - item.lo + 1
                if i < k:
                    return item.action(item.lo + i)
                i -= k
            elif i == 0:
                return item
            else:
                i -= 1
        raise AssertionError("LazyActions.count disagrees with its items")

    def __iter__(self):
        for item in self.items:
            if type(item) is RangeSegment:
                action = item.action
                for x in range(item.lo, item.hi + 1):
                    yield action(x)
            else:
                yield item

    def texts(self) -> list[str]:
        out = []
        for item in self.items:
            if type(item) is RangeSegment:
                prefix, suffix = item.prefix, item.suffix
                out.extend([f"{prefix}{x}{suffix}" for x in range(item.lo, item.hi + 1)])
            else:
                out.append(item.text)
        return out

    def find(self, text: str) -> Optional[Action]:
        """The legal action whose text this is, or None."""
        plain = self._plain
        if plain is None:
            plain = self._plain = {a.text: a for a in self.items if type(a) is not RangeSegment}
        got = plain.get(text)
        if got is None:
            for item in self.items:
                if type(item) is RangeSegment:
                    x = item.value_of(text)
                    if x is not None:
                        return item.action(x)
        return got
