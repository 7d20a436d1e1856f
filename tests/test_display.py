"""The display block: how a table of a game is drawn (docs/language.md, "display"), on
tests/rules/display_lab.rules (its scenario: tests/scenarios/display_lab/): the checker's
errors where they are, the defaults of every clause (rulespec/lang/display.py) on the shipped
games, that the block changes nothing in play, its words in the rulebook, the formatter and the
editor, and the card faces the web page draws from it (rulespec/tools/web/table.py)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.game import load_text
from rulespec.lang.checker import check_text
from rulespec.lang.display import layout
from rulespec.lang.errors import RulesError
from rulespec.lang.fmt import format_text
from rulespec.tools.docs import to_markdown
from rulespec.tools.editor.lsp_analysis import KEYWORDS, Analysis
from rulespec.tools.web.table import rules_meta

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "tests" / "rules" / "display_lab.rules"
LAB_TEXT = LAB.read_text(encoding="utf-8")
BLOCK = LAB_TEXT[LAB_TEXT.index("display {"):LAB_TEXT.index("}", LAB_TEXT.index("display {")) + 2]
BLOCK_LINE = LAB_TEXT[:LAB_TEXT.index("display {")].count("\n") + 1  # where the block starts


def lab_with(block: str) -> str:
    return LAB_TEXT.replace(BLOCK, block)


def errors_of(text: str) -> list:
    with pytest.raises(RulesError) as e:
        check_text(text, "lab.rules")
    return [d for d in e.value.diagnostics if d.severity == "error"]


def test_the_lab_declares_its_table():
    lay = layout(check_text(LAB_TEXT, "lab.rules"))
    assert lay.seat == (("tricks", "tricks won"), ("seat", "seat number"))
    assert lay.table == (("tricks_left", "tricks left"),)
    assert (lay.hand, lay.aside, lay.suit, lay.rank, lay.colour) == (("hand",), ("deck",), "suit", "rank", "shade")


@pytest.mark.parametrize("block, message, line_col", [
    ("display {\n  seats tricks\n}\n", "unknown display clause 'seats'", (2, 3)),
    ("display {\n  seat tricks_left\n}\n", "'tricks_left' is a variable of the whole game, not one per player", (2, 8)),
    ("display {\n  table tricks\n}\n", "'tricks' is a variable per player", (2, 9)),
    ("display {\n  seat tricks, tricks\n}\n", "'tricks' is listed twice in the display clause 'seat'", (2, 16)),
    ("display {\n  seat trick\n}\n", "unknown variable 'trick'", (2, 8)),
    ("display {\n  hand trick\n}\n", "'trick' is a shared zone: only a zone per player is held in a hand", (2, 8)),
    ("display {\n  aside pile\n}\n", "unknown zone 'pile'", (2, 9)),
    ("display {\n  suit rank\n}\n", "'suit' names a property whose values are an enum's members; 'rank' is int",
     (2, 8)),
    ("display {\n  colour rank\n}\n", "'colour' names a property whose values are an enum's members", (2, 10)),
    ("display {\n  rank suit, rank\n}\n", "'rank' names one property, not 2", (2, 14)),
    ("display {\n  rank face\n}\n", "unknown property 'face'", (2, 8)),
    ("display {\n  hand hand \"held\"\n}\n", "only the variables of 'seat' and 'table' take a caption", (2, 8)),
    ("display {\n  hand hand\n  hand won\n}\n", "the display block has a second 'hand' clause (line ", (3, 3)),
    ("display {\n  hand hand\n  aside hand\n}\n", "zone 'hand' is both held in the hand and left aside", (1, 1)),
    ("display { seat tricks }\ndisplay { seat seat }\n", "a rules file has at most one 'display' block", (2, 1)),
])
def test_the_checker_reports_a_bad_display_block_where_it_is(block, message, line_col):
    """line_col: in the block (its first line is 1)."""
    text = lab_with(block)
    errs = errors_of(text)
    assert len(errs) == 1, [e.message for e in errs]
    assert message in errs[0].message
    assert (errs[0].span.line - BLOCK_LINE + 1, errs[0].span.col) == line_col


def test_a_hint_names_the_clause_meant():
    (err,) = errors_of(lab_with("display {\n  seats tricks\n}\n"))
    assert err.hint == "did you mean 'seat'?"


@pytest.mark.parametrize("game, seat, hand, suit, colour", [
    ("chuhan", ("vp", "writs"), ("hand", "gift"), None, None),
    ("charuma", ("points", "bidder", "bid", "round_points"), ("hand",), None, "colour"),
    ("crazy_eights", (), ("hand",), "suit", None),
    ("euchre", None, ("hand",), "suit", "colour"),
    ("uno", None, ("hand",), None, "colour"),
])
def test_the_defaults_read_the_shape_of_the_rules(game, seat, hand, suit, colour):
    """Without a display block: per-player variables of plain values on the seats, the zones only
    their owner (or all but their owner) sees in the hand, a suit by its members' names, a colour too."""
    m = check_text((ROOT / "games" / f"{game}.rules").read_text(encoding="utf-8"), f"{game}.rules")
    assert m.display is None
    lay = layout(m)
    if seat is not None:
        assert tuple(v for v, _ in lay.seat) == seat
    assert (lay.hand, lay.suit, lay.colour, lay.rank, lay.table, lay.aside) == (hand, suit, colour, None, (), ())


