"""The checked model of a game: what the checker hands to the interpreter and the docs.

Everything here is resolved: names point at declarations, every expression has
a type (``Model.types``) and every name use knows what it refers to
(``Model.refs``).  The interpreter compiles this into closures.
"""
from __future__ import annotations

from typing import Any, Optional

import attrs

from . import ast as A
from .types import Type

END = "(end)"  # the phase-graph node for the end of the game


@attrs.define(slots=False)
class PhaseGraph:
    """The phase graph as plain data (nothing to import to read it back from the model cache).

    ``nodes``: phase name (and END) -> its attributes (``has_actions``, ``has_effects``, ``doc``);
    ``edges``: (from, to) -> its attributes (``label``).  ``Model.graph`` is the same graph as a
    networkx DiGraph, for callers that want graph algorithms."""
    nodes: dict = attrs.field(factory=dict)
    edges: dict = attrs.field(factory=dict)

    def add_node(self, name: str, **data) -> None:
        self.nodes.setdefault(name, {}).update(data)

    def add_edge(self, a: str, b: str, **data) -> None:
        for n in (a, b):
            self.nodes.setdefault(n, {})
        self.edges.setdefault((a, b), {}).update(data)

    def edge_list(self) -> list:
        """[(from, to, attributes)] in networkx's order: by the first node's place, then as added."""
        place = {n: i for i, n in enumerate(self.nodes)}
        return sorted(((a, b, d) for (a, b), d in self.edges.items()), key=lambda e: place[e[0]])

    def __contains__(self, node) -> bool:
        return node in self.nodes

    def has_edge(self, a: str, b: str) -> bool:
        return (a, b) in self.edges

    def successors(self, a: str) -> list:
        return [y for x, y in self.edges if x == a]

    def copy(self) -> "PhaseGraph":
        return PhaseGraph({n: dict(d) for n, d in self.nodes.items()}, {e: dict(d) for e, d in self.edges.items()})

    def reachable(self, start: str, reverse: bool = False) -> set:
        """Every node a path leads to from start (reverse: that leads to start), start included."""
        nxt: dict = {}
        for a, b in self.edges:
            x, y = (b, a) if reverse else (a, b)
            nxt.setdefault(x, []).append(y)
        seen, todo = {start}, [start]
        while todo:
            for y in nxt.get(todo.pop(), ()):
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    def to_networkx(self):
        import networkx as nx  # only for callers that want graph algorithms: the engine never does
        g = nx.DiGraph()
        for n, d in self.nodes.items():
            g.add_node(n, **d)
        for (a, b), d in self.edges.items():
            g.add_edge(a, b, **d)
        return g


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class EnumInfo:
    name: str
    members: list[str]
    doc: Optional[str]


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class OptionInfo:
    name: str
    type: Type
    default: Any
    doc: Optional[str]
    decl: A.OptionDecl
    values: Optional[tuple] = None  # (lo, hi) of an int option declared 'int in lo..hi': its only values


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class PropertyInfo:
    name: str
    type: Type
    doc: Optional[str]


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class CardInfo:
    name: str
    props: dict
    copies: int
    doc: Optional[str]
    copy_props: list = attrs.field(factory=list)  # per physical copy: its own property values (or empty)
    abilities: tuple = ()                          # A.AbilityGroup: what the card gives its owner, and where
    # 'copies: EXPR' of the player count and the options (setup_values.py): how many of the `copies`
    # physical cards (the most any setup has) are in a game; None: all of them, always
    copies_expr: Optional[A.Expr] = None


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class Ability:
    """An action, trigger, conversion or modify that a card gives the owner of the zone it is in."""
    card: str                 # the card's name (every copy of it carries the ability)
    group: A.AbilityGroup     # where it works (zones) and when
    item: Any                 # the declaration


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class ZoneInfo:
    name: str
    per_player: bool
    kind: str        # "pile" (ordered), "set" (unordered) or "plays" (a record of plays)
    visibility: str  # "public", "owner", "others" (all but its owner), "hidden" or "top" (`top public`)
    doc: Optional[str]
    decl: A.ZoneDecl
    capacity: Optional[int] = None  # `at most N cards`: the most cards it ever holds (None: no limit)


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class VarInfo:
    name: str
    per_player: bool
    type: Type
    default: Optional[A.Expr]
    doc: Optional[str]
    decl: A.VarDecl


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
class DisplayInfo:
    """A checked ``display`` block: how a table of the game is drawn.  A clause the block does not
    give is None here (display.py supplies the default); nothing in it changes play."""
    seat: Optional[tuple] = None   # ((per-player variable, caption or None), ...) shown on every seat
    table: Optional[tuple] = None  # ((shared variable, caption or None), ...) shown in the centre
    hand: Optional[tuple] = None   # per-player zones held in the hand
    aside: Optional[tuple] = None  # zones left off the table
    suit: Optional[str] = None     # the enum property drawn as a suit symbol
    rank: Optional[str] = None     # the property printed in a card's corner
    colour: Optional[str] = None   # the enum property whose member colours a card


@attrs.define(slots=False)  # no __setstate__: the model cache unpickles it in C
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
    phase_graph: PhaseGraph
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
    limit: Optional[A.Limit] = None                # the rules' bound on a game's length (decisions)
    lasting_looks: bool = False                    # a 'look ... until moved' gives lasting knowledge of cards
    display: Optional[DisplayInfo] = None          # the 'display' block, if the rules have one
    silenced: list = attrs.field(factory=list)     # warnings silenced by an allow comment (silencing.py)

    def type_of(self, node) -> Type:
        return self.types[node]

    @property
    def graph(self):
        """The phase graph as a networkx DiGraph (networkx is imported on first use)."""
        g = self.__dict__.get("_nx_graph")
        if g is None:
            g = self.__dict__["_nx_graph"] = self.phase_graph.to_networkx()
        return g

    def __getstate__(self):  # the networkx copy is not kept in the model cache
        state = dict(self.__dict__)
        state.pop("_nx_graph", None)
        return state
