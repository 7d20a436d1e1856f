"""The scenario format (rulespec/tools/scenario/): its reference, pile order, invariant checks
of positions, 'nobody' for no player, response actions outside a window, and the runner's shape."""
from __future__ import annotations

import ast
import os
import re
import textwrap
from pathlib import Path

import pytest

import rulespec.tools.scenario as scenario
from rulespec.tools.scenario import CHECKS, EXPECT_KEYS, POSITION_KEYS, STEP_EXTRA_KEYS, STEP_KEYS, TOP_KEYS, ScenarioError, load_file, run_scenario

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"
EIGHTS = ROOT / "games" / "crazy_eights.rules"
CHUHAN = ROOT / "games" / "chuhan.rules"

# Crazy Eights, 3 players, P1 to play: the stock is exactly the cards listed (bottom to top).
EIGHTS_HEADER = f"""\
rules: {EIGHTS}
players: 3
position:
  phase: turn
  active: P1
  rest: hand[P3]
  zones:
    stock: [2 of diamonds, K of clubs, 5 of spades]
    discard: [4 of hearts]
    hand[P1]: [9 of spades]
    hand[P2]: [Q of hearts]
  vars: {{suit_to_follow: hearts}}
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def run(path: Path):
    scenarios = load_file(path)
    assert len(scenarios) == 1
    return run_scenario(scenarios[0])


def error_of(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        run(path)
    msg = str(info.value)
    assert "\n" not in msg and "Traceback" not in msg
    return info.value


def line_of(path: Path, needle: str) -> int:
    found = [i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    assert found, needle
    return found[-1]


# ---------------------------------------------------------------------- the reference
def _all_keys() -> dict[str, tuple]:
    return {"top-level": TOP_KEYS, "position": POSITION_KEYS, "step": STEP_KEYS + STEP_EXTRA_KEYS,
            "expect": EXPECT_KEYS, "check": CHECKS}


def test_the_docstring_names_every_key():
    doc = scenario.__doc__
    for where, keys in _all_keys().items():
        for key in keys:
            assert re.search(rf"(?<![\w]){key}(?![\w])", doc), f"the docstring does not mention the {where} key '{key}'"
    assert "multiset" in doc and "order ignored" in doc   # how zones compare
    assert "nobody" in doc


def test_the_language_reference_names_every_key():
    section = (ROOT / "docs" / "language.md").read_text(encoding="utf-8").split("## Scenario files", 1)[1]
    section = section.split("\n## ", 1)[0]
    for where, keys in _all_keys().items():
        for key in keys:
            assert f"`{key}`" in section or f"{key}:" in section, f"docs/language.md lacks the {where} key '{key}'"
    assert "multiset" in section


def test_the_runner_is_split_by_job():
    """No class of the runner does everything: each piece stays small enough to read."""
    sizes = {}
    for module in sorted(Path(scenario.__file__).parent.glob("*.py")):   # the package's modules, one job each
        tree = ast.parse(module.read_text(encoding="utf-8"))
        sizes.update({n.name: n.end_lineno - n.lineno + 1 for n in tree.body if isinstance(n, ast.ClassDef)})
    assert {"_Reader", "_Terms", "_Positions", "_Steps", "_Expectations", "_Runner"} <= set(sizes)
    too_big = {name: size for name, size in sizes.items() if size > 250}
    assert not too_big, too_big


# ---------------------------------------------------------------------- order
def test_order_compares_a_pile_bottom_to_top(tmp_path):
    p = write(tmp_path, EIGHTS_HEADER + textwrap.dedent("""\
        steps:
          - expect:
              order: {stock: [2 of diamonds, K of clubs, 5 of spades], discard: [4 of hearts]}
              zones: {stock: [5 of spades, 2 of diamonds, K of clubs]}   # a multiset: any order
          - play: draw
          - expect: {order: {stock: [2 of diamonds, K of clubs]}}
        """))
    run(p)


def test_order_fails_on_the_same_cards_in_another_order(tmp_path):
    p = write(tmp_path, EIGHTS_HEADER + textwrap.dedent("""\
        steps:
          - expect:
              order:
                stock: [K of clubs, 2 of diamonds, 5 of spades]
        """))
    err = error_of(p)
    assert err.line == line_of(p, "stock: [K of clubs")
    assert err.message == ("order of stock: expected [K of clubs, 2 of diamonds, 5 of spades], "
                           "got [2 of diamonds, K of clubs, 5 of spades] "
                           "(bottom to top; they differ at card 1 from the bottom)")


def test_order_fails_on_missing_cards(tmp_path):
    p = write(tmp_path, EIGHTS_HEADER + "steps:\n  - expect: {order: {stock: [2 of diamonds, K of clubs]}}\n")
    assert "(bottom to top; 2 cards expected, 3 there)" in error_of(p).message


def test_order_is_refused_for_unordered_zones(tmp_path):
    p = write(tmp_path, EIGHTS_HEADER + "steps:\n  - expect: {order: {\"hand[P1]\": [9 of spades]}}\n")
    err = error_of(p)
    assert err.line == line_of(p, "order:")
    assert "'hand[P1]' is a set zone, which has no order; compare it with 'zones:'" in err.message


# ---------------------------------------------------------------------- invariants of positions
# Charuma, 3 players, in a trick: hands may differ by at most one play (2 cards), an invariant.
UNEVEN_TRICK = f"""\
rules: {CHARUMA}
players: 3
position:
  phase: trick
  active: P1
  rest: aside
  keep: [box]
  zones:
    open[P1]: [red 8, blue 8, red 9, blue 9]
    open[P2]: [red 2]
