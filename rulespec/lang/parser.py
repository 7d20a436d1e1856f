"""Text -> AST: the parser's face (parse_text, parse_file, parse_expr, parse_template).

A Lark LALR parser and a transformer that builds ``rulespec.lang.ast`` nodes, split by job:
  syntax.py                the Lark parser of grammar.lark; syntax errors as Diagnostics
  to_ast_leaves.py         tokens -> spans, names and literals
  to_ast_expressions.py    the transformer's expressions (operator chains kept flat)
  to_ast_statements.py     its statements and choices
  to_ast_declarations.py   its declarations and clauses
  nesting.py               the guard against nesting deeper than MAX_DEPTH
This module composes the transformer, runs a parse and turns every problem into a RulesError.

Syntax errors become Diagnostics with file:line:col; nothing here raises a bare
Lark exception or a traceback for bad input.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Optional, Union

import attrs
from lark.exceptions import UnexpectedInput, VisitError

from . import ast as A
from .diagnostics import Diagnostic, RulesError
from .gc_pause import no_gc
from .nesting import MAX_DEPTH, _too_deep, _too_deep_error  # noqa: F401 (MAX_DEPTH: this module's API)
from .source import decode, normalize, read_source  # noqa: F401 (this module's API before source.py)
# fmt.py parses with _lark, _keyword_as_name and _syntax_error through this module; _build looks
# _lark up here at each parse, so replacing parser._lark (as a test does) replaces the parser used
from .syntax import GRAMMAR_PATH, _keyword_as_name, _lark, _syntax_error  # noqa: F401 (GRAMMAR_PATH: this module's API)
from .to_ast_declarations import DeclarationsToAst
from .to_ast_expressions import _TEMPLATE_RE, ExpressionsToAst
from .to_ast_leaves import MAX_INT_DIGITS, _Problem, unquote  # noqa: F401 (MAX_INT_DIGITS: this module's API)
from .to_ast_statements import StatementsToAst


class _ToAst(ExpressionsToAst, StatementsToAst, DeclarationsToAst):
    """Lark tree -> AST.  Non-recursive, so any nesting depth transforms without a RecursionError.

    Problems that are not syntax errors but would otherwise be lost in the AST
    (a clause given twice) are collected in ``problems``."""

    def __init__(self, path: Optional[str] = None, source: Optional[str] = None):
        super().__init__()
        self.problems: list = []
        self.path, self.source = path, source  # for the holes of strings in expressions

    def _template_parts(self, lit: A.StrLit) -> list:
        """The pieces of a string with {holes} (here, as parse_template needs _build, which needs this class)."""
        return parse_template(lit, self.path, self.source)


def _build(text: str, path: str, start: str, what: str):
    """Parse and transform ``text``; every problem becomes a RulesError."""
    builder = _ToAst(path, text)
    try:
        with no_gc():  # a parse makes only long-lived objects: collecting meanwhile grows with the file
            tree = _lark().parse(text, start=start, on_error=_keyword_as_name)
            result = builder.transform(tree)
    except UnexpectedInput as exc:
        raise RulesError([_syntax_error(exc, path, text, what)], text) from None
    except VisitError as exc:
        if isinstance(exc.orig_exc, _Problem):
            p = exc.orig_exc
            raise RulesError([Diagnostic("error", p.message, path, p.span, p.hint, code="syntax")], text) from None
        raise exc.orig_exc from None
    except RecursionError:
        raise RulesError([Diagnostic("error", f"the {what} nests too deeply to parse", path, A.NOWHERE,
                                     code="too-deep")],
                         text) from None
    problems = [Diagnostic("error", msg, path, span, hint, code=code) for msg, span, hint, code in builder.problems]
    deep = _too_deep(result if isinstance(result, list) else [result])
    if deep is not None:
        problems.append(_too_deep_error(deep, path))
    if problems:
        raise RulesError(problems, text)
    return result


def parse_text(text: str, path: str = "<string>") -> A.RulesFile:
    text = normalize(text)
    decls = _build(text, path, "start", "file")
    return A.RulesFile(path, text, tuple(decls), A.NOWHERE)


def parse_expr(text: str, path: str = "<string>") -> A.Expr:
    """Parse one expression (for tests, tools and the REPL-minded)."""
    return _build(normalize(text), path, "expr", "expression")


def parse_file(path: Union[str, Path]) -> A.RulesFile:
    return parse_text(read_source(path), str(path))


def _value_columns(raw: str) -> list:
    """For a string token as written (with quotes), the column offset of each character of its value."""
    cols = []
    j = 1
    while j < len(raw) - 1:
        cols.append(j)
        j += 2 if raw[j] == "\\" else 1
    cols.append(j)
    return cols


@functools.lru_cache(maxsize=4)
def _lines(source: str) -> list:
    # One split per source, not one per template (a 7,000-line file has ~700 templates).
    return source.split("\n")


def _raw_token(lit: A.StrLit, source) -> Optional[str]:
    if source is None or lit.span.line != lit.span.end_line:
        return None
    lines = _lines(source)
    if not 1 <= lit.span.line <= len(lines):
        return None
    raw = lines[lit.span.line - 1][lit.span.col - 1:lit.span.end_col - 1]
    if len(raw) >= 2 and raw[0] == raw[-1] == '"' and unquote(raw) == lit.value:
        return raw
    return None


def parse_template(lit: A.StrLit, path: str, source: Optional[str] = None) -> list:
    """Split a string with ``{expr}`` holes into text pieces and expressions.

    Each hole is parsed where it sits in the file (``source``, when given, lets
    escapes before a hole be accounted for), so its spans and syntax errors
    point at the right line and column.
    """
    parts: list = []
    pos = 0
    value = lit.value
    raw = _raw_token(lit, source)
    cols = _value_columns(raw) if raw is not None else None
    for m in _TEMPLATE_RE.finditer(value):
        if m.start() > pos:
            parts.append(value[pos:m.start()])
        offset = cols[m.start(1)] if cols is not None else 1 + m.start(1)
        col = lit.span.col + offset
        # Pad the fragment so that Lark reports positions in the file's coordinates.
        padded = "\n" * (lit.span.line - 1) + " " * (col - 1) + m.group(1)
        try:
            expr = _build(padded, path, "expr", "expression")
        except RulesError as e:
            hole = A.Span(lit.span.line, col, lit.span.line, col + 1)
            raise RulesError([attrs.evolve(d, message=f"in template: {d.message}",
                                           span=d.span if (d.span.line, d.span.col) >= (hole.line, hole.col) else hole)
                              for d in e.diagnostics], source) from None
        parts.append(expr)
        pos = m.end()
    if pos < len(value):
        parts.append(value[pos:])
    return parts

