"""The checker as the language server runs it: the string templates it parses are kept from one check to the next.

A template is kept by the string as written and its column, so an edit elsewhere (or lines
inserted above it) does not parse it again; rulespec/tools/editor/lsp_analysis.py keeps these on disk
with the parsed chunks.
"""
from __future__ import annotations

import functools
import threading

from rulespec.lang import ast as A
from rulespec.lang.errors import RulesError

from .lsp_text import _moved


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
