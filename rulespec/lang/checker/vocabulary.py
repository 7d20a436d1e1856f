"""What the language knows without a declaration, and the sizes the checker holds a game to.

The built-in names, events, functions and fields that every rules file may use (the LSP and the
engine read these tables too), and the limits the checker reports as errors or warnings.
"""
from __future__ import annotations

from .. import types as T

ZONE_KINDS = {"pile", "set", "plays"}
# who sees a zone's faces: everyone, its owner, every player but its owner (a hand held facing
# away), nobody; and "top" (written `top public`: the top card seen by everyone, the rest by nobody)
ZONE_VISIBILITY = {"public", "owner", "others", "hidden"}
TOP_PUBLIC = ("top", "public")  # the two words of the top-public visibility (model visibility "top")
# Words an expression always reads as themselves (a literal, or the start of 'if', 'let', 'not'):
# a declared name spelt so could never be read back
RESERVED_WORDS = frozenset({"none", "true", "false", "if", "let", "not"})
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
    "sees": "whether a player sees a card's face now (its zone, or the card on its own)",
    "subsets": "every subset of a list (the empty one and the whole list too), smallest first",
    "combinations": "every subset of a list with exactly k items, in the list's order",
}