def test_san_guo_sha_says_what_a_seat_shows():
    lay = layout(interpreter.load(str(ROOT / "games" / "sanguosha.rules")).model)
    assert lay.seat[:3] == (("side", "faction"), ("health", "health"), ("max_hp", "health limit"))
    assert lay.hand == ("hand",) and lay.aside == ("box", "general_pool") and lay.suit == "suit"


def _trace(game, players: int, seed: int) -> list:
    st = game.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    out = []
    while not st.is_terminal():
        legal = st.legal_action_strings()
        out.append((st.current_player, legal))
        st.apply(rng.choice(legal))
    return out + [st.log_lines(None), st.scores()]


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_the_block_changes_nothing_in_play(engine):
    without = LAB_TEXT.replace(BLOCK, "")
    assert "display {" not in without
    a, b = load_text(LAB_TEXT, "lab.rules", engine=engine), load_text(without, "lab.rules", engine=engine)
    for seed in range(6):
        assert _trace(a, 3, seed) == _trace(b, 3, seed)


def test_the_rulebook_says_how_the_table_is_drawn():
    book = to_markdown(check_text(LAB_TEXT, "lab.rules"))
    assert ("Drawn as a table (`rulespec serve`): each seat shows tricks won and seat number; the centre shows "
            "tricks left; the cards of hand are held in the hand") in book
    assert "a card shows its suit as a suit symbol, its rank in the corner and its shade as its colour." in book
    assert "At the table" not in to_markdown(check_text(LAB_TEXT.replace(BLOCK, ""), "lab.rules"))


def test_the_formatter_lays_out_the_block():
    messy = lab_with('display {\n      seat tricks   "tricks won" ,seat\n        suit suit  rank rank\n  hand hand }\n'
                     'display{aside deck}\n')
    tidy = format_text(messy, "lab.rules")
    assert 'display {\n  seat tricks "tricks won", seat\n  suit suit  rank rank\n  hand hand }\n' in tidy
    assert "display { aside deck }\n" in tidy
    assert format_text(LAB_TEXT, "lab.rules") == LAB_TEXT


def test_the_editor_knows_the_block_and_its_names():
    assert "display" in KEYWORDS
    for word in ("seat", "table", "hand", "aside", "suit", "rank", "colour"):
        assert word not in KEYWORDS  # clause words: names everywhere else
    an = Analysis(LAB_TEXT, "lab.rules")
    assert not [d for d in an.diagnostics if d.severity == "error"]
    line = LAB_TEXT.splitlines().index("  colour shade") + 1
    refs = an.index.references("property", "shade")
    assert any(o.line == line for o in refs), refs
    line = LAB_TEXT.splitlines().index('  seat tricks "tricks won", seat "seat number"') + 1
    assert any(o.line == line for o in an.index.references("global", "tricks"))


def test_the_page_draws_card_faces_from_the_block():
    faces = rules_meta(interpreter.load(str(LAB)))["cards"]
    assert faces["K of hearts"] == {"name": "K of hearts", "corner": "3", "suit": "♥", "ink": "red", "band": "",
                                    "props": [], "doc": ""}
    assert faces["A of spades"]["ink"] == "blue" and faces["A of spades"]["suit"] == "♠"
    chuhan = rules_meta(interpreter.load(str(ROOT / "games" / "chuhan.rules")))["cards"]
    assert chuhan["Ji Bu"]["props"] == [["kind", "dynasty"], ["rank", "3"], ["power", "ji bu"]]
    assert chuhan["Ji Bu"]["doc"].startswith("LEAD: look at the top 4 cards")
    charuma = rules_meta(interpreter.load(str(ROOT / "games" / "charuma.rules")))["cards"]
    assert charuma["blue 7"]["band"] == "blue" and charuma["blue 7"]["props"] == [["value", "7"]]
