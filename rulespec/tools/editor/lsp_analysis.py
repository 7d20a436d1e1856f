"""What the language server knows about one document: its diagnostics and a symbol index.

No LSP library here (rulespec/tools/editor/lsp.py speaks the protocol): this module takes a document's text
and answers in rulespec's own coordinates (lines and columns from 1, columns in characters).

**Fast re-checks.** Parsing is most of the cost of checking a large file (the biggest shipped
game: about 2.5 s of Lark for 7,000 lines; the checker proper about 0.3 s), and an editor re-checks on
every pause in typing. So the text is cut into *chunks* at every line that begins, in column 1,
with a declaration's keyword (``action``, ``card``, ``phase``, ...), each chunk is parsed on its
own (padded with blank lines, so that Lark reports positions in the file's coordinates) and
chunks are kept in a cache keyed by their text: an edit re-parses only the declaration it
touches. A chunk that moved (lines inserted above it) is not parsed again: its syntax tree is
copied with its lines shifted. A cut that was wrong (a keyword at the start of a line that
continues the declaration above, like ``phase`` as a name) leaves a first part that ends too
early: a chunk that fails with "unexpected end of file" is joined to the next one and parsed
again, so the syntax tree, and the first syntax error of each broken declaration, are those of
parsing the whole file. The string templates the checker parses are cached the same way.

**The index.** Declarations come from the syntax tree; uses come from a walk of the syntax tree
(names, calls, fields, the names in clauses such as ``next PHASE`` or ``stack EFFECT``, and the
expressions inside string templates), with the checker's own resolution (``Checker.refs``)
telling a local name (a parameter, ``let``, ``for``, a quantifier's variable) from a global one
of the same spelling. Cards are found as strings equal to a card's name.
"""
from __future__ import annotations

import bisect
import functools
import re
import threading
from typing import NamedTuple, Optional

import attrs

from rulespec.lang import ast as A
from rulespec.lang.diagnostics import Diagnostic
from rulespec.lang.errors import RulesError
from rulespec.lang.source import normalize

DECL_KEYWORDS = ("game", "enum", "option", "property", "card", "zone", "var", "def", "action", "phase",
                 "invariant", "effect", "event", "trigger", "conversion", "rule", "modify")
_CHUNK_START = re.compile(r"^(?:%s)\b" % "|".join(DECL_KEYWORDS), re.M)

# the language's keywords (for completion and to tell a keyword from a name)
KEYWORDS = sorted(set(DECL_KEYWORDS) | {
    "players", "doc", "start", "cards", "in", "score", "label", "limit", "copy", "while", "when", "list",
    "int", "player", "or", "none", "from", "where", "use", "size", "same", "distinct", "wild", "ordered",
    "text", "require", "else", "respond", "to", "is", "ask", "mandatory", "resolve", "cancelled", "for",
    "before", "on", "after", "optional", "as", "combine", "enter", "actor", "actions", "end", "exit", "next",
    "let", "choose", "prevent", "move", "deal", "shuffle", "play", "if", "elif", "game", "winners", "log", "announce",
    "reveal", "conceal", "stack", "cancel", "look", "emit", "by", "target", "with", "against", "top",
    "bottom", "cause", "then", "and", "not", "true", "false", "ties", "last", "at", "bool", "card",
    "any", "all", "count", "sum", "max", "min", "first", "collect", "argmax", "argmin",
})

# one token of the language: a comment, a string (or a string left open at the end of its line),
# a name, a number, or one character of punctuation (two for '..', '==', '+=' and the like)
_TOKEN = re.compile(r'(?P<comment>#[^\n]*)|(?P<string>"(?:[^"\\\n]|\\.)*")|(?P<open>"(?:[^"\\\n]|\\.)*)'
                    r'|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<int>[0-9]+)'
                    r'|(?P<punct>\.\.|==|!=|<=|>=|\+=|-=|[^\sA-Za-z0-9_#"])')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SKIP = re.compile(r"(?:\s+|#[^\n]*)*")


class Token(NamedTuple):
    kind: str    # comment, string, open (a string without its closing quote), name, int, punct
    text: str
    offset: int  # in the text
    line: int    # from 1
    col: int     # from 1, in characters
    end_col: int


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


