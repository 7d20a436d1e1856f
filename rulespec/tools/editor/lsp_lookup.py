"""Hover, go to definition and find references: what is under a position, answered from the symbol index."""
from __future__ import annotations

from typing import Optional

from rulespec.lang import ast as A

from .lsp_index import Index, Occurrence, Symbol

# "Analysis" (lsp_analysis.py) is named in annotations only: lsp_analysis imports this module.


def _builtin_text(occ: Occurrence) -> Optional[str]:
    from rulespec.lang.checker import BUILTIN_EVENTS, BUILTIN_FUNCS, BUILTIN_NAMES, ENTRY_FIELDS, USE_FIELDS
    n = occ.name
    if occ.ns == "builtin":
        if n in BUILTIN_NAMES:
            t, _, desc = BUILTIN_NAMES[n]
            return f"```rulespec\n{n}: {t}\n```\n\nbuilt in: {desc}"
        if n in BUILTIN_FUNCS:
            return f"```rulespec\n{n}(...)\n```\n\nbuilt-in function: {BUILTIN_FUNCS[n]}"
    if occ.ns == "event" and n in BUILTIN_EVENTS:
        params = ", ".join(f"{p}: {t}" for p, t in BUILTIN_EVENTS[n])
        return f"```rulespec\nevent {n}({params})\n```\n\nraised by the engine itself"
    if occ.ns == "local" and n in _IMPLICIT:
        t, desc = _IMPLICIT[n]
        return f"```rulespec\n{n}: {t}\n```\n\n{desc}"
    if occ.ns in ("attr", "field"):
        for table, what in ((ENTRY_FIELDS, "a field of every stack entry"), (USE_FIELDS, "a field of a used card")):
            if n in table:
                return f"```rulespec\n{n}: {table[n][0]}\n```\n\n{what}: {table[n][1]}"
        if n == "name":
            return "```rulespec\nname: text\n```\n\nthe card's name"
    return None


# names the checker puts in scope by itself (rulespec/lang/checker/: ability_env in declarations.py, check_effect in effects.py)
_IMPLICIT = {
    "owner": ("player", "in what a card carries: the player who owns the zone the card is in"),
    "self": ("card", "in what a card carries: the card itself"),
    "this": ("entry", "in an effect's resolve, cancelled and ask: the stack entry being resolved"),
}


def describe(idx: Index, sym: Symbol) -> str:
    """The markdown a hover shows for a declaration."""
    out = [f"```rulespec\n{sym.header}\n```"]
    if sym.kind == "local":
        out.append(f"*{sym.detail}*")
        return "\n\n".join(out)
    if sym.kind in ("member",):
        out.append(f"*{sym.detail}*")
        if sym.parent is not None:
            out.append(f"```rulespec\n{sym.parent.header}\n```")
            if sym.parent.doc:
                out.append(sym.parent.doc)
        return "\n\n".join(out)
    if sym.parent is not None and sym.kind not in ("field", "tag"):
        out.append(f"*carried by card \"{sym.parent.name}\"*" if sym.parent.kind == "card" else f"*in {sym.parent.name}*")
    if sym.doc:
        out.append(sym.doc)
    extra = [sym.detail] if sym.detail else []
    if sym.kind == "phase":
        d = _decl_at(idx, sym)
        if d is not None:
            if d.actions:
                extra.append("actions: " + ", ".join(a.name for a in d.actions))
            if d.nexts:
                extra.append("next: " + ", ".join(n.target.name + (" (when ...)" if n.cond is not None else "")
                                                  for n in d.nexts))
    elif sym.kind == "action":
        phases = [s.parent.name for s in _action_refs(idx, sym.name)]
        if phases:
            extra.append("offered in: " + ", ".join(phases))
    elif sym.kind == "event":
        triggers = sorted({s.name for lst in idx.symbols.values() for s in lst if s.kind == "trigger"
                           and _trigger_event(idx, s) == sym.name})
        if triggers:
            extra.append("triggers: " + ", ".join(triggers))
    elif sym.kind == "card":
        d = _decl_at(idx, sym)
        if d is not None:
            if d.copies:
                extra.append(f"{len(d.copies)} copies, each with its own values")
            else:
                copies = [f for f in d.fields if f.name == "copies"]
                if copies:
                    extra.append(f"copies: {idx.an.text_of(copies[0].value.span)}")
            if sym.children:
                extra.append("abilities: " + ", ".join(f"{c.kind} {c.name}" for c in sym.children))
    if extra:
        out.append("\n\n".join(f"*{e}*" if i == 0 and e == sym.detail else e for i, e in enumerate(extra)))
    out.append(f"declared on line {sym.name_span.line}")
    return "\n\n".join(out)


