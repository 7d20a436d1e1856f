"""Values fixed by a game's setup: expressions that read only the player count and the options.

A card's ``copies:`` may depend on the setup (``copies: if player_count <= 4 then 1 else 2``).
The checker works such an expression out for every setup the rules allow -- each player count,
each value of each option it reads -- to know the largest deck (the engine numbers every copy
once, when the rules are loaded); the engine works it out for the one game being set up.  One
evaluator serves both, so a game never holds a copy the checker did not count.

What such an expression may hold: whole numbers and true/false, ``player_count``, options (yes/no,
an enum, or a whole number declared with its range, ``int in 1..4``: the values must be few enough
to try them all), enum members, arithmetic (``+ - * / % ^``), comparisons (``in`` a list or range
too), ``and``/``or``/``not``, ``if ... then ... else``, and ``max``, ``min``, ``abs``.
"""
from __future__ import annotations

from itertools import product
from typing import Iterator, Optional

from . import ast as A

MAX_SETUPS = 100_000  # the setups one expression may be worked out for (player counts x option values)

_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
_ORDERS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}
_CALLS = {"max": max, "min": min, "abs": abs}


class SetupError(Exception):
    """An expression that cannot be worked out for a setup (division by zero ...): node, message."""

    def __init__(self, node, message: str):
        super().__init__(message)
        self.node = node


def not_a_setup_value(e: A.Expr, refs: dict) -> Optional[A.Expr]:
    """The first part of e that reads something other than the setup (the player count, the
    options), constants and the operators above; None when e is a setup value."""
    if isinstance(e, (A.IntLit, A.BoolLit)):
        return None
    if isinstance(e, A.Name):
        ref = refs.get(e, ("",))
        ok = ref == ("builtin", "player_count") or ref[0] in ("option", "enum")
        return None if ok else e
    if isinstance(e, A.Call):
        if refs.get(e, ("",))[0] != "builtin_func" or e.func not in _CALLS:
            return e
    elif isinstance(e, A.BinOp):
        pass  # every comparison, 'in' and '^'
    elif not isinstance(e, (A.Chain, A.Unary, A.IfExpr, A.ListLit, A.Range)):
        return e
    for child in A.children(e):
        found = not_a_setup_value(child, refs)
        if found is not None:
            return found
    return None


def options_read(e: A.Expr, refs: dict) -> list:
    """The options e reads, in the order it first reads them."""
    out: list = []
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Name) and refs.get(x, ("",))[0] == "option" and x.name not in out:
            out.append(x.name)
        stack.extend(reversed(list(A.children(x))))
    return out


def option_values(info, enums: dict) -> Optional[list]:
    """Every value an option may take (info: model.OptionInfo), or None when they cannot be listed
    (a text, or a whole number declared without its range)."""
    t = info.type
    if t.name == "bool":
        return [False, True]
    if t.name == "enum":
        return list(enums[t.enum].members)
    if t.name == "int" and info.values is not None:
        return list(range(info.values[0], info.values[1] + 1))
    return None


def setups(min_players: int, max_players: int, names: list, values: list) -> Iterator[tuple]:
    """Every setup: (player count, {option: value}) for each player count and each combination
    of the listed options' values (values[i]: those of names[i])."""
    for n in range(min_players, max_players + 1):
        for combo in product(*values):
            yield n, dict(zip(names, combo))


def setup_words(players: int, options: dict) -> str:
    """'with 3 players' or 'with 3 players and expansion = true' (a setup in a message)."""
    opts = " and ".join(f"{k} = {str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    return f"with {players} player{'s' if players != 1 else ''}" + (f" and {opts}" if opts else "")


def evaluate(e: A.Expr, refs: dict, enum_order: dict, players: int, options: dict):
    """The value of setup value e for a game of `players` players with these options (raises
    SetupError where it cannot be worked out).  enum_order: enum -> member -> its place."""
    if isinstance(e, (A.IntLit, A.BoolLit)):
        return e.value
    if isinstance(e, A.Name):
        kind = refs[e][0]
        if kind == "builtin":
            return players
        return options[e.name] if kind == "option" else e.name
    if isinstance(e, A.Unary):
        v = evaluate(e.operand, refs, enum_order, players, options)
        return -v if e.op == "-" else not v
    if isinstance(e, A.IfExpr):
        branch = e.then if evaluate(e.cond, refs, enum_order, players, options) else e.else_
        return evaluate(branch, refs, enum_order, players, options)
    if isinstance(e, A.ListLit):
        return [evaluate(x, refs, enum_order, players, options) for x in e.items]
    if isinstance(e, A.Range):
        lo, hi = (evaluate(x, refs, enum_order, players, options) for x in (e.lo, e.hi))
        return range(lo, hi + 1)
    if isinstance(e, A.Call):
        return _CALLS[e.func](*(evaluate(a, refs, enum_order, players, options) for a in e.args))
    if isinstance(e, A.Chain):
        value = evaluate(e.operands[0], refs, enum_order, players, options)
        for op, right in zip(e.ops, e.operands[1:]):
            if op == "and" and not value or op == "or" and value:
                continue  # (as the rules read them: the rest is not worked out)
            b = evaluate(right, refs, enum_order, players, options)
            value = b if op in ("and", "or") else _arithmetic(op, value, b, e)
        return value
    a = evaluate(e.left, refs, enum_order, players, options)
    b = evaluate(e.right, refs, enum_order, players, options)
    if e.op == "in":
        return a in b
    if e.op in _ORDERS:
        order = next((o for o in enum_order.values() if a in o), None) if isinstance(a, str) else None
        return _ORDERS[e.op](order[a], order[b]) if order is not None else _ORDERS[e.op](a, b)
    return _arithmetic(e.op, a, b, e)


def _arithmetic(op: str, a, b, node):
    if op in _OPS:
        return _OPS[op](a, b)
    if op in ("/", "%"):
        if b == 0:
            raise SetupError(node, "divide by zero")
        return a // b if op == "/" else a % b
    if b < 0:
        raise SetupError(node, f"take a negative power ({a} ^ {b})")
    if b > 10_000:
        raise SetupError(node, f"take too large a power ({a} ^ {b})")
    return a ** b


def enum_orders(model) -> dict:
    """enum -> member -> its place in the enum's declaration."""
    return {name: {m: i for i, m in enumerate(info.members)} for name, info in model.enums.items()}


def copies_in(model, info, players: int, options: dict) -> int:
    """How many copies of card `info` (model.CardInfo) a game of `players` players with these
    options holds: its 'copies: EXPR' worked out (the checker tried every setup), or its copies."""
    if info.copies_expr is None:
        return info.copies
    return evaluate(info.copies_expr, model.refs, enum_orders(model), players, options)


def copies_by_players(model, info) -> "Optional[list]":
    """[(fewest players, most players, copies)] for a card whose copies depend on the player
    count only, each run of player counts with the same number once; None otherwise."""
    if info.copies_expr is None or options_read(info.copies_expr, model.refs):
        return None
    runs: list = []
    for n in range(model.min_players, model.max_players + 1):
        k = copies_in(model, info, n, {})
        if runs and runs[-1][2] == k:
            runs[-1][1] = n
        else:
            runs.append([n, n, k])
    return [tuple(r) for r in runs]


def card_setup_words(model, name: str, players: int, options: dict) -> str:
    """setup_words of a game, naming only the options card `name`'s copies read."""
    info = next(c for c in model.cards if c.name == name)
    read = options_read(info.copies_expr, model.refs) if info.copies_expr is not None else []
    return setup_words(players, {k: options[k] for k in read})
