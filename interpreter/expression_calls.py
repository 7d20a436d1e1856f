"""The source of a call in a generated expression: a builtin function, a rule's value, a def.

A mixin of the code writer (expression_writer._Gen): a builtin becomes inline Python or a helper
of expression_runtime.py (a new builtin is written here, and listed in _SAFE_CALLS when its fast
code can raise no Python error); a rule reads the Program's rule table; a def calls its body,
through the memo of def_memo.py when the def is pure.
"""
from __future__ import annotations

from rulespec.lang import ast as A
from rulespec.lang import types as T

from .def_memo import _FREEZER_CODES, _freezer, _identity, _memoised

_SAFE_CALLS = {"count", "reversed", "tagged", "plays", "cards"}  # their fast code raises no Python error


def _reads_locals(e, refs) -> bool:
    """Does expression e read a local name (a choice, a parameter, a quantifier's variable)?"""
    if isinstance(e, A.Name):
        return refs.get(e, ("",))[0] == "local"
    return any(_reads_locals(x, refs) for x in A.children(e))


class _CallWriter:
    """The writer's methods for calls (self is a _Gen: expr, bind, site, refs, comp ...)."""

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
            item = T.elem_of(self.type_of(args[0]))
            if T.ordered_enum(item):  # members in their enum's order
                xs, order = self.expr(args[0], 'view'), self.enum_order(item)
                return f"_sorted_members({xs}, {order}, {self.site(e)})" if self.checked \
                    else f"sorted({xs}, key={order}.__getitem__)"
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
        if f == "sees":
            return f"_sees(st, {a[0]}, {a[1]}, {self.site(e)})" if self.checked else f"st.can_see_card({a[1]}, {a[0]})"
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
            if T.ordered_enum(self.type_of(e)):  # of two members, the later (or earlier) in their enum
                order = self.enum_order(self.type_of(e))
                return f"_extreme_member([{a[0]}, {a[1]}], {order}, {f!r}, {self.site(e)})" if self.checked \
                    else f"{f}({a[0]}, {a[1]}, key={order}.__getitem__)"
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
