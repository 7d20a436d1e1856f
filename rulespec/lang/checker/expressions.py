"""Expression typing: every expression gets a type (Checker.types) and every name what it refers
to (Checker.refs); misuse is reported where it is written.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .. import types as T
from ..diagnostics import did_you_mean
from .vocabulary import BUILTIN_FUNCS, BUILTIN_NAMES, ENTRY_FIELDS, MAX_RANGE, USE_FIELDS


class ExpressionsPass:
    """Mixin of the Checker: types expressions in an environment of local names (env)."""

    def expect(self, e: A.Expr, got: T.Type, want: T.Type, what: str) -> None:
        self.expect_at(e.span, got, want, what)

    def expect_at(self, span: A.Span, got: T.Type, want: T.Type, what: str) -> None:
        if not T.assignable(want, got):
            self.error("type-mismatch", span, f"{what} must be {want}, not {got}")

    def expect_cards(self, e: A.Expr, t: T.Type) -> None:
        if t not in (T.ANY, T.ZONE, T.CARDS) and not (t.name == "list" and t.elem in (None, T.ANY)):
            self.error("type-mismatch", e.span, f"expected cards (a zone or a list of cards), not {t}")

    def expect_zone(self, e: A.Expr, t: T.Type) -> None:
        if t not in (T.ZONE, T.ANY):
            self.error("type-mismatch", e.span, f"expected a zone, not {t}")

    def known(self, name: str, env: dict) -> bool:
        return (name in env or name in BUILTIN_NAMES or name in self.vars or name in self.zones
                or name in self.options or name in self.enum_member)

    def zexpr(self, e: A.Expr, env: dict, only_zone: bool = True) -> T.Type:
        """Type an expression that stands where a zone is expected: a misspelt name there
        is reported as an unknown zone (when only a zone fits, or when it resembles one)."""
        base = e.obj if isinstance(e, A.Index) else e
        if isinstance(base, A.Name) and not self.known(base.name, env):
            hint = did_you_mean(base.name, self.zones)
            if only_zone or hint:
                self.error("unknown-name", base.span, f"unknown zone '{base.name}'", hint)
                self.types[base] = T.ANY
                if isinstance(e, A.Index):
                    self.expr(e.index, env)
                self.types[e] = T.ANY
                return T.ANY
        return self.expr(e, env)

    def zone_of(self, e: A.Expr):
        ref = self.refs.get(e)
        if ref and ref[0] in ("zone", "pzone"):
            return ref[1]
        return None

    def use_zone(self, name: str, span: A.Span, shared_only: bool = False):
        z = self.zones.get(name)
        if z is None:
            self.error("unknown-name", span, f"unknown zone '{name}'", did_you_mean(name, self.zones))
            return None
        self.used.add(name)
        if shared_only and z.per_player:
            self.error("per-player", span, f"zone '{name}' is per player; the cards must start in a shared zone")
        return z

    def expr(self, e: A.Expr, env: dict) -> T.Type:
        t = self._expr(e, env)
        self.types[e] = t
        return t

    def _expr(self, e, env) -> T.Type:
        if isinstance(e, A.IntLit):
            return T.INT
        if isinstance(e, A.StrLit):
            return T.TEXT
        if isinstance(e, A.TextTemplate):
            for p in e.parts:
                if isinstance(p, A.Expr):
                    self.expr(p, env)
            return T.TEXT
        if isinstance(e, A.BoolLit):
            return T.BOOL
        if isinstance(e, A.NoneLit):
            return T.NONE
        if isinstance(e, A.Name):
            return self._name(e, env)
        if isinstance(e, A.Attr):
            return self._attr(e, env)
        if isinstance(e, A.Index):
            return self._index(e, env)
        if isinstance(e, A.Call):
            return self._call(e, env)
        if isinstance(e, A.ListLit):
            t = T.ANY
            for item in e.items:
                it = self.expr(item, env)
                if t != T.ANY and not T.comparable(t, it):
                    self.error("type-mismatch", item.span, f"a list mixes {t} and {it}")
                t = T.unify(t, it)
            return T.list_of(t)
        if isinstance(e, A.Unary):
            t = self.expr(e.operand, env)
            if e.op == "-":
                self.expect(e.operand, t, T.INT, "'-'")
                return T.INT
            self.expect(e.operand, t, T.BOOL, "'not'")
            return T.BOOL
        if isinstance(e, A.Chain):
            return self._chain(e, env)
        if isinstance(e, A.BinOp):
            return self._binop(e, env)
        if isinstance(e, A.Range):
            self.expect(e.lo, self.expr(e.lo, env), T.INT, "a range bound")
            self.expect(e.hi, self.expr(e.hi, env), T.INT, "a range bound")
            lo, hi = const_int(e.lo), const_int(e.hi)
            if lo is not None and hi is not None and hi - lo + 1 > MAX_RANGE:
                self.error("out-of-range", e.span, f"the range {lo}..{hi} holds {hi - lo + 1} numbers; at most {MAX_RANGE}")
            return T.list_of(T.INT)
        if isinstance(e, A.IfExpr):
            self.expect(e.cond, self.expr(e.cond, env), T.BOOL, "a condition")
            a = self.expr(e.then, env)
            b = self.expr(e.else_, env)
            if not T.comparable(a, b):
                self.error("type-mismatch", e.span, f"the two branches have different types ({a} and {b})")
            return T.unify(a, b)
        if isinstance(e, A.Quant):
            return self._quant(e, env)
        if isinstance(e, A.LetExpr):
            t = self.expr(e.value, env)
            return self.expr(e.body, {**env, e.var: T.CARDS if t.name == "zone" else t})
        self.error("misuse", e.span, "unsupported expression")
        return T.ANY

    def _name(self, e: A.Name, env) -> T.Type:
        n = e.name
        if n in env:
            self.refs[e] = ("local", n)
            return env[n]
        if n in BUILTIN_NAMES:
            self.refs[e] = ("builtin", n)
            return BUILTIN_NAMES[n][0]
        if n in self.vars:
            v = self.vars[n]
            self.used.add(n)
            if v.per_player:
                self.error("per-player", e.span, f"'{n}' is per player: say whose, like {n}[active]")
                return T.ANY
            self.refs[e] = ("var", v)
            return v.type
        if n in self.zones:
            z = self.zones[n]
            self.used.add(n)
            if z.per_player:
                self.error("per-player", e.span, f"zone '{n}' is per player: say whose, like {n}[active]")
                return T.ANY
            self.refs[e] = ("zone", z)
            return T.ZONE
        if n in self.options:
            self.used.add(n)
            self.refs[e] = ("option", n)
            return self.options[n].type
        if n in self.enum_member:
            self.refs[e] = ("enum", n)
            return T.enum_type(self.enum_member[n])
        if n in self.defs or n in BUILTIN_FUNCS:
            self.error("misused-name", e.span, f"'{n}' is a function: call it, like {n}(...)")
            return T.ANY
        candidates = list(env) + list(BUILTIN_NAMES) + list(self.vars) + list(self.zones) + \
            list(self.options) + list(self.enum_member)
        self.error("unknown-name", e.span, f"unknown name '{n}'", did_you_mean(n, candidates))
        return T.ANY

    def _attr(self, e: A.Attr, env) -> T.Type:
        t = self.expr(e.obj, env)
        if t == T.ANY:
            return T.ANY
        if t == T.CARD:
            if e.name == "name":
                self.refs[e] = ("card_name",)
                return T.TEXT
            p = self.properties.get(e.name)
            if p is None:
                self.error("unknown-name", e.span, f"cards have no property '{e.name}'", did_you_mean(e.name, list(self.properties) + ["name"]))
                return T.ANY
            self.refs[e] = ("prop", e.name)
            return p.type
        if t == T.ENTRY:
            if e.name in ENTRY_FIELDS:
                self.refs[e] = ("entry_field", e.name)
                return ENTRY_FIELDS[e.name][0]
            ft = self.entry_field_type(e.name)
            if ft is None:
                self.error("unknown-name", e.span, f"a stack entry has no field '{e.name}'",
                           did_you_mean(e.name, list(ENTRY_FIELDS) + [f for fs in self.effect_fields.values()
                                                                     for f in fs]))
                return T.ANY
            self.refs[e] = ("entry_data", e.name)
            return ft
        if t.name == "record":
            params = dict(self.event_params(t.enum))
            params["prevented"] = T.BOOL
            if e.name not in params:
                self.error("unknown-name", e.span, f"the record of event '{t.enum}' has no field '{e.name}'",
                           did_you_mean(e.name, params))
                return T.ANY
            self.refs[e] = ("record_field", e.name)
            return params[e.name]
        if t == T.USE:
            if e.name in USE_FIELDS:
                self.refs[e] = ("use_field", e.name)
                return USE_FIELDS[e.name][0]
            p = self.properties.get(e.name)
            if p is None:
                self.error("unknown-name", e.span, f"a used card has no field '{e.name}'",
                           did_you_mean(e.name, list(USE_FIELDS) + list(self.properties)))
                return T.ANY
            self.refs[e] = ("use_field", e.name)
            return p.type
        if t == T.PLAY:
            fields = {"player": T.PLAYER, "cards": T.CARDS, "size": T.INT}
            if e.name not in fields:
                self.error("unknown-name", e.span, f"a play has no field '{e.name}'", did_you_mean(e.name, fields))
                return T.ANY
            self.refs[e] = ("play_field", e.name)
            return fields[e.name]
        self.error("unknown-name", e.span, f"{t} has no field '{e.name}'")
        return T.ANY

    def _index(self, e: A.Index, env) -> T.Type:
        if isinstance(e.obj, A.Name) and e.obj.name not in env:
            n = e.obj.name
            if n in self.vars and self.vars[n].per_player:
                self.used.add(n)
                self.expect(e.index, self.expr(e.index, env), T.PLAYER, "the index of a per-player variable")
                self.refs[e] = ("pvar", self.vars[n])
                return self.vars[n].type
            if n in self.zones and self.zones[n].per_player:
                self.used.add(n)
                self.expect(e.index, self.expr(e.index, env), T.PLAYER, "the index of a per-player zone")
                self.refs[e] = ("pzone", self.zones[n])
                return T.ZONE
        t = self.expr(e.obj, env)
        it = self.expr(e.index, env)
        if it == T.PLAYER and isinstance(e.obj, A.Name) and e.obj.name not in env \
                and (e.obj.name in self.zones or e.obj.name in self.vars):
            kind = "zone" if e.obj.name in self.zones else "variable"
            self.error("per-player", e.span, f"{kind} '{e.obj.name}' is shared, not per player, so it cannot be indexed by a player",
                       f"declare it per player: {e.obj.name}[player]")
            return T.ANY
        if T.is_list(t):
            self.expect(e.index, it, T.INT, "a list index")
            self.refs[e] = ("list",)
            return T.elem_of(t)
        if t != T.ANY:
            self.error("per-player", e.span, f"{t} cannot be indexed")
        return T.ANY

    def _call(self, e: A.Call, env) -> T.Type:
        zone_arg = e.func in ("top", "bottom", "plays", "cards") and e.func not in self.defs
        args = [self.zexpr(a, env) if zone_arg and i == 0 else self.expr(a, env) for i, a in enumerate(e.args)]
        if e.func in self.rules_:
            r = self.rules_[e.func]
            self.used.add(e.func)
            self.refs[e] = ("rule", r)
            ptypes, rt = self.rule_sigs[e.func]
            if len(args) != len(r.params):
                self.error("arity", e.span, f"'{e.func}' takes {len(r.params)} argument(s), not {len(args)}")
            else:
                for a, at, p, pt in zip(e.args, args, r.params, ptypes):
                    self.expect(a, at, pt, f"argument '{p.name}' of '{e.func}'")
            return rt
        if e.func in self.defs:
            d = self.defs[e.func]
            self.used.add(e.func)
            self.refs[e] = ("def", d)
            ptypes, rt = self.def_sigs[e.func]
            if len(args) != len(d.params):
                self.error("arity", e.span, f"'{e.func}' takes {len(d.params)} argument(s), not {len(args)}")
            else:
                for a, at, p, pt in zip(e.args, args, d.params, ptypes):
                    self.expect(a, at, pt, f"argument '{p.name}' of '{e.func}'")
            return rt
        if e.func not in BUILTIN_FUNCS:
            self.error("unknown-name", e.span, f"unknown function '{e.func}'", did_you_mean(e.func, list(self.defs) + list(BUILTIN_FUNCS)))
            return T.ANY
        self.refs[e] = ("builtin_func", e.func)

        def arity(n):
            if len(args) != n:
                self.error("arity", e.span, f"'{e.func}' takes {n} argument(s), not {len(args)}")
                return False
            return True
        f = e.func
        if f == "reversed":
            if not arity(1):
                return T.ANY
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error("type-mismatch", e.args[0].span, f"'reversed' needs a list, not {args[0]}")
                return T.ANY
            return T.CARDS if args[0].name == "zone" else args[0]
        if f == "revealed":
            if arity(1):
                self.expect(e.args[0], args[0], T.CARD, "the argument of 'revealed'")
            return T.BOOL
        if f == "sees":
            if arity(2):
                self.expect(e.args[0], args[0], T.PLAYER, "who sees, in 'sees'")
                self.expect(e.args[1], args[1], T.CARD, "the card seen, in 'sees'")
            return T.BOOL
        if f in ("subsets", "combinations"):
            if not arity(1 if f == "subsets" else 2):
                return T.ANY
            if f == "combinations":
                self.expect(e.args[1], args[1], T.INT, "the size of the combinations")
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error("type-mismatch", e.args[0].span, f"'{f}' needs a list, not {args[0]}")
                return T.ANY
            return T.list_of(T.CARDS if args[0].name == "zone" else args[0])
        if f in ("count", "sorted", "distinct", "random"):
            if not arity(1):
                return T.ANY
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error("type-mismatch", e.args[0].span, f"'{f}' needs a list, not {args[0]}")
                return T.ANY
            if f == "count":
                return T.INT
            lt = T.CARDS if args[0].name == "zone" else args[0]
            return T.elem_of(lt) if f == "random" else lt
        if f in ("players_after", "players_from", "next_player", "seat"):
            if arity(1):
                self.expect(e.args[0], args[0], T.PLAYER, f"the argument of '{f}'")
            return {"seat": T.INT, "next_player": T.PLAYER}.get(f, T.PLAYERS)
        if f in ("top", "bottom"):
            if arity(2):
                self.expect_zone(e.args[0], args[0])
                self.expect(e.args[1], args[1], T.INT, "the number of cards")
            return T.CARDS
        if f in ("plays", "cards"):
            if arity(1):
                self.expect_zone(e.args[0], args[0])
                z = self.zone_of(e.args[0])
                if f == "plays" and z is not None and z.kind != "plays":
                    self.error("type-mismatch", e.args[0].span, f"zone '{z.name}' is a {z.kind}, not a plays zone")
            return T.list_of(T.PLAY) if f == "plays" else T.CARDS
        if f in ("max", "min"):
            if arity(2) and T.ordered_enum(args[0]) and args[1] in (args[0], T.ANY):
                return args[0]  # of two members of one enum, the later (or earlier) one
            if len(args) == 2:
                for a, at in zip(e.args, args):
                    self.expect(a, at, T.INT, f"an argument of '{f}'")
            return T.INT
        if f == "abs":
            if arity(1):
                self.expect(e.args[0], args[0], T.INT, "the argument of 'abs'")
            return T.INT
        if f == "tagged":
            if arity(2):
                self.expect(e.args[0], args[0], T.ENTRY, "the first argument of 'tagged'")
                if not isinstance(e.args[1], A.StrLit):
                    self.error("type-mismatch", e.args[1].span, "the tag must be written as a string, like \"power\"")
                elif e.args[1].value not in self.effects and e.args[1].value not in self.effect_tags:
                    self.error("unknown-name", e.args[1].span, f"unknown effect or effect tag '{e.args[1].value}'",
                               did_you_mean(e.args[1].value, list(self.effects) + list(self.effect_tags)))
            return T.BOOL
        return T.ANY

    def _chain(self, e: A.Chain, env) -> T.Type:
        """a + b - c ...: each operator takes the value so far (the operands before it) as its left."""
        so_far = self.expr(e.operands[0], env)
        for k, (op, right) in enumerate(zip(e.ops, e.operands[1:]), 1):
            so_far = self._operator(op, (e.prefix_span(k), so_far), (right.span, self.expr(right, env)),
                                    e.prefix_span(k + 1))
        return so_far

    def _binop(self, e: A.BinOp, env) -> T.Type:
        t = self._operator(e.op, (e.left.span, self.expr(e.left, env)), (e.right.span, self.expr(e.right, env)),
                           e.span)
        if e.op == "^" and (const_int(e.right) or 0) < 0:
            self.error("type-mismatch", e.right.span, f"a negative power ({const_int(e.right)}) is not a whole number",
                       "a power's exponent is 0 or more")
        return t

    def _operator(self, op: str, left: tuple, right: tuple, span: A.Span) -> T.Type:
        """The type of 'left op right', each side given as (span, type); reports misuse."""
        (left_span, a), (right_span, b) = left, right

        def expect_both(want: T.Type, what: str) -> None:
            self.expect_at(left_span, a, want, what)
            self.expect_at(right_span, b, want, what)

        if op in ("and", "or"):
            expect_both(T.BOOL, f"'{op}'")
            return T.BOOL
        if op == "+" and (T.is_list(a) or T.is_list(b)):
            if not (T.is_list(a) and T.is_list(b)) or not T.comparable(T.elem_of(a), T.elem_of(b)):
                self.error("type-mismatch", span, f"cannot add {a} and {b}")
                return T.ANY
            joined = T.unify(a, b)
            return T.CARDS if joined.name == "zone" else joined  # hand + table: their cards, no zone
        if op == "+" and (a == T.TEXT or b == T.TEXT):  # texts: + joins them
            expect_both(T.TEXT, "'+' joining texts")
            return T.TEXT
        if op in ("+", "-", "*", "/", "%", "^"):
            expect_both(T.INT, f"'{op}'")
            return T.INT
        if op in ("==", "!="):
            if not T.comparable(a, b):
                self.error("type-mismatch", span, f"cannot compare {a} with {b}")
            return T.BOOL
        if op == "in":
            if not T.is_list(b) and b != T.ANY:
                self.error("type-mismatch", right_span, f"'in' needs a list on its right, not {b}")
            elif not T.comparable(T.elem_of(b), a):
                self.error("type-mismatch", span, f"a {a} can never be in a {b}")
            return T.BOOL
        if T.ordered_enum(a) or T.ordered_enum(b):  # members compare in the order the enum declares them
            if T.ANY not in (a, b) and a != b:
                self.error("type-mismatch", span, f"'{op}' compares two members of one enum, not {a} with {b}")
            return T.BOOL
        expect_both(T.INT, f"'{op}'")
        return T.BOOL

    def _quant(self, e: A.Quant, env) -> T.Type:
        dt = self.expr(e.domain, env)
        if not T.is_list(dt) and dt != T.ANY:
            self.error("out-of-range", e.domain.span, f"'{e.kind}' needs a list to range over, not {dt}")
        inner = dict(env)
        et = T.elem_of(dt) if dt != T.ANY else T.ANY
        inner[e.var] = et
        if e.where is not None:
            self.expect(e.where, self.expr(e.where, inner), T.BOOL, "a 'where' condition")
        bt = self.expr(e.body, inner) if e.body is not None else None
        k = e.kind
        if e.ties_last and k not in ("argmax", "argmin"):
            self.error("misuse", e.span, "'ties last' only goes with argmax and argmin")
        if k in ("any", "all", "count", "first"):
            if bt is not None:
                self.expect(e.body, bt, T.BOOL, f"the condition of '{k}'")
            return {"count": T.INT, "first": et}.get(k, T.BOOL)
        if k in ("sum", "max", "min", "argmax", "argmin"):
            if bt is None:
                self.error("type-mismatch", e.span, f"'{k}' needs ': <number>' after its list")
            elif k != "sum" and T.ordered_enum(bt):  # the last (or first) member in the enum's order
                return bt if k in ("max", "min") else et
            else:
                self.expect(e.body, bt, T.INT, f"the value of '{k}'")
            return T.INT if k in ("sum", "max", "min") else et
        # collect
        return T.list_of(bt if bt is not None else et)


def const_int(e: A.Expr) -> Optional[int]:
    """The value of an integer literal, possibly negated, or None."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    return None
