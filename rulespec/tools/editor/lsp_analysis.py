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

The pieces: the text's tokens, positions and chunks (lsp_text), the checker with its kept string
templates (lsp_templates), the symbol index (lsp_index), hover, definition and references
(lsp_lookup) and completion (lsp_complete), all in rulespec/tools/editor/; this module parses and
checks a document, keeps the parsed chunks (in memory and on disk), and re-exports what the server
(rulespec/tools/editor/lsp.py) and the tests use.
"""
from __future__ import annotations

import threading
from typing import Optional

from rulespec.lang import ast as A
from rulespec.lang.diagnostics import Diagnostic
from rulespec.lang.errors import RulesError
from rulespec.lang.source import normalize

from .lsp_complete import Item, complete  # noqa: F401  (re-exported)
from .lsp_index import Index, Occurrence, Symbol  # noqa: F401  (re-exported)
from .lsp_lookup import definition, describe, hover, references  # noqa: F401  (re-exported)
from .lsp_templates import _TEMPLATE_CACHE, _TEMPLATE_LOCK, _checker_class, _template_parts  # noqa: F401
from .lsp_text import (DECL_KEYWORDS, KEYWORDS, _TOKEN, Lines, Token, _moved, chunk_bounds,  # noqa: F401
                       shift, unquote)


# ---------------------------------------------------------------------- chunked parsing
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
            self.diagnostics = [Diagnostic("error", "the rules nest too deeply to check", path, A.NOWHERE,
                                          code="too-deep")]
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
