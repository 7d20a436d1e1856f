"""Blocks of the compiled engine: every run of statements that cannot stop is one generated step.

The reference BlockCompiler (blocks.py) adds each plain statement's closure to the block and
fuses a run of them into a step that loops over the closures.  This one hands the whole run to
statements.py, which writes it as one function; that function is the step itself.  The steps
that may stop (choose, emit with triggers, stack now, moves while 'moved' is listened to) and
what a saved frame may hold (the names bound where each step starts) are the reference's.
"""
from __future__ import annotations

from typing import Callable, Optional

from rulespec.lang import ast as A
from rulespec.lang import types as T

from ..blocks import BlockCompiler, _Asm, arm_keys
from .statements import RunWriter

_RUN = object()  # holds a run's place in the block until the run is written


class _RunAsm(_Asm):
    """An _Asm whose plain part is one generated function: it is the step (it returns None)."""

    def flush(self) -> None:
        if self.plain:
            assert len(self.plain) == 1 and self.plain[0] is not _RUN
            self.steps.append(self.plain[0])
            self.starts.append(self.plain_start)
            self.plain = []


class CompiledBlockCompiler(BlockCompiler):
    def __init__(self, prog):
        super().__init__(prog)
        self.runs = RunWriter(prog)

    def compile(self, b: Optional[A.Block], name: str, epilogue: Optional[Callable] = None) -> Optional[int]:
        if b is None and epilogue is None:
            return None
        asm = _RunAsm()
        # a trigger's epilogue (blocks.trigger_epilogue) ends the block's last run
        tail = tuple(epilogue.names) if epilogue is not None else ()
        self._stmts(b.stmts if b is not None else (), asm, tail, b.span if b is not None else None)
        return self.finish_block(asm, name, b)

    def stmts(self, stmts, asm: _Asm) -> None:
        self._stmts(stmts, asm, (), None)

    def _stmts(self, stmts, asm: _Asm, tail: tuple, span) -> None:
        run: list = []
        for s in stmts:
            if self.can_suspend(s):
                self._end_run(run, asm, (), None)
                run = []
                getattr(self, "_x_" + type(s).__name__)(s, asm)
            else:
                if not run:
                    asm.add_plain(_RUN)  # where the run starts (what is bound there: asm.plain_start)
                run.append(s)
                self._note_plain(s, asm, surely=True)
        if tail and not run:
            asm.add_plain(_RUN)
        self._end_run(run, asm, tail, span)

    def _end_run(self, run: list, asm: _Asm, tail: tuple, span) -> None:
        if run or tail:
            asm.plain[-1] = self.runs.function(run, run[0].span if run else span, tail)

    # ---- the steps that stop: the same steps as the reference's, their work written as code
    def statement(self, s) -> Callable:
        return self.runs.function([s], s.span)

    def _reference_step(self, method, s) -> Callable:
        """The step the reference BlockCompiler makes of s (compiled when first needed)."""
        asm = _Asm()
        method(self, s, asm)
        return asm.steps[-1]

    def _x_Emit(self, s: A.Emit, asm: _Asm) -> None:
        asm.add_stop(self.runs.emit_step(s, lambda: self._reference_step(BlockCompiler._x_Emit, s)))
        if s.target is not None:  # written by the event's frame when it ends
            asm.bind(s.target, T.record_type(s.event.name))

    def if_test(self, s: A.If, i: int, cond: A.Expr, nxt: int) -> Callable:
        """The reference's test of an arm (blocks._x_If), written as code."""
        return self.runs.test_step(cond, nxt, arm_keys(s, i) if self.prog.branches else None)
