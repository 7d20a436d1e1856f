"""The labels of the information-flow check (flow.py) and how expressions carry them.

A value has two labels, each the set of the reads (spans) it comes from, empty when public:
``hidden`` -- the value *is* cards some player may not see (they show as "hidden card" or a
count, no leak by themselves); ``secret`` -- the value tells something about such cards (a
property, whether a hidden hand holds one, how many match, which a `where` picks).
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .flow_phases import canon, lets_of

_CARDISH = ("card", "list", "zone", "use", "play")
NONE = frozenset()


class Val:
    """The labels of one value: secret (it tells about hidden cards), hidden (it is such cards),
    each the set of the reads (spans) it comes from: empty when public."""
    __slots__ = ("secret", "hidden")

    def __init__(self, secret: frozenset = NONE, hidden: frozenset = NONE):
        self.secret, self.hidden = secret, hidden


PUBLIC = Val()


def either(*labels) -> frozenset:
    """The union of some labels (most are empty: keep the common case cheap)."""
    out = NONE
    for x in labels:
        if x:
            out = out | x if out else x
    return out


def one(span) -> frozenset:
    return frozenset((span,))


class FlowLabels:
    """Mixin of the Checker: the labels of an expression (the state is set up by FlowPass)."""

    def _fl_expr(self, e, env: dict) -> Val:
        if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
            return PUBLIC
        t = self.types.get(e)
        cardish = t is not None and t.name in _CARDISH and (t.name != "list" or t.elem is None
                                                            or t.elem.name in _CARDISH)
        ref = self.refs.get(e)
        kind = ref[0] if ref else None
        if isinstance(e, A.Name):
            if kind == "local":
                return env.get(e.name, PUBLIC)
            if kind == "zone":
                return Val(NONE, self._fl_zone(ref[1], e, env))
            if kind == "var":
                return Val(NONE, self._fl_cardvars.get(e.name, NONE))
            return PUBLIC
        if isinstance(e, A.Index) and kind in ("pvar", "pzone"):
            i = self._fl_expr(e.index, env).secret
            if kind == "pzone":
                return Val(i, self._fl_zone(ref[1], e, env))
            return Val(i, self._fl_cardvars.get(ref[1].name, NONE))
        if isinstance(e, A.Attr):
            o = self._fl_expr(e.obj, env)
            if kind in ("entry_data", "record_field"):
                f = PUBLIC
                for k, v in self._fl_fields.items():
                    if k[-1] == e.name and (k[0] in ("entry", "record") if kind == "entry_data"
                                            else k[0] in ("event", "record")):
                        f = Val(either(f.secret, v.secret), either(f.hidden, v.hidden))
                return Val(either(o.secret, f.secret), f.hidden)
            if kind in ("entry_field", "play_field", "use_field") and cardish:
                return Val(o.secret, NONE if kind == "entry_field" else o.hidden)
            return Val(either(o.secret, o.hidden), NONE)  # a property of a hidden card is secret
        if isinstance(e, A.Quant):
            return self._fl_quant(e, env, cardish)
        if isinstance(e, A.LetExpr):
            return self._fl_expr(e.body, {**env, e.var: self._fl_expr(e.value, env)})
        if isinstance(e, A.Call):
            return self._fl_call(e, env, kind, cardish)
        if isinstance(e, A.TextTemplate):
            return Val(either(*(self._fl_expr(p, env).secret for p in e.parts if isinstance(p, A.Expr))), NONE)
        if self._fl_viewer and isinstance(e, A.BinOp) and e.op in ("==", "!="):
            v = self._fl_picked_is(e, env)
            if v is not None:
                return v
        if isinstance(e, A.BinOp) and e.op in ("==", "!=") and (
                isinstance(e.left, A.NoneLit) or isinstance(e.right, A.NoneLit)
                or getattr(self.types.get(e.left), "name", None) == "zone"):
            # whether a variable holds a card is public (it shows as "hidden card"), and which zone is which
            return Val(either(self._fl_expr(e.left, env).secret, self._fl_expr(e.right, env).secret), NONE)
        if isinstance(e, A.Chain) and e.ops[0] in ("and", "or") and len(set(e.ops)) == 1:
            return self._fl_guarded(e, env)
        if isinstance(e, A.IfExpr):
            c = self._fl_expr(e.cond, env)
            x = self._fl_under([(e.cond, True)], lambda: self._fl_expr(e.then, face_up(e.cond, True, env)))
            y = self._fl_under([(e.cond, False)], lambda: self._fl_expr(e.else_, face_up(e.cond, False, env)))
            if cardish:
                return Val(either(c.secret, x.secret, y.secret), either(x.hidden, y.hidden))
            return Val(either(c.secret, x.secret, y.secret, x.hidden, y.hidden), NONE)
        if isinstance(e, A.BinOp) and e.op == "in":
            # where a card everyone can follow is, is public (observations show it where it is seen)
            x, y = self._fl_expr(e.left, env), self._fl_expr(e.right, env)
            return Val(either(x.secret, x.hidden, y.secret), NONE)
        vals = [self._fl_expr(c, env) for c in A.children(e)]
        secret = either(*(v.secret for v in vals))
        if cardish:
            if isinstance(e, A.IfExpr):
                return Val(secret, either(*(v.hidden for v in vals[1:])))
            return Val(secret, either(*(v.hidden for v in vals)))
        return Val(either(secret, *(v.hidden for v in vals)), NONE)

    def _fl_guarded(self, e: A.Chain, env: dict) -> Val:
        """a and b / a or b: a card known face up by an earlier operand is public in the later ones
        (`revealed(g) and g.x`, `not revealed(g) or g.x`), and in the earlier ones too: the whole
        reads the same either way (false, or true, whatever the rest says while g is face down)."""
        for x in e.operands:
            env = face_up(x, e.ops[0] == "and", env)
        out = NONE
        for x in e.operands:
            v = self._fl_expr(x, env)
            out = either(out, v.secret, v.hidden)
        return Val(out, NONE)

    def _fl_zone(self, z, e, env: dict) -> frozenset:
        """The hidden label of a zone read: none for a public zone, one revealed in this block,
        or the deck before the first shuffle or deal."""
        if z.visibility == "public" or self._fl_viewer and self._fl_viewer_sees(z, e) or _known(env, z.name) or z.name in self._fl_known or (z.name, "*") in self._fl_shown:
            return NONE
        key = zone_key(e)
        if key is not None:
            shown = env.get(key)  # True, or a Val: shown while that name still holds that Val
            if shown is True or shown is not None and shown is env.get(key[2]) or (z.name, key[2]) in self._fl_shown:
                return NONE
        if self._fl_pshown and self._fl_phase_shown(z, e, env):
            return NONE
        if z.visibility == "owner" and key is not None and key[2] is not None and env.get(key[2]) is not None:
            self._fl_zreads[e.span] = (self._fl_decl, key[2], env[key[2]])  # whose zone: that local (flow_legal)
        return one(e.span)

    def _fl_picked(self, e, env: dict) -> frozenset:
        """A card picked from a hidden zone whose cards everyone knows (a pile of cards all saw):
        which one is not known (a chooser who cannot see them gets one at random, others do not see which)."""
        z = self.zone_of(e)
        if z is not None and z.visibility != "public" and (z.name in self._fl_known or _known(env, z.name)):
            return one(e.span)
        return either(*(self._fl_picked(x, env) for x in A.children(e)))

    def _fl_phase_shown(self, z, e, env: dict) -> bool:
        """Was this zone shown by an earlier phase every path here passes through (flow_phases)?"""
        if isinstance(e, A.Name):
            return (z.name, None) in self._fl_pshown
        i = canon(e.index, lets_of(env), self.refs) if isinstance(e, A.Index) else None
        return i is not None and (z.name, i) in self._fl_pshown

    def _fl_quant(self, e: A.Quant, env: dict, cardish: bool) -> Val:
        d = self._fl_expr(e.domain, env)
        up = e.where is not None and requires_face_up(e.where, e.var)  # only face-up cards pass
        inner = {**env, e.var: Val(d.secret, NONE if up else d.hidden)}
        w = self._fl_expr(e.where, inner).secret if e.where is not None else NONE
        x = _removed(e, env)
        if x is not None:  # `collect v in L where v != x`, x chosen from L: one fewer, whichever it is
            w = env[x].secret
        b = self._fl_expr(e.body, inner) if e.body is not None else PUBLIC
        secret = either(d.secret, w, b.secret)
        if cardish:  # first, collect...: the cards stay hidden, which (and how many) is secret
            if up:  # `where revealed(g) and ...`: everyone sees which cards pass
                return Val(secret, b.hidden)
            if e.kind in ("argmax", "argmin"):  # always one card of a non-empty domain: only which
                return Val(d.secret, either(d.hidden, b.hidden, secret))
            return Val(secret, either(d.hidden, b.hidden))
        if e.kind == "count" and e.where is None and e.body is None:
            return Val(d.secret, NONE)
        return Val(either(secret, b.hidden), NONE)

    def _fl_call(self, e: A.Call, env: dict, kind, cardish: bool) -> Val:
        args = [self._fl_expr(a, env) for a in e.args]
        if kind == "def":
            return self._fl_def(e, args)
        secret = either(*(a.secret for a in args))
        if kind == "builtin_func" and e.func in ("top", "bottom") and args:
            z = self.zone_of(e.args[0])
            one = len(e.args) < 2 or (isinstance(e.args[1], A.IntLit) and e.args[1].value == 1)
            seen = z is not None and z.visibility == "top" and e.func == "top" and one
            return Val(secret, NONE if seen else args[0].hidden)
        if cardish:
            picked = self._fl_picked(e.args[0], env) if kind == "builtin_func" and e.func == "random" else NONE
            return Val(secret, either(picked, *(a.hidden for a in args)))
        if kind == "builtin_func" and e.func in ("count", "seat", "revealed", "sees", "tagged"):
            return Val(secret, NONE)  # facts every player knows: a count, whether a card is face up
        return Val(either(secret, *(a.hidden for a in args)), NONE)

    def _fl_def(self, e: A.Call, args: list) -> Val:
        """A def's labels from its arguments' (one summary per pattern of argument labels)."""
        d = self.refs[e][1]
        saved = self._fl_shown
        if saved:  # a zone shown as the call names it (hand[q]) is shown as the def names it (hand[p])
            named = {a.name: p.name for p, a in zip(d.params, e.args) if isinstance(a, A.Name)}
            self._fl_shown = saved | {(z, named[i]) for z, i in saved if i in named}
        viewer, notme = self._fl_viewer, self._fl_notme
        if viewer:  # the decider as the def names them (can_follow(active): hand[p] is theirs)
            self._fl_viewer, self._fl_notme = self._fl_renamed(d, e, viewer), self._fl_renamed(d, e, notme)
        key = (d.name, tuple((a.secret, a.hidden) for a in args), self._fl_shown, self._fl_cshown,
               self._fl_viewer, self._fl_notme)
        v = self._fl_defs.get(key)
        if v is None:
            self._fl_defs[key] = PUBLIC  # no recursion (the checker refuses it), but be safe
            try:
                v = self._fl_defs[key] = self._fl_expr(d.body, {p.name: a for p, a in zip(d.params, args)})
            finally:
                self._fl_shown, self._fl_viewer, self._fl_notme = saved, viewer, notme
        self._fl_shown, self._fl_viewer, self._fl_notme = saved, viewer, notme
        # a read inside the def is a read at this call: each call is revealed (or leaks) on its own
        return Val(_at_call(v.secret, d.body.span, e.span), _at_call(v.hidden, d.body.span, e.span))


def _removed(e: A.Quant, env: dict) -> Optional[str]:
    """x, when e is `collect v in L where v != x` with x a card chosen from the local list L
    (flow: ("$in", x) -> L, until L is set again): its count is one fewer than L's."""
    c = e.where
    if e.kind != "collect" or not isinstance(e.domain, A.Name) or not isinstance(c, A.BinOp) or c.op != "!=":
        return None
    for v, x in ((c.left, c.right), (c.right, c.left)):
        if isinstance(v, A.Name) and v.name == e.var and isinstance(x, A.Name) \
                and env.get(("$in", x.name)) == e.domain.name and x.name in env:
            return x.name
    return None


