"""``rulespec fmt``: the canonical layout of a rules file.

A token-based formatter: the text is cut into tokens (strings, comments, words, operators) with
the same patterns as the grammar's terminals, and only the whitespace between tokens is
rewritten.  Lines are never joined or split, so every line keeps its number (diagnostics,
scenario files and docs that point at ``file:line`` stay right), except that runs of blank lines
shrink to one.  Strings (doc strings with ``{templates}`` too) and comments are kept byte for
byte, and every comment stays where it was: an end-of-line comment at the end of its line, a
full-line comment on a line of its own.

The layout (the shipped games' own style):

- indentation: two spaces per open ``{``; a line that starts a declaration, a clause or a
  statement (the parser says which lines do) is indented by its brace depth, a line that
  continues one keeps its indentation relative to the line it continues (at least two more
  spaces); a full-line comment is indented by its brace depth, or like the line after it when
  that line continues a statement;
- one space around binary operators and ``=``, ``+=``, ``-=``, ``*=``, ``/=``, after ``,`` and ``:`` and inside
  ``{ }``; none inside ``( )`` and ``[ ]``, before ``,``, ``:``, ``(`` of a call, ``[`` of an index,
  around ``.`` and ``..``, after a unary ``-``;
- two or more spaces before a clause, statement or card field that starts in the middle of a
  line are kept (``after { turns += 1  active = next_player(active) }``), and so are those between
  a card's name and its ``{``: hand-aligned tables (``card "A of clubs"     { suit: clubs    rank:
  1 }``) stay aligned; so does the gap before an end-of-line comment (one space at least);
- no trailing spaces, at most one blank line in a row, none at the start or the end, one newline
  at the end, LF line ends (a byte-order mark is dropped).

The file must parse: a syntax error is a RulesError (file:line:col) and nothing is formatted.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from .errors import RulesError
from .gc_pause import no_gc
from .source import normalize

__all__ = ["format_text", "format_file", "ast_shape", "FormatError", "KEYWORDS"]

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# the terminals as the grammar spells them (STRING, COMMENT, NAME/INT); operators longest first
_TOKEN_RE = re.compile(r"""
    (?P<ws>[ \t\f\v]+)
  | (?P<nl>\n)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<com>\#[^\n]*)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*|[0-9]+)
  | (?P<op>\.\.|==|!=|<=|>=|\+=|-=|\*=|/=|[-+*/%^<>=(){}\[\],:.])
""", re.VERBOSE)

# the rules (or aliases) whose trees are the items of a file or of a { } body: a line that
# starts with one of them is indented by its brace depth
_CONTAINERS = ("decl", "game_item", "card_item", "ability_item", "action_item", "effect_item", "display_item",
               "conversion_item", "phase_item", "stmt")

# keywords after which an expression starts: a '-' after them is unary, a '(' or '[' after them
# opens a group or a list (spaced) rather than a call or an index
_EXPR_KEYWORDS = frozenset("""
    if then else elif and or not in where when from size to by cause winners with against target
    move deal shuffle play reveal conceal cancel look ask choose require actor
""".split())

_BINARY = frozenset(["==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "^", "=", "+=", "-=", "*=", "/="])


class FormatError(Exception):
    """The formatter would change the meaning of a file (a bug in the formatter): nothing is written."""


@lru_cache(maxsize=1)
def _grammar() -> str:
    return GRAMMAR_PATH.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _item_rules() -> frozenset:
    """The tree names of items, read from the grammar's alternatives of _CONTAINERS."""
    names = set()
    current = None
    for line in _grammar().splitlines():
        code = line.split("//")[0].rstrip()
        m = re.match(r"[?!]?([a-z_]+)\s*:(.*)", code)
        if m:
            current, body = m.group(1), m.group(2)
        elif code.strip().startswith("|") and current:
            body = code.strip()[1:]
        else:
            if not code.strip():
                current = None
            continue
        if current in _CONTAINERS:
            alias = re.search(r"->\s*([a-z_]+)", body)
            if alias:
                names.add(alias.group(1))
            elif re.fullmatch(r"\s*[a-z_]+\s*", body):
                names.add(body.strip())
    return frozenset(names)