"""


def test_a_position_that_breaks_an_invariant_fails(tmp_path):
    p = write(tmp_path, UNEVEN_TRICK + "steps:\n  - expect: {active: P1}\n")
    err = error_of(p)
    assert err.line == line_of(p, "phase: trick")
    assert err.message.startswith("impossible position: invariant \"in a trick, hands differ by at most one play "
                                  "(2 cards)\" (")
    assert "charuma.rules:219) does not hold in phase 'trick'" in err.message
    assert err.message.endswith("; fix the position, or give it 'check_invariants: false' if it is meant to be partial")


def test_a_position_step_is_checked_too(tmp_path):
    body = textwrap.indent(UNEVEN_TRICK.split("position:\n", 1)[1], "    ")
    p = write(tmp_path, f"rules: {CHARUMA}\nplayers: 3\nsteps:\n  - position:\n{body}")
    err = error_of(p)
    assert err.line == line_of(p, "phase: trick") and "impossible position" in err.message


def test_every_invariant_problem_is_counted(tmp_path):
    p = write(tmp_path, UNEVEN_TRICK + "  vars: {points: [-1, 5, 5]}\n")
    assert "(and 1 more)" in error_of(p).message


@pytest.mark.parametrize("where", ["scenario", "position"])
def test_check_invariants_false_lets_a_partial_position_through(tmp_path, where):
    text = UNEVEN_TRICK + "steps:\n  - expect: {active: P1}\n"
    if where == "scenario":
        text = text.replace("players: 3\n", "players: 3\ncheck_invariants: false\n")
    else:
        text = text.replace("  phase: trick\n", "  phase: trick\n  check_invariants: false\n")
    run(write(tmp_path, text))


def test_a_position_overrides_the_scenario(tmp_path):
    text = UNEVEN_TRICK.replace("players: 3\n", "players: 3\ncheck_invariants: false\n")
    text = text.replace("  phase: trick\n", "  phase: trick\n  check_invariants: true\n")
    assert "impossible position" in error_of(write(tmp_path, text)).message


def test_check_invariants_takes_true_or_false(tmp_path):
    p = write(tmp_path, UNEVEN_TRICK.replace("players: 3\n", "players: 3\ncheck_invariants: sometimes\n"))
    err = error_of(p)
    assert err.line == 3 and err.message == "check_invariants should be true or false, not sometimes"


def test_a_possible_position_passes(tmp_path):
    p = write(tmp_path, UNEVEN_TRICK.replace("open[P2]: [red 2]", "open[P2]: [red 2, blue 2]\n    open[P3]: [red 3, blue 3]"))
    run(p)


# ---------------------------------------------------------------------- nobody
GAME_OVER = f"""\
rules: {CHARUMA}
players: 3
position:
  phase: score_round
  enter: true
  rest: aside
  keep: [box]
  zones: {{}}
  vars: {{holder: P1, points: [20, 18, 10], round_points: [5, 3, 1]}}
