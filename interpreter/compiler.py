"""Model -> Program: every expression and statement compiled once into a Python closure.

A compiled expression is ``f(st, env) -> value``; a compiled statement is
``f(st, env) -> None``.  ``st`` is the State (its fields are listed in
state.py), ``env`` a dict of local names.  The checker has already typed every
node, so the compiler never needs to guess what a name or an operator means.

Values at run time: int, bool, str (text and enum members), player = seat
index from 0, card = card id, play = [player, [card ids]], zone = zone-instance
index, list = Python list.  All of them survive JSON unchanged.
"""
from __future__ import annotations

import operator
from typing import Callable, Optional

import attrs

from rulespec import ast as A
from rulespec import types as T
from rulespec.model import Model

from .errors import GameOver, RuleRuntimeError
from .rng import Rng


@attrs.define
class ZoneSlot:
    """One zone instance: a shared zone, or one player's copy of a per-player zone."""
    index: int
    name: str       # display name: "stock" or "hand[P2]"
    zone: str       # declared zone name
    owner: Optional[int]
    kind: str
    visibility: str


@attrs.define
class CParam:
    name: str
    kind: str
    domain: Optional[Callable]
    cond: Optional[Callable]
    size: Optional[Callable]
    size_is_range: bool
    same: Optional[str]
    multi_zone: bool
    type: T.Type


@attrs.define
class CAction:
    name: str
    decl: A.ActionDecl
    params: list
    requires: list  # [(f, message, Require)] that read the parameters
    preconditions: list  # [(f, message, Require)] that do not: checked before enumerating choices
    text: Optional[Callable]
    effect: Optional[Callable]


@attrs.define
class CPhase:
    name: str
    decl: A.PhaseDecl
    enter: Optional[Callable]
    actor: Optional[Callable]
    actions: list
    after: Optional[Callable]
    end_when: Optional[Callable]
    exit: Optional[Callable]
    nexts: list  # [(phase name, cond or None)]


_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def player_name(p) -> str:
    return "nobody" if p is None else f"P{p + 1}"


