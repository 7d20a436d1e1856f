"""A run of statements that cannot stop, written as the body of one generated function.

The reference engine runs every statement as a closure that calls the functions of its
expressions (compiler.py's ``_s_*``), and a run of them as a step that loops over the closures
(blocks.py).  Here a run becomes one function ``f(st, env)`` of the game's module: each
statement is its Python inline (if/elif/else, for loops, assignments, moves ...), each
expression its source inline (expression_writer.py), locals stay in ``env`` as in the reference.

Identical play, errors included:
  * every statement does what its reference closure does, in the same order, with the same
    Python operations (a Python error in them gives the same message);
  * a statement's expressions are worked out first, inside ``try``; when one raises a Python
    error the statement's *fallback* runs instead: its reference closure, which works the
    expressions out again and reports the error at the node that failed (expressions have no
    side effects: the second time fails the same way), or, if it does not fail, does the
    statement.  An if's conditions fall back to the reference's test of them in turn, a for's
    list to the reference's function of it, a play's 'by' (worked out after the move) to its own;
  * a statement whose expressions draw random numbers (they must never be worked out twice), a
    program built with checked expressions only, or a statement nested too deep for Python's
    limits, runs its reference closure (its fallback), called from the generated code.

The fallbacks of a function are one Fallbacks object, made anew by every build (a build that
replays the code cache makes it for the code it did not generate: CompiledProgram.define's
`own`); which they are is a walk of the run (RunWriter._plan), and each is compiled the first
time it is called, after the build: a build asks nothing more of the code cache than the run.
"""
from __future__ import annotations

import re
from typing import Callable, Optional

from rulespec.lang import ast as A
from rulespec.lang import types as T
from rulespec.lang.branches import if_key, log_key

from ..blocks import bound_names
from ..compiler import Program
from ..errors import GameOver
from ..expression_runtime import SCALED, _fail, _updated
from ..frames import EMIT_BLOCK, SUSPEND
from ..rng import Rng

# Python allows 20 nested loops and try blocks in one function and 100 levels of indentation: a
# statement inside more loops than MAX_LOOPS (its own try blocks add 2 at most) or deeper than
# MAX_INDENT (its lines add 4 at most) runs its reference closure
MAX_LOOPS = 16
MAX_INDENT = 80

_ABSENT = object()  # a saved local that was not bound before a for loop


def _set_field(st, obj, field: str, k, op: str, v, site) -> None:
    """this.n = v, stack_top.target = p, r.amount += 1 (compiler.py's _field_assign), v given."""
    if obj is None:
        _fail(site, f"cannot set '{field}' of none")
    if isinstance(obj, dict):
        data = obj
    else:
        entry = st.entry(obj)
        if k is not None:
            entry[k] = v if op == "=" else _updated(op, entry[k], v, site)
            return
        data = entry[7]
        if field not in data:
            _fail(site, f"an entry of effect '{entry[1]}' has no field '{field}'")
    data[field] = v if op == "=" else _updated(op, data[field], v, site)


# what the generated code finds in the game's module under these names
RUNTIME = {"_GameOver": GameOver, "_Rng": Rng, "_ABSENT": _ABSENT, "_SUSPEND": SUSPEND, "_set_field": _set_field,
           "_fail": _fail}


class Fallbacks:
    """The fallbacks of one generated function, which calls them as own[i](st, env).  walk() lists
    them [(kind, node, make)] in the same order every build; it runs when the code is generated
    or a fallback is first needed, and each fallback is compiled (make()) when first needed."""
    __slots__ = ("walk", "plan", "made")
    described = "the fallbacks of the function that names it (statements.py), each made when first needed"

    def __init__(self, walk: Callable):
        self.walk = walk
        self.plan = None
        self.made: dict = {}

    def keys(self) -> dict:
        if self.plan is None:
            self.plan = self.walk()
        return {(kind, id(node)): i for i, (kind, node, _) in enumerate(self.plan)}

    def __getitem__(self, i: int) -> Callable:
        f = self.made.get(i)
        if f is None:
            if self.plan is None:
                self.plan = self.walk()
            f = self.made[i] = self.plan[i][2]()
        return f


