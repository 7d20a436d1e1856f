"""Statements -> resumable blocks.

A block (an action's effect, a phase's enter/after/exit, an effect's resolve/cancelled, a
trigger's body) compiles to a ``CBlock``: a flat list of *steps*, each ``step(st, env)``.
The machine (machine.py) runs a block as a *frame*, the plain-data list
``[block index, next step, env]`` kept in ``st.frames``; because a frame is plain data, a
block can stop in the middle -- for a player's choice, for the triggers of an event, for a
response window -- and the state still clones, saves to JSON and replays.

A step returns:
  * None        -- go on with the next step;
  * an int      -- jump to that step (if/for compile to jumps);
  * SUSPEND     -- stop here: the step pushed a frame (run it first) or registered a
                   pending decision; the frame resumes at the next step.

Statements that can never stop (moves, assignments, logs, ...) compile to plain closures as
before, and a run of them becomes one step, so a block without choices or events is a single
call.  Locals live in ``env`` (a dict of plain data): a ``for`` loop's variable and the names
its body binds are restored when the loop ends, as if the body had its own scope.
"""
from __future__ import annotations

from typing import Callable, Optional

from rulespec.lang import ast as A
from rulespec.lang import types as T
from rulespec.lang.branches import if_key

from .events import emit_frame, first_jobs
from .frames import EMIT_BLOCK, SUSPEND, WINDOWS_BLOCK, CBlock  # noqa: F401 (SUSPEND, CBlock re-exported)


class _Asm:
    """Collects steps with forward jumps patched once their target is known."""

    def __init__(self):
        self.steps: list = []
        self.plain: list = []  # closures waiting to be fused into one step
        self.stops = False     # a step that may stop (or jump) was added
        # what a saved frame may hold (CBlock.starts, names, loops): kept as the steps are added
        self.bound: set = set()   # names the block has surely bound where the next step starts
        self.starts: list = []    # per step: `bound` when it starts
        self.plain_start = frozenset()
        self.names: dict = {}
        self.loops: dict = {}
        self.resumes: set = {0}

    def flush(self) -> None:
        if self.plain:
            self.steps.append(_fuse_plain(self.plain))
            self.starts.append(self.plain_start)
            self.plain = []

    def add_plain(self, f: Callable) -> None:
        if not self.plain:
            self.plain_start = frozenset(self.bound)
        self.plain.append(f)

    def add(self, step: Callable) -> int:
        self.flush()
        self.steps.append(step)
        self.starts.append(frozenset(self.bound))
        self.stops = True
        return len(self.steps) - 1

    def add_stop(self, step: Callable) -> None:
        """A step that may stop the block: a frame resumes at the step after it."""
        self.resumes.add(self.add(step) + 1)

    def bind(self, name: str, t, nullable: Optional[bool] = None, surely: bool = True, distinct: bool = False) -> None:
        """The block binds `name` (of type t, None: unknown) here; `surely`: on every path.
        nullable: may it be none whatever its type (True), never (False), as its type allows (None);
        distinct: a list of values that are all different (the cards or players of a choice)."""
        self.names[name] = (t, nullable, distinct)
        if surely:
            self.bound.add(name)

    def here(self) -> int:
        self.flush()
        return len(self.steps)

    def placeholder(self) -> int:
        return self.add(None)

    def patch(self, i: int, step: Callable) -> None:
        self.steps[i] = step


def _fuse_plain(fs: list) -> Callable:
    if len(fs) == 1:
        f = fs[0]

        def one(st, env):
            f(st, env)
        return one
    fs = tuple(fs)

    def run(st, env):
        for f in fs:
            f(st, env)
    return run


def _jump(target: int) -> Callable:
    return lambda st, env: target