# ---------------------------------------------------------------------- text and positions
class Lines:
    """Offsets of a text's lines, for (line, col) <-> offset."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(self, line: int, col: int) -> int:
        line = max(1, min(line, len(self.starts)))
        return min(self.starts[line - 1] + col - 1, len(self.text))

    def position(self, offset: int) -> tuple:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self.starts):
            return ""
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return self.text[self.starts[line - 1]:end]


def unquote(s: str) -> str:
    body = s[1:-1] if len(s) >= 2 and s.endswith('"') else s[1:]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


# ---------------------------------------------------------------------- chunked parsing
def chunk_bounds(text: str) -> list:
    """[(start offset, end offset, first line)] of the chunks: cut before every line that starts
    (in column 1) with a declaration's keyword; the text before the first such line joins the first chunk."""
    starts = [m.start() for m in _CHUNK_START.finditer(text)]
    if not starts or starts[0] != 0:
        starts = [0] + starts[1:] if starts else [0]
    bounds = []
    line = 1
    prev = 0
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(text)
        line += text.count("\n", prev, s)
        prev = s
        bounds.append((s, e, line))
    return bounds


def shift(x, d: int):
    """A copy of a syntax tree (node, tuple, Diagnostic) with every span moved d lines down."""
    if d == 0:
        return x
    return _Shifter(d).copy(x)


class _Shifter:
    def __init__(self, d: int):
        self.d = d
        self.memo: dict = {}

    def copy(self, x):
        t = type(x)
        if t is A.Span:
            d = self.d
            return tuple.__new__(A.Span, (x[0] + d, x[1], x[2] + d, x[3]))
        if t in _ATOMS:
            return x
        if t is tuple:
            return tuple([self.copy(y) for y in x])
        if t is list:
            return [self.copy(y) for y in x]
        if t is Diagnostic:
            return attrs.evolve(x, span=self.copy(x.span))
        got = self.memo.get(id(x))
        if got is not None:
            return got
        new = object.__new__(t)
        self.memo[id(x)] = new
        copy = self.copy
        new.__dict__.update({k: (v if type(v) in _ATOMS else copy(v)) for k, v in x.__dict__.items()})
        return new


_ATOMS = {str, int, float, bool, type(None)}


def _moved(entry: tuple, line: int) -> tuple:
    """A cached (first line, parsed, diagnostics) entry for the same text, now starting at `line`."""
    first, parsed, diags = entry
    return (line, shift(parsed, line - first), shift(diags, line - first))


class ChunkCache:
    """Parsed chunks by their text: (first line, decls or None, diagnostics). Thread-safe enough:
    entries are replaced whole; the cache is trimmed to the chunks of the documents seen last."""

    def __init__(self, limit: int = 20_000):
        self.entries: dict = {}
        self.limit = limit
        self.lock = threading.Lock()

    def parse(self, chunk: str, line: int, path: str) -> tuple:
        key = (path, chunk)
        with self.lock:
            got = self.entries.get(key)
        if got is not None:
            if got[0] == line:
                return got[1], got[2]
            entry = _moved(got, line)
        else:
            entry = (line, *_parse_chunk(chunk, line, path))
        with self.lock:
            self.entries.pop(key, None)
            self.entries[key] = entry
            if len(self.entries) > self.limit:
                for k in list(self.entries)[: len(self.entries) - self.limit]:
                    del self.entries[k]
        return entry[1], entry[2]


def _parse_chunk(chunk: str, line: int, path: str) -> tuple:
    """(decls, []) or (None, diagnostics) for one chunk, in the file's coordinates."""
    from rulespec.lang.parser import _build
    try:
        return tuple(_build("\n" * (line - 1) + chunk, path, "start", "file")), []
    except RulesError as e:
        return None, list(e.diagnostics)


def _is_eof(diags: list) -> bool:
    return bool(diags) and diags[0].message.startswith("unexpected end of ")


