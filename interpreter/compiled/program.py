"""CompiledProgram: the reference Program with the parts the game compiler specialises."""
from __future__ import annotations

from ..compiler import Program


class CompiledProgram(Program):
    """A game compiled to one generated module (see the package's docstring)."""

    engine = "compiled"

    def module_source(self) -> str:
        """The generated module of this game as Python text (for reading; the engine runs the code
        objects it compiled from it).  Empty when the build replayed a cached session that kept
        no source."""
        return ""
