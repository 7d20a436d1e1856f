"""Model -> Program: the tables of a game, and every statement compiled once into a Python function.

A compiled expression is ``f(st, env) -> value`` (expressions.py writes it: generated Python
code, fast, with a checked version that reports any runtime error at the node that failed); a
compiled statement is ``f(st, env) -> None`` (blocks.py turns them into resumable blocks).
``st`` is the State (its fields are listed in state.py), ``env`` a dict of local names.  The
checker has already typed every node, so the compiler never needs to guess what a name or an
operator means.

Values at run time: int, bool, str (text and enum members), player = seat
index from 0, card = card id, play = [player, [card ids]], zone = zone-instance
index, list = Python list.  All of them survive JSON unchanged.
"""
from __future__ import annotations

from typing import Callable, Optional


from rulespec.lang import ast as A
from rulespec.lang import types as T
from rulespec.lang.branches import counts_nexts, if_key, log_key, next_key
from rulespec.lang.model import Model
from rulespec.lang.setup_values import copies_in

from .abilities import CAbility
from .action_ranges import range_ends, text_ends
from .errors import GameOver, RuleRuntimeError
from .expression_runtime import SCALED, _scaled, _updated
from .expressions import ExpressionCompiler
from .markers import marker_text
from .names import player_name
from .program_parts import CAction, CConversion, CEffect, CParam, CPhase, CTrigger, ZoneSlot  # noqa: F401 (re-exported)
from .owner_keys import cannot_fail, guard_parts, owner_key, zones_by_owner
from .static_conditions import StaticAnalysis, conjuncts, split_static

_SELF = frozenset(["self"])  # in a card's group condition, the card is fixed for a game; its owner is not
_NO_CARDS: frozenset = frozenset()