def _keywords() -> frozenset:
    """Every word the grammar spells as a literal or a keyword pattern (QUANT, TIES)."""
    g = _grammar()
    words = set(re.findall(r'"([A-Za-z_]+)"', g))
    for m in re.finditer(r"^(?:QUANT|TIES)[.\d]*:\s*/\(?([^/]*)", g, re.M):
        words.update(re.findall(r"[a-z]+", m.group(1).split("(?=")[0].replace("\\s", " ").replace("\\b", " ")))
    words.discard("s")
    return frozenset(words)


KEYWORDS = _keywords()


class _Tok:
    __slots__ = ("kind", "text", "line", "col", "pos", "name", "card", "item")

    def __init__(self, kind: str, text: str, line: int, col: int, pos: int):
        self.kind, self.text, self.line, self.col, self.pos = kind, text, line, col, pos
        self.name = False  # a word the parser read as a NAME (keywords may be names: 'target(p)')
        self.card = False  # inside a card declaration (whose fields may be aligned in columns)
        self.item = False  # starts a declaration, a clause, a statement or a card's field

    def __repr__(self) -> str:
        return f"{self.kind}:{self.text!r}@{self.line}:{self.col}"


def _scan(text: str) -> list:
    """The text as lines, each a list of (gap before, token); whitespace-only gaps, comments kept."""
    lines: list = [[]]
    gap = ""
    pos, line, line_start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN_RE.match(text, pos)
        if m is None:  # cannot happen for text that parsed; keep the character as a word
            kind, value = "word", text[pos]
            end = pos + 1
        else:
            kind, value, end = m.lastgroup, m.group(), m.end()
        if kind == "ws":
            gap += value
        elif kind == "nl":
            lines.append([])
            gap = ""
            line += 1
            line_start = end
        else:
            lines[-1].append((gap, _Tok(kind, value, line, pos - line_start + 1, pos)))
            gap = ""
        pos = end
    return lines


def _tree(text: str, path: str):
    from lark.exceptions import UnexpectedInput

    from . import parser as P
    from .diagnostics import Diagnostic
    try:
        return P._lark().parse(text, start="start", on_error=P._keyword_as_name)
    except UnexpectedInput as exc:
        raise RulesError([P._syntax_error(exc, path, text, "file")], text) from None
    except RecursionError:
        from . import ast as A
        raise RulesError([Diagnostic("error", "the file nests too deeply to parse", path, A.NOWHERE, code="too-deep")],
                         text) from None


def _positions(tree) -> tuple:
    """(where items start, where NAME tokens are: sets of (line, column); the (start, end)
    offsets of card declarations)."""
    from lark import Token
    items = _item_rules()
    starts, names, cards = set(), set(), []
    for t in tree.iter_subtrees():
        if t.data in items and not getattr(t.meta, "empty", True):
            starts.add((t.meta.line, t.meta.column))
            if t.data == "card_decl":
                cards.append((t.meta.start_pos, t.meta.end_pos))
        for c in t.children:
            if isinstance(c, Token) and c.type == "NAME":
                names.add((c.line, c.column))
    return starts, names, cards


def _value_like(t: _Tok) -> bool:
    """Ends an operand: a '-' after it is binary."""
    if t.kind in ("str",):
        return True
    if t.kind == "word":
        return t.name or t.text not in _EXPR_KEYWORDS
    return t.text in (")", "]")


