"""The generated rulebooks and the language reference stay true to the code."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulespec.lang import ast as A
from rulespec.lang.checker import check_file
from rulespec.tools.cli import main
from rulespec.tools.docs import readings, to_html, to_markdown

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rules"))
GRAMMAR = (ROOT / "rulespec" / "lang" / "grammar.lark").read_text(encoding="utf-8")


@pytest.mark.parametrize("rules", [p for p in GAMES if (ROOT / "docs" / "games" / (p.stem + ".md")).exists()],
                         ids=lambda p: p.stem)
def test_committed_rulebooks_are_up_to_date(rules):
    committed = (ROOT / "docs" / "games" / (rules.stem + ".md")).read_text(encoding="utf-8")
    fresh = to_markdown(check_file(str(rules.relative_to(ROOT))))
    assert committed == fresh, f"docs/games/{rules.stem}.md is stale: run `rulespec doc {rules.relative_to(ROOT)} " \
                               f"-o docs/games/{rules.stem}.md`"


@pytest.mark.parametrize("rules", ["tests/rules/choice_lab.rules", "tests/rules/optional_lab.rules"])
def test_an_if_ask_reads_as_the_answer_not_as_its_hidden_local(rules):
    assert "if ask" in (ROOT / rules).read_text(encoding="utf-8")
    doc = to_markdown(check_file(str(ROOT / rules)))
    assert "If the answer is yes:" in doc
    assert "ask#" not in doc


def test_every_shipped_game_has_a_committed_rulebook():
    for rules in GAMES:
        assert (ROOT / "docs" / "games" / (rules.stem + ".md")).exists(), rules.name


NODE_CLASSES = {name for name, obj in vars(A).items() if isinstance(obj, type)}


@pytest.mark.parametrize("rules", GAMES, ids=lambda p: p.stem)
def test_no_construct_renders_as_a_class_name_none_or_a_placeholder(rules):
    text = to_markdown(check_file(str(rules)))
    prose = re.sub(r"```mermaid.*?```", "", text, flags=re.S)
    camel = {n for n in NODE_CLASSES if re.search(r"[a-z][A-Z]", n)}  # IntLit, BinOp, ...: never English
    for word in re.findall(r"[A-Za-z_]+", prose):
        assert word not in camel, word
    assert "None" not in prose
    assert "<" not in prose.replace("<!--", "").replace("-->", "")
    assert "TODO" not in prose and "???" not in prose


@pytest.mark.parametrize("rules", GAMES, ids=lambda p: p.stem)
def test_every_action_phase_and_card_is_described(rules):
    model = check_file(str(rules))
    text = to_markdown(model)
    for name in list(model.actions) + list(model.phases):
        assert name.replace("_", " ") in text, name
    for card in model.cards:
        assert f"| {card.name} |" in text, card.name
    for reading in readings(model.source):
        assert reading in text


def test_html_is_one_self_contained_page_with_the_diagram():
    page = to_html(check_file(str(ROOT / "games" / "charuma.rules")))
    assert page.startswith("<!DOCTYPE html>")
    assert '<pre class="mermaid">' in page and "mermaid.initialize" in page
    assert "http://" not in page.split("<script>")[0] and 'src="http' not in page


def test_doc_command_writes_markdown_and_html(tmp_path, capsys):
    out = tmp_path / "charuma.html"
    assert main(["doc", str(ROOT / "games" / "charuma.rules"), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert main(["doc", str(ROOT / "games" / "charuma.rules")]) == 0
    assert "# Charuma" in capsys.readouterr().out
    assert main(["doc", str(tmp_path / "missing.rules")]) == 1


def _grammar_rules() -> set[str]:
    names = set(re.findall(r"^\??!?([a-z_]+)\s*:", GRAMMAR, flags=re.M))
    names |= set(re.findall(r"->\s*([a-z_]+)", GRAMMAR))
    return names


def test_the_language_reference_mentions_every_grammar_rule():
    reference = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    missing = sorted(r for r in _grammar_rules() if r not in reference)
    assert not missing, f"docs/language.md does not mention: {missing}"


def test_the_rulebook_says_copies_by_setup_powers_scaling_ranges_and_enum_order():
    setup = to_markdown(check_file("tests/rules/setup_lab.rules"))
    assert "| King | 1 with 2 or 3 players, 2 with 4 or 5 players | 3 |" in setup
    assert "| Queen | 1 with 2 players, 2 with 3 players, 3 with 4 players, 4 with 5 players |" in setup
    assert "| Joker | 0 if the jokers option is off, otherwise 1 if the number of players is at most 3, " \
           "otherwise 2 |" in setup
    assert "Up to 10 cards (how many depends on the options):" in setup
    gaps = to_markdown(check_file("tests/rules/gaps_lab.rules"))
    assert "| `seat` | 1 | The seat that plays first (counted round past the last player). (1 to 4) |" in gaps
    for said in ["Set the pot to 2 to the power the number of cards in", "such that c's rank is no earlier than high",
                 "Multiply the pot by the number of players.", "Divide the pot by 2, rounding down.",
                 "If the top comes after low:", "Set the top to the latest c's rank for any c in the cards in the table.",
                 "The game ends; nobody wins."]:
        assert said in gaps, said


def test_a_deck_whose_copies_depend_only_on_the_player_count_is_sized_by_it(tmp_path):
    p = tmp_path / "sized.rules"
    p.write_text('game "Sized" { players 2..5 start go cards start in deck }\n'
                 'card "A" { copies: 4 }\ncard "B" { copies: if player_count <= 3 then 2 else 4 }\n'
                 'zone deck: pile hidden\naction end_it() { effect { end game } }\n'
                 'phase go { actions end_it  after { active = next_player(active) } next go }\n', encoding="utf-8")
    assert "6 cards with 2 or 3 players, 8 with 4 or 5 players:" in to_markdown(check_file(str(p)))
