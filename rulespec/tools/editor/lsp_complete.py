"""Completion: what may be written at a position, from the tokens before it and the symbol index."""
from __future__ import annotations

import re
from typing import Optional

import attrs

from rulespec.lang import ast as A

from .lsp_index import Index
from .lsp_text import KEYWORDS, _line_tokens_of

# "Analysis" (lsp_analysis.py) is named in annotations only: lsp_analysis imports this module.


@attrs.frozen
class Item:
    label: str
    kind: str                 # a Symbol kind, "keyword" or "builtin"
    detail: str = ""
    doc: Optional[str] = None
    sort: str = "5"
    replace: Optional[A.Span] = None   # the text the item replaces (default: the word before the cursor)
    insert: Optional[str] = None
    filter: Optional[str] = None       # what the typed text is matched against (default: the label)


_TYPE_WORDS = ("int", "bool", "text", "player", "card", "list")


def complete(an: "Analysis", line: int, col: int, known: Optional[Index] = None) -> list:
    """What may be written at (line, col). known: the index of the last version that parsed (names
    from declarations the current text breaks)."""
    from rulespec.lang.checker import BUILTIN_EVENTS, BUILTIN_FUNCS, BUILTIN_NAMES, ENTRY_FIELDS
    idx = an.index
    indexes = [idx] + ([known] if known is not None and known is not idx else [])
    text = an.lines.line_text(line)
    before = text[:col - 1]
    toks = [t for t in an.line_tokens(line) if t.col < col]
    # inside a string: card names (or, inside a template's {...}, names)
    last = toks[-1] if toks else None
    in_string = last is not None and (last.kind == "open" or (last.kind == "string" and last.end_col > col))
    if in_string:
        inner = before[last.col:]
        if inner.count("{") <= inner.count("}"):
            start = A.Span(line, last.col + 1, line, col)
            names = sorted({s.name for i in indexes for s in i.outline if s.kind == "card"})
            return [Item(n, "card", "card", None, "1", start, _escape(n)) for n in names]
        before = inner[inner.rfind("{") + 1:]
        toks = list(_line_tokens_of(before, line, col - len(before)))
    m = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", before)
    prefix_start = col - (len(m.group()) if m else 0)
    prev = [t for t in toks if t.col < prefix_start and t.kind != "comment"]
    p1 = prev[-1].text if prev else ""
    p2 = prev[-2].text if len(prev) > 1 else ""
    first = prev[0].text if prev else ""

    def syms(*kinds):
        seen = {}
        for i in indexes:
            for lst in i.symbols.values():
                for s in lst:
                    if s.kind in kinds and (s.kind, s.name) not in seen:
                        seen[(s.kind, s.name)] = s
        return list(seen.values())

    def items(symbols, sort="1"):
        return [Item(s.name, s.kind, s.header.split("\n")[0], s.doc, sort) for s in symbols]

    if p1 == "." and len(prev) >= 2 and prev[-2].kind == "name":
        obj = prev[-2]
        enum = [s for s in syms("enum") if s.name == obj.text]
        if enum:   # 'Suit.' offers the members; choosing one writes the member's bare name
            rng = A.Span(line, obj.col, line, col)
            return [Item(c.name, "member", f"enum {obj.text}", None, "1", rng, c.name, f"{obj.text}.{c.name}")
                    for c in enum[0].children]
        out = items(syms("property")) + [Item("name", "field", "the card's name", None, "2")]
        if obj.text in ("this", "stack_top") or obj.text.endswith("entry"):
            out = [Item(f, "field", f"{t}", d, "1") for f, (t, d) in ENTRY_FIELDS.items()] + \
                items(syms("field"), "1") + out
        return out
    if p1 in ("next", "start") or (p1 == "at" and first == "invariant") or \
            (first == "in" and len(prev) >= 1 and p1 in ("in", ",")):
        return items(syms("phase"))
    if p1 == "actions" or (p1 == "," and first == "actions"):
        return items(syms("action"))
    if p1 in ("stack", "resolve") or (p1 == "to" and p2 == "respond") or (p1 == "," and first == "respond"):
        return items(syms("effect")) + ([Item(t, "tag", "a tag", None, "2") for t in
                                         sorted({s.name for s in syms("tag")})] if p1 != "stack" else [])
    if p1 == "emit" or (p1 in ("before", "on", "after") and p2 and first == "trigger") or \
            (len(prev) >= 2 and prev[-1].text == "emit"):
        return items(syms("event")) + [Item(e, "event", "built-in event", None, "2") for e in BUILTIN_EVENTS]
    if p1 in ("same", "distinct"):
        return items(syms("property"))
    if (p1 == ":" and first in ("var", "option", "property", "def", "event", "rule") and p2 != "player") or \
            (p1 == "[" and p2 == "list") or (p1 == ":" and p2 == ")" and first in ("def", "rule")):
        return [Item(t, "keyword", "type", None, "1") for t in _TYPE_WORDS] + items(syms("enum"))
    # anywhere else: the names in scope, the declared names, the built-ins and the keywords
    out = []
    here = an.offset(line, col)
    top = next((d for d in an.decls if an.offset(d.span.line, d.span.col) <= here <=
                an.offset(d.span.end_line, d.span.end_col)), None)
    if top is not None:
        seen = set()
        for s, t in idx.bindings:
            if tuple(t) == tuple(top.span) and s.name not in seen:
                seen.add(s.name)
                out.append(Item(s.name, "local", s.header, s.detail, "0"))
    out += items(syms("var", "zone", "option", "member", "def", "rule"), "1")
    out += items(syms("enum", "phase", "action", "effect", "event", "property"), "3")
    out += [Item(n, "builtin", str(t), d, "2") for n, (t, _, d) in BUILTIN_NAMES.items()]
    out += [Item(n, "builtin", "built-in function", d, "2") for n, d in BUILTIN_FUNCS.items()]
    out += [Item(k, "keyword", "keyword", None, "4") for k in KEYWORDS]
    return out


def _escape(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')