"""


# Charuma, 3 players, bidding: nobody has bid on groups 1 and 3 yet.
BIDDING = f"""\
rules: {CHARUMA}
players: 3
position:
  phase: bidding
  active: P1
  rest: aside
  keep: [box]
  zones:
    group[P1]: [red 6, red 7]
    hand[P1]: [red A, blue A]
"""


@pytest.mark.parametrize("word", ["nobody", "none", "Nobody", "~"])
def test_nobody_is_accepted_where_a_player_may_be_none(tmp_path, word):
    run(write(tmp_path, GAME_OVER + f"steps:\n  - expect: {{terminal: true, active: {word}, winners: [P1]}}\n"))
    run(write(tmp_path, BIDDING + textwrap.dedent(f"""\
          vars: {{holder: P1, bidder: [{word}, P2, {word}], bid: [0, 1, 0]}}
        steps:
          - expect:
              winners: {word}
              vars: {{bidder: [{word}, P2, {word}], holder: P1}}
        """)))


def test_a_player_variable_that_is_nobody_reads_nobody_in_a_failure(tmp_path):
    p = write(tmp_path, BIDDING + "  vars: {holder: P1, bidder: [nobody, P2, nobody], bid: [0, 1, 0]}\n"
                                  "steps:\n  - expect: {vars: {bidder: [P1, P2, nobody]}}\n")
    assert error_of(p).message == "vars.bidder: expected [P1, P2, nobody], got [nobody, P2, nobody]"


def test_winners_nobody_fails_when_someone_won(tmp_path):
    p = write(tmp_path, GAME_OVER + "steps:\n  - expect: {winners: nobody}\n")
    assert error_of(p).message == "winners: expected [], got [P1]"


def test_a_bad_player_mentions_nobody(tmp_path):
    p = write(tmp_path, GAME_OVER + "steps:\n  - expect: {active: somebody}\n")
    assert error_of(p).message == "active: expected a player P1..P3 or nobody, not somebody"


# ---------------------------------------------------------------------- responses outside a window
def test_a_response_outside_a_response_window_is_explained_as_such(tmp_path):
    p = write(tmp_path, textwrap.dedent(f"""\
        rules: {CHUHAN}
        position:
          phase: trick
          rest: box
          zones:
            draw: ["7", "7", "8", "8"]
            hand[P1]: [Lyu Zhi, "4"]
            hand[P2]: [Xiao He, "5"]
          vars: {{leader: P1, to_act: P1}}
        steps:
          - illegal: cancel it with Lyu Zhi
            because: no response window is open
        """))
    run(p)


def test_a_response_inside_its_window_is_legal(tmp_path):
    """The same position as above, with an effect to answer: the response is legal there."""
    p = write(tmp_path, textwrap.dedent(f"""\
        rules: {CHUHAN}
        position:
          phase: trick
          rest: box
          zones:
            draw: ["7", "7", "8", "8"]
            hand[P1]: [Yu Ji, "1", "4"]
            hand[P2]: [Lyu Zhi, "5"]
          vars: {{leader: P1, to_act: P1}}
        steps:
          - play: use Yu Ji to discard 1
          - legal: [cancel it with Lyu Zhi, no response]
        """))
    run(p)


# ---------------------------------------------------------------------- copies named by label
ABILITY_LAB = ROOT / "tests" / "rules" / "ability_lab.rules"


def test_a_label_names_one_copy_in_positions_and_expectations(tmp_path):
    """Where a card's copies differ, 'Strike s7' places that very copy and only it matches."""
    ok = write(tmp_path, f"""\
rules: {ABILITY_LAB}
players: 2
position:
  zones:
    hand[P1]: [Strike s7, Strike]
    hand[P2]: [Strike c2]
steps:
  - expect:
      zones:
        hand[P1]: [Strike h10, Strike s7]
        hand[P2]: [Strike]
      sees: {{"hand[P1]": [Strike, Strike s7]}}
      viewer: P1
""")
    run(ok)
    wrong = write(tmp_path, f"""\
rules: {ABILITY_LAB}
players: 2
position:
  zones:
    hand[P1]: [Strike s7]
steps:
  - expect:
      zones:
        hand[P1]: [Strike c2]
""", "wrong.yaml")
    err = error_of(wrong)
    assert "missing [Strike c2]; not expected [Strike s7]" in str(err)
    twice = write(tmp_path, f"""\
rules: {ABILITY_LAB}
players: 2
position:
  zones:
    hand[P1]: [Strike s7, Strike s7]
""", "twice.yaml")
    assert "no 'Strike s7' card is left" in str(error_of(twice))
    unknown = write(tmp_path, f"""\
rules: {ABILITY_LAB}
players: 2
position:
  zones:
    hand[P1]: [Strike s8]
""", "unknown.yaml")
    assert "unknown card 'Strike s8'" in str(error_of(unknown))


