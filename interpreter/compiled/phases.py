"""The phase machine's work for each phase, as one generated function.

state.py's _advance walks the phases: one turn of its loop, when no frame runs and the stack
is empty, does the work of the current phase's stage (enter, check, after, exit, next) through
the phase's compiled parts (CPhase: blocks, the actor, 'end when', the 'next' conditions).  The
compiled engine gives _advance a function per phase that does the same turn in code: the
conditions inline, a plain block's step called at once (as State._push does), the 'next' targets
as an if/elif chain.  One turn per call, so the loop counts turns as the reference does.

A condition that raises a Python error falls back to its reference function (which reports it
at its node); one that draws random numbers is its reference function (never worked out twice).
"""
from __future__ import annotations

from typing import Callable

from ..events import emit_now
from ..expression_runtime import _fail
from ..state import AFTER, AWAIT, CHECK, ENTER, EXIT

RUNTIME = {"_emit_now": emit_now, "_fail": _fail, "_NO_ENV": {}}


def write_phases(prog) -> dict:
    """phase name -> f(st): one turn of _advance in that phase; True when _advance returns."""
    if prog.exprs.session is not None:
        prog.exprs.session.ns.update(RUNTIME)
    return {name: _PhaseWriter(prog, ph).function() for name, ph in prog.phases.items()}


class _PhaseWriter:
    def __init__(self, prog, ph):
        self.prog = prog
        self.ph = ph
        self.lines: list = []

    def function(self) -> Callable:
        return self.prog.define("phase", self.ph.decl.span, "st", self.body)

    def emit(self, ind: int, line: str) -> None:
        self.lines.append(" " * ind + line + "\n")

    def body(self, g) -> str:
        """state._advance's stages of this phase, in its order and words."""
        self.g = g
        prog, ph = self.prog, self.ph
        name = ph.name
        triggers = prog.triggers
        self.emit(1, "env = _NO_ENV")  # (what the phase's expressions read: no local is bound)
        self.emit(1, "stage = st.stage")
        self.emit(1, f"if stage == {ENTER!r}:")
        self.emit(2, f"st.log.append(['phase', {name!r}])")
        self.emit(2, "if st.cov is not None:")
        self.emit(3, f"st.cov[{'phase:' + name!r}] += 1")
        self.emit(2, f"st.stage = {CHECK!r}")
        self.start_or_end(ph.enter, "phase_start" in triggers, "phase_start")
        self.emit(2, "return False")
        self.emit(1, f"if stage == {AFTER!r}:")
        self.emit(2, f"st.stage = {CHECK!r}")
        self.push(ph.after, 2)
        self.emit(2, "return False")
        self.emit(1, f"if stage == {CHECK!r}:")
        if ph.actions:
            if ph.end_when is not None:
                self.emit(2, f"if not {self.value(ph.decl.end_when, ph.end_when, 2)}:")
            else:
                self.emit(2, "if True:")
            if ph.actor is not None:
                self.emit(3, f"st.active = {self.value(ph.decl.actor, ph.actor, 3)}")
            self.emit(3, f"st.stage = {AWAIT!r}")
            self.emit(3, "return True")
        self.emit(2, f"st.stage = {EXIT!r}")
        self.emit(2, "return False")
        self.emit(1, f"if stage == {EXIT!r}:")
        self.emit(2, "st.stage = 'next'")
        self.start_or_end(ph.exit, "phase_end" in triggers, "phase_end")
        self.emit(2, "return False")
        self.emit(1, "if stage == 'next':")
        for i, ((target, cond), nxt) in enumerate(zip(ph.nexts, ph.decl.nexts)):
            if cond is None:
                self.emit(2, "if True:")
            else:
                self.emit(2, f"if {self.value(nxt.cond, cond, 2)}:")
            if ph.next_keys is not None:  # a program that counts branches (State._advance)
                self.emit(3, "if st.cov is not None:")
                self.emit(4, f"st.cov[{ph.next_keys[i]!r}] += 1")
            self.emit(3, f"st.phase, st.stage = {target!r}, {ENTER!r}")
            self.emit(3, "return False")
        sp = ph.decl.span
        msg = f"phase '{name}' ended but none of its 'next' conditions holds"
        self.emit(2, f"_fail({g.site_at(sp)}, {msg!r})")
        self.emit(1, "return True")  # awaiting a decision, or over
        return "".join(self.lines)

    def start_or_end(self, block, triggered: bool, event: str) -> None:
        """'enter' (or 'exit'): with triggers of phase_start (phase_end), they run first."""
        if triggered:
            if block is not None:
                self.emit(2, f"st.frames.append([{block}, 0, {{}}])")
            self.emit(2, f"_emit_now(st, {event!r}, {{'phase': {self.ph.name!r}}})")
        else:
            self.push(block, 2)

    def push(self, block, ind: int) -> None:
        """State._push(block, {}) with no frame running: a plain block runs at once."""
        if block is None:
            return
        blk = self.prog.blocks[block]
        step = blk.steps[0] if blk.plain else None
        if step is not None and self.g.ns.get(getattr(step, "__name__", None)) is step:  # a run (block_compiler.py)
            self.emit(ind, "if not st.frames:")
            self.emit(ind + 1, f"{self.g.bind(step, ('fn', step.__name__))}(st, {{}})")
            self.emit(ind, "else:")
            self.emit(ind + 1, f"st.frames.append([{block}, 0, {{}}])")
        elif blk.plain:
            self.emit(ind, f"st._push({block}, {{}})")
        else:
            self.emit(ind, f"st.frames.append([{block}, 0, {{}}])")

    def value(self, node, f: Callable, ind: int) -> str:
        """A name for the value of one of the phase's expressions, worked out on the lines before;
        f is its reference function (its fallback; itself when it draws random numbers)."""
        g = self.g
        fn = g.bind(f, ("fn", f.__name__))
        v = g.fresh("_v")
        if not self.prog.exprs.fast or self.prog.exprs.draws(node):
            self.emit(ind, f"{v} = {fn}(st, env)")
            return v
        g.may_fail = False
        src = g.expr(node)
        if not g.may_fail:
            self.emit(ind, f"{v} = {src}")
            return v
        self.emit(ind, "try:")
        self.emit(ind + 1, f"{v} = {src}")
        self.emit(ind, "except _PY_ERRORS:")
        self.emit(ind + 1, f"{v} = {fn}(st, env)")
        return v
