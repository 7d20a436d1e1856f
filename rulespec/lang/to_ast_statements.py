"""The transformer's statements: Lark subtrees of blocks and statements -> AST nodes.

Also what a choice is among (the specs and selectors of 'choose', of an action's parameters
and of a conversion's 'from'), and the arguments of 'stack' and 'resolve'.
"""
from __future__ import annotations

from lark import Transformer_NonRecursive, v_args

from . import ast as A
from .to_ast_leaves import _ident, _span_of_meta, _strlit, unquote


@v_args(meta=True)
class StatementsToAst(Transformer_NonRecursive):
    """The statement rules; a part of parser._ToAst (which holds ``problems``)."""

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

    def mul_stmt(self, meta, c):
        return A.Assign("*=", c[0], c[1], _span_of_meta(meta))

    def div_stmt(self, meta, c):
        return A.Assign("/=", c[0], c[1], _span_of_meta(meta))

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

    def look_stmt(self, meta, c):
        return A.Look(c[0], c[1], _span_of_meta(meta), c[2] is not None)

    def cancel_stmt(self, meta, c):
        return A.Cancel(c[0], _span_of_meta(meta))

    def emit_stmt(self, meta, c):
        return A.Emit(_ident(c[0]), tuple(x for x in c[1:] if x is not None), _span_of_meta(meta))

    # ------------------------------------------------------------ 'stack' and 'resolve'
    def _stack(self, meta, c, now: bool):
        args = {"by": None, "target": None, "with": None, "against": None}
        word = "resolve" if now else "stack"
        for tag, value in c[2:]:
            if args[tag] is not None:
                self.problems.append((f"'{word}' has a second '{tag}'", _span_of_meta(meta), "give it once", "duplicate"))
            args[tag] = value
        fields = c[1] or ()
        seen = set()
        for fname, _ in fields:
            if fname in seen:
                self.problems.append((f"'{word}' sets the field '{fname}' twice", _span_of_meta(meta), "give it once", "duplicate"))
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

    def by_arg(self, meta, c):
        return ("by", c[0])

    def target_arg(self, meta, c):
        return ("target", c[0])

    def with_arg(self, meta, c):
        return ("with", c[0])

    def against_arg(self, meta, c):
        return ("against", c[0])

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
        return lambda name, span: A.ActionParam(name, "card", c[0], c[2], None, None, span,
                                                by_position=c[1] is not None)

    def use_spec(self, meta, c):
        return lambda name, span: A.ActionParam(name, "use", c[1], c[2], None, None, span, role=unquote(c[0]))

    def _selectors(self, name: str, span, sels_in) -> dict:
        sels = {"size": None, "same": None, "distinct": None, "wild": None, "ordered": None, "sum": None,
                "by position": None}
        for sel in sels_in:
            if sels[sel[0]] is not None:
                self.problems.append((f"parameter '{name}' has a second '{sel[0]}'", span, "give it once", "duplicate"))
            sels[sel[0]] = sel[1]
        return sels

    def cards_spec(self, meta, c):
        def make(name, span):
            sels = self._selectors(name, span, c[1:])
            if sels["ordered"] is not None:
                self.problems.append(("'ordered' goes with a players choice, not with cards", span, None, "misuse"))
            return A.ActionParam(name, "cards", c[0], None, sels["size"], sels["same"], span,
                                 sels["distinct"], sels["wild"], sum_of=sels["sum"],
                                 by_position=sels["by position"] is not None)
        return make

    def players_spec(self, meta, c):
        def make(name, span):
            sels = self._selectors(name, span, c[1:])
            for bad in ("same", "distinct", "wild", "sum", "by position"):
                if sels[bad] is not None:
                    self.problems.append((f"'{bad}' goes with cards, not with a players choice", span, None, "misuse"))
            return A.ActionParam(name, "players", c[0], None, sels["size"], None, span,
                                 ordered=sels["ordered"] is not None)
        return make

    def ordered_sel(self, meta, c):
        return ("ordered", True)

    def position_sel(self, meta, c):
        return ("by position", True)

    def by_position(self, meta, c):
        return True

    def distinct_sel(self, meta, c):
        return ("distinct", _ident(c[0]))

    def sum_sel(self, meta, c):
        return ("sum", (_ident(c[0]), c[1]))

    def wild_sel(self, meta, c):
        return ("wild", (str(c[0]), c[1]))

    def size_sel(self, meta, c):
        return ("size", c[0])

    def same_sel(self, meta, c):
        return ("same", _ident(c[0]))
