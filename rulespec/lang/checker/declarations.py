"""The first pass: the symbol table.  Every top-level declaration is collected and named once
(enums first, since types may name them; cards last, since they need properties), before any
body is read.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .. import types as T
from ..diagnostics import did_you_mean
from ..model import Ability, CardInfo, EnumInfo, OptionInfo, PropertyInfo, VarInfo, ZoneInfo
from ..setup_values import (MAX_SETUPS, SetupError, enum_orders, evaluate, not_a_setup_value, option_values,
                            options_read, setup_words, setups)
from .expressions import const_int
from .vocabulary import (BUILTIN_EVENTS, BUILTIN_FUNCS, BUILTIN_NAMES, MAX_CARDS, MAX_PLAYERS, QUANTIFIERS,
                         RESERVED_WORDS, TOP_PUBLIC, ZONE_KINDS, ZONE_VISIBILITY)


class DeclarationsPass:
    """Mixin of the Checker: fills its tables (zones, vars, defs, actions, phases, cards, ...)."""

    def declare(self, name: str, kind: str, span: A.Span) -> bool:
        if name in RESERVED_WORDS:
            self.error("reserved-name", span, f"'{name}' is a reserved word of the language and cannot name {_what(kind)}",
                       f"in an expression '{name}' is always the language's own word: pick another name")
            return False
        if name in BUILTIN_NAMES or name in QUANTIFIERS:
            self.error("builtin-name", span, f"'{name}' is a built-in name and cannot be declared")
            return False
        if name in self.global_names:
            other_kind, other = self.global_names[name]
            hint = None
            if kind.startswith("a member of enum") or other_kind.startswith("a member of enum"):
                hint = ("enum members share one namespace with zones, variables, options and functions "
                        "(a bare name must say one thing); rename one of them")
            self.error("duplicate", span, f"'{name}' is already declared (as {other_kind}, line {other.line})", hint)
            return False
        self.global_names[name] = (kind, span)
        return True

    def resolve_type(self, ref: A.TypeRef) -> T.Type:
        if ref.name == "list":
            return T.list_of(self.resolve_type(ref.elem))
        if ref.name in T.SIMPLE:
            return T.SIMPLE[ref.name]
        if ref.name in self.enums:
            return T.enum_type(ref.name)
        self.error("unknown-name", ref.span, f"unknown type '{ref.name}'",
                   did_you_mean(ref.name, list(T.SIMPLE) + list(self.enums)))
        return T.ANY

    def collect(self) -> None:
        decls = self.rules.decls
        # enums first: types may name them
        for d in decls:
            if isinstance(d, A.EnumDecl) and self.declare(d.name, "an enum", d.span):
                members = []
                for m in d.members:
                    if m.name in self.enum_member or m.name in members:
                        self.error("duplicate", m.span, f"enum member '{m.name}' is already declared")
                    elif self.declare(m.name, f"a member of enum {d.name}", m.span):
                        members.append(m.name)
                        self.enum_member[m.name] = d.name
                self.enums[d.name] = EnumInfo(d.name, members, d.doc)
        for d in decls:
            if isinstance(d, A.GameDecl):
                if self.game is not None:
                    self.error("duplicate", d.span, "a rules file has exactly one 'game' block; this is the second")
                else:
                    self.game = d
                    if not (1 <= d.min_players <= d.max_players):
                        self.error("out-of-range", d.span, f"players {d.min_players}..{d.max_players} is not a valid range")
                    elif d.max_players > MAX_PLAYERS:
                        self.error("out-of-range", d.span, f"players {d.min_players}..{d.max_players}: a game is for at most "
                                           f"{MAX_PLAYERS} players")
            elif isinstance(d, A.PropertyDecl):
                if d.name in self.properties:
                    self.error("duplicate", d.span, f"property '{d.name}' is already declared")
                elif d.name in ("name", "copies"):
                    self.error("builtin-name", d.span, f"'{d.name}' is built into every card and cannot be declared")
                else:
                    self.properties[d.name] = PropertyInfo(d.name, self.resolve_type(d.type), d.doc)
            elif isinstance(d, A.OptionDecl):
                if self.declare(d.name, "an option", d.span):
                    t = self.resolve_type(d.type)
                    default = self.constant(d.default, t)
                    values = self.option_values(d, t, default) if d.values is not None else None
                    self.options[d.name] = OptionInfo(d.name, t, default, d.doc, d, values)
            elif isinstance(d, A.ZoneDecl):
                if self.declare(d.name, "a zone", d.span):
                    self.zones[d.name] = self.zone_info(d)
            elif isinstance(d, A.VarDecl):
                if self.declare(d.name, "a variable", d.span):
                    self.vars[d.name] = VarInfo(d.name, d.per_player, self.resolve_type(d.type), d.default, d.doc, d)
            elif isinstance(d, A.DefDecl):
                if self.declare(d.name, "a function", d.span):
                    if d.name in BUILTIN_FUNCS:
                        self.error("builtin-name", d.span, f"'{d.name}' is a built-in function and cannot be redefined")
                    self.defs[d.name] = d
                    seen = set()
                    for prm in d.params:
                        if prm.name in seen:
                            self.error("duplicate", prm.span, f"parameter '{prm.name}' is declared twice")
                        seen.add(prm.name)
                    # a def may give a zone itself ('def where_to(p: player): zone = ...'), to move into
                    rt = T.ZONE if d.rtype.name == "zone" and d.rtype.elem is None else self.resolve_type(d.rtype)
                    self.def_sigs[d.name] = (tuple(self.resolve_type(prm.type) for prm in d.params), rt)
            elif isinstance(d, (A.ActionDecl, A.ConversionDecl, A.ModifyDecl)):
                self.register(d)
            elif isinstance(d, A.CardDecl):
                for group in d.abilities:
                    for item in group.items:
                        self.abilities[item] = Ability(d.name, group, item)
                        self.register(item)
            elif isinstance(d, A.RuleDecl):
                if self.declare(d.name, "a rule value", d.span):
                    if d.name in BUILTIN_FUNCS:
                        self.error("builtin-name", d.span, f"'{d.name}' is a built-in function and cannot be redefined")
                    self.rules_[d.name] = d
                    self.rule_sigs[d.name] = (tuple(self.resolve_type(prm.type) for prm in d.params),
                                              self.resolve_type(d.rtype))
            elif isinstance(d, A.PhaseDecl):
                if d.name in self.phases:
                    self.error("duplicate", d.span, f"phase '{d.name}' is already declared (line {self.phases[d.name].span.line})")
                else:
                    self.phases[d.name] = d
            elif isinstance(d, A.InvariantDecl):
                self.invariants.append(d)
            elif isinstance(d, A.EffectDecl):
                if d.name in self.effects:
                    self.error("duplicate", d.span, f"effect '{d.name}' is already declared (line {self.effects[d.name].span.line})")
                else:
                    self.effects[d.name] = d
                    self.effect_tags.update(t.name for t in d.tags)
                    self.effect_fields[d.name] = {f.name: self.resolve_type(f.type) for f in d.fields}
            elif isinstance(d, A.EventDecl):
                if d.name in self.events or d.name in BUILTIN_EVENTS:
                    self.error("duplicate", d.span, f"event '{d.name}' is already declared")
                else:
                    self.events[d.name] = d
            elif isinstance(d, A.TriggerDecl):
                self.register(d)
            elif isinstance(d, A.DisplayDecl):
                self.display_decls.append(d)
        # cards need properties and enums
        for d in decls:
            if isinstance(d, A.CardDecl):
                self.card_info(d)
        self.display = self.check_display(self.display_decls)  # every name it may list is known now
        if self.game is None:
            self.error("missing-declaration", A.NOWHERE, "there is no 'game' block", "start the file with: game \"Name\" { players 2..4 }")
        if not self.phases:
            self.error("missing-declaration", self.game.span if self.game else A.NOWHERE, "the game declares no phase",
                       "add: phase play { ... }")
        if not self.cards:
            self.warning("no-cards", A.NOWHERE, "the game declares no card")
        g = self.game
        if g is not None:
            if g.start is not None and g.start.name not in self.phases:
                self.error("unknown-name", g.start.span, f"unknown phase '{g.start.name}'", did_you_mean(g.start.name, self.phases))
            if g.cards_start is not None:
                self.use_zone(g.cards_start.name, g.cards_start.span, shared_only=True)
            elif self.cards:
                self.error("missing-declaration", g.span, "the game does not say where the cards start",
                           "add to the game block: cards start in <zone>")

    def option_values(self, d: A.OptionDecl, t: T.Type, default) -> Optional[tuple]:
        """``option seat: int in 1..4 = 1``: (lo, hi), the only values the option may take."""
        r = d.values
        if t != T.INT:
            self.error("out-of-range", r.span, f"only an int option takes a range of values ('{d.name}' is {t})")
            return None
        lo, hi = (const_int(r.lo), const_int(r.hi)) if isinstance(r, A.Range) else (None, None)
        if lo is None or hi is None:
            self.error("out-of-range", r.span, "an option's values are a range of two whole numbers, like 1..4")
            return None
        self.types.update({r: T.list_of(T.INT), r.lo: T.INT, r.hi: T.INT})  # (not a list to build: no size limit)
        if lo > hi:
            self.error("out-of-range", r.span, f"the range {lo}..{hi} holds no number")
            return None
        if isinstance(default, int) and not lo <= default <= hi:
            self.error("out-of-range", d.default.span, f"the default {default} of option '{d.name}' is not in {lo}..{hi}")
        return (lo, hi)

    def register(self, d) -> None:
        """Declarations that may stand at the top level or inside a card's abilities."""
        if isinstance(d, A.ActionDecl):
            if d.name in self.actions:
                self.error("duplicate", d.span, f"action '{d.name}' is already declared (line {self.actions[d.name].span.line})")
            else:
                self.actions[d.name] = d
        elif isinstance(d, A.TriggerDecl):
            if any(t.name == d.name for t in self.triggers):
                self.error("duplicate", d.span, f"trigger '{d.name}' is already declared")
            self.triggers.append(d)
        elif isinstance(d, A.ConversionDecl):
            if d.name in self.conversions:
                self.error("duplicate", d.span, f"conversion '{d.name}' is already declared "
                                   f"(line {self.conversions[d.name].span.line})")
            else:
                self.conversions[d.name] = d
        elif isinstance(d, A.ModifyDecl):
            self.modifies.append(d)

    def ability_env(self, d) -> dict:
        """The names a declaration carried by a card may use: its owner and the card itself."""
        return {"owner": T.PLAYER, "self": T.CARD} if d in self.abilities else {}

    def zone_info(self, d: A.ZoneDecl) -> ZoneInfo:
        kind, vis = "pile", "public"
        seen_kind = seen_vis = None  # the attribute that said it (for its position)
        attrs = list(d.attrs)
        i = 0
        while i < len(attrs):
            a = attrs[i]
            word = a.name
            if word == TOP_PUBLIC[0] and i + 1 < len(attrs) and attrs[i + 1].name == TOP_PUBLIC[1]:
                word = "top"  # `top public`: two words, one visibility
                i += 1
            elif word == TOP_PUBLIC[0]:
                word = "top alone"  # (not a visibility)
            i += 1
            if word in (kind if seen_kind else None, vis if seen_vis else None):
                self.error("duplicate", a.span, f"zone '{d.name}' says '{_vis_words(word)}' twice")
            elif word in ZONE_KINDS:
                if seen_kind:
                    self.error("duplicate", a.span, f"zone '{d.name}' has two kinds ('{kind}' and '{word}')")
                kind, seen_kind = word, a
            elif word in ZONE_VISIBILITY or word == "top":
                if seen_vis:
                    self.error("duplicate", a.span, f"zone '{d.name}' has two visibilities ('{_vis_words(vis)}' and "
                                       f"'{_vis_words(word)}')")
                vis, seen_vis = word, a
            elif word == "top alone":
                self.error("unknown-name", a.span, f"unknown zone attribute '{a.name}'",
                           "a pile whose top card everyone sees and the rest nobody is written 'top public'")
            else:
                self.error("unknown-name", a.span, f"unknown zone attribute '{word}'",
                           did_you_mean(word, ZONE_KINDS | ZONE_VISIBILITY) or
                           "a zone is pile, set or plays, and public, owner, others, hidden or top public")
        if vis in ("owner", "others") and not d.per_player:
            whom = "to see it" if vis == "owner" else "to hide it from"
            self.error("per-player", d.span, f"zone '{d.name}' is shared, so it has no owner {whom}",
                       "declare it per player (zone name[player]: ...) or make it public or hidden")
        if vis == "top" and kind == "set":
            self.error("misuse", seen_vis.span, f"zone '{d.name}' is a set, which has no top card to show",
                       "make it a pile (or plays), whose top is its last card")
        capacity = d.capacity.value if d.capacity is not None else None
        if capacity is not None and capacity < 1:
            self.error("misuse", d.capacity.span, f"zone '{d.name}' would hold at most {capacity} cards",
                       "a zone's capacity is a whole number of cards, 1 or more (leave it out for no limit)")
            capacity = None
        return ZoneInfo(d.name, d.per_player, kind, vis, d.doc, d, capacity)

    def constant(self, e: A.Expr, t: T.Type):
        """Evaluate a constant (a literal or an enum member) of type t."""
        if isinstance(e, A.IntLit) and t in (T.INT, T.ANY):
            return e.value
        if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit) and t in (T.INT, T.ANY):
            return -e.operand.value
        if isinstance(e, A.BoolLit) and t in (T.BOOL, T.ANY):
            return e.value
        if isinstance(e, A.StrLit) and t in (T.TEXT, T.ANY):
            return e.value
        if isinstance(e, A.NoneLit) and t.name in T.NULLABLE | {"enum"}:
            return None
        if isinstance(e, A.Name) and t.name == "enum":
            if self.enum_member.get(e.name) == t.enum:
                return e.name
            self.error("unknown-name", e.span, f"'{e.name}' is not a member of {t.enum}",
                       did_you_mean(e.name, self.enums[t.enum].members) if t.enum in self.enums else None)
            return None
        if t == T.ANY:
            return None
        self.error("type-mismatch", e.span, f"expected a constant of type {t}")
        return None

    def card_info(self, d: A.CardDecl) -> None:
        props = {}
        copies = 1
        seen_copies = False
        copies_expr = None  # copies that depend on the setup (the player count, the options)
        for f in d.fields:
            if f.name == "copies":
                if seen_copies:
                    self.error("duplicate", f.span, "'copies' is given twice")
                seen_copies = True
                if const_int(f.value) is None:
                    copies, copies_expr = self.setup_copies(d, f.value)
                    continue
                copies = self.constant(f.value, T.INT)
                if isinstance(copies, int) and copies < 1:
                    self.error("card-copies", f.value.span, "a card needs at least 1 copy")
                    copies = 1
                elif isinstance(copies, int) and copies > MAX_CARDS:
                    self.error("card-copies", f.value.span, f"{copies} copies is too many: a deck holds at most {MAX_CARDS} cards")
                    copies = 1
                continue
            info = self.properties.get(f.name)
            if info is None:
                self.error("unknown-name", f.span, f"unknown card property '{f.name}'",
                           did_you_mean(f.name, list(self.properties) + ["copies"]))
                continue
            if f.name in props:
                self.error("duplicate", f.span, f"property '{f.name}' is given twice")
            props[f.name] = self.constant(f.value, info.type)
        for name, info in self.properties.items():
            if name not in props:
                props[name] = {"int": 0, "bool": False, "text": ""}.get(info.type.name)
        copy_props = []
        if d.copies:
            if seen_copies:
                self.error("card-copies", d.span, f"card '{d.name}' gives both 'copies' and 'copy' blocks",
                           "with 'copy { ... }' blocks, each block is one physical card")
            for fields in d.copies:
                own = dict(props)
                seen = set()
                for f in fields:
                    info = self.properties.get(f.name)
                    if info is None:
                        self.error("unknown-name", f.span, f"unknown card property '{f.name}'", did_you_mean(f.name, self.properties))
                        continue
                    if f.name in seen:
                        self.error("duplicate", f.span, f"property '{f.name}' is given twice")
                    seen.add(f.name)
                    own[f.name] = self.constant(f.value, info.type)
                copy_props.append(own)
            copies = len(d.copies)
        if d.name in self.card_names:
            self.error("duplicate", d.span, f"card '{d.name}' is already declared", "give it more copies instead")
            return
        copies = copies if isinstance(copies, int) else 1
        total = self.deck_size
        if total <= MAX_CARDS < total + copies:
            self.error("card-copies", d.span, f"with card '{d.name}' the deck holds {total + copies} cards; at most {MAX_CARDS}")
        self.cards.append(CardInfo(d.name, props, copies, d.doc, copy_props, d.abilities, copies_expr))
        self.card_names.add(d.name)
        self.deck_size += copies

    def setup_copies(self, d: A.CardDecl, e: A.Expr) -> tuple:
        """``copies: EXPR`` of the player count and the options: (the most copies any setup has,
        EXPR), or (that number, None) when EXPR reads neither.  Works EXPR out for every setup."""
        t = self.expr(e, {})
        if t not in (T.INT, T.ANY):
            self.error("card-copies", e.span, f"a card's copies must be int, not {t}")
            return 1, None
        bad = not_a_setup_value(e, self.refs)
        if bad is not None:
            self.error("card-copies", bad.span, "a card's copies may read only the setup: player_count, the options and constants",
                       "for example: copies: if player_count <= 4 then 1 else 2")
            return 1, None
        if self.game is None:
            return 1, None
        names = options_read(e, self.refs)
        values = [option_values(self.options[n], self.enums) for n in names]
        for n, vs in zip(names, values):
            if vs is None:
                at = next(x for x in _names_in(e) if x.name == n)
                self.error("card-copies", at.span, f"copies read option '{n}', whose values cannot all be tried",
                           f"give it a range: option {n}: int in 1..4 = ..." if self.options[n].type == T.INT
                           else "only yes/no, enum and ranged int options may set how many copies a card has")
                return 1, None
        total = self.game.max_players - self.game.min_players + 1
        for vs in values:
            total *= len(vs)
        if total > MAX_SETUPS:
            self.error("card-copies", e.span, f"copies depend on {total:,} setups (player counts and option values): at most "
                               f"{MAX_SETUPS:,} can be tried")
            return 1, None
        order = enum_orders(self)
        most = None
        for n, opts in setups(self.game.min_players, self.game.max_players, names, values):
            setup = setup_words(n, opts)
            try:
                k = evaluate(e, self.refs, order, n, opts)
            except SetupError as err:
                self.error("card-copies", err.node.span, f"the copies of card '{d.name}' {err} {setup}")
                return 1, None
            if k < 0 or k > MAX_CARDS:
                self.error("card-copies", e.span, f"card '{d.name}' would have {k} copies {setup}: "
                                   f"{'at least 0' if k < 0 else f'at most {MAX_CARDS}'}")
                return 1, None
            most = k if most is None else max(most, k)
        if most == 0:
            self.error("card-copies", e.span, f"card '{d.name}' has no copy in any game: its copies are 0 with every setup")
            return 1, None
        depends = bool(names) or any(self.refs.get(x) == ("builtin", "player_count") for x in _names_in(e))
        return most, (e if depends else None)


def _names_in(e: A.Expr) -> list:
    """Every Name in expression e."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Name):
            out.append(x)
        stack.extend(A.children(x))
    return out


def _what(kind: str) -> str:
    """'a member of enum Colour' -> 'a member of an enum'; 'a zone' stays."""
    return "a member of an enum" if kind.startswith("a member of enum") else kind


def _vis_words(vis: str) -> str:
    """A visibility as the rules write it (the model's "top" is `top public`)."""
    return " ".join(TOP_PUBLIC) if vis == "top" else vis
