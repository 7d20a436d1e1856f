"""A loaded game: the checked model plus its compiled program; it makes new states."""
from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Optional, Union

from rulespec.checker import check_file, check_text
from rulespec.diagnostics import did_you_mean
from rulespec.model import Model

from .compiler import Program
from .errors import EngineError
from .state import State, stable_hash


class OptionError(EngineError, ValueError):
    """A bad --option or player count."""


class Game:
    def __init__(self, model: Model, path: str, fused: bool = True):
        self.model = model
        self.path = path
        self.source_hash = stable_hash(model.source)
        self.prog = Program(model, fused=fused)

    @property
    def name(self) -> str:
        return self.model.name

    def parse_option(self, name: str, value) -> object:
        """Check an option's name and convert a value (possibly a command-line string) to its type."""
        info = self.model.options.get(name)
        if info is None:
            hint = did_you_mean(name, self.model.options)
            known = ", ".join(self.model.options) or "none"
            raise OptionError(f"unknown option '{name}' for {self.name}" + (f"; {hint}" if hint else f" (options: {known})"))
        t = info.type
        if t.name == "bool":
            if isinstance(value, bool):
                return value
            v = str(value).strip().lower()
            if v in ("true", "yes", "on", "1"):
                return True
            if v in ("false", "no", "off", "0"):
                return False
            raise OptionError(f"option '{name}' is true or false, not '{value}'")
        if t.name == "int":
            try:
                return int(value)
            except (TypeError, ValueError):
                raise OptionError(f"option '{name}' is a whole number, not '{value}'") from None
        if t.name == "enum":
            members = self.model.enums[t.enum].members
            if str(value) not in members:
                raise OptionError(f"option '{name}' is one of {', '.join(members)}, not '{value}'")
            return str(value)
        return str(value)

    def default_options(self) -> dict:
        return {name: info.default for name, info in self.model.options.items()}

    def new_state(self, players: Optional[int] = None, seed: int = 0, options: Optional[dict] = None,
                  coverage=None) -> State:
        n = self.model.min_players if players is None else players
        if not isinstance(n, int) or not (self.model.min_players <= n <= self.model.max_players):
            raise OptionError(f"{self.name} is for {self.model.min_players}-{self.model.max_players} players, not {players}")
        opts = self.default_options()
        for k, v in (options or {}).items():
            opts[k] = self.parse_option(k, v)
        return State.new(self, n, int(seed), opts, coverage)


@functools.lru_cache(maxsize=32)
def _load_cached(path: str, mtime: float) -> Game:
    return Game(check_file(path), path)


def load(path: Union[str, Path]) -> Game:
    """Parse, check and compile a rules file (raises rulespec.RulesError with diagnostics)."""
    p = str(path)
    try:
        mtime = os.path.getmtime(p)
    except (OSError, ValueError):  # no such file, or a NUL byte in the name: check_file reports it
        mtime = -1.0
    return _load_cached(p, mtime)


def load_text(text: str, path: str = "<string>") -> Game:
    return Game(check_text(text, path), path)