def bound_names(block: Optional[A.Block]) -> set:
    """Names a block binds (let, choose, let-emit), nested blocks included."""
    out: set = set()
    if block is None:
        return out
    for s in block.stmts:
        if isinstance(s, (A.Let, A.Choose)):
            out.add(s.name)
        elif isinstance(s, A.Emit) and s.target is not None:
            out.add(s.target)
        elif isinstance(s, A.If):
            for _, b in s.branches:
                out |= bound_names(b)
            out |= bound_names(s.else_)
        elif isinstance(s, A.For):
            out |= bound_names(s.body) | {s.var}
    return out


class BlockCompiler:
    """Compiles statements for a Program (which compiles their expressions)."""

    def __init__(self, prog):
        self.prog = prog
        self.model = prog.model
        self._loops = 0
        # which events have triggers (the engine's and declared ones): an emit of an event
        # nobody listens to costs nothing, and moves raise 'moved' only when it is listened to
        self.listened = {t.event.name for t in self.model.triggers}
        self._suspends: dict = {}  # statement -> can it stop (asked again for every enclosing block)

    # ------------------------------------------------------------------ blocks
    def compile(self, b: Optional[A.Block], name: str, epilogue: Optional[Callable] = None) -> Optional[int]:
        """Compile a block; returns its index in prog.blocks (None for no block)."""
        if b is None and epilogue is None:
            return None
        asm = _Asm()
        if b is not None:
            self.stmts(b.stmts, asm)
        if epilogue is not None:
            asm.add_plain(epilogue)
        return self.finish_block(asm, name, b)

    def finish_block(self, asm: _Asm, name: str, b: Optional[A.Block]) -> int:
        """The block whose steps `asm` holds, added to the program; its index."""
        asm.flush()
        blk = CBlock(len(self.prog.blocks), name, asm.steps, b.span if b is not None else None,
                     not asm.stops and len(asm.steps) == 1, tuple(asm.starts), asm.names, asm.loops,
                     frozenset(asm.resumes))
        self.prog.blocks.append(blk)
        return blk.index

    def stmts(self, stmts, asm: _Asm) -> None:
        for s in stmts:
            if self.can_suspend(s):
                getattr(self, "_x_" + type(s).__name__)(s, asm)
            else:
                asm.add_plain(self.prog.stmt(s))
                self._note_plain(s, asm, surely=True)

    def _note_plain(self, s, asm: _Asm, surely: bool) -> None:
        """The names a statement that cannot stop binds (a plain 'if' binds them on some paths
        only; a plain 'for' restores what its body binds)."""
        if isinstance(s, A.Let):
            t = self.prog.type_of(s.value)
            asm.bind(s.name, T.CARDS if t.name == "zone" else t, surely=surely)
        elif isinstance(s, A.Emit) and s.target is not None:
            asm.bind(s.target, T.record_type(s.event.name), surely=surely)
        elif isinstance(s, A.If):
            for b in [b for _, b in s.branches] + ([s.else_] if s.else_ is not None else []):
                for inner in b.stmts:
                    self._note_plain(inner, asm, surely=False)

    def statement(self, s) -> Callable:
        """The plain part of a step that stops (the push of 'stack now', a move while 'moved'
        is listened to) as f(st, env) (the compiled engine writes it as code)."""
        return self.prog.stmt(s)

    def can_suspend(self, s) -> bool:
        got = self._suspends.get(s)
        if got is None:
            got = self._suspends[s] = self._can_suspend(s)
        return got

    def _can_suspend(self, s) -> bool:
        if isinstance(s, A.Choose):
            return True
        if isinstance(s, A.Emit):
            return s.event.name in self.listened
        if isinstance(s, A.StackStmt):
            return s.now
        if isinstance(s, (A.Move, A.Deal, A.Play)):
            return "moved" in self.listened
        if isinstance(s, A.If):
            return any(self.block_can_suspend(b) for _, b in s.branches) or self.block_can_suspend(s.else_)
        if isinstance(s, A.For):
            return self.block_can_suspend(s.body)
        return False

    def block_can_suspend(self, b: Optional[A.Block]) -> bool:
        return b is not None and any(self.can_suspend(s) for s in b.stmts)

    # ------------------------------------------------------------------ control flow with stops inside
    def _x_If(self, s: A.If, asm: _Asm) -> None:
        ends = []
        before = set(asm.bound)  # what a branch binds is bound only in that branch
        for i, (cond, body) in enumerate(s.branches):
            test = asm.placeholder()
            self.stmts(body.stmts, asm)
            ends.append(asm.placeholder())
            asm.bound = set(before)
            nxt = asm.here()
            asm.patch(test, self.if_test(s, i, cond, nxt))
        if s.else_ is not None:
            self.stmts(s.else_.stmts, asm)
        end = asm.here()
        asm.bound = before
        for i in ends:
            asm.patch(i, _jump(end))

    def if_test(self, s: A.If, i: int, cond: A.Expr, nxt: int) -> Callable:
        """The step that tests arm i of `s`: on to the arm if `cond` holds, else to step nxt."""
        c = self.prog.expr(cond)
        if self.prog.branches:  # the arm taken is counted (no step of its own: frames stay the same)
            return counted_test(c, nxt, s, i)
        return lambda st, env: None if c(st, env) else nxt

    def _x_For(self, s: A.For, asm: _Asm) -> None:
        self._loops += 1
        key = f"$for{self._loops}"
        items = self.prog.as_list(s.iterable)
        var = s.var
        scoped = sorted(bound_names(s.body) | {var})

        def init(st, env):
            saved = {n: env[n] for n in scoped if n in env}
            env[key] = [list(items(st, env)), 0, saved]
        before = set(asm.bound)
        asm.add(init)
        asm.loops[key] = (var, tuple(scoped))
        asm.bind(key, None)
        loop = asm.placeholder()
        t = self.prog.type_of(s.iterable)
        asm.bind(var, T.CARD if t.name == "zone" else t.elem if t.name == "list" else None)
        self.stmts(s.body.stmts, asm)
        asm.add(_jump(loop))
        end = asm.here()
        asm.bound = before  # the loop's variable and what its body bound are restored

        def next_item(st, env):
            it = env[key]
            i = it[1]
            if i < len(it[0]):
                env[var] = it[0][i]
                it[1] = i + 1
                return None
            saved = it[2]
            for n in scoped:
                if n in saved:
                    env[n] = saved[n]
                else:
                    env.pop(n, None)
            del env[key]
            return end
        asm.patch(loop, next_item)

    # ------------------------------------------------------------------ statements that stop
    def _x_Choose(self, s: A.Choose, asm: _Asm) -> None:
        from .choices import compile_choice
        step = compile_choice(self.prog, s)
        asm.add_stop(step)
        asm.bind(s.name, step.choice_type, nullable=True,  # (none when declined or nothing to choose)
                 distinct=step.choice_kind in ("cards", "players"))

    def _x_Emit(self, s: A.Emit, asm: _Asm) -> None:
        name = s.event.name
        args = [self.prog.expr(a) for a in s.args]
        params = [p.name for p in self.model.events[name].params]
        target = s.target

        def emit(st, env):
            rec = {p: f(st, env) for p, f in zip(params, args)}
            rec["prevented"] = False
            if st.cov is not None:
                st.cov["event:" + name] += 1
            t, jobs = first_jobs(st, name, rec)
            if jobs is None:  # no trigger runs: the event is over (events.first_jobs)
                if target is not None:
                    env[target] = rec
                return None
            frames = st.frames
            frames.append(emit_frame(name, rec, t, jobs, target, len(frames) - 1))
            return SUSPEND
        asm.add_stop(emit)
        if target is not None:  # written by the event's frame when it ends
            asm.bind(target, T.record_type(name))

    def _x_StackStmt(self, s: A.StackStmt, asm: _Asm) -> None:
        push = self.statement(s)  # the entry goes on the stack as with 'stack'

        def resolve_now(st, env):
            push(st, env)
            st.frames.append([WINDOWS_BLOCK, 0, {"depth": len(st.stack) - 1}])
            return SUSPEND
        asm.add_stop(resolve_now)

    def _moving(self, s, asm: _Asm) -> None:
        """A move, deal or play when triggers listen to 'moved': one event per zone the cards left."""
        do = self.statement(s)
        cause = self.prog.expr(s.cause) if s.cause is not None else None
        default = {"Move": "move", "Deal": "deal", "Play": "play"}[type(s).__name__]
        by = self.prog.expr(s.by) if isinstance(s, A.Play) and s.by is not None else None

        def move_and_tell(st, env):
            mark = len(st.log)
            do(st, env)
            groups: list = []
            for e in st.log[mark:]:
                if e[0] == "move":
                    by_src: dict = {}
                    for c, src in e[2]:
                        by_src.setdefault(src, []).append(c)
                    groups.extend((cs, src, e[1]) for src, cs in by_src.items())
            if not groups:
                return None
            why = str(cause(st, env)) if cause is not None else default
            mover = by(st, env) if by is not None else st.active
            frames = st.frames
            caller = len(frames) - 1
            for k, (cs, src, dest) in enumerate(groups):  # the first group's triggers run first
                rec = {"items": cs, "source": src, "dest": dest, "mover": mover, "cause": why, "prevented": False}
                if st.cov is not None:
                    st.cov["event:moved"] += 1
                t, jobs = first_jobs(st, "moved", rec, 1)
                if jobs is None:  # no trigger runs (events.first_jobs): on to the next group at once
                    continue
                for cs2, src2, dest2 in reversed(groups[k + 1:]):  # the later groups wait, as they are
                    rec2 = {"items": cs2, "source": src2, "dest": dest2, "mover": mover, "cause": why, "prevented": False}
                    frames.append([EMIT_BLOCK, 0, {"ev": "moved", "rec": rec2, "t": 1, "jobs": None, "i": 0,
                                                   "ret": None, "caller": caller}])
                frames.append(emit_frame("moved", rec, t, jobs, None, caller))
                return SUSPEND
            return None
        asm.add_stop(move_and_tell)

    _x_Move = _x_Deal = _x_Play = _moving


