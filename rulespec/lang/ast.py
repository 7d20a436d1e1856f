"""The abstract syntax tree of a rules file.

Plain, frozen attrs classes; every node keeps the span of source it came from so
that the checker can point at it.  Nodes compare by identity (``eq=False``): the
checker records facts about a node (its type, what a name refers to) in
dictionaries keyed by the node itself.  The classes keep their fields in a ``__dict__``
rather than in slots: pickle then rebuilds a node without calling any Python code, which
makes reading a model back from the model cache (tens of thousands of nodes) about twice as fast.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Optional

import attrs


class Span(tuple):
    """Where a node is in the source: line, col, end_line, end_col (from 1; the end is just past it).

    A tuple (compared and hashed as one), so that pickle rebuilds the ~25,000 spans of a large
    file with tuple.__new__, in C, rather than with Python code."""
    __slots__ = ()

    def __new__(cls, line: int, col: int, end_line: int, end_col: int):
        return tuple.__new__(cls, (line, col, end_line, end_col))

    line = property(itemgetter(0))
    col = property(itemgetter(1))
    end_line = property(itemgetter(2))
    end_col = property(itemgetter(3))

    def __reduce__(self):
        return tuple.__new__, (Span, tuple(self))

    def __getnewargs__(self):
        return tuple(self)

    def __repr__(self) -> str:
        return f"Span(line={self[0]}, col={self[1]}, end_line={self[2]}, end_col={self[3]})"

    def __str__(self) -> str:
        return f"{self[0]}:{self[1]}"


NOWHERE = Span(1, 1, 1, 1)


def node(cls):
    return attrs.frozen(eq=False, slots=False)(cls)


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
    op: str  # == != < <= > >= in (they never chain: ``a < b < c`` is a syntax error), or ^ (a power)
    left: Expr
    right: Expr
    span: Span


# The operators of each precedence level that chains from the left: ``a - b + c`` is (a - b) + c.
CHAIN_LEVELS = ({"or"}, {"and"}, {"+", "-"}, {"*", "/", "%"})


@node
class Chain(Expr):
    """Operands joined by the operators of one level, read from the left: ``a + b - c``,
    ``a * b / c``, ``a and b and c``.  One flat node rather than nested binary ones, so that a
    sum of a thousand terms nests one level deep for every walk over the tree (the nesting limit,
    the checker, the English, the code generator, pickling a model)."""
    operands: tuple  # of Expr, at least two
    ops: tuple       # of str, one between each two operands
    span: Span

    def prefix_span(self, k: int) -> Span:
        """The span of the first k operands: the left operand of the k-th operator."""
        first, last = self.operands[0].span, self.operands[k - 1].span
        return Span(first.line, first.col, last.end_line, last.end_col)


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
class TextTemplate(Expr):
    """A string with {expr} holes where an expression is expected (an argument, a value):
    ``"a run of {n}"``.  parts: the text pieces (str) and the holes' expressions, in order."""
    parts: tuple
    lit: StrLit
    span: Span


@node
class LetExpr(Expr):
    """``let x = VALUE: BODY`` -- BODY with x standing for VALUE (worked out once)."""
    var: str
    value: Expr
    body: Expr
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
    """What an assignment writes: a variable, ``var[player]``, or a field reached from a name
    (``this.n``, ``stack_top.target``, ``r.amount``: ``path`` holds the field names)."""
    name: str
    index: Optional[Expr]
    span: Span
    path: tuple = ()


@node
class Assign(Stmt):
    op: str  # "=", "+=", "-=", "*=", "/="
    target: LValue
    value: Expr
    span: Span


@node
class Move(Stmt):
    cards: Expr
    dest: Expr
    position: str  # "top" | "bottom"
    span: Span
    cause: Optional[Expr] = None  # the 'cause' of the built-in 'moved' event (default "move")


@node
class Deal(Stmt):
    count: Expr
    source: Expr
    dest: Expr
    span: Span
    cause: Optional[Expr] = None


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
    cause: Optional[Expr] = None


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
class Announce(Stmt):
    """A public statement that may depend on cards some players cannot see ("the challenged
    hand held a red card"): shown to everyone, and the secrecy check treats it as part of the
    public record (a re-deal that would announce something else is dropped, not a leak)."""
    template: StrLit
    span: Span


@node
class Reveal(Stmt):
    zone: Expr
    reveal: bool  # False for conceal
    span: Span


@node
class StackStmt(Stmt):
    """``stack EFFECT[(field = value, ...)] [by P] [target P] [with CARDS] [against ENTRY]``: put
    an effect on the response stack.  ``resolve EFFECT ...`` (now=True) also runs its window
    and resolution (and everything stacked above it) before the block goes on."""
    effect: Ident
    by: Optional[Expr]
    target: Optional[Expr]
    with_: Optional[Expr]
    against: Optional[Expr]
    span: Span
    fields: tuple = ()   # ((field name, Expr), ...)
    now: bool = False


@node
class Look(Stmt):
    """``look CARDS [by PLAYER] [until moved]``: one player sees the faces of some cards (nobody
    else does); ``until moved``: and keeps seeing each until it next moves (lasting knowledge)."""
    cards: Expr
    by: Optional[Expr]
    span: Span
    lasting: bool = False


@node
class Cancel(Stmt):
    entry: Expr
    span: Span


@node
class Emit(Stmt):
    """``[let NAME =] emit EVENT(args)``: run the event's triggers; with ``let`` the event's
    record (its fields after every trigger, and ``prevented``) is kept in NAME."""
    event: Ident
    args: tuple
    span: Span
    target: Optional[str] = None


@node
class Prevent(Stmt):
    """``prevent``: in a trigger, stop the event being emitted (no later trigger runs)."""
    span: Span


