"""Hearts (games/hearts.rules): seeded random games for 3 to 6 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: the cards removed for the player count, equal hands;
  * passing: every set of 3 cards of the hand is offered, and nothing else;
  * in the tricks, the legal plays are exactly the oracle's: the 2 of clubs leads the
    first trick; follow suit; no point cards on the first trick unless only point cards
    are held; no hearts led before hearts are broken unless only hearts are held;
  * at the end of each hand the penalty points (or a shoot of the moon) add up, and at the
    end of the game the fewest points win (a tie shares the win) and scores are -points.
"""
from __future__ import annotations

import random
from math import comb
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "hearts.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
HAND, TRICK, BOX = PROG.zone_base["hand"], PROG.zone_base["trick"], PROG.zone_base["box"]
RANK, SUIT = PROG.card_props["rank"], PROG.card_props["suit"]
POINTS, HAND_POINTS = PROG.var_index["points"], PROG.var_index["hand_points"]
TRICKS, BROKEN, HAND_NO = PROG.var_index["tricks"], PROG.var_index["hearts_broken"], PROG.var_index["hand_no"]
HEARTS = "hearts"
REMOVED = {3: {"2 of diamonds"}, 4: set(), 5: {"2 of diamonds", "2 of spades"},
           6: {"2 of diamonds", "2 of spades", "3 of diamonds", "3 of spades"}}
TARGET = 50  # a shorter game keeps the test fast; the rules are the same


def penalty(c: int) -> int:
    return 1 if SUIT[c] == HEARTS else 13 if NAMES[c] == "Q of spades" else 0


def expected_plays(s) -> set[str]:
    """The legal plays in the trick phase, from the rules of Hearts."""
    hand = s.zones[HAND + s.current_player]
    trick = s.zones[TRICK]
    first = s.vars[TRICKS] == 0
    if not trick:
        if first:
            ok = [c for c in hand if NAMES[c] == "2 of clubs"]
        elif s.vars[BROKEN] or all(SUIT[c] == HEARTS for c in hand):
            ok = hand
        else:
            ok = [c for c in hand if SUIT[c] != HEARTS]
        return {f"lead {NAMES[c]}" for c in ok}
    led = SUIT[trick[0]]
    ok = [c for c in hand if SUIT[c] == led] or list(hand)
    if first and not all(penalty(c) for c in hand):
        ok = [c for c in ok if not penalty(c)]
    return {f"play {NAMES[c]}" for c in ok}


def play_with_oracle(players: int, seed: int) -> None:
    s = GAME.new_state(players=players, seed=seed, options={"target": TARGET})
    rng = random.Random(seed)
    assert sorted(NAMES[c] for c in s.zones[BOX]) == sorted(REMOVED[players])
    size = (52 - len(REMOVED[players])) // players
    totals = [0] * players
    hand_no = s.vars[HAND_NO]
    assert [len(s.zones[HAND + p]) for p in range(players)] == [size] * players
    for _ in range(5000):
        if s.is_terminal():
            break
        legal = s.legal_action_strings()
        if s.phase == "passing":
            assert len(legal) == comb(len(s.zones[HAND + s.current_player]), 3)
        else:
            assert s.phase == "trick"
            assert set(legal) == expected_plays(s), (seed, s.vars[TRICKS], legal)
        s.apply(rng.choice(legal))
        if s.is_terminal() or s.vars[HAND_NO] != hand_no:  # a hand was scored
            hand_no = s.vars[HAND_NO]
            got = list(s.vars[HAND_POINTS])
            assert sum(got) == 26 or sorted(got) == [0] + [26] * (players - 1), got
            totals = [t + g for t, g in zip(totals, got)]
            assert list(s.vars[POINTS]) == totals
    assert s.is_terminal()
    points = list(s.vars[POINTS])
    assert max(points) >= TARGET
    assert sorted(s.winners()) == [p for p in range(players) if points[p] == min(points)]
    assert s.scores() == [-p for p in points]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_oracle_agrees_on_every_decision(players):
    for seed in range(3):
        play_with_oracle(players, seed)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_random_games_keep_every_property(players):
    for seed in range(2):
        report = play_checked(GAME, players, seed, {"target": TARGET}, agent_seed=seed,
                              chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=5000)
        assert report.ok, report.describe()
        assert report.terminal
