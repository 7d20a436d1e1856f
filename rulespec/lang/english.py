"""Every construct of the language, described in English.

As Ludii's rule elements do, each kind of AST node knows how to say what it means:
``English(model).expr(e)`` is a noun phrase or a clause, ``English(model).block(b)``
a list of sentences (nested lists for nested blocks).  The generated rulebook
(docs.py) is built from these and from the doc strings authors write.
"""
from __future__ import annotations

from . import ast as A
from . import types as T
from .model import Model

_CMP = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
        ">=": "is at least", "in": "is among"}
_ARITH = {"+": "plus", "-": "minus", "*": "times", "/": "divided by", "%": "modulo"}
_ORDINALS = {0: "first", 1: "second", 2: "third", 3: "fourth", -1: "last", -2: "second to last"}

# How loosely each rendering holds together, from loosest to tightest.  The parser drops the
# source's parentheses, so the English puts them back wherever a reader could otherwise group
# the words differently from the rules: "a and (b or c)", "(n plus 1) times 2".
COMMA = 0      # has a comma of its own: "x if c, otherwise y", a list "a, b and c", "for every x in d, c"
OPEN = 1       # ends in a clause that would run on into the words after it:
               # "the number of x in d such that c"
OR, AND, NOT, CMP, RANGE, SUM, PRODUCT, UNARY = 2, 3, 4, 5, 6, 7, 8, 9
ATOM = 10      # a name, a call, "p's points": nothing can split it
_BIN_LEVEL = {"or": OR, "and": AND, "+": SUM, "-": SUM, "*": PRODUCT, "/": PRODUCT, "%": PRODUCT, "^": UNARY,
              "in": CMP, **{op: CMP for op in ("==", "!=", "<", "<=", ">", ">=")}}
# Members of an enum compare in the order it declares them
_ENUM_CMP = {"<": "comes before", "<=": "is no later than", ">": "comes after", ">=": "is no earlier than"}
# Operators whose own chains regroup freely: "a and b and c", "a plus b plus c".
_ASSOCIATIVE = {"and", "or", "+", "*"}
# Levels that read alike in English, so that mixing them needs parentheses whichever binds
# tighter in the language: "a or (b and c)", "a plus (b times c)".
_FAMILY = {OR: "bool", AND: "bool", SUM: "arith", PRODUCT: "arith"}


# Locals the language itself binds: the entry an effect resolves, a card's owner and the card
_LOCAL_WORDS = {"this": "this effect", "owner": "its owner", "self": "this card",
                "stack_top": "the effect on top of the stack"}


def words(name: str) -> str:
    """an_identifier -> 'an identifier'."""
    return name.replace("_", " ")


def possessive(owner: str) -> str:
    if owner in ("you", "You"):
        return "your"
    return owner + ("'" if owner.endswith("s") else "'s")


