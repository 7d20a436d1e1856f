"""The transformer's expressions: Lark subtrees of grammar.lark's expression rules -> AST nodes.

A chain of one level's operators becomes one flat Chain, so a long sum or 'and' does not nest.
A string with {holes} becomes a TextTemplate; its holes are parsed by the parser's
parse_template (reached through ``_template_parts``, which the composed transformer in
parser.py provides, so this module does not import the parser).
"""
from __future__ import annotations

import re

from lark import Transformer_NonRecursive, v_args

from . import ast as A
from .to_ast_leaves import _int, _span_of_meta, _span_of_token, _strlit

_TEMPLATE_RE = re.compile(r"\{([^{}]*)\}")


def _same_level(op: str, other: str) -> bool:
    return any(op in level and other in level for level in A.CHAIN_LEVELS)


@v_args(meta=True)
class ExpressionsToAst(Transformer_NonRecursive):
    """The expression rules; a part of parser._ToAst."""

    def int_lit(self, meta, c):
        return A.IntLit(_int(c[0]), _span_of_token(c[0]))

    def str_lit(self, meta, c):
        lit = _strlit(c[0])
        if self.path is not None and _TEMPLATE_RE.search(lit.value):  # "a run of {n}": a text template
            return A.TextTemplate(tuple(self._template_parts(lit)), lit, lit.span)
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

    def power_op(self, meta, c):
        base, exponent = c
        return A.BinOp("^", base, exponent, _span_of_meta(meta))  # (a bracketed base's brackets included)

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
