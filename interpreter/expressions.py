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
(``("props", "rank")``, ``("site", line, col, ...)``).  The session's code objects, recipes and
the order in which the compiler asked for each expression are then kept on disk
(code_cache.py); a later process that builds the same model with the same engine *replays*
them: it makes the functions from the stored code objects and the recipes, in the same order,
without generating or compiling any Python (a check of each expression's kind and place
guards the order; any difference, and it generates from there on as usual).
"""
from __future__ import annotations

import builtins
import marshal
import operator
import types
from itertools import combinations
from math import comb
from typing import Callable, Optional



from rulespec.lang import ast as A
from rulespec.lang import types as T
from rulespec.lang.checker import MAX_RANGE  # the largest range a rule may build, at run time too

from .errors import RuleRuntimeError
from .rng import Rng

CHUNK_DEPTH = 20    # AST levels per generated function: Python's parser allows 200 nested brackets
# Operators of a chain (a + b + c ...) written in one generated expression; a longer chain goes on
# in functions of its own that _fold calls in turn, so no length of chain nests Python code deeper.
CHAIN_SEGMENT = 16

# Python errors a fast function may raise where the checked one reports a rules error.
_PY_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)

# A stack entry is a list [id, effect name, by, target, cards, against, cancelled, fields].
ENTRY_FIELD_INDEX = {"kind": 1, "by": 2, "target": 3, "cards": 4, "against": 5, "cancelled": 6}


# ====================================================================== helpers the generated code calls
def _fail(site, msg: str):
    raise RuleRuntimeError(msg, site[0], site[1])


def _bounded_range(a: int, b: int) -> list:
    if b - a >= MAX_RANGE:
        raise ValueError("range too large")
    return list(range(a, b + 1))


def _players_after(a, n):
    return [(a + k) % n for k in range(1, n + 1)]


def _players_from(a, n):
    return [(a + k) % n for k in range(n)]


def _best(pairs: list, better):
    """argmax/argmin over [(item, value)]: better is > or < (the first of equal values wins)
    or >= or <= (ties last: the last wins)."""
    if not pairs:
        raise ValueError("empty")
    best, best_v = pairs[0]
    for x, v in pairs:
        if better(v, best_v):
            best, best_v = x, v
    return best


def _tagged(st, eid, tag: str, tags: dict) -> bool:
    return eid is not None and tag in tags[st.entry(eid)[1]]


# ---- checked mode: each helper does what the fast code does, or raises at its node
def _prop(vals: list, c, name: str, site):
    if c is None:
        _fail(site, f"no card to read '{name}' from")
    return vals[c]


def _play_field(play, k: int, name: str, site):
    if play is None:
        _fail(site, f"no play to read '{name}' from")
    return play[0] if k == 0 else list(play[1]) if k == 1 else len(play[1])


def _record_field(rec, name: str, site):
    if rec is None:
        _fail(site, f"no value to read '{name}' from (it is none)")
    return rec[name]


def _entry_field(st, eid, k: int, name: str, site):
    """A built-in field of a stack entry (both modes: entries are read rarely)."""
    if eid is None:
        _fail(site, f"no stack entry to read '{name}' from")
    v = st.entry(eid)[k]
    return list(v) if k == 4 else v


def _entry_data(st, eid, name: str, site):
    """A field an effect declares (this.n), on a stack entry (both modes)."""
    if eid is None:
        _fail(site, f"no stack entry to read '{name}' from")
    entry = st.entry(eid)
    data = entry[7]
    if name not in data:
        _fail(site, f"an entry of effect '{entry[1]}' has no field '{name}'")
    return data[name]


def _player_index(p, site):
    if p is None:
        _fail(site, "indexed with 'none' instead of a player")
    return p


def _item(xs, i, site):
    try:
        return xs[i]
    except IndexError:
        _fail(site, f"index {i} is outside a list of {len(xs)}")


def _range(a: int, b: int, site) -> list:
    if b - a >= MAX_RANGE:
        _fail(site, f"the range {a}..{b} has more than {MAX_RANGE} numbers")
    return list(range(a, b + 1))


def _ordered(op: str, compare):
    def check(a, b, site):
        if a is None or b is None:
            _fail(site, f"'{op}' compares with none")
        return compare(a, b)
    return check


def _arithmetic(op: str, compute):
    def check(a, b, site):
        if a is None or b is None:
            _fail(site, f"'{op}' with none instead of a number")
        return compute(a, b)
    return check


def _negate(a, site):
    if a is None:
        _fail(site, "'-' of none instead of a number")
    return -a


def _div(a, b, site):
    if b == 0:
        _fail(site, "division by zero")
    return a // b


def _mod(a, b, site):
    if b == 0:
        _fail(site, "division by zero")
    return a % b


def _revealed(st, c, site) -> bool:
    if c is None:
        _fail(site, "'revealed' of none instead of a card")
    return st.is_revealed(c)


def _random(st, xs, site):
    if not xs:
        _fail(site, "random() of an empty list")
    return xs[Rng.below(st, len(xs))]


def _fold(value, segments, *args):
    """The rest of a long chain: each segment applies its operators to the value so far."""
    for segment in segments:
        value = segment(value, *args)
    return value


def _join(a, b, site):
    if a is None or b is None:
        _fail(site, "'+' joins texts: none instead of a text")
    return a + b


MAX_SUBSETS = 1 << 16  # subsets()/combinations() lists at most this many (a rules error past it)


def _subsets(xs: list, k, site) -> list:
    """subsets(xs) (k None: every size, smallest first) or combinations(xs, k), as lists."""
    n = len(xs)
    if k is None:
        if n > 16:
            _fail(site, f"subsets() of {n} items would list {2 ** n:,} subsets (at most {MAX_SUBSETS:,}: "
                        f"16 items)")
        return [list(c) for r in range(n + 1) for c in combinations(xs, r)]
    if k < 0 or comb(n, k) > MAX_SUBSETS:
        _fail(site, f"combinations() of {n} items, {k} at a time: " +
              ("a size cannot be negative" if k < 0 else f"{comb(n, k):,} lists (at most {MAX_SUBSETS:,})"))
    return [list(c) for c in combinations(xs, k)]


def _extreme(values: list, kind: str, site):
    if not values:
        _fail(site, f"'{kind}' over an empty list")
    if None in values:
        _fail(site, f"'{kind}' compares with none")
    return max(values) if kind == "max" else min(values)


def _best_checked(pairs: list, better, kind: str, site):
    if not pairs:
        _fail(site, f"'{kind}' over an empty list")
    if any(v is None for _, v in pairs):
        _fail(site, f"'{kind}' compares with none")
    return _best(pairs, better)


_HELPERS = {f.__name__: f for f in (
    _bounded_range, _players_after, _players_from, _best, _tagged, _prop, _play_field, _record_field,
    _entry_field, _entry_data, _player_index, _item, _range, _negate, _div, _mod, _revealed, _random,
    _extreme, _best_checked, _subsets, _join, _fold)}
_ORDER = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}
_HELPERS.update({name: _ordered(op, getattr(operator, name[1:])) for op, name in _ORDER.items()})
_ARITHMETIC = {"+": "_add", "-": "_sub", "*": "_mul"}
_HELPERS.update({name: _arithmetic(op, getattr(operator, name[1:])) for op, name in _ARITHMETIC.items()})
_BETTER = {("argmax", False): operator.gt, ("argmax", True): operator.ge,
           ("argmin", False): operator.lt, ("argmin", True): operator.le}


# ====================================================================== facts about expressions
_SAFE_CALLS = {"count", "reversed", "tagged", "plays", "cards"}  # their fast code raises no Python error


def _reads_locals(e, refs) -> bool:
    """Does expression e read a local name (a choice, a parameter, a quantifier's variable)?"""
    if isinstance(e, A.Name):
        return refs.get(e, ("",))[0] == "local"
    return any(_reads_locals(x, refs) for x in A.children(e))


def _may_fail(e, refs) -> bool:
    """Can the fast code of node e itself raise a Python error (its operands aside)?"""
    if isinstance(e, (A.Attr, A.Index, A.Range)):
        return True
    if isinstance(e, A.Unary):
        return e.op == "-"
    if isinstance(e, A.BinOp):
        return e.op not in ("in", "==", "!=")
    if isinstance(e, A.Chain):
        return e.ops[0] not in ("and", "or")
    if isinstance(e, A.Call):
        return e.func not in _SAFE_CALLS or refs[e][0] != "builtin_func"
    if isinstance(e, A.Quant):
        return e.kind in ("sum", "max", "min", "argmax", "argmin")
    return False


_children = A.children


def _freeze_any(v):
    if isinstance(v, list):
        return tuple(_freeze_any(x) for x in v)
    return v


def _identity(v):
    return v


def _freezer(t: T.Type) -> Callable:
    """Turns an argument of type t (as passed to a def: a zone is already a list) into a memo key."""
    if t.name == "zone" or (t.name == "list" and t.elem is not None
                            and t.elem.name in ("int", "bool", "text", "player", "card", "enum")):
        return tuple
    if t.name in ("int", "bool", "text", "player", "card", "enum"):
        return _identity
    return _freeze_any


_FREEZERS = {"tuple": tuple, "id": _identity, "any": _freeze_any}
_FREEZER_CODES = {id(f): code for code, f in _FREEZERS.items()}

_MISSING = object()


def _memoised(name: str, body: Callable, freezers: list) -> Callable:
    """A call of a pure def: its value is kept in st._memo while that is a dict (the engine turns
    it on only while it lists legal actions, when nothing can change the state).  Misses are
    frequent (a def of a candidate card), so dict.get rather than a try that raises."""
    if not freezers:
        def call0(st):
            memo = st._memo
            if memo is None:
                return body(st)
            v = memo.get(name, _MISSING)
            if v is _MISSING:
                v = memo[name] = body(st)
            return v
        return call0
    if len(freezers) == 1:
        fz = freezers[0]
        if fz is _identity:
            def call1(st, x):
                memo = st._memo
                if memo is None:
                    return body(st, x)
                key = (name, x)
                v = memo.get(key, _MISSING)
                if v is _MISSING:
                    v = memo[key] = body(st, x)
                return v
            return call1

        def call1_frozen(st, x):
            memo = st._memo
            if memo is None:
                return body(st, x)
            key = (name, fz(x))
            v = memo.get(key, _MISSING)
            if v is _MISSING:
                v = memo[key] = body(st, x)
            return v
        return call1_frozen

    def calln(st, *xs):
        memo = st._memo
        if memo is None:
            return body(st, *xs)
        key = (name,) + tuple([fz(x) for fz, x in zip(freezers, xs)])
        v = memo.get(key, _MISSING)
        if v is _MISSING:
            v = memo[key] = body(st, *xs)
        return v
    return calln


# ====================================================================== the compiler
class _Session:
    """The functions generated while one Program is built: one namespace, names unique within it,
    and what it takes to make them again (see the module's docstring)."""

    def __init__(self):
        self.ns: dict = dict(_HELPERS)
        self.ns["_PY_ERRORS"] = _PY_ERRORS  # a try costs nothing until something raises
        self.ns["__builtins__"] = builtins.__dict__
        self.counter = [0]
        self.codes: list = []    # (function name, code object), in the order they were made
        self.binds: list = []    # (name, recipe): how to make every other value the code names
        self.entries: list = []  # (kind, line, col, function name, its fallback's name or None)
        self.bodies: dict = {}   # (def name, checked) -> function name
        self.cacheable = True    # False once something was bound without a recipe
        self.replay: Optional[list] = None  # entries still to replay (a cached session), last first
        self.mismatch = False    # the build asked for another expression than the recorded one
        self.pending: list = []  # replaying: the recorded binds, made by finish()


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
                "bodies": list(s.bodies.items()), "counter": s.counter[0]}

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


