"""The compiled pieces a Program holds (compiler.py makes them): plain records of a zone
instance, an action and its parameters, an effect, a trigger, a conversion and a phase.  They
stand apart from the compiler so that the modules the compiler uses (cardsets.py, actions.py)
can name them without importing it."""
from __future__ import annotations

from typing import Callable, Optional

import attrs

from rulespec.lang import ast as A
from rulespec.lang import types as T

from .abilities import CAbility


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
    printed: Optional[tuple] = None  # (values of a printed property, fn -> the value it must have):
                                     # 'where c.power == ji_bu' read before anything else is built
    wild_static: bool = False        # whether a card is wild is fixed for a game (printed values, options)
    sum_of: Optional[tuple] = None   # (values of a number property by card, fn -> the total a set must make)
    by_position: bool = False        # face-down cards offered one per place (markers.py)
    face_down_reads: frozenset = frozenset()  # the card choices before it that its 'where' reads


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
    card_slots: tuple = ()  # (parameter, kind) of the parameters that choose cards
    plan: Optional[object] = None  # what listing it needs (actions._Plan), made when first listed
    text_ends: tuple = ("", "")  # the fixed start and end of its every text (action_ranges.py)
    int_range: Optional[tuple] = None  # (LO fn, HI fn, PREFIX, SUFFIX) when it may be listed as a range
    face_down_reads: tuple = ()  # per requirement of `requires`, the card choices it reads (() if none
                                 # reads one): a requirement does not apply to a face-down pick

    def __attrs_post_init__(self):
        self.card_slots = tuple((p.name, p.kind) for p in self.params if p.kind in ("card", "cards", "use"))


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
    optional: Optional[Callable] = None  # 'optional "prompt"': the prompt's template (None: not optional)
    fixed: Optional[Callable] = None     # the part of its condition fixed for a game (options only);
                                         # `when` is the rest (static_conditions.py)
    pure: bool = True                    # `when` draws no random number
    # A card's trigger whose condition draws no random number (owner_keys.py):
    owner_key: Optional[str] = None      # the event's field that says whose copies may fire
    owner_zones: Optional[frozenset] = None  # ... as a zone of theirs, one of these (None: as the player)
    guard: Optional[Callable] = None     # else, the head of `when` that reads neither owner nor self
    guard_first: bool = False            # ... which cannot fail: it may be read before looking for copies


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
    # the coverage keys of its 'next' clauses (rulespec/lang/branches.py), in a program that counts
    # branches and a phase with several; None otherwise
    next_keys: Optional[list] = None