class English:
    def __init__(self, model: Model):
        self.model = model

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:  # never print a class name: fall back to the source text
            from .graph import source_text
            return source_text(self.model.source, e.span)
        return method(e)

    def _type(self, e) -> T.Type:
        return self.model.types.get(e, T.ANY)

    # ------------------------------------------------------------------ grouping
    def level(self, e) -> int:
        """How loosely the English for e holds together (COMMA ... ATOM, see the top of the file)."""
        if isinstance(e, A.Chain):
            return _BIN_LEVEL[e.ops[0]]
        if isinstance(e, A.BinOp):
            if e.op in ("==", "!=") and self._type(e.left) == T.BOOL and isinstance(e.right, A.BoolLit):
                return self.level(e.left) if e.right.value == (e.op == "==") else NOT  # "a" / "not (a)"
            return _BIN_LEVEL.get(e.op, CMP)
        if isinstance(e, A.Unary):
            if e.op == "-":
                return UNARY
            return CMP if self._negated_clause(e.operand) is not None else NOT
        if isinstance(e, A.Range):
            return RANGE
        if isinstance(e, (A.IfExpr, A.LetExpr)):
            return COMMA
        if isinstance(e, A.ListLit):
            if len(e.items) == 1:
                return self.level(e.items[0])
            return ATOM if not e.items else COMMA
        if isinstance(e, A.Quant):
            return self._quant_level(e)
        if isinstance(e, A.Name) and self.model.refs.get(e, ("local",))[0] == "option" \
                and self.model.options[e.name].type == T.BOOL:
            return CMP  # "the bidding option is on"
        if isinstance(e, A.Call) and e.func == "tagged" and self.model.refs.get(e, ("builtin_func",))[0] != "def":
            return CMP  # "x is a power effect"
        if isinstance(e, A.Attr) and e.name == "cancelled" and self.model.refs.get(e, ("",))[0] == "entry_field":
            return CMP  # "x is cancelled"
        return ATOM

    def _quant_level(self, e) -> int:
        if e.kind in ("first", "argmax", "argmin"):
            return ATOM  # closed by "(nobody if none)" / "(the latest on a tie)"
        if e.kind == "any" and e.where is None and e.body is None:
            return CMP   # "d is not empty"
        if e.kind == "all":
            return COMMA  # "for every x in d, ..."
        if e.where is not None or e.body is not None or self.level(e.domain) < ATOM:
            return OPEN  # ends with a clause (or a domain) that would run on into the next words
        return ATOM

    def sub(self, e, at_least: int) -> str:
        """The English for e, in parentheses unless it holds together at least as tightly as at_least."""
        text = self.expr(e)
        return f"({text})" if self.level(e) < at_least else text

    def operand(self, e, parent: str, right: bool = False) -> str:
        """An operand of the binary operator parent, in parentheses where the words alone could
        be grouped otherwise."""
        mine, theirs = _BIN_LEVEL.get(parent, CMP), self.level(e)
        wrap = theirs < mine
        if theirs > mine and _FAMILY.get(theirs) is not None and _FAMILY.get(theirs) == _FAMILY.get(mine):
            wrap = True   # "a or b and c" would read as "(a or b) and c"
        if theirs == mine:
            same = isinstance(e, A.Chain) and set(e.ops) == {parent}
            if mine == CMP:
                wrap = True   # "a is b is c" has no reading at all
            elif right and not (same and parent in _ASSOCIATIVE):
                wrap = True   # "a minus (b minus c)": words are read from the left
        text = self.expr(e)
        return f"({text})" if wrap else text

    def _IntLit(self, e):
        return str(e.value)

    def _StrLit(self, e):
        return f"“{e.value}”"

    def _TextTemplate(self, e):
        return self._StrLit(e.lit)

    def _BoolLit(self, e):
        return "true" if e.value else "false"

    def _NoneLit(self, e):
        return "nobody"  # the checker types none by its context; the words below refine it

    def none_for(self, t) -> str:
        return {"card": "no card", "entry": "no effect", "play": "no play"}.get(t.name, "nobody")

    def _Name(self, e):
        ref = self.model.refs.get(e, ("local",))
        kind = ref[0]
        if kind == "builtin":
            return {"players": "the players", "player_count": "the number of players",
                    "active": "the active player", "stack_top": "the effect on top of the stack",
                    "stacked": "the effects on the stack"}.get(e.name, words(e.name))
        if kind == "zone":
            return f"the {words(e.name)}"
        if kind == "var":  # a yes/no variable reads as a condition: "must give"
            return words(e.name) if self._type(e) == T.BOOL else f"the {words(e.name)}"
        if kind == "option":
            t = self.model.options[e.name].type
            return f"the {words(e.name)} option is on" if t == T.BOOL else f"the {words(e.name)} option"
        if kind == "enum":
            return words(e.name)
        if e.name.startswith("ask#"):  # the hidden local of 'if ask P "..." { }' (parser.if_ask_stmt)
            return "the answer is yes"
        return _LOCAL_WORDS.get(e.name) or words(e.name)

    def _owner(self, e) -> str:
        """A player expression as an owner: 'the active player', 'p', 'the leader'."""
        return self.expr(e)

    def _Index(self, e):
        ref = self.model.refs.get(e, ("list",))
        if ref[0] in ("pvar", "pzone"):
            return f"{possessive(self._owner(e.index))} {words(ref[1].name)}"
        obj = self.sub(e.obj, UNARY)
        if isinstance(e.index, A.IntLit) and e.index.value in _ORDINALS:
            return f"the {_ORDINALS[e.index.value]} of {obj}"
        if isinstance(e.index, A.Unary) and e.index.op == "-" and isinstance(e.index.operand, A.IntLit) \
                and -e.index.operand.value in _ORDINALS:
            return f"the {_ORDINALS[-e.index.operand.value]} of {obj}"
        return f"item {self.sub(e.index, ATOM)} (from 0) of {obj}"

    def _Attr(self, e):
        ref = self.model.refs.get(e, ("", e.name))
        obj = self.sub(e.obj, ATOM)
        if ref[0] == "card_name":
            return f"the name of {obj}"
        if ref[0] == "prop":
            return f"{possessive(obj)} {words(e.name)}"
        if ref[0] == "entry_field":
            return {"kind": f"the kind of {obj}", "by": f"the player who put {obj} on the stack",
                    "target": f"the target of {obj}", "cards": f"the cards of {obj}",
                    "against": f"the effect {obj} answers", "cancelled": f"{obj} is cancelled"}[e.name]
        if ref[0] in ("entry_data", "record_field"):
            return f"{possessive(obj)} {words(e.name)}" if e.name != "prevented" else f"{obj} was prevented"
        if ref[0] == "use_field":
            return {"name": f"the name {obj} is used as", "cards": f"the cards that make {obj}",
                    "via": f"the conversion that made {obj}", "giver": f"the card whose ability made {obj}"}.get(e.name, f"{possessive(obj)} {words(e.name)}")
        return {"player": f"the player of {obj}", "cards": f"the cards of {obj}",
                "size": f"the number of cards of {obj}"}.get(e.name, f"{possessive(obj)} {words(e.name)}")

    def _Call(self, e):
        ref = self.model.refs.get(e, ("builtin_func", e.func))
        if ref[0] in ("def", "rule"):  # "f (a, b)": the parentheses and commas already group the arguments,
            # unless an argument has commas of its own ("x if c, otherwise y")
            args = [self.sub(a, OPEN) if len(e.args) > 1 else self.expr(a) for a in e.args]
        elif e.func in ("sorted", "distinct"):  # "x, in order": only another comma could confuse
            args = [self.sub(a, OPEN) for a in e.args]
        else:  # the arguments sit inside a phrase: "the number of cards in (a together with b)"
            args = [self.sub(a, UNARY) for a in e.args]
        if ref[0] in ("def", "rule"):
            name = words(e.func)
            if args:
                return f"{name} ({', '.join(args)})"
            return name if self._type(e) == T.BOOL else f"the {name}"
        f = e.func
        if f == "count":
            t = self._type(e.args[0])
            if t.name == "zone" or t == T.CARDS:
                return f"the number of cards in {args[0]}"
            return f"the number of {args[0]}"
        member = T.ordered_enum(self._type(e))  # of members of an enum: later or earlier in its order
        table = {
            "sorted": lambda: f"{args[0]}, in order",
            "distinct": lambda: f"{args[0]}, without repeats",
            "players_after": lambda: f"the players clockwise after {args[0]} (ending with {args[0]})",
            "players_from": lambda: f"the players clockwise from {args[0]}",
            "next_player": lambda: f"the player to the left of {args[0]}",
            "random": lambda: f"one of {args[0]} at random",
            "top": lambda: f"the top {args[1]} cards of {args[0]}",
            "bottom": lambda: f"the bottom {args[1]} cards of {args[0]}",
            "plays": lambda: f"the plays in {args[0]}",
            "seat": lambda: f"{possessive(args[0])} seat number",
            "max": lambda: f"the {'later' if member else 'larger'} of {args[0]} and {args[1]}",
            "min": lambda: f"the {'earlier' if member else 'smaller'} of {args[0]} and {args[1]}",
            "abs": lambda: f"the size of {args[0]}",
            "cards": lambda: f"the cards in {args[0]}",
            "tagged": lambda: f"{args[0]} is a {e.args[1].value if isinstance(e.args[1], A.StrLit) else args[1]} effect",
            "reversed": lambda: f"{args[0]}, in reverse order",
            "subsets": lambda: f"every subset of {args[0]}",
            "combinations": lambda: f"every set of {args[1]} of {args[0]}",
            "revealed": lambda: f"{args[0]} is face up for everyone",
        }
        if f in table:
            return table[f]()
        return f"{words(f)} of {', '.join(args)}"

    def _ListLit(self, e):
        items = [self.sub(x, NOT) for x in e.items]  # "a, (b or c) and d"
        if not items:
            return "nothing"
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    def _negated_clause(self, inner):
        """'a is not b' for not (a == b), 'the x option is off' for not x; None otherwise."""
        if isinstance(inner, A.BinOp) and inner.op in ("==", "in") \
                and not (inner.op == "==" and self._type(inner.left) == T.BOOL and isinstance(inner.right, A.BoolLit)):
            neg = "is not" if inner.op == "==" else "is not among"
            return f"{self.operand(inner.left, inner.op)} {neg} {self.operand(inner.right, inner.op, right=True)}"
        if isinstance(inner, A.Name) and self.level(inner) == CMP:
            return f"the {words(inner.name)} option is off"
        return None

    def _Unary(self, e):
        if e.op == "-":
            return f"minus {self.sub(e.operand, UNARY)}"
        clause = self._negated_clause(e.operand)
        if clause is not None:
            return clause
        return f"not {self.sub(e.operand, ATOM)}"  # "not (a and b)", "not (a is more than b)"

    def _BinOp(self, e):
        if e.op in ("==", "!=") and self._type(e.left) == T.BOOL and isinstance(e.right, A.BoolLit):
            yes = e.right.value == (e.op == "==")   # "a == true" reads "a"
            return self.expr(e.left) if yes else f"not {self.sub(e.left, ATOM)}"
        if e.op == "^":  # "2 to the power (n plus 1)": anything but a plain value is bracketed
            return f"{self.sub(e.left, ATOM)} to the power {self.sub(e.right, ATOM)}"
        a, b = self.operand(e.left, e.op), self.operand(e.right, e.op, right=True)
        if e.op in _ENUM_CMP and T.ordered_enum(self._type(e.left)):
            return f"{a} {_ENUM_CMP[e.op]} {b}"
        return f"{a} {_CMP[e.op]} {b}"

    def _Chain(self, e):
        t = self._type(e)
        if T.is_list(t):
            plus = "together with"
        elif t == T.TEXT:
            plus = "followed by"
        else:
            plus = "plus"
        words_of = {**_ARITH, "+": plus, "and": "and", "or": "or"}
        parts = [self.operand(e.operands[0], e.ops[0])]
        for op, x in zip(e.ops, e.operands[1:]):
            parts.append(f"{words_of[op]} {self.operand(x, op, right=True)}")
        return " ".join(parts)

    def _Range(self, e):
        return f"{self.sub(e.lo, SUM)} to {self.sub(e.hi, SUM)}"

    def _IfExpr(self, e):
        # the else branch may be another "y if c, otherwise z": it reads like "else if"
        return f"{self.sub(e.then, OR)} if {self.sub(e.cond, OPEN)}, otherwise {self.expr(e.else_)}"

    def _LetExpr(self, e):
        # a chain of lets reads as one list after the body, in the order the names are bound
        names = []
        while isinstance(e, A.LetExpr):
            names.append(f"{words(e.var)} is {self.sub(e.value, OR)}")
            e = e.body
        return f"{self.sub(e, OR)}, where " + ", ".join(names)

    def _Quant(self, e):
        k = e.kind
        # words follow the domain, the condition of first/all/argmax/argmin and the body of
        # sum/max/min/collect/argmax/argmin: an open clause there would run on into them
        x, dom = words(e.var), self.sub(e.domain, OR)
        closed = k in ("first", "all", "argmax", "argmin")
        where = f" such that {self.sub(e.where, OR) if closed else self.expr(e.where)}" if e.where is not None else ""
        body = None
        if e.body is not None:
            body = self.sub(e.body, UNARY) if k in ("sum", "max", "min", "collect", "argmax", "argmin") \
                else self.expr(e.body)
        if k in ("any", "count"):  # the condition and the body both hold: "c and (a or b)"
            parts = [p for p in (e.where, e.body) if p is not None]
            cond = " and ".join(self.operand(p, "and", right=i > 0) if len(parts) > 1 else self.expr(p)
                                for i, p in enumerate(parts))
            if k == "any":
                return f"some {x} in {dom} meets: {cond}" if cond else f"{dom} is not empty"
            return f"the number of {x} in {dom}" + (f" such that {cond}" if cond else "")
        if k == "all":
            return f"for every {x} in {dom}{where}, {body or 'true'}"
        if k == "first":
            return f"the first {x} in {dom}{where} (nobody if none)"
        if k == "sum":
            return f"the total of {body} over every {x} in {dom}{where}"
        # of members of an enum: the last or first in its order
        most, least = ("latest", "earliest") if T.ordered_enum(self._type(e.body)) else ("largest", "smallest")
        if k in ("max", "min"):
            return f"the {most if k == 'max' else least} {body} for any {x} in {dom}{where}"
        if k == "collect":
            return f"every {x} in {dom}{where}" if body is None else f"the list of {body} for every {x} in {dom}{where}"
        tie = "the latest on a tie" if e.ties_last else "the earliest on a tie"
        return f"the {x} in {dom}{where} with the {most if k == 'argmax' else least} {body} ({tie})"

    # ------------------------------------------------------------------ statements
    def block(self, b) -> list:
        """Sentences for a block: strings, and nested lists for the bodies of ifs and loops."""
        out: list = []
        if b is None:
            return out
        for s in b.stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        method = getattr(self, "_s_" + type(s).__name__, None)
        if method is None:
            from .graph import source_text
            return [source_text(self.model.source, s.span)]
        return method(s)

    def _s_Let(self, s):
        return [f"Let {words(s.name)} be {self.expr(s.value)}."]

    def _s_Assign(self, s):
        t = s.target
        if t.path:
            target = f"{possessive(_LOCAL_WORDS.get(t.name) or words(t.name))} {words(t.path[0])}"
            v = self.expr(s.value)
            return [_update_sentence(s.op, target, v)]
        if t.index is not None:
            target = f"{possessive(self.expr(t.index))} {words(t.name)}"
        elif t.name == "active" and t.name not in self.model.vars:
            return [f"{_cap(self.expr(s.value))} becomes the active player."]
        else:
            target = f"the {words(t.name)}" if t.name in self.model.vars else words(t.name)
        v = self.expr(s.value)
        if isinstance(s.value, A.NoneLit) and t.name in self.model.vars:
            v = self.none_for(self.model.vars[t.name].type)
        return [_update_sentence(s.op, target, v)]

    def _s_Move(self, s):
        where = " at the bottom" if s.position == "bottom" else ""
        what = self.expr(s.cards)
        if self._type(s.cards).name == "zone":
            what = f"all the cards in {what}"
        return [f"Move {what} to {self.expr(s.dest)}{where}."]

    def _s_Deal(self, s):
        n = self.expr(s.count)
        return [f"Deal {n} card{'' if n == '1' else 's'} from {self.expr(s.source)} to {self.expr(s.dest)}."]

    def _s_Shuffle(self, s):
        return [f"Shuffle {self.expr(s.zone)}."]

    def _s_Play(self, s):
        by = f" as a play by {self.expr(s.by)}" if s.by is not None else " as one play"
        return [f"Play {self.expr(s.cards)} into {self.expr(s.dest)}{by}."]

    def _s_If(self, s):
        blocks = [self.block(blk) for _, blk in s.branches]
        other = self.block(s.else_) if s.else_ is not None else []
        if not any(blocks) and not other:
            return []  # only log lines in every branch: nothing a rule does
        out: list = []
        for i, ((cond, _), said) in enumerate(zip(s.branches, blocks)):
            lead = "If" if i == 0 else "Otherwise, if"
            out.append(f"{lead} {self.expr(cond)}:")
            out.append(said or ["nothing happens."])
        if s.else_ is not None:
            out.append("Otherwise:")
            out.append(other or ["nothing happens."])
        return out

    def _s_For(self, s):
        body = self.block(s.body)
        return [f"For each {words(s.var)} in {self.expr(s.iterable)}:", body] if body else []

    def _s_EndGame(self, s):
        return [f"The game ends; {self.winners(s.winners)}."]

    def winners(self, e) -> str:
        """Who wins a game that ends ('end game winners W', a limit's winners)."""
        if e is None:
            return "the highest score wins (ties share the win)"
        if isinstance(e, A.ListLit) and not e.items:
            return "nobody wins"
        return f"the winner is {self.expr(e)}"

    def limit(self, limit) -> str:
        """The rules' 'limit N decisions [winners W]' as a sentence."""
        return (f"A game that has not ended after {limit.count:,} decisions (every choice a player makes counts "
                f"one) stops there; {self.winners(limit.winners)}." + (f" {limit.doc}" if limit.doc else ""))

    def _s_Log(self, s):
        return []  # log lines change nothing: the rulebook leaves them out

    def _s_Announce(self, s):
        # an announcement is a rule: the players learn this much (and no more) of hidden cards
        return [f"Everyone is told {self._StrLit(s.template)}."]

    def _s_Reveal(self, s):
        z = self.expr(s.zone)
        return [f"Reveal {z} to everyone."] if s.reveal else [f"{_cap(z)} is hidden again."]

    def _s_Choose(self, s):
        who = self.expr(s.chooser)
        p = s.param
        if p.kind == "bool":
            q = s.prompt.value if s.prompt is not None else "yes or no"
            return [f"{_cap(who)} answers “{q}” (yes or no)."]
        what = self.choice(p)
        how = " may choose" if s.optional else " chooses"
        prompt = f" ({s.prompt.value})" if s.prompt is not None else ""
        return [f"{_cap(who)}{how} {what}{prompt}; call it {words(s.name)}."
                + (" If they decline, there is none." if s.optional else "")]

    def choice(self, p: A.ActionParam) -> str:
        """What a choice is among, as a noun phrase ("a card from your hand that ...")."""
        cond = f" such that {self.expr(p.cond)}" if p.cond is not None else ""
        if p.kind == "int":
            return f"a number in {self.expr(p.domain)}{cond}"
        if p.kind == "enum":
            return f"a {words(p.same.name)}{cond}"
        if p.kind == "player":
            return f"a player{cond}" + (" (nobody if none qualifies)" if p.nullable else "")
        if p.kind == "players":
            size = f" ({self.expr(p.size)} of them)" if p.size is not None else ""
            return f"players from {self.expr(p.domain)}{size}" + (", in order" if p.ordered else "")
        if p.kind == "use":
            return f"a card to use as {p.role} from {self.expr(p.domain)} (or a conversion to {p.role}){cond}"
        if p.kind == "card":
            return f"a card from {self.expr(p.domain)}{cond}"
        size = f" ({self.expr(p.size)} of them)" if p.size is not None else ""
        total = f" whose {words(p.sum_of[0].name)} adds up to {self.expr(p.sum_of[1])}" if p.sum_of is not None else ""
        return f"cards from {self.expr(p.domain)}{size}{total}"

    def _s_Prevent(self, s):
        return ["Prevent the event: nothing more happens for it."]
    def _s_StackStmt(self, s):
        eff = self.model.effects.get(s.effect.name)
        name = words(s.effect.name)
        parts = [f"Put {name} on the stack"]
        if s.fields:
            parts.append("with " + ", ".join(f"{words(f)} {self.expr(v)}" for f, v in s.fields))
        if s.by is not None:
            parts.append(f"for {self.expr(s.by)}")
        if s.target is not None:
            parts.append(f"targeting {self.expr(s.target)}")
        if s.with_ is not None:
            parts.append(f"with {self.expr(s.with_)}")
        if s.against is not None:
            parts.append(f"against {self.expr(s.against)}")
        what = f" ({eff.doc})" if eff is not None and eff.doc else ""
        if s.now:
            return [" ".join(parts) + what + "; players may respond, and it resolves before anything else goes on."]
        return [" ".join(parts) + what + "; players may respond before it resolves."]

    def _s_Look(self, s):
        who = self.expr(s.by) if s.by is not None else "the active player"
        return [f"{_cap(who)} looks at {self.expr(s.cards)} (nobody else sees them)."]

    def _s_Cancel(self, s):
        return [f"Cancel {self.expr(s.entry)}."]

    def _s_Emit(self, s):
        ev = self.model.events.get(s.event.name)
        bindings = ""
        if ev is not None and ev.params:
            bindings = " with " + ", ".join(f"{words(p.name)} = {self.expr(a)}" for p, a in zip(ev.params, s.args))
        doc = f": {ev.doc}" if ev is not None and ev.doc else ""
        keep = f" (its outcome is {words(s.target)})" if s.target is not None else ""
        return [f"“{words(s.event.name)}” happens{bindings}{doc}{keep}"]


def _update_sentence(op: str, target: str, v: str) -> str:
    """'x = v', 'x += v', ... as an instruction."""
    return {"+=": f"Add {v} to {target}.", "-=": f"Subtract {v} from {target}.",
            "*=": f"Multiply {target} by {v}.", "/=": f"Divide {target} by {v}, rounding down."}.get(
        op, f"Set {target} to {v}.")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text
