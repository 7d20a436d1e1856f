"""What an `announce` (or a `reveal`) later in a block states, for the flow check (flow.py): a
variable set from hidden cards, or how many cards a `look` looked at, is public once announced."""
from __future__ import annotations

import attrs

from .. import ast as A


def announced_later(stmts, hit, templates: dict) -> bool:
    """Does an announce among stmts (or inside them) read what hit(expression) tells, or a
    reveal show it?"""
    for s in stmts:
        if isinstance(s, A.Announce):
            if any(isinstance(p, A.Expr) and _within(p, hit) for p in templates.get(s.template, ())):
                return True
        elif isinstance(s, A.Reveal) and s.reveal and _within(s.zone, hit):
            return True  # showing the cards it picks shows it
        elif isinstance(s, A.If):
            blocks = [b for _, b in s.branches] + ([s.else_] if s.else_ is not None else [])
            if any(announced_later(b.stmts, hit, templates) for b in blocks):
                return True
        elif isinstance(s, A.For) and announced_later(s.body.stmts, hit, templates):
            return True
    return False


def _within(e, hit) -> bool:
    return hit(e) or any(_within(c, hit) for c in A.children(e))


def reads_var(var: str):
    """A test of an expression: is it variable var (or var[...])?"""
    def hit(e) -> bool:
        return isinstance(e, A.Name) and e.name == var or \
            isinstance(e, A.Index) and isinstance(e.obj, A.Name) and e.obj.name == var
    return hit


def counted(cards):
    """A test of an expression: is it those cards, written the same way, or their count?"""
    def hit(e) -> bool:
        if isinstance(e, A.Call) and e.func == "count" and len(e.args) == 1:
            e = e.args[0]
        return same(e, cards)
    return hit


def same(a, b) -> bool:
    """Are two expressions written the same (their spans aside)?"""
    if type(a) is not type(b):
        return False
    if not isinstance(a, (A.Expr, A.Ident)):
        if isinstance(a, tuple) and not isinstance(a, A.Span):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == b
    return all(same(getattr(a, f.name), getattr(b, f.name)) for f in attrs.fields(type(a)) if f.name != "span")