class Program:
    """A compiled game: tables of cards and zones plus closures for every rule.  This is the
    reference engine ("interpreted"); interpreter/compiled/ holds the game compiler, a subclass
    that writes more of the game as generated Python and is checked against this one."""

    engine = "interpreted"
    lister = None  # the compiled engine's legal-action lister (state.py calls it instead of actions.py)
    phase_code = None  # the compiled engine's phase name -> one turn of State._advance in it

    def __init__(self, model: Model, fused: bool = True, branches: bool = False):
        """fused=False compiles only the checked version of every expression (slower; a
        reference for tests): see expressions.py.  branches=True: every branch the rules take
        (rulespec/lang/branches.py) is counted in the state's coverage counter, when it has one;
        Game.program(branches=True) builds this second program only for states that count, so plain
        play runs code without a single test for it."""
        self.model = model
        self.branches = branches
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
        # cards whose copies depend on the setup ('copies: EXPR' of the player count and options):
        # the program numbers the most copies any setup has; a game leaves the others out (out_of_game)
        self.setup_copies = [(info, tuple(self.copies_of[info.name])) for info in model.cards
                             if info.copies_expr is not None]
        self.prop_zero = {p: {"int": 0, "bool": False, "text": ""}.get(info.type.name)
                          for p, info in model.properties.items()}
        kinds: dict = {}
        # card -> its kind: cards of one name and the same property values are alike
        self.card_kind = [kinds.setdefault((n, tuple(self.card_props[p][c] for p in model.properties)), len(kinds))
                          for c, n in enumerate(self.card_names)]
        # enum -> member -> its place in the declaration: what '<', max and sorted compare members by
        self.enum_order = {name: {m: i for i, m in enumerate(info.members)} for name, info in model.enums.items()}
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
        self.out_slot = len(self.slots)  # the where[] of a card out of the game: no zone at all
        self.plays_slots = frozenset(s.index for s in self.slots if s.kind == "plays")
        # zone instance -> the most cards it holds (`at most N cards`); a move beyond is a rules error
        self.capacities = {s.index: model.zones[s.zone].capacity for s in self.slots
                           if model.zones[s.zone].capacity is not None}
        # the piles whose top card everyone sees and the rest nobody (`top public`), and whether a
        # player may see some cards of a zone they do not see (such a top, or cards they know
        # from a 'look ... until moved'): then a choice offers those cards by name (cardsets.py)
        self.top_slots = frozenset(s.index for s in self.slots if s.visibility == "top")
        self.glimpses = bool(self.top_slots) or model.lasting_looks
        # who sees a card is a matter of its zone's visibility, the owner's seat and what is
        # revealed alone (the compiled listers' tables: public, or the seat of an owner zone)
        self.zone_faces = not self.glimpses and all(s.visibility in ("public", "owner", "hidden") for s in self.slots)
        self.slot_zone = [s.zone for s in self.slots]  # zone instance -> declared zone name
        self.cache: dict = {}  # scratch space the engine fills lazily (e.g. action listing plans)
        # ---- variables
        self.var_index = {name: i for i, name in enumerate(model.vars)}
        # ---- compile (replaying the expressions of an earlier build of this model: code_cache.py)
        from . import code_cache
        self.exprs = ExpressionCompiler(self, fast=fused, cached=code_cache.load(model, fused, self.code_engine))
        self.blocks: list = []  # every compiled block (blocks.py); the engine's own come first
        from .machine import install_engine_blocks
        install_engine_blocks(self)
        self.block_compiler = self._block_compiler()
        self.rules: dict = {}  # rule values, compiled lazily on first call (modifies may call defs)
        self.var_defaults = [(v, self.expr(v.default) if v.default is not None else None)
                             for v in model.vars.values()]
        self.ability_groups: dict = {}  # id(A.AbilityGroup) -> CAbility
        self.static = StaticAnalysis(model)  # which conditions are fixed for a whole game
        self._compile_rules()
        self.has_labels = model.label is not None
        self._labels: list = [None] * self.card_count
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
        # (event, timing) -> the optional triggers of cards that may lie face down (a zone where
        # they work is not public): their owners are asked in secret (events.py); absent for most
        # events, costing nothing
        self.secret_at: dict[tuple, list] = {}
        for ct in self.trigger_list:
            if ct.optional is not None and ct.ability is not None and \
                    any(self.slots[zi].visibility != "public" for zi in ct.ability.slots):
                self.secret_at.setdefault((ct.event, ct.timing), []).append(ct)
        self.phases = {p.name: self._compile_phase(p) for p in model.phases.values()}
        self.score = None
        if model.score is not None:
            body = self.expr(model.score.expr)
            var = model.score.var
            self.score = lambda st, p: body(st, {var: p})
        self.invariants = [(inv, self.expr(inv.expr)) for inv in model.invariants]
        # the rules' 'limit N decisions [winners W]': (N, W compiled or None); State.apply keeps it
        self.limit = (model.limit.count, self.winners(model.limit.winners)) if model.limit is not None else None
        self._before_finish()
        code_cache.store(model, fused, self.exprs.finish(), self.code_engine)

    @property
    def code_engine(self) -> str:
        """What the code cache keys this program's generated code by: its engine, and whether
        it counts branches (the code differs)."""
        return self.engine + (" branches" if self.branches else "")

    def _block_compiler(self):
        """What compiles statements into blocks (the compiled engine writes runs of them as code)."""
        from .blocks import BlockCompiler
        return BlockCompiler(self)

    def _before_finish(self) -> None:
        """The last moment every part of the game is compiled and the session still records (the
        compiled engine writes its listers here)."""

    # ------------------------------------------------------------------ helpers
    def out_of_game(self, players: int, options: dict) -> frozenset:
        """The cards not in a game of this many players with these options: the copies beyond
        the number a card's 'copies: EXPR' gives that setup (never in a zone, never dealt, never
        seen).  Worked out once per setup."""
        if not self.setup_copies:
            return _NO_CARDS
        key = (players, tuple(sorted(options.items())))
        memo = self.cache.setdefault("out of game", {})
        got = memo.get(key)
        if got is None:
            got = memo[key] = frozenset(c for info, ids in self.setup_copies
                                        for c in ids[copies_in(self.model, info, players, options):])
        return got

    def card_label(self, st, c: int) -> str:
        """How a card is shown: its name, or the game's 'label' (a name with its own values)."""
        if self._label is None:
            return self.card_names[c]
        labels = self._labels
        if labels[c] is None:  # a label is about the card, not the moment: computed once
            labels[c] = str(self._label(st, c))
        return labels[c]

    def card_labels(self, st, cards) -> list:
        """card_label of each of `cards` (an observation shows whole zones)."""
        if self._label is None:
            names = self.card_names
            return [names[c] for c in cards]
        labels = self._labels
        out = list(map(labels.__getitem__, cards))
        if None in out:  # some not made yet
            label = self.card_label
            out = [x if x is not None else label(st, c) for x, c in zip(out, cards)]
        return out

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
            fixed, rest = split_static(self.static, ab.group.when, _SELF) if ab.group.when is not None else ([], [])
            got = self.ability_groups[key] = CAbility(
                ab.card, tuple(self.copies_of.get(ab.card, [])), slots,
                self.exprs.all_of(rest) if rest else None,
                self.exprs.all_of(fixed) if fixed else None, len(self.ability_groups),
                not any(self.exprs.draws(e) for e in rest), zones_by_owner(self.slots, slots),
                tuple((zi, self.slots[zi].owner) for zi in slots  # (in the order the engine always read them)
                      if self.slots[zi].owner is not None and self.slots[zi].visibility != "public"))
        return got

    def fail(self, node, msg: str):
        raise RuleRuntimeError(msg, self.path, node.span)

    def type_of(self, e) -> T.Type:
        return self.model.types.get(e, T.ANY)

    # Expressions compile in expressions.py: generated Python, fast with a checked version
    # that reports a runtime error at the node that failed.
    def expr(self, e) -> Callable:
        return self.exprs.value(e)

    def as_list(self, e) -> Callable:
        """Compile e as a list; a zone becomes a copy of its cards."""
        return self.exprs.as_list(e)

    def template(self, lit: A.StrLit) -> Callable:
        return self.exprs.template(self.model.templates.get(lit, [lit.value]), lit.span)

    def formatter(self, t: T.Type) -> Callable:
        names = self.card_names
        if self.model.label is not None:  # cards are shown by their label
            label = self.card_label
            names = _Labels(self, label)
        if t == T.PLAYER:
            return lambda st, v: player_name(v)
        n = self.card_count  # (a card past the ids: a face-down pick an action's text names)
        if t == T.CARD:
            if isinstance(names, _Labels):
                return lambda st, v: "no card" if v is None else names.of(st, v) if v < n else marker_text(self, v)
            return lambda st, v: "no card" if v is None else names[v] if v < n else marker_text(self, v)
        if t == T.BOOL:
            return lambda st, v: "yes" if v else "no"
        if t == T.USE:
            return lambda st, v: "no card" if v is None else self.use_text(st, v)
        card = self.formatter(T.CARD)
        if t.name == "zone":
            return lambda st, v: " + ".join(card(st, c) for c in st.zones[v]) or "nothing"
        if t.name == "list":
            if t.elem == T.CARD and not isinstance(names, _Labels):  # the common case, without a call per card
                return lambda st, v: " + ".join(["no card" if c is None else names[c] if c < n else marker_text(self, c)
                                                 for c in v]) or "nothing"
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
        if op in SCALED:
            return self._scale(s, v)
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
                    value = v(st, env)
                    (st.vars[i] if st._own is None else st.edit_var(i))[idx(st, env)] = value
                return set_pvar
            sign = 1 if op == "+=" else -1

            def add_pvar(st, env):
                row, p = st.vars[i] if st._own is None else st.edit_var(i), idx(st, env)
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

    def _scale(self, s, v) -> Callable:
        """v *= e, v[p] /= e, x *= e (a local): the number times e, or divided by it (rounded down)."""
        tgt, op, site = s.target, s.op, (self.path, s.span)
        if tgt.name in self.var_index and (tgt.index is not None or not self._is_local(s, tgt.name)):
            i = self.var_index[tgt.name]
            if tgt.index is None:
                def scale_var(st, env):
                    st.vars[i] = _scaled(op, st.vars[i], v(st, env), site)
                return scale_var
            idx = self.expr(tgt.index)

            def scale_pvar(st, env):
                row, p = st.vars[i] if st._own is None else st.edit_var(i), idx(st, env)
                row[p] = _scaled(op, row[p], v(st, env), site)
            return scale_pvar
        n = tgt.name

        def scale_local(st, env):
            env[n] = _scaled(op, env[n], v(st, env), site)
        return scale_local

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
        op, site = s.op, (self.path, s.span)
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
                    entry[k] = v(st, env) if op == "=" else _updated(op, entry[k], v(st, env), site)
                    return
                data = entry[7]
                if field not in data:
                    self.fail(s, f"an entry of effect '{entry[1]}' has no field '{field}'")
            data[field] = v(st, env) if op == "=" else _updated(op, data[field], v(st, env), site)
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
        site = (self.path, s.span)

        def move(st, env):
            cs = cards(st, env)
            if None in cs:
                self.fail(s, "moved 'none' instead of a card")
            st.move_cards(cs, dest(st, env), bottom, site)
        return move

    def _s_Deal(self, s):
        n, src, dst = self.expr(s.count), self.expr(s.source), self.expr(s.dest)
        site = (self.path, s.span)

        def deal(st, env):
            zi = src(st, env)
            k = max(0, n(st, env))
            pile = st.zones[zi]
            cs = pile[::-1][:k]
            st.move_cards(cs, dst(st, env), False, site)
        return deal

    def _s_Shuffle(self, s):
        z = self.expr(s.zone)

        def shuffle(st, env):
            st.shuffle_zone(z(st, env))
        return shuffle

    def _s_Play(self, s):
        cards = self._cards_of(s.cards)
        dest = self.expr(s.dest)
        by = self.expr(s.by) if s.by is not None else (lambda st, env: st.active)
        site = (self.path, s.span)

        def play(st, env):
            cs = cards(st, env)
            if not cs:  # playing no card records no play (a play always has a card)
                return
            zi = dest(st, env)
            st.move_cards(cs, zi, False, site)
            st.plays.setdefault(zi, []).append([by(st, env), list(cs)])
        return play

    def _s_If(self, s):
        branches = [(self.expr(c), self.block(b)) for c, b in s.branches]
        else_ = self.block(s.else_)
        if self.branches:
            return self._counted_if(s, branches, else_)

        def if_(st, env):
            for c, b in branches:
                if c(st, env):
                    b(st, env)
                    return
            if else_ is not None:
                else_(st, env)
        return if_

    @staticmethod
    def _counted_if(s, branches: list, else_) -> Callable:
        """_s_If in a program that counts branches: the arm taken is counted first."""
        arms = [(c, b, if_key(s, i)) for i, (c, b) in enumerate(branches)]
        otherwise = if_key(s, len(branches))  # the else, written or not

        def if_(st, env):
            for c, b, key in arms:
                if c(st, env):
                    if st.cov is not None:
                        st.cov[key] += 1
                    b(st, env)
                    return
            if st.cov is not None:
                st.cov[otherwise] += 1
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

    def winners(self, e) -> Optional[Callable]:
        """An 'end game winners W' or a limit's W as f(st, env) -> the winning seats, sorted
        (one player or a list of them); None for no W: the highest score wins (State.finish)."""
        if e is None:
            return None
        w = self.expr(e)
        if self.type_of(e) == T.PLAYER:
            return lambda st, env: [w(st, env)]
        return lambda st, env: sorted(set(w(st, env)))

    def _s_EndGame(self, s):
        winners = self.winners(s.winners)

        def end(st, env):
            st.finish(winners(st, env) if winners is not None else None)
            raise GameOver()
        return end

    def _s_Log(self, s):
        return self._log_entry("text", s)

    def _s_Announce(self, s):  # a public fact: see rulespec/tools/fuzzing/secrecy.py on announcements
        return self._log_entry("announce", s)

    def _log_entry(self, kind: str, s):
        render = self.template(s.template)
        if self.branches:  # counted too ("log:LINE:COL"): a position trace names the line that wrote
            key = log_key(s)

            def counted_log(st, env):
                st.log.append([kind, render(st, env)])
                if st.cov is not None:
                    st.cov[key] += 1
            return counted_log

        def log(st, env):
            st.log.append([kind, render(st, env)])
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
            rf = env["$rf"]
            (st.frame_env(rf) if st._fshared else st.frames[rf][2])["rec"]["prevented"] = True
        return prevent

    def _s_Look(self, s):
        cards = self._cards_of(s.cards)
        by = self.expr(s.by) if s.by is not None else (lambda st, env: st.active)

        lasting = s.lasting

        def look(st, env):
            st.look_at(cards(st, env), by(st, env), lasting)
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
            from rulespec.lang.checker import BUILTIN_EVENTS
            params = [n for n, _ in BUILTIN_EVENTS[event]]
        body = self.block_compiler.compile(t.body, f"trigger '{t.name}'", trigger_epilogue(params, t.body))
        if body is None:
            body = self.block_compiler.compile(A.Block((), t.span), f"trigger '{t.name}'")
        fixed, rest = split_static(self.static, t.when, frozenset()) if t.when is not None else ([], [])
        ab = self.ability(t)
        pure = ab is None or not any(self.exprs.draws(e) for e in rest)  # (only a card's trigger reads it)
        key = guard = None
        if ab is not None and ab.pure and pure:  # reading its condition for fewer players changes nothing
            key = owner_key(self.model.refs, self.model.types, rest, set(params) - {"owner", "self", t.for_var})
            if key is None:
                guard = guard_parts(self.model.refs, rest)
        return CTrigger(t.name, index, params, t.for_var,
                        self.expr(t.for_expr) if t.for_expr is not None else None,
                        self.exprs.all_of(rest) if rest else None, body, t.timing, event, ab,
                        self.template(t.optional) if t.optional is not None else None,
                        self.exprs.all_of(fixed) if fixed else None, pure,
                        key[0] if key else None, key[1] if key else None,
                        self.exprs.all_of(guard) if guard else None,
                        bool(guard) and all(cannot_fail(self.model.refs, e) for e in guard))

    def _compile_conversion(self, c: A.ConversionDecl) -> CConversion:
        return CConversion(c.name, c.role, self.compile_param(c.source) if c.source is not None else None,
                           [(self.expr(r.cond), r.message, r) for r in c.requires],
                           [(name, self.expr(e)) for name, e in c.props],
                           self.template(c.text) if c.text is not None else None, self.ability(c))

    def _compile_rules(self) -> None:
        from .abilities import COMBINE, CModify, CRule
        for r in self.model.rules.values():
            self.rules[r.name] = CRule(r.name, [p.name for p in r.params], self.expr(r.base), COMBINE[r.combine.name])
        for r in self.rules.values():  # (modify lines are all known now)
            r.pure = not self.exprs.rule_draws(r.name)
        for m in self.model.modifies:
            rule = self.rules.get(m.rule.name)
            if rule is not None:
                ab = self.ability(m)
                # (read only when skipping the condition for other players changes nothing)
                key = owner_key(self.model.refs, self.model.types, conjuncts(m.when), set(m.args) - {"owner", "self"}) \
                    if ab is not None and ab.pure and m.when is not None and not self.exprs.draws(m.when) else None
                rule.modifies.append(CModify(list(m.args), self.expr(m.value),
                                             self.expr(m.when) if m.when is not None else None, ab,
                                             # (a player argument only: a rule's zone argument may come as its cards)
                                             list(m.args).index(key[0]) if key and key[1] is None else None))

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
                      p.distinct.name if p.distinct else None, wild, p.ordered, p.nullable, p.role,
                      self._printed_filter(p) if p.kind in ("card", "cards") and p.cond is not None else None,
                      p.wild is not None and self.static.is_static(p.wild[1], frozenset([p.wild[0]])),
                      (self.card_props[p.sum_of[0].name], self.expr(p.sum_of[1])) if p.sum_of is not None else None,
                      p.by_position)

    def _printed_filter(self, p: A.ActionParam) -> Optional[tuple]:
        """For 'where x.prop == V and ...' (V fixed for a game): the printed values of prop and V,
        so that choices skip other cards at once.  The whole condition is still read."""
        for part in conjuncts(p.cond):
            if not (isinstance(part, A.BinOp) and part.op == "=="):
                continue
            for attr, other in ((part.left, part.right), (part.right, part.left)):
                if isinstance(attr, A.Attr) and isinstance(attr.obj, A.Name) and attr.obj.name == p.name \
                        and self.model.refs.get(attr, ("",))[0] in ("prop", "card_name") \
                        and self.model.refs.get(attr.obj, ("",))[0] == "local" \
                        and self.static.is_static(other, frozenset()):
                    values = self.card_names if self.model.refs[attr][0] == "card_name" \
                        else self.card_props[self.model.refs[attr][1]]
                    return values, self.expr(other)
        return None

    def _compile_action(self, a: A.ActionDecl) -> CAction:
        params = [self.compile_param(p) for p in a.params]
        names = {p.name for p in a.params}
        pre = [(self.expr(r.cond), r.message, r) for r in a.requires if not _mentions(r.cond, names)]
        post = [(self.expr(r.cond), r.message, r) for r in a.requires if _mentions(r.cond, names)]
        text = self.template(a.text) if a.text is not None else None
        act = CAction(a.name, a, params, post, pre, text,
                      self.block_compiler.compile(a.effect, f"the effect of action '{a.name}'"),
                      self._all_of([r for _, _, r in post]), self._all_of([r for _, _, r in pre]),
                      frozenset(r.name for r in a.respond_to), self.ability(a))
        act.text_ends = text_ends(self.model, a)
        _face_down_reads(a, params, act)
        ends = range_ends(self.model, a)
        if ends is not None and not post and act.ability is None:
            lo, hi = a.params[0].domain.lo, a.params[0].domain.hi
            if not (self.exprs.draws(lo) or self.exprs.draws(hi)):  # read once each, as the domain reads them
                act.int_range = (self.expr(lo), self.expr(hi)) + ends
        return act

    def _all_of(self, requires: list) -> Optional[Callable]:
        """One function that is true when every requirement holds (in order, stopping at the first
        that fails): listing actions asks this for every candidate."""
        return self.exprs.all_of([r.cond for r in requires]) if requires else None

    def _zones_of(self, e) -> Callable:
        """Compile a card domain to a list of (card, zone index) pairs, in zone order."""
        t = self.type_of(e)
        if self._multi_zone(e):
            parts = [self._zones_of(x) for x in e.operands]
            return lambda st, env: [pair for part in parts for pair in part(st, env)]
        f = self.expr(e)
        if t.name == "zone":
            def from_zone(st, env):
                zi = f(st, env)
                return [(c, zi) for c in st.zones[zi]]
            return from_zone
        return lambda st, env: [(c, st.where[c]) for c in f(st, env)]

    def _zone_fns(self, e) -> Optional[list]:
        """The parts of a card domain made of zones and card lists (z, or z1 + cards + ...):
        [(True, zone-index function) or (False, card-list function)], or None when a part is
        neither (choices then go through the (card, zone) pairs of the domain)."""
        if self._multi_zone(e):
            parts = [self._zone_fns(x) for x in e.operands]
            return None if None in parts else [fn for part in parts for fn in part]
        t = self.type_of(e)
        if t.name == "zone":
            return [(True, self.expr(e))]
        if T.is_list(t) and t.elem == T.CARD:
            return [(False, self.exprs.value(e))]
        return None

    def _multi_zone(self, e) -> bool:
        return isinstance(e, A.Chain) and e.ops[0] == "+"  # a chain of lists joins them: only '+' can

    def _compile_phase(self, p: A.PhaseDecl) -> CPhase:
        bc = self.block_compiler
        listed = [a.name for a in p.actions]
        listed += [a.name for a in self.model.actions.values()
                   if any(ph.name == p.name for ph in a.offered_in) and a.name not in listed]
        ready = self._all_of(p.requires)
        return CPhase(p.name, p, bc.compile(p.enter, f"phase '{p.name}': enter"),
                      self.expr(p.actor) if p.actor is not None else None,
                      listed, bc.compile(p.after, f"phase '{p.name}': after"),
                      self.expr(p.end_when) if p.end_when is not None else None,
                      bc.compile(p.exit, f"phase '{p.name}': exit"),
                      [(n.target.name, self.expr(n.cond) if n.cond is not None else None) for n in p.nexts], ready,
                      [next_key(p, i) for i in range(len(p.nexts))] if self.branches and counts_nexts(p) else None)


class _Labels:
    """Card labels in place of names (a game with a 'label' clause)."""
    def __init__(self, prog, label):
        self.label = label

    def of(self, st, c):
        return self.label(st, c)


def _zero_of(_t, type_name: str):
    return {"int": 0, "bool": False, "text": "", "list": []}.get(type_name)


def _face_down_reads(a: A.ActionDecl, params: list, act: CAction) -> None:
    """Which card choices each condition of an action reads (the conditions that read a face-down
    pick do not apply to it: the chooser could not check them)."""
    cards = []
    for decl, p in zip(a.params, params):
        if decl.cond is not None:
            p.face_down_reads = frozenset(n for n in cards if _mentions(decl.cond, {n}))
        if p.kind in ("card", "cards"):
            cards.append(p.name)
    reads = tuple(frozenset(n for n in cards if _mentions(r.cond, {n})) for _, _, r in act.requires)
    act.face_down_reads = reads if any(reads) else ()


def _mentions(e, names: set) -> bool:
    """Does expression e read any of the given local names?"""
    if isinstance(e, A.Name):
        return e.name in names
    return any(_mentions(x, names) for x in A.children(e))
