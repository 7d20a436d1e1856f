"""The checked model of a game: what the checker hands to the interpreter and the docs.

Everything here is resolved: names point at declarations, every expression has
a type (``Model.types``) and every name use knows what it refers to
(``Model.refs``).  The interpreter compiles this into closures.
"""
from __future__ import annotations

from typing import Any, Optional

import attrs
import networkx as nx

from . import ast as A
from .types import Type

END = "(end)"  # the phase-graph node for the end of the game


@attrs.define
class EnumInfo:
    name: str
    members: list[str]
    doc: Optional[str]


@attrs.define
class OptionInfo:
    name: str
    type: Type
    default: Any
    doc: Optional[str]
    decl: A.OptionDecl


@attrs.define
class PropertyInfo:
    name: str
    type: Type
    doc: Optional[str]


@attrs.define
class CardInfo:
    name: str
    props: dict
    copies: int
    doc: Optional[str]
    copy_props: list = attrs.field(factory=list)  # per physical copy: its own property values (or empty)
    abilities: tuple = ()                          # A.AbilityGroup: what the card gives its owner, and where


@attrs.define
class Ability:
    """An action, trigger, conversion or modify that a card gives the owner of the zone it is in."""
    card: str                 # the card's name (every copy of it carries the ability)
    group: A.AbilityGroup     # where it works (zones) and when
    item: Any                 # the declaration


@attrs.define
class ZoneInfo:
    name: str
    per_player: bool
    kind: str        # "pile" (ordered), "set" (unordered) or "plays" (a record of plays)
    visibility: str  # "public", "owner" or "hidden"
    doc: Optional[str]
    decl: A.ZoneDecl


@attrs.define
class VarInfo:
    name: str
    per_player: bool
    type: Type
    default: Optional[A.Expr]
    doc: Optional[str]
    decl: A.VarDecl


@attrs.define
class Model:
    path: str
    source: str
    name: str
    doc: Optional[str]
    min_players: int
    max_players: int
    start_phase: str
    cards_start: Optional[str]
    score: Optional[A.ScoreClause]
    enums: dict[str, EnumInfo]
    options: dict[str, OptionInfo]
    properties: dict[str, PropertyInfo]
    cards: list[CardInfo]
    zones: dict[str, ZoneInfo]
    vars: dict[str, VarInfo]
    defs: dict[str, A.DefDecl]
    actions: dict[str, A.ActionDecl]
    phases: dict[str, A.PhaseDecl]
    invariants: list[A.InvariantDecl]
    graph: nx.DiGraph
    types: dict = attrs.field(repr=False)
    refs: dict = attrs.field(repr=False)
    templates: dict = attrs.field(repr=False)
    warnings: list = attrs.field(factory=list)
    effects: dict = attrs.field(factory=dict)    # name -> A.EffectDecl (response-stack effects)
    events: dict = attrs.field(factory=dict)     # name -> A.EventDecl (declared events)
    triggers: list = attrs.field(factory=list)   # A.TriggerDecl, in declaration order
    conversions: dict = attrs.field(factory=dict)  # name -> A.ConversionDecl
    rules: dict = attrs.field(factory=dict)        # name -> A.RuleDecl (rule values)
    modifies: list = attrs.field(factory=list)     # A.ModifyDecl, in declaration order
    abilities: dict = attrs.field(factory=dict)    # declaration -> Ability (items carried by cards)
    label: Optional[A.ScoreClause] = None          # how a card is shown

    def type_of(self, node) -> Type:
        return self.types[node]
