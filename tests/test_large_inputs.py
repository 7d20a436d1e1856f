"""Input that is large, deeply nested or of the wrong kind gets a clear error (or is handled in
linear work), never a traceback or a silently changed value: many card declarations, JSON nested
200,000 deep, int options given 1.5 or true, State methods given None."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import interpreter
from interpreter import IllegalActionError, OptionError
from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
from interpreter.serialise import StateFormatError
from measure import python_calls
from rulespec.lang.checker import check_text
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
UNO = str(ROOT / "games" / "uno.rules")
CRAZY_EIGHTS = str(ROOT / "games" / "crazy_eights.rules")
DEEP = 200_000


def cards_game(n: int) -> str:
    cards = "\n".join(f'card "C{i}" {{ rank: {i % 13} }}' for i in range(n))
    return f'''game "Many cards" {{
  players 2..2
  start turn
  cards start in deck
}}
property rank: int
{cards}
zone deck: pile hidden
action pass() {{ effect {{ end game }} }}
phase turn {{
  actions pass
  next turn
}}
'''


# ---------------------------------------------------------------- many declarations
def test_checking_card_declarations_is_linear_work(monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE", "0")
    check_text(cards_game(1), "cards1.rules")  # the parser's tables are made once: not part of either count
    small, large = (python_calls(lambda n=n: check_text(cards_game(n), f"cards{n}.rules")) for n in (250, 1000))
    assert large < 6 * small, (small, large)  # linear: about 4 times; a scan of the cards so far per card: 16


# ---------------------------------------------------------------- JSON nested too deeply
def deep_json() -> str:
    return "[" * DEEP + "]" * DEEP


def test_a_replay_file_nested_too_deeply_is_one_line(tmp_path, capsys):
    for text in (deep_json(), '{"format": ' + deep_json() + "}"):
        p = tmp_path / "deep.replay.json"
        p.write_text(text)
        assert main(["replay", str(p)]) == 1
        err = capsys.readouterr().err
        assert "not a replay file (bad JSON at line 1: it nests too deeply)" in err
        assert "Traceback" not in err and err.strip().count("\n") == 0, err


def test_a_saved_state_nested_too_deeply_is_a_state_format_error():
    game = interpreter.load(CRAZY_EIGHTS)
    with pytest.raises(StateFormatError, match="nests too deeply"):
        interpreter.State.from_json(deep_json(), game)


def test_a_web_replay_or_play_log_nested_too_deeply_is_a_web_error():
    from rulespec.tools.web.sessions import WebError, open_replay
    game = interpreter.load(CRAZY_EIGHTS)
    with pytest.raises(WebError, match="nests too deeply"):
        open_replay(game, deep_json(), "deep.json")
    log_line = json.dumps({"decision": 1, "player": 0, "action": "draw"})
    with pytest.raises(WebError, match="deep.jsonl:2: not a JSON line \\(it nests too deeply\\)"):
        open_replay(game, log_line + "\n" + deep_json() + "\n", "deep.jsonl", players=2, seed=1)


# ---------------------------------------------------------------- int options take whole numbers
@pytest.mark.parametrize("value", [1.5, 2.99, True, False, "1.5", "true", None, [3]])
def test_an_int_option_refuses_what_is_not_a_whole_number(value):
    game = interpreter.load(UNO)
    with pytest.raises(OptionError, match=r"option 'target' is a whole number, not "):
        game.new_state(players=2, options={"target": value})


@pytest.mark.parametrize("value, expected", [(7, 7), ("12", 12), (" 3 ", 3), (4.0, 4)])
def test_an_int_option_takes_whole_numbers(value, expected):
    game = interpreter.load(UNO)
    assert game.new_state(players=2, options={"target": value}).opts["target"] == expected


def test_int_options_from_the_command_line_a_scenario_and_the_web_form(tmp_path, capsys):
    assert main(["play", UNO, "--option", "target=2.99"]) == 1
    assert "option 'target' is a whole number, not '2.99'" in capsys.readouterr().err
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"rules: {UNO}\nplayers: 2\noptions: {{target: 1.5}}\nsteps: []\n")
    with pytest.raises(ScenarioError, match="option 'target' is a whole number, not 1.5"):
        run_scenario(load_file(scenario)[0])
    from rulespec.tools.web.server import _form_options
    from rulespec.tools.web.sessions import WebError
    with pytest.raises(WebError, match="whole number"):
        _form_options(interpreter.load(UNO), {"opt_target": "1.5"})


def test_int_options_of_the_ai_adapters():
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    from rulespec.tools.ai.openspiel import load_game
    from rulespec.tools.ai.pettingzoo import env
    with pytest.raises(OptionError, match="whole number, not 1.5"):
        load_game(UNO, players=2, target=1.5)
    with pytest.raises(ValueError, match="whole number, not True"):
        env(path=UNO, players=2, target=True)


# ---------------------------------------------------------------- the State API given the wrong kind of thing
def test_state_methods_given_no_action_raise_action_type_error_and_change_nothing():
    st = interpreter.load(CRAZY_EIGHTS).new_state(players=2, seed=1)
    before = st.to_json()
    for wrong in (None, 42, [], b"draw", 1.5):
        with pytest.raises(interpreter.ActionTypeError, match=r"takes an action from legal_actions\(\) or its text"):
            st.apply(wrong)
        with pytest.raises(interpreter.ActionTypeError):
            st.explain_illegal(wrong)
    assert issubclass(interpreter.ActionTypeError, IllegalActionError) and issubclass(interpreter.ActionTypeError, TypeError)
    assert st.to_json() == before
    action = st.legal_actions()[0]
    assert "is not a legal action" in st.explain_illegal("fly away")
    assert isinstance(st.explain_illegal(action), str)  # an Action is explained by its text


def test_state_methods_given_a_wrong_seat_raise_seat_error():
    st = interpreter.load(CRAZY_EIGHTS).new_state(players=2, seed=1)
    for wrong in ("x", 1.0, True, 2, -1):
        with pytest.raises(interpreter.SeatError, match=r"takes a seat index from 0 to 1"):
            st.observation(wrong)
        with pytest.raises(interpreter.SeatError, match=r"log_lines\(\) takes a seat index from 0 to 1"):
            st.log_lines(wrong)
    with pytest.raises(TypeError, match="log index"):
        st.log_lines(0, "a")
    assert st.log_lines(0) and all(isinstance(line, str) for line in st.log_lines(1))


def test_from_json_given_something_else_than_a_game():
    game = interpreter.load(CRAZY_EIGHTS)
    text = game.new_state(players=2, seed=1).to_json()
    with pytest.raises(TypeError, match=r"from_json\(\) takes the Game"):
        interpreter.State.from_json(text, 5)


def test_a_finished_game_has_no_legal_actions_and_refuses_any():
    st = interpreter.load(CRAZY_EIGHTS).new_state(players=2, seed=1)
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    assert st.legal_actions() == [] and st.current_player is None
    with pytest.raises(IllegalActionError, match="the game is over"):
        st.apply("draw")
