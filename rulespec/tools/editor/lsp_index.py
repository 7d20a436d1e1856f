"""The symbol index of one analysed document: its declarations and every use of their names.

Declarations come from the syntax tree; uses come from a walk of the syntax tree
(names, calls, fields, the names in clauses such as ``next PHASE`` or ``stack EFFECT``, and the
expressions inside string templates), with the checker's own resolution (``Checker.refs``)
telling a local name (a parameter, ``let``, ``for``, a quantifier's variable) from a global one
of the same spelling. Cards are found as strings equal to a card's name. Hover, definition,
references (rulespec/tools/editor/lsp_lookup.py), completion and the outline read it.
"""
from __future__ import annotations

import bisect
import re
from typing import NamedTuple, Optional

import attrs

from rulespec.lang import ast as A

from .lsp_templates import _template_parts
from .lsp_text import _NAME, _SKIP, _TOKEN, unquote

# "Analysis" (lsp_analysis.py) is named in annotations only: lsp_analysis imports this module.


@attrs.define
class Symbol:
    """A declaration: what hover, definition, the outline and completion show."""
    name: str
    kind: str           # game, enum, member, option, property, card, zone, var, def, action, phase,
    #                     invariant, effect, event, trigger, conversion, rule, field, local
    ns: str             # the namespace a use is looked up in (see Occurrence)
    span: A.Span        # the whole declaration
    name_span: A.Span   # its name (for a card or the game: the string)
    header: str         # the declaration as written, without its body and doc
    doc: Optional[str] = None
    detail: str = ""    # more lines for hover (a phase's actions, an enum's members, ...)
    parent: Optional["Symbol"] = None
    children: list = attrs.field(factory=list)


class Occurrence(NamedTuple):
    """A name used somewhere. ns: global (zones, variables, options, enums and their members,
    defs and rule values: one namespace in the language), phase, action, effect (or a tag),
    event, trigger, property, card, local, builtin, field."""
    name: str
    ns: str
    line: int
    col: int
    end_col: int
    owner: str = ""   # for a field named in 'stack EFFECT(field = ...)': the effect


# ---------------------------------------------------------------------- the symbol index
_KIND_NS = {"enum": "global", "member": "global", "option": "global", "zone": "global", "var": "global",
            "def": "global", "rule": "global", "phase": "phase", "action": "action", "effect": "effect",
            "event": "event", "trigger": "trigger", "conversion": "conversion", "property": "property",
            "card": "card", "game": "game", "invariant": "invariant", "field": "field", "tag": "tag",
            "local": "local"}

_DECL_KIND = {A.GameDecl: "game", A.EnumDecl: "enum", A.OptionDecl: "option", A.PropertyDecl: "property",
              A.CardDecl: "card", A.ZoneDecl: "zone", A.VarDecl: "var", A.DefDecl: "def", A.ActionDecl: "action",
              A.PhaseDecl: "phase", A.InvariantDecl: "invariant", A.EffectDecl: "effect", A.EventDecl: "event",
              A.TriggerDecl: "trigger", A.ConversionDecl: "conversion", A.RuleDecl: "rule", A.ModifyDecl: "modify"}

_HEADER_LINES = 8      # a declaration shown in a hover is cut after this many lines
_HEADER_CHARS = 600


