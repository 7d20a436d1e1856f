"""Actions as cheap values: State.count_actions, action_at and sample_action, and an int choice
over a range kept whole at a decision (interpreter/action_ranges.py).

Every figure is held against the same game with its ranges listed one action at a time (as
the engine did before ranges): the same legal actions in the same order, the same draws from
the same seeded generator, the same play and the same final state; the same refusals."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
import rulespec
from interpreter.action_ranges import LazyActions, range_actions
from interpreter.errors import IllegalActionError, RuleRuntimeError

ROOT = Path(__file__).resolve().parent.parent
LAB = "tests/rules/range_lab.rules"

GAMES = [("games/holdem.rules", 6, {}), ("games/holdem.rules", 3, {}), ("games/spades.rules", 4, {}),
         ("games/crazy_eights.rules", 4, {}), ("games/charuma.rules", 4, {}), (LAB, 3, {}), (LAB, 2, {}),
         ("tests/rules/event_lab.rules", 3, {}), ("tests/rules/trigger_lab.rules", 2, {}),
         ("tests/rules/counters.rules", 3, {})]
MAX_DECISIONS = 400


def one_by_one(path: str):
    """The game of `path` (a Game of its own, not the cached one) with no action listed as a range."""
    game = interpreter.load_text((ROOT / path).read_text(encoding="utf-8"), path)
    for act in game.prog.actions.values():
        act.int_range = None
    return game


def fresh(path: str):
    """The game of `path`, a Game of its own (a test may change it)."""
    return interpreter.load_text((ROOT / path).read_text(encoding="utf-8"), path)


def reference_game(path: str, players: int, options: dict, seed: int):
    """Every decision's legal actions and the one picked (legal[rng.randrange(len)]), listed one
    by one; and the final state's JSON."""
    st = one_by_one(path).new_state(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    steps = []
    while not st.is_terminal() and len(steps) < MAX_DECISIONS:
        legal = st.legal_actions()
        picked = legal[rng.randrange(len(legal))]
        steps.append((st.current_player, legal, picked))
        st.apply(picked)
    return steps, st.to_json()


@pytest.mark.parametrize("path,players,options", GAMES, ids=[f"{Path(p).stem}-{n}p" for p, n, _ in GAMES])
def test_same_actions_draws_and_play_as_listing_one_by_one(path, players, options):
    game = rulespec.load(path)
    for seed in range(2):
        steps, final = reference_game(path, players, options, seed)
        # sample_action: the same draw and action as legal[rng.randrange(len)], never listing all
        st, rng = game.new_state(players=players, seed=seed, options=options), random.Random(seed)
        for who, legal, picked in steps:
            assert st.current_player == who
            assert st.count_actions() == len(legal)
            for i in (0, len(legal) // 2, -1):
                assert st.action_at(i) == legal[i]
            got = st.sample_action(rng)
            assert got == picked
            st.apply(got)
        assert st.to_json() == final
        # legal_actions and legal_action_strings: exactly the actions listed one by one
        st = game.new_state(players=players, seed=seed, options=options)
        for who, legal, picked in steps:
            assert st.legal_action_strings() == [a.text for a in legal]
            assert st.legal_actions() == legal
            st.apply(picked)
        assert st.to_json() == final
        # apply by text, on a state that kept its ranges whole
        st = game.new_state(players=players, seed=seed, options=options)
        for who, legal, picked in steps:
            assert st.count_actions() == len(legal)
            st.apply(picked.text)
        assert st.to_json() == final


def test_holdem_keeps_raises_as_ranges():
    st = rulespec.load("games/holdem.rules").new_state(players=6, seed=1)
    assert st.count_actions() == 199
    assert isinstance(st._legal, LazyActions)  # 4 entries: fold, call 2, the raises, all in
    assert len(st._legal.items) == 4
    assert st.action_at(2).text == "raise to 4" and st.action_at(2).params == (("x", 4),)
    assert st.action_at(-2).text == "raise to 199"
    assert isinstance(st._legal, LazyActions)  # nothing made the range whole
    assert len(st.legal_actions()) == 199


def test_a_range_member_is_applied_by_text_and_others_are_refused_as_before():
    path = "games/holdem.rules"
    on, off = rulespec.load(path).new_state(players=6, seed=1), one_by_one(path).new_state(players=6, seed=1)
    on.count_actions()
    for text in ("raise to 1000", "raise to 3", "raise to 200", "raise to 007", "raise to +7", "raise to -5",
                 "raise to", "raise to 4 #2", "raise to  4", "bet 10", "raise to 5 chips", "raise to 4.0"):
        before = on.to_json()
        with pytest.raises(IllegalActionError) as got:
            on.apply(text)
        with pytest.raises(IllegalActionError) as want:
            off.apply(text)
        assert str(got.value) == str(want.value), text
        assert on.to_json() == before
        assert isinstance(on._legal, LazyActions)  # refusing made nothing whole
    # explaining a legal text says what it always said, without making the range whole
    assert on.explain_illegal("raise to 50") == off.explain_illegal("raise to 50")
    assert isinstance(on._legal, LazyActions)
    a, b = on.clone(), off.clone()
    a.apply(" raise to 50 ")
    b.apply("raise to 50")
    assert a.to_json() == b.to_json() and a.history == ["raise to 50"]
    a, b = on.clone(), off.clone()
    a.apply(on.action_at(60))  # an Action made from the range
    b.apply(off.legal_actions()[60])
    assert a.to_json() == b.to_json()


def test_a_text_that_could_be_another_actions_is_listed_one_by_one():
    game = rulespec.load(LAB)
    assert range_actions(game.prog, game.prog.phases["play"].actions) == {"raise_to", "step", "wait"}
    st = game.new_state(players=3, seed=0)
    texts = st.legal_action_strings()
    assert texts[:6] == ["pay 1", "pay 2", "pay 3", "pay 4", "pay 5", "pay 3 #2"]  # tip's "pay 3"
    assert texts[6:8] == ["raise to 0 chips", "raise to 1 chips"] and texts[-1] == "push"
    assert len(texts) == st.count_actions() == 6 + 301 + 7 + 1
    assert texts == [a.text for a in one_by_one(LAB).new_state(players=3, seed=0).legal_actions()]
    tip = st.clone()
    tip.apply("pay 3 #2")
    assert tip.history == ["pay 3 #2"] and tip.scores()[0] == 1  # tip, not pay


def test_a_response_over_a_range_in_a_window():
    on, off = rulespec.load(LAB).new_state(players=3, seed=0), one_by_one(LAB).new_state(players=3, seed=0)
    on.apply("push")
    off.apply("push")
    assert on.in_window() and on.current_player == 1
    assert on.count_actions() == 4 and isinstance(on._legal, LazyActions)
    assert on.legal_action_strings() == off.legal_action_strings() == \
        ["block with 1", "block with 2", "block with 3", "no response"]
    assert on.action_at(-1).text == "no response"
    on.apply("block with 2")
    off.apply("block with 2")
    assert on.to_json() == off.to_json()


def test_clone_and_json_are_unaffected():
    game = rulespec.load("games/holdem.rules")
    st = game.new_state(players=6, seed=3)
    st.count_actions()
    copy = st.clone()
    assert copy.count_actions() == st.count_actions()
    st.apply(st.action_at(5))  # the original moves on: the copy's actions stay its own
    assert copy.legal_action_strings() == game.new_state(players=6, seed=3).legal_action_strings()
    saved = copy.to_json()
    assert saved == game.new_state(players=6, seed=3).to_json()
    back = interpreter.State.from_json(saved, game)
    assert back.legal_action_strings() == copy.legal_action_strings()
    assert back.sample_action(random.Random(9)) == copy.sample_action(random.Random(9))


def test_sample_action_and_action_at_errors():
    st = rulespec.load("games/holdem.rules").new_state(players=6, seed=1)

    class Draws:  # anything with randrange will do
        def randrange(self, n):
            return n - 1
    assert st.sample_action(Draws()).text == "all in (200)"
    with pytest.raises(IndexError):
        st.action_at(199)
    with pytest.raises(IndexError):
        st.action_at(-200)
    with pytest.raises(TypeError, match="takes the index of a legal action"):
        st.action_at(slice(0, 2))
    st = rulespec.load("tests/rules/limit_lab.rules").new_state(players=2, seed=0)
    while not st.is_terminal():
        st.apply(st.action_at(0))
    assert st.count_actions() == 0
    with pytest.raises(IllegalActionError, match="no legal action now .the game is over."):
        st.sample_action(random.Random(0))


@pytest.mark.parametrize("limit", [100, 198])
def test_the_limit_on_choices_is_kept(limit):
    """More numbers than --max-choices allows: the same error whether the range is kept whole."""
    path = "games/holdem.rules"
    errors = []
    for game in (fresh(path), one_by_one(path)):
        game.max_choices = limit
        with pytest.raises(RuleRuntimeError) as got:
            game.new_state(players=6, seed=1).count_actions()
        errors.append(str(got.value))
    assert errors[0] == errors[1]
    assert ("more than 100 ways" if limit == 100 else "more than 198 legal actions") in errors[0]
