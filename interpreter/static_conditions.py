"""Conditions fixed for a whole game: read only the options, constants and a card's printed values.

A card's 'while in ZONE when COND' group is read very often (every event, every decision).  Parts
of COND that read nothing but the game's options, literals, enum members and the properties of
``self`` cannot change during a game: ``c.expansion == formations_set and formations`` is decided
when the game is set up.  The compiler splits such conjuncts off (``split_static``); each game
decides them once per copy of the card (``live_copies``), so a card whose group can never work in
this game (an expansion left in the box, say) costs nothing afterwards.  The rest of COND is read
as before, and since a condition has no side effects, the value of COND is unchanged.
"""
from __future__ import annotations

from rulespec.lang import ast as A

_STATIC_REFS = ("option", "enum")
_STATIC_ATTRS = ("card_name", "prop")


class StaticAnalysis:
    """Which expressions read only options, literals, enum members and printed card values
    (of the locals named static)."""

    def __init__(self, model):
        self.refs = model.refs
        self.defs = model.defs
        self._def_static: dict = {}  # def name -> is its body static when its arguments are?

    def is_static(self, e, static_locals: frozenset) -> bool:
        if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
            return True
        if isinstance(e, A.Name):
            kind = self.refs.get(e, ("",))[0]
            return kind in _STATIC_REFS or (kind == "local" and e.name in static_locals)
        if isinstance(e, A.Attr):
            return self.refs.get(e, ("",))[0] in _STATIC_ATTRS and self.is_static(e.obj, static_locals)
        if isinstance(e, A.Unary):
            return self.is_static(e.operand, static_locals)
        if isinstance(e, A.BinOp):
            return self.is_static(e.left, static_locals) and self.is_static(e.right, static_locals)
        if isinstance(e, A.Chain):
            return all(self.is_static(x, static_locals) for x in e.operands)
        if isinstance(e, A.IfExpr):
            return all(self.is_static(x, static_locals) for x in (e.cond, e.then, e.else_))
        if isinstance(e, A.ListLit):
            return all(self.is_static(x, static_locals) for x in e.items)
        if isinstance(e, A.Call) and self.refs.get(e, ("",))[0] == "def":
            return all(self.is_static(a, static_locals) for a in e.args) and self._static_def(e.func)
        return False

    def _static_def(self, name: str) -> bool:
        """Is the def's body static when all its parameters are?  (Defs only call earlier defs.)"""
        got = self._def_static.get(name)
        if got is None:
            d = self.defs[name]
            got = self._def_static[name] = self.is_static(d.body, frozenset(p.name for p in d.params))
        return got


def conjuncts(e) -> list:
    """a and b and c -> [a, b, c] (left to right)."""
    if isinstance(e, A.Chain) and e.ops[0] == "and":
        return [part for x in e.operands for part in conjuncts(x)]
    return [e]


def split_static(analysis: StaticAnalysis, cond, static_locals: frozenset) -> tuple:
    """([the conjuncts of cond fixed for a game], [the others]), each in their order."""
    fixed, rest = [], []
    for part in conjuncts(cond):
        (fixed if analysis.is_static(part, static_locals) else rest).append(part)
    return fixed, rest


def live_copies(st, ab) -> tuple:
    """The copies of ab's card whose game-fixed condition holds in this game (all of them when
    the group has none), decided once per set of options and remembered with them."""
    if ab.fixed is None:
        return ab.copies
    memo = st.opts.live
    got = memo.get(ab.key)
    if got is None:
        got = memo[ab.key] = tuple(c for c in ab.copies if ab.fixed(st, {"self": c}))
    return got


def live_only(st, key, items: list) -> list:
    """items (triggers, modify lines, ...: anything with an ``ability``) less those that cannot
    run in this game: of cards none of whose copies can work, or whose own game-fixed condition
    (``fixed``) is false; remembered per key with the options."""
    memo = st.opts.live
    got = memo.get(key)
    if got is None:
        got = memo[key] = [x for x in items if _may_run(st, x)]
    return got


def _may_run(st, item) -> bool:
    if item.ability is not None and not live_copies(st, item.ability):
        return False
    fixed = getattr(item, "fixed", None)
    return fixed is None or bool(fixed(st, {}))


class Options(dict):
    """A game's options (name -> value), with what they decide for the whole game remembered
    beside them (``live``: see live_copies).  Options never change during a game, and clones of
    a state share them."""
    __slots__ = ("live",)

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.live = {}

    def __setitem__(self, key, value):  # a changed option invalidates what it decided
        self.live = {}
        super().__setitem__(key, value)


def options_for(prog, options: dict) -> Options:
    """A game's Options, whose ``live`` memo is shared by every game of these rules with the same
    options (what it decides depends on nothing else): a new game does not work it out again."""
    opts = Options(options)
    try:
        key = tuple(sorted(opts.items()))
        hash(key)
    except TypeError:  # (an option value that cannot be a key: this game keeps its own)
        return opts
    shared = prog.cache.setdefault("live", {})
    live = shared.get(key)
    if live is None:
        shared[key] = opts.live
    else:
        opts.live = live
    return opts