def _gap(a: _Tok, b: _Tok, raw: str, a_unary: bool, b_unary: bool) -> str:
    """The whitespace between two tokens of one line."""
    spaces_only = raw != "" and raw.strip(" ") == ""
    if b.kind == "com":
        return raw if spaces_only else " "
    at, bt = a.text, b.text
    if a.kind in ("op",) and at in ("(", "["):
        return ""
    if b.kind == "op" and bt in (")", "]", ",", ":", ".", ".."):
        return ""
    if a.kind == "op" and at in (".", ".."):
        return ""
    if a.kind == "op" and at in (",", ":"):
        return " "
    if a.kind == "op" and at == "{":
        return "" if b.kind == "op" and bt == "}" else " "
    if a_unary:
        return ""
    if b.kind == "op" and bt in ("(", "["):
        if a.kind == "word":
            return " " if at in _EXPR_KEYWORDS and not a.name else ""
        if a.kind == "op" and at in (")", "]"):
            return ""
        return " "
    if (a.kind == "op" and at in _BINARY) or (b.kind == "op" and bt in _BINARY):
        return " "
    # between two words, strings, brackets: one space; but two or more before an item that starts
    # in the middle of a line (they set items apart, or align a table of cards in columns), and
    # between a card's name and its '{' (aligned), are kept
    if spaces_only and len(raw) >= 2 and (b.item or (a.kind == "str" and a.card and bt == "{")):
        return raw
    return " "


def _indent_width(raw: str) -> int:
    return len(raw.expandtabs(4))


def format_text(text: str, path: str = "<string>") -> str:
    """The canonical layout of a rules file's text (see the module's doc), with LF line ends.

    Raises RulesError (the parser's diagnostics) when the text does not parse, and FormatError
    if the result's tokens differed from the text's (a bug: it cannot happen)."""
    with no_gc():  # formatting makes objects by the million: see gc_pause.py
        return _format(normalize(text), path)[0]


def _format(text: str, path: str) -> tuple:
    """(the formatted text, the text's parse tree)."""
    tree = _tree(text, path)
    starts, names, cards = _positions(tree)
    lines = _scan(text)
    cards.sort()
    k = 0
    for toks in lines:
        for _, t in toks:
            if t.kind == "word" and (t.line, t.col) in names:
                t.name = True
            t.item = (t.line, t.col) in starts
            while k < len(cards) and cards[k][1] <= t.pos:
                k += 1
            t.card = k < len(cards) and cards[k][0] <= t.pos

    out: list = []           # per line: its new text, or None for a comment-only line (filled later)
    comment_lines: list = []  # (index in out, depth, index of the line's comment token)
    cont: dict = {}          # index of a continuation code line -> its new indent
    depth = 0
    prev_code = None         # the last non-comment token before here
    head_orig = head_new = 0
    for i, toks in enumerate(lines):
        code = [t for _, t in toks if t.kind != "com"]
        if not toks:
            out.append("")
            continue
        if not code:  # a full-line comment
            out.append(None)
            comment_lines.append((i, depth))
            continue
        first = code[0]
        orig = _indent_width(toks[0][0])
        closing = 0
        for t in code:
            if t.kind == "op" and t.text == "}":
                closing += 1
            else:
                break
        here = max(0, depth - closing)
        head = ((first.line, first.col) in starts or (first.kind == "op" and first.text in ("}", "{"))
                or (first.kind == "word" and first.text in ("else", "elif") and prev_code is not None
                    and prev_code.text == "}"))
        if head:
            indent = 2 * here
            head_orig, head_new = orig, indent
        else:
            if orig > head_orig:
                indent = head_new + (orig - head_orig)
            elif first.kind == "op" and first.text in (")", "]"):
                indent = head_new
            else:
                indent = head_new + 2
            cont[i] = indent
        parts = [" " * indent]
        prev = None
        prev_unary = False
        for raw, t in toks:
            unary = (t.kind == "op" and t.text == "-" and (prev_code is None or not _value_like(prev_code)))
            if prev is not None:
                parts.append(_gap(prev, t, raw, prev_unary, unary))
            parts.append(t.text)
            prev, prev_unary = t, unary
            if t.kind != "com":
                prev_code = t
                if t.kind == "op" and t.text == "{":
                    depth += 1
                elif t.kind == "op" and t.text == "}":
                    depth = max(0, depth - 1)
        out.append("".join(parts).rstrip())

    # full-line comments: indented like the code line after them when it continues a statement,
    # else by their brace depth
    following = _next_code_lines(out)
    for i, d in comment_lines:
        j = following[i]
        indent = cont[j] if j in cont else 2 * d
        out[i] = " " * indent + lines[i][0][1].text.rstrip()

    # blank lines: at most one in a row, none at the start or the end
    result: list = []
    for line in out:
        if line == "" and (not result or result[-1] == ""):
            continue
        result.append(line)
    while result and result[-1] == "":
        result.pop()
    new = "\n".join(result) + "\n" if result else ""
    if new != text and _tokens(new) != _token_list(lines):  # only whitespace may change
        raise FormatError(f"{path}: formatting would change the file's tokens (a bug in rulespec fmt)")
    return new, tree


