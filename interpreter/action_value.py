"""The Action value: what legal_actions() lists and apply() takes.  It stands alone so that the
modules that make actions (actions.py, action_ranges.py) can both name it."""
from __future__ import annotations

from typing import NamedTuple


class Action(NamedTuple):
    """One legal action: its name, its filled-in parameters and its readable, unique text.
    (An immutable named tuple: cheap to make, since a decision lists many of them.)"""
    name: str
    params: tuple  # ((param name, value), ...)
    text: str

    def __str__(self) -> str:
        return self.text


_tuple_new = tuple.__new__


def new_action(name: str, params: tuple, text: str) -> Action:
    """Action(name, params, text) without NamedTuple's argument handling (it is made in bulk)."""
    return _tuple_new(Action, (name, params, text))
