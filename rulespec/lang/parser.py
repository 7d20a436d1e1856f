"""Text -> AST.  A Lark LALR parser and a transformer that builds ``rulespec.lang.ast`` nodes.

Syntax errors become Diagnostics with file:line:col; nothing here raises a bare
Lark exception or a traceback for bad input.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Optional, Union

import attrs
from lark import Lark, Token, Transformer_NonRecursive, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import ast as A
from .diagnostics import Diagnostic, RulesError
from .gc_pause import no_gc
from .source import decode, normalize, read_source  # noqa: F401 (this module's API before source.py)

GRAMMAR_PATH = Path(__file__).with_name("grammar.lark")

# Friendly names for pattern terminals in "expected ..." messages (keywords and
# punctuation are shown as themselves, quoted).
_TERMINAL_NAMES = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "QUANT": "a quantifier",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
    "TIES": "'ties last'", "$END": "the end of the file",
}

# How deeply statements and expressions may nest.  The checker and the
# interpreter walk the tree recursively; past this depth a file gets a clean
# error instead of a RecursionError.  No hand-written rule comes close.
MAX_DEPTH = 100

# Integer literals longer than this are rejected (Python refuses to convert
# strings of more than 4300 digits, and no card game needs such numbers).
MAX_INT_DIGITS = 18


# Clauses that a game, action or phase block may hold more than once; all others only once.
_REPEATABLE = {"require", "next", "actions"}
_CLAUSE_NAMES = {
    "label": "'label' clause", "from": "'from' clause", "mandatory": "'mandatory' clause",
    "offered": "'in' clause", "ask": "'ask' clause", "tags": "'is' clause", "resolve": "'resolve' block",
    "cancelled": "'cancelled' block", "respond": "'respond to' clause",
    "players": "'players' clause", "doc": "'doc' clause", "start": "'start' clause",
    "cards_start": "'cards start in' clause", "score": "'score' clause", "text": "'text' clause",
    "effect": "'effect' block", "enter": "'enter' block", "actor": "'actor' clause",
    "after": "'after' block", "end_when": "'end when' clause", "exit": "'exit' block",
}


class _Problem(Exception):
    """Raised inside the transformer for a problem found while building the AST."""

    def __init__(self, message: str, span: A.Span, hint=None):
        super().__init__(message)
        self.message, self.span, self.hint = message, span, hint


@functools.lru_cache(maxsize=1)
def _lark() -> Lark:
    # cache=True: Lark keeps the LALR tables it builds from the grammar in a file of the system's
    # temporary folder (keyed by the grammar's hash and these options), so loading a rules file
    # does not build them again in every process (they cost more than parsing a whole game)
    return Lark(GRAMMAR_PATH.read_text(encoding="utf-8"), parser="lalr", start=["start", "expr"],
                propagate_positions=True, maybe_placeholders=True, cache=True)


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


@v_args(meta=True)
class _ToAst(Transformer_NonRecursive):
    """Lark tree -> AST.  Non-recursive, so any nesting depth transforms without a RecursionError.

    Problems that are not syntax errors but would otherwise be lost in the AST
    (a clause given twice) are collected in ``problems``."""

    def __init__(self, path: Optional[str] = None, source: Optional[str] = None):
        super().__init__()
        self.problems: list = []
        self.path, self.source = path, source  # for the holes of strings in expressions

    def _once(self, what: str, name: str, items) -> None:
        """Report clauses that may appear only once in a block but appear again."""
        seen = set()
        for tag, _, span in items:
            if tag in _REPEATABLE:
                continue
            if tag in seen:
                self.problems.append((f"{what} '{name}' has a second {_CLAUSE_NAMES.get(tag, repr(tag))}",
                                      span, "give it once"))
            seen.add(tag)

    # ------------------------------------------------------------ expressions
    def int_lit(self, meta, c):
        return A.IntLit(_int(c[0]), _span_of_token(c[0]))

    def str_lit(self, meta, c):
        lit = _strlit(c[0])
        if self.path is not None and _TEMPLATE_RE.search(lit.value):  # "a run of {n}": a text template
            return A.TextTemplate(tuple(parse_template(lit, self.path, self.source)), lit, lit.span)
        return lit

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
        """operand (op operand)* -> one flat Chain (c alternates operands and operator tokens
        unless op, the level's only operator, is given)."""
        if len(c) == 1:
            return c[0]
        operands = list(c[::2]) if op is None else list(c)
        ops = [str(t) for t in c[1::2]] if op is None else [op] * (len(c) - 1)
        first = operands[0]
        if isinstance(first, A.Chain) and _same_level(first.ops[0], ops[0]):
            # (a + b) + c reads as a + b + c: parentheses around a left operand change nothing
            operands[:1], ops[:0] = first.operands, first.ops
        first, last = operands[0].span, operands[-1].span
        return A.Chain(tuple(operands), tuple(ops), A.Span(first.line, first.col, last.end_line, last.end_col))

    def or_op(self, meta, c):
        return self._chain(meta, c, "or")

    def and_op(self, meta, c):
        return self._chain(meta, c, "and")

    def arith(self, meta, c):
        return self._chain(meta, c)

    def compare(self, meta, c):
        if len(c) == 1:
            return c[0]
        left, op, right = c
        return A.BinOp(str(op), left, right,
                       A.Span(left.span.line, left.span.col, right.span.end_line, right.span.end_col))

    def in_op(self, meta, c):
        left, right = c
        return A.BinOp("in", left, right,
                       A.Span(left.span.line, left.span.col, right.span.end_line, right.span.end_col))

    def position(self, meta, c):
        return str(c[0])

    def range_op(self, meta, c):
        if len(c) == 1:
            return c[0]
        return A.Range(c[0], c[1], _span_of_meta(meta))

    def if_expr(self, meta, c):
        return A.IfExpr(c[0], c[1], c[2], _span_of_meta(meta))

    def let_expr(self, meta, c):
        return A.LetExpr(str(c[0]), c[1], c[2], _span_of_meta(meta))

    def quant(self, meta, c):
        kind, var, domain, where, body, ties = c
        return A.Quant(str(kind), str(var), domain, where, body, ties is not None, _span_of_meta(meta))

    # ------------------------------------------------------------ statements
    def block(self, meta, c):
        stmts = []
        for x in c:  # some statements are written as two (an 'if ask' is an 'ask' and an 'if')
            stmts.extend(x if isinstance(x, list) else [x])
        return A.Block(tuple(stmts), _span_of_meta(meta))

    def let_stmt(self, meta, c):
        return A.Let(str(c[0]), c[1], _span_of_meta(meta))

    def lvalue(self, meta, c):
        return A.LValue(str(c[0]), c[1], _span_of_meta(meta))

    def attr_lvalue(self, meta, c):
        return A.LValue(str(c[0]), None, _span_of_meta(meta), tuple(str(t) for t in c[1:]))

    def set_stmt(self, meta, c):
        return A.Assign("=", c[0], c[1], _span_of_meta(meta))

    def add_stmt(self, meta, c):
        return A.Assign("+=", c[0], c[1], _span_of_meta(meta))

    def sub_stmt(self, meta, c):
        return A.Assign("-=", c[0], c[1], _span_of_meta(meta))

    def move_stmt(self, meta, c):
        return A.Move(c[0], c[1], str(c[2]) if c[2] is not None else "top", _span_of_meta(meta), c[3])

    def deal_stmt(self, meta, c):
        return A.Deal(c[0], c[1], c[2], _span_of_meta(meta), c[3])

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(c[0], _span_of_meta(meta))

    def play_stmt(self, meta, c):
        return A.Play(c[0], c[1], c[2], _span_of_meta(meta), c[3])

    def choose_stmt(self, meta, c):
        name, chooser, optional, prompt, spec = c
        return A.Choose(str(name), chooser, optional is not None, _strlit(prompt) if prompt is not None else None,
                        spec(str(name), _span_of_meta(meta)), _span_of_meta(meta))

    def ask_stmt(self, meta, c):
        name, chooser, question = c
        span = _span_of_meta(meta)
        return A.Choose(str(name), chooser, False, _strlit(question),
                        A.ActionParam(str(name), "bool", None, None, None, None, span), span)

    def if_ask_stmt(self, meta, c):
        # 'if ask P "question" { ... } else { ... }' is an ask into a hidden local, then an if on it
        chooser, question, *rest = c
        span = _span_of_meta(meta)
        name = f"ask#{span.line}:{span.col}"
        ask = A.Choose(name, chooser, False, _strlit(question),
                       A.ActionParam(name, "bool", None, None, None, None, span), span)
        branches = [(A.Name(name, span), rest.pop(0))]
        while len(rest) >= 2:
            branches.append((rest.pop(0), rest.pop(0)))
        return [ask, A.If(tuple(branches), rest[0] if rest else None, span)]

    def let_emit_stmt(self, meta, c):
        return A.Emit(_ident(c[1]), tuple(x for x in c[2:] if x is not None), _span_of_meta(meta), str(c[0]))

    def prevent_stmt(self, meta, c):
        return A.Prevent(_span_of_meta(meta))

    # ------------------------------------------------------------ what a choice is among
    # Each returns a function (name, span) -> ActionParam: the name comes from the action
    # parameter, the 'let' of a 'choose' or the 'from' of a conversion.
    def int_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "int", c[0], c[1], None, None, span)

    def player_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "player", None, c[0], None, None, span)

    def player_or_none_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "player", None, c[0], None, None, span, nullable=True)

    def enum_spec(self, meta, c):
        if str(c[0]) == "bool":  # yes or no
            return lambda name, span: A.ActionParam(name, "bool", None, c[1], None, None, span)
        # the enum's name travels in `same` (an Ident), the kind says it is an enum choice
        return lambda name, span: A.ActionParam(name, "enum", None, c[1], None, _ident(c[0]), span)

    def card_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "card", c[0], c[1], None, None, span)

    def use_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "use", c[1], c[2], None, None, span, role=unquote(c[0]))

    def _selectors(self, name: str, span, sels_in) -> dict:
        sels = {"size": None, "same": None, "distinct": None, "wild": None, "ordered": None, "sum": None}
        for sel in sels_in:
            if sels[sel[0]] is not None:
                self.problems.append((f"parameter '{name}' has a second '{sel[0]}'", span, "give it once"))
            sels[sel[0]] = sel[1]
        return sels

    def cards_spec(self, meta, c):
        def make(name, span):
            sels = self._selectors(name, span, c[1:])
            if sels["ordered"] is not None:
                self.problems.append(("'ordered' goes with a players choice, not with cards", span, None))
            return A.ActionParam(name, "cards", c[0], None, sels["size"], sels["same"], span,
                                 sels["distinct"], sels["wild"], sum_of=sels["sum"])
        return make

    def players_spec(self, meta, c):
        def make(name, span):
            sels = self._selectors(name, span, c[1:])
            for bad in ("same", "distinct", "wild", "sum"):
                if sels[bad] is not None:
                    self.problems.append((f"'{bad}' goes with cards, not with a players choice", span, None))
            return A.ActionParam(name, "players", c[0], None, sels["size"], None, span,
                                 ordered=sels["ordered"] is not None)
        return make

    def ordered_sel(self, meta, c):
        return ("ordered", True)

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

    def announce_stmt(self, meta, c):
        return A.Announce(_strlit(c[0]), _span_of_meta(meta))

    def reveal_stmt(self, meta, c):
        return A.Reveal(c[0], True, _span_of_meta(meta))

    def conceal_stmt(self, meta, c):
        return A.Reveal(c[0], False, _span_of_meta(meta))

    # ------------------------------------------------------------ clauses (tagged tuples)
    def players_clause(self, meta, c):
        return ("players", (_int(c[0]), _int(c[1])), _span_of_meta(meta))

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

    def aparam(self, meta, c):
        return c[1](str(c[0]), _span_of_meta(meta))

    def distinct_sel(self, meta, c):
        return ("distinct", _ident(c[0]))

    def sum_sel(self, meta, c):
        return ("sum", (_ident(c[0]), c[1]))

    def wild_sel(self, meta, c):
        return ("wild", (str(c[0]), c[1]))

    def respond_clause(self, meta, c):
        return ("respond", tuple(_ident(t) for t in c), _span_of_meta(meta))

    def tags_clause(self, meta, c):
        return ("tags", tuple(_ident(t) for t in c), _span_of_meta(meta))

    def ask_clause(self, meta, c):
        return ("ask", c[0], _span_of_meta(meta))

    def resolve_clause(self, meta, c):
        return ("resolve", c[0], _span_of_meta(meta))

    def cancelled_clause(self, meta, c):
        return ("cancelled", c[0], _span_of_meta(meta))

    def mandatory_clause(self, meta, c):
        return ("mandatory", True, _span_of_meta(meta))

    def field_list(self, meta, c):
        return tuple(x for x in c if x is not None)

    def field(self, meta, c):
        return A.FieldDecl(str(c[0]), c[1], c[2], _span_of_meta(meta))

    def effect_decl(self, meta, c):
        items = list(c[2:])
        self._once("effect", str(c[0]), items)
        f = {"doc": None, "tags": (), "ask": None, "resolve": None, "cancelled": None, "mandatory": False}
        for tag, value, _ in items:
            f[tag] = value
        return A.EffectDecl(str(c[0]), f["doc"], f["tags"], f["ask"], f["resolve"], f["cancelled"],
                            _span_of_meta(meta), c[1] or (), f["mandatory"])

    def event_decl(self, meta, c):
        params = tuple(x for x in c[1:-1] if x is not None)
        return A.EventDecl(str(c[0]), params, c[-1], _span_of_meta(meta))

    def timing(self, meta, c):
        return str(c[0])

    def trigger_decl(self, meta, c):
        name, timing, event, for_var, for_expr, when, optional, prompt, body = c
        return A.TriggerDecl(str(name), _ident(event), str(for_var) if for_var is not None else None,
                             for_expr, when, body, _span_of_meta(meta), timing,
                             _strlit(prompt) if optional is not None else None)

    def _stack(self, meta, c, now: bool):
        args = {"by": None, "target": None, "with": None, "against": None}
        word = "resolve" if now else "stack"
        for tag, value in c[2:]:
            if args[tag] is not None:
                self.problems.append((f"'{word}' has a second '{tag}'", _span_of_meta(meta), "give it once"))
            args[tag] = value
        fields = c[1] or ()
        seen = set()
        for fname, _ in fields:
            if fname in seen:
                self.problems.append((f"'{word}' sets the field '{fname}' twice", _span_of_meta(meta), "give it once"))
            seen.add(fname)
        return A.StackStmt(_ident(c[0]), args["by"], args["target"], args["with"], args["against"],
                           _span_of_meta(meta), tuple(fields), now)

    def stack_stmt(self, meta, c):
        return self._stack(meta, c, False)

    def resolve_stmt(self, meta, c):
        return self._stack(meta, c, True)

    def stack_fields(self, meta, c):
        return tuple(x for x in c if x is not None)

    def named_arg(self, meta, c):
        return (str(c[0]), c[1])

    # ------------------------------------------------------------ conversions, rule values, abilities
    def from_clause(self, meta, c):
        return ("from", c[1](str(c[0]), _span_of_meta(meta)), _span_of_meta(meta))

    def property_clause(self, meta, c):
        return ("property", (str(c[0]), c[1]), _span_of_meta(meta))

    def conversion_decl(self, meta, c):
        items = list(c[2:])
        self._once("conversion", str(c[0]), [i for i in items if i[0] != "property"])
        f = {"doc": None, "text": None, "from": None}
        requires, props = [], []
        for tag, value, _ in items:
            if tag == "require":
                requires.append(value)
            elif tag == "property":
                props.append(value)
            else:
                f[tag] = value
        return A.ConversionDecl(str(c[0]), unquote(c[1]), f["doc"], f["text"], f["from"], tuple(requires),
                                tuple(props), _span_of_meta(meta))

    def rule_decl(self, meta, c):
        params = tuple(x for x in c[1:-4] if x is not None)
        return A.RuleDecl(str(c[0]), params, c[-4], c[-3], _ident(c[-2]), c[-1], _span_of_meta(meta))

    def modify_decl(self, meta, c):
        args = tuple(str(t) for t in c[1:-2] if t is not None)
        return A.ModifyDecl(_ident(c[0]), args, c[-2], c[-1], _span_of_meta(meta))

    def offered_clause(self, meta, c):
        return ("offered", tuple(_ident(t) for t in c), _span_of_meta(meta))

    def label_clause(self, meta, c):
        return ("label", A.ScoreClause(str(c[0]), c[1], _span_of_meta(meta)), _span_of_meta(meta))

    def limit_clause(self, meta, c):
        doc = unquote(c[3]) if c[3] is not None else None
        limit = A.Limit(_int(c[0]), _ident(c[1]), c[2], doc, _span_of_meta(meta))
        return ("limit", limit, _span_of_meta(meta))

    def card_copy(self, meta, c):
        return ("copy", tuple(x for x in c if isinstance(x, A.CardField)), _span_of_meta(meta))

    def ability_group(self, meta, c):
        zones = tuple(_ident(t) for t in c if isinstance(t, Token))
        rest = [x for x in c if not isinstance(x, Token)]
        when, items = rest[0], tuple(rest[1:])
        return A.AbilityGroup(zones, when, items, _span_of_meta(meta))

    def by_arg(self, meta, c):
        return ("by", c[0])

    def target_arg(self, meta, c):
        return ("target", c[0])

    def with_arg(self, meta, c):
        return ("with", c[0])

    def against_arg(self, meta, c):
        return ("against", c[0])

    def look_stmt(self, meta, c):
        return A.Look(c[0], c[1], _span_of_meta(meta))

    def cancel_stmt(self, meta, c):
        return A.Cancel(c[0], _span_of_meta(meta))

    def emit_stmt(self, meta, c):
        return A.Emit(_ident(c[0]), tuple(x for x in c[1:] if x is not None), _span_of_meta(meta))

    def size_sel(self, meta, c):
        return ("size", c[0])

    def same_sel(self, meta, c):
        return ("same", _ident(c[0]))

    # ------------------------------------------------------------ declarations
    def game_decl(self, meta, c):
        self._once("the game", unquote(c[0]), c[1:])
        fields = {"players": (1, 1), "doc": None, "start": None, "cards_start": None, "score": None, "label": None,
                  "limit": None}
        for tag, value, _ in c[1:]:
            fields[tag] = value
        lo, hi = fields["players"]
        return A.GameDecl(unquote(c[0]), lo, hi, fields["doc"], fields["start"], fields["cards_start"],
                          fields["score"], _span_of_meta(meta), fields["label"], fields["limit"])

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
        copies = tuple(x[1] for x in c[1:] if isinstance(x, tuple) and x[0] == "copy")
        abilities = tuple(x for x in c[1:] if isinstance(x, A.AbilityGroup))
        return A.CardDecl(unquote(c[0]), fields, doc, _span_of_meta(meta), copies, abilities)

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
        self._once("action", str(c[0]), items)
        doc = text = effect = None
        requires = []
        respond = offered = ()
        for tag, value, _ in items:
            if tag == "respond":
                respond = value
            elif tag == "offered":
                offered = value
            if tag == "doc":
                doc = value
            elif tag == "text":
                text = value
            elif tag == "require":
                requires.append(value)
            elif tag == "effect":
                effect = value
        return A.ActionDecl(str(c[0]), params, doc, text, tuple(requires), effect, _span_of_meta(meta), respond,
                            offered)

    def phase_decl(self, meta, c):
        f = {"doc": None, "enter": None, "actor": None, "actions": (), "after": None,
             "end_when": None, "exit": None}
        self._once("phase", str(c[0]), c[1:])
        nexts, requires = [], []
        for tag, value, _ in c[1:]:
            if tag == "next":
                nexts.append(value)
            elif tag == "require":
                requires.append(value)
            elif tag == "actions":
                f["actions"] = f["actions"] + value
            else:
                f[tag] = value
        return A.PhaseDecl(str(c[0]), f["doc"], f["enter"], f["actor"], f["actions"], f["after"],
                           f["end_when"], f["exit"], tuple(nexts), _span_of_meta(meta), tuple(requires))

    def start(self, meta, c):
        return list(c)


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


