"""The source of one action's generated lister (listing.py says what it must do).

A lister is a factory ``_fN(R)`` of the game's module (CompiledProgram.define) that unpacks R,
the runtime objects it needs (_COMMON), into its closure and returns
``L_list(st, actor, out, seen, limit)``: the action's choices as nested loops over their values
(L_x0, L_x1, ...) whose variables (L_v0, L_v1, ...) the rules' expressions read as Python
locals; then its requirements, its text, and the Action, appended to `out`.  Every name the
source uses itself starts with L_ (the expressions' own are _k, _f, q and the helpers).

On top of the expressions' source, the writer
  * keeps a part of a condition or text that reads no choice (led_suit(), can_follow(active)) in
    a local, worked out when first needed (_hoisting_expr);
  * writes a small pure def called with choices (is_wild(c)) inline (inline);
  * formats a template's holes of the usual types inline (template).
"""
from __future__ import annotations

import re

from rulespec.lang import ast as A
from rulespec.lang import types as T

# What every generated lister finds in its closure (the factory's argument R, in this order:
# listing._closure makes it).
_COMMON = ("L_prog", "L_P", "L_F", "L_Action", "L_new", "L_CC", "L_names", "L_kind", "L_pub", "L_own",
           "L_first", "L_ntc", "L_pvals", "L_cards", "L_Over", "L_active_for", "L_ab", "L_pp", "L_enum", "L_U",
           "L_hidden", "L_mt")
