"""Expressions -> generated Python functions: one code generator, two modes.

Every expression of the rules (a condition, a value, a card domain, a template) compiles to a
function ``f(st, env) -> value`` whose body is Python source written by ``_Gen`` from the checked
model (``st`` is the State, ``env`` the dict of the statement's locals).  The same generator
writes it in two modes:

  * fast    -- plain Python operators: ``vals[c]``, ``xs[i]``, ``a // b``, ``a < b``;
  * checked -- every node that can fail goes through a small helper (``_item``, ``_prop``,
               ``_div``, ...) that raises RuleRuntimeError at that node's span with a clear
               message: "index 3 is outside a list of 2", "no card to read 'rank' from".

The function an expression compiles to runs the fast version; when that raises a Python error,
the checked version of the same expression (generated on first need) re-evaluates it to report
the error at the exact node.  Evaluating twice changes nothing because expressions have no side
effects -- except ``random()``: an expression that draws random numbers (directly or through a
def) runs its checked version only, so it never draws twice.  ``ExpressionCompiler(prog,
fast=False)`` compiles checked versions only (slower; a reference for tests).

Quantifiers become generator expressions and comprehensions inside the same function, their
bound variable a Python local (``q1``, ``q2``, ...); names bound by statements are read from
``env``.  A def compiles to its own pair of functions ``body(st, a0, a1, ...)`` (parameters as
Python locals, no env: a def sees only its parameters) called through a memo: a pure def is
memoised in ``st._memo`` while the engine lists legal actions (the state cannot change then).
A subtree nested deeper than CHUNK_DEPTH is generated as a function of its own, so no rule can
nest deeply enough to break Python's parser.

While a Program is built, every function goes into one namespace (a ``_Session``): the names it
binds (``_k1``, a table, a def's memo, the node an error is reported at) are unique across the
whole game, and each is recorded with a *recipe* that says how to make its value again
(``("props", "rank")``, ``("site", line, col, ...)``).  The session's code objects (with their
source: the game's module as text, interpreter/compiled/module_text.py), recipes and the order
in which the compiler asked for each expression are then kept on disk
(code_cache.py); a later process that builds the same model with the same engine *replays*
them: it makes the functions from the stored code objects and the recipes, in the same order,
without generating or compiling any Python (a check of each expression's kind and place
guards the order; any difference, and it generates from there on as usual).

The pieces, one job each: expression_writer.py writes the source (``_Gen``, ``_Session``; the
calls of builtins, rules and defs in expression_calls.py), expression_runtime.py holds the helpers
the generated code calls, def_memo.py the memo a pure def is called through.  This module drives
them (ExpressionCompiler: the entry points, the fallback to the checked version, defs, record and
replay) and re-exports what callers and tests import from it.
"""
from __future__ import annotations

import marshal
import types
from typing import Callable, Optional

from rulespec.lang import ast as A
from rulespec.lang import types as T

# the pieces; names re-exported here stay importable from this module as before the split
from .def_memo import _FREEZERS, _memoised
from .expression_runtime import _BETTER, _HELPERS, _PY_ERRORS, ENTRY_FIELD_INDEX, MAX_SUBSETS  # noqa: F401
from .expression_writer import CHAIN_SEGMENT, CHUNK_DEPTH, _Gen, _Session  # noqa: F401

_children = A.children


