"""The abstract syntax tree of a rules file.

Plain, frozen attrs classes; every node keeps the span of source it came from so
that the checker can point at it.  Nodes compare by identity (``eq=False``): the
checker records facts about a node (its type, what a name refers to) in
dictionaries keyed by the node itself.
"""
from __future__ import annotations

from typing import Optional

import attrs


@attrs.frozen
class Span:
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


NOWHERE = Span(1, 1, 1, 1)


def node(cls):
    return attrs.frozen(eq=False)(cls)


@node
class Ident:
    name: str
    span: Span


# ---------------------------------------------------------------- types
@node
class TypeRef:
    name: str
    span: Span
    elem: Optional["TypeRef"] = None  # for list[...]

    def __str__(self) -> str:
        return f"list[{self.elem}]" if self.name == "list" else self.name


# ---------------------------------------------------------------- expressions
class Expr:
    span: Span


@node
class IntLit(Expr):
    value: int
    span: Span


@node
class StrLit(Expr):
    value: str
    span: Span


@node
class BoolLit(Expr):
    value: bool
    span: Span


@node
class NoneLit(Expr):
    span: Span


@node
class Name(Expr):
    name: str
    span: Span


@node
class Attr(Expr):
    obj: Expr
    name: str
    span: Span


@node
class Index(Expr):
    obj: Expr
    index: Expr
    span: Span


@node
class Call(Expr):
    func: str
    args: tuple
    span: Span


@node
class ListLit(Expr):
    items: tuple
    span: Span


@node
class Unary(Expr):
    op: str  # "-" or "not"
    operand: Expr
    span: Span


@node
class BinOp(Expr):
    op: str  # + - * / % == != < <= > >= in and or
    left: Expr
    right: Expr
    span: Span


@node
class Range(Expr):
    lo: Expr
    hi: Expr
    span: Span


@node
class IfExpr(Expr):
    cond: Expr
    then: Expr
    else_: Expr
    span: Span


@node
class Quant(Expr):
    """``any|all|count|sum|max|min|first|collect|argmax|argmin x in D [where C] [: E] [ties last]``"""
    kind: str
    var: str
    domain: Expr
    where: Optional[Expr]
    body: Optional[Expr]
    ties_last: bool
    span: Span


# ---------------------------------------------------------------- statements
class Stmt:
    span: Span


@node
class Block:
    stmts: tuple
    span: Span


@node
class Let(Stmt):
    name: str
    value: Expr
    span: Span


@node
class LValue:
    name: str
    index: Optional[Expr]
    span: Span


@node
class Assign(Stmt):
    op: str  # "=", "+=", "-="
    target: LValue
    value: Expr
    span: Span


@node
class Move(Stmt):
    cards: Expr
    dest: Expr
    position: str  # "top" | "bottom"
    span: Span


@node
class Deal(Stmt):
    count: Expr
    source: Expr
    dest: Expr
    span: Span


@node
class Shuffle(Stmt):
    zone: Expr
    span: Span


@node
class Play(Stmt):
    cards: Expr
    dest: Expr
    by: Optional[Expr]
    span: Span


@node
class If(Stmt):
    branches: tuple  # ((cond, Block), ...)
    else_: Optional[Block]
    span: Span


@node
class For(Stmt):
    var: str
    iterable: Expr
    body: Block
    span: Span


@node
class EndGame(Stmt):
    winners: Optional[Expr]
    span: Span


@node
class Log(Stmt):
    template: StrLit
    span: Span


@node
class Reveal(Stmt):
    zone: Expr
    reveal: bool  # False for conceal
    span: Span


@node
class StackStmt(Stmt):
    """``stack EFFECT [by P] [target P] [with CARDS] [against ENTRY]``: put an effect on the response stack."""
    effect: Ident
    by: Optional[Expr]
    target: Optional[Expr]
    with_: Optional[Expr]
    against: Optional[Expr]
    span: Span


