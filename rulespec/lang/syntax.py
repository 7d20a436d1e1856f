"""The Lark parser built from grammar.lark, and its syntax errors as Diagnostics.

A syntax error becomes a Diagnostic with file:line:col and a hint saying what was expected;
nothing here lets a bare Lark exception out.  The formatter (fmt.py) parses with the same
parser and reports the same errors.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from .diagnostics import Diagnostic
from .to_ast_leaves import _span_of_token

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# Friendly names for pattern terminals in "expected ..." messages (keywords and
# punctuation are shown as themselves, quoted).
_TERMINAL_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "QUANT": "a quantifier",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
    "TIES": "'ties last'", "$END": "the end of the file",
}


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    # cache=True: Lark keeps the LALR tables it builds from the grammar in a file of the system's
    # temporary folder (keyed by the grammar's hash and these options), so loading a rules file
    # does not build them again in every process (they cost more than parsing a whole game)
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", start=["start", "expr"],
                propagate_positions=True, maybe_placeholders=True, cache=True)


def _terminal_text(name: str) -> str:
    if name in _TERMINAL_NAMES:
        return _TERMINAL_NAMES[name]
    try:
        term = _lark().get_terminal(name)
    except KeyError:
        return name.lower()
    if term.pattern.type == "str":
        return f"'{term.pattern.value}'"
    return name.lower()


def _describe_expected(expected) -> str:
    names = sorted({_terminal_text(e) for e in expected}, key=lambda n: (not n.startswith("a"), n))
    if len(names) > 8:
        names = names[:8] + ["..."]
    if len(names) > 1 and names[-1] != "...":
        return ", ".join(names[:-1]) + " or " + names[-1]
    return ", ".join(names)


def _end_span(text: str) -> A.Span:
    """Where the input ends: just after its last non-blank character."""
    body = text.rstrip()
    line = body.count("\n") + 1
    col = len(body) - (body.rfind("\n") + 1) + 1
    return A.Span(line, col, line, col + 1)


def _syntax_error(exc: UnexpectedInput, path: str, text: str, what: str = "file") -> Diagnostic:
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if 0 <= exc.pos_in_stream < len(text) else "?"
        hint = None
        if ch == '"':
            hint = 'a string must end with " on the same line'
        elif exc.allowed:
            hint = f"expected {_describe_expected(exc.allowed)}"
        return Diagnostic("error", f"unexpected character {ch!r}", path, A.Span(line, col, line, col + 1), hint,
                          code="syntax")
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        return Diagnostic("error", f"unexpected end of {what}", path, _end_span(text), code="syntax",
                          hint=f"expected {_describe_expected(exc.expected)}" if exc.expected else None)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        return Diagnostic("error", f"unexpected {str(tok)!r}", path, _span_of_token(tok), code="syntax",
                          hint=f"expected {_describe_expected(exc.expected)}" if exc.expected else None)
    return Diagnostic("error", "syntax error", path, A.Span(line, col, line, col + 1), code="syntax")


_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _keyword_as_name(exc: UnexpectedInput) -> bool:
    """Lark's ``on_error`` hook: retry a keyword that the parser cannot use as a plain name.

    The contextual lexer decides between a keyword and a name from the LALR
    state, and LALR merges states: after an expression the lexer may accept the
    keywords that can follow an expression anywhere (``score``, ``cards``,
    ``start``, ``size``, ``next``, ...).  So ``x = 1  score[p] = 2`` lexes
    ``score`` as a keyword although only a name fits there.  When the parser
    then expects a name, feed the word again as a NAME.
    """
    if not isinstance(exc, UnexpectedToken):
        return False
    tok = exc.token
    if tok.type in ("NAME", "$END") or not _NAME_RE.match(str(tok)) or "NAME" not in exc.expected:
        return False
    try:
        exc.interactive_parser.feed_token(Token.new_borrow_pos("NAME", str(tok), tok))
    except UnexpectedInput:
        return False
    return True