_ENV = re.compile(r"\benv\b")
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class _Writer:
    """Writes the generated lister of one action (build(g) of CompiledProgram.define)."""

    def __init__(self, prog, act, g):
        self.prog, self.act, self.g = prog, act, g
        self.decl = act.decl
        self.lines: list = []
        self.ability = act.ability is not None
        self._names = None  # the name the card names are bound to, once asked for
        # the names the rules read, as Python locals of the lister
        g.scope = {"owner": "actor", "self": "L_self"} if self.ability else {}
        self.hoisted: dict = {}  # (id(node), mode) -> the local that keeps its value
        self._free: dict = {}    # id(node) -> the local names it reads that it does not bind
        self._worth: dict = {}   # id(node) -> is it worth keeping (worth())
        self._plain_expr = g.expr
        self._off = 0            # > 0: inside a lambda or a comprehension, where nothing is hoisted
        self.looping = False     # inside the loop of the first choice (before it, all runs once)
        self._inlining = 0       # how deep in the bodies of defs written inline
        g.expr = self._hoisting_expr  # (the writer's own recursive calls come here too)

    def emit(self, depth: int, line: str) -> None:
        self.lines.append(" " * depth + line)

    def env_dict(self, upto: int) -> str:
        """A dict literal of the names bound before parameter `upto` (for the runtime's calls)."""
        items = ['"owner": actor', '"self": L_self'] if self.ability else []
        items += [f"{self.decl.params[j].name!r}: L_v{j}" for j in range(upto)]
        return "{" + ", ".join(items) + "}"

    def body(self) -> str:
        act = self.act
        self.emit(1, ", ".join(_COMMON) + " = R")
        self.emit(1, "def L_list(st, actor, out, seen, limit):")
        d = 2
        if self.ability:
            self.emit(d, "for L_self in L_active_for(st, L_ab, actor):")
            d += 1
            leave = "continue"
        else:
            leave = "return"
        env_at = len(self.lines)
        self.emit(d, f"env = {self.env_dict(0)}")
        p0 = act.params[0] if act.params else None
        early = p0 is not None and self.simple_card(0) and p0.printed is not None
        if early:
            # 'card from ZONE where c.prop == V': no value here is what nothing_to_choose answers
            # (the reference then reads no requirement), so the values come first
            self.values(0, d)
            self.emit(d, "if len(L_x0) > limit: raise L_Over()")
            self.emit(d, f"if not L_x0: {leave}")
        elif p0 is not None and p0.kind in ("card", "use") and p0.zones is not None and \
                (p0.kind == "use" or p0.printed is not None):
            self.emit(d, f"if L_ntc(L_prog, L_P[0], st, env, actor): {leave}")
        if act.preconditions:
            self.emit(d, f"if not ({self.all_of([r.cond for _, _, r in act.preconditions])}): {leave}")
        for i in range(1, len(act.params)):
            self.emit(d, f"L_n{i} = 0")
        self.param(0, d, early)
        if self.hoisted:  # (right after env: the first line that may use one)
            self.lines.insert(env_at + 1, " " * d + " = ".join(sorted(self.hoisted.values())) + " = L_U")
        self.emit(1, "return L_list")
        lines = self.lines
        if not any(_ENV.search(line) for line in lines[:env_at] + lines[env_at + 1:]):
            del lines[env_at]  # nothing reads it: no dict to make
        return "\n".join(lines) + "\n"

    def _hoisting_expr(self, e, mode: str = "value") -> str:
        """g.expr, but a part of a condition or a text that reads no choice (led_suit(),
        can_follow(active)) is worked out once per listing, the first time it is needed, and kept
        in a local: what the memo of defs does, without a call per candidate.  Read once where the
        reference reads it many times, it is the same value (nothing changes the state while
        actions are listed), and it is read only where the reference reads it at least once.
        Not inside a quantifier or a 'let' (a comprehension or a lambda of the source)."""
        plain = self._plain_expr
        if self._off or not self.looping or not self.worth(e) or not self.free(e) <= self.fixed_names():
            if self.looping and self.inlinable(e):
                return self.inline(e, mode)
            if isinstance(e, (A.Quant, A.LetExpr)):
                self._off += 1
                try:
                    return plain(e, mode)
                finally:
                    self._off -= 1
            return plain(e, mode)
        key = (id(e), mode)
        name = self.hoisted.get(key)
        self._off += 1
        try:
            src = plain(e, mode)
        finally:
            self._off -= 1
        if name is None:
            name = self.hoisted[key] = f"L_h{len(self.hoisted)}"
        return f"({name} if {name} is not L_U else ({name} := {src}))"

    def worth(self, e) -> bool:
        """Is expression e worth keeping once worked out: does it call a def, a rule or a builtin,
        or run a quantifier?"""
        got = self._worth.get(id(e))
        if got is None:
            got = self._worth[id(e)] = isinstance(e, (A.Call, A.Quant)) or any(self.worth(x) for x in A.children(e))
        return got

    def fixed_names(self) -> set:
        """The rules' local names fixed for one listing: a card's owner and the card itself (in
        the body of a def written inline, its parameters are the only names: none is fixed)."""
        return _ABILITY_NAMES if self.ability and not self._inlining else _NO_NAMES

    def inlinable(self, e) -> bool:
        """Is e a call of a small pure def with choices for arguments (is_wild(c), matches(c)),
        whose body is better written inline than called through the memo of defs (a call, a key
        and a look-up for every candidate, where the value is rarely asked for twice)?"""
        if not isinstance(e, A.Call) or self._inlining >= _INLINE_DEPTH or \
                self.g.refs.get(e, ("",))[0] != "def" or not self.prog.exprs.pure.get(e.func):
            return False
        d = self.prog.model.defs[e.func]
        if not e.args or _size(d.body) > _INLINE_SIZE:
            return False  # (a def of no argument: kept once per listing, by the memo or here)
        for a in e.args:  # a choice or a quantifier's variable: a Python local of the lister
            if not (isinstance(a, A.Name) and self.g.refs.get(a, ("",))[0] == "local" and a.name in self.g.scope
                    and self.g.type_of(a).name in _SCALAR):
                return False
        return True

    def inline(self, e, mode: str) -> str:
        """The body of the def e calls, its parameters standing for the locals given (the value
        the call gives: a pure def's value is the same however often it is worked out)."""
        g = self.g
        d = self.prog.model.defs[e.func]
        scope = g.scope
        g.scope = {p.name: scope[a.name] for p, a in zip(d.params, e.args)}  # (a def sees its parameters only)
        self._inlining += 1
        try:
            return "(" + g.expr(d.body, "value" if d.rtype.name == "zone" else "list") + ")"
        finally:
            self._inlining -= 1
            g.scope = scope

    def free(self, e) -> frozenset:
        """The local names expression e reads and does not bind itself."""
        got = self._free.get(id(e))
        if got is None:
            refs = self.g.refs
            if isinstance(e, A.Name):
                got = frozenset([e.name]) if refs.get(e, ("",))[0] == "local" else _NO_NAMES
            elif isinstance(e, A.Quant):
                inner = frozenset().union(*[self.free(x) for x in (e.where, e.body) if x is not None])
                got = self.free(e.domain) | (inner - {e.var})
            elif isinstance(e, A.LetExpr):
                got = self.free(e.value) | (self.free(e.body) - {e.var})
            else:
                got = frozenset().union(*[self.free(x) for x in A.children(e)])
            self._free[id(e)] = got
        return got

    def all_of(self, conds: list) -> str:
        return " and ".join(f"({self.g.expr(c)})" for c in conds)

    def values(self, i: int, d: int) -> None:
        """L_x{i}: the values of parameter i (before its 'where')."""
        p, ap = self.act.params[i], self.decl.params[i]
        g, x = self.g, f"L_x{i}"
        if p.kind == "int":
            self.emit(d, f"{x} = {g.expr(ap.domain, 'list')}")
        elif p.kind == "enum":
            self.emit(d, f"{x} = L_enum[{i}]")
        elif p.kind == "bool":
            self.emit(d, f"{x} = (True, False)")
        elif p.kind == "player":
            self.emit(d, f"{x} = range(st.n)")
        elif self.simple_card(i):
            self.emit(d, f"L_zi = {g.expr(ap.domain)}")
            self.emit(d, "L_z = st.zones[L_zi]")
            self.emit(d, "if L_pub[L_zi] or L_own[L_zi] == actor or actor is None or L_zi in st.revealed:")
            if p.printed is not None:
                self.emit(d + 1, f"L_w = L_pp[{i}][1](st, {self.env_dict(i)})")
                self.emit(d + 1, f"L_z = [c for c in L_z if L_pp[{i}][0][c] == L_w]")
            self.emit(d + 1, f"{x} = L_z" if _unique_kinds(self.prog) else f"{x} = L_first(L_kind, L_z)")
            self.emit(d, "else:")  # face down (cardsets.hidden_zone_values)
            self.emit(d + 1, f"{x} = L_hidden(L_prog, L_P[{i}], st, {self.env_dict(i)}, L_zi, actor)")
        elif p.kind == "cards":
            self.emit(d, f"{x} = L_cards(L_prog, L_P[{i}], st, {self.env_dict(i)}, actor)")
        else:
            self.emit(d, f"{x} = L_pvals(L_prog, L_P[{i}], st, {self.env_dict(i)}, actor)")

    def face_down(self, i: int) -> str:
        """Does card choice i hold a face-down pick (markers.py)?"""
        v = f"L_v{i}"
        return f"{v} >= L_CC" if self.act.params[i].kind == "card" else f"any([L_c >= L_CC for L_c in {v}])"

    def indexes(self, names) -> list:
        """The indexes of the named choices, in order."""
        return [j for j, p in enumerate(self.act.params) if p.name in names]

    def simple_card(self, i: int) -> bool:
        p, ap = self.act.params[i], self.decl.params[i]
        return p.kind == "card" and p.zones is not None and len(p.zones) == 1 and p.zones[0][0] \
            and not p.multi_zone and self.prog.type_of(ap.domain).name == "zone"

    def param(self, i: int, d: int, listed: bool = False) -> None:
        """The loop of parameter i, and inside it the parameters after it (or the action);
        listed: its values are already in L_x{i}."""
        act, g = self.act, self.g
        if i == len(act.params):
            self.looping = bool(act.params)  # (an action without choices runs this once: nothing to keep)
            self.action(d)
            return
        p, ap = act.params[i], self.decl.params[i]
        v = f"L_v{i}"
        if not listed:
            self.values(i, d)
            if i == 0:
                self.emit(d, "if len(L_x0) > limit: raise L_Over()")
        g.scope[ap.name] = v
        self.looping = True
        test = None
        if ap.cond is not None:  # (off for a face-down pick, its own or one it reads: actions.where_off)
            off = ([self.face_down(i)] if p.kind in ("card", "cards") else []) + \
                [self.face_down(j) for j in self.indexes(p.face_down_reads)]
            test = " or ".join(off + [f"({g.expr(ap.cond)})"])
        if p.kind == "player" and p.nullable:  # 'player or none': none only when no player qualifies
            keep = f" if {test}" if test is not None else ""
            self.emit(d, f"for {v} in ([{v} for {v} in L_x{i}{keep}] or (None,)):")
        else:
            self.emit(d, f"for {v} in L_x{i}:")
            if test is not None:
                d += 1
                self.emit(d, f"if {test}:")
        d += 1
        if i > 0:
            self.emit(d, f"L_n{i} += 1")
            self.emit(d, f"if L_n{i} > limit: raise L_Over()")
        self.param(i + 1, d)

    def action(self, d: int) -> None:
        """The filled-in action: its requirements, its text, and the action itself."""
        act, decl, g = self.act, self.decl, self.g
        if act.requires:
            if act.face_down_reads:  # a requirement that reads a face-down pick does not apply to it
                self.emit(d, "if " + " and ".join(
                    "(" + " or ".join([self.face_down(j) for j in self.indexes(reads)] + [f"({g.expr(r.cond)})"]) + ")"
                    for (_, _, r), reads in zip(act.requires, act.face_down_reads)) + ":")
            else:
                self.emit(d, f"if {self.all_of([r.cond for _, _, r in act.requires])}:")
            d += 1
        self.emit(d, f"L_t = {self.text()}")
        self.emit(d, "if len(out) >= limit: raise L_Over()")
        self.emit(d, "if L_t in seen:")
        self.emit(d + 1, "seen[L_t] += 1")
        self.emit(d + 1, "L_t = L_t + ' #' + str(seen[L_t])")
        self.emit(d, "else:")
        self.emit(d + 1, "seen[L_t] = 1")
        params = [f"({p.name!r}, L_v{i})" for i, p in enumerate(decl.params)]
        if self.ability:
            params += ["('owner', actor)", "('self', L_self)"]
        tup = "(" + ", ".join(params) + ("," if len(params) == 1 else "") + ")"
        self.emit(d, f"out.append(L_new(L_Action, ({act.name!r}, {tup}, L_t)))")

    def text(self) -> str:
        act, decl, prog = self.act, self.decl, self.prog
        if decl.text is not None:
            return self.template(prog.model.templates.get(decl.text, [decl.text.value]))
        parts = [repr(act.name)]
        for i, p in enumerate(act.params):
            v = f"L_v{i}"
            if prog.has_labels:
                parts.append(f"L_F[{i}](st, {v})")
            elif p.kind == "int":
                parts.append(f"str({v})")
            elif p.kind == "card" and not p.multi_zone:
                parts.append(f"(L_names[{v}] if {v} < L_CC else L_F[{i}](st, {v}))")
            else:
                parts.append(f"L_F[{i}](st, {v})")
        return " + ' ' + ".join(parts)

    def template(self, parts: list) -> str:
        """A text template's source as g.text writes it, with the formatters of the usual types
        written inline (what Program.formatter returns for them, without a call per hole)."""
        g = self.g
        if self.prog.model.label is not None:  # cards shown by their label: the formatters do it
            return "(" + g.text(parts) + ")"
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(repr(part))
                continue
            t = g.type_of(part)
            src = g.expr(part)
            simple = _NAME.fullmatch(src) is not None  # read twice below: a local name only
            if t == T.CARD and simple:  # (past the card ids: a face-down pick)
                out.append(f"('no card' if {src} is None else {self.names()}[{src}] if {src} < L_CC "
                           f"else L_mt(L_prog, {src}))")
            elif t == T.CARDS:
                out.append(f"(' + '.join(['no card' if L_c is None else {self.names()}[L_c] if L_c < L_CC "
                           f"else L_mt(L_prog, L_c) for L_c in {src}]) or 'nothing')")
            elif t == T.PLAYER and simple:
                out.append(f"('nobody' if {src} is None else 'P' + str({src} + 1))")
            elif (t in (T.INT, T.TEXT) or t.name == "enum") and simple:
                out.append(f"('none' if {src} is None else str({src}))")
            else:
                out.append(f"{g.bind(g.comp.formatter(t), ('fmt', t))}(st, {src})")
        return "(" + (" + ".join(out) if out else "''") + ")"

    def names(self) -> str:
        if self._names is None:
            self._names = self.g.bind(self.prog.card_names, ("names",))
        return self._names


_NO_NAMES: frozenset = frozenset()
_ABILITY_NAMES = frozenset(["owner", "self"])


_INLINE_DEPTH = 2  # a def written inline in one written inline, no deeper (defs may call themselves)
_INLINE_SIZE = 30  # the most nodes a def's body may have to be written inline
_SCALAR = frozenset(["int", "bool", "text", "player", "card", "enum"])  # (as arguments: passed as they are)


def _size(e) -> int:
    """How many nodes expression e has; a quantifier counts as too many (its loop is worth the
    memo's keeping, should the value be asked for again)."""
    if isinstance(e, A.Quant):
        return _INLINE_SIZE + 1
    return 1 + sum(_size(x) for x in A.children(e))


def _unique_kinds(prog) -> bool:
    """Is every card the only one of its kind (no two alike)?"""
    got = prog.cache.get("unique kinds")
    if got is None:
        got = prog.cache["unique kinds"] = len(set(prog.card_kind)) == prog.card_count
    return got
