"""Lark tokens and metas -> the AST's leaves: spans, names, string and number literals.

Shared by the transformer's parts (expressions, statements, declarations) and by the syntax
errors, which point at a token's span.
"""
from __future__ import annotations

import re

from lark import Token

from . import ast as A

# Integer literals longer than this are rejected (Python refuses to convert
# strings of more than 4300 digits, and no card game needs such numbers).
MAX_INT_DIGITS = 18


class _Problem(Exception):
    """Raised inside the transformer for a problem found while building the AST."""

    def __init__(self, message: str, span: A.Span, hint=None):
        super().__init__(message)
        self.message, self.span, self.hint = message, span, hint


def _span_of_meta(meta) -> A.Span:
    if getattr(meta, "empty", True):
        return A.NOWHERE
    return A.Span(meta.line, meta.column, meta.end_line, meta.end_column)


def _span_of_token(tok: Token) -> A.Span:
    return A.Span(tok.line or 1, tok.column or 1, tok.end_line or tok.line or 1,
                  tok.end_column or (tok.column or 1) + len(tok))


def unquote(tok: str) -> str:
    body = tok[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def _strlit(tok: Token) -> A.StrLit:
    return A.StrLit(unquote(tok), _span_of_token(tok))


def _ident(tok: Token) -> A.Ident:
    return A.Ident(str(tok), _span_of_token(tok))


def _int(tok: Token) -> int:
    digits = str(tok).lstrip("0") or "0"
    if len(digits) > MAX_INT_DIGITS:
        raise _Problem("this number is too large", _span_of_token(tok),
                       f"numbers have at most {MAX_INT_DIGITS} digits")
    return int(digits)