class Index:
    """Declarations and the uses of their names in one analysed document."""

    def __init__(self, an: "Analysis"):
        self.an = an
        self.symbols: dict = {}       # (ns, name) -> [Symbol]
        self.outline: list = []       # top-level symbols, in file order (children for the outline)
        self.occurrences: list = []   # Occurrence, every use (declarations not included)
        self.bindings: list = []      # (Symbol of kind local, the top-level declaration's span)
        self.card_names: set = set()
        self._sorted = None
        self._tops = None
        self._by_top = None
        self._local_types: dict = {}
        refs = an.checker.refs if an.checker is not None else {}
        types = an.checker.types if an.checker is not None else {}
        self.refs, self.types = refs, types
        self.templates = an.checker.templates if an.checker is not None else {}
        self.effect_names = {d.name for d in an.decls if isinstance(d, A.EffectDecl)}
        self.var_names = {d.name for d in an.decls if isinstance(d, A.VarDecl)}
        self.property_names = {d.name for d in an.decls if isinstance(d, A.PropertyDecl)}
        self.enum_names = {d.name for d in an.decls if isinstance(d, A.EnumDecl)}
        for d in an.decls:
            self._declare(d, None, d.span)
        for d in an.decls:
            self._walk_decl(d, d.span)
        self._card_strings()

    # -------------------------------------------------------------- declarations
    def add(self, sym: Symbol) -> Symbol:
        self.symbols.setdefault((sym.ns, sym.name), []).append(sym)
        return sym

    def lookup(self, ns: str, name: str) -> list:
        return self.symbols.get((ns, name), [])

    def _name_span(self, span: A.Span, skip_keyword: bool = True) -> A.Span:
        """The span of the name (a NAME or a STRING) that follows the keyword a declaration starts with."""
        an = self.an
        off = an.offset(span.line, span.col)
        if skip_keyword:
            m = _NAME.match(an.text, off)
            off = m.end() if m else off
        off = _SKIP.match(an.text, off).end()
        m = _TOKEN.match(an.text, off)
        if m and m.lastgroup in ("name", "string"):
            return an.span_of(m.start(), m.end())
        return A.Span(span.line, span.col, span.line, span.col)

    def _name_after(self, word: str, name: str, span: A.Span) -> Optional[A.Span]:
        """The span of the first NAME token spelt `name` after the first `word` token inside span."""
        an = self.an
        start, end = an.offset(span.line, span.col), an.offset(span.end_line, span.end_col)
        seen = word is None
        for m in an.scan(start, end):
            if m.lastgroup != "name":
                continue
            if not seen:
                seen = m.group() == word
            elif m.group() == name:
                return an.span_of(m.start(), m.end())
        return None

    def header(self, d, stop_at_brace: bool = True) -> str:
        """The declaration as written, from its keyword to its body (a '{' outside brackets) or its doc."""
        an = self.an
        start, end = an.offset(d.span.line, d.span.col), an.offset(d.span.end_line, d.span.end_col)
        depth, stop, last = 0, end, None
        doc = getattr(d, "doc", None)
        for m in an.scan(start, end):
            g, t = m.lastgroup, m.group()
            if g == "punct":
                if t in "([":
                    depth += 1
                elif t in ")]":
                    depth -= 1
                elif t == "{" and depth == 0 and stop_at_brace:
                    stop = m.start()
                    break
            if g == "string":
                last = m
            elif g != "comment":
                last = None
        else:
            if last is not None and doc is not None and last.end() == end:
                stop = last.start()
        text = an.text[start:stop]
        text = re.sub(r"#[^\n]*", "", text) if "#" in text and '"' not in text else text
        lines = [ln.rstrip() for ln in text.strip().split("\n")]
        if len(lines) > _HEADER_LINES:
            lines = lines[:_HEADER_LINES] + ["  ..."]
        out = _dedent(lines)
        return out if len(out) <= _HEADER_CHARS else out[:_HEADER_CHARS] + " ..."

    def _declare(self, d, parent: Optional[Symbol], top: A.Span) -> Optional[Symbol]:
        kind = _DECL_KIND.get(type(d))
        if kind is None or kind == "modify":
            return None
        if kind == "game":
            sym = Symbol(d.name, "game", "game", d.span, self._name_span(d.span), f'game "{d.name}"', d.doc,
                         f"players {d.min_players}..{d.max_players}")
        elif kind == "invariant":
            sym = Symbol(d.text, "invariant", "invariant", d.span, self._name_span(d.span),
                         self.header(d, False), None)
        elif kind == "card":
            self.card_names.add(d.name)
            sym = Symbol(d.name, "card", "card", d.span, self._name_span(d.span), self._card_header(d), d.doc)
        elif kind == "enum":
            members = ", ".join(m.name for m in d.members)
            sym = Symbol(d.name, "enum", "global", d.span, self._name_span(d.span),
                         f"enum {d.name} {{ {members} }}", d.doc)
        else:
            sym = Symbol(d.name, kind, _KIND_NS[kind], d.span, self._name_span(d.span), self.header(d),
                         getattr(d, "doc", None))
        sym.parent = parent
        self.add(sym)
        if parent is None:
            self.outline.append(sym)
        else:
            parent.children.append(sym)
        if kind == "enum":
            for m in d.members:
                sym.children.append(self.add(Symbol(m.name, "member", "global", m.span, m.span, m.name,
                                                    None, f"a member of enum {d.name}", sym)))
        elif kind == "effect":
            for f in d.fields:
                fs = Symbol(f.name, "field", "field", f.span, self._name_span(f.span, False),
                            self.an.text[self.an.offset(f.span.line, f.span.col):
                                         self.an.offset(f.span.end_line, f.span.end_col)],
                            None, f"a field of effect {d.name} (this.{f.name})", sym)
                sym.children.append(self.add(fs))
            for t in d.tags:
                self.add(Symbol(t.name, "tag", "tag", d.span, t.span, f"is {t.name}", None,
                                f"a tag of effect {d.name}", sym))
        elif kind == "phase":
            for a in d.actions:  # the actions a phase offers, shown under it in the outline
                sym.children.append(Symbol(a.name, "action", "action-ref", a.span, a.span, a.name, None, "", sym))
        elif kind == "card":
            for g in d.abilities:
                for item in g.items:
                    self._declare(item, sym, top)
        return sym

    def _card_header(self, d: A.CardDecl) -> str:
        an = self.an
        fields = "  ".join(an.text[an.offset(f.span.line, f.span.col):an.offset(f.span.end_line, f.span.end_col)]
                           .strip().rstrip(",") for f in d.fields)
        head = f'card "{d.name}"' + (f" {{ {fields} }}" if fields else "")
        return head

    # -------------------------------------------------------------- uses
    def use(self, name: str, ns: str, span: A.Span) -> None:
        if span.line == span.end_line and span.end_col > span.col:
            self.occurrences.append(Occurrence(name, ns, span.line, span.col, span.end_col))

    def use_at(self, name: str, ns: str, line: int, col: int) -> None:
        self.occurrences.append(Occurrence(name, ns, line, col, col + len(name)))

    def bind(self, name: str, span: Optional[A.Span], top: A.Span, what: str, type_text: str = "") -> None:
        """A local name: a parameter, let, for, a quantifier's or a choice's variable."""
        if span is None:
            return
        header = f"{name}: {type_text}" if type_text else name
        self.bindings.append((Symbol(name, "local", "local", span, span, header, None, what), top))

    def _ident_ns(self, owner, field: str, ident: A.Ident) -> Optional[str]:
        if isinstance(owner, A.GameDecl):
            return {"start": "phase", "cards_start": "global"}.get(field)
        if isinstance(owner, A.NextClause) or isinstance(owner, A.InvariantDecl):
            return "phase"
        if isinstance(owner, A.PhaseDecl):
            return "action"
        if isinstance(owner, A.ActionDecl):
            if field == "offered_in":
                return "phase"
            return "effect" if ident.name in self.effect_names else "tag"
        if isinstance(owner, (A.StackStmt,)):
            return "effect"
        if isinstance(owner, (A.Emit, A.TriggerDecl)):
            return "event"
        if isinstance(owner, A.ModifyDecl):
            return "global"
        if isinstance(owner, A.AbilityGroup):
            return "global"
        if isinstance(owner, A.ActionParam):
            if field == "same" and owner.kind == "enum":
                return "global"
            return "property"
        return None   # enum members, zone attributes, effect tags, a rule's combine: not uses

    def _walk_decl(self, d, top: A.Span) -> None:
        an = self.an
        stack = [(d, None)]
        while stack:
            n, owner = stack.pop()
            t = type(n)
            if t is A.Name:
                ref = self.refs.get(n)
                if ref is not None and ref[0] == "local":
                    ty = self.types.get(n)
                    self.occurrences.append(Occurrence(n.name, "local", n.span.line, n.span.col, n.span.end_col))
                    if ty is not None:
                        self._local_types[(n.span.line, n.span.col)] = str(ty)
                elif ref is not None and ref[0] == "builtin":
                    self.use(n.name, "builtin", n.span)
                else:
                    self.use(n.name, "global", n.span)
                continue
            if t is A.Call:
                ref = self.refs.get(n)
                ns = "builtin" if ref is not None and ref[0] == "builtin_func" else "global"
                self.use_at(n.func, ns, n.span.line, n.span.col)
                stack.extend((a, (n, "args")) for a in n.args)
                continue
            if t is A.Attr:
                ref = self.refs.get(n)
                prop = n.name in self.property_names and (ref is None or ref[0] in ("prop", "use_field"))
                if ref is not None and ref[0] == "entry_data":
                    ns = "field"
                else:
                    ns = "property" if prop else "attr"
                self.use_at(n.name, ns, n.span.end_line, n.span.end_col - len(n.name))
                stack.append((n.obj, (n, "obj")))
                continue
            if t is A.Ident:
                ns = self._ident_ns(owner[0], owner[1], n) if owner else None
                if ns is not None:
                    self.use(n.name, ns, n.span)
                continue
            if t is A.StrLit:
                parts = self.templates.get(n)
                if parts is None and self.an.checker is None and owner is not None and \
                        (type(owner[0]), owner[1]) in _TEMPLATE_PLACES:
                    parts = _template_parts(n, self.an.path, self.an.text)[0]   # not checked: parse it here
                if parts:
                    stack.extend((p, (n, "template")) for p in parts if isinstance(p, A.Expr))
                continue
            if t is A.LValue:
                if n.name in self.var_names:
                    self.use_at(n.name, "global", n.span.line, n.span.col)
                elif n.name == "active":
                    self.use_at(n.name, "builtin", n.span.line, n.span.col)
                else:
                    self.use_at(n.name, "local", n.span.line, n.span.col)
                if n.index is not None:
                    stack.append((n.index, (n, "index")))
                continue
            if t is A.TypeRef:
                if n.name in self.enum_names:
                    self.use(n.name, "global", n.span)
                if n.elem is not None:
                    stack.append((n.elem, (n, "elem")))
                continue
            if t is A.DisplayClause:  # 'seat health, side': variables, zones, or a property (suit rank colour)
                ns = "property" if n.word.name in ("suit", "rank", "colour") else "global"
                for e in n.entries:
                    self.use_at(e.name, ns, e.span.line, e.span.col)
                continue
            if t is A.CardField:
                self.use_at(n.name, "property", n.span.line, n.span.col)
                stack.append((n.value, (n, "value")))
                continue
            fields = _node_fields(t)
            if fields is None:
                continue
            if t is A.StackStmt:
                for fname, _ in n.fields:   # stack bolt(damage = 2): a field of the effect
                    sp = self._name_after(None, fname, n.span)
                    if sp is not None and sp.line == sp.end_line:
                        self.occurrences.append(Occurrence(fname, "field", sp.line, sp.col, sp.end_col,
                                                           n.effect.name))
            self._bindings_of(n, top, owner[0] if owner else None)
            for f in fields:
                v = getattr(n, f)
                tv = type(v)
                if tv is tuple:
                    for x in v:
                        if type(x) is tuple:   # if branches, named stack fields, conversion properties
                            stack.extend(((y, (n, f)) for y in x if _node_fields(type(y)) is not None))
                        elif _node_fields(type(x)) is not None:
                            stack.append((x, (n, f)))
                elif v is not None and _node_fields(tv) is not None:
                    stack.append((v, (n, f)))

    def _bindings_of(self, n, top: A.Span, parent=None) -> None:
        t = type(n)
        an = self.an
        if t is A.Param:
            what = {A.DefDecl: "a parameter of def {}", A.RuleDecl: "a parameter of rule value {}",
                    A.EventDecl: "a field of event {}: a name in its triggers"}.get(type(parent), "a parameter")
            self.bind(n.name, self._name_span(n.span, False), top, what.format(getattr(parent, "name", "")),
                      str(n.type))
        elif t is A.ActionParam:
            if n.name.startswith("ask#"):
                return
            sp = self._name_span(n.span, False)
            if self.an.text_of(sp) != n.name:
                sp = self._name_span(n.span, True)   # a conversion's 'from x: ...'
            if self.an.text_of(sp) == n.name:
                src = an.text[an.offset(n.span.line, n.span.col):an.offset(n.span.end_line, n.span.end_col)]
                what = (f"a choice of action {parent.name}" if isinstance(parent, A.ActionDecl) else
                        f"the cards of conversion {parent.name}" if isinstance(parent, A.ConversionDecl) else
                        "a parameter")
                self.bind(n.name, sp, top, what, src.split(":", 1)[1].strip() if ":" in src else "")
            if n.wild:
                self.bind(n.wild[0], self._name_after("wild", n.wild[0], n.span), top, "a wild card")
        elif t is A.Choose:
            if not n.name.startswith("ask#"):
                self.bind(n.name, self._name_after("let", n.name, n.span), top,
                          "a choice" if n.param.kind != "bool" else "an answer (yes or no)")
        elif t is A.Let:
            self.bind(n.name, self._name_after("let", n.name, n.span), top, "a local (let)",
                      str(self.types.get(n.value, "")))
        elif t is A.Emit and n.target:
            self.bind(n.target, self._name_after("let", n.target, n.span), top, f"the record of event {n.event.name}")
        elif t is A.For:
            self.bind(n.var, self._name_after("for", n.var, n.span), top, "a loop variable")
        elif t is A.Quant:
            self.bind(n.var, self._name_after(None, n.var, n.span), top, f"the variable of '{n.kind}'")
        elif t is A.LetExpr:
            self.bind(n.var, self._name_after("let", n.var, n.span), top, "a local (let)")
        elif t is A.TriggerDecl and n.for_var:
            self.bind(n.for_var, self._name_after("for", n.for_var, n.span), top, "the trigger's player")
        elif t is A.ScoreClause:
            self.bind(n.var, self._name_after(None, n.var, n.span), top, "a player")

    def _card_strings(self) -> None:
        """Strings that are a card's name: uses of that card (the card's own declaration aside)."""
        if not self.card_names:
            return
        decl_spans = {tuple(s.name_span) for s in self.outline if s.kind == "card"}
        an = self.an
        for m in _STRINGS.finditer(an.text):
            if m.lastgroup != "string":
                continue
            value = unquote(m.group())
            if value in self.card_names:
                sp = an.span_of(m.start(), m.end())
                if tuple(sp) not in decl_spans:
                    self.use(value, "card", sp)

    # -------------------------------------------------------------- queries
    def sorted_occurrences(self) -> list:
        if self._sorted is None:
            self._sorted = sorted(self.occurrences, key=lambda o: (o.line, o.col))
        return self._sorted

    def at(self, line: int, col: int):
        """What is under (line, col): ("use", Occurrence), ("decl", Symbol) or None. A position just
        after a name (the cursor at its end) counts too."""
        best = None
        for sym_list in self.symbols.values():
            for s in sym_list:
                sp = s.name_span
                if sp.line == line and sp.col <= col <= sp.end_col and s.kind != "tag":
                    best = ("decl", s)
                    if col < sp.end_col:
                        return best
        for s, _ in self.bindings:
            sp = s.name_span
            if sp.line == line and sp.col <= col <= sp.end_col:
                return ("decl", s)
        occ = self.sorted_occurrences()
        lo = bisect.bisect_left(occ, (line, col), key=lambda o: (o.line, o.end_col))
        for o in occ[max(0, lo - 1): lo + 2]:
            if o.line == line and o.col <= col <= o.end_col:
                if col < o.end_col:
                    return ("use", o)
                best = best or ("use", o)
        return best

    def resolve(self, occ: Occurrence) -> list:
        """The declarations a use refers to."""
        if occ.ns == "local":
            return self._local_binding(occ)
        if occ.ns == "attr":
            return self.lookup("field", occ.name)
        if occ.ns == "field" and occ.owner:
            own = [s for s in self.lookup("field", occ.name) if s.parent is not None and s.parent.name == occ.owner]
            return own or self.lookup("field", occ.name)
        if occ.ns == "tag":
            return self.lookup("tag", occ.name) or self.lookup("effect", occ.name)
        if occ.ns == "effect":
            return self.lookup("effect", occ.name) or self.lookup("tag", occ.name)
        got = self.lookup(occ.ns, occ.name)
        if not got and occ.ns == "global":   # not checked (the text does not parse) or unknown: a local?
            return self._local_binding(occ)
        return got

    def _top_of(self, line: int, col: int):
        """The top-level declaration around (line, col), or None."""
        if self._tops is None:
            self._tops = [((d.span.line, d.span.col), d) for d in self.an.decls]
        i = bisect.bisect_right(self._tops, (line, col), key=lambda x: x[0]) - 1
        if i >= 0:
            d = self._tops[i][1]
            if (line, col) <= (d.span.end_line, d.span.end_col):
                return d
        return None

    def _bindings_in(self, top: A.Span, name: str) -> list:
        if self._by_top is None:
            self._by_top = {}
            for s, t in self.bindings:
                self._by_top.setdefault((tuple(t), s.name), []).append(s)
        return self._by_top.get((tuple(top), name), [])

    def _local_binding(self, occ: Occurrence) -> list:
        """The nearest binding of that name before the use, in the same top-level declaration
        (or, in a trigger, the parameter of its event)."""
        top = self._top_of(occ.line, occ.col)
        if top is None:
            return []
        best = None
        for s in self._bindings_in(top.span, occ.name):
            if (s.name_span.line, s.name_span.col) <= (occ.line, occ.col):
                if best is None or (s.name_span.line, s.name_span.col) > (best.name_span.line, best.name_span.col):
                    best = s
        if best is not None:
            return [best]
        items = [top] + [i for g in getattr(top, "abilities", ()) for i in g.items]
        for t in items:
            if isinstance(t, A.TriggerDecl) and \
                    (t.span.line, t.span.col) <= (occ.line, occ.col) <= (t.span.end_line, t.span.end_col):
                for ev in self.lookup("event", t.event.name):
                    got = self._bindings_in(ev.span, occ.name)
                    if got:
                        return got[:1]
        return []

    def references(self, ns: str, name: str, owner: str = "") -> list:
        """Every use of a declaration (by namespace and name; owner: the effect of a field)."""
        out = []
        for o in self.occurrences:
            if o.name != name or (owner and o.owner and o.owner != owner):
                continue
            if o.ns == ns or (ns == "effect" and o.ns == "tag" and not self.lookup("tag", name)) or \
                    (ns == "tag" and o.ns == "effect") or (ns == "field" and o.ns == "attr"):
                out.append(o)
        return sorted(out, key=lambda o: (o.line, o.col))

    def local_references(self, sym: Symbol) -> list:
        return [o for o in self.sorted_occurrences()
                if o.name == sym.name and (o.ns == "local" or (o.ns == "global" and not self.lookup("global", o.name)))
                and self._local_binding(o) == [sym]]


