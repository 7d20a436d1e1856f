"""Model -> Program: every expression and statement compiled once into a Python function.

A compiled expression is ``f(st, env) -> value``; a compiled statement is
``f(st, env) -> None``.  Expressions are generated Python code where possible (fast),
backed by a tree of checking closures that explains any runtime error (see Program.expr).  ``st`` is the State (its fields are listed in
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

from .abilities import CAbility
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
    zones: Optional[list] = None  # when the domain is zones (or a sum of zones): their index functions
    distinct: Optional[str] = None  # every chosen card has a different value of this property
    wild: Optional[Callable] = None  # card -> may it join any 'same' group?
    ordered: bool = False            # players: the order matters
    nullable: bool = False           # player or none
    role: Optional[str] = None       # use: the card name it is used as


@attrs.define
class CAction:
    name: str
    decl: A.ActionDecl
    params: list
    requires: list  # [(f, message, Require)] that read the parameters
    preconditions: list  # [(f, message, Require)] that do not: checked before enumerating choices
    text: Optional[Callable]
    effect: Optional[Callable]
    holds: Optional[Callable] = None  # all of `requires` at once (one call while listing actions)
    ready: Optional[Callable] = None  # all of `preconditions` at once
    respond_to: frozenset = frozenset()  # effect names / tags it answers; empty: an ordinary action
    ability: Optional[CAbility] = None   # the card that gives it (to the owner of the zone it is in)
    card_kinds: dict = attrs.field(factory=dict)  # parameter -> kind, for the parameters that choose cards

    def __attrs_post_init__(self):
        self.card_kinds = {p.name: p.kind for p in self.params if p.kind in ("card", "cards", "use")}


@attrs.define
class CEffect:
    """An effect that goes on the response stack."""
    name: str
    decl: A.EffectDecl
    tags: frozenset          # its own name and its tags
    ask: Optional[Callable]  # the players a window asks, in order (default: clockwise after its player)
    resolve: Optional[int]   # block indices
    cancelled: Optional[int]
    fields: list = attrs.field(factory=list)  # [(name, default value function)]
    mandatory: bool = False


@attrs.define
class CTrigger:
    name: str
    index: int                   # declaration order: the tie-break between simultaneous triggers
    params: list                 # the event's parameter names
    for_var: Optional[str]
    for_players: Optional[Callable]
    when: Optional[Callable]
    body: int                    # block index
    timing: str = "on"
    event: str = ""
    ability: Optional[CAbility] = None


@attrs.define
class CConversion:
    name: str
    role: str
    source: Optional[CParam]     # the cards it is made of (None: no card)
    requires: list               # [(f, message, Require)]
    props: list                  # [(property, f)]
    text: Optional[Callable]
    ability: Optional[CAbility]

# A stack entry is a list [id, effect name, by, target, cards, against, cancelled, fields]; st.stack
# holds ids.  fields: a dict of the data the effect declares (this.n).
ENTRY_FIELD_INDEX = {"kind": 1, "by": 2, "target": 3, "cards": 4, "against": 5, "cancelled": 6}


@attrs.define
class CPhase:
    name: str
    decl: A.PhaseDecl
    enter: Optional[Callable]
    actor: Optional[Callable]
    actions: list
    after: Optional[int]
    end_when: Optional[Callable]
    exit: Optional[int]
    nexts: list  # [(phase name, cond or None)]
    ready: Optional[Callable] = None  # the phase's own requirements, shared by all its actions


_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


def player_name(p) -> str:
    return "nobody" if p is None else f"P{p + 1}"


class Program:
    """A compiled game: tables of cards and zones plus closures for every rule."""

    def __init__(self, model: Model, fused: bool = True):
        """fused=False compiles only the plain closures (slower; a reference for tests)."""
        self.model = model
        self.path = model.path
        self.max_players = model.max_players
        # ---- cards
        self.card_names: list[str] = []
        self.card_props: dict[str, list] = {p: [] for p in model.properties}
        self.copies_of: dict[str, list] = {}  # card name -> its physical cards
        for info in model.cards:
            for k in range(info.copies):
                self.copies_of.setdefault(info.name, []).append(len(self.card_names))
                self.card_names.append(info.name)
                own = info.copy_props[k] if info.copy_props else info.props
                for p in model.properties:
                    self.card_props[p].append(own.get(p))
        self.card_count = len(self.card_names)
        self.prop_zero = {p: {"int": 0, "bool": False, "text": ""}.get(info.type.name)
                          for p, info in model.properties.items()}
        kinds: dict = {}
        # card -> its kind: cards of one name and the same property values are alike
        self.card_kind = [kinds.setdefault((n, tuple(self.card_props[p][c] for p in model.properties)), len(kinds))
                          for c, n in enumerate(self.card_names)]
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
        self.slot_zone = [s.zone for s in self.slots]  # zone instance -> declared zone name
        self.cache: dict = {}  # scratch space the engine fills lazily (e.g. action listing plans)
        # ---- variables
        self.var_index = {name: i for i, name in enumerate(model.vars)}
        # ---- compile
        self._plain_mode = not fused
        self._fuse_depth = 0  # > 0 while compiling a part of a fused expression
        self.blocks: list = []  # every compiled block (blocks.py); the engine's own come first
        from .blocks import BlockCompiler
        from .machine import install_engine_blocks
        install_engine_blocks(self)
        self.block_compiler = BlockCompiler(self)
        self.rules: dict = {}  # rule values, compiled lazily on first call (modifies may call defs)
        self.defs: dict[str, Callable] = {}
        self.defs_plain: dict[str, Callable] = {}
        self.def_pure: dict[str, bool] = {}  # pure defs (no random()) are memoised while actions are listed
        for d in model.defs.values():
            self.def_pure[d.name] = not _uses_random(d.body, self.def_pure)
            self.defs[d.name] = self._compile_def(d)
            self.defs_plain[d.name] = self._plain_version("list", d.body)
        self.var_defaults = [(v, self.expr(v.default) if v.default is not None else None)
                             for v in model.vars.values()]
        self.ability_groups: dict = {}  # id(A.AbilityGroup) -> CAbility
        self._compile_rules()
        self.has_labels = model.label is not None
        self._label = None
        if model.label is not None:
            lab = model.label.expr
            body, var = (self.template(lab) if isinstance(lab, A.StrLit) else self.expr(lab)), model.label.var
            self._label = (lambda f, v: lambda st, c: f(st, {v: c}))(body, var)
        self.effects = {e.name: self._compile_effect(e) for e in model.effects.values()}
        self.actions = {a.name: self._compile_action(a) for a in model.actions.values()}
        self.responses = [a for a in self.actions.values() if a.respond_to]
        self.conversions_to: dict[str, list] = {}
        for c in model.conversions.values():
            conv = self._compile_conversion(c)
            self.conversions_to.setdefault(conv.role, []).append(conv)
        self.triggers: dict[str, list] = {}          # event -> its triggers (any timing)
        self.triggers_at: dict[tuple, list] = {}     # (event, timing) -> triggers, in declaration order
        self.trigger_list: list = []
        for i, t in enumerate(model.triggers):
            ct = self._compile_trigger(i, t)
            self.trigger_list.append(ct)
            self.triggers.setdefault(t.event.name, []).append(ct)
            self.triggers_at.setdefault((t.event.name, t.timing), []).append(ct)
        self.phases = {p.name: self._compile_phase(p) for p in model.phases.values()}
        self.score = None
        if model.score is not None:
            body = self.expr(model.score.expr)
            var = model.score.var
            self.score = lambda st, p: body(st, {var: p})
        self.invariants = [(inv, self.expr(inv.expr)) for inv in model.invariants]

    # ------------------------------------------------------------------ helpers
    def card_label(self, st, c: int) -> str:
        """How a card is shown: its name, or the game's 'label' (a name with its own values)."""
        if self._label is None:
            return self.card_names[c]
        return str(self._label(st, c))

    def ability(self, decl) -> Optional[CAbility]:
        """The compiled 'while in' group of a declaration a card carries, or None."""
        ab = self.model.abilities.get(decl)
        if ab is None:
            return None
        key = id(ab.group)
        got = self.ability_groups.get(key)
        if got is None:
            names = {z.name for z in ab.group.zones}
            slots = frozenset(s.index for s in self.slots if s.zone in names)
            got = self.ability_groups[key] = CAbility(ab.card, self.copies_of.get(ab.card, []), slots,
                                                      self.expr(ab.group.when) if ab.group.when is not None
                                                      else None)
        return got

    def fail(self, node, msg: str):
        raise RuleRuntimeError(msg, self.path, node.span)

    def type_of(self, e) -> T.Type:
        return self.model.types.get(e, T.ANY)

    # Every expression is compiled twice.  The fast version fuses the tree of simple nodes
    # into the source of one generated Python function (see _Fuser); quantifiers and def
    # calls stay closures that it calls.  The plain version is a tree of small closures
    # that checks every step and reports a rules error at the node that failed.  When the
    # fast version of an outermost expression raises a Python error, the plain one
    # re-evaluates the expression to report it: expressions have no side effects (those
    # that draw random numbers are never fused), so evaluating twice changes nothing.
    # Program(model, fused=False) compiles only plain versions (a reference for tests).
    def expr(self, e) -> Callable:
        return self._plain("value", e) if self._plain_mode else self._fused("value", e)

    def as_list(self, e) -> Callable:
        """Compile e as a list; a zone becomes a copy of its cards."""
        return self._plain("list", e) if self._plain_mode else self._fused("list", e)

    def view(self, e) -> Callable:
        """Compile e as a list that is only read, never kept: a zone (or cards(zone)) is its
        own card list, not a copy.  Safe wherever the value cannot outlive the expression
        being evaluated (expressions never move cards), e.g. a quantifier's domain."""
        return self._plain("view", e) if self._plain_mode else self._fused("view", e)

    def _plain(self, mode: str, e) -> Callable:
        if mode == "list":
            return self._plain_as_list(e)
        if mode == "view":
            return self._plain_view(e)
        return getattr(self, "_e_" + type(e).__name__)(e)

    def _plain_version(self, mode: str, e) -> Callable:
        return self._plain_version_of(lambda: self._plain(mode, e))

    def _plain_version_of(self, build) -> Callable:
        """build() with every part compiled plain."""
        saved, self._plain_mode = self._plain_mode, True
        try:
            return build()
        finally:
            self._plain_mode = saved

    def _fused(self, mode: str, e) -> Callable:
        if _uses_random(e, self.def_pure):
            return self._plain(mode, e)  # its parts are still fused
        return self._fuse(e.span, lambda fuser: fuser.src(mode, e), lambda: self._plain(mode, e),
                          lambda: self._plain_version(mode, e))

    def _fuse(self, span, make_src, fallback, make_plain) -> Callable:
        fuser = _Fuser(self)
        try:
            src = make_src(fuser)
        except _NoFuse:
            return fallback()
        nested = self._fuse_depth > 0  # the outermost expression's wrapper reports errors
        checked = not nested and (fuser.may_fail or fuser.has_opaque)
        if fuser.whole is not None:
            whole = fuser.whole
            if not checked:
                return whole
            plain = make_plain()

            def checked_whole(st, env):
                try:
                    return whole(st, env)
                except _PY_ERRORS:
                    return plain(st, env)
            return checked_whole
        if checked:  # the try costs nothing until something fails; then the plain version explains
            fuser.ns["_plain"] = make_plain()
            fuser.ns["_PY_ERRORS"] = _PY_ERRORS
            code = f"def fused(st, env):\n try:\n  return {src}\n except _PY_ERRORS:\n  return _plain(st, env)\n"
        else:
            code = f"def fused(st, env):\n return {src}\n"
        where = f"<fused {self.path}:{span.line}:{span.col}>"  # names the code in profiles and tracebacks
        try:
            compiled = compile(code, where, "exec")
        except (SyntaxError, RecursionError, MemoryError, ValueError):  # e.g. nested too deeply for Python
            return fallback()
        exec(compiled, fuser.ns)  # noqa: S102 -- generated from the checked model, no user text
        return fuser.ns["fused"]

    def _plain_as_list(self, e) -> Callable:
        f = self.expr(e)
        if self.type_of(e).name == "zone":
            return lambda st, env: list(st.zones[f(st, env)])
        return f

    def _plain_view(self, e) -> Callable:
        if isinstance(e, A.Call) and e.func == "cards" and self.model.refs.get(e, ("",))[0] != "def":
            e = e.args[0]
        if self.type_of(e).name != "zone":
            return self.expr(e)
        if isinstance(e, A.Name) and self.model.refs[e][0] == "zone":
            zi = self.zone_base[e.name]
            return lambda st, env: st.zones[zi]
        f = self.expr(e)
        return lambda st, env: st.zones[f(st, env)]

    def formatter(self, t: T.Type) -> Callable:
        names = self.card_names
        if self.model.label is not None:  # cards are shown by their label
            label = self.card_label
            names = _Labels(self, label)
        if t == T.PLAYER:
            return lambda st, v: player_name(v)
        if t == T.CARD:
            if isinstance(names, _Labels):
                return lambda st, v: "no card" if v is None else names.of(st, v)
            return lambda st, v: "no card" if v is None else names[v]
        if t == T.BOOL:
            return lambda st, v: "yes" if v else "no"
        if t == T.USE:
            return lambda st, v: "no card" if v is None else self.use_text(st, v)
        card = self.formatter(T.CARD)
        if t.name == "zone":
            return lambda st, v: " + ".join(card(st, c) for c in st.zones[v]) or "nothing"
        if t.name == "list":
            inner = self.formatter(t.elem or T.ANY)
            sep = " + " if t.elem == T.CARD else ", "
            return lambda st, v: sep.join(inner(st, x) for x in v) or "nothing"
        if t == T.PLAY:
            return lambda st, v: f"{player_name(v[0])}: " + " + ".join(card(st, c) for c in v[1])
        return lambda st, v: "none" if v is None else str(v)

    def use_text(self, st, v: dict) -> str:
        """A card as used: its label; a converted one: its cards 'as' the name, and the conversion."""
        if "$text" in v:
            return v["$text"]
        shown = " + ".join(self.card_label(st, c) for c in v["cards"])
        if not v["via"]:
            return shown
        return f"{shown} as {v['name']} ({v['via']})" if shown else f"{v['name']} ({v['via']})"

    def template(self, lit: A.StrLit) -> Callable:
        parts = self.model.templates.get(lit, [lit.value])
        if self._plain_mode or any(not isinstance(p, str) and _uses_random(p, self.def_pure) for p in parts):
            return self._plain_template(parts)

        def make_src(fuser):
            out = []
            for p in parts:
                if isinstance(p, str):
                    out.append(repr(p))
                else:
                    fuser.may_fail = True  # a formatter may meet an unexpected value
                    out.append(f"{fuser.bind(self.formatter(self.type_of(p)))}(st, {fuser.v(p)})")
            return " + ".join(out) if out else "''"
        return self._fuse(lit.span, make_src, lambda: self._plain_template(parts),
                          lambda: self._plain_version_of(lambda: self._plain_template(parts)))

    def _plain_template(self, parts: list) -> Callable:
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

    # ------------------------------------------------------------------ expressions (plain versions)
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
            if e.name == "stack_top":
                return lambda st, env: st.stack[-1] if st.stack else None
            if e.name == "stacked":
                return lambda st, env: list(st.stack)
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
                try:
                    return vals[c]
                except TypeError:
                    if c is None:
                        self.fail(e, f"no card to read '{e.name}' from")
                    raise
            return prop
        if ref[0] == "entry_field":
            k = ENTRY_FIELD_INDEX[ref[1]]

            def entry_field(st, env):
                eid = obj(st, env)
                if eid is None:
                    self.fail(e, f"no stack entry to read '{e.name}' from")
                v = st.entry(eid)[k]
                return list(v) if k == 4 else v
            return entry_field
        if ref[0] == "entry_data":
            name = ref[1]

            def entry_data(st, env):
                eid = obj(st, env)
                if eid is None:
                    self.fail(e, f"no stack entry to read '{name}' from")
                entry = st.entry(eid)
                try:
                    return entry[7][name]
                except KeyError:
                    self.fail(e, f"an entry of effect '{entry[1]}' has no field '{name}'")
            return entry_data
        if ref[0] in ("record_field", "use_field"):
            name = ref[1]

            def field_of(st, env):
                rec = obj(st, env)
                if rec is None:
                    self.fail(e, f"no value to read '{name}' from (it is none)")
                return rec[name]
            return field_of
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
        lst = self.view(e.obj)

        if isinstance(e.index, A.IntLit):
            k = e.index.value

            def item_k(st, env):
                xs = lst(st, env)
                try:
                    return xs[k]
                except IndexError:
                    self.fail(e, f"index {k} is outside a list of {len(xs)}")
            return item_k

        def item(st, env):
            xs = lst(st, env)
            i = idx(st, env)
            try:
                return xs[i]
            except IndexError:
                self.fail(e, f"index {i} is outside a list of {len(xs)}")
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

        def range_(st, env):
            a, b = lo(st, env), hi(st, env)
            if b - a >= MAX_RANGE:
                self.fail(e, f"the range {a}..{b} has more than {MAX_RANGE} numbers")
            return list(range(a, b + 1))
        return range_

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
            a, b = self.expr(e.left), self.view(e.right)
            return lambda st, env: a(st, env) in b(st, env)
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if T.is_list(lt) or T.is_list(rt):
            a, b = self.view(e.left), self.view(e.right)
        else:
            a, b = self.expr(e.left), self.expr(e.right)
        if op in _CMP:
            f = _CMP[op]
            if op in ("==", "!="):
                if isinstance(e.right, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
                    k = None if isinstance(e.right, A.NoneLit) else e.right.value
                    if op == "==":
                        return lambda st, env: a(st, env) == k
                    return lambda st, env: a(st, env) != k
                if op == "==":
                    return lambda st, env: a(st, env) == b(st, env)
                return lambda st, env: a(st, env) != b(st, env)

            def compare(st, env):
                x, y = a(st, env), b(st, env)
                try:
                    return f(x, y)
                except TypeError:
                    if x is None or y is None:
                        self.fail(e, f"'{op}' compares with none")
                    raise
            return compare
        if op == "+":
            return lambda st, env: a(st, env) + b(st, env)
        if op == "-":
            return lambda st, env: a(st, env) - b(st, env)
        if op == "*":
            return lambda st, env: a(st, env) * b(st, env)

        def divide(st, env):
            x, y = a(st, env), b(st, env)
            if y == 0:
                self.fail(e, "division by zero")
            return x // y if op == "/" else x % y
        return divide

    def _e_Call(self, e):
        ref = self.model.refs[e]
        if ref[0] == "def":
            return self._def_call(e, ref[1])
        if ref[0] == "rule":
            return self._rule_call(e)
        f = e.func
        if f == "reversed":
            lst = self.view(e.args[0])
            return lambda st, env: lst(st, env)[::-1]
        if f == "revealed":
            card = self.expr(e.args[0])

            def revealed(st, env):
                c = card(st, env)
                if c is None:
                    self.fail(e, "'revealed' of none instead of a card")
                return st.is_revealed(c)
            return revealed
        if f in ("count", "sorted", "distinct", "random"):
            arg = e.args[0]
            lst = self.view(arg)
            if f == "count":
                if isinstance(arg, A.Call) and arg.func == "plays" and self.model.refs.get(arg, ("",))[0] != "def":
                    z = self.expr(arg.args[0])
                    return lambda st, env: len(st.plays.get(z(st, env), ()))
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
        if f == "tagged":
            a = args[0]
            tag = e.args[1].value
            # from the model, not self.effects: effects' own blocks are compiled while that is built
            tags = {name: frozenset([name] + [t.name for t in d.tags]) for name, d in self.model.effects.items()}
            return lambda st, env: (lambda eid: eid is not None and tag in tags[st.entry(eid)[1]])(a(st, env))
        self.fail(e, f"unknown function '{f}'")

    def _rule_call(self, e: A.Call) -> Callable:
        """A rule value: its base combined with every contribution that applies now."""
        name = e.func
        args = [self.as_list(a) for a in e.args]
        rules = self.rules  # filled before any rule runs

        def rule(st, env):
            return rules[name].value(st, [f(st, env) for f in args])
        return rule

    def _def_call(self, e: A.Call, d: A.DefDecl) -> Callable:
        """A call of a def.  A pure def (one that draws no random numbers) is memoised in
        ``st._memo`` when that is a dict: the engine turns it on only while it lists legal
        actions, when nothing can change the state, so the same call gives the same value."""
        body = (self.defs_plain if self._plain_mode else self.defs)[e.func]
        names = [p.name for p in d.params]
        args = [self.as_list(a) for a in e.args]  # a zone given for a list[card] parameter is its cards
        if not self.def_pure[e.func]:
            return lambda st, env: body(st, {n: f(st, env) for n, f in zip(names, args)})
        name = e.func
        if not args:
            def call0(st, env):
                memo = st._memo
                if memo is None:
                    return body(st, {})
                try:
                    return memo[name]
                except KeyError:
                    v = memo[name] = body(st, {})
                    return v
            return call0
        freezers = [_freezer(self.type_of(a)) for a in e.args]
        if len(args) == 1:
            n0, a0, fz0 = names[0], args[0], freezers[0]

            def call1(st, env):
                x = a0(st, env)
                memo = st._memo
                if memo is None:
                    return body(st, {n0: x})
                key = (name, fz0(x))
                try:
                    return memo[key]
                except KeyError:
                    v = memo[key] = body(st, {n0: x})
                    return v
            return call1

        def calln(st, env):
            vals = [f(st, env) for f in args]
            memo = st._memo
            if memo is None:
                return body(st, dict(zip(names, vals)))
            key = (name,) + tuple(fz(v) for fz, v in zip(freezers, vals))
            try:
                return memo[key]
            except KeyError:
                v = memo[key] = body(st, dict(zip(names, vals)))
                return v
        return calln

    def _e_Quant(self, e):
        dom = self.view(e.domain)
        var = e.var
        where = self.expr(e.where) if e.where is not None else None
        body = self.expr(e.body) if e.body is not None else None
        k = e.kind

        if k == "any":
            def any_(st, env):
                inner = dict(env)
                for x in dom(st, env):
                    inner[var] = x
                    if (where is None or where(st, inner)) and (body is None or body(st, inner)):
                        return True
                return False
            return any_
        if k == "all":
            if body is None:
                return lambda st, env: True

            def all_(st, env):
                inner = dict(env)
                for x in dom(st, env):
                    inner[var] = x
                    if (where is None or where(st, inner)) and not body(st, inner):
                        return False
                return True
            return all_
        if k == "count":
            def count_(st, env):
                inner = dict(env)
                n = 0
                for x in dom(st, env):
                    inner[var] = x
                    if (where is None or where(st, inner)) and (body is None or body(st, inner)):
                        n += 1
                return n
            return count_
        if k == "first":
            def first(st, env):
                inner = dict(env)
                for x in dom(st, env):
                    inner[var] = x
                    if (where is None or where(st, inner)) and (body is None or body(st, inner)):
                        return x
                return None
            return first
        if k == "collect":
            def collect(st, env):
                inner = dict(env)
                out = []
                for x in dom(st, env):
                    inner[var] = x
                    if where is None or where(st, inner):
                        out.append(x if body is None else body(st, inner))
                return out
            return collect

        def values(st, env):
            inner = dict(env)
            out = []
            for x in dom(st, env):
                inner[var] = x
                if where is None or where(st, inner):
                    out.append(body(st, inner))
            return out

        if k == "sum":
            return lambda st, env: sum(values(st, env))
        if k in ("max", "min"):
            g = max if k == "max" else min

            def extreme(st, env):
                vals = values(st, env)
                if not vals:
                    self.fail(e, f"'{k}' over an empty list")
                return g(vals)
            return extreme
        better = operator.gt if k == "argmax" else operator.lt
        if e.ties_last:
            better = operator.ge if k == "argmax" else operator.le

        def arg(st, env):
            inner = dict(env)
            best = best_v = None
            found = False
            for x in dom(st, env):
                inner[var] = x
                if where is None or where(st, inner):
                    v = body(st, inner)
                    if not found or better(v, best_v):
                        best, best_v, found = x, v, True
            if not found:
                self.fail(e, f"'{k}' over an empty list")
            return best
        return arg

    def _compile_def(self, d: A.DefDecl) -> Callable:
        # A def body is only ever called from another expression, whose checked wrapper
        # reports errors (re-evaluating with defs_plain), so it needs no wrapper of its own.
        self._fuse_depth += 1
        try:
            return self.as_list(d.body)  # a zone-valued def gives a copy of the cards
        finally:
            self._fuse_depth -= 1

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
        v = self.as_list(s.value)  # a zone stored in a list[card] variable is a copy of its cards
        tgt = s.target
        op = s.op
        if tgt.path:
            return self._field_assign(s, v)
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

                def add_var(st, env):  # never in place: a list value may be shared
                    st.vars[i] = st.vars[i] + sign * v(st, env)
                return add_var
            idx = self.expr(tgt.index)
            if op == "=":
                def set_pvar(st, env):
                    st.vars[i][idx(st, env)] = v(st, env)
                return set_pvar
            sign = 1 if op == "+=" else -1

            def add_pvar(st, env):
                row, p = st.vars[i], idx(st, env)
                row[p] = row[p] + sign * v(st, env)
            return add_pvar
        n = tgt.name
        if op == "=":
            def set_local(st, env):
                env[n] = v(st, env)
            return set_local
        sign = 1 if op == "+=" else -1

        def add_local(st, env):
            env[n] = env[n] + sign * v(st, env)
        return add_local

    def _field_assign(self, s, v) -> Callable:
        """this.n = v, stack_top.target = p, r.amount += 1: a field of a stack entry (an id) or
        of a record (an event's record, a used card: a dict)."""
        tgt = s.target
        name, field = tgt.name, tgt.path[0]
        if name == "stack_top":
            base = lambda st, env: st.stack[-1] if st.stack else None  # noqa: E731
        elif name in self.var_index:
            i = self.var_index[name]
            base = lambda st, env: st.vars[i]  # noqa: E731
        else:
            base = lambda st, env: env[name]  # noqa: E731
        sign = {"=": 0, "+=": 1, "-=": -1}[s.op]
        k = {"by": 2, "target": 3}.get(field)

        def assign(st, env):
            obj = base(st, env)
            if obj is None:
                self.fail(s, f"cannot set '{field}' of none")
            if isinstance(obj, dict):
                data = obj
            else:
                entry = st.entry(obj)
                if k is not None:
                    entry[k] = v(st, env) if sign == 0 else entry[k] + sign * v(st, env)
                    return
                data = entry[7]
                if field not in data:
                    self.fail(s, f"an entry of effect '{entry[1]}' has no field '{field}'")
            data[field] = v(st, env) if sign == 0 else data[field] + sign * v(st, env)
        return assign

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
            if not cs:  # playing no card records no play (a play always has a card)
                return
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
        # The body runs in the block's own locals: assignments to outer locals last; the loop
        # variable and the names the body binds are restored when the loop ends.
        from .blocks import bound_names
        it = self.as_list(s.iterable)
        body = self.block(s.body)
        var = s.var
        scoped = sorted(bound_names(s.body) | {var})

        def for_(st, env):
            saved = {n: env[n] for n in scoped if n in env}
            for x in it(st, env):
                env[var] = x
                body(st, env)
            for n in scoped:
                if n in saved:
                    env[n] = saved[n]
                else:
                    env.pop(n, None)
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
        if self.type_of(s.zone).name != "zone":  # cards: each is shown to every player (or no longer)
            cards = self._cards_of(s.zone)

            def reveal_cards(st, env):
                for c in cards(st, env):
                    if c is None:
                        self.fail(s, f"{'revealed' if show else 'concealed'} 'none' instead of a card")
                    if show and c not in st.shown:
                        st.shown.append(c)
                        st.log.append(["reveal_card", c])
                    elif not show and c in st.shown:
                        st.shown.remove(c)
            return reveal_cards

        def reveal(st, env):
            zi = z(st, env)
            if show:
                if zi not in st.revealed:
                    st.revealed.append(zi)
                    st.log.append(["reveal", zi, list(st.zones[zi])])
            elif zi in st.revealed:
                st.revealed.remove(zi)
        return reveal

    def _s_StackStmt(self, s):
        kind = s.effect.name
        by = self.expr(s.by) if s.by is not None else (lambda st, env: st.active)
        target = self.expr(s.target) if s.target is not None else (lambda st, env: None)
        cards = self._cards_of(s.with_) if s.with_ is not None else (lambda st, env: [])
        against = self.expr(s.against) if s.against is not None else (lambda st, env: None)
        given = {name: self.as_list(e) for name, e in s.fields}
        defaults = [(f.name, self.as_list(f.default) if f.default is not None else None)
                    for f in self.model.effects[kind].fields]
        types = {f.name: f.type.name for f in self.model.effects[kind].fields}

        def stack(st, env):
            data = {}
            for name, d in defaults:
                if name in given:
                    data[name] = given[name](st, env)
                elif d is not None:
                    data[name] = d(st, env)
                else:
                    data[name] = _zero_of(None, types[name])
            st.push_entry(kind, by(st, env), target(st, env), cards(st, env), against(st, env), data)
        return stack

    def _s_Prevent(self, s):
        def prevent(st, env):
            st.frames[env["$rf"]][2]["rec"]["prevented"] = True
        return prevent

    def _s_Look(self, s):
        cards = self._cards_of(s.cards)
        by = self.expr(s.by) if s.by is not None else (lambda st, env: st.active)

        def look(st, env):
            st.log.append(["look", by(st, env), cards(st, env)])
        return look

    def _s_Cancel(self, s):
        f = self.expr(s.entry)

        def cancel(st, env):
            eid = f(st, env)
            if eid is None:
                self.fail(s, "cancelled 'none' instead of a stack entry")
            st.entry(eid)[6] = True
            st.log.append(["text", f"{st.entry(eid)[1]} is cancelled"])
        return cancel

    def _s_Emit(self, s):
        # an event no trigger listens to (blocks.py runs the others): only its record is kept
        name = s.event.name
        args = [self.expr(a) for a in s.args]
        params = [p.name for p in self.model.events[name].params]
        target = s.target

        def emit(st, env):
            if st.cov is not None:
                st.cov["event:" + name] += 1
            rec = {p: f(st, env) for p, f in zip(params, args)}
            if target is not None:
                rec["prevented"] = False
                env[target] = rec
        return emit

    def _compile_effect(self, e: A.EffectDecl) -> CEffect:
        bc = self.block_compiler
        fields = []
        for f in e.fields:
            if f.default is not None:
                fields.append((f.name, self.as_list(f.default)))
            else:
                zero = _zero_of(self.model.types.get(f, None), f.type.name)
                fields.append((f.name, (lambda z: lambda st, env: list(z) if isinstance(z, list) else z)(zero)))
        return CEffect(e.name, e, frozenset([e.name] + [t.name for t in e.tags]),
                       self.expr(e.ask) if e.ask is not None else None,
                       bc.compile(e.resolve, f"the resolution of effect '{e.name}'"),
                       bc.compile(e.cancelled, f"the 'cancelled' block of effect '{e.name}'"),
                       fields, e.mandatory)

    def _compile_trigger(self, index: int, t: A.TriggerDecl) -> CTrigger:
        from .blocks import trigger_epilogue
        event = t.event.name
        if event in self.model.events:
            params = [p.name for p in self.model.events[event].params]
        else:
            from rulespec.checker import BUILTIN_EVENTS
            params = [n for n, _ in BUILTIN_EVENTS[event]]
        body = self.block_compiler.compile(t.body, f"trigger '{t.name}'", trigger_epilogue(params, t.body))
        if body is None:
            body = self.block_compiler.compile(A.Block((), t.span), f"trigger '{t.name}'")
        return CTrigger(t.name, index, params, t.for_var,
                        self.expr(t.for_expr) if t.for_expr is not None else None,
                        self.expr(t.when) if t.when is not None else None, body, t.timing, event, self.ability(t))

    def _compile_conversion(self, c: A.ConversionDecl) -> CConversion:
        return CConversion(c.name, c.role, self.compile_param(c.source) if c.source is not None else None,
                           [(self.expr(r.cond), r.message, r) for r in c.requires],
                           [(name, self.expr(e)) for name, e in c.props],
                           self.template(c.text) if c.text is not None else None, self.ability(c))

    def _compile_rules(self) -> None:
        from .abilities import COMBINE, CModify, CRule
        for r in self.model.rules.values():
            self.rules[r.name] = CRule(r.name, [p.name for p in r.params], self.expr(r.base), COMBINE[r.combine.name])
        for m in self.model.modifies:
            rule = self.rules.get(m.rule.name)
            if rule is not None:
                rule.modifies.append(CModify(list(m.args), self.expr(m.value),
                                             self.expr(m.when) if m.when is not None else None, self.ability(m)))

    # ------------------------------------------------------------------ actions and phases
    def compile_param(self, p: A.ActionParam) -> CParam:
        """One choice (an action parameter, a 'choose', a conversion's cards)."""
        domain = cond = size = zone_fns = None
        multi = False
        if p.kind == "int":
            domain = self.as_list(p.domain)
        elif p.kind == "players":
            domain = self.as_list(p.domain)
        elif p.kind in ("card", "cards", "use"):
            domain = self._zones_of(p.domain)
            multi = self._multi_zone(p.domain)
            zone_fns = self._zone_fns(p.domain)
        if p.cond is not None:
            cond = self.expr(p.cond)
        if p.size is not None:
            size = self.expr(p.size)
        if p.kind == "enum":
            members = list(self.model.enums[p.same.name].members)
            domain = (lambda ms: lambda st, env: ms)(members)
        ptype = {"int": T.INT, "player": T.PLAYER, "card": T.CARD, "cards": T.CARDS, "players": T.PLAYERS,
                 "use": T.USE, "bool": T.BOOL}.get(p.kind, T.enum_type(p.same.name) if p.same is not None else T.ANY)
        wild = None
        if p.wild is not None:
            wvar, wcond = p.wild
            wf = self.expr(wcond)
            wild = (lambda f, v: lambda st, env, c: f(st, {**env, v: c}))(wf, wvar)
        return CParam(p.name, p.kind, domain, cond, size, isinstance(p.size, A.Range),
                      p.same.name if p.same else None, multi, ptype, zone_fns,
                      p.distinct.name if p.distinct else None, wild, p.ordered, p.nullable, p.role)

    def _compile_action(self, a: A.ActionDecl) -> CAction:
        params = [self.compile_param(p) for p in a.params]
        names = {p.name for p in a.params}
        pre = [(self.expr(r.cond), r.message, r) for r in a.requires if not _mentions(r.cond, names)]
        post = [(self.expr(r.cond), r.message, r) for r in a.requires if _mentions(r.cond, names)]
        text = self.template(a.text) if a.text is not None else None
        pre_conds = [r.cond for r in a.requires if not _mentions(r.cond, names)]
        post_conds = [r.cond for r in a.requires if _mentions(r.cond, names)]
        return CAction(a.name, a, params, post, pre, text,
                       self.block_compiler.compile(a.effect, f"the effect of action '{a.name}'"),
                       self._all_of(post_conds, post), self._all_of(pre_conds, pre),
                       frozenset(r.name for r in a.respond_to), self.ability(a))

    def _all_of(self, conds: list, compiled: list) -> Optional[Callable]:
        """One function that is true when every condition holds (in order, stopping at the first
        that fails): listing actions asks this for every candidate."""
        if not conds:
            return None
        if len(conds) == 1:
            return compiled[0][0]
        fallback = [f for f, _, _ in compiled]

        def each(st, env):
            for f in fallback:
                if not f(st, env):
                    return False
            return True
        if self._plain_mode or any(_uses_random(c, self.def_pure) for c in conds):
            return each
        return self._fuse(conds[0].span, lambda fuser: " and ".join(f"bool({fuser.v(c)})" for c in conds),
                          lambda: each, lambda: self._plain_version_of(lambda: self._plain_all_of(conds)))

    def _plain_all_of(self, conds: list) -> Callable:
        fs = [self.expr(c) for c in conds]

        def each(st, env):
            for f in fs:
                if not f(st, env):
                    return False
            return True
        return each

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

    def _zone_fns(self, e) -> Optional[list]:
        """The zone-index functions of a domain made only of zones (z, or z1 + z2 + ...), else None."""
        if isinstance(e, A.BinOp) and e.op == "+":
            a, b = self._zone_fns(e.left), self._zone_fns(e.right)
            return a + b if a is not None and b is not None else None
        if self.type_of(e).name == "zone":
            return [self.expr(e)]
        return None

    def _multi_zone(self, e) -> bool:
        return isinstance(e, A.BinOp) and e.op == "+"

    def _compile_phase(self, p: A.PhaseDecl) -> CPhase:
        bc = self.block_compiler
        listed = [a.name for a in p.actions]
        listed += [a.name for a in self.model.actions.values()
                   if any(ph.name == p.name for ph in a.offered_in) and a.name not in listed]
        ready = self._all_of([r.cond for r in p.requires], [(self.expr(r.cond), r.message, r) for r in p.requires])
        return CPhase(p.name, p, bc.compile(p.enter, f"phase '{p.name}': enter"),
                      self.expr(p.actor) if p.actor is not None else None,
                      listed, bc.compile(p.after, f"phase '{p.name}': after"),
                      self.expr(p.end_when) if p.end_when is not None else None,
                      bc.compile(p.exit, f"phase '{p.name}': exit"),
                      [(n.target.name, self.expr(n.cond) if n.cond is not None else None) for n in p.nexts], ready)


class _Labels:
    """Card labels in place of names (a game with a 'label' clause)."""
    def __init__(self, prog, label):
        self.label = label

    def of(self, st, c):
        return self.label(st, c)


def _zero_of(_t, type_name: str):
    return {"int": 0, "bool": False, "text": "", "list": []}.get(type_name)


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


def _uses_random(e, def_pure: dict) -> bool:
    """Does evaluating expression e draw from the game's random generator (directly or via a def)?"""
    if isinstance(e, A.Call) and (e.func == "random" or def_pure.get(e.func) is False):
        return True
    for f in attrs.fields(type(e)):
        v = getattr(e, f.name)
        if isinstance(v, A.Expr) and _uses_random(v, def_pure):
            return True
        if isinstance(v, tuple) and any(isinstance(x, A.Expr) and _uses_random(x, def_pure) for x in v):
            return True
    return False


def _freeze_any(v):
    if isinstance(v, list):
        return tuple(_freeze_any(x) for x in v)
    return v


def _freezer(t: T.Type) -> Callable:
    """A function that turns a value of type t into a hashable memo key (lists become tuples)."""
    if t.name == "list" and t.elem is not None and t.elem.name in ("int", "bool", "text", "player", "card", "enum"):
        return tuple
    if t.name in ("int", "bool", "text", "player", "card", "enum", "zone"):
        return _identity
    return _freeze_any


def _identity(v):
    return v


_PY_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)