class _Gen:
    """Writes the source of one generated function (and of the chunks it calls)."""

    def __init__(self, comp: ExpressionCompiler, checked: bool, scope: dict, has_env: bool,
                 ns: Optional[dict] = None, counter: Optional[list] = None, session: Optional[_Session] = None):
        self.comp = comp
        self.prog = comp.prog
        self.refs = comp.model.refs
        self.types = comp.model.types
        self.checked = checked
        self.scope = dict(scope)   # rules name -> the Python local that holds it (quantifiers, def parameters)
        self.has_env = has_env     # False in a def body: it sees only its parameters
        self.session = session     # while a Program is built: its namespace, and the record of it
        if session is not None:
            ns, counter = session.ns, session.counter
        if ns is None:
            ns = dict(_HELPERS)
            ns["_PY_ERRORS"] = _PY_ERRORS
        self.ns = ns
        self.counter = counter if counter is not None else [0]  # shared with chunks: unique names
        self.depth = 0
        self.may_fail = False  # can the source raise a Python error (then the checked version explains it)

    def fresh(self, prefix: str) -> str:
        self.counter[0] += 1
        return f"{prefix}{self.counter[0]}"

    def bind(self, value, recipe: Optional[tuple] = None) -> str:
        """A name for a value the source refers to (a table, a function); recipe: how a replayed
        session makes the value again (see the module's docstring)."""
        name = self.fresh("_k")
        self.ns[name] = value
        s = self.session
        if s is not None:
            if recipe is None:
                s.cacheable = False
            elif recipe[0] != "explain":  # an entry's fallback: the replaying caller makes its own
                s.binds.append((name, recipe))
        return name

    def site(self, e) -> str:
        """Where a checking helper reports an error: (path, span) of node e."""
        return self.site_at(e.span)

    def site_at(self, sp) -> str:
        return self.bind((self.comp.path, sp), ("site", sp.line, sp.col, sp.end_line, sp.end_col))

    def define(self, params: str, body: str, span) -> Callable:
        name = self.fresh("_f")
        where = f"<rules {self.comp.path}:{span.line}:{span.col}>"  # names the code in profiles and tracebacks
        exec(compile(f"def {name}({params}):\n{body}", where, "exec"), self.ns)  # noqa: S102 -- from the checked model
        f = self.ns[name]
        if self.session is not None:
            self.session.codes.append((name, f.__code__))
        return f

    def type_of(self, e) -> T.Type:
        return self.types.get(e, T.ANY)

    def is_builtin_call(self, e, func: str) -> bool:
        return isinstance(e, A.Call) and e.func == func and self.refs.get(e, ("",))[0] == "builtin_func"

    # ---- the generator
    def expr(self, e, mode: str = "value") -> str:
        """Source for e.  mode: 'value'; 'list' (a zone becomes a copy of its cards); 'view' (a zone
        is its own card list, only read); 'iter' (like view, and players may be a range: a quantifier's
        domain, the right of 'in', count(), an indexed list)."""
        self.depth += 1
        try:
            if self.depth > CHUNK_DEPTH:
                return self._chunk(e, mode)
            if mode != "value":
                if self.is_builtin_call(e, "cards") and mode != "list":
                    return f"st.zones[{self.expr(e.args[0])}]"
                if self.type_of(e).name == "zone":
                    z = self.expr(e)
                    return f"st.zones[{z}]" if mode != "list" else f"list(st.zones[{z}])"
                if mode == "iter" and isinstance(e, A.Name) and self.refs[e] == ("builtin", "players"):
                    return "range(st.n)"
            self.may_fail = self.may_fail or _may_fail(e, self.refs)
            return getattr(self, "_" + type(e).__name__)(e, mode)
        finally:
            self.depth -= 1

    def _chunk(self, e, mode: str) -> str:
        """e as a function of its own, given the Python locals in scope."""
        f = self._function_of(lambda sub: sub.expr(e, mode), [], e.span)
        return f"{f}({', '.join(self._call_args())})"

    def _function_of(self, emit, params: list, span) -> str:
        """The name of a new function (params, then st, env and the Python locals in scope) that
        returns the source emit writes with a fresh generator."""
        sub = _Gen(self.comp, self.checked, self.scope, self.has_env, self.ns, self.counter, self.session)
        src = emit(sub)
        self.may_fail = self.may_fail or sub.may_fail
        f = sub.define(", ".join(params + ["st", "env"] + sorted(set(self.scope.values()))), f" return {src}\n", span)
        return self.bind(f, ("fn", f.__name__))

    def _call_args(self) -> list:
        return ["st", "env" if self.has_env else "None"] + sorted(set(self.scope.values()))

    # ---- nodes
    def _IntLit(self, e, mode):
        return repr(e.value) if e.value >= 0 else f"({e.value!r})"

    def _StrLit(self, e, mode):
        return repr(e.value)

    _BoolLit = _StrLit

    def _TextTemplate(self, e, mode):
        return f"({self.text(e.parts)})"

    def text(self, parts) -> str:
        """A text of pieces and {expr} holes, each hole shown by its type's formatter (as in a log
        line; a formatter may fail)."""
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(repr(p))
            else:
                t = self.type_of(p)
                out.append(f"{self.bind(self.comp.formatter(t), ('fmt', t))}(st, {self.expr(p)})")
                self.may_fail = True
        return " + ".join(out) if out else "''"

    def _NoneLit(self, e, mode):
        return "None"

    def _Name(self, e, mode):
        kind = self.refs[e][0]
        n = e.name
        if kind == "local":
            if n in self.scope:
                return self.scope[n]
            assert self.has_env, f"a def body reads '{n}'"  # the checker allows only parameters
            return f"env[{n!r}]"
        if kind == "builtin":
            return {"players": "list(range(st.n))", "player_count": "st.n", "active": "st.active",
                    "stack_top": "(st.stack[-1] if st.stack else None)", "stacked": "list(st.stack)"}[n]
        if kind == "var":
            return f"st.vars[{self.prog.var_index[n]}]"
        if kind == "zone":
            return str(self.prog.zone_base[n])
        if kind == "option":
            return f"st.opts[{n!r}]"
        if kind == "enum":
            return repr(n)
        raise AssertionError(f"cannot compile name '{n}'")

    def _Attr(self, e, mode):
        kind, *rest = self.refs[e]
        obj = self.expr(e.obj)
        if kind == "entry_field":
            return f"_entry_field(st, {obj}, {ENTRY_FIELD_INDEX[rest[0]]}, {e.name!r}, {self.site(e)})"
        if kind == "entry_data":
            return f"_entry_data(st, {obj}, {rest[0]!r}, {self.site(e)})"
        if kind in ("card_name", "prop"):
            vals = self.bind(self.prog.card_names, ("names",)) if kind == "card_name" else \
                self.bind(self.prog.card_props[rest[0]], ("props", rest[0]))
            return f"_prop({vals}, {obj}, {e.name!r}, {self.site(e)})" if self.checked else f"{vals}[{obj}]"
        if kind in ("record_field", "use_field"):
            return f"_record_field({obj}, {rest[0]!r}, {self.site(e)})" if self.checked else f"{obj}[{rest[0]!r}]"
        k = {"player": 0, "cards": 1, "size": 2}[rest[0]]  # a play: [player, [cards]]
        if self.checked:
            return f"_play_field({obj}, {k}, {e.name!r}, {self.site(e)})"
        return (f"{obj}[0]", f"list({obj}[1])", f"len({obj}[1])")[k]

    def _Index(self, e, mode):
        kind, *rest = self.refs[e]
        idx = self.expr(e.index)
        if kind in ("pvar", "pzone") and self.checked:
            idx = f"_player_index({idx}, {self.site(e)})"
        if kind == "pvar":
            return f"st.vars[{self.prog.var_index[rest[0].name]}][{idx}]"
        if kind == "pzone":
            return f"({self.prog.zone_base[rest[0].name]} + {idx})"
        xs = self.expr(e.obj, "iter")
        return f"_item({xs}, {idx}, {self.site(e)})" if self.checked else f"{xs}[{idx}]"

    def _ListLit(self, e, mode):
        return "[" + ", ".join(self.expr(x) for x in e.items) + "]"

    def _Unary(self, e, mode):
        a = self.expr(e.operand)
        if e.op == "not":
            return f"(not {a})"
        return f"_negate({a}, {self.site(e)})" if self.checked else f"(-{a})"

    def _Range(self, e, mode):
        lo, hi = self.expr(e.lo), self.expr(e.hi)
        return f"_range({lo}, {hi}, {self.site(e)})" if self.checked else f"_bounded_range({lo}, {hi})"

    def _IfExpr(self, e, mode):
        c = self.expr(e.cond)
        if self.type_of(e).name == "list":  # a zone in either branch is its cards
            sub = "view" if mode in ("view", "iter") else "list"
            a, b = self.expr(e.then, sub), self.expr(e.else_, sub)
        else:
            a, b = self.expr(e.then), self.expr(e.else_)
        return f"({a} if {c} else {b})"

    def _Chain(self, e, mode):
        """a + b - c ...: the first CHAIN_SEGMENT operators here, the others in segments (_fold)."""
        n = len(e.operands)
        head = min(n, CHAIN_SEGMENT + 1)
        src = self._chain_part(e, 0, head, None)
        if head == n:
            return src
        segments = [self._function_of(lambda sub, k=k: sub._chain_part(e, k, min(n, k + CHAIN_SEGMENT), "acc"),
                                      ["acc"], e.operands[k].span)
                    for k in range(head, n, CHAIN_SEGMENT)]
        return f"_fold({src}, ({', '.join(segments)},), {', '.join(self._call_args())})"

    def _chain_part(self, e, start: int, end: int, acc: Optional[str]) -> str:
        """Source for e's operands start..end-1 and the operators before them, applied to acc (the
        value of the operands before start) or, without acc, starting from operand start."""
        t = self.type_of(e)
        lists = T.is_list(t)
        nested = self.checked and not lists and t != T.BOOL  # each operator is a checking helper
        self.depth += (end - start) // 2 if nested else 1  # the helpers' brackets nest, Python allows 200
        try:
            first = start if acc is not None else start + 1
            src = acc if acc is not None else self.expr(e.operands[start], "view" if lists else "value")
            parts = [src]
            for k in range(first, end):
                op, b = e.ops[k - 1], self.expr(e.operands[k], "view" if lists else "value")
                if nested:
                    src = self._checked_operator(op, t, src, b, e.prefix_span(k + 1))
                else:
                    parts.append(f"{'//' if op == '/' else op} {b}")
            return src if nested else f"({' '.join(parts)})"
        finally:
            self.depth -= (end - start) // 2 if nested else 1

    def _checked_operator(self, op: str, t: T.Type, a: str, b: str, span) -> str:
        if op == "+" and t == T.TEXT:
            return f"_join({a}, {b}, {self.site_at(span)})"
        helper = _ARITHMETIC.get(op) or {"/": "_div", "%": "_mod"}[op]
        return f"{helper}({a}, {b}, {self.site_at(span)})"

    def _BinOp(self, e, mode):
        op = e.op
        if op == "in":
            return f"({self.expr(e.left)} in {self.expr(e.right, 'iter')})"
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if op in ("==", "!=") and lt.name == "zone" and rt.name == "zone":
            # two zones are the same zone or not ('source == hand[p]'), whatever cards they hold
            return f"({self.expr(e.left)} {op} {self.expr(e.right)})"
        lists = T.is_list(lt) or T.is_list(rt)
        a, b = self.expr(e.left, "view" if lists else "value"), self.expr(e.right, "view" if lists else "value")
        if op in ("==", "!=") and isinstance(e.right, A.NoneLit):
            return f"({a} {'is' if op == '==' else 'is not'} None)"
        if op in ("==", "!=") or not self.checked:
            return f"({a} {op} {b})"
        return f"{_ORDER[op]}({a}, {b}, {self.site(e)})"

    def _Call(self, e, mode):
        kind = self.refs[e][0]
        if kind == "def":
            return self._def_call(e)
        if kind == "rule":  # its base combined with every contribution that applies now
            args = ", ".join(self.expr(a, "list") for a in e.args)
            return f"{self.bind(self.prog.rules, ('rules',))}[{e.func!r}].value(st, [{args}])"
        f, args = e.func, e.args
        if f == "count":
            if self.is_builtin_call(args[0], "plays"):
                return f"len(st.plays.get({self.expr(args[0].args[0])}, ()))"
            return f"len({self.expr(args[0], 'iter')})"
        if f == "sorted":
            return f"sorted({self.expr(args[0], 'view')})"
        if f == "distinct":
            return f"list(dict.fromkeys({self.expr(args[0], 'view')}))"
        if f == "reversed":
            return f"{self.expr(args[0], 'view')}[::-1]"
        if f in ("subsets", "combinations"):
            size = self.expr(args[1]) if f == "combinations" else "None"
            return f"_subsets({self.expr(args[0], 'view')}, {size}, {self.site(e)})"
        if f == "random":
            assert self.checked, "random() is only ever evaluated once, in the checked version"
            return f"_random(st, {self.expr(args[0], 'view')}, {self.site(e)})"
        if f == "tagged":
            return f"_tagged(st, {self.expr(args[0])}, {args[1].value!r}, {self.bind(self.comp.tags, ('tags',))})"
        a = [self.expr(x) for x in args]
        if f == "revealed":
            return f"_revealed(st, {a[0]}, {self.site(e)})" if self.checked else f"st.is_revealed({a[0]})"
        if f in ("players_after", "players_from"):
            return f"_{f}({a[0]}, st.n)"
        if f == "next_player":
            return f"(({a[0]} + 1) % st.n)"
        if f == "seat":
            return f"({a[0]} + 1)"
        if f == "top":
            return f"st.zones[{a[0]}][::-1][:max(0, {a[1]})]"
        if f == "bottom":
            return f"st.zones[{a[0]}][:max(0, {a[1]})]"
        if f == "plays":
            return f"[list(_p) for _p in st.plays.get({a[0]}, ())]"
        if f == "cards":
            return f"list(st.zones[{a[0]}])"
        if f in ("max", "min"):
            return f"{f}({a[0]}, {a[1]})"
        if f == "abs":
            return f"abs({a[0]})"
        raise AssertionError(f"unknown function '{f}'")

    def _def_call(self, e) -> str:
        name = e.func
        body = self.comp.def_body(name, self.checked)
        args = [self.expr(a, "list") for a in e.args]  # a zone given for a list[card] parameter is its cards
        freezers = [_freezer(self.type_of(a)) for a in e.args]
        # memoised: a pure def, unless a list argument reads a local name (a candidate's cards,
        # say): that list is rarely the same twice, and freezing it costs more than the call saves
        volatile = any(fz is not _identity and _reads_locals(a, self.refs) for fz, a in zip(freezers, e.args))
        if self.comp.pure[name] and not volatile:
            call = _memoised(name, body, freezers)
            recipe = ("memo", name, body.__name__, tuple(_FREEZER_CODES[id(f)] for f in freezers))
        else:
            call, recipe = body, ("fn", body.__name__)
        return f"{self.bind(call, recipe)}({', '.join(['st'] + args)})"

    def _LetExpr(self, e, mode):
        value = self.expr(e.value, "list" if self.type_of(e.value).name == "zone" else "value")
        q = self.fresh("q")
        outer = self.scope.get(e.var)
        self.scope[e.var] = q
        try:
            body = self.expr(e.body, mode)
        finally:
            if outer is None:
                del self.scope[e.var]
            else:
                self.scope[e.var] = outer
        return f"(lambda {q}: {body})({value})"  # a function's argument: the value is worked out once

    def _Quant(self, e, mode):
        dom = self.expr(e.domain, "iter")
        q = self.fresh("q")
        outer = self.scope.get(e.var)
        self.scope[e.var] = q
        try:
            where = self.expr(e.where) if e.where is not None else None
            body = self.expr(e.body) if e.body is not None else None
        finally:
            if outer is None:
                del self.scope[e.var]
            else:
                self.scope[e.var] = outer
        k = e.kind
        loop = f"for {q} in {dom}" + (f" if {where}" if where is not None else "")
        # any, all, first, count: the body is one more filter
        found = loop + (f" if {body}" if body is not None and k != "all" else "")
        # any/all/first: the filter runs inside the generator, which yields at most once
        if k == "any":
            return f"next((True {found}), False)"
        if k == "all":
            return "True" if body is None else f"next((False {loop} if not {body}), True)"
        if k == "first":
            return f"next(({q} {found}), None)"
        if k == "count":
            return f"len([0 {found}])"
        if k == "collect":
            return f"[{q if body is None else body} {loop}]"
        if k == "sum":
            return f"sum([{body} {loop}])"
        if k in ("max", "min"):
            values = f"[{body} {loop}]"
            return f"_extreme({values}, {k!r}, {self.site(e)})" if self.checked else f"{k}({values})"
        pairs = f"[({q}, {body}) {loop}]"
        better = self.bind(_BETTER[k, e.ties_last], ("better", k, e.ties_last))
        if self.checked:
            return f"_best_checked({pairs}, {better}, {k!r}, {self.site(e)})"
        return f"_best({pairs}, {better})"
