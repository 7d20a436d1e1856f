"""AST -> Model.  Resolves every name, types every expression, analyses the phase graph.

The checker reports every problem it finds (not only the first) as Diagnostics;
``check`` raises RulesError when any of them is an error.
"""
from __future__ import annotations

from typing import Optional

from . import ast as A
from . import types as T
from .diagnostics import Diagnostic, RulesError, did_you_mean
from .graph import build_phase_graph, analyse_phase_graph
from .model import Ability, CardInfo, EnumInfo, Model, OptionInfo, PropertyInfo, VarInfo, ZoneInfo
from . import model_cache
from .gc_pause import no_gc
from .source import read_source  # the parser (and Lark) are imported only to parse: not for a cached model

ZONE_KINDS = {"pile", "set", "plays"}
ZONE_VISIBILITY = {"public", "owner", "hidden"}
QUANTIFIERS = {"any", "all", "count", "sum", "max", "min", "first", "collect", "argmax", "argmin"}
# Limits that keep the engine's tables and action lists a sane size (the checker reports them as errors)
MAX_PLAYERS = 100      # the engine makes max_players instances of every per-player zone
MAX_CARDS = 10_000     # physical cards in the whole deck
MAX_RANGE = 10_000     # numbers in a range written with constant bounds, like 0..5
LIMIT_UNIT = "decisions"  # what a game's 'limit' counts (the State's history: one entry a decision)
MAX_CHOICES = 100_000  # the engine's default limit of candidate choices at one decision (a warning here)

# name -> (type, assignable, description)
BUILTIN_NAMES = {
    "players": (T.PLAYERS, False, "every player, in seat order"),
    "player_count": (T.INT, False, "the number of players"),
    "active": (T.PLAYER, True, "the player whose turn it is"),
    "stack_top": (T.ENTRY, False, "the effect on top of the response stack (none when it is empty)"),
    "stacked": (T.list_of(T.ENTRY), False, "the effects on the response stack, bottom first"),
}

# Events the engine raises by itself: name -> parameters
BUILTIN_EVENTS = {
    "phase_start": (("phase", T.TEXT),),
    "phase_end": (("phase", T.TEXT),),
    "action_taken": (("player", T.PLAYER), ("action", T.TEXT)),
    # every move, deal and play, once per zone the cards come from (only when a trigger listens)
    "moved": (("items", T.CARDS), ("source", T.ZONE), ("dest", T.ZONE), ("mover", T.PLAYER), ("cause", T.TEXT)),
}
TIMINGS = ("before", "on", "after")
COMBINE = {"sum": T.INT, "max": T.INT, "min": T.INT, "any": T.BOOL, "all": T.BOOL}
# Fields of a card as used (a 'use' choice): besides these, every card property
USE_FIELDS = {
    "name": (T.TEXT, "the name it is used as"),
    "cards": (T.CARDS, "the physical cards that make it (none for a conversion without cards)"),
    "via": (T.TEXT, "the conversion that made it, or \"\" for a card used as itself"),
    "giver": (T.CARD, "the card whose ability made the conversion (none for a real card or a rules-wide conversion)"),
}

# Fields of a stack entry
ENTRY_FIELDS = {
    "kind": (T.TEXT, "the name of the effect"),
    "by": (T.PLAYER, "the player who put it on the stack"),
    "target": (T.PLAYER, "the player it targets, or none"),
    "cards": (T.CARDS, "the cards that make it"),
    "against": (T.ENTRY, "the effect it answers, or none"),
    "cancelled": (T.BOOL, "whether it has been cancelled"),
}
WRITABLE_ENTRY_FIELDS = {"by", "target"}  # besides the fields an effect declares

# Builtin functions: name -> description (signatures are checked in Checker._call)
BUILTIN_FUNCS = {
    "count": "the number of items in a list or zone",
    "sorted": "a list sorted in ascending order",
    "distinct": "a list without repeats, first occurrence kept",
    "players_after": "every player clockwise after a player, ending with that player",
    "players_from": "every player clockwise starting with a player",
    "next_player": "the next player clockwise",
    "random": "an item of a list, chosen with the game's random generator",
    "top": "the top n cards of a zone",
    "bottom": "the bottom n cards of a zone",
    "plays": "the plays recorded in a plays zone, oldest first",
    "seat": "a player's seat number, counting from 1",
    "max": "the larger of two numbers",
    "min": "the smaller of two numbers",
    "abs": "the absolute value of a number",
    "cards": "the cards in a zone, as a list",
    "tagged": "whether a stack entry's effect carries a tag (or is that effect)",
    "reversed": "a list in the opposite order",
    "revealed": "whether a card's face is shown to every player",
    "subsets": "every subset of a list (the empty one and the whole list too), smallest first",
    "combinations": "every subset of a list with exactly k items, in the list's order",
}


