"""Text -> AST.  A Lark LALR parser and a transformer that builds ``rulespec.ast`` nodes.

Syntax errors become Diagnostics with file:line:col; nothing here raises a bare
Lark exception or a traceback for bad input.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Union

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from . import ast as A
from .diagnostics import Diagnostic, RulesError

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# Friendly names for terminals in "expected ..." messages.
_TERMINAL_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "LBRACE": "'{'", "RBRACE": "'}'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','",
    "EQUAL": "'='", "DOT": "'.'", "QUANT": "a quantifier", "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'", "$END": "the end of the file",
}


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", start=["start", "expr"],
                propagate_positions=True, maybe_placeholders=True)


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


def _shift(span: A.Span, line: int, col: int) -> A.Span:
    """Move a span parsed from a string fragment to where the fragment sits in the file."""
    if span.line == 1:
        return A.Span(line, col + span.col - 1, line, col + span.end_col - 1)
    return A.Span(line + span.line - 1, span.col, line + span.end_line - 1, span.end_col)


@v_args(meta=True)
class _ToAst(Transformer):
    # ------------------------------------------------------------ expressions
    def int_lit(self, meta, c):
        return A.IntLit(int(c[0]), _span_of_token(c[0]))

    def str_lit(self, meta, c):
        return _strlit(c[0])

    def true_lit(self, meta, c):
        return A.BoolLit(True, _span_of_meta(meta))

    def false_lit(self, meta, c):
        return A.BoolLit(False, _span_of_meta(meta))

    def none_lit(self, meta, c):
        return A.NoneLit(_span_of_meta(meta))

    def name(self, meta, c):
        return A.Name(str(c[0]), _span_of_token(c[0]))

    def attr(self, meta, c):
        return A.Attr(c[0], str(c[1]), _span_of_meta(meta))

    def index(self, meta, c):
        return A.Index(c[0], c[1], _span_of_meta(meta))

    def call(self, meta, c):
        return A.Call(str(c[0]), tuple(x for x in c[1:] if x is not None), _span_of_meta(meta))

    def list_lit(self, meta, c):
        return A.ListLit(tuple(x for x in c if x is not None), _span_of_meta(meta))

    def neg(self, meta, c):
        return A.Unary("-", c[0], _span_of_meta(meta))

    def not_op(self, meta, c):
        return A.Unary("not", c[0], _span_of_meta(meta))

    def _chain(self, meta, c, op=None):
        if len(c) == 1:
            return c[0]
        left = c[0]
        i = 1
        while i < len(c):
            if op is None:
                o, right = str(c[i]), c[i + 1]
                i += 2
            else:
                o, right = op, c[i]
                i += 1
            span = A.Span(left.span.line, left.span.col, right.span.end_line, right.span.end_col)
            left = A.BinOp(o, left, right, span)
        return left

    def or_op(self, meta, c):
        return self._chain(meta, c, "or")

    def and_op(self, meta, c):
        return self._chain(meta, c, "and")

    def arith(self, meta, c):
        return self._chain(meta, c)

    def compare(self, meta, c):
        return self._chain(meta, c)

    def range_op(self, meta, c):
        if len(c) == 1:
            return c[0]
        return A.Range(c[0], c[1], _span_of_meta(meta))

    def if_expr(self, meta, c):
        return A.IfExpr(c[0], c[1], c[2], _span_of_meta(meta))

    def quant(self, meta, c):
        kind, var, domain, where, body, ties = c
        return A.Quant(str(kind), str(var), domain, where, body, ties is not None, _span_of_meta(meta))

    # ------------------------------------------------------------ statements
    def block(self, meta, c):
        return A.Block(tuple(c), _span_of_meta(meta))

    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], _span_of_meta(meta))

    def lvalue(self, meta, c):
        return A.LValue(str(c[0]), c[1], _span_of_meta(meta))

    def set_stmt(self, meta, c):
        return A.Assign("=", c[0], c[1], _span_of_meta(meta))

    def add_stmt(self, meta, c):
        return A.Assign("+=", c[0], c[1], _span_of_meta(meta))

    def sub_stmt(self, meta, c):
        return A.Assign("-=", c[0], c[1], _span_of_meta(meta))

    def move_stmt(self, meta, c):
        return A.Move(c[0], c[1], str(c[2]) if c[2] is not None else "top", _span_of_meta(meta))

    def deal_stmt(self, meta, c):
        return A.Deal(c[0], c[1], c[2], _span_of_meta(meta))

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], _span_of_meta(meta))

    def play_stmt(self, meta, c):
        return A.Play(c[0], c[1], c[2], _span_of_meta(meta))

    def if_stmt(self, meta, c):
        branches = []
        items = list(c)
        while len(items) >= 2:
            branches.append((items.pop(0), items.pop(0)))
        else_ = items[0] if items else None
        return A.If(tuple(branches), else_, _span_of_meta(meta))

    def for_stmt(self, meta, c):
        return A.For(str(c[0]), c[1], c[2], _span_of_meta(meta))

    def end_game_stmt(self, meta, c):
        return A.EndGame(c[0], _span_of_meta(meta))

    def log_stmt(self, meta, c):
        return A.Log(_strlit(c[0]), _span_of_meta(meta))

    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], True, _span_of_meta(meta))

    def conceal_stmt(self, meta, c):
        return A.Reveal(c[0], False, _span_of_meta(meta))

    # ------------------------------------------------------------ clauses (tagged tuples)
    def players_clause(self, meta, c):
        return ("players", (int(c[0]), int(c[1])), _span_of_meta(meta))

    def doc_clause(self, meta, c):
        return ("doc", unquote(c[0]), _span_of_meta(meta))

    def doc(self, meta, c):
        return unquote(c[0])

    def start_clause(self, meta, c):
        return ("start", _ident(c[0]), _span_of_meta(meta))

    def cards_start_clause(self, meta, c):
        return ("cards_start", _ident(c[0]), _span_of_meta(meta))

    def score_clause(self, meta, c):
        return ("score", A.ScoreClause(str(c[0]), c[1], _span_of_meta(meta)), _span_of_meta(meta))

    def text_clause(self, meta, c):
        return ("text", _strlit(c[0]), _span_of_meta(meta))

    def require_clause(self, meta, c):
        msg = unquote(c[1]) if c[1] is not None else None
        return ("require", A.Require(c[0], msg, _span_of_meta(meta)), _span_of_meta(meta))

    def effect_clause(self, meta, c):
        return ("effect", c[0], _span_of_meta(meta))

    def enter_clause(self, meta, c):
        return ("enter", c[0], _span_of_meta(meta))

    def actor_clause(self, meta, c):
        return ("actor", c[0], _span_of_meta(meta))

    def actions_clause(self, meta, c):
        return ("actions", tuple(_ident(t) for t in c), _span_of_meta(meta))

    def after_clause(self, meta, c):
        return ("after", c[0], _span_of_meta(meta))

    def end_when_clause(self, meta, c):
        return ("end_when", c[0], _span_of_meta(meta))

    def exit_clause(self, meta, c):
        return ("exit", c[0], _span_of_meta(meta))

    def next_clause(self, meta, c):
        return ("next", A.NextClause(_ident(c[0]), c[1], _span_of_meta(meta)), _span_of_meta(meta))

    # ------------------------------------------------------------ types and params
    def simple_type(self, meta, c):
        return A.TypeRef(str(c[0]), _span_of_token(c[0]))

    def list_type(self, meta, c):
        return A.TypeRef("list", _span_of_meta(meta), c[0])

    def per_player(self, meta, c):
        return True

    def param(self, meta, c):
        return A.Param(str(c[0]), c[1], _span_of_meta(meta))

    def int_param(self, meta, c):
        return A.ActionParam(str(c[0]), "int", c[1], None, None, None, _span_of_meta(meta))

    def player_param(self, meta, c):
        return A.ActionParam(str(c[0]), "player", None, c[1], None, None, _span_of_meta(meta))

    def card_param(self, meta, c):
        return A.ActionParam(str(c[0]), "card", c[1], c[2], None, None, _span_of_meta(meta))

    def cards_param(self, meta, c):
        size = same = None
        for sel in c[2:]:
            if sel[0] == "size":
                size = sel[1]
            else:
                same = sel[1]
        return A.ActionParam(str(c[0]), "cards", c[1], None, size, same, _span_of_meta(meta))

    def size_sel(self, meta, c):
        return ("size", c[0])

    def same_sel(self, meta, c):
        return ("same", _ident(c[0]))

    # ------------------------------------------------------------ declarations
    def game_decl(self, meta, c):
        fields = {"players": (1, 1), "doc": None, "start": None, "cards_start": None, "score": None}
        for tag, value, _ in c[1:]:
            fields[tag] = value
        lo, hi = fields["players"]
        return A.GameDecl(unquote(c[0]), lo, hi, fields["doc"], fields["start"], fields["cards_start"],
                          fields["score"], _span_of_meta(meta))

    def enum_decl(self, meta, c):
        doc = c[-1] if isinstance(c[-1], str) and not isinstance(c[-1], Token) else None
        members = [x for x in c[1:] if isinstance(x, Token)]
        return A.EnumDecl(str(c[0]), tuple(_ident(t) for t in members), doc, _span_of_meta(meta))

    def option_decl(self, meta, c):
        return A.OptionDecl(str(c[0]), c[1], c[2], c[3], _span_of_meta(meta))

    def property_decl(self, meta, c):
        return A.PropertyDecl(str(c[0]), c[1], c[2], _span_of_meta(meta))

    def card_field(self, meta, c):
        return A.CardField(str(c[0]), c[1], _span_of_meta(meta))

    def card_decl(self, meta, c):
        doc = c[-1] if isinstance(c[-1], str) and not isinstance(c[-1], Token) else None
        fields = tuple(x for x in c[1:] if isinstance(x, A.CardField))
        return A.CardDecl(unquote(c[0]), fields, doc, _span_of_meta(meta))

    def zone_decl(self, meta, c):
        doc = c[-1] if isinstance(c[-1], str) and not isinstance(c[-1], Token) else None
        per_player = c[1] is True
        attrs_ = tuple(_ident(t) for t in c[2:] if isinstance(t, Token))
        return A.ZoneDecl(str(c[0]), per_player, attrs_, doc, _span_of_meta(meta))

    def var_decl(self, meta, c):
        return A.VarDecl(str(c[0]), c[1] is True, c[2], c[3], c[4], _span_of_meta(meta))

    def def_decl(self, meta, c):
        params = tuple(x for x in c[1:-3] if x is not None)
        return A.DefDecl(str(c[0]), params, c[-3], c[-2], c[-1], _span_of_meta(meta))

    def invariant_decl(self, meta, c):
        at = _ident(c[1]) if c[1] is not None else None
        return A.InvariantDecl(unquote(c[0]), at, c[2], _span_of_meta(meta))

    def action_decl(self, meta, c):
        params = tuple(x for x in c if isinstance(x, A.ActionParam))
        items = [x for x in c if isinstance(x, tuple)]
        doc = text = effect = None
        requires = []
        for tag, value, _ in items:
            if tag == "doc":
                doc = value
            elif tag == "text":
                text = value
            elif tag == "require":
                requires.append(value)
            elif tag == "effect":
                effect = value
        return A.ActionDecl(str(c[0]), params, doc, text, tuple(requires), effect, _span_of_meta(meta))

    def phase_decl(self, meta, c):
        f = {"doc": None, "enter": None, "actor": None, "actions": (), "after": None,
             "end_when": None, "exit": None}
        nexts = []
        for tag, value, _ in c[1:]:
            if tag == "next":
                nexts.append(value)
            elif tag == "actions":
                f["actions"] = f["actions"] + value
            else:
                f[tag] = value
        return A.PhaseDecl(str(c[0]), f["doc"], f["enter"], f["actor"], f["actions"], f["after"],
                           f["end_when"], f["exit"], tuple(nexts), _span_of_meta(meta))

    def start(self, meta, c):
        return list(c)


def _describe_expected(expected) -> str:
    names = sorted({_TERMINAL_NAMES.get(e, None) or (f"'{e.lower()}'" if e.isupper() else e) for e in expected})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def _keyword_of(name: str) -> str:
    # Lark names anonymous keyword terminals after the keyword in upper case.
    return name


def _syntax_error(exc: UnexpectedInput, path: str, text: str) -> Diagnostic:
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if 0 <= exc.pos_in_stream < len(text) else "?"
        msg = f"unexpected character {ch!r}"
        return Diagnostic("error", msg, path, A.Span(line, col, line, col + 1))
    if isinstance(exc, UnexpectedEOF):
        lines = text.splitlines() or [""]
        line = len(lines)
        col = len(lines[-1]) + 1
        return Diagnostic("error", "unexpected end of file", path, A.Span(line, col, line, col + 1),
                          hint=f"expected {_describe_expected(exc.expected)}")
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            line = len(lines)
            col = len(lines[-1]) + 1
            return Diagnostic("error", "unexpected end of file", path, A.Span(line, col, line, col + 1),
                              hint=f"expected {_describe_expected(exc.expected)}")
        msg = f"unexpected {str(tok)!r}"
        return Diagnostic("error", msg, path, _span_of_token(tok),
                          hint=f"expected {_describe_expected(exc.expected)}")
    return Diagnostic("error", "syntax error", path, A.Span(line, col, line, col + 1))


def decode(data: bytes, path: str) -> str:
    """Bytes -> text, or a RulesError for binary or non-UTF-8 input."""
    if b"\x00" in data:
        raise RulesError([Diagnostic("error", "this is a binary file, not a rules file", path, A.NOWHERE)])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        col = e.start - (before.rfind(b"\n") + 1) + 1
        raise RulesError([Diagnostic("error", "the file is not valid UTF-8 text", path,
                                     A.Span(line, col, line, col + 1))])


def parse_text(text: str, path: str = "<string>") -> A.RulesFile:
    try:
        tree = _lark().parse(text, start="start")
    except UnexpectedInput as exc:
        raise RulesError([_syntax_error(exc, path, text)], text) from None
    except RecursionError:
        raise RulesError([Diagnostic("error", "the file nests too deeply to parse", path, A.NOWHERE)], text) from None
    decls = _ToAst().transform(tree)
    return A.RulesFile(path, text, tuple(decls), A.NOWHERE)


def parse_file(path: Union[str, Path]) -> A.RulesFile:
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise RulesError([Diagnostic("error", "is a directory, not a rules file", str(path), A.NOWHERE)]) from None
    except FileNotFoundError:
        raise RulesError([Diagnostic("error", "no such file", str(path), A.NOWHERE)]) from None
    except OSError as e:
        raise RulesError([Diagnostic("error", f"cannot read the file: {e.strerror}", str(path), A.NOWHERE)]) from None
    return parse_text(decode(data, str(path)), str(path))


_TEMPLATE_RE = re.compile(r"\{([^{}]*)\}")


def parse_template(lit: A.StrLit, path: str) -> list:
    """Split a string with ``{expr}`` holes into text pieces and expressions."""
    parts: list = []
    pos = 0
    value = lit.value
    for m in _TEMPLATE_RE.finditer(value):
        if m.start() > pos:
            parts.append(value[pos:m.start()])
        src = m.group(1)
        col = lit.span.col + 1 + m.start(1)  # +1 for the opening quote
        try:
            tree = _lark().parse(src, start="expr")
        except UnexpectedInput as exc:
            d = _syntax_error(exc, path, src)
            raise RulesError([Diagnostic("error", f"in template: {d.message}", path,
                                         _shift(d.span, lit.span.line, col), d.hint)]) from None
        expr = _ToAst().transform(tree)
        parts.append(_reposition(expr, lit.span.line, col))
        pos = m.end()
    if pos < len(value):
        parts.append(value[pos:])
    return parts


def _reposition(e, line, col):
    """Re-home the spans of an expression parsed from a template fragment."""
    if isinstance(e, A.Expr) or isinstance(e, (A.Ident,)):
        changes = {}
        for f in attrs.fields(type(e)):
            v = getattr(e, f.name)
            if f.name == "span":
                changes["span"] = _shift(v, line, col)
            elif isinstance(v, (A.Expr,)):
                changes[f.name] = _reposition(v, line, col)
            elif isinstance(v, tuple):
                changes[f.name] = tuple(_reposition(x, line, col) if isinstance(x, A.Expr) else x for x in v)
        return attrs.evolve(e, **changes)
    return e


import attrs  # noqa: E402  (used by _reposition)