def _selector(prog, conds: list) -> Callable:
    """The reference's test of an if's conditions: the first branch whose condition holds (its
    index), or len(conds) for none."""
    fs = [prog.expr(c) for c in conds]

    def select(st, env):
        for i, f in enumerate(fs):
            if f(st, env):
                return i
        return len(fs)
    return select


def stmt_exprs(prog, s) -> list:
    """The expressions a statement works out itself (not those of the blocks it holds)."""
    if isinstance(s, A.Let):
        return [s.value]
    if isinstance(s, A.Assign):
        return [s.value] + ([s.target.index] if s.target.index is not None else [])
    if isinstance(s, A.Move):
        return [s.cards, s.dest]
    if isinstance(s, A.Deal):
        return [s.count, s.source, s.dest]
    if isinstance(s, A.Shuffle):
        return [s.zone]
    if isinstance(s, A.Play):
        return [s.cards, s.dest] + ([s.by] if s.by is not None else [])
    if isinstance(s, A.If):
        return [c for c, _ in s.branches]
    if isinstance(s, A.For):
        return [s.iterable]
    if isinstance(s, A.EndGame):
        return [s.winners] if s.winners is not None else []
    if isinstance(s, (A.Log, A.Announce)):
        return [p for p in prog.model.templates.get(s.template, [s.template.value]) if not isinstance(p, str)]
    if isinstance(s, A.Reveal):
        return [s.zone]
    if isinstance(s, A.StackStmt):
        defaults = [f.default for f in prog.model.effects[s.effect.name].fields if f.default is not None]
        return [x for x in (s.by, s.target, s.with_, s.against) if x is not None] + [e for _, e in s.fields] + defaults
    if isinstance(s, A.Look):
        return [s.cards] + ([s.by] if s.by is not None else [])
    if isinstance(s, A.Cancel):
        return [s.entry]
    if isinstance(s, A.Emit):
        return list(s.args)
    return []


_WRITTEN = (A.Let, A.Assign, A.Move, A.Deal, A.Shuffle, A.Play, A.If, A.For, A.EndGame, A.Log, A.Announce,
            A.Reveal, A.StackStmt, A.Look, A.Cancel, A.Emit, A.Prevent)


_CONSTANT = re.compile(r"-?\d+|\(-\d+\)|True|False|None|'[^'\\]*'")


def _inline(values: list, effect: list) -> tuple:
    """A statement's values that cannot raise a Python error go into its effect lines instead of
    names of their own: a constant anywhere, another value where the first effect line uses it
    once (that line starts the effect: nothing has changed yet when it is worked out)."""
    kept = []
    for name, src, mf in values:
        if not mf:
            word = re.compile(rf"\b{name}\b")
            uses = [len(word.findall(line)) for _, line in effect]
            if _CONSTANT.fullmatch(src) or (uses and uses[0] == 1 and sum(uses) == 1):
                effect = [(k, word.sub(lambda _: src if _CONSTANT.fullmatch(src) else f"({src})", line))
                          for k, line in effect]
                continue
        kept.append((name, src, mf))
    return kept, effect


