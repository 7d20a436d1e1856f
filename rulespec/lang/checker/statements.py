"""Statements and blocks: what a block may do (choose, move, deal, play, stack, emit, assign ...),
the places it may assign to, and the text templates it logs.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .. import types as T
from ..diagnostics import RulesError, did_you_mean
from .vocabulary import BUILTIN_EVENTS, BUILTIN_NAMES, ENTRY_FIELDS, RESERVED_WORDS, WRITABLE_ENTRY_FIELDS


class StatementsPass:
    """Mixin of the Checker: checks blocks statement by statement, a block's locals in env."""

    def block(self, b: A.Block, env: dict) -> None:
        env = dict(env)
        for s in b.stmts:
            self.stmt(s, env)

    def check_local_name(self, name: str, span: A.Span) -> None:
        """A 'let' or 'choose' name: not a global name it would hide, not a reserved word."""
        if name in RESERVED_WORDS:
            self.error("reserved-name", span, f"'{name}' is a reserved word of the language and cannot name a local",
                       f"in an expression '{name}' is always the language's own word: pick another name")
        elif name in self.global_names or name in BUILTIN_NAMES:
            self.error("shadowed-name", span, f"'{name}' would hide the global name '{name}'", "pick another name")

    def stmt(self, s, env: dict) -> None:
        if isinstance(s, A.Choose):
            self.expect(s.chooser, self.expr(s.chooser, env), T.PLAYER, "who chooses")
            if s.prompt is not None:
                self.template(s.prompt, env)
            self.check_local_name(s.name, s.span)
            env[s.name] = self.check_param(s.param, env)
            if s.param.kind == "bool" and s.optional:
                self.error("misuse", s.span, "a yes/no question cannot be 'optional'")
            return
        if isinstance(s, A.Prevent):
            if env.get("$trigger") not in ("before", "on"):
                self.error("misuse", s.span, "'prevent' stops an event from a trigger that runs 'before' or 'on' it",
                           None if "$trigger" in env else "write it in such a trigger's block")
            return
        if isinstance(s, A.Let):
            t = self.expr(s.value, env)
            if t == T.NONE:
                self.error("type-mismatch", s.span, f"cannot tell the type of '{s.name}' from none")
            self.check_local_name(s.name, s.span)
            env[s.name] = T.CARDS if t.name == "zone" else t
        elif isinstance(s, A.Assign) and s.target.path:
            target_t = self.field_lvalue(s.target, env)
            vt = self.expr(s.value, env)
            if s.op == "=":
                self.expect(s.value, vt, target_t, f"'{'.'.join((s.target.name,) + s.target.path)}'")
            elif target_t not in (T.INT, T.ANY):
                self.error("type-mismatch", s.span, f"'{s.op}' needs a number, not {target_t}")
            else:
                self.expect(s.value, vt, T.INT, f"'{s.op}'")
        elif isinstance(s, A.Assign):
            target_t = self.lvalue(s.target, env)
            vt = self.expr(s.value, env)
            if s.op == "=":
                self.expect(s.value, vt, target_t, f"'{s.target.name}'")
            elif target_t not in (T.INT, T.ANY):
                self.error("type-mismatch", s.span, f"'{s.op}' needs a number, but '{s.target.name}' is {target_t}")
            else:
                self.expect(s.value, vt, T.INT, f"'{s.op}'")
        elif isinstance(s, A.Move):
            t = self.zexpr(s.cards, env, False)
            if t not in (T.CARD, T.ANY):
                self.expect_cards(s.cards, t)
            self.expect_zone(s.dest, self.zexpr(s.dest, env))
            self.cause(s, env)
        elif isinstance(s, A.Deal):
            self.expect(s.count, self.expr(s.count, env), T.INT, "the number of cards")
            self.expect_zone(s.source, self.zexpr(s.source, env))
            self.expect_zone(s.dest, self.zexpr(s.dest, env))
            self.cause(s, env)
        elif isinstance(s, A.Shuffle):
            self.expect_zone(s.zone, self.zexpr(s.zone, env))
        elif isinstance(s, A.Play):
            t = self.zexpr(s.cards, env, False)
            if t not in (T.CARD, T.ANY):
                self.expect_cards(s.cards, t)
            dt = self.zexpr(s.dest, env)
            self.expect_zone(s.dest, dt)
            z = self.zone_of(s.dest)
            if z is not None and z.kind != "plays":
                self.error("type-mismatch", s.dest.span, f"'play ... to' needs a plays zone; '{z.name}' is a {z.kind}",
                           f"declare it as: zone {z.name}: plays public")
            if s.by is not None:
                self.expect(s.by, self.expr(s.by, env), T.PLAYER, "the player")
            self.cause(s, env)
        elif isinstance(s, A.If):
            for cond, blk in s.branches:
                self.expect(cond, self.expr(cond, env), T.BOOL, "a condition")
                self.block(blk, env)
            if s.else_ is not None:
                self.block(s.else_, env)
        elif isinstance(s, A.For):
            t = self.expr(s.iterable, env)
            if not T.is_list(t) and t != T.ANY:
                self.error("type-mismatch", s.iterable.span, f"cannot loop over {t}; expected a list")
            inner = dict(env)
            inner[s.var] = T.elem_of(t)
            self.block(s.body, inner)
        elif isinstance(s, A.EndGame):
            if s.winners is not None:
                self.check_winners(s.winners, env)
        elif isinstance(s, (A.Log, A.Announce)):
            self.template(s.template, env)
        elif isinstance(s, A.Reveal):
            t = self.zexpr(s.zone, env, False)
            if t not in (T.CARD, T.ANY, T.ZONE):
                self.expect_cards(s.zone, t)
        elif isinstance(s, A.StackStmt):
            if s.effect.name not in self.effects:
                self.error("unknown-name", s.effect.span, f"unknown effect '{s.effect.name}'", did_you_mean(s.effect.name, self.effects))
            if s.by is not None:
                self.expect(s.by, self.expr(s.by, env), T.PLAYER, "'by'")
            if s.target is not None:
                self.expect(s.target, self.expr(s.target, env), T.PLAYER, "'target'")
            if s.with_ is not None:
                t = self.zexpr(s.with_, env, False)
                if t not in (T.CARD, T.ANY):
                    self.expect_cards(s.with_, t)
            if s.against is not None:
                self.expect(s.against, self.expr(s.against, env), T.ENTRY, "'against'")
            fields = self.effect_fields.get(s.effect.name, {})
            for fname, fe in s.fields:
                ft = self.expr(fe, env)
                if s.effect.name in self.effects and fname not in fields:
                    self.error("unknown-name", fe.span, f"effect '{s.effect.name}' has no field '{fname}'",
                               did_you_mean(fname, fields) or (f"declare it: effect {s.effect.name}({fname}: ...)"
                                                               if not fields else None))
                elif fname in fields:
                    self.expect(fe, ft, fields[fname], f"field '{fname}'")
        elif isinstance(s, A.Look):
            self.lasting_looks = self.lasting_looks or s.lasting
            t = self.zexpr(s.cards, env, False)
            if t not in (T.CARD, T.ANY):
                self.expect_cards(s.cards, t)
            if s.by is not None:
                self.expect(s.by, self.expr(s.by, env), T.PLAYER, "who looks")
        elif isinstance(s, A.Cancel):
            self.expect(s.entry, self.expr(s.entry, env), T.ENTRY, "what 'cancel' cancels")
        elif isinstance(s, A.Emit):
            if s.event.name in BUILTIN_EVENTS:
                self.error("misused-name", s.event.span, f"'{s.event.name}' is raised by the engine itself and cannot be emitted")
            elif s.event.name not in self.events:
                self.error("unknown-name", s.event.span, f"unknown event '{s.event.name}'", did_you_mean(s.event.name, self.events))
            else:
                params = self.event_params(s.event.name)
                if len(params) != len(s.args):
                    self.error("arity", s.span, f"event '{s.event.name}' takes {len(params)} argument(s), not {len(s.args)}")
                for a, (pname, pt) in zip(s.args, params):
                    self.expect(a, self.expr(a, env), pt, f"argument '{pname}' of event '{s.event.name}'")
            if s.target is not None:
                if s.target in self.global_names or s.target in BUILTIN_NAMES:
                    self.error("shadowed-name", s.span, f"'{s.target}' would hide the global name '{s.target}'", "pick another name")
                env[s.target] = T.record_type(s.event.name) if s.event.name in self.events else T.ANY

    def cause(self, s, env: dict) -> None:
        if s.cause is not None:
            t = self.expr(s.cause, env)
            if t.name not in ("text", "enum", "any"):
                self.error("type-mismatch", s.cause.span, f"a cause is a text or an enum member, not {t}")

    def field_lvalue(self, lv: A.LValue, env: dict) -> T.Type:
        """The type of a field written through a name: this.n, stack_top.target, r.amount."""
        if len(lv.path) > 1:
            self.error("misused-name", lv.span, "only one field deep can be assigned (like this.n)")
            return T.ANY
        base = A.Name(lv.name, lv.span)
        t = self.expr(base, env)
        field = lv.path[0]
        if t == T.ANY:
            return T.ANY
        if t == T.ENTRY:
            if field in WRITABLE_ENTRY_FIELDS:
                return ENTRY_FIELDS[field][0]
            ft = self.entry_field_type(field)
            if ft is None:
                self.error("misused-name", lv.span, f"a stack entry's '{field}' cannot be assigned" if field in ENTRY_FIELDS
                           else f"no effect has a field '{field}'",
                           did_you_mean(field, [f for fs in self.effect_fields.values() for f in fs]))
                return T.ANY
            return ft
        if t.name == "record":
            params = dict(self.event_params(t.enum))
            if field not in params:
                self.error("unknown-name", lv.span, f"event '{t.enum}' has no field '{field}'", did_you_mean(field, params))
                return T.ANY
            return params[field]
        self.error("unknown-name", lv.span, f"{t} has no fields that can be assigned")
        return T.ANY

    def entry_field_type(self, field: str) -> Optional[T.Type]:
        """The type of a field some effect declares (the same in every effect that has it)."""
        found = [fs[field] for fs in self.effect_fields.values() if field in fs]
        return found[0] if found else None

    def not_a_variable(self, lv: A.LValue, env: dict) -> T.Type:
        """Report an assignment to something that is not a variable; returns ANY."""
        n = lv.name
        if n in self.zones:
            self.error("misused-name", lv.span, f"'{n}' is a zone, not a variable: zones change with move, deal and play")
        elif n in self.options:
            self.error("misused-name", lv.span, f"'{n}' is an option: options are fixed for the whole game")
        elif n in self.enum_member:
            self.error("misused-name", lv.span, f"'{n}' is a member of enum {self.enum_member[n]}, not a variable")
        elif n in env or n in BUILTIN_NAMES:
            self.error("per-player", lv.span, f"'{n}' cannot be indexed: only a per-player variable can be assigned with [...]")
        else:
            self.error("unknown-name", lv.span, f"unknown variable '{n}'", did_you_mean(n, list(self.vars) + list(env)))
        if lv.index is not None:
            self.expr(lv.index, env)
        return T.ANY

    def lvalue(self, lv: A.LValue, env: dict) -> T.Type:
        if lv.index is None:
            if lv.name in env:
                return env[lv.name]
            if lv.name in BUILTIN_NAMES:
                t, assignable, _ = BUILTIN_NAMES[lv.name]
                if not assignable:
                    self.error("misused-name", lv.span, f"'{lv.name}' cannot be assigned")
                    return T.ANY
                return t
            v = self.vars.get(lv.name)
            if v is None:
                return self.not_a_variable(lv, env)
            self.used.add(lv.name)
            if v.per_player:
                self.error("per-player", lv.span, f"'{lv.name}' is per player: say whose, like {lv.name}[active]")
                return T.ANY
            return v.type
        v = self.vars.get(lv.name)
        if v is None or lv.name in env:
            return self.not_a_variable(lv, env)
        self.used.add(lv.name)
        self.expect(lv.index, self.expr(lv.index, env), T.PLAYER, "the index of a per-player variable")
        if not v.per_player:
            self.error("per-player", lv.span, f"'{lv.name}' is not per player and cannot be indexed",
                       f"declare it per player: var {lv.name}[player]: ...")
            return T.ANY
        return v.type

    def template(self, lit: A.StrLit, env: dict) -> None:
        try:
            from ..parser import parse_template
            parts = parse_template(lit, self.path, self.rules.source)
        except RulesError as e:
            self.diags.extend(e.diagnostics)
            return
        for p in parts:
            if isinstance(p, A.Expr):
                self.expr(p, env)
        self.templates[lit] = parts