def arm_keys(s: A.If, i: int) -> tuple:
    """The coverage keys the test of arm i of an if counts: the arm's, and the else's (written
    or not) when i is its last condition, None otherwise."""
    return if_key(s, i), (if_key(s, i + 1) if i == len(s.branches) - 1 else None)


def counted_test(c: Callable, nxt: int, s: A.If, i: int) -> Callable:
    """The test of arm i of an if with steps that stop, in a program that counts branches: the
    arm is counted when its condition holds; the else (written or not) when the last one fails."""
    key, otherwise = arm_keys(s, i)

    def test(st, env):
        if c(st, env):
            if st.cov is not None:
                st.cov[key] += 1
            return None
        if otherwise is not None and st.cov is not None:
            st.cov[otherwise] += 1
        return nxt
    return test


def trigger_epilogue(params: list, body: Optional[A.Block]) -> Optional[Callable]:
    """A trigger that assigns to its event's fields writes them back to the event's record,
    so later triggers and the emitter see the change."""
    written = assigned_names(body) & set(params)
    if not written:
        return None
    names = sorted(written)

    def write_back(st, env):
        rf = env["$rf"]
        rec = (st.frame_env(rf) if st._fshared else st.frames[rf][2])["rec"]
        for n in names:
            rec[n] = env[n]
    write_back.names = tuple(names)  # (the compiled engine writes the same lines inline)
    return write_back


def assigned_names(block: Optional[A.Block]) -> set:
    out: set = set()
    if block is None:
        return out
    for s in block.stmts:
        if isinstance(s, A.Assign) and s.target.index is None and not s.target.path:
            out.add(s.target.name)
        elif isinstance(s, A.If):
            for _, b in s.branches:
                out |= assigned_names(b)
            out |= assigned_names(s.else_)
        elif isinstance(s, A.For):
            out |= assigned_names(s.body)
    return out