def test_rest_stay_revealed_cards_and_one_value_for_every_player(tmp_path):
    """'rest: stay' leaves the cards not placed where they are (here: the deck the setup
    filled); 'revealed' shows a card to everyone wherever it is; a per-player variable may be
    given one value for all."""
    case = write(tmp_path, f"""\
rules: {ABILITY_LAB}
players: 3
position:
  zones:
    hand[P1]: [Strike s7, Dodge d2]
  rest: stay
  revealed: [Strike s7]
  vars: {{life: 2}}
steps:
  - expect:
      vars: {{life: [2, 2, 2]}}
      counts: {{deck: 6, box: 5, "hand[P1]": 2}}
""")
    st = run(case)
    obs = st.observation(1)["zones"]["hand[P1]"]
    assert obs == {"count": 2, "shown": ["Strike s7"]}
    moved = write(tmp_path, case.read_text().replace("rest: stay", "rest: box"), "moved.yaml")
    assert "count of deck: expected 6, got 0" in str(error_of(moved))


# ---------------------------------------------------------------------- cards shown in hidden zones
PICK_LAB = ROOT / "tests" / "rules" / "pick_lab.rules"
PICK_HEADER = f"""\
rules: {PICK_LAB}
players: 2
position:
  phase: turn
  active: P2
  rest: deck
  zones:
    hand[P1]: [three]
    hand[P2]: [three]
    secret[P1]: [two, four]
    secret[P2]: []
"""


def test_shown_names_the_cards_shown_inside_a_zone_seen_as_a_count(tmp_path):
    ok = write(tmp_path, PICK_HEADER + "  revealed: [four]\nsteps:\n"
                                       "  - expect: {viewer: P2, shown: {\"secret[P1]\": [four]}}\n")
    run(ok)
    wrong = write(tmp_path, ok.read_text().replace("[four]}}", "[two]}}"), "wrong.yaml")
    err = error_of(wrong)
    assert err.line == line_of(wrong, "shown:")
    assert err.message == "cards of secret[P1] shown to P2: expected [two], got [four]; not shown [two]; shown too [four]"
    none = write(tmp_path, ok.read_text().replace("[four]}}", "[]}}"), "none.yaml")
    assert "shown too [four]" in error_of(none).message


def test_shown_is_refused_for_a_zone_the_viewer_sees_whole(tmp_path):
    p = write(tmp_path, PICK_HEADER + "steps:\n  - expect: {viewer: P1, shown: {\"secret[P1]\": []}}\n")
    assert "P1 sees every card of secret[P1], not only some shown: compare them with 'sees'" in error_of(p).message
    no_viewer = write(tmp_path, PICK_HEADER + "steps:\n  - expect: {shown: {\"secret[P1]\": []}}\n", "nv.yaml")
    assert "'shown' needs a 'viewer: Pn' in the same expect" in error_of(no_viewer).message


