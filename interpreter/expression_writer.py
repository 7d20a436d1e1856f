"""The code writer of expressions: the Python source of one expression, fast or checked.

``_Gen`` walks a checked expression and writes the body of a generated function ``f(st, env)``
(or of a def's body, or of a chunk): one method per kind of node (the calls are in
expression_calls.py), each value the source refers to bound to a fresh name in the namespace,
with the recipe a replayed session makes it again by.  ``_Session`` is that namespace while one
Program is built, and the record code_cache.py keeps of it.  expressions.py drives both.
"""
from __future__ import annotations

import builtins
from typing import Callable, Optional

from rulespec.lang import ast as A
from rulespec.lang import types as T

from .expression_calls import _SAFE_CALLS, _CallWriter
from .expression_runtime import _ARITHMETIC, _BETTER, _HELPERS, _ORDER, _PY_ERRORS, ENTRY_FIELD_INDEX

CHUNK_DEPTH = 20    # AST levels per generated function: Python's parser allows 200 nested brackets
# Operators of a chain (a + b + c ...) written in one generated expression; a longer chain goes on
# in functions of its own that _fold calls in turn, so no length of chain nests Python code deeper.
CHAIN_SEGMENT = 16


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


class _Session:
    """The functions generated while one Program is built: one namespace, names unique within it,
    and what it takes to make them again (see the docstring of expressions.py)."""

    def __init__(self):
        self.ns: dict = dict(_HELPERS)
        self.ns["_PY_ERRORS"] = _PY_ERRORS  # a try costs nothing until something raises
        self.ns["__builtins__"] = builtins.__dict__
        self.counter = [0]
        self.codes: list = []    # (function name, code object), in the order they were made
        self.sources: list = []  # the source of each, in the same order (with a comment naming its rules
        #                          line): the game's module as text (interpreter/compiled/module_text.py)
        self.binds: list = []    # (name, recipe): how to make every other value the code names
        self.entries: list = []  # (kind, line, col, function name, its fallback's name or None)
        self.bodies: dict = {}   # (def name, checked) -> function name
        self.cacheable = True    # False once something was bound without a recipe
        self.replay: Optional[list] = None  # entries still to replay (a cached session), last first
        self.mismatch = False    # the build asked for another expression than the recorded one
        self.pending: list = []  # replaying: the recorded binds, made by finish()
        self.explains: list = []  # names of the entries' fallbacks (their checked versions)


class _Gen(_CallWriter):
    """Writes the source of one generated function (and of the chunks it calls)."""

    def __init__(self, comp, checked: bool, scope: dict, has_env: bool,
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
        session makes the value again (see the docstring of expressions.py)."""
        name = self.fresh("_k")
        self.ns[name] = value
        s = self.session
        if s is not None:
            if recipe is None:
                s.cacheable = False
            elif recipe[0] != "explain":  # an entry's fallback: the replaying caller makes its own
                s.binds.append((name, recipe))
            else:
                s.explains.append(name)
        return name

    def site(self, e) -> str:
        """Where a checking helper reports an error: (path, span) of node e."""
        return self.site_at(e.span)

    def site_at(self, sp) -> str:
        return self.bind((self.comp.path, sp), ("site", sp.line, sp.col, sp.end_line, sp.end_col))

    def define(self, params: str, body: str, span) -> Callable:
        name = self.fresh("_f")
        where = f"<rules {self.comp.path}:{span.line}:{span.col}>"  # names the code in profiles and tracebacks
        src = f"def {name}({params}):\n{body}"
        exec(compile(src, where, "exec"), self.ns)  # noqa: S102 -- from the checked model
        f = self.ns[name]
        if self.session is not None:
            self.session.codes.append((name, f.__code__))
            self.session.sources.append(f"# {where[1:-1]}\n{src}")
        return f

    def type_of(self, e) -> T.Type:
        return self.types.get(e, T.ANY)

    def enum_order(self, t: T.Type) -> str:
        """The name of enum t's order: member -> its place in the declaration (what '<' compares)."""
        return self.bind(self.prog.enum_order[t.enum], ("enum_order", t.enum))

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
        if op == "^":
            a, b = self.expr(e.left), self.expr(e.right)
            return f"_power_checked({a}, {b}, {self.site(e)})" if self.checked else f"_power({a}, {b})"
        lt, rt = self.type_of(e.left), self.type_of(e.right)
        if op not in ("==", "!=") and (T.ordered_enum(lt) or T.ordered_enum(rt)):
            # members of one enum compare by their places in its declaration
            order = self.enum_order(lt if T.ordered_enum(lt) else rt)
            a, b = self.expr(e.left), self.expr(e.right)
            if self.checked:
                return f"{_ORDER[op]}(_rank({order}, {a}), _rank({order}, {b}), {self.site(e)})"
            return f"({order}[{a}] {op} {order}[{b}])"
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
        member = T.ordered_enum(self.type_of(e.body))  # the last (or first) in the enum's order
        if k in ("max", "min"):
            values = f"[{body} {loop}]"
            if member:
                order = self.enum_order(self.type_of(e.body))
                return f"_extreme_member({values}, {order}, {k!r}, {self.site(e)})" if self.checked \
                    else f"{k}({values}, key={order}.__getitem__)"
            return f"_extreme({values}, {k!r}, {self.site(e)})" if self.checked else f"{k}({values})"
        if member:
            order = self.enum_order(self.type_of(e.body))
            body = f"_rank({order}, {body})" if self.checked else f"{order}[{body}]"
        pairs = f"[({q}, {body}) {loop}]"
        better = self.bind(_BETTER[k, e.ties_last], ("better", k, e.ties_last))
        if self.checked:
            return f"_best_checked({pairs}, {better}, {k!r}, {self.site(e)})"
        return f"_best({pairs}, {better})"