class RunWriter:
    """Writes the runs of one CompiledProgram."""

    def __init__(self, prog):
        self.prog = prog
        self.exprs = prog.exprs
        if self.exprs.session is not None:  # (a replayed build finds them under the same names)
            self.exprs.session.ns.update(RUNTIME)

    def function(self, stmts: list, span, tail: tuple = ()) -> Callable:
        """The function f(st, env) that runs stmts (none of which can stop), then writes the
        names `tail` back to the event's record (a trigger's epilogue, blocks.trigger_epilogue)."""
        own = Fallbacks(lambda: self._plan(stmts, []))
        return self.prog.define("stmts" if stmts else "epilogue", span, "st, env",
                                lambda g: _Writer(self, g, own.keys()).body(stmts, tail), own=own)

    def emit_step(self, s: A.Emit, reference: Callable) -> Callable:
        """blocks._x_Emit's step (an event triggers listen to: its frame is pushed) as code;
        reference() makes that step of the reference engine (the fallback)."""
        own = Fallbacks(lambda: [("step", s, reference)])
        return self.prog.define("emit", s.span, "st, env", lambda g: _Writer(self, g, own.keys()).emit_step(s), own=own)

    def test_step(self, cond, nxt: int, counted: Optional[tuple] = None) -> Callable:
        """blocks._x_If's test of a branch with steps that stop: None (go on into the branch)
        when the condition holds, else the step after the branch.  counted: in a program that
        counts branches, arm_keys() of the branch (blocks.counted_test)."""
        prog = self.prog
        own = Fallbacks(lambda: [("test", cond, lambda: prog.expr(cond))])
        return self.prog.define("test", cond.span, "st, env",
                                lambda g: _Writer(self, g, own.keys()).test_step(cond, nxt, counted), own=own)

    def inline(self, e) -> bool:
        """Can expression e be written inline (fast code, working it out again on an error)?"""
        return self.exprs.fast and not self.exprs.draws(e)

    # ---- which statements run their reference closure, and every fallback, in one walk
    def delegated(self, s, loops: int, indent: int) -> bool:
        if not isinstance(s, _WRITTEN) or not self.exprs.fast or loops >= MAX_LOOPS or indent >= MAX_INDENT:
            return True
        if isinstance(s, A.Assign) and s.target.index is None and not s.target.path and \
                s.target.name == "active" and s.target.name not in self.prog.model.vars and s.op != "=":
            return True  # the reference refuses it (as it compiles)
        return any(self.exprs.draws(e) for e in stmt_exprs(self.prog, s))

    def _plan(self, stmts, out: list) -> list:
        """Every fallback a run may call [(kind, node, make)], whether its code calls it or not."""
        prog = self.prog
        for s in stmts:
            out.append(("stmt", s, lambda s=s: Program.stmt(prog, s)))
            if isinstance(s, A.If):
                conds = [c for c, _ in s.branches]
                out.append(("sel", s, lambda conds=conds: _selector(prog, conds)))
                for _, b in s.branches:
                    self._plan(b.stmts, out)
                if s.else_ is not None:
                    self._plan(s.else_.stmts, out)
            elif isinstance(s, A.For):
                out.append(("iter", s, lambda e=s.iterable: prog.as_list(e)))
                self._plan(s.body.stmts, out)
            elif isinstance(s, A.Play) and s.by is not None:
                out.append(("by", s, lambda e=s.by: prog.expr(e)))
        return out


