"""The rulespec interpreter: runs any checked game model. It knows no game."""
from .actions import Action
from .errors import EngineError, IllegalActionError, RuleRuntimeError
from .game import Game, OptionError, load, load_text
from .state import State

__all__ = ["Action", "EngineError", "Game", "IllegalActionError", "OptionError", "RuleRuntimeError",
           "State", "load", "load_text"]