def _next_code_lines(out: list) -> list:
    """For each line, the index of the first line after it that has code (len(out) if none).

    One pass from the end: looking ahead from each comment line instead would be quadratic in a
    long run of comment lines (a commented-out block, a licence header)."""
    following = [len(out)] * len(out)
    nxt = len(out)
    for i in range(len(out) - 1, -1, -1):
        following[i] = nxt
        if out[i]:   # a code line ('' is blank, None a full-line comment)
            nxt = i
    return following


def _tokens(text: str) -> list:
    return _token_list(_scan(text))


def _token_list(lines: list) -> list:
    """The tokens of scanned lines, as (kind, text) without the gaps (a comment's trailing
    spaces are whitespace too)."""
    return [(t.kind, t.text.rstrip() if t.kind == "com" else t.text) for toks in lines for _, t in toks]


_HIDDEN_RE = re.compile(r"^ask#\d+:\d+$")


def ast_shape(node):
    """An AST as nested tuples without source positions (spans) or the file's text: two texts
    that mean the same have equal shapes."""
    import attrs

    from .ast import Span
    if isinstance(node, Span):
        return None
    if isinstance(node, str):  # the hidden local of 'if ask' is named after its position
        return _HIDDEN_RE.sub("ask#", node)
    if attrs.has(type(node)):
        return (type(node).__name__,) + tuple(
            (f.name, ast_shape(getattr(node, f.name))) for f in attrs.fields(type(node))
            if f.name not in ("span", "source"))
    if isinstance(node, (list, tuple)):
        return tuple(ast_shape(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, ast_shape(v)) for k, v in node.items()))
    return node


def format_file(path: str, *, verify: bool = True) -> tuple:
    """(the file's text, its formatted text) for the file at `path`.  With verify, a result whose
    syntax tree differs from the original's raises FormatError (nothing is written by this
    function).

    The trees compared are the parser's (Lark's: rule names, and every token's type and text;
    not their positions), the original's being the one the layout was made from: a tree equal
    to it gives an equal AST, so this is as strict as comparing ASTs, at a third of the cost."""
    from .source import read_source
    text = read_source(path)
    with no_gc():  # formatting makes objects by the million: see gc_pause.py
        new, tree = _format(normalize(text), str(path))
        if verify and new != text and not _parses_to(new, tree, str(path)):
            raise FormatError(f"{path}: formatting would change the meaning of the file (a bug in "
                              "rulespec fmt); the file is left as it is")
    return text, new


def _parses_to(text: str, tree, path: str) -> bool:
    """Whether the text parses to the tree."""
    try:
        return _same_tree(_tree(text, path), tree)
    except RulesError:
        return False


def _same_tree(a, b) -> bool:
    """Whether two Lark trees have the same rules and tokens (type and text; not positions).
    Without recursion (Lark's == recurses): a file may nest deeper than Python's stack."""
    from lark import Tree
    pairs = [(a, b)]
    while pairs:
        x, y = pairs.pop()
        if isinstance(x, Tree):
            if not isinstance(y, Tree) or x.data != y.data or len(x.children) != len(y.children):
                return False
            pairs.extend(zip(x.children, y.children))
        elif x != y:   # tokens (a Token compares its type too) or placeholders (None)
            return False
    return True