@node
class Choose(Stmt):
    """``let NAME = choose WHO [optional] ["prompt"]: SPEC`` and ``let NAME = ask WHO "question"``
    (param.kind "bool"): the block stops until WHO chooses, then NAME holds the choice."""
    name: str
    chooser: Expr
    optional: bool
    prompt: Optional[StrLit]
    param: "ActionParam"
    span: Span


# ---------------------------------------------------------------- declarations
@node
class ScoreClause:
    var: str
    expr: Expr
    span: Span


@node
class Limit:
    """``limit 5000 decisions [winners W] ["why"]``: the game ends when that many decisions have
    been taken without an end; W (default: the highest score) are its winners."""
    count: int
    unit: Ident          # what is counted: only ``decisions`` (the checker says so)
    winners: Optional[Expr]
    doc: Optional[str]
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
    label: Optional[ScoreClause] = None  # ``label c: TEXT``: how a card is shown (default: its name)
    limit: Optional[Limit] = None        # ``limit N decisions ...``: the rules' own bound on a game's length


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
    values: Optional[Expr] = None  # ``int in 1..4``: the range an int option's value must lie in


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
    copies: tuple = ()     # of tuples of CardField: one physical card each, with its own values
    abilities: tuple = ()  # of AbilityGroup


@node
class AbilityGroup:
    """``while in ZONE[, ZONE] [when COND] { actions, triggers, conversions, modify }``: what a card
    gives the player who owns the zone it sits in (``owner``), while it is there (``self`` is the card)."""
    zones: tuple  # of Ident
    when: Optional[Expr]
    items: tuple
    span: Span


@node
class ZoneCapacity:
    """``at most N cards`` after a zone's attributes: a slot that never holds more (the checker
    refuses N < 1; the engine refuses a move that would overfill it)."""
    value: int  # as written, with its sign
    span: Span


@node
class ZoneDecl:
    name: str
    per_player: bool
    attrs: tuple  # of Ident
    doc: Optional[str]
    span: Span
    capacity: Optional[ZoneCapacity] = None


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
    """One choice an action (or a 'choose', or a conversion) asks for.

    kind is "int" (domain: a range, cond), "player" (cond; nullable: 'player or none'),
    "players" (domain: a list of players, size, ordered), "enum" (same: the enum's name,
    cond), "card" (domain: a zone or card list, cond), "cards" (domain, size, same, ...),
    "use" (role: a card name; domain, cond) or "bool" (an 'ask')."""
    name: str
    kind: str
    domain: Optional[Expr]
    cond: Optional[Expr]
    size: Optional[Expr]
    same: Optional[Ident]
    span: Span
    distinct: Optional[Ident] = None   # every card a different value of this property
    wild: Optional[tuple] = None       # (variable name, condition): cards that may join any 'same' group
    ordered: bool = False              # players: the order of the chosen players matters
    nullable: bool = False             # player or none: 'none' when no player qualifies
    role: Optional[str] = None         # use: the card name chosen cards (or conversions) play as
    sum_of: Optional[tuple] = None     # (property, expr): the chosen cards' values of it add up to expr
    by_position: bool = False          # card(s): cards the chooser cannot see are picked by their place


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
    offered_in: tuple = ()  # of Ident: phases that offer it besides those that list it


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
    requires: tuple = ()  # of Require: every action offered in this phase needs them


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
    fields: tuple = ()       # of FieldDecl: data each entry of this effect carries (this.NAME)
    mandatory: bool = False  # its window offers no 'no response' to a player who has a response


@node
class FieldDecl:
    name: str
    type: TypeRef
    default: Optional[Expr]
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
    timing: str = "on"  # "before", "on" or "after" the event
    optional: Optional[StrLit] = None  # 'optional "prompt"': the body runs only if the player says yes


@node
class ConversionDecl:
    """``conversion NAME as "Card" { from x: SPEC  require ...  property p = ... }``: cards (or no
    card) a player may use as a card of another name."""
    name: str
    role: str
    doc: Optional[str]
    text: Optional[StrLit]
    source: Optional[ActionParam]
    requires: tuple
    props: tuple  # ((property name, Expr), ...)
    span: Span


@node
class RuleDecl:
    """``rule NAME(params): TYPE = BASE combine OP``: a value the rules read and components change."""
    name: str
    params: tuple
    rtype: TypeRef
    base: Expr
    combine: Ident
    doc: Optional[str]
    span: Span


@node
class ModifyDecl:
    """``modify RULE(names) = VALUE [when COND]``: a contribution to a rule value."""
    rule: Ident
    args: tuple  # of str
    value: Expr
    when: Optional[Expr]
    span: Span


@node
class DisplayEntry:
    """One name of a display clause, with the caption a variable may carry (``health "HP"``)."""
    name: str
    caption: Optional[str]
    span: Span


@node
class DisplayClause:
    """``seat health, side`` inside a display block: a clause word and its names."""
    word: Ident
    entries: tuple  # of DisplayEntry
    span: Span


@node
class DisplayDecl:
    """``display { seat VARS  table VARS  hand ZONES  aside ZONES  suit P  rank P  colour P }``: how a
    table of this game is drawn (``rulespec serve``).  It changes nothing in play."""
    clauses: tuple  # of DisplayClause
    span: Span


_FIELD_NAMES: dict = {}  # node class -> the names of its fields but span (walks are hot: the checker, the compiler)


def children(e):
    """The expressions directly inside expression e (for walks over an expression tree)."""
    names = _FIELD_NAMES.get(type(e))
    if names is None:
        names = _FIELD_NAMES[type(e)] = tuple(f.name for f in attrs.fields(type(e)) if f.name != "span")
    for n in names:
        v = getattr(e, n)
        if isinstance(v, Expr):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, Expr))