def _decl_at(idx: Index, sym: Symbol):
    for d in idx.an.decls:
        if d.span == sym.span:
            return d
        for g in getattr(d, "abilities", ()):
            for item in g.items:
                if item.span == sym.span:
                    return item
    return None


def _trigger_event(idx: Index, sym: Symbol) -> Optional[str]:
    d = _decl_at(idx, sym)
    return d.event.name if isinstance(d, A.TriggerDecl) else None


def _action_refs(idx: Index, name: str) -> list:
    return [c for s in idx.outline if s.kind == "phase" for c in s.children if c.name == name]


def hover(an: "Analysis", line: int, col: int) -> Optional[tuple]:
    """(markdown, span of the name) for what is under (line, col), or None."""
    idx = an.index
    hit = idx.at(line, col)
    if hit is None:
        return None
    kind, x = hit
    if kind == "decl":
        if x.kind == "tag":
            return _describe_tag(x.name, idx.lookup("tag", x.name)), x.name_span
        return describe(idx, x), x.name_span
    span = A.Span(x.line, x.col, x.line, x.end_col)
    syms = idx.resolve(x)
    if syms and syms[0].kind == "tag":
        return _describe_tag(x.name, syms), span
    if syms:
        return "\n\n---\n\n".join(describe(idx, s) for s in syms[:3]), span
    text = _builtin_text(x)
    if text is None and x.ns == "local":
        t = idx._local_types.get((x.line, x.col))
        text = f"```rulespec\n{x.name}" + (f": {t}" if t else "") + "\n```\n\n*a local name*"
    if text is None:
        what = {"global": "nothing declared", "phase": "no phase", "action": "no action", "effect": "no effect",
                "event": "no event", "property": "no property", "card": "no card"}.get(x.ns)
        if what is None:
            return None
        text = f"`{x.name}`: {what} has this name"
    return text, span


def _describe_tag(name: str, syms: list) -> str:
    effects = [s.parent.name for s in syms if s.parent is not None]
    return (f"```rulespec\nis {name}\n```\n\n*a tag*: responses that say `respond to {name}` answer "
            f"the effects that carry it: " + ", ".join(effects))


def _under(idx: Index, line: int, col: int) -> Optional[tuple]:
    """(what is under (line, col): a declaration or a use, the symbols it declares or names), or None."""
    hit = idx.at(line, col)
    if hit is None:
        return None
    kind, x = hit
    return x, ([x] if kind == "decl" else idx.resolve(x))


def definition(an: "Analysis", line: int, col: int) -> list:
    """The spans of the declarations of what is under (line, col)."""
    got = _under(an.index, line, col)
    return [s.name_span for s in got[1]] if got is not None else []


def references(an: "Analysis", line: int, col: int, include_declaration: bool = True) -> list:
    """The spans of every use (and the declarations) of what is under (line, col)."""
    idx = an.index
    got = _under(idx, line, col)
    if got is None:
        return []
    x, syms = got
    if not syms:  # an undeclared name: its other uses still help
        if x.ns in ("local", "builtin", "attr"):
            return []
        return [A.Span(o.line, o.col, o.line, o.end_col) for o in idx.references(x.ns, x.name)]
    sym = syms[0]
    if sym.kind == "local":
        occ = idx.local_references(sym)
    else:
        occ = idx.references(sym.ns, sym.name, sym.parent.name if sym.kind == "field" and sym.parent else "")
    out = []
    if include_declaration:
        decls = idx.lookup(sym.ns, sym.name) if sym.kind != "local" else [sym]
        out.extend(s.name_span for s in decls)
    out.extend(A.Span(o.line, o.col, o.line, o.end_col) for o in occ)
    return out
