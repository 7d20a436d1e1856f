"""``rulespec lsp``: a language server (LSP over standard input and output) for rules files.

Diagnostics as you type, hover, go to definition, find references, completion, the document
outline and (when ``rulespec.lang.fmt`` is installed) formatting. The protocol is pygls' (``pip install
'rulespec[lsp]'``); what the server knows about a document comes from ``rulespec.tools.editor.lsp_analysis``.

Each version of a document is analysed (parsed and checked) once, in a worker thread, a short
while after the last change (DEBOUNCE seconds), or at once when a request needs it; a request
waits for the analysis of the version it is about, so its positions always match. Diagnostics
are published for the newest version only. Nothing that goes wrong with one document or one
request stops the server: the error is logged (window/logMessage) and the server goes on.
"""
from __future__ import annotations

import asyncio
import re
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Optional
from urllib.parse import unquote as url_unquote, urlparse

from lsprotocol import types as L
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from rulespec.lang import ast as A
from . import lsp_analysis as R

DEBOUNCE = 0.15   # seconds of quiet after a change before the document is checked again

# the protocol's line ends (LSP 3.17): only these. Python's splitlines (and so pygls's copy of a
# document) also ends lines at form feeds, U+2028 and others, which an editor shows inside a line
_LINE_END = re.compile(r"\r\n|\r|\n")

_SYMBOL_KINDS = {
    "game": L.SymbolKind.Module, "enum": L.SymbolKind.Enum, "member": L.SymbolKind.EnumMember,
    "option": L.SymbolKind.Constant, "property": L.SymbolKind.Property, "card": L.SymbolKind.Object,
    "zone": L.SymbolKind.Array, "var": L.SymbolKind.Variable, "def": L.SymbolKind.Function,
    "action": L.SymbolKind.Method, "phase": L.SymbolKind.Namespace, "invariant": L.SymbolKind.Boolean,
    "effect": L.SymbolKind.Class, "event": L.SymbolKind.Event, "trigger": L.SymbolKind.Operator,
    "conversion": L.SymbolKind.Interface, "rule": L.SymbolKind.Function, "field": L.SymbolKind.Field,
}
_COMPLETION_KINDS = {
    "enum": L.CompletionItemKind.Enum, "member": L.CompletionItemKind.EnumMember,
    "option": L.CompletionItemKind.Constant, "property": L.CompletionItemKind.Property,
    "card": L.CompletionItemKind.Value, "zone": L.CompletionItemKind.Variable,
    "var": L.CompletionItemKind.Variable, "def": L.CompletionItemKind.Function,
    "rule": L.CompletionItemKind.Function, "action": L.CompletionItemKind.Method,
    "phase": L.CompletionItemKind.Module, "effect": L.CompletionItemKind.Class,
    "event": L.CompletionItemKind.Event, "field": L.CompletionItemKind.Field, "tag": L.CompletionItemKind.Constant,
    "local": L.CompletionItemKind.Variable, "builtin": L.CompletionItemKind.Function,
    "keyword": L.CompletionItemKind.Keyword,
}


def formatter():
    """rulespec.lang.fmt.format_text(text, path), or None while rulespec fmt is not installed (then the
    server does not offer formatting)."""
    try:
        from rulespec.lang.fmt import format_text
    except ImportError:
        return None
    return format_text


