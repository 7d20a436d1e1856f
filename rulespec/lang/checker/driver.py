"""The Checker: its tables, its diagnostics, and the passes run in order (declarations, bodies,
the phase graph, unused things), each pass a mixin from its own module.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from ..diagnostics import Diagnostic, Related, RulesError
from ..graph import analyse_phase_graph, build_phase_graph
from ..model import CardInfo, EnumInfo, Model, OptionInfo, PropertyInfo, VarInfo, ZoneInfo
from ..silencing import apply_allows
from .bodies import BodiesPass
from .choices import ChoicesPass
from .declarations import DeclarationsPass
from .display import DisplayPass
from .effects import EffectsPass
from .expressions import ExpressionsPass
from .face_down import FaceDownPass
from .flow import FlowPass
from .lints import LintsPass
from .statements import StatementsPass


class Checker(DeclarationsPass, BodiesPass, ChoicesPass, EffectsPass, StatementsPass, ExpressionsPass,
              LintsPass, FaceDownPass, FlowPass, DisplayPass):
    """The checker of one rules file: run() fills the tables below, pass after pass, and gives
    the Model (or raises RulesError with every diagnostic)."""

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
        self.lasting_looks = False  # does a 'look ... until moved' give players lasting knowledge?
        self.global_names: dict[str, tuple] = {}  # bare name -> (kind, span)
        self.display_decls: list[A.DisplayDecl] = []  # the 'display' blocks (one is allowed)
        self.display = None                            # the first, checked (model.DisplayInfo)

    # ------------------------------------------------------------------ reporting
    # Each diagnostic names its code first (docs/language.md, "Diagnostics, codes and silencing").
    def error(self, code: str, span: A.Span, msg: str, hint: Optional[str] = None,
              related: Optional[Related] = None) -> None:
        self.diags.append(Diagnostic("error", msg, self.path, span, hint, code, related))

    def warning(self, code: str, span: A.Span, msg: str, hint: Optional[str] = None,
                related: Optional[Related] = None) -> None:
        """A warning; a '# rulespec: allow CODE -- reason' comment on its line or the line before
        silences it (see silencing.py). ``related`` is a second place, e.g. where a read is seen."""
        self.diags.append(Diagnostic("warning", msg, self.path, span, hint, code, related))

    # ------------------------------------------------------------------ entry
    def run(self) -> Model:
        self.collect()
        self.check_bodies()
        graph = build_phase_graph(self)
        if self.game is not None and self.phases:
            analyse_phase_graph(self, graph)
        self.check_unused()
        if not any(d.severity == "error" for d in self.diags):
            self.check_flow()
        # after every pass that can warn, so that an allow comment can silence any finding
        self.diags, silenced = apply_allows(self.diags, self.rules.source, self.path)
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
                     abilities=self.abilities, label=g.label, limit=g.limit,
                     lasting_looks=self.lasting_looks, display=self.display, silenced=silenced)


def check(rules: A.RulesFile) -> Model:
    try:
        return Checker(rules).run()
    except RecursionError:  # the parser bounds nesting, so this is only a safety net
        raise RulesError([Diagnostic("error", "the rules nest too deeply to check", rules.path, A.NOWHERE,
                                     code="too-deep")],
                         rules.source) from None