def parse_chunked(text: str, path: str, cache: ChunkCache, used: Optional[list] = None) -> tuple:
    """(decls, syntax diagnostics): the whole file's declarations when every chunk parses,
    else those of the chunks that parse and one syntax error per broken declaration.
    used: gets the texts of the chunks parsed."""
    bounds = chunk_bounds(text)
    decls: list = []
    diags: list = []
    i = 0
    while i < len(bounds):
        s, e, line = bounds[i]
        j = i
        got, errs = cache.parse(text[s:e], line, path)
        while got is None and _is_eof(errs) and j + 1 < len(bounds):
            j += 1  # a declaration that goes on past the cut (or never ends): parse it with the next chunk
            e = bounds[j][1]
            got, errs = cache.parse(text[s:e], line, path)
        if used is not None:
            used.append(text[s:e])
        if got is None:
            diags.extend(errs)
        else:
            decls.extend(got)
            diags.extend(errs)
        i = j + 1
    return decls, diags


# ---------------------------------------------------------------------- kept on disk
# The parsed declarations and templates of a text, in the model cache's folder (rulespec/lang/model_cache.py:
# the same key scheme, switch and pruning): a document opened again starts warm instead of
# parsing everything (a 7,000-line file: about 0.3 s instead of about 2.5 s).
_DISK_FORMAT = "lsp chunks 1"


def _disk_entry(text: str, path: str):
    from rulespec.lang import model_cache
    return model_cache.key_path(".lsp", text, path, model_cache._language_hash(), _DISK_FORMAT)


def load_warm(text: str, path: str, cache: ChunkCache) -> bool:
    """Fill the caches from the disk entry of this text, if there is one."""
    from rulespec.lang import model_cache
    if not model_cache.enabled():
        return False
    got = model_cache.read(_disk_entry(normalize(text), path))
    if got is None or not isinstance(got[0], dict) or got[0].get("path") != path:
        return False
    chunks, templates = got[1]
    if not chunks:
        return False
    with cache.lock:
        for chunk, entry in chunks.items():
            cache.entries[(path, chunk)] = entry
    with _TEMPLATE_LOCK:
        _TEMPLATE_CACHE.update(templates)
    return True


def save_warm(an: "Analysis", cache: ChunkCache) -> None:
    """Keep an analysed text's parsed declarations (and templates) on disk; failures are ignored."""
    from rulespec.lang import model_cache
    if not model_cache.enabled() or not an.parsed:
        return
    with cache.lock:
        chunks = {c: cache.entries[(an.path, c)] for c in an.chunks if (an.path, c) in cache.entries}
    if len(chunks) < len(set(an.chunks)):   # not this cache's text (or trimmed since): nothing worth keeping
        return
    with _TEMPLATE_LOCK:
        templates = {k: v for k, v in _TEMPLATE_CACHE.items() if k[0] == an.path}
    model_cache.write(_disk_entry(an.text, an.path), {"path": an.path}, (chunks, templates))


# ---------------------------------------------------------------------- checking
_TEMPLATE_CACHE: dict = {}
_TEMPLATE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _checker_class():
    from rulespec.lang.checker import Checker

    class LspChecker(Checker):
        """The checker, with the string templates it parses kept from one check to the next."""

        def template(self, lit: A.StrLit, env: dict) -> None:
            parts, diags = _template_parts(lit, self.path, self.rules.source)
            if diags:
                self.diags.extend(diags)
                return
            for p in parts:
                if isinstance(p, A.Expr):
                    self.expr(p, env)
            self.templates[lit] = parts

    return LspChecker


def _template_parts(lit: A.StrLit, path: str, source: str) -> tuple:
    """parse_template(lit), kept by the string as written and its column: (parts, []) or (None, diagnostics)."""
    from rulespec.lang.parser import parse_template
    line = lit.span.line
    raw = _source_line(source, line)[lit.span.col - 1:lit.span.end_col - 1] if lit.span.end_line == line else None
    key = (path, lit.span.col, raw, lit.value)
    with _TEMPLATE_LOCK:
        got = _TEMPLATE_CACHE.get(key)
    if got is not None:
        if got[0] == line:
            return got[1], got[2]
        entry = _moved(got, line)
    else:
        try:
            entry = (line, parse_template(lit, path, source), [])
        except RulesError as e:
            entry = (line, None, list(e.diagnostics))
    with _TEMPLATE_LOCK:
        if len(_TEMPLATE_CACHE) > 50_000:
            _TEMPLATE_CACHE.clear()
        _TEMPLATE_CACHE[key] = entry
    return entry[1], entry[2]