# ---------------------------------------------------------------------- positions
class Codec:
    """rulespec positions (lines and columns from 1, columns in characters) <-> LSP positions
    (from 0, columns in the negotiated code units: UTF-16 unless the client chose UTF-8 or UTF-32)."""

    def __init__(self, encoding: str = "utf-16"):
        self.encoding = str(getattr(encoding, "value", encoding)).lower()

    def units(self, s: str) -> int:
        if self.encoding == "utf-32" or s.isascii():
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)

    def to_lsp(self, an: R.Analysis, line: int, col: int) -> L.Position:
        text = an.lines.line_text(line) if 1 <= line <= len(an.lines.starts) else ""
        col = max(1, col)
        extra = col - 1 - len(text)   # past the end of the line (the end of a file, a span just past it)
        units = self.units(text[:col - 1]) + max(0, extra)
        if line == 1 and an.raw.startswith("\ufeff"):
            units += self.units("\ufeff")
        return L.Position(line=max(0, line - 1), character=units)

    def range(self, an: R.Analysis, span: A.Span) -> L.Range:
        start = self.to_lsp(an, span.line, span.col)
        end = self.to_lsp(an, span.end_line, span.end_col)
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return L.Range(start=start, end=end)

    def from_lsp(self, an: R.Analysis, pos: L.Position) -> tuple:
        line = pos.line + 1
        units = pos.character
        if line == 1 and an.raw.startswith("\ufeff"):
            units -= self.units("\ufeff")
        return line, self.chars(an.lines.line_text(line), units) + 1

    def chars(self, text: str, units: int) -> int:
        """How many characters of a line's text come before `units` code units (all of them when
        there are fewer; a position inside a character counts as before it)."""
        if self.encoding == "utf-32" or text.isascii():
            return max(0, min(units, len(text)))
        n = 0
        for i, ch in enumerate(text):
            n += self.units(ch)
            if n > units:
                return i
        return len(text)

    def offset(self, text: str, pos: L.Position) -> int:
        """The offset in a document's raw text of a protocol position (a line past the last: the
        end of the text; a character past the end of its line: the line's end)."""
        start, line = 0, 0
        for m in _LINE_END.finditer(text):
            if line == pos.line:
                return start + self.chars(text[start:m.start()], pos.character)
            start, line = m.end(), line + 1
        return start + self.chars(text[start:], pos.character) if line == pos.line else len(text)

    def apply(self, text: str, change) -> str:
        """The text after one content change of a didChange (a range replaced, or the whole text)."""
        rng = getattr(change, "range", None)
        if rng is None:
            return change.text
        start, end = sorted((self.offset(text, rng.start), self.offset(text, rng.end)))
        return text[:start] + change.text + text[end:]


def uri_to_path(uri: str) -> str:
    p = urlparse(uri)
    if p.scheme == "file":
        return url_unquote(p.path)
    return uri


# ---------------------------------------------------------------------- the server
class RulesProtocol(LanguageServerProtocol):
    @lsp_method(L.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: L.DidChangeTextDocumentParams):
        """Hand the changes, as the editor sent them, to the server (RulesServer.edited).

        pygls's own handler first applies them to pygls's copy of the document and, on the way,
        clamps their positions in place by that copy's lines, which Python's splitlines ends at
        a form feed or U+2028 too: after one of those, the server would get the change on
        another line."""
        handler = self.fm.features.get(L.TEXT_DOCUMENT_DID_CHANGE)
        if handler is not None:
            yield handler, (params,), None


class Doc:
    def __init__(self, uri: str):
        self.uri = uri
        self.path = uri_to_path(uri)
        self.version = 0
        self.text = ""
        self.timer: Optional[asyncio.TimerHandle] = None
        self.future: Optional[asyncio.Future] = None
        self.future_version = -1
        self.last_parsed: Optional[R.Analysis] = None   # the newest analysis whose text parsed
        self.analysis: Optional[R.Analysis] = None      # the newest analysis, of analysis_version
        self.analysis_version = -1
        self.analysed_once = False
        self.published_version = -1


