"""The text of a document for the language server: tokens, line and column positions, chunks.

rulespec's own coordinates: lines and columns from 1, columns in characters (rulespec/tools/editor/lsp.py
converts them to the protocol's). A text is cut into *chunks*, one per declaration, at every line
that begins, in column 1, with a declaration's keyword; a parsed chunk that moved (lines inserted
above it) is copied with its spans shifted rather than parsed again (rulespec/tools/editor/lsp_analysis.py
keeps the parsed chunks).
"""
from __future__ import annotations

import bisect
import re
from typing import NamedTuple

import attrs

from rulespec.lang import ast as A
from rulespec.lang.diagnostics import Diagnostic

DECL_KEYWORDS = ("game", "enum", "option", "property", "card", "zone", "var", "def", "action", "phase",
                 "invariant", "effect", "event", "trigger", "conversion", "rule", "modify", "display")
_CHUNK_START = re.compile(r"^(?:%s)\b" % "|".join(DECL_KEYWORDS), re.M)

# the language's keywords (for completion and to tell a keyword from a name)
KEYWORDS = sorted(set(DECL_KEYWORDS) | {
    "players", "doc", "start", "cards", "in", "score", "label", "limit", "copy", "while", "when", "list",
    "int", "player", "or", "none", "from", "where", "use", "size", "same", "distinct", "wild", "ordered", "position",
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
                    r'|(?P<punct>\.\.|==|!=|<=|>=|\+=|-=|\*=|/=|[^\sA-Za-z0-9_#"])')
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SKIP = re.compile(r"(?:\s+|#[^\n]*)*")


class Token(NamedTuple):
    kind: str    # comment, string, open (a string without its closing quote), name, int, punct
    text: str
    offset: int  # in the text
    line: int    # from 1
    col: int     # from 1, in characters
    end_col: int


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


# ---------------------------------------------------------------------- chunks
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


def _line_tokens_of(text: str, line: int, col0: int):
    for m in _TOKEN.finditer(text):
        c = col0 + m.start()
        yield Token(m.lastgroup, m.group(), m.start(), line, c, c + len(m.group()))
