"""A variable's value as numbers: the `vars` piece of the observation tensor (obs_tensor.py).

Each type has a fixed width, so a game's tensor has one size whatever its variables hold. The
values are the ones the player's observation shows (State.observation): a card the player may
not see is "hidden card" there, and is counted here as hidden, never by its name.

  int, bool       1        the number (yes 1, no 0)
  player          n + 1    one-hot; the last: nobody
  card            K + 1    one-hot over the K card labels; the last: a card the player cannot see
  enum            m + 1    one-hot over the m members; the last: none
  text            1 + 16   1 when set (not empty), then a one-hot of the text's bucket: 16
                           buckets by a fixed hash of the text (equal texts, equal buckets)
  list[card]      1 + K + 1
                           the length, how many of its cards have each label (a count per
                           label: the order is not kept), how many the player cannot see
  list[T], T any other type above or a list
                  1 + L x width(T)
                           the length, then the first L items in order, each as a value of T
                           (an item past the list's end: all 0); L = 8, or the player count
                           for a list of players when more (every seat of a list of distinct
                           players). Items past the L-th count in the length only.
  any other type  1        set or not (a list of them: its length)
"""
from __future__ import annotations

import zlib

LIST_ITEMS = 8     # L: the items of a list encoded one by one
TEXT_BUCKETS = 16  # the buckets of a text's hash


def var_encoder(t, n: int, labels: dict, model):
    """(width, encode(value, vec, at)) for a value of type t in an n-player game whose card
    labels are `labels` (label -> index); `encode` adds into vec[at:at + width]."""
    name = t.name
    if name in ("int", "bool"):
        return 1, _number
    if name == "player":
        def enc(v, vec, at):
            vec[at + seat(v, n)] = 1.0
        return n + 1, enc
    if name == "card":
        k = len(labels)

        def enc(v, vec, at):
            if v is not None:
                vec[at + labels.get(v, k)] = 1.0
        return k + 1, enc
    if name == "enum" and t.enum in model.enums:
        members = {m: i for i, m in enumerate(model.enums[t.enum].members)}
        m = len(members)

        def enc(v, vec, at):
            vec[at + members.get(v, m)] = 1.0
        return m + 1, enc
    if name == "text":
        return 1 + TEXT_BUCKETS, _text
    if name == "list":
        return _list_encoder(t.elem, n, labels, model)
    return 1, _set_or_not


def _list_encoder(elem, n: int, labels: dict, model):
    if elem is not None and elem.name == "card":
        k = len(labels)

        def cards(v, vec, at):
            if isinstance(v, list):
                vec[at] = float(len(v))
                at += 1
                for label in v:
                    vec[at + labels.get(label, k)] += 1.0  # "hidden card": the last
        return k + 2, cards
    if elem is None or elem.name not in ("int", "bool", "player", "enum", "text", "list"):
        return 1, _length
    width, item = var_encoder(elem, n, labels, model)
    items = max(LIST_ITEMS, n) if elem.name == "player" else LIST_ITEMS

    def seq(v, vec, at):
        if isinstance(v, list):
            vec[at] = float(len(v))
            at += 1
            for x in v[:items]:
                item(x, vec, at)
                at += width
    return 1 + items * width, seq


def _number(v, vec, at):
    if isinstance(v, (int, float)):
        vec[at] = float(v)


def _text(v, vec, at):
    if isinstance(v, str) and v:
        vec[at] = 1.0
        vec[at + 1 + zlib.crc32(v.encode("utf-8")) % TEXT_BUCKETS] = 1.0


def _length(v, vec, at):
    if isinstance(v, list):
        vec[at] = float(len(v))


def _set_or_not(v, vec, at):
    vec[at] = 0.0 if v is None or v == "" else 1.0


def seat(name, n: int) -> int:
    """'P3' -> 2; nobody (or anything else) -> n."""
    if isinstance(name, str) and name.startswith("P") and name[1:].isdigit():
        p = int(name[1:]) - 1
        if 0 <= p < n:
            return p
    return n