class _NoFuse(Exception):
    """This expression cannot be turned into generated code; use closures."""


MAX_RANGE = 10_000  # the largest range a rule may build at run time (the checker's limit for constants)


def _bounded_range(a: int, b: int) -> list:
    if b - a >= MAX_RANGE:
        raise ValueError("range too large")
    return list(range(a, b + 1))


def _players_after(a, n):
    return [(a + k) % n for k in range(1, n + 1)]


def _players_from(a, n):
    return [(a + k) % n for k in range(n)]


_SAFE_OPS = {"==": "==", "!=": "!="}
_RISKY_OPS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "+": "+", "-": "-", "*": "*", "/": "//", "%": "%"}


class _Fuser:
    """Turns a tree of simple expression nodes into the source of one Python expression
    over ``st`` and ``env``.  Quantifiers and def calls stay closures (called from the
    generated code); ``ns`` holds everything the source refers to."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.model = prog.model
        self.ns: dict = {}
        self.may_fail = False
        self.has_opaque = False
        self.whole = None  # set when the entire expression is one closure

    def bind(self, value) -> str:
        name = f"_b{len(self.ns)}"
        self.ns[name] = value
        return name

    def src(self, mode: str, e, root: bool = True) -> str:
        t = self.prog.type_of(e)
        if mode == "view" and isinstance(e, A.Call) and e.func == "cards" and self.model.refs.get(e, ("",))[0] != "def":
            e, mode = e.args[0], "view"
            t = self.prog.type_of(e)
        if mode != "value" and t.name == "zone":
            inner = self.src("value", e, False)
            return f"st.zones[{inner}]" if mode == "view" else f"list(st.zones[{inner}])"
        if isinstance(e, (A.Quant, A.Call)) and (isinstance(e, A.Quant) or self.model.refs[e][0] in ("def", "rule")):
            self.has_opaque = True
            self.prog._fuse_depth += 1
            try:
                if isinstance(e, A.Quant):
                    f = self.prog._e_Quant(e)
                elif self.model.refs[e][0] == "rule":
                    f = self.prog._rule_call(e)
                else:
                    f = self.prog._def_call(e, self.model.refs[e][1])
            finally:
                self.prog._fuse_depth -= 1
            if root:
                self.whole = f
            return f"{self.bind(f)}(st, env)"
        m = getattr(self, "_" + type(e).__name__, None)
        if m is None:
            raise _NoFuse()
        return m(e)

    def v(self, e) -> str:
        return self.src("value", e, False)

    def lst(self, e) -> str:
        return self.src("list", e, False)

    def view(self, e) -> str:
        return self.src("view", e, False)

    # ---- nodes
    def _IntLit(self, e):
        return repr(e.value)

    _BoolLit = _IntLit
    _StrLit = _IntLit

    def _NoneLit(self, e):
        return "None"

    def _Name(self, e):
        kind = self.model.refs[e][0]
        if kind == "local":
            return f"env[{e.name!r}]"
        if kind == "builtin":
            if e.name == "players":
                return "list(range(st.n))"
            if e.name == "player_count":
                return "st.n"
            if e.name == "active":
                return "st.active"
            raise _NoFuse()
        if kind == "var":
            return f"st.vars[{self.prog.var_index[e.name]}]"
        if kind == "zone":
            return str(self.prog.zone_base[e.name])
        if kind == "option":
            return f"st.opts[{e.name!r}]"
        if kind == "enum":
            return repr(e.name)
        raise _NoFuse()

    def _Attr(self, e):
        ref = self.model.refs[e]
        obj = self.v(e.obj)
        self.may_fail = True
        if ref[0] == "card_name":
            return f"{self.bind(self.prog.card_names)}[{obj}]"
        if ref[0] == "prop":
            return f"{self.bind(self.prog.card_props[ref[1]])}[{obj}]"
        if ref[0] in ("entry_field", "entry_data"):
            raise _NoFuse()
        if ref[0] in ("record_field", "use_field"):
            return f"({obj})[{ref[1]!r}]"
        field = ref[1]
        if field == "player":
            return f"({obj})[0]"
        if field == "cards":
            return f"list(({obj})[1])"
        return f"len(({obj})[1])"

    def _Index(self, e):
        ref = self.model.refs[e]
        idx = self.v(e.index)
        self.may_fail = True
        if ref[0] == "pvar":
            return f"st.vars[{self.prog.var_index[ref[1].name]}][{idx}]"
        if ref[0] == "pzone":
            return f"({self.prog.zone_base[ref[1].name]} + {idx})"
        return f"{self.view(e.obj)}[{idx}]"

    def _ListLit(self, e):
        return "[" + ", ".join(self.v(x) for x in e.items) + "]"

    def _Unary(self, e):
        a = self.v(e.operand)
        if e.op == "-":
            self.may_fail = True
            return f"(-{a})"
        return f"(not {a})"

    def _Range(self, e):
        self.may_fail = True  # an oversized range raises here; the plain version then reports it
        return f"{self.bind(_bounded_range)}({self.v(e.lo)}, {self.v(e.hi)})"

    def _IfExpr(self, e):
        c = self.v(e.cond)
        if self.prog.type_of(e).name == "list":
            a, b = self.lst(e.then), self.lst(e.else_)
        else:
            a, b = self.v(e.then), self.v(e.else_)
        return f"({a} if {c} else {b})"

    def _BinOp(self, e):
        op = e.op
        if op in ("and", "or"):
            return f"({self.v(e.left)} {op} {self.v(e.right)})"
        if op == "in":
            return f"({self.v(e.left)} in {self.view(e.right)})"
        if T.is_list(self.prog.type_of(e.left)) or T.is_list(self.prog.type_of(e.right)):
            a, b = self.view(e.left), self.view(e.right)
        else:
            a, b = self.v(e.left), self.v(e.right)
        if op in _SAFE_OPS:
            return f"({a} {op} {b})"
        if op not in _RISKY_OPS:
            raise _NoFuse()
        self.may_fail = True
        return f"({a} {_RISKY_OPS[op]} {b})"

    def _Call(self, e):
        f = e.func
        args = e.args
        self.may_fail = True
        if f == "count":
            arg = args[0]
            if isinstance(arg, A.Call) and arg.func == "plays" and self.model.refs.get(arg, ("",))[0] != "def":
                return f"len(st.plays.get({self.v(arg.args[0])}, ()))"
            return f"len({self.view(arg)})"
        if f == "sorted":
            return f"sorted({self.view(args[0])})"
        if f == "distinct":
            return f"list(dict.fromkeys({self.view(args[0])}))"
        if f == "players_after":
            return f"{self.bind(_players_after)}({self.v(args[0])}, st.n)"
        if f == "players_from":
            return f"{self.bind(_players_from)}({self.v(args[0])}, st.n)"
        if f == "next_player":
            return f"(({self.v(args[0])} + 1) % st.n)"
        if f == "seat":
            return f"({self.v(args[0])} + 1)"
        if f == "top":
            return f"st.zones[{self.v(args[0])}][::-1][:max(0, {self.v(args[1])})]"
        if f == "bottom":
            return f"st.zones[{self.v(args[0])}][:max(0, {self.v(args[1])})]"
        if f == "plays":
            return f"[list(p) for p in st.plays.get({self.v(args[0])}, [])]"
        if f == "cards":
            return f"list(st.zones[{self.v(args[0])}])"
        if f in ("max", "min"):
            return f"{f}({self.v(args[0])}, {self.v(args[1])})"
        if f == "abs":
            return f"abs({self.v(args[0])})"
        if f == "reversed":
            return f"{self.view(args[0])}[::-1]"
        if f == "revealed":
            return f"st.is_revealed({self.v(args[0])})"
        raise _NoFuse()
