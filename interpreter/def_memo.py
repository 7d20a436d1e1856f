"""The memo of a pure def's calls: the wrapper generated code calls a pure def through.

While the engine lists legal actions a pure def's value is kept in ``st._memo``, under the def's
name and its arguments made into a key by a *freezer* (tuple, identity or a deep freeze, chosen
by the argument's type).  A freezer is recorded by its code (_FREEZER_CODES) so that a replayed
session (code_cache.py) makes the same wrapper again.
"""
from __future__ import annotations

from typing import Callable

from rulespec.lang import types as T


def _freeze_any(v):
    if isinstance(v, list):
        return tuple(_freeze_any(x) for x in v)
    return v


def _identity(v):
    return v


def _freezer(t: T.Type) -> Callable:
    """Turns an argument of type t (as passed to a def: a zone is already a list) into a memo key."""
    if t.name == "zone" or (t.name == "list" and t.elem is not None
                            and t.elem.name in ("int", "bool", "text", "player", "card", "enum")):
        return tuple
    if t.name in ("int", "bool", "text", "player", "card", "enum"):
        return _identity
    return _freeze_any


_FREEZERS = {"tuple": tuple, "id": _identity, "any": _freeze_any}
_FREEZER_CODES = {id(f): code for code, f in _FREEZERS.items()}

_MISSING = object()


def _memoised(name: str, body: Callable, freezers: list) -> Callable:
    """A call of a pure def: its value is kept in st._memo while that is a dict (the engine turns
    it on only while it lists legal actions, when nothing can change the state).  Misses are
    frequent (a def of a candidate card), so dict.get rather than a try that raises."""
    if not freezers:
        def call0(st):
            memo = st._memo
            if memo is None:
                return body(st)
            v = memo.get(name, _MISSING)
            if v is _MISSING:
                v = memo[name] = body(st)
            return v
        return call0
    if len(freezers) == 1:
        fz = freezers[0]
        if fz is _identity:
            def call1(st, x):
                memo = st._memo
                if memo is None:
                    return body(st, x)
                key = (name, x)
                v = memo.get(key, _MISSING)
                if v is _MISSING:
                    v = memo[key] = body(st, x)
                return v
            return call1

        def call1_frozen(st, x):
            memo = st._memo
            if memo is None:
                return body(st, x)
            key = (name, fz(x))
            v = memo.get(key, _MISSING)
            if v is _MISSING:
                v = memo[key] = body(st, x)
            return v
        return call1_frozen

    if all(fz is _identity for fz in freezers):  # the arguments are their own key
        def calln_plain(st, *xs):
            memo = st._memo
            if memo is None:
                return body(st, *xs)
            key = (name,) + xs
            v = memo.get(key, _MISSING)
            if v is _MISSING:
                v = memo[key] = body(st, *xs)
            return v
        return calln_plain

    def calln(st, *xs):
        memo = st._memo
        if memo is None:
            return body(st, *xs)
        key = (name,) + tuple([fz(x) for fz, x in zip(freezers, xs)])
        v = memo.get(key, _MISSING)
        if v is _MISSING:
            v = memo[key] = body(st, *xs)
        return v
    return calln
