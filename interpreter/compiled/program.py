"""CompiledProgram: the reference Program with the parts the game compiler specialises."""
from __future__ import annotations

from typing import Callable

from ..compiler import Program
from ..expression_writer import _Gen
from .module_text import module_text


class CompiledProgram(Program):
    """A game compiled to one generated module (see the package's docstring)."""

    engine = "compiled"

    def _block_compiler(self):
        from .block_compiler import CompiledBlockCompiler  # runs of plain statements as generated code
        return CompiledBlockCompiler(self)

    def define(self, kind: str, span, params: str, build: Callable, own=None) -> Callable:
        """One generated function of this game's module.  build(g) gets a _Gen (expression_writer.py:
        g.expr(e) is the inline source of expression e, g.bind(value, recipe) names a value) and
        returns the function's body, each line indented by one space.  kind names what the
        function is ("stmt", "list", ...); with the span it keys the function in the code cache,
        which replays it in later processes like the expressions' functions (the compiler must ask
        for its functions in the same order every build).
        own: a value the function refers to that no recipe makes again (the statements' fallbacks:
        interpreter/compiled/statements.py): the caller makes it anew every build, and build
        finds its name in g.own."""
        s = self.exprs.session
        if s is not None and s.replay:
            k, line, col, fname, xname = s.replay.pop()
            if (k, line, col) == (kind, span.line, span.col) and (xname is None) == (own is None):
                if xname is not None:
                    s.ns[xname] = own
                    s.explains.append(xname)
                return s.ns[fname]
            s.replay, s.mismatch = [], True  # not the build that was recorded: generate from here on
        g = _Gen(self.exprs, False, {}, True, session=s)
        # (the recipe "explain" keeps the name out of the record: a replaying build binds its own)
        xname = g.own = g.bind(own, ("explain",)) if own is not None else None
        body = build(g)
        f = g.define(params, body, span)
        if s is not None:
            s.entries.append((kind, span.line, span.col, f.__name__, xname))
        return f

    def _before_finish(self) -> None:
        """Every part of the game is compiled and the session still records: each phase's turn of
        the phase machine (phases.py), then the listers of the actions (listing.py), asked for in
        declaration order like everything else (the code cache replays them in this order)."""
        from .listing import build_listers
        from .phases import write_phases
        self.phase_code = write_phases(self)
        build_listers(self)

    def module_source(self) -> str:
        """The generated module of this game as Python text (for reading; the engine runs the code
        objects it compiled from it): see module_text.py."""
        return module_text(self)
