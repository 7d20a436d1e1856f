"""Choices inside blocks (issue P5 §1): 'choose' and 'ask' stop a block until a player decides,
then it goes on where it stopped; the state stays plain data all the while (clone, JSON,
replay), also inside a trigger inside an emit, and inside a window's resolution.  Cards the
chooser cannot see are offered face down (tests/rules/choice_lab.rules)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from interpreter import IllegalActionError, State, load
from rulespec.tools.fuzzing.checks import check_state, replay

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "choice_lab.rules")


@pytest.fixture(scope="module")
def lab():
    return load(LAB)


def new(lab, players=2, seed=1):
    return lab.new_state(players=players, seed=seed)


def var(st, name):
    return st.vars[st.prog.var_index[name]]


def hand(st, p):
    return sorted(st.prog.card_names[c] for c in st.zones[st.prog.zone_base["hand"] + p])


def test_a_choice_stops_the_block_and_goes_on_where_it_stopped(lab):
    st = new(lab)
    assert hand(st, 0) == ["Ace", "Ace"]
    st.apply("discard Ace and choose")
    # the other Ace fails the 'where' (rank >= 2); P1's hand is hidden from P2, so P1 is asked
    # anyway -- being asked must not tell P2 that nothing qualified -- and the answer is none
    assert st.in_choice() and st.current_player == 0
    assert st.legal_action_strings() == ["nothing to choose"]
    st.apply("nothing to choose")
    assert st.legal_action_strings() == ["hearts", "spades"]
    st.apply("spades")
    assert st.legal_action_strings() == ["1", "3"]          # int in 1..3 where n != 2
    assert var(st, "named") == "spades" and var(st, "amount") == 0
    st.apply("3")
    assert not st.in_choice() and var(st, "amount") == 3 and var(st, "picked") == []
    assert st.current_player == 1                              # the phase's 'after' ran once the block ended
    assert "P1 chooses spades" in st.log_lines()


def test_a_phase_can_stop_for_a_choice_as_it_starts(lab):
    st = lab.new_state(players=3, seed=1, options={"opening": True})
    assert st.in_choice() and st.current_player == 0 and st.phase == "setup"
    assert st.legal_action_strings() == ["P1", "P2", "P3"]
    assert State.from_json(st.to_json(), lab).legal_action_strings() == ["P1", "P2", "P3"]
    st.apply("P3")
    assert st.phase == "turn" and st.current_player == 2


def test_choose_among_cards_of_a_size(lab):
    st = new(lab, seed=3)
    st.apply("pick_two")
    assert st.in_choice() and st.legal_action_strings() == [" + ".join(hand(st, 0))] or len(st.legal_action_strings()) >= 1
    st.apply(st.legal_action_strings()[0])
    assert len(var(st, "picked")) == 2 and hand(st, 0) == []


def test_an_optional_choice_can_be_declined(lab):
    st = new(lab)                                              # P1 holds two Aces
    st.apply("maybe")
    assert st.legal_action_strings() == ["Ace", "decline"]
    st.apply("decline")
    assert var(st, "picked") == [] and hand(st, 0) == ["Ace", "Ace"]


def test_an_optional_choice_with_nothing_to_pick_is_still_asked_when_the_hand_is_hidden(lab):
    st = new(lab, seed=3)
    assert "Ace" not in hand(st, 0) and hand(st, 0)
    st.apply("maybe")
    # whether P1 holds an Ace is hidden from P2: P1 is asked anyway, and may only decline
    assert st.in_choice() and st.legal_action_strings() == ["decline"]
    st.apply("decline")
    assert var(st, "picked") == []


def test_ask_is_a_yes_or_no_choice(lab):
    st = new(lab)
    st.apply("question")
    assert st.legal_action_strings() == ["yes", "no"]
    st.apply("yes")
    assert var(st, "answer") is True


def test_ordered_players_and_player_or_none(lab):
    st = new(lab, players=3)
    st.apply("order_players")
    opts = st.legal_action_strings()
    assert "P1 then P2" in opts and "P2 then P1" in opts and len(opts) == 6
    st.apply("P3 then P1")
    assert var(st, "chosen_players") == [2, 0]
    # 'player or none' where nobody qualifies: none, without asking
    assert not st.in_choice() and var(st, "order_seen") == [0]


def test_a_face_down_pick_names_no_card_and_draws_at_random(lab):
    st = new(lab)
    theirs, mine = hand(st, 1), hand(st, 0)
    st.apply("rob P2")
    assert st.legal_action_strings() == ["a face-down card of hand[P2]"]
    st.apply("a face-down card of hand[P2]")
    stolen = [c for c in hand(st, 0)]
    for c in mine:
        stolen.remove(c)
    assert len(stolen) == 1 and stolen[0] in theirs and len(hand(st, 1)) == 1
    assert check_state(st) == []
    # the same seed and decisions draw the same card
    again = replay(lab, st)
    assert again.to_json() == st.to_json()


def test_a_trigger_asks_in_the_middle_of_an_emit(lab):
    st = new(lab)
    st.apply("give to P2")
    st.apply("Ace")                                            # P1 gives an Ace; the gift event's trigger asks P2
    assert st.in_choice() and st.current_player == 1 and st.legal_action_strings() == ["yes", "no"]
    st.apply("yes")
    assert st.current_player == 1 and st.in_choice()           # now which card
    back = st.legal_action_strings()[0]
    st.apply(back)
    assert var(st, "gifts") == 1 and not st.in_choice()
    assert st.current_player == 1                              # the turn passed on only after the trigger


def test_choice_texts_are_hidden_from_those_who_cannot_see_the_cards(lab):
    st = new(lab)
    st.apply("give to P2")
    st.apply("Ace")                                            # the Ace ends in P2's hand: P2 sees it, and P1
    st.apply("no")
    assert "P1 chooses Ace" in st.log_lines(0) and "P1 chooses Ace" in st.log_lines(1)
    st = new(lab, players=3)
    st.apply("give to P2")
    st.apply("Ace")
    st.apply("no")
    assert "P1 chooses Ace" in st.log_lines(1)
    assert "P1 chooses Ace" not in st.log_lines(2) and "P1: (a choice you cannot see)" in st.log_lines(2)


@pytest.mark.parametrize("where", ["choice in an action", "choice in a trigger", "choice in a resolution"])
def test_a_pending_choice_survives_clone_json_and_replay(lab, where):
    st = new(lab)
    if where == "choice in an action":
        st.apply("discard Ace and choose")
    elif where == "choice in a trigger":
        st.apply("give to P2")
        st.apply("Ace")
    else:
        st.apply("rob P2")
    assert st.in_choice()
    text = st.to_json()
    back = State.from_json(text, lab)
    assert back.to_json() == text
    twin = st.clone()
    assert twin.to_json() == text
    assert replay(lab, st).to_json() == text
    # all three go on the same way
    choice = st.legal_action_strings()[0]
    for s in (st, back, twin):
        s.apply(choice)
    assert st.to_json() == back.to_json() == twin.to_json()
    assert json.loads(text)["pending"]["kind"] == "choice"


def test_an_illegal_answer_to_a_choice_is_explained_and_changes_nothing(lab):
    st = new(lab)
    st.apply("question")
    before = st.to_json()
    with pytest.raises(IllegalActionError, match="not a legal action for P1 while choosing.*'yes', 'no'"):
        st.apply("maybe")
    assert st.to_json() == before


def test_random_games_keep_every_property(lab):
    for seed in range(25):
        st = lab.new_state(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not st.is_terminal():
            assert check_state(st, log_from=None if steps % 7 == 0 else len(st.log) - 1) == [], steps
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
            assert steps < 500
        assert replay(lab, st).to_json() == st.to_json()