class ExpressionCompiler:
    """Compiles the expressions of one Program (which holds the tables: cards, zones, vars)."""

    def __init__(self, prog, fast: bool = True, cached: Optional[dict] = None):
        """cached: a session recorded by an earlier build of the same model (code_cache.py)."""
        self.prog = prog
        self.model = prog.model
        self.path = prog.path
        self.fast = fast
        self._draws: dict = {}  # expression node -> does it draw random numbers
        self._rule_draws: dict = {}  # rule value -> does computing it draw random numbers
        self._bodies: dict = {}  # (def name, checked) -> its body function
        self._formatters: dict = {}  # type -> the formatter templates show it with
        # effect -> its name and tags, for tagged() (from the model: effects compile after expressions)
        self.tags = {name: frozenset([name] + [t.name for t in d.tags]) for name, d in self.model.effects.items()}
        self.session: Optional[_Session] = _Session()
        self.replayed = False  # did the whole build come from a recorded session
        self.module_parts: Optional[tuple] = None  # after finish(): (sources, namespace, recipes)
        if cached is not None:
            try:
                self._start_replay(cached)
            except Exception:  # a damaged or foreign record: generate everything
                self.session = _Session()
                self._bodies.clear()
                cached = None
        if cached is None:
            self.pure: dict[str, bool] = {}  # def -> draws no random number (defs call only earlier defs)
            for d in self.model.defs.values():
                self.pure[d.name] = not self.draws(d.body)

    # ---- sessions: record, replay
    def _start_replay(self, rec: dict) -> None:
        s = self.session
        ns = s.ns
        for name, code in marshal.loads(rec["code"]):
            ns[name] = types.FunctionType(code, ns, name)
        s.pending = rec["binds"]  # made when the Program is complete (a recipe may name any of its tables)
        self.pure = dict(rec["pure"])
        for key, fname in rec["bodies"]:
            self._bodies[key] = ns[fname]
        s.bodies = dict(rec["bodies"])
        s.counter[0] = rec["counter"]
        s.sources = [rec["source"]]  # the recorded functions' text, all in one
        s.replay = list(reversed(rec["entries"]))
        s.cacheable = False  # nothing new to keep

    def _resolver(self, ns: dict) -> Callable:
        prog = self.prog
        path = self.path
        from rulespec.lang.ast import Span
        memos: dict = {}

        def resolve(r):
            kind = r[0]
            if kind == "site":
                return path, Span(r[1], r[2], r[3], r[4])
            if kind == "fn":
                return ns[r[1]]
            if kind == "props":
                return prog.card_props[r[1]]
            if kind == "fmt":
                return self.formatter(r[1])
            if kind == "memo":
                got = memos.get(r)
                if got is None:
                    got = memos[r] = _memoised(r[1], ns[r[2]], [_FREEZERS[c] for c in r[3]])
                return got
            if kind == "better":
                return _BETTER[r[1], r[2]]
            if kind == "enum_order":
                return prog.enum_order[r[1]]
            return {"names": prog.card_names, "rules": prog.rules, "tags": self.tags}[kind]
        return resolve

    def finish(self) -> Optional[dict]:
        """End the Program's session: later expressions (a checked version generated when one
        fails) get namespaces of their own.  Returns the record to keep, or None."""
        s, self.session = self.session, None
        if s is None:
            return None
        resolve = self._resolver(s.ns)
        for name, recipe in s.pending:
            s.ns[name] = resolve(recipe)
        # what the game's module is made of, as text (interpreter/compiled/module_text.py)
        self.module_parts = (s.sources, s.ns, s.pending + s.binds + [(x, ("explain",)) for x in s.explains])
        if s.replay is not None:
            self.replayed = not s.mismatch and not s.replay
            return None
        if not s.cacheable:
            return None
        try:
            code = marshal.dumps(s.codes)
        except ValueError:  # a constant marshal cannot write: nothing is kept
            return None
        return {"code": code, "binds": s.binds, "entries": s.entries, "pure": self.pure,
                "bodies": list(s.bodies.items()), "counter": s.counter[0], "source": "\n".join(s.sources)}

    def formatter(self, t: T.Type) -> Callable:
        got = self._formatters.get(t)
        if got is None:
            got = self._formatters[t] = self.prog.formatter(t)
        return got

    # ---- entry points: each returns f(st, env)
    def value(self, e) -> Callable:
        return self._entry("value", e.span, lambda g: g.expr(e), [e])

    def as_list(self, e) -> Callable:
        """e as a list: a zone becomes a copy of its cards."""
        return self._entry("list", e.span, lambda g: g.expr(e, "list"), [e])

    def all_of(self, conds: list) -> Callable:
        """True when every condition holds (in order, stopping at the first that fails)."""
        return self._entry("all", conds[0].span,
                           lambda g: "bool(" + " and ".join(g.expr(c) for c in conds) + ")", conds)

    def template(self, parts: list, span) -> Callable:
        """A text with {expr} parts (parts: strings and expressions), each shown by its type's formatter."""
        return self._entry("text", span, lambda g: g.text(parts), [p for p in parts if not isinstance(p, str)])

    def draws(self, e) -> bool:
        """Does evaluating e draw from the game's random generator (directly, through a def or a rule)?"""
        got = self._draws.get(e)
        if got is None:
            kind = self.model.refs.get(e, ("",))[0] if isinstance(e, A.Call) else None
            got = self._draws[e] = (kind == "builtin_func" and e.func == "random") \
                or (kind == "def" and self.pure.get(e.func) is False) or (kind == "rule" and self.rule_draws(e.func)) \
                or any(self.draws(c) for c in _children(e))
        return got

    def rule_draws(self, name: str) -> bool:
        got = self._rule_draws.get(name)
        if got is None:
            self._rule_draws[name] = False  # a rule its own parts read is decided by the others
            parts = [self.model.rules[name].base] + [x for m in self.model.modifies if m.rule.name == name
                                                     for x in (m.value, m.when) if x is not None]
            got = self._rule_draws[name] = any(self.draws(x) for x in parts)
        return got

    def version(self, e, checked: bool) -> Callable:
        """One version of e on its own, without the fallback (tests compare the two)."""
        return self._function(e.span, lambda g: g.expr(e), checked, session=None)

    def _entry(self, kind: str, span, emit, exprs: list) -> Callable:
        s = self.session
        if s is not None and s.replay:
            k, line, col, fname, xname = s.replay.pop()
            if (k, line, col) == (kind, span.line, span.col):
                if xname is not None:
                    s.ns[xname] = self._explainer(span, emit)
                    s.explains.append(xname)
                return s.ns[fname]
            s.replay, s.mismatch = [], True  # not the build that was recorded: generate from here on
        checked_only = not self.fast or any(self.draws(e) for e in exprs)
        if checked_only:  # random() must not be drawn twice
            f, xname = self._function(span, emit, True, session=s), None
        else:
            f, xname = self._function(span, emit, False, self._explainer(span, emit), session=s)
        if s is not None:
            s.entries.append((kind, span.line, span.col, f.__name__, xname))
        return f

    def _explainer(self, span, emit) -> Callable:
        checked = None

        def explain(st, env):  # the checked version, generated the first time something fails
            nonlocal checked
            if checked is None:
                checked = self._function(span, emit, True, session=None)
            return checked(st, env)
        return explain

    def _function(self, span, emit, checked: bool, explain: Optional[Callable] = None, session=None):
        """The function of one entry; with a fallback (explain), also the name it is bound to."""
        g = _Gen(self, checked, {}, True, session=session)
        src = emit(g)
        if explain is None or not g.may_fail:
            f = g.define("st, env", f" return {src}\n", span)
            return (f, None) if explain is not None else f
        x = g.bind(explain, ("explain",))  # replaying, the caller binds its own
        f = g.define("st, env", f" try:\n  return {src}\n except _PY_ERRORS:\n  return {x}(st, env)\n", span)
        return f, x

    # ---- defs
    def def_body(self, name: str, checked: bool) -> Callable:
        """body(st, *args) of a def (an impure def has only its checked version)."""
        if not self.pure[name]:
            checked = True
        key = (name, checked)
        got = self._bodies.get(key)
        if got is None:
            d = self.model.defs[name]
            args = [f"a{i}" for i in range(len(d.params))]
            g = _Gen(self, checked, {p.name: a for p, a in zip(d.params, args)}, False, session=self.session)
            # a def of type zone gives the zone; another whose body is a zone, a copy of its cards
            src = g.expr(d.body, "value" if d.rtype.name == "zone" else "list")
            got = self._bodies[key] = g.define(", ".join(["st"] + args), f" return {src}\n", d.body.span)
            if self.session is not None:
                self.session.bodies[key] = got.__name__
        return got
