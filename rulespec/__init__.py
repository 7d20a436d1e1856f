"""rulespec: card games written as text, checked like code, run by one generic engine."""
from .diagnostics import Diagnostic, RulesError

__version__ = "0.1.0"


def load(path):
    """Load a rules file into a playable Game (see interpreter.load)."""
    from interpreter import load as _load  # the CLI and this helper are rulespec's only links to the engine
    return _load(path)


__all__ = ["Diagnostic", "RulesError", "load", "__version__"]