class Checker:
    def __init__(self, rules: A.RulesFile):
        self.rules = rules
        self.path = rules.path
        self.diags: list[Diagnostic] = []
        self.types: dict = {}
        self.refs: dict = {}
        self.templates: dict = {}
        self.used: set = set()  # names of zones / vars / options / defs referenced
        self.enums: dict[str, EnumInfo] = {}
        self.enum_member: dict[str, str] = {}
        self.options: dict[str, OptionInfo] = {}
        self.properties: dict[str, PropertyInfo] = {}
        self.cards: list[CardInfo] = []
        self.card_names: set = set()  # of self.cards, and their copies counted: each new card asks
        self.deck_size = 0            # (a set and a count keep 100,000 declarations linear)
        self.zones: dict[str, ZoneInfo] = {}
        self.vars: dict[str, VarInfo] = {}
        self.defs: dict[str, A.DefDecl] = {}
        self.def_sigs: dict[str, tuple] = {}  # def name -> (param types, result type), resolved once
        self.actions: dict[str, A.ActionDecl] = {}
        self.phases: dict[str, A.PhaseDecl] = {}
        self.invariants: list[A.InvariantDecl] = []
        self.effects: dict[str, A.EffectDecl] = {}
        self.effect_tags: set[str] = set()
        self.events: dict[str, A.EventDecl] = {}
        self.triggers: list[A.TriggerDecl] = []
        self.conversions: dict[str, A.ConversionDecl] = {}
        self.rules_: dict[str, A.RuleDecl] = {}
        self.rule_sigs: dict[str, tuple] = {}
        self.modifies: list[A.ModifyDecl] = []
        self.abilities: dict = {}  # declaration inside a card -> Ability
        self.effect_fields: dict[str, dict] = {}  # effect -> {field: type}
        self.game: Optional[A.GameDecl] = None
        self.global_names: dict[str, tuple] = {}  # bare name -> (kind, span)

    # ------------------------------------------------------------------ reporting
    def error(self, span: A.Span, msg: str, hint: Optional[str] = None) -> None:
        self.diags.append(Diagnostic("error", msg, self.path, span, hint))

    def warning(self, span: A.Span, msg: str, hint: Optional[str] = None) -> None:
        self.diags.append(Diagnostic("warning", msg, self.path, span, hint))

    # ------------------------------------------------------------------ entry
    def run(self) -> Model:
        self.collect()
        self.check_bodies()
        graph = build_phase_graph(self)
        if self.game is not None and self.phases:
            analyse_phase_graph(self, graph)
        self.check_unused()
        errors = [d for d in self.diags if d.severity == "error"]
        # errors first (so that the first line of the output is the first error), each kind in file order
        self.diags.sort(key=lambda d: (d.severity != "error", d.span.line, d.span.col))
        if errors:
            raise RulesError(self.diags, self.rules.source)
        g = self.game
        start = g.start.name if g.start else next(iter(self.phases))
        return Model(self.path, self.rules.source, g.name, g.doc, g.min_players, g.max_players, start,
                     g.cards_start.name if g.cards_start else None, g.score, self.enums, self.options,
                     self.properties, self.cards, self.zones, self.vars, self.defs, self.actions,
                     self.phases, self.invariants, graph, self.types, self.refs, self.templates,
                     [d for d in self.diags if d.severity == "warning"],
                     effects=self.effects, events=self.events, triggers=self.triggers,
                     conversions=self.conversions, rules=self.rules_, modifies=self.modifies,
                     abilities=self.abilities, label=g.label, limit=g.limit)

    # ------------------------------------------------------------------ declarations
    def declare(self, name: str, kind: str, span: A.Span) -> bool:
        if name in BUILTIN_NAMES or name in QUANTIFIERS:
            self.error(span, f"'{name}' is a built-in name and cannot be declared")
            return False
        if name in self.global_names:
            other_kind, other = self.global_names[name]
            hint = None
            if kind.startswith("a member of enum") or other_kind.startswith("a member of enum"):
                hint = ("enum members share one namespace with zones, variables, options and functions "
                        "(a bare name must say one thing); rename one of them")
            self.error(span, f"'{name}' is already declared (as {other_kind}, line {other.line})", hint)
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
        self.error(ref.span, f"unknown type '{ref.name}'",
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
                        self.error(m.span, f"enum member '{m.name}' is already declared")
                    elif self.declare(m.name, f"a member of enum {d.name}", m.span):
                        members.append(m.name)
                        self.enum_member[m.name] = d.name
                self.enums[d.name] = EnumInfo(d.name, members, d.doc)
        for d in decls:
            if isinstance(d, A.GameDecl):
                if self.game is not None:
                    self.error(d.span, "a rules file has exactly one 'game' block; this is the second")
                else:
                    self.game = d
                    if not (1 <= d.min_players <= d.max_players):
                        self.error(d.span, f"players {d.min_players}..{d.max_players} is not a valid range")
                    elif d.max_players > MAX_PLAYERS:
                        self.error(d.span, f"players {d.min_players}..{d.max_players}: a game is for at most "
                                           f"{MAX_PLAYERS} players")
            elif isinstance(d, A.PropertyDecl):
                if d.name in self.properties:
                    self.error(d.span, f"property '{d.name}' is already declared")
                elif d.name in ("name", "copies"):
                    self.error(d.span, f"'{d.name}' is built into every card and cannot be declared")
                else:
                    self.properties[d.name] = PropertyInfo(d.name, self.resolve_type(d.type), d.doc)
            elif isinstance(d, A.OptionDecl):
                if self.declare(d.name, "an option", d.span):
                    t = self.resolve_type(d.type)
                    default = self.constant(d.default, t)
                    self.options[d.name] = OptionInfo(d.name, t, default, d.doc, d)
            elif isinstance(d, A.ZoneDecl):
                if self.declare(d.name, "a zone", d.span):
                    self.zones[d.name] = self.zone_info(d)
            elif isinstance(d, A.VarDecl):
                if self.declare(d.name, "a variable", d.span):
                    self.vars[d.name] = VarInfo(d.name, d.per_player, self.resolve_type(d.type), d.default, d.doc, d)
            elif isinstance(d, A.DefDecl):
                if self.declare(d.name, "a function", d.span):
                    if d.name in BUILTIN_FUNCS:
                        self.error(d.span, f"'{d.name}' is a built-in function and cannot be redefined")
                    self.defs[d.name] = d
                    seen = set()
                    for prm in d.params:
                        if prm.name in seen:
                            self.error(prm.span, f"parameter '{prm.name}' is declared twice")
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
                        self.error(d.span, f"'{d.name}' is a built-in function and cannot be redefined")
                    self.rules_[d.name] = d
                    self.rule_sigs[d.name] = (tuple(self.resolve_type(prm.type) for prm in d.params),
                                              self.resolve_type(d.rtype))
            elif isinstance(d, A.PhaseDecl):
                if d.name in self.phases:
                    self.error(d.span, f"phase '{d.name}' is already declared (line {self.phases[d.name].span.line})")
                else:
                    self.phases[d.name] = d
            elif isinstance(d, A.InvariantDecl):
                self.invariants.append(d)
            elif isinstance(d, A.EffectDecl):
                if d.name in self.effects:
                    self.error(d.span, f"effect '{d.name}' is already declared (line {self.effects[d.name].span.line})")
                else:
                    self.effects[d.name] = d
                    self.effect_tags.update(t.name for t in d.tags)
                    self.effect_fields[d.name] = {f.name: self.resolve_type(f.type) for f in d.fields}
            elif isinstance(d, A.EventDecl):
                if d.name in self.events or d.name in BUILTIN_EVENTS:
                    self.error(d.span, f"event '{d.name}' is already declared")
                else:
                    self.events[d.name] = d
            elif isinstance(d, A.TriggerDecl):
                self.register(d)
        # cards need properties and enums
        for d in decls:
            if isinstance(d, A.CardDecl):
                self.card_info(d)
        if self.game is None:
            self.error(A.NOWHERE, "there is no 'game' block", "start the file with: game \"Name\" { players 2..4 }")
        if not self.phases:
            self.error(self.game.span if self.game else A.NOWHERE, "the game declares no phase",
                       "add: phase play { ... }")
        if not self.cards:
            self.warning(A.NOWHERE, "the game declares no card")
        g = self.game
        if g is not None:
            if g.start is not None and g.start.name not in self.phases:
                self.error(g.start.span, f"unknown phase '{g.start.name}'", did_you_mean(g.start.name, self.phases))
            if g.cards_start is not None:
                self.use_zone(g.cards_start.name, g.cards_start.span, shared_only=True)
            elif self.cards:
                self.error(g.span, "the game does not say where the cards start",
                           "add to the game block: cards start in <zone>")

    def check_limit(self, limit: A.Limit) -> None:
        """``limit N decisions [winners W]``: a count of at least 1, of decisions, and winners as
        ``end game`` takes them."""
        if limit.unit.name != LIMIT_UNIT:
            self.error(limit.unit.span, f"a limit counts {LIMIT_UNIT}, not '{limit.unit.name}'",
                       f"write: limit {limit.count} {LIMIT_UNIT}; to stop after a number of hands or rounds, "
                       "count them in a variable and 'end game' when it is reached")
        if limit.count < 1:
            self.error(limit.span, f"a game limited to {limit.count} {LIMIT_UNIT} could not start",
                       f"give at least 1 (limit 5000 {LIMIT_UNIT})")
        if limit.winners is not None:
            self.check_winners(limit.winners, {})

    def check_winners(self, winners: A.Expr, env: dict) -> None:
        t = self.expr(winners, env)
        if t != T.PLAYER and not T.assignable(T.PLAYERS, t):  # [] (nobody) is a list of players too
            self.error(winners.span, f"winners must be a player or a list of players, not {t}")

    def register(self, d) -> None:
        """Declarations that may stand at the top level or inside a card's abilities."""
        if isinstance(d, A.ActionDecl):
            if d.name in self.actions:
                self.error(d.span, f"action '{d.name}' is already declared (line {self.actions[d.name].span.line})")
            else:
                self.actions[d.name] = d
        elif isinstance(d, A.TriggerDecl):
            if any(t.name == d.name for t in self.triggers):
                self.error(d.span, f"trigger '{d.name}' is already declared")
            self.triggers.append(d)
        elif isinstance(d, A.ConversionDecl):
            if d.name in self.conversions:
                self.error(d.span, f"conversion '{d.name}' is already declared "
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
        seen_kind = seen_vis = False
        for a in d.attrs:
            if a.name in (kind if seen_kind else None, vis if seen_vis else None):
                self.error(a.span, f"zone '{d.name}' says '{a.name}' twice")
            elif a.name in ZONE_KINDS:
                if seen_kind:
                    self.error(a.span, f"zone '{d.name}' has two kinds ('{kind}' and '{a.name}')")
                kind, seen_kind = a.name, True
            elif a.name in ZONE_VISIBILITY:
                if seen_vis:
                    self.error(a.span, f"zone '{d.name}' has two visibilities ('{vis}' and '{a.name}')")
                vis, seen_vis = a.name, True
            else:
                self.error(a.span, f"unknown zone attribute '{a.name}'",
                           did_you_mean(a.name, ZONE_KINDS | ZONE_VISIBILITY) or
                           "a zone is pile, set or plays, and public, owner or hidden")
        if vis == "owner" and not d.per_player:
            self.error(d.span, f"zone '{d.name}' is shared, so it has no owner to see it",
                       "declare it per player (zone name[player]: ...) or make it public or hidden")
        return ZoneInfo(d.name, d.per_player, kind, vis, d.doc, d)

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
            self.error(e.span, f"'{e.name}' is not a member of {t.enum}",
                       did_you_mean(e.name, self.enums[t.enum].members) if t.enum in self.enums else None)
            return None
        if t == T.ANY:
            return None
        self.error(e.span, f"expected a constant of type {t}")
        return None

    def card_info(self, d: A.CardDecl) -> None:
        props = {}
        copies = 1
        seen_copies = False
        for f in d.fields:
            if f.name == "copies":
                if seen_copies:
                    self.error(f.span, "'copies' is given twice")
                seen_copies = True
                copies = self.constant(f.value, T.INT)
                if isinstance(copies, int) and copies < 1:
                    self.error(f.value.span, "a card needs at least 1 copy")
                    copies = 1
                elif isinstance(copies, int) and copies > MAX_CARDS:
                    self.error(f.value.span, f"{copies} copies is too many: a deck holds at most {MAX_CARDS} cards")
                    copies = 1
                continue
            info = self.properties.get(f.name)
            if info is None:
                self.error(f.span, f"unknown card property '{f.name}'",
                           did_you_mean(f.name, list(self.properties) + ["copies"]))
                continue
            if f.name in props:
                self.error(f.span, f"property '{f.name}' is given twice")
            props[f.name] = self.constant(f.value, info.type)
        for name, info in self.properties.items():
            if name not in props:
                props[name] = {"int": 0, "bool": False, "text": ""}.get(info.type.name)
        copy_props = []
        if d.copies:
            if seen_copies:
                self.error(d.span, f"card '{d.name}' gives both 'copies' and 'copy' blocks",
                           "with 'copy { ... }' blocks, each block is one physical card")
            for fields in d.copies:
                own = dict(props)
                seen = set()
                for f in fields:
                    info = self.properties.get(f.name)
                    if info is None:
                        self.error(f.span, f"unknown card property '{f.name}'", did_you_mean(f.name, self.properties))
                        continue
                    if f.name in seen:
                        self.error(f.span, f"property '{f.name}' is given twice")
                    seen.add(f.name)
                    own[f.name] = self.constant(f.value, info.type)
                copy_props.append(own)
            copies = len(d.copies)
        if d.name in self.card_names:
            self.error(d.span, f"card '{d.name}' is already declared", "give it more copies instead")
            return
        copies = copies if isinstance(copies, int) else 1
        total = self.deck_size
        if total <= MAX_CARDS < total + copies:
            self.error(d.span, f"with card '{d.name}' the deck holds {total + copies} cards; at most {MAX_CARDS}")
        self.cards.append(CardInfo(d.name, props, copies, d.doc, copy_props, d.abilities))
        self.card_names.add(d.name)
        self.deck_size += copies

    # ------------------------------------------------------------------ bodies
    def check_bodies(self) -> None:
        for v in self.vars.values():
            if v.default is not None:
                t = self.expr(v.default, {})
                self.expect(v.default, t, v.type, f"the initial value of '{v.name}'")
        for d in self.defs.values():
            ptypes, rt = self.def_sigs[d.name]
            env = {p.name: t for p, t in zip(d.params, ptypes)}
            self.check_no_recursion(d)
            t = self.expr(d.body, env)
            self.expect(d.body, t, rt, f"the result of '{d.name}'")
        g = self.game
        if g is not None and g.score is not None:
            t = self.expr(g.score.expr, {g.score.var: T.PLAYER})
            self.expect(g.score.expr, t, T.INT, "a score")
        for a in self.actions.values():
            self.check_action(a)
        for p in self.phases.values():
            self.check_phase(p)
        self.check_init_order()
        for e in self.effects.values():
            self.check_effect(e)
        for t in self.triggers:
            self.check_trigger(t)
        for c in self.conversions.values():
            self.check_conversion(c)
        for r in self.rules_.values():
            ptypes, rt = self.rule_sigs[r.name]
            if r.combine.name not in COMBINE:
                self.error(r.combine.span, f"unknown way to combine '{r.combine.name}'",
                           "combine with sum, max or min (numbers), any or all (true/false)")
            elif not T.assignable(COMBINE[r.combine.name], rt) or rt == T.ANY:
                self.error(r.combine.span, f"'{r.combine.name}' combines "
                                           f"{'numbers' if COMBINE[r.combine.name] == T.INT else 'true/false values'}, "
                                           f"not {rt}")
            self.expect(r.base, self.expr(r.base, {p.name: t for p, t in zip(r.params, ptypes)}), rt,
                        f"the base value of '{r.name}'")
        for m in self.modifies:
            self.check_modify(m)
        if g is not None and g.limit is not None:
            self.check_limit(g.limit)
        if g is not None and g.label is not None:
            if isinstance(g.label.expr, A.StrLit):  # a template: "{c.name} {c.number}"
                self.template(g.label.expr, {g.label.var: T.CARD})
            else:
                self.expect(g.label.expr, self.expr(g.label.expr, {g.label.var: T.CARD}), T.TEXT, "a card's label")
        for c in self.cards:
            for group in c.abilities:
                for z in group.zones:
                    info = self.use_zone(z.name, z.span)
                    if info is not None and not info.per_player:
                        self.error(z.span, f"zone '{z.name}' is shared: a card there has no owner to give abilities to",
                                   "name a per-player zone (while in equip, where equip is declared equip[player])")
                if group.when is not None:
                    self.expect(group.when, self.expr(group.when, {"owner": T.PLAYER, "self": T.CARD}), T.BOOL,
                                "when the abilities work")
        for inv in self.invariants:
            if inv.at is not None and inv.at.name not in self.phases:
                self.error(inv.at.span, f"unknown phase '{inv.at.name}'", did_you_mean(inv.at.name, self.phases))
            t = self.expr(inv.expr, {})
            self.expect(inv.expr, t, T.BOOL, "an invariant")

    def check_init_order(self) -> None:
        """A variable's initial value may use only the variables declared above it:
        they are set in order, when the game starts."""
        order = list(self.vars)
        for i, v in enumerate(self.vars.values()):
            if v.default is None:
                continue
            for name, span in self.vars_read(v.default, set()):
                if name in order and order.index(name) >= i:
                    what = "itself" if name == v.name else f"'{name}', which is declared after it"
                    self.error(span, f"the initial value of '{v.name}' uses {what}",
                               "an initial value may only use the variables declared above it")
                    break

    def vars_read(self, e, seen_defs: set):
        """(name, span) of every variable an expression reads, also through the defs it calls."""
        stack = [e]
        while stack:
            n = stack.pop()
            ref = self.refs.get(n)
            if ref and ref[0] in ("var", "pvar"):
                yield ref[1].name, n.span
            if isinstance(n, A.Call) and n.func in self.defs and n.func not in seen_defs:
                seen_defs.add(n.func)
                for name, _ in self.vars_read(self.defs[n.func].body, seen_defs):
                    yield name, n.span
            stack.extend(_children(n))

    def check_no_recursion(self, d: A.DefDecl) -> None:
        # A def may call only defs declared before it: no recursion, so every evaluation ends.
        order = list(self.defs)
        mine = order.index(d.name)

        def visit(e):
            if isinstance(e, A.Call) and e.func in self.defs and order.index(e.func) >= mine:
                self.error(e.span, f"'{d.name}' calls '{e.func}', which is not declared before it",
                           "a function may only call functions declared above it (no recursion)")
            for child in _children(e):
                visit(child)
        visit(d.body)

    def check_param(self, p: A.ActionParam, env: dict) -> T.Type:
        """Check one choice (an action parameter, a 'choose', a conversion's cards) in env, which
        holds the choices before it; returns the type of the chosen value."""
        if p.kind == "int":
            t = self.expr(p.domain, env)
            if not (isinstance(p.domain, A.Range) or t == T.list_of(T.INT) or t == T.ANY):
                self.error(p.domain.span, "an int choice needs a range, like 0..5")
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.INT}), T.BOOL, "a condition")
            return T.INT
        if p.kind == "bool":
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.BOOL}), T.BOOL, "a condition")
            return T.BOOL
        if p.kind == "enum":
            if p.same.name not in self.enums:
                self.error(p.same.span, f"unknown type '{p.same.name}' for a choice",
                           did_you_mean(p.same.name, list(self.enums) + ["int", "player", "players", "card",
                                                                         "cards", "use"]))
                return T.ANY
            t = T.enum_type(p.same.name)
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: t}), T.BOOL, "a condition")
            return t
        if p.kind == "player":
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.PLAYER}), T.BOOL, "a condition")
            return T.PLAYER
        if p.kind == "players":
            self.expect(p.domain, self.expr(p.domain, env), T.PLAYERS, "the players to choose from")
            self.check_size(p, env)
            return T.PLAYERS
        if p.kind in ("card", "use"):
            self.expect_cards(p.domain, self.zexpr(p.domain, env, False))
            t = T.CARD if p.kind == "card" else T.USE
            if p.kind == "use" and p.role not in self.card_names and \
                    p.role not in {c.role for c in self.conversions.values()}:
                self.error(p.span, f"no card and no conversion is called '{p.role}'",
                           did_you_mean(p.role, [c.name for c in self.cards]))
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: t}), T.BOOL, "a condition")
            return t
        self.expect_cards(p.domain, self.zexpr(p.domain, env, False))
        self.check_size(p, env)
        for sel in (p.same, p.distinct):
            if sel is not None and sel.name not in self.properties and sel.name != "name":
                self.error(sel.span, f"unknown card property '{sel.name}'",
                           did_you_mean(sel.name, self.properties))
        if p.same is not None and p.distinct is not None:
            self.error(p.span, "a set cannot be both 'same' and 'distinct'")
        if p.sum_of is not None:
            prop, target = p.sum_of
            if prop.name not in self.properties:
                self.error(prop.span, f"unknown card property '{prop.name}'", did_you_mean(prop.name, self.properties))
            elif self.properties[prop.name].type != T.INT:
                self.error(prop.span, f"'sum {prop.name} == ...' adds up a number property; "
                                      f"'{prop.name}' is {self.properties[prop.name].type}")
            self.expect(target, self.expr(target, env), T.INT, "the total a set's values must add up to")
            if p.same is not None or p.distinct is not None:
                self.error(p.span, "a set with 'sum' cannot also be 'same' or 'distinct'",
                           "add the condition as a 'require' on the action")
        if p.wild is not None:
            var, cond = p.wild
            self.expect(cond, self.expr(cond, {**env, var: T.CARD}), T.BOOL, "a wild-card condition")
            if p.same is None:
                self.error(p.span, "'wild' only goes with 'same' (wild cards join a group of alike cards)")
        return T.CARDS

    def check_size(self, p: A.ActionParam, env: dict) -> None:
        if p.size is not None:
            st = self.expr(p.size, env)
            if st not in (T.INT, T.ANY, T.list_of(T.INT)) and not isinstance(p.size, A.Range):
                self.error(p.size.span, f"size must be a number, a range or a list of numbers, not {st}")

    def check_action(self, a: A.ActionDecl) -> None:
        env = self.ability_env(a)
        for p in a.params:
            if p.name in env:
                self.error(p.span, f"parameter '{p.name}' is declared twice")
            env[p.name] = self.check_param(p, env)
        for ph in a.offered_in:
            if ph.name not in self.phases:
                self.error(ph.span, f"unknown phase '{ph.name}'", did_you_mean(ph.name, self.phases))
            elif a.respond_to:
                self.error(ph.span, f"'{a.name}' is a response: it is offered in response windows, not by a phase")
        self.check_choice_count(a)
        for r in a.requires:
            self.expect(r.cond, self.expr(r.cond, env), T.BOOL, "a requirement")
            if isinstance(r.cond, A.BoolLit) and r.cond.value is False:
                self.warning(r.span, f"action '{a.name}' can never be legal: it requires false")
        for ident in a.respond_to:
            self.effect_or_tag(ident)
        if a.text is not None:
            self.template(a.text, env)
        if a.effect is not None:
            self.block(a.effect, dict(env))

    def check_choice_count(self, a: A.ActionDecl) -> None:
        """Warn where the number of ways to fill an action's choices is plainly too large for
        one decision to list (the engine stops at MAX_CHOICES with an error naming the action)."""
        total = 1
        for p in a.params:
            if p.kind == "int" and isinstance(p.domain, A.Range):
                lo, hi = _const_int(p.domain.lo), _const_int(p.domain.hi)
                if lo is not None and hi is not None:
                    total *= max(0, hi - lo + 1)
            if p.kind == "cards" and p.size is None and p.same is None and p.distinct is None:
                self.warning(p.span, f"'{p.name}' may be any subset of its cards (2^n choices for n cards: "
                                     f"a million for 20)", "bound it with 'size', e.g. size 1..3")
        if total > MAX_CHOICES:
            self.warning(a.span, f"action '{a.name}' has {total:,} combinations of its number choices: more than "
                                 f"the {MAX_CHOICES:,} one decision may list",
                         "use smaller ranges, or split the choice into steps")

    def effect_or_tag(self, ident: A.Ident) -> None:
        if ident.name not in self.effects and ident.name not in self.effect_tags:
            self.error(ident.span, f"unknown effect or effect tag '{ident.name}'",
                       did_you_mean(ident.name, list(self.effects) + list(self.effect_tags)))

    def check_effect(self, e: A.EffectDecl) -> None:
        env = {"this": T.ENTRY}
        fields: dict = {}
        for f in e.fields:
            if f.name in fields or f.name in ENTRY_FIELDS:
                self.error(f.span, f"effect '{e.name}' already has a field '{f.name}'")
                continue
            t = self.resolve_type(f.type)
            fields[f.name] = t
            if f.default is not None:
                self.expect(f.default, self.expr(f.default, {}), t, f"the default of field '{f.name}'")
            elif t.name not in T.NULLABLE and t.name not in ("int", "bool", "text", "list", "enum"):
                self.error(f.span, f"field '{f.name}' needs a default value")
        if e.ask is not None:
            self.expect(e.ask, self.expr(e.ask, env), T.PLAYERS, "the players a window asks")
        for blk in (e.resolve, e.cancelled):
            if blk is not None:
                self.block(blk, env)

    def check_conversion(self, c: A.ConversionDecl) -> None:
        env = {"owner": T.PLAYER, **self.ability_env(c)}
        if c.role not in {card.name for card in self.cards}:
            self.warning(c.span, f"no card is called '{c.role}': only this conversion makes one",
                         did_you_mean(c.role, [card.name for card in self.cards]))
        if c.source is not None:
            if c.source.kind not in ("card", "cards"):
                self.error(c.source.span, "a conversion is made 'from' a card or cards")
            env[c.source.name] = self.check_param(c.source, env)
        for r in c.requires:
            self.expect(r.cond, self.expr(r.cond, env), T.BOOL, "a requirement")
        seen = set()
        for name, e in c.props:
            info = self.properties.get(name)
            if info is None:
                self.error(e.span, f"unknown card property '{name}'", did_you_mean(name, self.properties))
                continue
            if name in seen:
                self.error(e.span, f"property '{name}' is given twice")
            seen.add(name)
            self.expect(e, self.expr(e, env), info.type, f"property '{name}'")
        if c.text is not None:
            self.template(c.text, env)

    def check_modify(self, m: A.ModifyDecl) -> None:
        r = self.rules_.get(m.rule.name)
        if r is None:
            self.error(m.rule.span, f"unknown rule value '{m.rule.name}'", did_you_mean(m.rule.name, self.rules_))
            return
        ptypes, rt = self.rule_sigs[r.name]
        if len(m.args) != len(r.params):
            self.error(m.span, f"'{r.name}' takes {len(r.params)} argument(s), not {len(m.args)}")
        env = {**self.ability_env(m), **{n: t for n, t in zip(m.args, ptypes)}}
        if m.when is not None:
            self.expect(m.when, self.expr(m.when, env), T.BOOL, "a condition")
        self.expect(m.value, self.expr(m.value, env), rt, f"a contribution to '{r.name}'")

    def event_params(self, name: str) -> list:
        if name in BUILTIN_EVENTS:
            return list(BUILTIN_EVENTS[name])
        d = self.events[name]
        return [(p.name, self.resolve_type(p.type)) for p in d.params]

    def check_trigger(self, t: A.TriggerDecl) -> None:
        if t.event.name not in self.events and t.event.name not in BUILTIN_EVENTS:
            self.error(t.event.span, f"unknown event '{t.event.name}'",
                       did_you_mean(t.event.name, list(self.events) + list(BUILTIN_EVENTS)))
            return
        if t.timing == "before" and t.event.name in BUILTIN_EVENTS:
            self.error(t.span, f"'{t.event.name}' is raised by the engine after it happens: a trigger can run "
                               f"'on' or 'after' it, not 'before'")
        env = {**self.ability_env(t), **dict(self.event_params(t.event.name)), "$trigger": t.timing}
        if t.for_expr is not None:
            self.expect(t.for_expr, self.expr(t.for_expr, env), T.PLAYERS, "the players of a trigger")
            env[t.for_var] = T.PLAYER
        if t.when is not None:
            self.expect(t.when, self.expr(t.when, env), T.BOOL, "a trigger condition")
        if t.optional is not None:
            self.check_optional_trigger(t, env)
        self.block(t.body, env)

    def check_optional_trigger(self, t: A.TriggerDecl, env: dict) -> None:
        """'optional "prompt"' asks someone: the card's owner, or the player of a 'for'."""
        if t not in self.abilities and t.for_var is None:
            self.error(t.optional.span, f"optional trigger '{t.name}' has nobody to ask: it is neither carried by a "
                                        f"card (whose owner is asked) nor run 'for' a player",
                       "write it inside a card's 'while in' group, or add 'for p in players' to it")
            return
        self.template(t.optional, env)
        self.warn_optional_reads_self(t)

    def warn_optional_reads_self(self, t: A.TriggerDecl) -> None:
        """The engine asks everyone who could hold a face-down card with an optional trigger,
        reading its conditions for a copy of the card: where that copy is tells nothing."""
        ab = self.abilities.get(t)
        if ab is None or all(self.zones.get(z.name) is None or self.zones[z.name].visibility == "public"
                             for z in ab.group.zones):
            return  # its card is always face up: asking its owner tells nobody anything
        for cond in (ab.group.when, t.when):
            where = _self_beyond_properties(cond, self.defs, set(self.vars)) if cond is not None else None
            if where is not None:
                self.warning(where.span, f"the condition of optional trigger '{t.name}' reads where its card is: "
                                         f"while the card is face down, every player who could hold it is asked, "
                                         f"by reading this condition for a copy of the card",
                             "make it depend on 'owner', the event and public facts ('self.PROPERTY' is fine)")
                return

    def check_phase(self, p: A.PhaseDecl) -> None:
        for blk in (p.enter, p.after, p.exit):
            if blk is not None:
                self.block(blk, {})
        for r in p.requires:
            self.expect(r.cond, self.expr(r.cond, {}), T.BOOL, "a requirement")
        if p.actor is not None:
            self.expect(p.actor, self.expr(p.actor, {}), T.PLAYER, "the actor")
        for a in p.actions:
            if a.name not in self.actions:
                self.error(a.span, f"unknown action '{a.name}'", did_you_mean(a.name, self.actions))
            elif self.actions[a.name].respond_to:
                self.error(a.span, f"'{a.name}' is a response: it is offered in response windows, not by a phase",
                           "remove it from the phase's actions")
        if p.end_when is not None:
            self.expect(p.end_when, self.expr(p.end_when, {}), T.BOOL, "an end condition")
        for n in p.nexts:
            if n.target.name not in self.phases:
                self.error(n.target.span, f"unknown phase '{n.target.name}'", did_you_mean(n.target.name, self.phases))
            if n.cond is not None:
                self.expect(n.cond, self.expr(n.cond, {}), T.BOOL, "a condition")
        if p.actions and p.after is None and p.end_when is None:
            self.warning(p.span, f"phase '{p.name}' has actions but no 'after' and no 'end when'",
                         "without them the same player acts forever")

    # ------------------------------------------------------------------ statements
    def block(self, b: A.Block, env: dict) -> None:
        env = dict(env)
        for s in b.stmts:
            self.stmt(s, env)

    def stmt(self, s, env: dict) -> None:
        if isinstance(s, A.Choose):
            self.expect(s.chooser, self.expr(s.chooser, env), T.PLAYER, "who chooses")
            if s.prompt is not None:
                self.template(s.prompt, env)
            if s.name in self.global_names or s.name in BUILTIN_NAMES:
                self.error(s.span, f"'{s.name}' would hide the global name '{s.name}'", "pick another name")
            env[s.name] = self.check_param(s.param, env)
            if s.param.kind == "bool" and s.optional:
                self.error(s.span, "a yes/no question cannot be 'optional'")
            return
        if isinstance(s, A.Prevent):
            if env.get("$trigger") not in ("before", "on"):
                self.error(s.span, "'prevent' stops an event from a trigger that runs 'before' or 'on' it",
                           None if "$trigger" in env else "write it in such a trigger's block")
            return
        if isinstance(s, A.Let):
            t = self.expr(s.value, env)
            if t == T.NONE:
                self.error(s.span, f"cannot tell the type of '{s.name}' from none")
            if s.name in self.global_names or s.name in BUILTIN_NAMES:
                self.error(s.span, f"'{s.name}' would hide the global name '{s.name}'", "pick another name")
            env[s.name] = T.CARDS if t.name == "zone" else t
        elif isinstance(s, A.Assign) and s.target.path:
            target_t = self.field_lvalue(s.target, env)
            vt = self.expr(s.value, env)
            if s.op == "=":
                self.expect(s.value, vt, target_t, f"'{'.'.join((s.target.name,) + s.target.path)}'")
            elif target_t not in (T.INT, T.ANY):
                self.error(s.span, f"'{s.op}' needs a number, not {target_t}")
            else:
                self.expect(s.value, vt, T.INT, f"'{s.op}'")
        elif isinstance(s, A.Assign):
            target_t = self.lvalue(s.target, env)
            vt = self.expr(s.value, env)
            if s.op == "=":
                self.expect(s.value, vt, target_t, f"'{s.target.name}'")
            elif target_t not in (T.INT, T.ANY):
                self.error(s.span, f"'{s.op}' needs a number, but '{s.target.name}' is {target_t}")
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
                self.error(s.dest.span, f"'play ... to' needs a plays zone; '{z.name}' is a {z.kind}",
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
                self.error(s.iterable.span, f"cannot loop over {t}; expected a list")
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
                self.error(s.effect.span, f"unknown effect '{s.effect.name}'", did_you_mean(s.effect.name, self.effects))
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
                    self.error(fe.span, f"effect '{s.effect.name}' has no field '{fname}'",
                               did_you_mean(fname, fields) or (f"declare it: effect {s.effect.name}({fname}: ...)"
                                                               if not fields else None))
                elif fname in fields:
                    self.expect(fe, ft, fields[fname], f"field '{fname}'")
        elif isinstance(s, A.Look):
            t = self.zexpr(s.cards, env, False)
            if t not in (T.CARD, T.ANY):
                self.expect_cards(s.cards, t)
            if s.by is not None:
                self.expect(s.by, self.expr(s.by, env), T.PLAYER, "who looks")
        elif isinstance(s, A.Cancel):
            self.expect(s.entry, self.expr(s.entry, env), T.ENTRY, "what 'cancel' cancels")
        elif isinstance(s, A.Emit):
            if s.event.name in BUILTIN_EVENTS:
                self.error(s.event.span, f"'{s.event.name}' is raised by the engine itself and cannot be emitted")
            elif s.event.name not in self.events:
                self.error(s.event.span, f"unknown event '{s.event.name}'", did_you_mean(s.event.name, self.events))
            else:
                params = self.event_params(s.event.name)
                if len(params) != len(s.args):
                    self.error(s.span, f"event '{s.event.name}' takes {len(params)} argument(s), not {len(s.args)}")
                for a, (pname, pt) in zip(s.args, params):
                    self.expect(a, self.expr(a, env), pt, f"argument '{pname}' of event '{s.event.name}'")
            if s.target is not None:
                if s.target in self.global_names or s.target in BUILTIN_NAMES:
                    self.error(s.span, f"'{s.target}' would hide the global name '{s.target}'", "pick another name")
                env[s.target] = T.record_type(s.event.name) if s.event.name in self.events else T.ANY

    def cause(self, s, env: dict) -> None:
        if s.cause is not None:
            t = self.expr(s.cause, env)
            if t.name not in ("text", "enum", "any"):
                self.error(s.cause.span, f"a cause is a text or an enum member, not {t}")

    def field_lvalue(self, lv: A.LValue, env: dict) -> T.Type:
        """The type of a field written through a name: this.n, stack_top.target, r.amount."""
        if len(lv.path) > 1:
            self.error(lv.span, "only one field deep can be assigned (like this.n)")
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
                self.error(lv.span, f"a stack entry's '{field}' cannot be assigned" if field in ENTRY_FIELDS
                           else f"no effect has a field '{field}'",
                           did_you_mean(field, [f for fs in self.effect_fields.values() for f in fs]))
                return T.ANY
            return ft
        if t.name == "record":
            params = dict(self.event_params(t.enum))
            if field not in params:
                self.error(lv.span, f"event '{t.enum}' has no field '{field}'", did_you_mean(field, params))
                return T.ANY
            return params[field]
        self.error(lv.span, f"{t} has no fields that can be assigned")
        return T.ANY

    def entry_field_type(self, field: str) -> Optional[T.Type]:
        """The type of a field some effect declares (the same in every effect that has it)."""
        found = [fs[field] for fs in self.effect_fields.values() if field in fs]
        return found[0] if found else None

    def not_a_variable(self, lv: A.LValue, env: dict) -> T.Type:
        """Report an assignment to something that is not a variable; returns ANY."""
        n = lv.name
        if n in self.zones:
            self.error(lv.span, f"'{n}' is a zone, not a variable: zones change with move, deal and play")
        elif n in self.options:
            self.error(lv.span, f"'{n}' is an option: options are fixed for the whole game")
        elif n in self.enum_member:
            self.error(lv.span, f"'{n}' is a member of enum {self.enum_member[n]}, not a variable")
        elif n in env or n in BUILTIN_NAMES:
            self.error(lv.span, f"'{n}' cannot be indexed: only a per-player variable can be assigned with [...]")
        else:
            self.error(lv.span, f"unknown variable '{n}'", did_you_mean(n, list(self.vars) + list(env)))
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
                    self.error(lv.span, f"'{lv.name}' cannot be assigned")
                    return T.ANY
                return t
            v = self.vars.get(lv.name)
            if v is None:
                return self.not_a_variable(lv, env)
            self.used.add(lv.name)
            if v.per_player:
                self.error(lv.span, f"'{lv.name}' is per player: say whose, like {lv.name}[active]")
                return T.ANY
            return v.type
        v = self.vars.get(lv.name)
        if v is None or lv.name in env:
            return self.not_a_variable(lv, env)
        self.used.add(lv.name)
        self.expect(lv.index, self.expr(lv.index, env), T.PLAYER, "the index of a per-player variable")
        if not v.per_player:
            self.error(lv.span, f"'{lv.name}' is not per player and cannot be indexed",
                       f"declare it per player: var {lv.name}[player]: ...")
            return T.ANY
        return v.type

    def template(self, lit: A.StrLit, env: dict) -> None:
        try:
            from .parser import parse_template
            parts = parse_template(lit, self.path, self.rules.source)
        except RulesError as e:
            self.diags.extend(e.diagnostics)
            return
        for p in parts:
            if isinstance(p, A.Expr):
                self.expr(p, env)
        self.templates[lit] = parts

    # ------------------------------------------------------------------ expressions
    def expect(self, e: A.Expr, got: T.Type, want: T.Type, what: str) -> None:
        self.expect_at(e.span, got, want, what)

    def expect_at(self, span: A.Span, got: T.Type, want: T.Type, what: str) -> None:
        if not T.assignable(want, got):
            self.error(span, f"{what} must be {want}, not {got}")

    def expect_cards(self, e: A.Expr, t: T.Type) -> None:
        if t not in (T.ANY, T.ZONE, T.CARDS) and not (t.name == "list" and t.elem in (None, T.ANY)):
            self.error(e.span, f"expected cards (a zone or a list of cards), not {t}")

    def expect_zone(self, e: A.Expr, t: T.Type) -> None:
        if t not in (T.ZONE, T.ANY):
            self.error(e.span, f"expected a zone, not {t}")

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
                self.error(base.span, f"unknown zone '{base.name}'", hint)
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
            self.error(span, f"unknown zone '{name}'", did_you_mean(name, self.zones))
            return None
        self.used.add(name)
        if shared_only and z.per_player:
            self.error(span, f"zone '{name}' is per player; the cards must start in a shared zone")
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
                    self.error(item.span, f"a list mixes {t} and {it}")
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
            lo, hi = _const_int(e.lo), _const_int(e.hi)
            if lo is not None and hi is not None and hi - lo + 1 > MAX_RANGE:
                self.error(e.span, f"the range {lo}..{hi} holds {hi - lo + 1} numbers; at most {MAX_RANGE}")
            return T.list_of(T.INT)
        if isinstance(e, A.IfExpr):
            self.expect(e.cond, self.expr(e.cond, env), T.BOOL, "a condition")
            a = self.expr(e.then, env)
            b = self.expr(e.else_, env)
            if not T.comparable(a, b):
                self.error(e.span, f"the two branches have different types ({a} and {b})")
            return T.unify(a, b)
        if isinstance(e, A.Quant):
            return self._quant(e, env)
        if isinstance(e, A.LetExpr):
            t = self.expr(e.value, env)
            return self.expr(e.body, {**env, e.var: T.CARDS if t.name == "zone" else t})
        self.error(e.span, "unsupported expression")
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
                self.error(e.span, f"'{n}' is per player: say whose, like {n}[active]")
                return T.ANY
            self.refs[e] = ("var", v)
            return v.type
        if n in self.zones:
            z = self.zones[n]
            self.used.add(n)
            if z.per_player:
                self.error(e.span, f"zone '{n}' is per player: say whose, like {n}[active]")
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
            self.error(e.span, f"'{n}' is a function: call it, like {n}(...)")
            return T.ANY
        candidates = list(env) + list(BUILTIN_NAMES) + list(self.vars) + list(self.zones) + \
            list(self.options) + list(self.enum_member)
        self.error(e.span, f"unknown name '{n}'", did_you_mean(n, candidates))
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
                self.error(e.span, f"cards have no property '{e.name}'", did_you_mean(e.name, list(self.properties) + ["name"]))
                return T.ANY
            self.refs[e] = ("prop", e.name)
            return p.type
        if t == T.ENTRY:
            if e.name in ENTRY_FIELDS:
                self.refs[e] = ("entry_field", e.name)
                return ENTRY_FIELDS[e.name][0]
            ft = self.entry_field_type(e.name)
            if ft is None:
                self.error(e.span, f"a stack entry has no field '{e.name}'",
                           did_you_mean(e.name, list(ENTRY_FIELDS) + [f for fs in self.effect_fields.values()
                                                                     for f in fs]))
                return T.ANY
            self.refs[e] = ("entry_data", e.name)
            return ft
        if t.name == "record":
            params = dict(self.event_params(t.enum))
            params["prevented"] = T.BOOL
            if e.name not in params:
                self.error(e.span, f"the record of event '{t.enum}' has no field '{e.name}'",
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
                self.error(e.span, f"a used card has no field '{e.name}'",
                           did_you_mean(e.name, list(USE_FIELDS) + list(self.properties)))
                return T.ANY
            self.refs[e] = ("use_field", e.name)
            return p.type
        if t == T.PLAY:
            fields = {"player": T.PLAYER, "cards": T.CARDS, "size": T.INT}
            if e.name not in fields:
                self.error(e.span, f"a play has no field '{e.name}'", did_you_mean(e.name, fields))
                return T.ANY
            self.refs[e] = ("play_field", e.name)
            return fields[e.name]
        self.error(e.span, f"{t} has no field '{e.name}'")
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
            self.error(e.span, f"{kind} '{e.obj.name}' is shared, not per player, so it cannot be indexed by a player",
                       f"declare it per player: {e.obj.name}[player]")
            return T.ANY
        if T.is_list(t):
            self.expect(e.index, it, T.INT, "a list index")
            self.refs[e] = ("list",)
            return T.elem_of(t)
        if t != T.ANY:
            self.error(e.span, f"{t} cannot be indexed")
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
                self.error(e.span, f"'{e.func}' takes {len(r.params)} argument(s), not {len(args)}")
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
                self.error(e.span, f"'{e.func}' takes {len(d.params)} argument(s), not {len(args)}")
            else:
                for a, at, p, pt in zip(e.args, args, d.params, ptypes):
                    self.expect(a, at, pt, f"argument '{p.name}' of '{e.func}'")
            return rt
        if e.func not in BUILTIN_FUNCS:
            self.error(e.span, f"unknown function '{e.func}'", did_you_mean(e.func, list(self.defs) + list(BUILTIN_FUNCS)))
            return T.ANY
        self.refs[e] = ("builtin_func", e.func)

        def arity(n):
            if len(args) != n:
                self.error(e.span, f"'{e.func}' takes {n} argument(s), not {len(args)}")
                return False
            return True
        f = e.func
        if f == "reversed":
            if not arity(1):
                return T.ANY
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error(e.args[0].span, f"'reversed' needs a list, not {args[0]}")
                return T.ANY
            return T.CARDS if args[0].name == "zone" else args[0]
        if f == "revealed":
            if arity(1):
                self.expect(e.args[0], args[0], T.CARD, "the argument of 'revealed'")
            return T.BOOL
        if f in ("subsets", "combinations"):
            if not arity(1 if f == "subsets" else 2):
                return T.ANY
            if f == "combinations":
                self.expect(e.args[1], args[1], T.INT, "the size of the combinations")
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error(e.args[0].span, f"'{f}' needs a list, not {args[0]}")
                return T.ANY
            return T.list_of(T.CARDS if args[0].name == "zone" else args[0])
        if f in ("count", "sorted", "distinct", "random"):
            if not arity(1):
                return T.ANY
            if not T.is_list(args[0]) and args[0] != T.ANY:
                self.error(e.args[0].span, f"'{f}' needs a list, not {args[0]}")
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
                    self.error(e.args[0].span, f"zone '{z.name}' is a {z.kind}, not a plays zone")
            return T.list_of(T.PLAY) if f == "plays" else T.CARDS
        if f in ("max", "min"):
            if arity(2):
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
                    self.error(e.args[1].span, "the tag must be written as a string, like \"power\"")
                elif e.args[1].value not in self.effects and e.args[1].value not in self.effect_tags:
                    self.error(e.args[1].span, f"unknown effect or effect tag '{e.args[1].value}'",
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
        return self._operator(e.op, (e.left.span, self.expr(e.left, env)), (e.right.span, self.expr(e.right, env)),
                              e.span)

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
                self.error(span, f"cannot add {a} and {b}")
                return T.ANY
            joined = T.unify(a, b)
            return T.CARDS if joined.name == "zone" else joined  # hand + table: their cards, no zone
        if op == "+" and (a == T.TEXT or b == T.TEXT):  # texts: + joins them
            expect_both(T.TEXT, "'+' joining texts")
            return T.TEXT
        if op in ("+", "-", "*", "/", "%"):
            expect_both(T.INT, f"'{op}'")
            return T.INT
        if op in ("==", "!="):
            if not T.comparable(a, b):
                self.error(span, f"cannot compare {a} with {b}")
            return T.BOOL
        if op == "in":
            if not T.is_list(b) and b != T.ANY:
                self.error(right_span, f"'in' needs a list on its right, not {b}")
            elif not T.comparable(T.elem_of(b), a):
                self.error(span, f"a {a} can never be in a {b}")
            return T.BOOL
        expect_both(T.INT, f"'{op}'")
        return T.BOOL

    def _quant(self, e: A.Quant, env) -> T.Type:
        dt = self.expr(e.domain, env)
        if not T.is_list(dt) and dt != T.ANY:
            self.error(e.domain.span, f"'{e.kind}' needs a list to range over, not {dt}")
        inner = dict(env)
        et = T.elem_of(dt) if dt != T.ANY else T.ANY
        inner[e.var] = et
        if e.where is not None:
            self.expect(e.where, self.expr(e.where, inner), T.BOOL, "a 'where' condition")
        bt = self.expr(e.body, inner) if e.body is not None else None
        k = e.kind
        if e.ties_last and k not in ("argmax", "argmin"):
            self.error(e.span, "'ties last' only goes with argmax and argmin")
        if k in ("any", "all", "count", "first"):
            if bt is not None:
                self.expect(e.body, bt, T.BOOL, f"the condition of '{k}'")
            return {"count": T.INT, "first": et}.get(k, T.BOOL)
        if k in ("sum", "max", "min", "argmax", "argmin"):
            if bt is None:
                self.error(e.span, f"'{k}' needs ': <number>' after its list")
            else:
                self.expect(e.body, bt, T.INT, f"the value of '{k}'")
            return T.INT if k in ("sum", "max", "min") else et
        # collect
        return T.list_of(bt if bt is not None else et)

    # ------------------------------------------------------------------ warnings
    def check_unused(self) -> None:
        if self.game is not None and self.game.score is not None:
            self.used.add(self.game.score.var)
        for z in self.zones.values():
            if z.name not in self.used:
                self.warning(z.decl.span, f"zone '{z.name}' is never used")
        for v in self.vars.values():
            if v.name not in self.used:
                self.warning(v.decl.span, f"variable '{v.name}' is never used")
        listed = {a.name for p in self.phases.values() for a in p.actions} | \
            {a.name for a in self.actions.values() if a.offered_in}
        for a in self.actions.values():
            if a.respond_to:
                continue  # responses are offered in response windows, not by phases
            if a.name not in listed:
                self.warning(a.span, f"action '{a.name}' can never be taken: no phase lists it")


_children = A.children


def check(rules: A.RulesFile) -> Model:
    try:
        return Checker(rules).run()
    except RecursionError:  # the parser bounds nesting, so this is only a safety net
        raise RulesError([Diagnostic("error", "the rules nest too deeply to check", rules.path, A.NOWHERE)],
                         rules.source) from None


def _const_int(e: A.Expr) -> Optional[int]:
    """The value of an integer literal, possibly negated, or None."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Unary) and e.op == "-" and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    return None


def check_file(path) -> Model:
    return check_text(read_source(path), str(path))


def check_text(text: str, path: str = "<string>") -> Model:
    """Parse and check; a large file checked before (by this rulespec) comes from the model cache."""
    def build() -> Model:
        from .parser import parse_text
        with no_gc():  # tens of thousands of long-lived nodes and facts about them
            return check(parse_text(text, path))
    return model_cache.checked_model(text, path, build)


def _self_beyond_properties(e: A.Expr, defs: dict, var_names: set, me: str = "self",
                            seen: frozenset = frozenset()) -> Optional[A.Expr]:
    """The first place expression e uses the card 'self' (or, inside a def, the parameter it was
    passed to) other than in a public way: reading one of its properties, whether it is face up
    (`revealed(self)`), or whether a variable's list holds it (`self in banned`).  Where the card
    is differs between its copies and is hidden."""
    if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.name == me:
        return None
    if isinstance(e, A.Name) and e.name == me:
        return e
    if isinstance(e, A.Call) and e.func == "revealed" and len(e.args) == 1 \
            and isinstance(e.args[0], A.Name) and e.args[0].name == me:
        return None
    if isinstance(e, A.BinOp) and e.op == "in" and isinstance(e.left, A.Name) and e.left.name == me \
            and isinstance(e.right, A.Name) and e.right.name in var_names:
        return None
    if isinstance(e, A.Call) and e.func in defs and e.func not in seen:
        d = defs[e.func]
        for arg, param in zip(e.args, d.params):
            if isinstance(arg, A.Name) and arg.name == me:
                if _self_beyond_properties(d.body, defs, var_names, param.name, seen | {e.func}) is not None:
                    return arg
            else:
                found = _self_beyond_properties(arg, defs, var_names, me, seen)
                if found is not None:
                    return found
        return None
    for ch in A.children(e):
        found = _self_beyond_properties(ch, defs, var_names, me, seen)
        if found is not None:
            return found
    return None
    if isinstance(e, A.Name) and e.name == "self":
        return e
    for ch in A.children(e):
        found = _self_beyond_properties(ch)
        if found is not None:
            return found
    return None
