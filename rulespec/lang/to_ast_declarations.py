"""The transformer's declarations: Lark subtrees of the top-level declarations -> AST nodes.

Clauses come up as tagged tuples (tag, value, span) and each declaration gathers its own;
a clause given twice where only one is allowed is reported (``_once``).  Also types, fields
and parameters, and the abilities of cards.
"""
from __future__ import annotations

from lark import Token, Transformer_NonRecursive, v_args

from . import ast as A
from .to_ast_leaves import _ident, _int, _span_of_meta, _span_of_token, _strlit, unquote

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



@v_args(meta=True)
class DeclarationsToAst(Transformer_NonRecursive):
    """The declaration and clause rules; a part of parser._ToAst (which holds ``problems``)."""

    def _once(self, what: str, name: str, items) -> None:
        """Report clauses that may appear only once in a block but appear again."""
        seen = set()
        for tag, _, span in items:
            if tag in _REPEATABLE:
                continue
            if tag in seen:
                self.problems.append((f"{what} '{name}' has a second {_CLAUSE_NAMES.get(tag, repr(tag))}",
                                      span, "give it once", "duplicate"))
            seen.add(tag)

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

    # ------------------------------------------------------------ effects, events and triggers
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

    def display_entry(self, meta, c):
        return A.DisplayEntry(str(c[0]), unquote(c[1]) if c[1] is not None else None, _span_of_meta(meta))

    def display_clause(self, meta, c):
        return A.DisplayClause(_ident(c[0]), tuple(c[1:]), _span_of_meta(meta))

    def display_decl(self, meta, c):
        return A.DisplayDecl(tuple(c), _span_of_meta(meta))

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
        name, t, values, default, doc = c
        return A.OptionDecl(str(name), t, default, doc, _span_of_meta(meta), values)

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
        capacity = next((x for x in c[2:] if isinstance(x, A.ZoneCapacity)), None)
        return A.ZoneDecl(str(c[0]), per_player, attrs_, doc, _span_of_meta(meta), capacity)

    def zone_capacity(self, meta, c):
        sign, n = c
        return A.ZoneCapacity(-_int(n) if sign is not None and str(sign) == "-" else _int(n), _span_of_meta(meta))

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
