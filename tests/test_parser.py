"""The parser: text -> AST, with spans, and syntax errors as compiler-style diagnostics."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from rulespec.lang import ast as A
from rulespec.lang.diagnostics import RulesError
from rulespec.lang.parser import MAX_DEPTH, parse_expr, parse_file, parse_template, parse_text

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"


def syntax_error(text: str, path: str = "t.rules"):
    with pytest.raises(RulesError) as info:
        parse_text(text, path)
    errors = [d for d in info.value.diagnostics if d.severity == "error"]
    assert errors, "a RulesError without an error"
    return errors[0], info.value


def shape(e) -> str:
    """A compact, fully parenthesised rendering of an expression, to test its structure."""
    if isinstance(e, A.IntLit):
        return str(e.value)
    if isinstance(e, A.StrLit):
        return repr(e.value)
    if isinstance(e, A.BoolLit):
        return "true" if e.value else "false"
    if isinstance(e, A.NoneLit):
        return "none"
    if isinstance(e, A.Name):
        return e.name
    if isinstance(e, A.Attr):
        return f"{shape(e.obj)}.{e.name}"
    if isinstance(e, A.Index):
        return f"{shape(e.obj)}[{shape(e.index)}]"
    if isinstance(e, A.Call):
        return f"{e.func}({', '.join(shape(a) for a in e.args)})"
    if isinstance(e, A.ListLit):
        return f"[{', '.join(shape(a) for a in e.items)}]"
    if isinstance(e, A.Unary):
        return f"({e.op} {shape(e.operand)})"
    if isinstance(e, A.BinOp):
        return f"({shape(e.left)} {e.op} {shape(e.right)})"
    if isinstance(e, A.Chain):  # shown grouped from the left, as it is evaluated
        out = shape(e.operands[0])
        for op, x in zip(e.ops, e.operands[1:]):
            out = f"({out} {op} {shape(x)})"
        return out
    if isinstance(e, A.Range):
        return f"({shape(e.lo)} .. {shape(e.hi)})"
    if isinstance(e, A.IfExpr):
        return f"(if {shape(e.cond)} then {shape(e.then)} else {shape(e.else_)})"
    if isinstance(e, A.Quant):
        out = f"({e.kind} {e.var} in {shape(e.domain)}"
        if e.where is not None:
            out += f" where {shape(e.where)}"
        if e.body is not None:
            out += f": {shape(e.body)}"
        if e.ties_last:
            out += " ties last"
        return out + ")"
    raise AssertionError(f"unexpected node {e!r}")


def decls_of(text: str, kind):
    return [d for d in parse_text(text).decls if isinstance(d, kind)]


def stmts_of(body: str) -> tuple:
    (phase,) = decls_of(f"phase p {{ enter {{\n{body}\n}} }}", A.PhaseDecl)
    return phase.enter.stmts


# ---------------------------------------------------------------- the shipped game
def test_charuma_parses():
    rules = parse_file(CHARUMA)
    kinds = Counter(type(d).__name__ for d in rules.decls)
    assert kinds["GameDecl"] == 1
    for kind in ("OptionDecl", "EnumDecl", "PropertyDecl", "CardDecl", "ZoneDecl", "VarDecl", "DefDecl",
                 "ActionDecl", "PhaseDecl"):
        assert kinds[kind] >= 1, kind
    names = {getattr(d, "name", None) for d in rules.decls}
    assert {"bid", "lead", "follow", "setup", "deal", "trick", "stock", "points", "strength"} <= names
    game = next(d for d in rules.decls if isinstance(d, A.GameDecl))
    assert (game.name, game.min_players, game.max_players) == ("Charuma", 2, 5)
    assert game.start.name == "setup" and game.cards_start.name == "stock"
    assert rules.path == str(CHARUMA)


def test_charuma_with_crlf_line_ends_parses_identically():
    text = CHARUMA.read_text(encoding="utf-8")
    a = parse_text(text)
    b = parse_text(text.replace("\n", "\r\n"))
    assert [type(d) for d in a.decls] == [type(d) for d in b.decls]
    assert [d.span for d in a.decls] == [d.span for d in b.decls]


def test_byte_order_mark_is_ignored(tmp_path):
    f = tmp_path / "bom.rules"
    f.write_bytes(b"\xef\xbb\xbf" + CHARUMA.read_bytes())
    rules = parse_file(f)
    assert rules.decls[0].span.line == 6 and rules.decls[0].span.col == 1
    assert parse_text("\ufeffgame \"x\" { }").decls[0].span.col == 1


def test_empty_and_comment_only_files_have_no_declarations():
    assert parse_text("").decls == ()
    assert parse_text("# only a comment\n\n   # and another\n").decls == ()


# ---------------------------------------------------------------- precedence
@pytest.mark.parametrize("src, expected", [
    ("a or b and c", "(a or (b and c))"),
    ("a and b or c", "((a and b) or c)"),
    ("a or b or c", "((a or b) or c)"),
    ("not a and b", "((not a) and b)"),
    ("not a or not b", "((not a) or (not b))"),
    ("not not a", "(not (not a))"),
    ("not a == b", "(not (a == b))"),
    ("a == b and c != d", "((a == b) and (c != d))"),
    ("a < b or c >= d", "((a < b) or (c >= d))"),
    ("x in players and y <= 3", "((x in players) and (y <= 3))"),
    ("a + b * c", "(a + (b * c))"),
    ("a * b + c", "((a * b) + c)"),
    ("a - b - c", "((a - b) - c)"),
    ("a / b % c", "((a / b) % c)"),
    ("(a + b) * c", "((a + b) * c)"),
    ("-a * b", "((- a) * b)"),
    ("- -a", "(- (- a))"),
    ("a + b < c * d", "((a + b) < (c * d))"),
    ("1 .. n + 1", "(1 .. (n + 1))"),
    ("a + 1 == b .. c", "((a + 1) == (b .. c))"),
    ("f(x).y[0]", "f(x).y[0]"),
    ("hand[active][0].value", "hand[active][0].value"),
    ("f()", "f()"),
    ("g(a, b + 1, [c])", "g(a, (b + 1), [c])"),
    ("[1, 2, 3]", "[1, 2, 3]"),
    ("[]", "[]"),
    ('["a", true, false, none]', "['a', true, false, none]"),
    ("if a then b else c", "(if a then b else c)"),
    ("if a then b else if c then d else e", "(if a then b else (if c then d else e))"),
    ("if a or b then 1 + 2 else 3", "(if (a or b) then (1 + 2) else 3)"),
    ("count(xs) + 1", "(count(xs) + 1)"),
    ("max(a, b)", "max(a, b)"),
])
def test_expression_structure(src, expected):
    assert shape(parse_expr(src)) == expected


@pytest.mark.parametrize("src, expected", [
    ("any x in xs", "(any x in xs)"),
    ("any x in xs where x > 1", "(any x in xs where (x > 1))"),
    ("all p in players: has_bid(p)", "(all p in players: has_bid(p))"),
    ("count c in cards(trick) where c.value == 1", "(count c in cards(trick) where (c.value == 1))"),
    ("sum p in players: points[p]", "(sum p in players: points[p])"),
    ("max p in players where p != active: points[p]", "(max p in players where (p != active): points[p])"),
    ("min p in players: points[p]", "(min p in players: points[p])"),
    ("first p in players_after(x) where ok(p)", "(first p in players_after(x) where ok(p))"),
    ("collect c in stock where c.value >= 2", "(collect c in stock where (c.value >= 2))"),
    ("collect c in cs: c.colour", "(collect c in cs: c.colour)"),
    ("argmax p in plays(trick): strength(p.cards) ties last",
     "(argmax p in plays(trick): strength(p.cards) ties last)"),
    ("argmin p in players where p != active: points[p]", "(argmin p in players where (p != active): points[p])"),
    ("any a in xs: any b in xs: a != b", "(any a in xs: (any b in xs: (a != b)))"),
    ("count x in xs + 1", "(count x in (xs + 1))"),
])
def test_quantifiers(src, expected):
    assert shape(parse_expr(src)) == expected


def test_quantifier_fields():
    q = parse_expr("argmax p in players where p != active: points[p] ties last")
    assert isinstance(q, A.Quant)
    assert (q.kind, q.var, q.ties_last) == ("argmax", "p", True)
    assert shape(q.domain) == "players" and shape(q.where) == "(p != active)" and shape(q.body) == "points[p]"
    q = parse_expr("any x in xs")
    assert q.where is None and q.body is None and q.ties_last is False


def test_names_that_start_like_quantifiers_are_names():
    assert shape(parse_expr("country + anyone + summit")) == "((country + anyone) + summit)"
    assert shape(parse_expr("count(xs)")) == "count(xs)"


def test_comparisons_do_not_chain():
    with pytest.raises(RulesError) as info:
        parse_expr("a < b < c")
    assert info.value.diagnostics[0].message == "unexpected '<'"


# ---------------------------------------------------------------- templates
def test_template_pieces_and_positions():
    text = 'phase p { enter {\n  log "{p} scores {points[p] + 1} now"\n} }'
    (phase,) = parse_text(text).decls
    lit = phase.enter.stmts[0].template
    parts = parse_template(lit, "t.rules", text)
    assert [shape(x) if isinstance(x, A.Expr) else x for x in parts] == ["p", " scores ", "(points[p] + 1)", " now"]
    # spans point into the file: line 2, columns of the text inside the braces
    line = text.split("\n")[1]
    assert parts[0].span.line == 2 and parts[0].span.col == line.index("{p}") + 2
    plus = parts[2]
    assert plus.span.col == line.index("points") + 1
    assert plus.operands[1].span.col == line.index("1}") + 1


def test_template_spans_allow_for_escapes_before_the_hole():
    text = 'phase p { enter { log "say \\"hi\\" to {who}" } }'
    (phase,) = parse_text(text).decls
    lit = phase.enter.stmts[0].template
    assert lit.value == 'say "hi" to {who}'
    (_, who) = parse_template(lit, "t.rules", text)
    assert who.span.col == text.index("who") + 1


def test_template_without_holes_is_one_piece():
    lit = A.StrLit("plain text", A.Span(1, 1, 1, 13))
    assert parse_template(lit, "t.rules") == ["plain text"]


def test_template_syntax_error_points_into_the_string():
    text = 'phase p { enter {\n  log "total {a + } here"\n} }'
    (phase,) = parse_text(text).decls
    with pytest.raises(RulesError) as info:
        parse_template(phase.enter.stmts[0].template, "t.rules", text)
    (d,) = info.value.diagnostics
    assert d.message.startswith("in template: unexpected end of expression")
    assert d.span.line == 2 and d.span.col == text.split("\n")[1].index("+") + 2
    assert d.hint and d.hint.startswith("expected ")
    rendered = info.value.render()
    assert re.match(r"^t\.rules:2:\d+: error: in template: ", rendered)


# ---------------------------------------------------------------- statements
def test_every_statement_kind():
    stmts = stmts_of("""
    let n = 3
    x = 1
    points[p] += 2
    points[p] -= 1
    move stock to aside
    move hand[p] to stock bottom
    move c to stock top
    deal 2 from stock to hand[p]
    shuffle stock
    play cs to trick
    play cs to trick by p
    if a { x = 1 } elif b { x = 2 } elif c { } else { x = 3 }
    if a { }
    for p in players { log "hi {p}" }
    end game
    end game winners leaders()
    log "done"
    reveal hand[p]
    conceal hand[p]
    """)
    kinds = [type(s).__name__ for s in stmts]
    assert kinds == ["Let", "Assign", "Assign", "Assign", "Move", "Move", "Move", "Deal", "Shuffle", "Play", "Play",
                     "If", "If", "For", "EndGame", "EndGame", "Log", "Reveal", "Reveal"]
    let, set_, add, sub, mv, mv_bottom, mv_top, deal, shuffle, play, play_by, if3, if1, for_, end, end_w, log, rev, con = stmts
    assert let.name == "n" and shape(let.value) == "3"
    assert (set_.op, set_.target.name, set_.target.index) == ("=", "x", None)
    assert (add.op, add.target.name, shape(add.target.index), shape(add.value)) == ("+=", "points", "p", "2")
    assert sub.op == "-="
    assert (shape(mv.cards), shape(mv.dest), mv.position) == ("stock", "aside", "top")
    assert mv_bottom.position == "bottom" and mv_top.position == "top"
    assert (shape(deal.count), shape(deal.source), shape(deal.dest)) == ("2", "stock", "hand[p]")
    assert shape(shuffle.zone) == "stock"
    assert play.by is None and shape(play_by.by) == "p"
    assert [shape(c) for c, _ in if3.branches] == ["a", "b", "c"] and if3.else_ is not None
    assert len(if3.branches[2][1].stmts) == 0 and len(if3.else_.stmts) == 1
    assert len(if1.branches) == 1 and if1.else_ is None
    assert for_.var == "p" and shape(for_.iterable) == "players" and isinstance(for_.body.stmts[0], A.Log)
    assert end.winners is None and shape(end_w.winners) == "leaders()"
    assert log.template.value == "done"
    assert rev.reveal is True and con.reveal is False


# ---------------------------------------------------------------- declarations
FULL = '''
game "Full" {
  players 2..6
  doc "A game."
  start first
  cards start in deck
  score p: pts[p]
}
enum Colour { red, blue, } "Two colours."
enum Rank { low }
option rounds: int = 3 "How many rounds."
option teams: bool = false
property value: int "The number."
property tags: list[text]
card "Red 1" { value: 1, colour: red copies: 2 } "A red card."
card "Blank" { }
zone deck: pile hidden "The deck."
zone hand[player]: set owner
zone trick: plays public
var pts[player]: int = 0 "Points."
var lead: player
var seen: list[card] = []
def double(x: int): int = x * 2 "Twice x."
def pick(cs: list[card], n: int): list[card] = top(deck, n)
def nothing(): bool = true
invariant "points are never negative": all p in players: pts[p] >= 0
invariant "the deck is full at the start" at first: count(deck) > 0
action take(n: int in 1..3, who: player where who != active, c: card from hand[active] where c.value > 0,
            cs: cards from hand[active] size 1..2 same value) {
  doc "Take cards."
  text "take {n}"
  require n <= 3 else "too many"
  require true
  effect { pts[active] += n }
}
action noop() { }
phase first {
  doc "The first phase."
  enter { shuffle deck }
  actor lead
  actions take
  actions noop
  after { lead = next_player(lead) }
  end when count(deck) == 0
  exit { log "bye" }
  next first when rounds > 1
  next first
}
phase empty { }
'''


def test_every_declaration_kind():
    rules = parse_text(FULL, "full.rules")
    by_kind = {}
    for d in rules.decls:
        by_kind.setdefault(type(d).__name__, []).append(d)
    game, = by_kind["GameDecl"]
    assert (game.name, game.min_players, game.max_players, game.doc) == ("Full", 2, 6, "A game.")
    assert game.start.name == "first" and game.cards_start.name == "deck"
    assert game.score.var == "p" and shape(game.score.expr) == "pts[p]"

    colour, rank = by_kind["EnumDecl"]
    assert [m.name for m in colour.members] == ["red", "blue"] and colour.doc == "Two colours."
    assert [m.name for m in rank.members] == ["low"] and rank.doc is None

    rounds, teams = by_kind["OptionDecl"]
    assert (rounds.name, str(rounds.type), shape(rounds.default), rounds.doc) == ("rounds", "int", "3", "How many rounds.")
    assert teams.doc is None and shape(teams.default) == "false"

    value, tags = by_kind["PropertyDecl"]
    assert (value.name, str(value.type), value.doc) == ("value", "int", "The number.")
    assert str(tags.type) == "list[text]" and tags.type.elem.name == "text"

    red, blank = by_kind["CardDecl"]
    assert red.name == "Red 1" and red.doc == "A red card."
    assert [(f.name, shape(f.value)) for f in red.fields] == [("value", "1"), ("colour", "red"), ("copies", "2")]
    assert blank.fields == () and blank.doc is None

    deck, hand, trick = by_kind["ZoneDecl"]
    assert (deck.name, deck.per_player, [a.name for a in deck.attrs], deck.doc) == ("deck", False, ["pile", "hidden"], "The deck.")
    assert hand.per_player is True and [a.name for a in hand.attrs] == ["set", "owner"]
    assert [a.name for a in trick.attrs] == ["plays", "public"]

    pts, lead, seen = by_kind["VarDecl"]
    assert (pts.name, pts.per_player, str(pts.type), shape(pts.default), pts.doc) == ("pts", True, "int", "0", "Points.")
    assert lead.per_player is False and lead.default is None
    assert str(seen.type) == "list[card]" and shape(seen.default) == "[]"

    double, pick, nothing = by_kind["DefDecl"]
    assert [(p.name, str(p.type)) for p in double.params] == [("x", "int")]
    assert str(double.rtype) == "int" and shape(double.body) == "(x * 2)" and double.doc == "Twice x."
    assert [(p.name, str(p.type)) for p in pick.params] == [("cs", "list[card]"), ("n", "int")]
    assert nothing.params == () and nothing.doc is None

    inv1, inv2 = by_kind["InvariantDecl"]
    assert inv1.text == "points are never negative" and inv1.at is None
    assert inv2.at.name == "first"

    take, noop = by_kind["ActionDecl"]
    assert [(p.name, p.kind) for p in take.params] == [("n", "int"), ("who", "player"), ("c", "card"), ("cs", "cards")]
    n, who, c, cs = take.params
    assert shape(n.domain) == "(1 .. 3)"
    assert who.domain is None and shape(who.cond) == "(who != active)"
    assert shape(c.domain) == "hand[active]" and shape(c.cond) == "(c.value > 0)"
    assert shape(cs.domain) == "hand[active]" and shape(cs.size) == "(1 .. 2)" and cs.same.name == "value"
    assert take.doc == "Take cards." and take.text.value == "take {n}"
    assert [(shape(r.cond), r.message) for r in take.requires] == [("(n <= 3)", "too many"), ("true", None)]
    assert isinstance(take.effect, A.Block) and len(take.effect.stmts) == 1
    assert (noop.params, noop.doc, noop.text, noop.requires, noop.effect) == ((), None, None, (), None)

    first, empty = by_kind["PhaseDecl"]
    assert first.doc == "The first phase." and shape(first.actor) == "lead"
    assert [a.name for a in first.actions] == ["take", "noop"]
    assert first.enter.stmts and first.after.stmts and first.exit.stmts
    assert shape(first.end_when) == "(count(deck) == 0)"
    assert [(n.target.name, shape(n.cond) if n.cond else None) for n in first.nexts] == \
        [("first", "(rounds > 1)"), ("first", None)]
    assert (empty.doc, empty.enter, empty.actor, empty.actions, empty.nexts) == (None, None, None, (), ())


def test_words_that_are_keywords_elsewhere_can_name_variables():
    # the LALR states after an expression merge, so `score`, `cards`, `size`, ... lex as keywords there
    stmts = stmts_of("x = 1 score[p] = 2 cards = 3 size = 4 start = 5 next = 6 players = 7 doc = 8")
    assert [s.target.name for s in stmts] == ["x", "score", "cards", "size", "start", "next", "players", "doc"]


# ---------------------------------------------------------------- spans
def test_spans_are_line_and_column_of_the_source():
    text = "game \"S\" {\n  players 2..3\n}\nvar total: int = 1 +\n    foo * 2\nphase p {\n  next p\n}\n"
    game, var, phase = parse_text(text).decls
    assert (game.span.line, game.span.col, game.span.end_line, game.span.end_col) == (1, 1, 3, 2)
    assert (var.span.line, var.span.col) == (4, 1)
    plus = var.default
    assert isinstance(plus, A.Chain) and plus.ops == ("+",)
    assert (plus.span.line, plus.span.col, plus.span.end_line, plus.span.end_col) == (4, 18, 5, 12)
    assert (plus.operands[0].span.line, plus.operands[0].span.col) == (4, 18)
    times = plus.operands[1]
    assert (times.span.line, times.span.col, times.span.end_col) == (5, 5, 12)
    assert (times.operands[0].span.line, times.operands[0].span.col, times.operands[0].span.end_col) == (5, 5, 8)
    assert str(times.operands[0].span) == "5:5"
    assert (var.type.span.line, var.type.span.col) == (4, 12)
    nxt = phase.nexts[0]
    assert (nxt.target.span.line, nxt.target.span.col) == (7, 8)
    assert (phase.span.line, phase.span.col, phase.span.end_line) == (6, 1, 8)


def test_spans_of_compound_expressions():
    e = parse_expr("if a then f(b, c) else xs[0].name")
    assert (e.span.col, e.span.end_col) == (1, 34)
    assert (e.then.span.col, e.then.span.end_col) == (11, 18)  # f(b, c)
    attr = e.else_
    assert isinstance(attr, A.Attr) and (attr.span.col, attr.span.end_col) == (24, 34)
    assert (attr.obj.span.col, attr.obj.span.end_col) == (24, 29)  # xs[0]
    q = parse_expr("  count x in xs where x")
    assert (q.span.col, q.span.end_col) == (3, 24)
    assert (parse_expr("  true").span.col, parse_expr(" none").span.col, parse_expr("false").span.end_col) == (3, 2, 6)
    lst = parse_expr("[1, 22]")
    assert (lst.span.col, lst.span.end_col) == (1, 8) and lst.items[1].span.col == 5


def test_statement_spans():
    text = "phase p {\n  enter {\n    let x = 1\n    move a to b bottom\n  }\n}"
    (phase,) = parse_text(text).decls
    let, move = phase.enter.stmts
    assert (let.span.line, let.span.col, let.span.end_col) == (3, 5, 14)
    assert (move.span.line, move.span.col, move.span.end_col) == (4, 5, 23)
    assert (phase.enter.span.line, phase.enter.span.col, phase.enter.span.end_line) == (2, 9, 5)


# ---------------------------------------------------------------- syntax errors
def test_unexpected_token_says_what_was_expected():
    d, err = syntax_error('game "x" {\n  players 2..4\n}\nzone deck pile\n')
    assert d.message == "unexpected 'pile'"
    assert (d.span.line, d.span.col, d.span.end_col) == (4, 11, 15)
    assert d.hint.startswith("expected ") and "':'" in d.hint and "'['" in d.hint
    rendered = err.render().split("\n")
    assert rendered[0] == "t.rules:4:11: error: unexpected 'pile' [syntax]"
    assert rendered[1] == "    zone deck pile"
    assert rendered[2] == "              ^~~~"
    assert rendered[3].startswith("  hint: expected ")


def test_expected_list_names_punctuation_and_keywords_readably():
    d, _ = syntax_error("phase p { enter { x 1 } }")
    assert d.message == "unexpected '1'"
    assert d.hint == "expected '*=', '+=', '-=', '.', '/=', '=' or '['"
    d, _ = syntax_error("game \"g\" { players 2 }")
    assert d.hint == "expected '..'"
    d, _ = syntax_error("phase p { bogus }")
    assert "'enter'" in d.hint and "'next'" in d.hint and "__anon" not in d.hint.lower()


def test_unexpected_character():
    d, err = syntax_error("game \"x\" { players 2..4 }\nvar v: int = 3 @ 4\n")
    assert d.message == "unexpected character '@'"
    assert (d.span.line, d.span.col) == (2, 16)
    assert err.render().startswith("t.rules:2:16: error: unexpected character '@' [syntax]\n    var v: int = 3 @ 4\n                   ^")


def test_unterminated_string_has_a_hint():
    d, _ = syntax_error('game "x {\n  players 2..4\n}\n')
    assert d.message == "unexpected character '\"'"
    assert (d.span.line, d.span.col) == (1, 6)
    assert "same line" in d.hint


def test_unexpected_end_of_file_points_after_the_last_token():
    d, err = syntax_error('game "x" {\n  players 2..4\n\n\n')
    assert d.message == "unexpected end of file"
    assert (d.span.line, d.span.col) == (2, 15)
    assert "'}'" in d.hint
    assert err.render().split("\n")[0] == "t.rules:2:15: error: unexpected end of file [syntax]"


def test_unexpected_end_of_expression():
    with pytest.raises(RulesError) as info:
        parse_expr("1 +")
    assert info.value.diagnostics[0].message == "unexpected end of expression"


def test_number_too_large():
    d, _ = syntax_error("var v: int = " + "9" * 5000)
    assert d.message == "this number is too large" and (d.span.line, d.span.col) == (1, 14)
    assert parse_expr("000000000000000000000000001").value == 1


def test_deep_nesting_is_a_clean_error():
    deep = "(1 + " * 5000 + "1" + ")" * 5000
    d, _ = syntax_error(f"var v: int = {deep}")
    assert d.message == f"this nests more than {MAX_DEPTH} levels deep"
    assert d.hint
    d, _ = syntax_error("var v: int = " + "-" * 2000 + "1")
    assert "levels deep" in d.message
    blocks = "if true { " * 1000 + "}" * 1000
    d, _ = syntax_error(f"phase p {{ enter {{ {blocks} }} }}")
    assert "levels deep" in d.message


def test_redundant_parentheses_do_not_count_as_nesting():
    e = parse_expr("(" * 5000 + "7" + ")" * 5000)
    assert isinstance(e, A.IntLit) and e.value == 7


def test_moderate_nesting_is_fine():
    e = parse_expr("(1 + " * 60 + "1" + ")" * 60)
    assert isinstance(e, A.Chain)


def test_clause_given_twice_is_an_error():
    with pytest.raises(RulesError) as info:
        parse_text('game "g" { players 2..3 players 2..4 }\n'
                   'action a() { text "a" text "b" effect { } effect { } require true require true }\n'
                   'phase p { enter { } enter { } next p next p actions a actions a }')
    msgs = [(d.span.line, d.message) for d in info.value.diagnostics]
    assert msgs == [(1, "the game 'g' has a second 'players' clause"),
                    (2, "action 'a' has a second 'text' clause"),
                    (2, "action 'a' has a second 'effect' block"),
                    (3, "phase 'p' has a second 'enter' block")]


def test_every_rendered_syntax_error_starts_with_a_location():
    bad = ["game", "game \"x\" {", "phase p { enter { move } }", "var x: = 1", "}", "zone z[player: pile",
           "action a(x: int in) { }", "def f(: int = 1", "card \"c\" { value 1 }", "enum E { }", "\x07"]
    for text in bad:
        with pytest.raises(RulesError) as info:
            parse_text(text, "bad.rules")
        first = info.value.render().split("\n")[0]
        assert re.match(r"^bad\.rules:\d+:\d+: error: ", first), (text, first)
