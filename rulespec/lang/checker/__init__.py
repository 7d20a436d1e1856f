"""AST -> Model.  Resolves every name, types every expression, analyses the phase graph.

The checker reports every problem it finds (not only the first) as Diagnostics;
``check`` raises RulesError when any of them is an error.

One module a pass, each a mixin of the Checker (driver.py composes them and runs them in order):
declarations.py (the symbol table), bodies.py (every declaration's body), choices.py (actions,
conversions and their choices), effects.py (effects, events, triggers), statements.py (blocks),
expressions.py (types and references), lints.py (warnings of likely mistakes); vocabulary.py holds
the built-in names and the limits.  The phase graph is rulespec/lang/graph.py.
"""
from __future__ import annotations

from .. import model_cache
from ..gc_pause import no_gc
from ..model import Model
from ..source import read_source  # the parser (and Lark) are imported only to parse: not for a cached model
from .driver import Checker, check
from .vocabulary import (BUILTIN_EVENTS, BUILTIN_FUNCS, BUILTIN_NAMES, COMBINE, ENTRY_FIELDS, LIMIT_UNIT,
                         MAX_CARDS, MAX_CHOICES, MAX_PLAYERS, MAX_RANGE, QUANTIFIERS, TIMINGS, USE_FIELDS,
                         WRITABLE_ENTRY_FIELDS, ZONE_KINDS, ZONE_VISIBILITY)

__all__ = ["BUILTIN_EVENTS", "BUILTIN_FUNCS", "BUILTIN_NAMES", "COMBINE", "Checker", "ENTRY_FIELDS", "LIMIT_UNIT",
           "MAX_CARDS", "MAX_CHOICES", "MAX_PLAYERS", "MAX_RANGE", "QUANTIFIERS", "TIMINGS", "USE_FIELDS",
           "WRITABLE_ENTRY_FIELDS", "ZONE_KINDS", "ZONE_VISIBILITY", "check", "check_file", "check_text"]


def check_file(path) -> Model:
    return check_text(read_source(path), str(path))


def check_text(text: str, path: str = "<string>") -> Model:
    """Parse and check; a large file checked before (by this rulespec) comes from the model cache."""
    # here, not in driver.py: build() calls the `check` of this package, the one tests patch
    def build() -> Model:
        from ..parser import parse_text
        with no_gc():  # tens of thousands of long-lived nodes and facts about them
            return check(parse_text(text, path))
    return model_cache.checked_model(text, path, build)