class _Writer:
    """The source of one run: lines of Python, indented by one space a level."""

    def __init__(self, run: RunWriter, g, keys: dict):
        self.run = run
        self.prog = run.prog
        self.g = g
        self.keys = keys
        self.lines: list = []

    def body(self, stmts, tail: tuple) -> str:
        self.block(stmts, 1, 0)
        if tail:  # blocks.trigger_epilogue: the event's fields the trigger assigned go back to its record
            # (a frame shared with a clone is copied first: copy_on_write.py)
            self.emit(1, "_r = (st.frame_env(env['$rf']) if st._fshared else st.frames[env['$rf']][2])['rec']")
            for n in tail:
                self.emit(1, f"_r[{n!r}] = env[{n!r}]")
        if not self.lines:
            self.emit(1, "pass")
        return self.source()

    def source(self) -> str:
        return "".join(" " * ind + line + "\n" for ind, line in self.lines)

    # ---- helpers
    def emit(self, ind: int, line: str) -> None:
        self.lines.append((ind, line))

    def fallback(self, kind: str, node) -> str:
        return f"{self.g.own}[{self.keys[(kind, id(node))]}]"

    def x(self, e, mode: str = "value") -> tuple:
        """(source, may it raise a Python error) of an expression (fast code, as its reference
        function runs first)."""
        g = self.g
        g.may_fail = False
        src = g.expr(e, mode)
        return src, g.may_fail

    def tmp(self) -> str:
        return self.g.fresh("_v")

    def block(self, stmts, ind: int, loops: int) -> None:
        start = len(self.lines)
        for s in stmts:
            if self.run.delegated(s, loops, ind - 1):
                self.emit(ind, f"{self.fallback('stmt', s)}(st, env)")
            else:
                getattr(self, "_" + type(s).__name__)(s, ind, loops)
        if len(self.lines) == start:
            self.emit(ind, "pass")

    def guarded(self, s, ind: int, values: list, effect: list, kind: str = "stmt") -> None:
        """A statement: its values [(name, source, may fail)] worked out, then its effect lines
        (with names bound to the values).  When a value raises a Python error the reference
        closure runs the statement instead (and reports the error at its node); a step returns
        what the reference step returns."""
        values, effect = _inline(values, effect)
        if not any(mf for _, _, mf in values):
            for name, src, _ in values:
                self.emit(ind, f"{name} = {src}")
            for k, line in effect:
                self.emit(ind + k, line)
            return
        self.emit(ind, "try:")
        for name, src, _ in values:
            self.emit(ind + 1, f"{name} = {src}")
        self.emit(ind, "except _PY_ERRORS:")
        self.emit(ind + 1, f"{'return ' if kind == 'step' else ''}{self.fallback(kind, s)}(st, env)")
        if effect:
            self.emit(ind, "else:")
            for k, line in effect:
                self.emit(ind + 1 + k, line)

    def value(self, e, mode: str = "value") -> tuple:
        name = self.tmp()
        src, mf = self.x(e, mode)
        return name, src, mf

    def cards_of(self, e) -> tuple:
        """compiler._cards_of: one card, a list or a zone, as a new list of card ids."""
        t = self.prog.type_of(e)
        name, src, mf = self.value(e)
        if t == T.CARD:
            return name, f"[{src}]", mf
        if t.name == "zone":
            return name, f"list(st.zones[{src}])", True  # (an index: may fail outside the expression too)
        return name, f"list({src})", True

    # ---- steps that stop (blocks.py)
    def emit_step(self, s) -> str:
        if not all(self.run.inline(a) for a in s.args):  # the reference step works them out
            self.emit(1, f"return {self.fallback('step', s)}(st, env)")
            return self.source()
        name = s.event.name
        params = [p.name for p in self.prog.model.events[name].params]
        values = [self.value(a) for a in s.args]
        rec = ", ".join(f"{p!r}: {v[0]}" for p, v in zip(params, values))
        env = (f"{{'ev': {name!r}, 'rec': {{{rec}{', ' if rec else ''}'prevented': False}}, 't': 0, 'jobs': None, "
               f"'i': 0, 'ret': {s.target!r}, 'caller': len(st.frames) - 1}}")
        self.guarded(s, 1, values, [(0, f"st.frames.append([{EMIT_BLOCK}, 0, {env}])"), (0, "return _SUSPEND")],
                     kind="step")
        return self.source()

    def test_step(self, cond, nxt: int, counted: Optional[tuple]) -> str:
        if counted is None:
            self.condition(cond, f"return None if {{}} else {nxt}")
            return self.source()
        # a program that counts branches (blocks.counted_test): the arm is counted when its
        # condition holds, the else (after the last condition) when it fails
        key, otherwise = counted
        self.condition(cond, "_t = {}")
        self.emit(1, "if _t:")
        self.count(2, key)
        self.emit(2, "return None")
        if otherwise is not None:
            self.count(1, otherwise)
        self.emit(1, f"return {nxt}")
        return self.source()

    def condition(self, cond, line: str) -> None:
        """`line` (its {} the condition) with the condition inline, or its reference function when
        it draws (worked out once) or, inline, raises a Python error."""
        fallback = f"{self.fallback('test', cond)}(st, env)"
        if not self.run.inline(cond):
            self.emit(1, line.format(fallback))
            return
        src, mf = self.x(cond)
        if mf:
            self.emit(1, "try:")
            self.emit(2, line.format(src))
            self.emit(1, "except _PY_ERRORS:")
            self.emit(2, line.format(fallback))
        else:
            self.emit(1, line.format(src))

    def count(self, ind: int, key: str) -> None:
        """Count a branch taken (a program that counts branches; a state without a counter, a
        clone, counts nothing)."""
        self.emit(ind, "if st.cov is not None:")
        self.emit(ind + 1, f"st.cov[{key!r}] += 1")

    # ---- statements (compiler.py's _s_* in the same order of work)
    def _Let(self, s, ind, loops):
        v = self.value(s.value, "list" if self.prog.type_of(s.value).name == "zone" else "value")
        self.guarded(s, ind, [v], [(0, f"env[{s.name!r}] = {v[0]}")])

    def _Assign(self, s, ind, loops):
        prog = self.prog
        v = self.value(s.value, "list")
        tgt, op = s.target, s.op
        sign = 1 if op == "+=" else -1
        if tgt.path:
            name, field = tgt.name, tgt.path[0]
            if name == "stack_top":
                base = "(st.stack[-1] if st.stack else None)"
            elif name in prog.var_index:
                base = f"st.vars[{prog.var_index[name]}]"
            else:
                base = f"env[{name!r}]"
            k = {"by": 2, "target": 3}.get(field)
            self.guarded(s, ind, [v], [(0, f"_set_field(st, {base}, {field!r}, {k!r}, {op!r}, {v[0]}, {self.g.site(s)})")])
            return
        if tgt.index is None and tgt.name == "active" and tgt.name not in prog.model.vars:
            self.guarded(s, ind, [v], [(0, f"st.active = {v[0]}")])
            return

        def updated(old: str) -> str:  # the new value of a number that 'x OP= v' changes
            if op in SCALED:  # (the reference's _scaled: '/' by 0 is its rules error)
                return f"_scaled({op!r}, {old}, {v[0]}, {self.g.site(s)})"
            return f"{old} + {sign} * {v[0]}"
        if tgt.name in prog.var_index:
            i = prog.var_index[tgt.name]
            if tgt.index is None:
                line = f"st.vars[{i}] = {v[0]}" if op == "=" else f"st.vars[{i}] = {updated(f'st.vars[{i}]')}"
                self.guarded(s, ind, [v], [(0, line)])
                return
            idx = self.value(tgt.index)
            if op == "=":  # (the reference works the value out, then the row, then the index)
                self.guarded(s, ind, [v, idx], [(0, f"(st.vars[{i}] if st._own is None else st.edit_var({i}))[{idx[0]}] = {v[0]}")])
                return
            self.guarded(s, ind, [idx, v], [(0, f"_row = st.vars[{i}] if st._own is None else st.edit_var({i})"),
                                            (0, f"_row[{idx[0]}] = {updated(f'_row[{idx[0]}]')}")])
            return
        n = tgt.name
        line = f"env[{n!r}] = {v[0]}" if op == "=" else f"env[{n!r}] = {updated(f'env[{n!r}]')}"
        self.guarded(s, ind, [v], [(0, line)])

    def _Move(self, s, ind, loops):
        cs, d = self.cards_of(s.cards), self.value(s.dest)
        self.guarded(s, ind, [cs, d], [
            (0, f"if None in {cs[0]}:"),
            (1, f"_fail({self.g.site(s)}, \"moved 'none' instead of a card\")"),
            (0, f"st.move_cards({cs[0]}, {d[0]}, {s.position == 'bottom'}, {self.g.site(s)})")])

    def _Deal(self, s, ind, loops):
        n, src, dst = self.value(s.count), self.value(s.source), self.value(s.dest)
        k = self.tmp()
        self.guarded(s, ind, [src, n, dst], [
            (0, f"{k} = max(0, {n[0]})"),
            (0, f"st.move_cards(st.zones[{src[0]}][::-1][:{k}], {dst[0]}, False, {self.g.site(s)})")])

    def _Shuffle(self, s, ind, loops):
        z = self.value(s.zone)
        self.guarded(s, ind, [z], [(0, f"st.shuffle_zone({z[0]})")])

    def _Play(self, s, ind, loops):
        cs, d = self.cards_of(s.cards), self.value(s.dest)
        effect = [(0, f"if {cs[0]}:"), (1, f"st.move_cards({cs[0]}, {d[0]}, False, {self.g.site(s)})")]
        if s.by is None:
            by = "st.active"
        else:  # worked out after the move (it may read where the cards went), with a fallback of its own
            by, src, mf = self.value(s.by)
            if mf:
                effect += [(1, "try:"), (2, f"{by} = {src}"), (1, "except _PY_ERRORS:"),
                           (2, f"{by} = {self.fallback('by', s)}(st, env)")]
            else:
                effect.append((1, f"{by} = {src}"))
        effect.append((1, f"st.plays.setdefault({d[0]}, []).append([{by}, list({cs[0]})])"))
        self.guarded(s, ind, [cs, d], effect)

    def _If(self, s, ind, loops):
        conds = [self.x(c) for c, _ in s.branches]
        bodies = [b for _, b in s.branches]
        counted = self.prog.branches  # each arm counts itself first (compiler.Program._counted_if)
        if not any(mf for _, mf in conds):
            for i, ((src, _), b) in enumerate(zip(conds, bodies)):
                self.emit(ind, f"{'if' if i == 0 else 'elif'} {src}:")
                if counted:
                    self.count(ind + 1, if_key(s, i))
                self.block(b.stmts, ind + 1, loops)
        else:  # the branch taken, worked out at once: the reference's test when a condition fails
            c = self.tmp()
            chain = " else ".join(f"{i} if {src}" for i, (src, _) in enumerate(conds)) + f" else {len(conds)}"
            self.emit(ind, "try:")
            self.emit(ind + 1, f"{c} = {chain}")
            self.emit(ind, "except _PY_ERRORS:")
            self.emit(ind + 1, f"{c} = {self.fallback('sel', s)}(st, env)")
            for i, b in enumerate(bodies):
                self.emit(ind, f"{'if' if i == 0 else 'elif'} {c} == {i}:")
                if counted:
                    self.count(ind + 1, if_key(s, i))
                self.block(b.stmts, ind + 1, loops)
        if s.else_ is not None or counted:  # (an else not written is counted too)
            self.emit(ind, "else:")
            if counted:
                self.count(ind + 1, if_key(s, len(bodies)))
            self.block(s.else_.stmts if s.else_ is not None else (), ind + 1, loops)

    def _For(self, s, ind, loops):
        # the loop's variable and the names its body binds are restored when the loop ends
        scoped = sorted(bound_names(s.body) | {s.var})
        items, src, mf = self.value(s.iterable, "list")
        if mf:
            self.emit(ind, "try:")
            self.emit(ind + 1, f"{items} = {src}")
            self.emit(ind, "except _PY_ERRORS:")
            self.emit(ind + 1, f"{items} = {self.fallback('iter', s)}(st, env)")
        else:
            self.emit(ind, f"{items} = {src}")
        saved = []
        for n in scoped:
            sv = self.tmp()
            saved.append((n, sv))
            self.emit(ind, f"{sv} = env.get({n!r}, _ABSENT)")
        x = self.tmp()
        self.emit(ind, f"for {x} in {items}:")
        self.emit(ind + 1, f"env[{s.var!r}] = {x}")
        self.block(s.body.stmts, ind + 1, loops + 1)
        for n, sv in saved:
            self.emit(ind, f"if {sv} is _ABSENT:")
            self.emit(ind + 1, f"env.pop({n!r}, None)")
            self.emit(ind, "else:")
            self.emit(ind + 1, f"env[{n!r}] = {sv}")

    def _EndGame(self, s, ind, loops):
        if s.winners is None:
            self.emit(ind, "st.finish(None)")
            self.emit(ind, "raise _GameOver()")
            return
        w = self.value(s.winners)
        won = f"[{w[0]}]" if self.prog.type_of(s.winners) == T.PLAYER else f"sorted(set({w[0]}))"
        self.guarded(s, ind, [w], [(0, f"st.finish({won})"), (0, "raise _GameOver()")])

    def _Log(self, s, ind, loops):
        self._entry(s, ind, "text")

    def _Announce(self, s, ind, loops):
        self._entry(s, ind, "announce")

    def _entry(self, s, ind, kind: str) -> None:
        g = self.g
        g.may_fail = False
        src = g.text(self.prog.model.templates.get(s.template, [s.template.value]))
        name = self.tmp()
        effect = [(0, f"st.log.append([{kind!r}, {name}])")]
        if self.prog.branches:  # the line that wrote it, for a position trace (compiler.Program._log_entry)
            effect += [(0, "if st.cov is not None:"), (1, f"st.cov[{log_key(s)!r}] += 1")]
        self.guarded(s, ind, [(name, src, g.may_fail)], effect)

    def _Reveal(self, s, ind, loops):
        show = s.reveal
        if self.prog.type_of(s.zone).name != "zone":
            cs = self.cards_of(s.zone)
            what = "revealed" if show else "concealed"
            loop = [(0, f"for _c in {cs[0]}:"), (1, "if _c is None:"),
                    (2, f"_fail({self.g.site(s)}, \"{what} 'none' instead of a card\")")]
            if show:
                loop += [(1, "if _c not in st.shown:"), (2, "st.shown.append(_c)"),
                         (2, "st.log.append(['reveal_card', _c])")]
            else:
                loop += [(1, "if _c in st.shown:"), (2, "st.shown.remove(_c)")]
            self.guarded(s, ind, [cs], loop)
            return
        z = self.value(s.zone)
        zi = z[0]
        if show:
            effect = [(0, f"if {zi} not in st.revealed:"), (1, f"st.revealed.append({zi})"),
                      (1, f"st.log.append(['reveal', {zi}, list(st.zones[{zi}])])")]
        else:
            effect = [(0, f"if {zi} in st.revealed:"), (1, f"st.revealed.remove({zi})")]
        self.guarded(s, ind, [z], effect)

    def _StackStmt(self, s, ind, loops):
        prog = self.prog
        fields = prog.model.effects[s.effect.name].fields
        given = dict(s.fields)
        values, data = [], []
        for f in fields:  # the entry's fields first, in the effect's order
            if f.name in given:
                v = self.value(given[f.name], "list")
            elif f.default is not None:
                v = self.value(f.default, "list")
            else:
                zero = {"int": 0, "bool": False, "text": "", "list": []}.get(f.type.name)
                data.append(f"{f.name!r}: {zero!r}")
                continue
            values.append(v)
            data.append(f"{f.name!r}: {v[0]}")
        args = []  # push_entry's by, target, cards and against: written, or their defaults
        for e, absent, write in ((s.by, "st.active", self.value), (s.target, "None", self.value),
                                 (s.with_, "[]", self.cards_of), (s.against, "None", self.value)):
            if e is None:
                args.append(absent)
            else:
                v = write(e)
                values.append(v)
                args.append(v[0])
        self.guarded(s, ind, values, [(0, f"st.push_entry({s.effect.name!r}, {', '.join(args)}, "
                                          f"{{{', '.join(data)}}})")])

    def _Prevent(self, s, ind, loops):
        self.emit(ind, "(st.frame_env(env['$rf']) if st._fshared else st.frames[env['$rf']][2])['rec']['prevented'] = True")

    def _Look(self, s, ind, loops):
        values = []
        if s.by is not None:
            values.append(self.value(s.by))
            by = values[-1][0]
        else:
            by = "st.active"
        cs = self.cards_of(s.cards)
        values.append(cs)
        self.guarded(s, ind, values, [(0, f"st.look_at({cs[0]}, {by}, {s.lasting})")])

    def _Cancel(self, s, ind, loops):
        e = self.value(s.entry)
        self.guarded(s, ind, [e], [
            (0, f"if {e[0]} is None:"),
            (1, f"_fail({self.g.site(s)}, \"cancelled 'none' instead of a stack entry\")"),
            (0, f"st.entry({e[0]})[6] = True"),
            (0, f"st.log.append(['text', f\"{{st.entry({e[0]})[1]}} is cancelled\"])")])

    def _Emit(self, s, ind, loops):
        name = s.event.name
        params = [p.name for p in self.prog.model.events[name].params]
        values = [self.value(a) for a in s.args]
        effect = [(0, "if st.cov is not None:"), (1, f"st.cov[{'event:' + name!r}] += 1")]
        if s.target is not None:
            rec = ", ".join(f"{p!r}: {v[0]}" for p, v in zip(params, values))
            effect.append((0, f"env[{s.target!r}] = {{{rec}{', ' if rec else ''}'prevented': False}}"))
        self.guarded(s, ind, values, effect)

