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


# ---------------------------------------------------------------------- the English reads right
RULES_FILES = GAMES + sorted((ROOT / "tests" / "rules").glob("*.rules"))  # a lab added later is read too
SUBJECT_VERBS = "chooses|may|answers|looks|becomes|decides|is|are"


def _prose(model) -> str:
    return re.sub(r"```mermaid.*?```", "", to_markdown(model), flags=re.S)


def _locals(model) -> set[str]:
    """The names the rules bind locally (parameters, loop variables, lets), as the English says them."""
    return {ref[1].replace("_", " ") for ref in model.refs.values() if isinstance(ref, tuple) and ref[0] == "local"}


def english_faults(prose: str, names: set[str]) -> list[str]:
    """The classes of wrong English a rulebook once had, found in its text (names: its locals)."""
    faults = []
    checks = [
        (r"[{}]", "a template hole printed raw"),
        (r"\b(is|are) not nobody\b", "none compared without its type"),
        (r"(?<![\d,-])1 cards\b|\bthe (top|bottom) 1\b", "'1 cards'"),
        (r"\bsuch that (false|true)\b", "a constant condition read literally"),
        (r"\bthe to\b", "a name that is not a noun after 'the'"),
        (r"(?<!of )\b[Tt]he cards (in|of) (the |\w+'s )?\w+ is\b", "'the cards ... is'"),
    ]
    for pattern, what in checks:
        for m in re.finditer(pattern, prose):
            faults.append(f"{what}: ...{prose[max(0, m.start() - 60):m.end() + 20]}...")
    from rulespec.lang.english_words import is_plural_word
    for m in re.finditer(r"(?<!of )(?<!in )\b(?:[Tt]he|\w+'s) (\w+) is\b", prose):  # "the hints is", "p's points is"
        if is_plural_word(m.group(1)):
            faults.append(f"agreement: ...{m.group(0)}...")
    for m in re.finditer(rf"^\s*- ([A-Z][\w ]*?)(?:'s)? ({SUBJECT_VERBS})\b", prose, flags=re.M):
        if m.group(1).lower() in names:  # "- Q looks at ...": a local capitalised
            faults.append(f"a capitalised local: {m.group(0).strip()}")
    return faults


@pytest.mark.parametrize("rules", RULES_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_rulebook_is_free_of_the_known_faults(rules):
    model = check_file(str(rules))
    assert english_faults(_prose(model), _locals(model)) == []


def test_the_fault_finder_finds_each_fault():
    """Each check above catches what it is for (a test that cannot fail is a defect)."""
    bad = ("- Everyone is told “{active} tells {t}”.\n- If c is not nobody:\n- Move the top 1 cards.\n"
           "- every p in the players such that false\n- Set the to play to p.\n- The cards in the trick is hidden.\n"
           "- the hints is more than 0\n- Q looks at the top card.\n- 11 cards and 61 cards: fine\n")
    faults = english_faults(bad, {"q"})
    kinds = {f.split(":")[0] for f in faults}
    assert kinds == {"a template hole printed raw", "none compared without its type", "'1 cards'",
                     "a constant condition read literally", "a name that is not a noun after 'the'",
                     "'the cards ... is'", "agreement", "a capitalised local"}, faults
    assert not any("11 cards" in f or "61 cards" in f for f in faults)


LAB = ROOT / "tests" / "rules" / "english_lab.rules"


@pytest.fixture(scope="module")
def lab_doc() -> str:
    return to_markdown(check_file(str(LAB)))


@pytest.mark.parametrize("english", [
    # template holes as words in square brackets, a call and arithmetic inside them
    "Everyone is told “[the active player] tells [t]: [hint text (the cards in t's hand)], "
    "[the number of cards in t's hand plus 1] in all”.",
    "(discard a card costing up to [c's cost plus 2])",
    "- **hint text** (cs): “[the number of cards in cs] cards”.",
    # number agreement
    "- the number of hints is more than 0 (otherwise: “no hints left”)",
    "- The cards in the trick are hidden again.",
    "- Move the top card of the deck to the active player's hand.",
    "- Set the drawn card to the top card of the discard.",
    # none by the type of what is compared
    "- there is a drawn card",
    "- the player who went out is nobody (otherwise: “somebody went out”)",
    # a local never capitalised at the start of a sentence
    "- Player q chooses a card from q's hand",
    # a look in a loop over players is not "nobody else"
    "- Player q looks at the top card of the active player's hand (only the players who look see it).",
    # the possessive on the right noun
    "- **lead suit**: the suit of the first card in the trick.",
    # brackets where the words could be grouped otherwise
    "- **bonus**: (100 times the doubling times (2 if the vul option is on, otherwise 1)) plus "
    "(((10 times the doubling) if the vul option is on, otherwise 5) times 3).",
    # a constant condition
    "- **left out**: no players.",
    "the game ends; nobody wins.",
    # a branch that only logs
    "- If passed out:\n    - nothing changes (the log says “passed out”).",
    # names that are not nouns
    "- Set the player to play to the player to the left of the player to play.",
    "- The player to play becomes the active player.",
    # the condition that ends the game, stated where the game ends
    "- In phase over: the game ends; nobody wins. Phase over comes after phase check when game over, that is "
    "when the number of hints is 0 or the number of turns is at least 6.",
])
def test_the_english_lab_reads_right(lab_doc, english):
    assert english in lab_doc, english


def test_the_english_lab_holds_each_construct():
    source = LAB.read_text(encoding="utf-8")
    for construct in ["announce \"{active} tells {t}: {hint_text(", "{count(hand[t]) + 1}", "var hints: int",
                      "top(deck, 1)", "drawn != none", "went_out == none", "for q in players",
                      "look top(hand[active], 1) by q", "cards(trick)[0].suit", "(if vul then 2 else 1)",
                      "collect p in players where false", "log \"passed out\"", "next over when game_over()",
                      "var to_play: player", "conceal cards(trick)"]:
        assert construct in source, construct