_LINES_CACHE: dict = {}
_LINES_LOCK = threading.Lock()


def _source_line(source: str, line: int) -> str:
    with _LINES_LOCK:
        ls = _LINES_CACHE.get(id(source))
        if ls is None or ls[0] is not source:
            _LINES_CACHE.clear()
            ls = _LINES_CACHE[id(source)] = (source, source.split("\n"))
    lines = ls[1]
    return lines[line - 1] if 1 <= line <= len(lines) else ""


# ---------------------------------------------------------------------- one analysis of a document
class Analysis:
    """Everything known about one version of a document."""

    def __init__(self, text: str, path: str, cache: Optional[ChunkCache] = None):
        self.raw = text
        self.text = normalize(text)
        self.path = path
        self.lines = Lines(self.text)
        self.decls: list = []
        self.diagnostics: list = []
        self.parsed = False        # every chunk parsed
        self.checker = None        # the checker after its run (refs, types, templates), when it ran
        self._index = None
        cache = cache if cache is not None else ChunkCache()
        self.chunks: list = []
        self.decls, syntax = parse_chunked(self.text, path, cache, self.chunks)
        if syntax:
            self.diagnostics = sorted(syntax, key=lambda d: (d.span.line, d.span.col))
            return
        self.parsed = True
        rules = A.RulesFile(path, self.text, tuple(self.decls), A.NOWHERE)
        checker = _checker_class()(rules)
        try:
            checker.run()
        except RulesError as e:
            self.diagnostics = list(e.diagnostics)
        except RecursionError:
            self.diagnostics = [Diagnostic("error", "the rules nest too deeply to check", path, A.NOWHERE)]
        else:
            self.diagnostics = [d for d in checker.diags if d.severity == "warning"]
        self.checker = checker

    # -------------------------------------------------------------- lazily built
    @property
    def index(self) -> "Index":
        if self._index is None:
            self._index = Index(self)
        return self._index

    def line_tokens(self, line: int) -> list:
        """The tokens of one line (exact: strings and comments never span lines)."""
        if not 1 <= line <= len(self.lines.starts):
            return []
        start = self.lines.starts[line - 1]
        end = start + len(self.lines.line_text(line))
        out = []
        for m in _TOKEN.finditer(self.text, start, end):
            col = m.start() - start + 1
            out.append(Token(m.lastgroup, m.group(), m.start(), line, col, col + len(m.group())))
        return out

    def scan(self, start: int, end: Optional[int] = None):
        """Tokens from an offset (which must not be inside a string or a comment) up to end."""
        for m in _TOKEN.finditer(self.text, start, len(self.text) if end is None else end):
            yield m

    def span_of(self, start: int, end: int) -> A.Span:
        line, col = self.lines.position(start)
        end_line, end_col = self.lines.position(end)
        return A.Span(line, col, end_line, end_col)

    def offset(self, line: int, col: int) -> int:
        return self.lines.offset(line, col)

    def text_of(self, span: A.Span) -> str:
        return self.text[self.offset(span.line, span.col):self.offset(span.end_line, span.end_col)]


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

    def __init__(self, an: Analysis):
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
# where the checker reads a string as a template (rulespec/lang/checker.py, Checker.template)
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


# ---------------------------------------------------------------------- hover, definition, references
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


# names the checker puts in scope by itself (rulespec/lang/checker.py: ability_env, check_effect)
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


def hover(an: Analysis, line: int, col: int) -> Optional[tuple]:
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


def definition(an: Analysis, line: int, col: int) -> list:
    """The spans of the declarations of what is under (line, col)."""
    got = _under(an.index, line, col)
    return [s.name_span for s in got[1]] if got is not None else []


def references(an: Analysis, line: int, col: int, include_declaration: bool = True) -> list:
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


# ---------------------------------------------------------------------- completion
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


def complete(an: Analysis, line: int, col: int, known: Optional[Index] = None) -> list:
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


def _line_tokens_of(text: str, line: int, col0: int):
    for m in _TOKEN.finditer(text):
        c = col0 + m.start()
        yield Token(m.lastgroup, m.group(), m.start(), line, c, c + len(m.group()))
