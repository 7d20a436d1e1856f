"""Face-down markers: the values a choice offers for cards its chooser cannot see.

A marker is an int past the card ids, so that it travels in actions, pending choices and JSON like
a card and `v >= card_count` tells it apart:

  * ``card_count + zone``: "a face-down card of that zone", drawn at random when the choice is
    made (choices.resolve_hidden);
  * ``card_count + zone_count * (i + 1) + zone``: with ``by position``, the face-down card at
    index i of the zone (0: its bottom card, the first put there), taken as it lies.

Neither says which card it stands for, so options and their texts do not depend on hidden faces.
"""
from __future__ import annotations


def any_marker(prog, zi: int) -> int:
    return prog.card_count + zi


def position_marker(prog, zi: int, i: int) -> int:
    return prog.card_count + len(prog.slots) * (i + 1) + zi


def marker_zone(prog, m: int) -> int:
    return (m - prog.card_count) % len(prog.slots)


def marker_index(prog, m: int) -> int:
    """The index in its zone of the card a `by position` marker stands for; -1 for any card."""
    return (m - prog.card_count) // len(prog.slots) - 1


def marker_count(card_count: int, zone_count: int) -> int:
    """How many values a card choice may hold: the cards, then every marker a game can make."""
    return card_count + zone_count * (card_count + 1)


def marker_text(prog, m: int) -> str:
    zone = prog.slots[marker_zone(prog, m)].name
    i = marker_index(prog, m)
    return f"a face-down card of {zone}" if i < 0 else f"face-down card {i + 1} of {zone}"


def face_down(prog, v) -> bool:
    """Does the value of a card or cards choice hold a face-down marker?"""
    n = prog.card_count
    if type(v) is int:
        return v >= n
    return type(v) is list and any(c >= n for c in v)
