"""Errors the engine raises at run time."""
from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the interpreter raises on purpose."""


class IllegalActionError(EngineError):
    """An action that is not legal now. The state is left unchanged."""


class ActionTypeError(IllegalActionError, TypeError):
    """apply() or explain_illegal() given something that is no action at all: neither an Action
    nor an action's text (None, a number, a list).  The state is left unchanged."""


class SeatError(EngineError, ValueError):
    """A method that takes a player (observation, log_lines) given something that is not a seat
    of this game: a seat is a whole number from 0 to players - 1 (None is the omniscient view)."""


class RuleRuntimeError(EngineError):
    """The rules asked for something impossible while running (a bug in the rules file)."""

    def __init__(self, message: str, path: str = "", span=None):
        self.path = path
        self.span = span
        where = f"{path}:{span.line}:{span.col}: " if span is not None else ""
        super().__init__(f"{where}runtime error: {message}")


class GameOver(Exception):
    """Raised by 'end game' to unwind the running effect at once (caught by the engine)."""
