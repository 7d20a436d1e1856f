"""The types of rulespec expressions."""
from __future__ import annotations

import attrs


@attrs.frozen(slots=False)  # unpickled without Python code (see ast.py)
class Type:
    name: str
    elem: "Type | None" = None  # list element type
    enum: "str | None" = None   # enum name for enum types

    def __str__(self) -> str:
        if self.name == "list":
            return f"list[{self.elem}]"
        if self.name == "enum":
            return str(self.enum)
        if self.name == "record":
            return f"the record of event {self.enum}"
        return self.name


INT = Type("int")
BOOL = Type("bool")
TEXT = Type("text")
PLAYER = Type("player")
CARD = Type("card")
PLAY = Type("play")
ZONE = Type("zone")
NONE = Type("none")
ENTRY = Type("entry")  # an effect on the response stack
USE = Type("use")      # a card as used: a card of a name (maybe converted), its physical cards and properties
ANY = Type("any")  # used after an error, to avoid cascades of follow-on errors


def list_of(t: Type) -> Type:
    return Type("list", elem=t)


def enum_type(name: str) -> Type:
    return Type("enum", enum=name)


def record_type(event: str) -> Type:
    """The record of an emitted event: its fields after every trigger, and 'prevented'."""
    return Type("record", enum=event)


CARDS = list_of(CARD)
PLAYERS = list_of(PLAYER)

NULLABLE = {"player", "card", "play", "entry", "use", "record"}
SIMPLE = {"int": INT, "bool": BOOL, "text": TEXT, "player": PLAYER, "card": CARD, "play": PLAY, "entry": ENTRY,
          "use": USE}


def is_list(t: Type) -> bool:
    return t.name == "list" or t.name == "zone"


def elem_of(t: Type) -> Type:
    if t.name == "zone":
        return CARD
    if t.name == "list":
        return t.elem or ANY
    return ANY


def assignable(target: Type, value: Type) -> bool:
    """May a value of type `value` be stored where `target` is expected?"""
    if ANY in (target, value) or target == value:
        return True
    if value == NONE and target.name in NULLABLE:
        return True
    if target.name == "list" and value.name == "zone":
        return target.elem in (CARD, ANY)
    if target.name == "list" and value.name == "list":
        return value.elem is None or value.elem == ANY or assignable(target.elem, value.elem)
    return False


def ordered_enum(t: Type) -> bool:
    """Is t an enum, whose members compare in the order the enum declares them?"""
    return t.name == "enum"


def comparable(a: Type, b: Type) -> bool:
    return assignable(a, b) or assignable(b, a)


def unify(a: Type, b: Type) -> Type:
    if a == ANY:
        return b
    if b == ANY:
        return a
    if a == NONE:
        return b
    if b == NONE:
        return a
    if a.name == "zone" and b.name == "zone":
        return a  # either of two zones is a zone ('if c then hand[p] else spare[p]')
    if a.name == "zone":
        a = CARDS
    if b.name == "zone":
        b = CARDS
    if a.name == "list" and b.name == "list":
        if a.elem in (None, ANY):
            return b
        return a
    return a