class RulesServer(LanguageServer):
    def __init__(self):
        super().__init__("rulespec", "0.1.0", text_document_sync_kind=L.TextDocumentSyncKind.Incremental,
                         protocol_cls=RulesProtocol)
        self.docs: dict = {}
        self.cache = R.ChunkCache()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulespec-check")
        self.debounce = DEBOUNCE
        self.format_text = formatter()
        self.loop: Optional[asyncio.AbstractEventLoop] = None

    # -------------------------------------------------------------- logging
    def log(self, message: str, kind: L.MessageType = L.MessageType.Log) -> None:
        try:
            self.window_log_message(L.LogMessageParams(type=kind, message=message))
        except Exception:   # the client is gone: nothing to tell
            pass

    def log_error(self, what: str, exc: BaseException) -> None:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=8))
        self.log(f"rulespec lsp: {what}: {exc!r}\n{tb}", L.MessageType.Error)

    def report_server_error(self, error: Exception, source) -> None:
        self.log_error("internal error", error)

    @property
    def codec(self) -> Codec:
        try:
            return Codec(self.workspace.position_encoding or "utf-16")
        except Exception:
            return Codec("utf-16")

    # -------------------------------------------------------------- documents and their analyses
    def doc(self, uri: str) -> Doc:
        d = self.docs.get(uri)
        if d is None:
            d = self.docs[uri] = Doc(uri)
        return d

    def opened(self, item: L.TextDocumentItem) -> None:
        d = self.doc(item.uri)
        d.text, d.version = item.text, item.version
        self.changed(d, 0)

    def edited(self, params: L.DidChangeTextDocumentParams) -> None:
        """Apply the changes to the server's copy of the text: its own, not pygls's, whose lines
        end where Python's splitlines ends them (at a form feed too: an edit below one would land
        on the wrong line)."""
        d = self.docs.get(params.text_document.uri)
        if d is None:   # never opened (or closed): the protocol sends no change then
            self.log(f"rulespec lsp: a change to {params.text_document.uri}, which is not open, is ignored")
            return
        codec = self.codec
        for change in params.content_changes:
            d.text = codec.apply(d.text, change)
        version = params.text_document.version
        d.version = version if version is not None else d.version + 1
        # pygls's copy of the document: the same text (nothing here reads it; a future feature may)
        self.workspace.put_text_document(L.TextDocumentItem(uri=d.uri, language_id="rulespec", version=d.version,
                                                            text=d.text))
        self.changed(d, self.debounce)

    def changed(self, d: Doc, delay: float) -> None:
        if d.timer is not None:
            d.timer.cancel()
        if delay <= 0:
            d.timer = None
            self.start(d)
        else:
            d.timer = asyncio.get_running_loop().call_later(delay, self.start, d)

    def analyse(self, text: str, path: str, first: bool) -> R.Analysis:
        # a document just opened: its declarations may be on disk from an earlier session
        warm = first and R.load_warm(text, path, self.cache)
        an = R.Analysis(text, path, self.cache)
        an.save = first and not warm   # keep the parsed declarations for the next session
        return an

    def save(self, an: R.Analysis) -> None:
        self.worker.submit(R.save_warm, an, self.cache).add_done_callback(self._background_done)

    @staticmethod
    def _build_index(an: R.Analysis) -> R.Analysis:
        an.index
        return an

    async def indexed(self, an: R.Analysis) -> R.Analysis:
        """The analysis with its symbol index built (in the worker thread: the event loop never waits)."""
        if an._index is not None:
            return an
        return await asyncio.get_running_loop().run_in_executor(self.worker, self._build_index, an)

    def start(self, d: Doc) -> asyncio.Future:
        """The analysis of the document's current version (started now if it is not under way)."""
        if d.future is not None and d.future_version == d.version and not d.future.cancelled():
            return d.future
        if d.timer is not None:
            d.timer.cancel()
            d.timer = None
        self.loop = asyncio.get_running_loop()
        version = d.version
        first, d.analysed_once = not d.analysed_once, True
        fut = asyncio.get_running_loop().run_in_executor(self.worker, self.analyse, d.text, d.path, first)
        d.future, d.future_version = fut, version
        fut.add_done_callback(lambda f: self.analysed(d, version, f))
        return fut

    def analysed(self, d: Doc, version: int, fut: asyncio.Future) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            self.log_error(f"checking {d.path} failed", exc)
            if version == d.version and self.docs.get(d.uri) is d:
                # say so where the user looks, rather than leave diagnostics of an older text
                self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=d.uri, version=version, diagnostics=[
                    L.Diagnostic(range=L.Range(start=L.Position(line=0, character=0),
                                               end=L.Position(line=0, character=0)),
                                 message=f"rulespec lsp could not check this text (internal error: {exc!r}); "
                                         "the server's log has the details",
                                 severity=L.DiagnosticSeverity.Error, source="rulespec")]))
            return
        an = fut.result()
        if an.parsed:
            d.last_parsed = an
        if getattr(an, "save", False):
            self.save(an)
        d.analysis, d.analysis_version = an, version
        if version != d.version or self.docs.get(d.uri) is not d:
            return   # a newer version is on its way
        try:
            self.publish(d, an)
        except Exception as e:
            self.log_error(f"publishing the diagnostics of {d.path} failed", e)
        # the symbol index, next in the worker's queue: ready by the time the user asks (unless
        # the text has changed again by then: a request builds it when it needs it)
        self.worker.submit(self._index_if_current, d, version, an).add_done_callback(self._background_done)

    @staticmethod
    def _index_if_current(d: Doc, version: int, an: R.Analysis) -> None:
        if d.version == version:
            an.index

    def _background_done(self, fut) -> None:
        """A job of the worker thread ended (this runs in that thread): log its error on the event loop."""
        exc = fut.exception()
        if exc is not None and self.loop is not None:
            self.loop.call_soon_threadsafe(self.log_error, "a background job failed", exc)

    def saved(self, uri: str) -> None:
        """A saved text is what the next session opens: keep its parsed declarations on disk."""
        d = self.docs.get(uri)
        if d is not None and d.analysis is not None and d.analysis_version == d.version:
            self.save(d.analysis)

    def publish(self, d: Doc, an: R.Analysis) -> None:
        codec = self.codec
        diags = []
        for x in an.diagnostics:
            msg = x.message + (f"\nhint: {x.hint}" if x.hint else "")
            related = None
            if getattr(x, "related", None) is not None:  # a second place, e.g. where a read is seen
                related = [L.DiagnosticRelatedInformation(
                    location=L.Location(uri=d.uri, range=codec.range(an, x.related.span)),
                    message=x.related.message)]
            diags.append(L.Diagnostic(
                range=codec.range(an, x.span), message=msg, source="rulespec", code=x.code or None,
                related_information=related,
                severity=L.DiagnosticSeverity.Error if x.severity == "error" else L.DiagnosticSeverity.Warning))
        d.published_version = d.future_version
        self.text_document_publish_diagnostics(
            L.PublishDiagnosticsParams(uri=d.uri, diagnostics=diags, version=d.future_version))

    async def analysis(self, uri: str) -> Optional[R.Analysis]:
        """The analysis of a document's current version, for a request (None when it failed)."""
        d = self.docs.get(uri)
        if d is None:   # not open: the server knows only what the editor opened
            return None
        try:
            # shielded: the check is shared by every request about this version, and an editor
            # cancels requests all the time; cancelling one must not cancel the check
            return await self.indexed(await asyncio.shield(self.start(d)))
        except Exception as e:
            self.log_error(f"checking {d.path} failed", e)
            return None

    def closed(self, uri: str) -> None:
        d = self.docs.pop(uri, None)
        if d is not None and d.timer is not None:
            d.timer.cancel()
        self.text_document_publish_diagnostics(L.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _guard(name: str, default=None):
    """Run a handler; any exception is logged and answered with `default` (the server goes on)."""
    def wrap(fn):
        if asyncio.iscoroutinefunction(fn):
            async def run(ls: RulesServer, params):
                try:
                    return await fn(ls, params)
                except Exception as e:
                    ls.log_error(name, e)
                    return default
        else:
            def run(ls: RulesServer, params):
                try:
                    return fn(ls, params)
                except Exception as e:
                    ls.log_error(name, e)
                    return default
        run.__name__ = fn.__name__
        return run
    return wrap


def build_server() -> RulesServer:
    ls = RulesServer()

    @ls.feature(L.TEXT_DOCUMENT_DID_OPEN)
    @_guard("didOpen")
    def did_open(ls: RulesServer, params: L.DidOpenTextDocumentParams):
        ls.opened(params.text_document)

    @ls.feature(L.TEXT_DOCUMENT_DID_CHANGE)
    @_guard("didChange")
    def did_change(ls: RulesServer, params: L.DidChangeTextDocumentParams):
        ls.edited(params)

    @ls.feature(L.TEXT_DOCUMENT_DID_SAVE)
    @_guard("didSave")
    def did_save(ls: RulesServer, params: L.DidSaveTextDocumentParams):
        ls.saved(params.text_document.uri)

    @ls.feature(L.TEXT_DOCUMENT_DID_CLOSE)
    @_guard("didClose")
    def did_close(ls: RulesServer, params: L.DidCloseTextDocumentParams):
        ls.closed(params.text_document.uri)

    @ls.feature(L.TEXT_DOCUMENT_HOVER)
    @_guard("hover")
    async def hover(ls: RulesServer, params: L.HoverParams):
        an = await ls.analysis(params.text_document.uri)
        if an is None:
            return None
        line, col = ls.codec.from_lsp(an, params.position)
        got = R.hover(an, line, col)
        if got is None:
            return None
        text, span = got
        return L.Hover(contents=L.MarkupContent(kind=L.MarkupKind.Markdown, value=text),
                       range=ls.codec.range(an, span))

    @ls.feature(L.TEXT_DOCUMENT_DEFINITION)
    @_guard("definition")
    async def definition(ls: RulesServer, params: L.DefinitionParams):
        an = await ls.analysis(params.text_document.uri)
        if an is None:
            return None
        line, col = ls.codec.from_lsp(an, params.position)
        uri = params.text_document.uri
        return [L.Location(uri=uri, range=ls.codec.range(an, s)) for s in R.definition(an, line, col)] or None

    @ls.feature(L.TEXT_DOCUMENT_REFERENCES)
    @_guard("references")
    async def references(ls: RulesServer, params: L.ReferenceParams):
        an = await ls.analysis(params.text_document.uri)
        if an is None:
            return None
        line, col = ls.codec.from_lsp(an, params.position)
        uri = params.text_document.uri
        include = params.context.include_declaration if params.context is not None else True
        return [L.Location(uri=uri, range=ls.codec.range(an, s))
                for s in R.references(an, line, col, include)] or None

    @ls.feature(L.TEXT_DOCUMENT_COMPLETION, L.CompletionOptions(trigger_characters=[".", '"']))
    @_guard("completion")
    async def completion(ls: RulesServer, params: L.CompletionParams):
        uri = params.text_document.uri
        an = await ls.analysis(uri)
        if an is None:
            return None
        d = ls.docs.get(uri)
        known = await ls.indexed(d.last_parsed) if d is not None and d.last_parsed is not None else None
        line, col = ls.codec.from_lsp(an, params.position)
        items = []
        for it in R.complete(an, line, col, known.index if known is not None else None):
            edit = None
            if it.replace is not None:
                edit = L.TextEdit(range=ls.codec.range(an, it.replace), new_text=it.insert or it.label)
            doc = L.MarkupContent(kind=L.MarkupKind.Markdown, value=it.doc) if it.doc else None
            items.append(L.CompletionItem(
                label=it.label, kind=_COMPLETION_KINDS.get(it.kind), detail=it.detail or None,
                documentation=doc, sort_text=f"{it.sort}{it.label}", text_edit=edit, filter_text=it.filter))
        return L.CompletionList(is_incomplete=False, items=items)

    @ls.feature(L.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guard("documentSymbol")
    async def document_symbol(ls: RulesServer, params: L.DocumentSymbolParams):
        an = await ls.analysis(params.text_document.uri)
        if an is None:
            return None
        codec = ls.codec

        def convert(s: R.Symbol) -> L.DocumentSymbol:
            rng = codec.range(an, s.span)
            sel = codec.range(an, s.name_span)
            if not _contains(rng, sel):
                rng = sel
            kind = _SYMBOL_KINDS.get(s.kind, L.SymbolKind.Method if s.ns == "action-ref" else L.SymbolKind.Key)
            detail = "offered here" if s.ns == "action-ref" else s.header.split("\n")[0][:120]
            return L.DocumentSymbol(name=s.name or s.kind, kind=kind, range=rng, selection_range=sel,
                                    detail=detail, children=[convert(c) for c in s.children] or None)

        return [convert(s) for s in an.index.outline]

    if ls.format_text is not None:
        @ls.feature(L.TEXT_DOCUMENT_FORMATTING)
        @_guard("formatting")
        async def formatting(ls: RulesServer, params: L.DocumentFormattingParams):
            from rulespec.lang.errors import RulesError
            uri = params.text_document.uri
            an = await ls.analysis(uri)
            if an is None:
                return None
            try:   # in the worker thread: a large file takes a second or two, and the loop answers meanwhile
                new = await asyncio.get_running_loop().run_in_executor(ls.worker, ls.format_text, an.raw, an.path)
            except RulesError as e:
                ls.log(f"rulespec lsp: not formatted: {e}", L.MessageType.Info)
                return []
            if new == an.raw:
                return []
            last = len(an.lines.starts)
            end = ls.codec.to_lsp(an, last, len(an.lines.line_text(last)) + 1)
            return [L.TextEdit(range=L.Range(start=L.Position(line=0, character=0), end=end), new_text=new)]

    return ls


def _contains(outer: L.Range, inner: L.Range) -> bool:
    return (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character) and \
        (inner.end.line, inner.end.character) <= (outer.end.line, outer.end.character)


def main() -> int:
    build_server().start_io()
    return 0
