"""The rulespec interpreter: runs any checked game model. It knows no game.

The names below are imported on first use, so that importing a light submodule
(``interpreter.errors``) does not load the whole engine."""
from __future__ import annotations

import importlib

_EXPORTS = {"Action": "actions", "EngineError": "errors", "IllegalActionError": "errors",
            "ActionTypeError": "errors", "SeatError": "errors", "RuleRuntimeError": "errors", "Game": "game", "OptionError": "game", "load": "game",
            "load_text": "game", "State": "game"}  # State through game.py: see state.use_rules_loader

__all__ = ["Action", "ActionTypeError", "EngineError", "Game", "IllegalActionError", "OptionError",
           "RuleRuntimeError", "SeatError", "State", "load", "load_text"]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'interpreter' has no attribute '{name}'")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
