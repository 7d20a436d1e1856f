"""rulespec: card games written as text, checked like code, run by one generic engine."""
from rulespec.lang.errors import RulesError

__version__ = "0.1.0"


def load(path, engine=None):
    """Load a rules file into a playable Game (see interpreter.load).  path: a rules file, or the
    name of a game shipped with rulespec (`rulespec.load("NAME")`; `rulespec games` lists them; a
    file that exists wins).  engine: "compiled" (the default: the game compiled to generated
    Python) or "interpreted" (the reference engine)."""
    from interpreter import load as _load  # imported when called: the language floor (rulespec.lang) runs without the engine
    from rulespec.tools.shipped_games import resolve
    return _load(resolve(path), engine=engine)


def __getattr__(name: str):
    if name == "Diagnostic":  # imported on first use: `rulespec check` of a cached file never needs it
        from rulespec.lang.diagnostics import Diagnostic
        return Diagnostic
    raise AttributeError(f"module 'rulespec' has no attribute '{name}'")


__all__ = ["Diagnostic", "RulesError", "load", "__version__"]
