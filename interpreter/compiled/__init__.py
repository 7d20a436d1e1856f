"""The game compiler: a rules file's Model becomes one generated Python module.

The reference engine (interpreter/compiler.py's Program) compiles every expression to generated
Python but runs statements as closures and lists legal actions through generic layers.  The
game compiler (CompiledProgram) is a subclass of it that writes more of the game as Python
specialised to this rules file, in the same namespace as the expressions (one module a rules
file, kept on disk by code_cache.py under the file's hash), and runs on the same State: the
JSON state format is shared, so a state moves between the two engines.

The differential check (rulespec/tools/fuzzing/differential.py) plays both engines on the same
seeds and compares every decision's legal actions and the final state: any difference is a bug
in the compiler.
"""
from .program import CompiledProgram

__all__ = ["CompiledProgram"]
