"""How a table of a game is drawn: the rules' ``display`` block with a default for every clause it
does not give, so that every rules file can be drawn as a table without one (``rulespec serve``).

Nothing here changes play: the engine never reads it.  The defaults read only the shape of the
rules (types, visibility, member names), never a game:

* ``seat``: every per-player variable holding a number, a yes/no, a text, an enum member or a player;
* ``table``: none (every variable is still listed, in words, beside the table);
* ``hand``: the per-player zones only their owner sees (``owner``) or all but their owner (``others``);
* ``aside``: none;
* ``suit``: the first enum property with a member named like a suit of the French deck (spade or
  spades, heart(s), diamond(s), club(s)): drawn ♠ ♥ ♦ ♣, hearts and diamonds red;
* ``rank``: none (a card's printed properties are all on its face; a rank in the corner is asked for);
* ``colour``: the first other enum property with a member named like a colour (red, blue, ...).
"""
from __future__ import annotations

from typing import Optional

import attrs

from .english_words import noun_phrase

SUIT_SYMBOLS = {"spade": "♠", "spades": "♠", "heart": "♥", "hearts": "♥",
                "diamond": "♦", "diamonds": "♦", "club": "♣", "clubs": "♣"}
RED_SUITS = frozenset(["heart", "hearts", "diamond", "diamonds"])
COLOURS = frozenset(["red", "black", "blue", "green", "yellow", "orange", "purple", "white", "grey", "gray",
                     "brown", "pink", "gold", "silver"])
_SCALARS = ("int", "bool", "text", "enum", "player")


@attrs.frozen
class Layout:
    seat: tuple    # ((per-player variable, caption), ...)
    table: tuple   # ((shared variable, caption), ...)
    hand: tuple    # per-player zones held in the hand
    aside: tuple   # zones left off the table
    suit: Optional[str]
    rank: Optional[str]
    colour: Optional[str]


def caption(model, var: str) -> str:
    """A variable as the rulebook names it ('to_play' -> 'player to play')."""
    return noun_phrase(var, model.vars[var].type)


def layout(model) -> Layout:
    """The rules' display block, each clause it does not give by its default."""
    d = model.display
    given = (lambda clause: getattr(d, clause)) if d is not None else (lambda clause: None)
    seat = given("seat")
    if seat is None:
        seat = tuple((n, None) for n, v in model.vars.items() if v.per_player and v.type.name in _SCALARS)
    table = given("table") or ()
    hand = given("hand")
    if hand is None:
        hand = tuple(n for n, z in model.zones.items() if z.per_player and z.visibility in ("owner", "others"))
    suit = given("suit") or _enum_property(model, lambda members: any(m in SUIT_SYMBOLS for m in members))
    rank = given("rank")
    colour = given("colour") or _enum_property(model, lambda members: any(m in COLOURS for m in members),
                                               but=suit)
    return Layout(tuple((n, c or caption(model, n)) for n, c in seat),
                  tuple((n, c or caption(model, n)) for n, c in table),
                  tuple(hand), tuple(given("aside") or ()), suit, rank, colour)


def _enum_property(model, fits, but: Optional[str] = None) -> Optional[str]:
    for name, p in model.properties.items():
        if name != but and p.type.name == "enum" and fits(model.enums[p.type.enum].members):
            return name
    return None