_FIELDS: dict = {}
# where the checker reads a string as a template (rulespec/lang/checker/statements.py, Checker.template)
_TEMPLATE_PLACES = {(A.ActionDecl, "text"), (A.ConversionDecl, "text"), (A.TriggerDecl, "optional"),
                    (A.Choose, "prompt"), (A.Log, "template"), (A.Announce, "template"), (A.ScoreClause, "expr")}


def _node_fields(t) -> Optional[tuple]:
    """The field names of a syntax-tree node class (span aside), or None for anything else."""
    try:
        return _FIELDS[t]
    except KeyError:
        names = None
        if t is not A.Span and attrs.has(t):
            names = tuple(f.name for f in attrs.fields(t) if f.name != "span")
        _FIELDS[t] = names
        return names


_STRINGS = re.compile(r'(?P<comment>#[^\n]*)|(?P<string>"(?:[^"\\\n]|\\.)*")')


def _dedent(lines: list) -> str:
    if len(lines) <= 1:
        return "\n".join(lines)
    rest = [ln for ln in lines[1:] if ln.strip()]
    pad = min((len(ln) - len(ln.lstrip()) for ln in rest), default=0)
    return "\n".join([lines[0]] + [("  " + ln[pad:]) if ln.strip() else "" for ln in lines[1:]])
