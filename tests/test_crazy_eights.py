"""Crazy Eights (games/crazy_eights.rules, the game of docs/tutorial.md): random games for
2 to 5 players, with and without the reshuffle, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game:
  * the deal (7 cards each with 2 players, 5 with 3 to 5) and a starter that is never an 8;
  * how a game ends: one player with an empty hand, or (only without the reshuffle) a
    blocked game won by the lowest hand; the scores follow the rules in both cases;
  * without the reshuffle every game ends within a fixed number of decisions, even when
    the players draw and keep cards whenever they can;
  * the reshuffle keeps the top card of the discard pile, and a drawn card is named only
    to the player who drew it.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "crazy_eights.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
STOCK, DISCARD = PROG.zone_base["stock"], PROG.zone_base["discard"]
HAND = PROG.zone_base["hand"]
RANK, SUIT = PROG.card_props["rank"], PROG.card_props["suit"]
MAX_STEPS = 20_000

seeds = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def value(c: int) -> int:
    r = RANK[c]
    return 50 if r == 8 else 10 if r >= 11 else r


def hand_values(s) -> list[int]:
    return [sum(value(c) for c in s.zones[HAND + p]) for p in range(s.n)]


def blocked(s) -> bool:
    return any("the game is blocked" in line for line in s.log_lines())


def check_the_end(s, reshuffle: bool) -> None:
    """The game is over, and it ended as the rules say, with the scores they give."""
    assert s.is_terminal() and s.current_player is None
    assert sum(len(z) for z in s.zones) == 52
    winners, values, scores = s.winners(), hand_values(s), s.scores()
    assert winners
    if blocked(s):
        assert not reshuffle, "with the reshuffle a game cannot be blocked"
        assert not s.zones[STOCK]
        assert sorted(winners) == [p for p in range(s.n) if values[p] == min(values)]
    else:
        assert len(winners) == 1 and values[winners[0]] == 0
    for p in range(s.n):
        expected = sum(v - values[p] for v in values) if p in winners else 0
        assert scores[p] == expected, (p, scores, values)


@pytest.mark.parametrize("reshuffle", [True, False], ids=["reshuffle", "no-reshuffle"])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@SETTINGS
@given(seed=seeds, agent_seed=seeds, chooser=st.sampled_from(sorted(CHOOSERS)))
def test_random_games_keep_every_property(players, reshuffle, seed, agent_seed, chooser):
    report = play_checked(GAME, players, seed, {"reshuffle": reshuffle}, agent_seed=agent_seed,
                          chooser=CHOOSERS[chooser], max_steps=MAX_STEPS)
    assert report.ok, report.describe()
    assert report.terminal
    check_the_end(report.state, reshuffle)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_deal_and_the_starter(players):
    size = 7 if players == 2 else 5
    for seed in range(100):
        s = GAME.new_state(players=players, seed=seed)
        assert s.phase == "turn" and s.current_player == 0
        assert [len(s.zones[HAND + p]) for p in range(players)] == [size] * players
        assert len(s.zones[DISCARD]) == 1 and len(s.zones[STOCK]) == 52 - 1 - size * players
        top = s.zones[DISCARD][-1]
        assert RANK[top] != 8, f"seed {seed}: the starter is {NAMES[top]}"
        assert s.observation(0)["vars"]["suit_to_follow"] == SUIT[top]


def choose_hoarder(s, rng):
    """Never plays by choice: draws whenever it may, keeps what it drew, plays only when it must."""
    texts = {a.text: a for a in s.legal_actions()}
    for wanted in ("draw", "pass"):
        if wanted in texts:
            return texts[wanted]
    return rng.choice(list(texts.values()))


def choose_greedy(s, rng):
    """Plays a card whenever it can, keeping its 8s for last."""
    legal = s.legal_actions()
    plain = [a for a in legal if a.name == "follow"]
    eights = [a for a in legal if a.name == "eight"]
    return rng.choice(plain or eights or legal)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_without_the_reshuffle_every_game_ends_within_a_bound(players):
    """Each draw empties the stock by one, each play empties a hand by one, and a full
    round of blocked passes ends the game: at most 52 draws (each followed by at most
    one pass), 52 plays, and fewer than `players` passes around each of them."""
    bound = 2 * 52 + 52 + players * 53
    for seed in range(10):
        for chooser in (choose_hoarder, choose_greedy, CHOOSERS["random"]):
            report = play_checked(GAME, players, seed, {"reshuffle": False}, agent_seed=seed, chooser=chooser,
                                  max_steps=bound, round_trip=False, secrecy=False, check_replay=False)
            assert report.ok, report.describe()
            check_the_end(report.state, reshuffle=False)


def test_hoarders_block_the_game_without_the_reshuffle():
    """Players who never play by choice empty the stock, and then the game is often blocked."""
    ends = [play_checked(GAME, 4, seed, {"reshuffle": False}, agent_seed=seed, chooser=choose_hoarder,
                         round_trip=False, secrecy=False, check_replay=False).state for seed in range(20)]
    assert any(blocked(s) for s in ends)
    assert any(not blocked(s) for s in ends)


@pytest.mark.parametrize("players", [2, 5])
def test_greedy_games_end_quickly_with_the_reshuffle(players):
    for seed in range(10):
        report = play_checked(GAME, players, seed, agent_seed=seed, chooser=choose_greedy, max_steps=2000,
                              round_trip=False, secrecy=False, check_replay=False)
        assert report.ok, report.describe()
        check_the_end(report.state, reshuffle=True)


def test_the_reshuffle_keeps_the_top_card_and_a_drawn_card_stays_secret():
    reshuffles = draws = 0
    for seed in range(6):
        s = GAME.new_state(players=3, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            action = rng.choice(s.legal_actions())
            who = s.current_player
            top, stock_empty, pile = s.zones[DISCARD][-1], not s.zones[STOCK], len(s.zones[DISCARD])
            s.apply(action)
            if action.text != "draw":
                continue
            draws += 1
            if stock_empty:
                reshuffles += 1
                assert s.zones[DISCARD] == [top]
                assert len(s.zones[STOCK]) == pile - 2  # all but the top card, less the one drawn
            drawn = s.zones[HAND + who][-1] if s.zones[HAND + who] else None
            for viewer in range(s.n):
                line = s.log_lines(viewer)[-1]
                assert line.endswith(f"to hand[P{who + 1}]"), line
                if viewer != who:
                    assert line.startswith("   moved 1 card from stock"), line
                    assert s.observation(viewer)["vars"]["drawn_card"] in (None, "hidden card")
                else:
                    assert NAMES[drawn] in line
    assert reshuffles > 0 and draws > 100