@node
class Look(Stmt):
    """``look CARDS [by PLAYER]``: one player sees the faces of some cards (nobody else does)."""
    cards: Expr
    by: Optional[Expr]
    span: Span


@node
class Cancel(Stmt):
    entry: Expr
    span: Span


@node
class Emit(Stmt):
    event: Ident
    args: tuple
    span: Span


# ---------------------------------------------------------------- declarations
@node
class ScoreClause:
    var: str
    expr: Expr
    span: Span


@node
class GameDecl:
    name: str
    min_players: int
    max_players: int
    doc: Optional[str]
    start: Optional[Ident]
    cards_start: Optional[Ident]
    score: Optional[ScoreClause]
    span: Span


@node
class EnumDecl:
    name: str
    members: tuple  # of Ident
    doc: Optional[str]
    span: Span


@node
class OptionDecl:
    name: str
    type: TypeRef
    default: Expr
    doc: Optional[str]
    span: Span


@node
class PropertyDecl:
    name: str
    type: TypeRef
    doc: Optional[str]
    span: Span


@node
class CardField:
    name: str
    value: Expr
    span: Span


@node
class CardDecl:
    name: str
    fields: tuple  # of CardField
    doc: Optional[str]
    span: Span


@node
class ZoneDecl:
    name: str
    per_player: bool
    attrs: tuple  # of Ident
    doc: Optional[str]
    span: Span


@node
class VarDecl:
    name: str
    per_player: bool
    type: TypeRef
    default: Optional[Expr]
    doc: Optional[str]
    span: Span


@node
class Param:
    name: str
    type: TypeRef
    span: Span


@node
class DefDecl:
    name: str
    params: tuple
    rtype: TypeRef
    body: Expr
    doc: Optional[str]
    span: Span


@node
class InvariantDecl:
    text: str
    at: Optional[Ident]
    expr: Expr
    span: Span


@node
class ActionParam:
    """One choice an action asks for.

    kind is "int" (domain: a range), "player" (cond), "enum" (same: the enum's name,
    cond), "card" (domain: a zone or card list, cond) or "cards" (domain, size, same)."""
    name: str
    kind: str
    domain: Optional[Expr]
    cond: Optional[Expr]
    size: Optional[Expr]
    same: Optional[Ident]
    span: Span
    distinct: Optional[Ident] = None   # every card a different value of this property
    wild: Optional[tuple] = None       # (variable name, condition): cards that may join any 'same' group


@node
class Require:
    cond: Expr
    message: Optional[str]
    span: Span


@node
class ActionDecl:
    name: str
    params: tuple
    doc: Optional[str]
    text: Optional[StrLit]
    requires: tuple
    effect: Optional[Block]
    span: Span
    respond_to: tuple = ()  # of Ident: effect names or tags this response answers (empty: not a response)


@node
class NextClause:
    target: Ident
    cond: Optional[Expr]
    span: Span


@node
class PhaseDecl:
    name: str
    doc: Optional[str]
    enter: Optional[Block]
    actor: Optional[Expr]
    actions: tuple  # of Ident
    after: Optional[Block]
    end_when: Optional[Expr]
    exit: Optional[Block]
    nexts: tuple
    span: Span


@node
class RulesFile:
    path: str
    source: str
    decls: tuple
    span: Span


@node
class EffectDecl:
    """An effect that goes on the response stack and resolves last-in, first-out."""
    name: str
    doc: Optional[str]
    tags: tuple  # of Ident
    ask: Optional[Expr]
    resolve: Optional[Block]
    cancelled: Optional[Block]
    span: Span


@node
class EventDecl:
    name: str
    params: tuple
    doc: Optional[str]
    span: Span


@node
class TriggerDecl:
    name: str
    event: Ident
    for_var: Optional[str]
    for_expr: Optional[Expr]
    when: Optional[Expr]
    body: Block
    span: Span
