"""A loaded game: the checked model plus its compiled program; it makes new states."""
from __future__ import annotations

import hashlib
import operator
import os
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Optional, Union

from rulespec.lang.checker import check_file, check_text
from rulespec.lang.diagnostics import did_you_mean
from rulespec.lang.model import Model
from rulespec.lang.model_cache import no_gc
from rulespec.lang.source import decode

from .cardsets import DEFAULT_MAX_CHOICES
from .compiler import Program
from .errors import EngineError
from .state import State, stable_hash, use_rules_loader


class OptionError(EngineError, ValueError):
    """A bad --option or player count."""


ENGINES = ("compiled", "interpreted")


def engine_named(engine: Optional[str]) -> str:
    """The engine to run games on: the name given, else $RULESPEC_ENGINE, else "compiled" (the
    game compiler, interpreter/compiled/); "interpreted" is the reference it is checked against."""
    name = engine if engine is not None else (os.environ.get("RULESPEC_ENGINE") or "compiled")
    if name not in ENGINES:
        where = "" if engine is not None else " ($RULESPEC_ENGINE)"
        raise OptionError(f"unknown engine {name!r}{where}: the engines are {' and '.join(ENGINES)}")
    return name


def _program_class(engine: str):
    if engine == "compiled":
        from .compiled import CompiledProgram
        return CompiledProgram
    return Program


class Game:
    def __init__(self, model: Model, path: str, fused: bool = True, engine: Optional[str] = None):
        """engine: "compiled" (the default, see engine_named) or "interpreted" (the reference)."""
        self.model = model
        self.path = path
        self.engine = engine_named(engine)
        self.source_hash = stable_hash(model.source)
        self.fused = fused
        with no_gc():  # thousands of long-lived closures: collecting meanwhile finds nothing
            self.prog = _program_class(self.engine)(model, fused=fused)
        self._counting: Optional[Program] = None  # the program that counts branches (program())
        # the most candidate choices one decision may list before the engine stops with a rules
        # error naming the action (an unbounded 'cards' choice on a big hand has millions)
        self.max_choices = DEFAULT_MAX_CHOICES

    def program(self, branches: bool = False) -> Program:
        """The compiled rules: `prog`; with branches=True the same rules built to count every
        branch they take in a state's coverage counter (rulespec/lang/branches.py), built the
        first time a state with a counter is made (plain play never runs that code)."""
        if not branches:
            return self.prog
        if self._counting is None:
            with no_gc():
                self._counting = _program_class(self.engine)(self.model, fused=self.fused, branches=True)
        return self._counting

    @property
    def name(self) -> str:
        return self.model.name

    def parse_option(self, name: str, value) -> object:
        """Check an option's name and convert a value (possibly a command-line string) to its type."""
        info = self.model.options.get(name)
        if info is None:
            hint = did_you_mean(name, self.model.options)
            known = ", ".join(n + (f" ({o.values[0]} to {o.values[1]})" if o.values is not None else "")
                              for n, o in self.model.options.items()) or "none"
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
            whole = _whole_number(value)
            lo, hi = info.values if info.values is not None else (None, None)
            if whole is None:
                within = f" from {lo} to {hi}" if lo is not None else ""
                raise OptionError(f"option '{name}' is a whole number{within}, not {value!r}")
            if lo is not None and not lo <= whole <= hi:
                raise OptionError(f"option '{name}' is a whole number from {lo} to {hi}, not {whole}")
            return whole
        if t.name == "enum":
            members = self.model.enums[t.enum].members
            if str(value) not in members:
                raise OptionError(f"option '{name}' is one of {', '.join(members)}, not '{value}'")
            return str(value)
        return str(value)

    def default_options(self) -> dict:
        return {name: info.default for name, info in self.model.options.items()}

    def new_state(self, players: Optional[int] = None, seed: int = 0, options: Optional[dict] = None,
                  coverage=None, start_order=None, count_branches: bool = True) -> State:
        """A new game, run to its first decision.  players: a whole number in the game's range
        (default: its minimum); seed: a whole number; options: a mapping of option name to value.
        start_order: the cards where cards start, bottom to top, instead of the order the rules
        declare them in (a permutation of the card numbers: the counterfactual secrecy check
        deals other cards by it, before the setup reads any; see rulespec/tools/fuzzing/secrecy.py).
        coverage: a collections.Counter that counts the rules the game exercises, and the branches
        it takes (the state runs on program(branches=True)); count_branches=False counts the rules
        only, on the plain program (a tool that wants the rules' uses, not the branches); see State.new."""
        n = self.model.min_players if players is None else players
        if not _whole(n) or not (self.model.min_players <= n <= self.model.max_players):
            raise OptionError(f"{self.name} is for {self.model.min_players}-{self.model.max_players} players, not {players!r}")
        if not _whole(seed):
            raise OptionError(f"the seed must be a whole number, not {seed!r}")
        if options is not None and not isinstance(options, Mapping):
            raise OptionError(f"options must be a mapping of option name to value, not {type(options).__name__}")
        opts = self.default_options()
        for k, v in (options or {}).items():
            if not isinstance(k, str):
                raise OptionError(f"an option's name is text, not {k!r}")
            opts[k] = self.parse_option(k, v)
        if start_order is not None:
            start_order = list(start_order)
            if sorted(start_order) != list(range(self.prog.card_count)):
                raise OptionError(f"start_order must hold each of the {self.prog.card_count} cards once")
        return State.new(self, n, seed, opts, coverage, start_order, count_branches)


def _whole(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _whole_number(value) -> Optional[int]:
    """An int option's value: an int, a text of one ('12', from the command line or a form), or a
    float with nothing after the point (2.0, from YAML or JSON); None for anything else.  Never
    truncated: 1.5 or 2.99 is not a count of anything, and true is not a number."""
    if isinstance(value, bool):
        return None
    if hasattr(type(value), "__index__"):  # an int, or numpy's whole numbers
        try:
            return operator.index(value)
        except TypeError:
            return None
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


_CACHE: "OrderedDict[tuple, Game]" = OrderedDict()
_CACHE_SIZE = 32


def load(path: Union[str, Path], engine: Optional[str] = None) -> Game:
    """Parse, check and compile a rules file (raises rulespec.RulesError with diagnostics).
    engine: "compiled" (default) or "interpreted" (the reference), see engine_named.
    Games are cached by path, content and engine (a hash of the bytes, not the file's time
    stamp, which does not change when a file is rewritten within the same tick)."""
    p = str(path)
    engine = engine_named(engine)
    try:
        data = Path(p).read_bytes()
    except (OSError, ValueError):  # no such file, a directory, a NUL byte in the name: check_file says so
        return Game(check_file(p), p, engine=engine)
    key = (p, hashlib.sha256(data).hexdigest(), engine)
    game = _CACHE.get(key)
    if game is None:
        game = Game(check_text(decode(data, p), p), p, engine=engine)  # the very bytes that were hashed
        _CACHE[key] = game
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return game


def load_text(text: str, path: str = "<string>", engine: Optional[str] = None) -> Game:
    return Game(check_text(text, path), path, engine=engine)


use_rules_loader(load)  # State.from_json(text) with no game loads the rules the state names