def _known(env: dict, zone: str) -> bool:
    """Is zone still as everyone knows it (the start's enter before any deal: flow._fl_unknown)?"""
    gone = env.get("$known")
    return gone is not None and "*" not in gone and zone not in gone


def zone_key(e) -> Optional[tuple]:
    """A zone as written (hand[p], stock), to know it again later in the block once revealed."""
    if isinstance(e, A.Name):
        return ("$zone", e.name, None)
    if isinstance(e, A.Index) and isinstance(e.obj, A.Name) and isinstance(e.index, A.Name):
        return ("$zone", e.obj.name, e.index.name)
    return None


def requires_face_up(where, var: str) -> bool:
    """Does where hold only for a face-up var: `revealed(var)`, alone or as one of `and`s?"""
    ops = where.operands if isinstance(where, A.Chain) and set(where.ops) == {"and"} else (where,)
    return any(isinstance(c, A.Call) and c.func == "revealed" and len(c.args) == 1
               and isinstance(c.args[0], A.Name) and c.args[0].name == var for c in ops)


def face_up(cond, holds: bool, env: dict) -> dict:
    """env where cond is known to be `holds`: a local card it says is face up is public there."""
    neg = isinstance(cond, A.Unary) and cond.op == "not"
    c = cond.operand if neg else cond
    if isinstance(c, A.Call) and c.func == "revealed" and len(c.args) == 1 and isinstance(c.args[0], A.Name) \
            and c.args[0].name in env and holds != neg:
        v = env[c.args[0].name]
        return {**env, c.args[0].name: Val(v.secret, NONE)}
    return env


def _at_call(reads: frozenset, body: A.Span, call: A.Span) -> frozenset:
    """reads, those inside a def's body (the span body) replaced by the call's span."""
    if not reads:
        return reads
    lo, hi = (body[0], body[1]), (body[2], body[3])
    inside = {r for r in reads if lo <= (r[0], r[1]) <= hi}
    return reads if not inside else (reads - inside) | {call}