def test_revealed_zones_sets_the_zones_revealed_as_a_whole(tmp_path):
    p = write(tmp_path, PICK_HEADER + "  revealed_zones: [\"secret[P1]\", \"secret[P1]\"]\n"
                                      "steps:\n  - expect: {viewer: P2, sees: {\"secret[P1]\": [two, four]}}\n")
    st = run(p)
    assert st.revealed == [st.prog.zone_base["secret"]]  # (the first player's copy, once)
    bad = write(tmp_path, PICK_HEADER + "  revealed_zones: [secrets]\n", "bad.yaml")
    err = error_of(bad)
    assert err.line == line_of(bad, "revealed_zones") and "unknown zone 'secrets'" in err.message


def test_an_engine_error_in_a_step_is_reported_at_that_step(tmp_path):
    """An error of the rules met while a step lists actions or reads the state points at the step
    (it once fell to the scenario's first line)."""
    lab = ROOT / "tests" / "rules" / "listing_lab.rules"
    for step in ("legal_count: 2", "expect: {viewer: P1, hidden: [\"hand[P2]\"]}", "check: legal"):
        p = write(tmp_path, f"rules: {lab}\nplayers: 2\nseed: 1\noptions: {{peek: true}}\nsteps:\n"
                            f"  - note: listing fails (peek)\n    {step}\n", "engine.yaml")
        err = error_of(p)
        assert err.line == 7, (step, err)
        assert "runtime error: index 4 is outside a list of 1" in err.message


# ---------------------------------------------------------------------- start_order and resume
SETUP_CHOICE = ROOT / "tests" / "rules" / "secrecy_setup_choice.rules"  # the setup asks each player


def test_start_order_is_the_order_the_setup_deals_from(tmp_path):
    import interpreter
    game = interpreter.load(str(SETUP_CHOICE))
    names = game.new_state(players=3).prog.card_names
    order = list(range(len(names)))[::-1]
    st = game.new_state(players=3, start_order=order)
    hand = sorted(names[c] for c in st.zones[st.prog.zone_base["hand"]])  # P1's
    default = game.new_state(players=3)
    assert hand != sorted(names[c] for c in default.zones[default.prog.zone_base["hand"]])  # the key matters
    listed = ", ".join(names[c] for c in order)
    p = write(tmp_path, f"rules: {SETUP_CHOICE}\nplayers: 3\nstart_order: [{listed}]\n"
                        f"steps:\n  - expect: {{zones: {{\"hand[P1]\": [{', '.join(hand)}]}}}}\n")
    run(p)
    short = write(tmp_path, f"rules: {SETUP_CHOICE}\nplayers: 3\nstart_order: [{listed.rsplit(', ', 1)[0]}]\n", "s.yaml")
    err = error_of(short)
    assert err.line == line_of(short, "start_order") and err.message.endswith("names 11 cards; the game has 12: it lacks Ace 1")
    twice = write(tmp_path, f"rules: {SETUP_CHOICE}\nplayers: 3\nstart_order: [{listed}, Ace 1]\n", "t.yaml")
    assert "start_order names more 'Ace 1' cards than the game has" in error_of(twice).message


def test_resume_asks_the_setup_question_again_of_the_cards_placed(tmp_path):
    head = (f"rules: {SETUP_CHOICE}\nplayers: 3\nposition:\n  rest: deck\n"
            "  zones: {\"hand[P1]\": [Ace 1, Ace 2, Ace 3], \"hand[P2]\": [Blank 1, Blank 2, Blank 3], "
            "\"hand[P3]\": [Blank 4, Blank 5, Blank 6]}\n")
    p = write(tmp_path, head + "  resume: true\nsteps:\n  - legal_exactly: [Ace 1, Ace 2, Ace 3]\n  - play: Ace 2\n"
                               "  - expect: {zones: {\"shown[P1]\": [Ace 2]}}\n")
    run(p)
    afresh = write(tmp_path, head + "steps:\n  - legal: [check the next player]\n", "a.yaml")
    run(afresh)  # without it, the position starts the rules afresh: past the setup
    clash = write(tmp_path, head + "  resume: true\n  phase: turn\n", "c.yaml")
    err = error_of(clash)
    assert err.line == line_of(clash, "phase: turn") and "'phase' restarts the rules" in err.message