def _same_level(op: str, other: str) -> bool:
    return any(op in level and other in level for level in A.CHAIN_LEVELS)


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
        return Diagnostic("error", f"unexpected character {ch!r}", path, A.Span(line, col, line, col + 1), hint)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        return Diagnostic("error", f"unexpected end of {what}", path, _end_span(text),
                          hint=f"expected {_describe_expected(exc.expected)}" if exc.expected else None)
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        return Diagnostic("error", f"unexpected {str(tok)!r}", path, _span_of_token(tok),
                          hint=f"expected {_describe_expected(exc.expected)}" if exc.expected else None)
    return Diagnostic("error", "syntax error", path, A.Span(line, col, line, col + 1))


def _child_nodes(n):
    for f in attrs.fields(type(n)):
        v = getattr(n, f.name)
        if isinstance(v, tuple):
            for x in v:
                if isinstance(x, tuple):  # the (cond, block) branches of an If
                    yield from (y for y in x if attrs.has(type(y)))
                elif attrs.has(type(x)):
                    yield x
        elif attrs.has(type(v)) and not isinstance(v, A.Span):
            yield v


def _too_deep(roots) -> object:
    """The first node nested more than MAX_DEPTH levels deep, or None."""
    stack = [(r, 1) for r in roots if attrs.has(type(r))]
    while stack:
        n, depth = stack.pop()
        if depth > MAX_DEPTH:
            return n
        stack.extend((c, depth + 1) for c in _child_nodes(n))
    return None


def _too_deep_error(n, path: str) -> Diagnostic:
    return Diagnostic("error", f"this nests more than {MAX_DEPTH} levels deep", path, n.span,
                      "split it up with 'let' or a 'def'")


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
            raise RulesError([Diagnostic("error", p.message, path, p.span, p.hint)], text) from None
        raise exc.orig_exc from None
    except RecursionError:
        raise RulesError([Diagnostic("error", f"the {what} nests too deeply to parse", path, A.NOWHERE)],
                         text) from None
    problems = [Diagnostic("error", msg, path, span, hint) for msg, span, hint in builder.problems]
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


_TEMPLATE_RE = re.compile(r"\{([^{}]*)\}")


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
