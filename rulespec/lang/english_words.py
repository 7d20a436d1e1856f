"""Words for the English of the rules (english.py): names as noun phrases, number, articles.

A rules file names things with identifiers (`to_play`, `hints`, `went_out`); the rulebook
reads them as English.  Nothing here knows a game: the rules are about the shape of a name
and the type of what it names.
"""
from __future__ import annotations

from . import types as T

# Words that make a name not a noun phrase when it starts with one: "to_play" is "the player
# to play", not "the to play"; "went_out" is "the player who went out".
_PREPOSITIONS = {"to", "as", "in", "on", "at", "by", "for", "from", "with", "of", "after", "before",
                 "into", "under", "over", "against"}
_VERBS = {"went", "goes", "has", "had", "have", "is", "was", "were", "are", "did", "does", "can", "could",
          "must", "may", "might", "will", "would", "shall", "should", "took",
          "gave", "came", "saw", "said"}
# Participles that name a thing by what happened to it: a one-word name "drawn" is "the drawn card".
_PARTICIPLES = {"drawn", "taken", "seen", "shown", "chosen", "given", "known", "hidden", "beaten", "won", "lost",
                "dealt", "held", "kept", "laid", "made", "sent", "thrown", "broken", "fallen", "stolen", "told"}
# Words ending in s that are not plurals.
_SINGULAR_S = {"its", "yes", "was", "has", "does", "this", "plus", "gas", "bus", "lens", "news", "series",
               "status", "chaos", "bias", "canvas", "always", "less", "thus", "us", "is", "as"}
# Words that may hide a name, when the English decides if an owner can take "'s".
_JOINING = {"of", "in", "on", "to", "for", "if", "such", "with", "from", "after", "before", "than", "who",
            "that", "at", "by", "into", "where", "otherwise", "minus", "plus", "times", "and", "or", "not"}


def words(name: str) -> str:
    """an_identifier -> 'an identifier'."""
    return name.replace("_", " ")


def is_plural_word(word: str) -> bool:
    """'hints', 'cards', 'cs' are plural; 'status', 'pass', 'series', 'c' are not."""
    w = word.lower()
    return len(w) >= 2 and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous")) \
        and w not in _SINGULAR_S


def is_plural_name(name: str) -> bool:
    """A name is plural when its last word is ('hand_points', 'cs'; not 'tricks_won')."""
    return is_plural_word(name.rsplit("_", 1)[-1])


def type_noun(t: T.Type) -> str:
    """The noun for a value of type t: 'player', 'card', 'number', 'cards', ..."""
    if t.name == "zone" or t == T.CARDS:
        return "cards"
    if t.name == "list":
        inner = type_noun(t.elem) if t.elem is not None else "value"
        return inner if inner.endswith("s") else inner + "s"
    if t.name == "enum":
        return words(t.enum or "value").lower()
    return {"player": "player", "card": "card", "int": "number", "text": "text", "entry": "effect",
            "play": "play", "bool": "condition", "use": "card", "record": "record"}.get(t.name, "value")


def noun_phrase(name: str, t: T.Type) -> str:
    """A name as a noun (without 'the'): 'to_play' -> 'player to play', 'went_out' -> 'player who
    went out', 'drawn' -> 'drawn card', 'dealer' -> 'dealer'.  A name that starts with a
    preposition or a verb, or is one participle, is not a noun of its own, so the noun of the
    type of what it names goes with it."""
    w = words(name)
    first = w.split(" ", 1)[0]
    if t == T.BOOL:
        return w  # a yes/no name reads as a condition ("said go"), never as a noun
    if first in _PREPOSITIONS:
        return f"{type_noun(t)} {w}"
    if first in _VERBS:
        return f"{type_noun(t)} {'who' if t == T.PLAYER else 'that'} {w}"
    if w == first and t.name not in ("int", "bool", "text") and _is_participle(w):
        return f"{w} {type_noun(t)}"
    return w


def _is_participle(word: str) -> bool:
    return word in _PARTICIPLES or (len(word) > 4 and word.endswith("ed") and not word.endswith("eed"))


def article(noun: str) -> str:
    """'a card', 'an effect'."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def can_own(text: str) -> bool:
    """May this English take "'s" ("p's hand") without it landing on the wrong noun ("the first of
    the cards in the trick's suit")?  Only a short phrase with nothing that joins two nouns."""
    if "(" in text or "," in text or "“" in text:
        return False
    return not any(w in _JOINING for w in text.split(" "))


def possessive(owner: str) -> str:
    if owner in ("you", "You"):
        return "your"
    return owner + ("'" if owner.endswith("s") else "'s")


def owned(owner: str, noun: str) -> str:
    """'p's hand', or 'the suit of the first card in the trick' when the owner is a long phrase."""
    return f"{possessive(owner)} {noun}" if can_own(owner) else f"the {noun} of {owner}"


def agree(verb_phrase: str, plural: bool) -> str:
    """'is more than' -> 'are more than' for a plural subject."""
    if not plural:
        return verb_phrase
    head, _, rest = verb_phrase.partition(" ")
    head = {"is": "are", "was": "were", "has": "have"}.get(head, head)
    return f"{head} {rest}" if rest else head