class Program:
    """A compiled game: tables of cards and zones plus closures for every rule."""

    def __init__(self, model: Model):
        self.model = model
        self.path = model.path
        self.max_players = model.max_players
        # ---- cards
        self.card_names: list[str] = []
        self.card_props: dict[str, list] = {p: [] for p in model.properties}
        for info in model.cards:
            for _ in range(info.copies):
                self.card_names.append(info.name)
                for p in model.properties:
                    self.card_props[p].append(info.props.get(p))
        self.card_count = len(self.card_names)
        # ---- zones: shared ones first, then max_players slots for every per-player zone
        self.slots: list[ZoneSlot] = []
        self.zone_base: dict[str, int] = {}
        for z in model.zones.values():
            if not z.per_player:
                self.zone_base[z.name] = len(self.slots)
                self.slots.append(ZoneSlot(len(self.slots), z.name, z.name, None, z.kind, z.visibility))
        for z in model.zones.values():
            if z.per_player:
                self.zone_base[z.name] = len(self.slots)
                for p in range(self.max_players):
                    self.slots.append(ZoneSlot(len(self.slots), f"{z.name}[{player_name(p)}]", z.name, p,
                                               z.kind, z.visibility))
        self.plays_slots = frozenset(s.index for s in self.slots if s.kind == "plays")
        # ---- variables
        self.var_index = {name: i for i, name in enumerate(model.vars)}
        # ---- compile
        self.defs: dict[str, Callable] = {}
        for d in model.defs.values():
            self.defs[d.name] = self._compile_def(d)
        self.var_defaults = [(v, self.expr(v.default) if v.default is not None else None)
                             for v in model.vars.values()]
        self.actions = {a.name: self._compile_action(a) for a in model.actions.values()}
        self.phases = {p.name: self._compile_phase(p) for p in model.phases.values()}
        self.score = None
        if model.score is not None:
            body = self.expr(model.score.expr)
            var = model.score.var
            self.score = lambda st, p: body(st, {var: p})
        self.invariants = [(inv, self.expr(inv.expr)) for inv in model.invariants]

    # ------------------------------------------------------------------ helpers
    def fail(self, node, msg: str):
        raise RuleRuntimeError(msg, self.path, node.span)

    def type_of(self, e) -> T.Type:
        return self.model.types.get(e, T.ANY)

    def as_list(self, e) -> Callable:
        """Compile e as a list; a zone becomes a copy of its cards."""
        f = self.expr(e)
        if self.type_of(e).name == "zone":
            return lambda st, env: list(st.zones[f(st, env)])
        return f

    def formatter(self, t: T.Type) -> Callable:
        names = self.card_names
        if t == T.PLAYER:
            return lambda st, v: player_name(v)
        if t == T.CARD:
            return lambda st, v: "no card" if v is None else names[v]
        if t == T.BOOL:
            return lambda st, v: "yes" if v else "no"
        if t.name == "zone":
            return lambda st, v: " + ".join(names[c] for c in st.zones[v]) or "nothing"
        if t.name == "list":
            inner = self.formatter(t.elem or T.ANY)
            sep = " + " if t.elem == T.CARD else ", "
            return lambda st, v: sep.join(inner(st, x) for x in v) or "nothing"
        if t == T.PLAY:
            return lambda st, v: f"{player_name(v[0])}: " + " + ".join(names[c] for c in v[1])
        return lambda st, v: "none" if v is None else str(v)

    def template(self, lit: A.StrLit) -> Callable:
        parts = self.model.templates.get(lit, [lit.value])
        compiled = []
        for p in parts:
            if isinstance(p, str):
                compiled.append((p, None, None))
            else:
                compiled.append((None, self.expr(p), self.formatter(self.type_of(p))))

        def render(st, env):
            out = []
            for text, f, fmt in compiled:
                out.append(text if f is None else fmt(st, f(st, env)))
            return "".join(out)
        return render

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> Callable:
        m = getattr(self, "_e_" + type(e).__name__)
        return m(e)

    def _e_IntLit(self, e):
        v = e.value
        return lambda st, env: v

    _e_BoolLit = _e_IntLit
    _e_StrLit = _e_IntLit

    def _e_NoneLit(self, e):
        return lambda st, env: None

    def _e_Name(self, e):
        kind, *rest = self.model.refs[e]
        if kind == "local":
            n = e.name
            return lambda st, env: env[n]
        if kind == "builtin":
            if e.name == "players":
                return lambda st, env: list(range(st.n))
            if e.name == "player_count":
                return lambda st, env: st.n
            return lambda st, env: st.active
        if kind == "var":
            i = self.var_index[e.name]
            return lambda st, env: st.vars[i]
        if kind == "zone":
            zi = self.zone_base[e.name]
            return lambda st, env: zi
        if kind == "option":
            n = e.name
            return lambda st, env: st.opts[n]
        if kind == "enum":
            v = e.name
            return lambda st, env: v
        self.fail(e, f"cannot compile name '{e.name}'")

    def _e_Attr(self, e):
        ref = self.model.refs[e]
        obj = self.expr(e.obj)
        if ref[0] == "card_name":
            names = self.card_names
            return lambda st, env: names[obj(st, env)]
        if ref[0] == "prop":
            vals = self.card_props[ref[1]]

            def prop(st, env):
                c = obj(st, env)
                if c is None:
                    self.fail(e, f"no card to read '{e.name}' from")
                return vals[c]
            return prop
        field = ref[1]
        if field == "player":
            return lambda st, env: obj(st, env)[0]
        if field == "cards":
            return lambda st, env: list(obj(st, env)[1])
        return lambda st, env: len(obj(st, env)[1])

    def _e_Index(self, e):
        ref = self.model.refs[e]
        idx = self.expr(e.index)
        if ref[0] == "pvar":
            i = self.var_index[ref[1].name]

            def pvar(st, env):
                p = idx(st, env)
                if p is None:
                    self.fail(e, "indexed with 'none' instead of a player")
                return st.vars[i][p]
            return pvar
        if ref[0] == "pzone":
            base = self.zone_base[ref[1].name]

            def pzone(st, env):
                p = idx(st, env)
                if p is None:
                    self.fail(e, "indexed with 'none' instead of a player")
                return base + p
            return pzone
        lst = self.as_list(e.obj)

        def item(st, env):
            xs = lst(st, env)
            i = idx(st, env)
            if not -len(xs) <= i < len(xs):
                self.fail(e, f"index {i} is outside a list of {len(xs)}")
            return xs[i]
        return item

    def _e_ListLit(self, e):
        items = [self.expr(x) for x in e.items]
        return lambda st, env: [f(st, env) for f in items]

    def _e_Unary(self, e):
        f = self.expr(e.operand)
        if e.op == "-":
            return lambda st, env: -f(st, env)
        return lambda st, env: not f(st, env)

    def _e_Range(self, e):
        lo, hi = self.expr(e.lo), self.expr(e.hi)
        return lambda st, env: list(range(lo(st, env), hi(st, env) + 1))

    def _e_IfExpr(self, e):
        c, a, b = self.expr(e.cond), self.expr(e.then), self.expr(e.else_)
        if self.type_of(e).name == "list":
            a, b = self.as_list(e.then), self.as_list(e.else_)
        return lambda st, env: a(st, env) if c(st, env) else b(st, env)

    def _e_BinOp(self, e):
        op = e.op
        if op == "and":
            a, b = self.expr(e.left), self.expr(e.right)
            return lambda st, env: a(st, env) and b(st, env)
        if op == "or":
            a, b = self.expr(e.left), self.expr(e.right)
            return lambda st, env: a(st, env) or b(st, env)
        if op == "in":
            a, b = self.expr(e.left), self.as_list(e.right)
            return lambda st, env: a(st, env) in b(st, env)
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if T.is_list(lt) or T.is_list(rt):
            a, b = self.as_list(e.left), self.as_list(e.right)
        else:
            a, b = self.expr(e.left), self.expr(e.right)
        if op in _CMP:
            f = _CMP[op]
            if op in ("==", "!="):
                return lambda st, env: f(a(st, env), b(st, env))

            def compare(st, env):
                x, y = a(st, env), b(st, env)
                if x is None or y is None:
                    self.fail(e, f"'{op}' compares with none")
                return f(x, y)
            return compare
        if op in _ARITH:
            f = _ARITH[op]
            return lambda st, env: f(a(st, env), b(st, env))

        def divide(st, env):
            x, y = a(st, env), b(st, env)
            if y == 0:
                self.fail(e, "division by zero")
            return x // y if op == "/" else x % y
        return divide

    def _e_Call(self, e):
        ref = self.model.refs[e]
        if ref[0] == "def":
            body = self.defs[e.func]
            names = [p.name for p in ref[1].params]
            args = [self.expr(a) for a in e.args]
            return lambda st, env: body(st, {n: f(st, env) for n, f in zip(names, args)})
        f = e.func
        if f in ("count", "sorted", "distinct", "random"):
            lst = self.as_list(e.args[0])
            if f == "count":
                return lambda st, env: len(lst(st, env))
            if f == "sorted":
                return lambda st, env: sorted(lst(st, env))
            if f == "distinct":
                return lambda st, env: list(dict.fromkeys(lst(st, env)))

            def rand(st, env):
                xs = lst(st, env)
                if not xs:
                    self.fail(e, "random() of an empty list")
                return xs[Rng.below(st, len(xs))]
            return rand
        args = [self.expr(a) for a in e.args]
        if f == "players_after":
            a = args[0]
            return lambda st, env: [(a(st, env) + k) % st.n for k in range(1, st.n + 1)]
        if f == "players_from":
            a = args[0]
            return lambda st, env: [(a(st, env) + k) % st.n for k in range(st.n)]
        if f == "next_player":
            a = args[0]
            return lambda st, env: (a(st, env) + 1) % st.n
        if f == "seat":
            a = args[0]
            return lambda st, env: a(st, env) + 1
        if f in ("top", "bottom"):
            z, n = args
            if f == "top":
                return lambda st, env: st.zones[z(st, env)][::-1][:max(0, n(st, env))]
            return lambda st, env: st.zones[z(st, env)][:max(0, n(st, env))]
        if f == "plays":
            z = args[0]
            return lambda st, env: [list(p) for p in st.plays.get(z(st, env), [])]
        if f == "cards":
            z = args[0]
            return lambda st, env: list(st.zones[z(st, env)])
        if f in ("max", "min"):
            g = max if f == "max" else min
            a, b = args
            return lambda st, env: g(a(st, env), b(st, env))
        if f == "abs":
            a = args[0]
            return lambda st, env: abs(a(st, env))
        self.fail(e, f"unknown function '{f}'")

    def _e_Quant(self, e):
        dom = self.as_list(e.domain)
        var = e.var
        where = self.expr(e.where) if e.where is not None else None
        body = self.expr(e.body) if e.body is not None else None
        k = e.kind

        def items(st, env):
            inner = dict(env)
            for x in dom(st, env):
                inner[var] = x
                if where is None or where(st, inner):
                    yield x, inner

        if k == "any":
            if body is None:
                return lambda st, env: any(True for _ in items(st, env))
            return lambda st, env: any(body(st, i) for _, i in items(st, env))
        if k == "all":
            if body is None:
                return lambda st, env: True
            return lambda st, env: all(body(st, i) for _, i in items(st, env))
        if k == "count":
            if body is None:
                return lambda st, env: sum(1 for _ in items(st, env))
            return lambda st, env: sum(1 for _, i in items(st, env) if body(st, i))
        if k == "first":
            def first(st, env):
                for x, i in items(st, env):
                    if body is None or body(st, i):
                        return x
                return None
            return first
        if k == "collect":
            if body is None:
                return lambda st, env: [x for x, _ in items(st, env)]
            return lambda st, env: [body(st, i) for _, i in items(st, env)]
        if k == "sum":
            return lambda st, env: sum(body(st, i) for _, i in items(st, env))
        if k in ("max", "min"):
            g = max if k == "max" else min

            def extreme(st, env):
                vals = [body(st, i) for _, i in items(st, env)]
                if not vals:
                    self.fail(e, f"'{k}' over an empty list")
                return g(vals)
            return extreme
        better = operator.gt if k == "argmax" else operator.lt
        if e.ties_last:
            better = operator.ge if k == "argmax" else operator.le

        def arg(st, env):
            best = best_v = None
            found = False
            for x, i in items(st, env):
                v = body(st, i)
                if not found or better(v, best_v):
                    best, best_v, found = x, v, True
            if not found:
                self.fail(e, f"'{k}' over an empty list")
            return best
        return arg

    def _compile_def(self, d: A.DefDecl) -> Callable:
        body = self.expr(d.body)
        if self.model.types.get(d.body, T.ANY).name == "zone":
            inner = body
            return lambda st, env: list(st.zones[inner(st, env)])
        return body

    # ------------------------------------------------------------------ statements
    def block(self, b: Optional[A.Block]) -> Optional[Callable]:
        if b is None:
            return None
        stmts = [self.stmt(s) for s in b.stmts]
        if not stmts:
            return lambda st, env: None
        if len(stmts) == 1:
            return stmts[0]

        def run(st, env):
            for s in stmts:
                s(st, env)
        return run

    def stmt(self, s) -> Callable:
        return getattr(self, "_s_" + type(s).__name__)(s)

    def _s_Let(self, s):
        f = self.as_list(s.value) if self.type_of(s.value).name == "zone" else self.expr(s.value)
        n = s.name

        def let(st, env):
            env[n] = f(st, env)
        return let

    def _s_Assign(self, s):
        v = self.expr(s.value)
        tgt = s.target
        op = s.op
        if tgt.index is None and tgt.name == "active" and tgt.name not in self.model.vars:
            def set_active(st, env):
                st.active = v(st, env)
            return set_active if op == "=" else self.fail(s, "'active' can only be set with '='")
        if tgt.name in self.var_index and (tgt.index is not None or not self._is_local(s, tgt.name)):
            i = self.var_index[tgt.name]
            if tgt.index is None:
                if op == "=":
                    def set_var(st, env):
                        st.vars[i] = v(st, env)
                    return set_var
                sign = 1 if op == "+=" else -1

                def add_var(st, env):
                    st.vars[i] += sign * v(st, env)
                return add_var
            idx = self.expr(tgt.index)
            if op == "=":
                def set_pvar(st, env):
                    st.vars[i][idx(st, env)] = v(st, env)
                return set_pvar
            sign = 1 if op == "+=" else -1

            def add_pvar(st, env):
                st.vars[i][idx(st, env)] += sign * v(st, env)
            return add_pvar
        n = tgt.name
        if op == "=":
            def set_local(st, env):
                env[n] = v(st, env)
            return set_local
        sign = 1 if op == "+=" else -1

        def add_local(st, env):
            env[n] += sign * v(st, env)
        return add_local

    def _is_local(self, s, name) -> bool:
        return False  # the checker forbids locals that shadow variables

    def _cards_of(self, e) -> Callable:
        """Compile an expression that names cards (one card, a list or a zone) to a list of ids."""
        t = self.type_of(e)
        f = self.expr(e)
        if t == T.CARD:
            return lambda st, env: [f(st, env)]
        if t.name == "zone":
            return lambda st, env: list(st.zones[f(st, env)])
        return lambda st, env: list(f(st, env))

    def _s_Move(self, s):
        cards = self._cards_of(s.cards)
        dest = self.expr(s.dest)
        bottom = s.position == "bottom"

        def move(st, env):
            cs = cards(st, env)
            if None in cs:
                self.fail(s, "moved 'none' instead of a card")
            st.move_cards(cs, dest(st, env), bottom)
        return move

    def _s_Deal(self, s):
        n, src, dst = self.expr(s.count), self.expr(s.source), self.expr(s.dest)

        def deal(st, env):
            zi = src(st, env)
            k = max(0, n(st, env))
            pile = st.zones[zi]
            cs = pile[::-1][:k]
            st.move_cards(cs, dst(st, env), False)
        return deal

    def _s_Shuffle(self, s):
        z = self.expr(s.zone)

        def shuffle(st, env):
            Rng.shuffle(st, st.zones[z(st, env)])
        return shuffle

    def _s_Play(self, s):
        cards = self._cards_of(s.cards)
        dest = self.expr(s.dest)
        by = self.expr(s.by) if s.by is not None else (lambda st, env: st.active)

        def play(st, env):
            cs = cards(st, env)
            zi = dest(st, env)
            st.move_cards(cs, zi, False)
            st.plays.setdefault(zi, []).append([by(st, env), list(cs)])
        return play

    def _s_If(self, s):
        branches = [(self.expr(c), self.block(b)) for c, b in s.branches]
        else_ = self.block(s.else_)

        def if_(st, env):
            for c, b in branches:
                if c(st, env):
                    b(st, env)
                    return
            if else_ is not None:
                else_(st, env)
        return if_

    def _s_For(self, s):
        it = self.as_list(s.iterable)
        body = self.block(s.body)
        var = s.var

        def for_(st, env):
            inner = dict(env)
            for x in it(st, env):
                inner[var] = x
                body(st, inner)
        return for_

    def _s_EndGame(self, s):
        winners = None
        if s.winners is not None:
            w = self.expr(s.winners)
            single = self.type_of(s.winners) == T.PLAYER
            winners = (lambda st, env: [w(st, env)]) if single else w

        def end(st, env):
            st.finish(sorted(set(winners(st, env))) if winners is not None else None)
            raise GameOver()
        return end

    def _s_Log(self, s):
        render = self.template(s.template)

        def log(st, env):
            st.log.append(["text", render(st, env)])
        return log

    def _s_Reveal(self, s):
        z = self.expr(s.zone)
        show = s.reveal

        def reveal(st, env):
            zi = z(st, env)
            if show:
                if zi not in st.revealed:
                    st.revealed.append(zi)
                    st.log.append(["reveal", zi, list(st.zones[zi])])
            elif zi in st.revealed:
                st.revealed.remove(zi)
        return reveal

    # ------------------------------------------------------------------ actions and phases
    def _compile_action(self, a: A.ActionDecl) -> CAction:
        params = []
        for p in a.params:
            domain = cond = size = None
            multi = False
            if p.kind == "int":
                domain = self.as_list(p.domain)
            elif p.kind in ("card", "cards"):
                domain = self._zones_of(p.domain)
                multi = self._multi_zone(p.domain)
            if p.cond is not None:
                cond = self.expr(p.cond)
            if p.size is not None:
                size = self.expr(p.size)
            ptype = {"int": T.INT, "player": T.PLAYER, "card": T.CARD, "cards": T.CARDS}[p.kind]
            params.append(CParam(p.name, p.kind, domain, cond, size, isinstance(p.size, A.Range),
                                 p.same.name if p.same else None, multi, ptype))
        names = {p.name for p in a.params}
        pre = [(self.expr(r.cond), r.message, r) for r in a.requires if not _mentions(r.cond, names)]
        post = [(self.expr(r.cond), r.message, r) for r in a.requires if _mentions(r.cond, names)]
        text = self.template(a.text) if a.text is not None else None
        return CAction(a.name, a, params, post, pre, text, self.block(a.effect))

    def _zones_of(self, e) -> Callable:
        """Compile a card domain to a list of (card, zone index) pairs, in zone order."""
        t = self.type_of(e)
        if isinstance(e, A.BinOp) and e.op == "+":
            a, b = self._zones_of(e.left), self._zones_of(e.right)
            return lambda st, env: a(st, env) + b(st, env)
        f = self.expr(e)
        if t.name == "zone":
            def from_zone(st, env):
                zi = f(st, env)
                return [(c, zi) for c in st.zones[zi]]
            return from_zone
        return lambda st, env: [(c, st.where[c]) for c in f(st, env)]

    def _multi_zone(self, e) -> bool:
        return isinstance(e, A.BinOp) and e.op == "+"

    def _compile_phase(self, p: A.PhaseDecl) -> CPhase:
        return CPhase(p.name, p, self.block(p.enter), self.expr(p.actor) if p.actor is not None else None,
                      [a.name for a in p.actions], self.block(p.after),
                      self.expr(p.end_when) if p.end_when is not None else None, self.block(p.exit),
                      [(n.target.name, self.expr(n.cond) if n.cond is not None else None) for n in p.nexts])


def _mentions(e, names: set) -> bool:
    """Does expression e read any of the given local names?"""
    if isinstance(e, A.Name):
        return e.name in names
    for f in attrs.fields(type(e)):
        v = getattr(e, f.name)
        if isinstance(v, A.Expr) and _mentions(v, names):
            return True
        if isinstance(v, tuple) and any(isinstance(x, A.Expr) and _mentions(x, names) for x in v):
            return True
    return False
