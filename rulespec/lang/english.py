"""Every construct of the language, described in English.

As Ludii's rule elements do, each kind of AST node knows how to say what it means:
``English(model).expr(e)`` is a noun phrase or a clause, ``English(model).block(b)``
a list of sentences (nested lists for nested blocks).  The generated rulebook
(docs.py) is built from these and from the doc strings authors write.
"""
from __future__ import annotations

import re

from . import ast as A
from . import types as T
from .english_words import agree, article, is_plural_name, is_plural_word, noun_phrase, owned, type_noun, words
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


class English:
    def __init__(self, model: Model):
        self.model = model
        self._loops: list[str] = []  # the variables of the for loops around the statement being said

    # ------------------------------------------------------------------ expressions
    def expr(self, e) -> str:
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:  # never print a class name: fall back to the source text
            from .graph import source_text
            return source_text(self.model.source, e.span)
        return method(e)

    def _type(self, e) -> T.Type:
        return self.model.types.get(e, T.ANY)

    # ------------------------------------------------------------------ number
    def plural(self, e) -> bool:
        """Does the English for e name several things ("the cards in the trick", "p's points")?
        Its verb agrees: "are", not "is"."""
        if isinstance(e, A.ListLit):
            return len(e.items) > 1 or (len(e.items) == 1 and self.plural(e.items[0]))
        if isinstance(e, A.Name):
            kind = self.model.refs.get(e, ("local",))[0]
            if kind == "builtin":
                return e.name in ("players", "stacked")
            if kind in ("enum", "option") or self._counter(e):
                return False
            return is_plural_word(noun_phrase(e.name, self._type(e)).rsplit(" ", 1)[-1])  # "the laid cards"
        if isinstance(e, A.Index):
            ref = self.model.refs.get(e, ("list",))
            if ref[0] == "pzone":
                return is_plural_word(noun_phrase(ref[1].name, T.ZONE).rsplit(" ", 1)[-1])
            return is_plural_name(ref[1].name) if ref[0] == "pvar" else False
        if isinstance(e, A.Attr):
            return e.name == "cards" or is_plural_name(e.name)
        if isinstance(e, A.Call):
            if self.model.refs.get(e, ("builtin_func",))[0] in ("def", "rule"):  # "points (c)" is a number
                return T.is_list(self._type(e)) and is_plural_name(e.func)
            if e.func in ("top", "bottom"):
                return not (isinstance(e.args[1], A.IntLit) and e.args[1].value == 1)
            if e.func in ("sorted", "distinct", "reversed"):
                return self.plural(e.args[0])
            return e.func in ("cards", "plays", "players_after", "players_from")
        if isinstance(e, A.Chain):
            return T.is_list(self._type(e))
        if isinstance(e, A.IfExpr):
            return self.plural(e.then)
        return False

    def _counter(self, e) -> bool:
        """A game's whole number named by a plural ("hints", "turns") reads "the number of hints"."""
        ref = self.model.refs.get(e, ("local",))
        return ref[0] == "var" and _counts(e.name, self._type(e))

    def var_words(self, name: str) -> str:
        """A game variable as a noun: "the dealer", "the number of hints", "the player to play"."""
        t = self.model.vars[name].type
        return f"the number of {words(name)}" if _counts(name, t) else f"the {noun_phrase(name, t)}"

    def verb(self, subject, phrase: str) -> str:
        """phrase ("is more than") agreeing with the English of subject."""
        return agree(phrase, self.plural(subject))

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
        if isinstance(e.where, A.BoolLit) and not e.where.value:
            return ATOM  # "no players", "0": see _nothing_qualifies
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
        return self._quoted(e.parts)

    def quote(self, lit) -> str:
        """A text as written, its {holes} said in words in square brackets:
        "{active} tells {t}" -> “[the active player] tells [t]”."""
        parts = self.model.templates.get(lit)
        return self._quoted(parts) if parts is not None else self._StrLit(lit)

    def _quoted(self, parts) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):   # "[x](" would be a Markdown link: "[x] (" is not
                out.append(" " + p if p.startswith("(") and out and out[-1].endswith("]") else p)
            else:
                out.append(f"[{self.expr(p)}]")
        return "“" + "".join(out) + "”"

    # ------------------------------------------------------------------ sentence starts
    def subject(self, e) -> str:
        """The English for e starting a sentence.  A local name is never capitalised ("Q looks"
        reads as a name of its own): the noun of its type goes first, "Player q looks at ..."."""
        text = self.expr(e)
        for n in self._locals(e):
            if re.match(re.escape(words(n.name)) + r"(\Z|[ '])", text):
                text = f"{type_noun(self._type(n))} {text}"
                break
        return _cap(text)

    def _locals(self, e):
        """The local names (loop variables, parameters, lets) read in expression e."""
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, A.Name):
                if self.model.refs.get(x, ("local",))[0] == "local" and x.name not in _LOCAL_WORDS \
                        and not x.name.startswith("ask#"):
                    yield x
                continue
            for v in vars(x).values() if hasattr(x, "__dict__") else ():
                if isinstance(v, (tuple, list)):
                    stack.extend(i for i in v if isinstance(i, A.Expr))
                elif isinstance(v, A.Expr):
                    stack.append(v)

    def _BoolLit(self, e):
        return "true" if e.value else "false"

    def _NoneLit(self, e):
        return "nobody"  # the checker types none by its context; the words below refine it

    def none_for(self, t) -> str:
        return {"card": "no card", "use": "no card", "entry": "no effect", "play": "no play"}.get(t.name, "nobody")

    def _none_compare(self, other, there: bool) -> str:
        """x == none / x != none, said for what x is: "c is no card", "the maker is someone",
        "there is an effect on top of the stack"."""
        t = self._type(other)
        text = self.operand(other, "==")
        if t == T.PLAYER or t.name not in T.NULLABLE:
            return f"{text} is {'someone' if there else 'nobody'}"
        noun = type_noun(t)
        if text.startswith("the ") and noun in text.split(" ") and self.level(other) == ATOM:
            rest = text[4:]    # "the drawn card" -> "there is no drawn card"
            return f"there is {article(rest) if there else 'no ' + rest}"
        return f"{text} is {article(noun) if there else self.none_for(t)}"

    @staticmethod
    def _against_none(e):
        """For x == none or none == x (and !=): x; otherwise None."""
        if isinstance(e, A.BinOp) and e.op in ("==", "!="):
            if isinstance(e.right, A.NoneLit) and not isinstance(e.left, A.NoneLit):
                return e.left
            if isinstance(e.left, A.NoneLit):
                return e.right
        return None

    def _Name(self, e):
        ref = self.model.refs.get(e, ("local",))
        kind = ref[0]
        if kind == "builtin":
            return {"players": "the players", "player_count": "the number of players",
                    "active": "the active player", "stack_top": "the effect on top of the stack",
                    "stacked": "the effects on the stack"}.get(e.name, words(e.name))
        if kind == "zone":
            return f"the {noun_phrase(e.name, T.ZONE)}"
        if kind == "var":  # a yes/no variable reads as a condition: "must give"
            return words(e.name) if self._type(e) == T.BOOL else self.var_words(e.name)
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
            return owned(self._owner(e.index), noun_phrase(ref[1].name, T.ZONE if ref[0] == "pzone" else self._type(e)))
        n = e.index.value if isinstance(e.index, A.IntLit) else None
        if isinstance(e.index, A.Unary) and e.index.op == "-" and isinstance(e.index.operand, A.IntLit):
            n = -e.index.operand.value
        if n in (0, -1) and self._one_card(e.obj):
            return self.expr(e.obj)   # the first of "the top card of the deck" is that card
        if isinstance(e.obj, A.Call) and e.obj.func in ("cards", "plays") and n in _ORDINALS \
                and self.model.refs.get(e.obj, ("builtin_func",))[0] == "builtin_func":
            noun = "card" if e.obj.func == "cards" else "play"   # "the first card in the trick"
            return f"the {_ORDINALS[n]} {noun} in {self.sub(e.obj.args[0], UNARY)}"
        obj = self.sub(e.obj, UNARY)
        if n in _ORDINALS:
            if self.plural(e.obj):
                return f"the {_ORDINALS[n]} of {obj}"
            return f"the {_ORDINALS[n]} {type_noun(T.elem_of(self._type(e.obj)))} of {obj}"  # "the first card of the meld"
        return f"item {self.sub(e.index, ATOM)} (from 0) of {obj}"

    @staticmethod
    def _one_card(e) -> bool:
        """top(z, 1) or bottom(z, 1): a list of one card, read as that card."""
        return isinstance(e, A.Call) and e.func in ("top", "bottom") and len(e.args) == 2 \
            and isinstance(e.args[1], A.IntLit) and e.args[1].value == 1

    def _Attr(self, e):
        ref = self.model.refs.get(e, ("", e.name))
        obj = self.sub(e.obj, ATOM)
        if ref[0] == "card_name":
            return f"the name of {obj}"
        if ref[0] == "prop":
            return owned(obj, words(e.name))
        if ref[0] == "entry_field":
            return {"kind": f"the kind of {obj}", "by": f"the player who put {obj} on the stack",
                    "target": f"the target of {obj}", "cards": f"the cards of {obj}",
                    "against": f"the effect {obj} answers", "cancelled": f"{obj} is cancelled"}[e.name]
        if ref[0] in ("entry_data", "record_field"):
            return owned(obj, words(e.name)) if e.name != "prevented" else f"{obj} was prevented"
        if ref[0] == "use_field":
            return {"name": f"the name {obj} is used as", "cards": f"the cards that make {obj}",
                    "via": f"the conversion that made {obj}", "giver": f"the card whose ability made {obj}"}.get(e.name, owned(obj, words(e.name)))
        return {"player": f"the player of {obj}", "cards": f"the cards of {obj}",
                "size": f"the number of cards of {obj}"}.get(e.name, owned(obj, words(e.name)))

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
            if self._type(e) == T.BOOL:
                return name
            if _counts(e.func, self._type(e)):
                return f"the number of {name}"   # "the number of attacks"
            return f"the {noun_phrase(e.func, self._type(e))}"
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
            "top": lambda: f"the top {self._how_many(e.args[1], args[1])} of {args[0]}",
            "bottom": lambda: f"the bottom {self._how_many(e.args[1], args[1])} of {args[0]}",
            "plays": lambda: f"the plays in {args[0]}",
            "seat": lambda: owned(args[0], "seat number"),
            "max": lambda: f"the {'later' if member else 'larger'} of {args[0]} and {args[1]}",
            "min": lambda: f"the {'earlier' if member else 'smaller'} of {args[0]} and {args[1]}",
            "abs": lambda: f"the size of {args[0]}",
            "cards": lambda: f"the cards in {args[0]}",
            "tagged": lambda: f"{args[0]} is {article(e.args[1].value if isinstance(e.args[1], A.StrLit) else args[1])} effect",
            "reversed": lambda: f"{args[0]}, in reverse order",
            "subsets": lambda: f"every subset of {args[0]}",
            "combinations": lambda: f"every set of {args[1]} of {args[0]}",
            "revealed": lambda: f"{args[0]} {self.verb(e.args[0], 'is')} face up for everyone",
            "sees": lambda: f"{args[0]} sees the face of {args[1]}",
        }
        if f in table:
            return table[f]()
        return f"{words(f)} of {', '.join(args)}"

    def _how_many(self, n, said: str) -> str:
        """'card' for 1, '3 cards', '(n minus 1) cards'."""
        return "card" if isinstance(n, A.IntLit) and n.value == 1 else f"{said} cards"

    def _ListLit(self, e):
        items = [self.sub(x, NOT) for x in e.items]  # "a, (b or c) and d"
        if not items:
            return "nothing"
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    def _negated_clause(self, inner):
        """'a is not b' for not (a == b), 'the x option is off' for not x; None otherwise."""
        if isinstance(inner, A.BinOp) and inner.op == "==" and self._against_none(inner) is not None:
            return self._none_compare(self._against_none(inner), there=True)
        if isinstance(inner, A.BinOp) and inner.op in ("==", "in") \
                and not (inner.op == "==" and self._type(inner.left) == T.BOOL and isinstance(inner.right, A.BoolLit)):
            neg = self.verb(inner.left, "is not" if inner.op == "==" else "is not among")
            return f"{self.operand(inner.left, inner.op)} {neg} {self.operand(inner.right, inner.op, right=True)}"
        if isinstance(inner, A.Name) and self.level(inner) == CMP:
            return f"the {words(inner.name)} option is off"
        if isinstance(inner, A.Call) and self.model.refs.get(inner, ("builtin_func",))[0] == "builtin_func" \
                and inner.func in ("sees", "revealed"):  # "p does not see the face of c"
            args = [self.sub(a, UNARY) for a in inner.args]
            if inner.func == "sees":
                return f"{args[0]} does not see the face of {args[1]}"
            return f"{args[0]} {self.verb(inner.args[0], 'is not')} face up for everyone"
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
        if self._against_none(e) is not None:
            return self._none_compare(self._against_none(e), there=e.op == "!=")
        a, b = self.operand(e.left, e.op), self.operand(e.right, e.op, right=True)
        if e.op in _ENUM_CMP and T.ordered_enum(self._type(e.left)):
            return f"{a} {self.verb(e.left, _ENUM_CMP[e.op])} {b}"
        return f"{a} {self.verb(e.left, _CMP[e.op])} {b}"

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
        # a compound value before "if" is bracketed: "a times b times 2 if c" could be read as
        # "a times b times (2 if c, ...)"
        return f"{self.sub(e.then, ATOM)} if {self.sub(e.cond, OPEN)}, otherwise {self.expr(e.else_)}"

    def _LetExpr(self, e):
        # a chain of lets reads as one list after the body, in the order the names are bound
        names = []
        while isinstance(e, A.LetExpr):
            names.append(f"{words(e.var)} is {self.sub(e.value, OR)}")
            e = e.body
        return f"{self.sub(e, OR)}, where " + ", ".join(names)

    def _Quant(self, e):
        if isinstance(e.where, A.BoolLit) and not e.where.value:
            return self._nothing_qualifies(e)  # "collect p in players where false": nothing qualifies
        k = e.kind
        cond_e = None if isinstance(e.where, A.BoolLit) else e.where  # "where true" says nothing
        # words follow the domain, the condition of first/all/argmax/argmin and the body of
        # sum/max/min/collect/argmax/argmin: an open clause there would run on into them
        x, dom = words(e.var), self.sub(e.domain, OR)
        closed = k in ("first", "all", "argmax", "argmin")
        where = f" such that {self.sub(cond_e, OR) if closed else self.expr(cond_e)}" if cond_e is not None else ""
        body = None
        if e.body is not None:
            body = self.sub(e.body, UNARY) if k in ("sum", "max", "min", "collect", "argmax", "argmin") \
                else self.expr(e.body)
        if k in ("any", "count"):  # the condition and the body both hold: "c and (a or b)"
            parts = [p for p in (cond_e, e.body) if p is not None]
            cond = " and ".join(self.operand(p, "and", right=i > 0) if len(parts) > 1 else self.expr(p)
                                for i, p in enumerate(parts))
            if k == "any":
                return f"some {x} in {dom} meets: {cond}" if cond else f"{dom} {self.verb(e.domain, 'is not')} empty"
            return f"the number of {x} in {dom}" + (f" such that {cond}" if cond else "")
        if k == "all":
            return f"for every {x} in {dom}{where}, {body or 'true'}"
        if k == "first":
            return f"the first {x} in {dom}{where} ({self.none_for(self._type(e))} if none)"
        if k == "sum":
            return f"the total of {body} over every {x} in {dom}{where}"
        if body is not None and body.startswith("the ") and k in ("max", "min", "argmax", "argmin"):
            body = body[4:]   # "the largest rank of ...", not "the largest the rank of ..."
        # of members of an enum: the last or first in its order
        most, least = ("latest", "earliest") if T.ordered_enum(self._type(e.body)) else ("largest", "smallest")
        if k in ("max", "min"):
            return f"the {most if k == 'max' else least} {body} for any {x} in {dom}{where}"
        if k == "collect":
            return f"every {x} in {dom}{where}" if body is None else f"the list of {body} for every {x} in {dom}{where}"
        tie = "the latest on a tie" if e.ties_last else "the earliest on a tie"
        return f"the {x} in {dom}{where} with the {most if k == 'argmax' else least} {body} ({tie})"

    def _nothing_qualifies(self, e) -> str:
        """A quantifier whose condition is the constant false."""
        if e.kind == "collect":
            return self.empty_list(self._type(e))
        if e.kind in ("count", "sum"):
            return "0"
        if e.kind == "any":
            return "false"
        if e.kind == "all":
            return "true"
        return self.none_for(self._type(e))

    @staticmethod
    def empty_list(t) -> str:
        return {"player": "no players", "card": "no cards"}.get(T.elem_of(t).name, "an empty list")

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
        return [f"Let {words(s.name)} be {self.value(s.value)}."]

    def value(self, e) -> str:
        """e as a value to keep: a condition reads "whether ..." ("Let aces be whether c's rank is 1")."""
        text = self.expr(e)
        return f"whether {text}" if self._type(e) == T.BOOL and self.level(e) not in (NOT, ATOM) else text

    def _s_Assign(self, s):
        t = s.target
        if t.path:
            target = owned(_LOCAL_WORDS.get(t.name) or words(t.name), words(t.path[0]))
            v = self.value(s.value)
            return [_update_sentence(s.op, target, v)]
        v_decl = self.model.vars.get(t.name)
        if t.index is not None:
            target = owned(self.expr(t.index), noun_phrase(t.name, v_decl.type) if v_decl else words(t.name))
        elif t.name == "active" and v_decl is None:
            return [f"{self.subject(s.value)} becomes the active player."]
        elif v_decl is not None:
            target = f"the {words(t.name)}" if v_decl.type == T.BOOL else self.var_words(t.name)
        else:
            target = words(t.name)
        v = self.value(s.value)
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
        n = self.sub(s.count, ATOM)
        return [f"Deal {n} card{'' if n == '1' else 's'} from {self.expr(s.source)} to {self.expr(s.dest)}."]

    def _s_Shuffle(self, s):
        return [f"Shuffle {self.expr(s.zone)}."]

    def _s_Play(self, s):
        by = f" as a play by {self.expr(s.by)}" if s.by is not None else " as one play"
        return [f"Play {self.expr(s.cards)} into {self.expr(s.dest)}{by}."]

    def body(self, b) -> list:
        """Sentences for a block that is shown even when it changes nothing."""
        return self.block(b) or [self.nothing(b)]

    def nothing(self, b) -> str:
        """What a block that changes nothing does: it may still write to the log."""
        logged = [self.quote(lit) for lit in _logs(b)]
        return f"nothing changes (the log says {' and '.join(logged)})." if logged else "nothing happens."

    def _s_If(self, s):
        blocks = [self.block(blk) for _, blk in s.branches]
        other = self.block(s.else_) if s.else_ is not None else []
        if not any(blocks) and not other:
            return []  # only log lines in every branch: nothing a rule does
        if len(blocks) == 1 and not blocks[0] and not _logs(s.branches[0][1]):
            return [f"Unless {self.expr(s.branches[0][0])}:", other]   # "if c { } else { ... }"
        out: list = []
        for i, ((cond, blk), said) in enumerate(zip(s.branches, blocks)):
            lead = "If" if i == 0 else "Otherwise, if"
            out.append(f"{lead} {self.expr(cond)}:")
            out.append(said or [self.nothing(blk)])
        if s.else_ is not None:
            out.append("Otherwise:")
            out.append(other or [self.nothing(s.else_)])
        return out

    def _s_For(self, s):
        self._loops.append(s.var)
        try:
            body = self.block(s.body)
        finally:
            self._loops.pop()
        return [f"For each {words(s.var)} in {self.expr(s.iterable)}:", body] if body else []

    def _s_EndGame(self, s):
        return [f"The game ends; {self.winners(s.winners)}."]

    def winners(self, e) -> str:
        """Who wins a game that ends ('end game winners W', a limit's winners)."""
        if e is None:
            return "the highest score wins (ties share the win)"
        if (isinstance(e, A.ListLit) and not e.items) or \
                (isinstance(e, A.Quant) and isinstance(e.where, A.BoolLit) and not e.where.value):
            return "nobody wins"
        if T.is_list(self._type(e)) and not (isinstance(e, A.ListLit) and len(e.items) == 1):
            return f"the winners are {self.expr(e)}"
        return f"the winner is {self.expr(e)}"

    def limit(self, limit) -> str:
        """The rules' 'limit N decisions [winners W]' as a sentence."""
        return (f"A game that has not ended after {limit.count:,} decisions (every choice a player makes counts "
                f"one) stops there; {self.winners(limit.winners)}." + (f" {limit.doc}" if limit.doc else ""))

    def display(self, lay) -> str:
        """How a table of the game is drawn (display.layout of the rules' 'display' block)."""
        def names(xs):
            xs = [words(x) for x in xs]
            return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
        parts = []
        if lay.seat:
            parts.append(f"each seat shows {names(c for _, c in lay.seat)}")
        if lay.table:
            parts.append(f"the centre shows {names(c for _, c in lay.table)}")
        if lay.hand:
            parts.append(f"the cards of {names(lay.hand)} are held in the hand, the other zones of a player "
                         f"lie in front of their seat")
        if lay.aside:
            parts.append(f"{names(lay.aside)} {'is' if len(lay.aside) == 1 else 'are'} left off the table")
        face = [f"its {words(p)} {what}" for p, what in ((lay.suit, "as a suit symbol"), (lay.rank, "in the corner"),
                                                         (lay.colour, "as its colour")) if p]
        if face:
            parts.append("a card shows " + names(face))
        return ("Drawn as a table (`rulespec serve`): " + "; ".join(parts) + ".") if parts else ""

    def _s_Log(self, s):
        return []  # log lines change nothing: the rulebook leaves them out

    def _s_Announce(self, s):
        # an announcement is a rule: the players learn this much (and no more) of hidden cards
        return [f"Everyone is told {self.quote(s.template)}."]

    def _s_Reveal(self, s):
        if s.reveal:
            return [f"Reveal {self.expr(s.zone)} to everyone."]
        return [f"{self.subject(s.zone)} {self.verb(s.zone, 'is')} hidden again."]

    def _s_Choose(self, s):
        who = self.subject(s.chooser)
        p = s.param
        if p.kind == "bool":
            q = self.quote(s.prompt) if s.prompt is not None else "“yes or no”"
            return [f"{who} answers {q} (yes or no)."]
        what = self.choice(p)
        how = " may choose" if s.optional else " chooses"
        prompt = f" ({self.quote(s.prompt)[1:-1]})" if s.prompt is not None else ""
        return [f"{who}{how} {what}{prompt}; call it {words(s.name)}."
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
            return f"a card from {self.expr(p.domain)}{cond}{by_position(p)}"
        size = f" ({self.expr(p.size)} of them)" if p.size is not None else ""
        total = f" whose {words(p.sum_of[0].name)} adds up to {self.expr(p.sum_of[1])}" if p.sum_of is not None else ""
        return f"cards from {self.expr(p.domain)}{size}{total}{by_position(p)}"

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
        who = self.subject(s.by) if s.by is not None else "The active player"
        one = not T.is_list(self._type(s.cards)) or self._one_card(s.cards)
        them = "it" if one else "them"
        # in a loop over players, each of them looks: "nobody else" would be false
        looped = s.by is not None and any(n.name in self._loops for n in self._locals(s.by))
        others = f"only the players who look see {them}" if looped else f"nobody else sees {them}"
        if s.lasting:
            each = "it" if one else "each of them"
            return [f"{who} looks at {self.expr(s.cards)} ({others}), and keeps knowing {each} "
                    f"until it next moves or its zone is shuffled."]
        return [f"{who} looks at {self.expr(s.cards)} ({others})."]

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


def _counts(name: str, t) -> bool:
    """A whole number named by a plural noun counts it: 'hints' is "the number of hints"."""
    return t == T.INT and is_plural_name(name) and noun_phrase(name, t) == words(name)


def _logs(b) -> list:
    """The templates of the log lines in a block and the blocks inside it."""
    out: list = []
    for s in b.stmts if b is not None else ():
        if isinstance(s, A.Log):
            out.append(s.template)
        elif isinstance(s, A.If):
            for _, blk in s.branches:
                out += _logs(blk)
            out += _logs(s.else_)
        elif isinstance(s, A.For):
            out += _logs(s.body)
    return out


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def by_position(p: A.ActionParam) -> str:
    """How a `by position` choice picks the cards its chooser cannot see, as a clause ("" without)."""
    if not p.by_position:
        return ""
    if p.kind == "card":
        return " (a face-down one is picked by its place: card 1 is the one put there first)"
    return " (face-down ones are picked by their places: card 1 is the one put there first)"
