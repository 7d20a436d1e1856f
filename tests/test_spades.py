"""Spades (games/spades.rules): seeded random games, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: 13 cards each; the dealer rotates to the left; the player left of the
    dealer bids first and leads the first trick;
  * bidding offers exactly the bids 0 to 13;
  * in the tricks, the legal plays are exactly the oracle's: follow suit; no spade led
    before spades are broken unless only spades are held; the oracle finds each trick's
    winner itself (highest spade, else highest card of the suit led);
  * at the end of each hand the oracle scores both partnerships (contracts, bags, nil,
    sandbagging) and the game ends at the target or the floor with the higher
    partnership's two players winning, scores being the partnership's points.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "spades.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
INDEX = {n: i for i, n in enumerate(NAMES)}
HAND, TRICK = PROG.zone_base["hand"], PROG.zone_base["trick"]
RANK, SUIT = PROG.card_props["rank"], PROG.card_props["suit"]
V = PROG.var_index
TARGET, FLOOR = 300, -300  # a shorter game keeps the test fast; the rules are the same


def legal_plays(s, broken: bool) -> set[str]:
    hand = s.zones[HAND + s.current_player]
    trick = s.zones[TRICK]
    if not trick:
        ok = hand if broken or all(SUIT[c] == "spades" for c in hand) else [c for c in hand if SUIT[c] != "spades"]
        return {f"lead {NAMES[c]}" for c in ok}
    led = SUIT[trick[0]]
    ok = [c for c in hand if SUIT[c] == led] or list(hand)
    return {f"play {NAMES[c]}" for c in ok}


def winner(cards: list[int], first: int) -> int:
    led = SUIT[cards[0]]
    power = [100 + RANK[c] if SUIT[c] == "spades" else RANK[c] if SUIT[c] == led else 0 for c in cards]
    return (first + power.index(max(power))) % 4


def score_hand(bids, taken, points, bags):
    for team in (0, 1):
        a, b = team, team + 2
        contract = bids[a] + bids[b]
        got = sum(taken[p] for p in (a, b) if bids[p] != 0)
        if got >= contract:
            score, over = 10 * contract + got - contract, got - contract
        else:
            score, over = -10 * contract, 0
        score += sum((100 if taken[p] == 0 else -100) for p in (a, b) if bids[p] == 0)
        bags[a] += over
        while bags[a] >= 10:  # 20 bags in one hand cost 200
            bags[a] -= 10
            score -= 100
        points[a] += score
        points[b], bags[b] = points[a], bags[a]


def play_with_oracle(seed: int) -> None:
    s = GAME.new_state(players=4, seed=seed, options={"target": TARGET, "floor": FLOOR})
    rng = random.Random(seed)
    points, bags = [0] * 4, [0] * 4
    hand_no = 0
    for _ in range(20000):
        if s.is_terminal():
            break
        if s.vars[V["hand_no"]] != hand_no:  # a new hand was dealt
            hand_no = s.vars[V["hand_no"]]
            dealer = (hand_no - 1) % 4
            assert [len(s.zones[HAND + p]) for p in range(4)] == [13] * 4
            assert s.phase == "bidding" and s.current_player == (dealer + 1) % 4
            taken, broken, first = [0] * 4, False, None
        legal = s.legal_action_strings()
        if s.phase == "bidding":
            assert set(legal) == {f"bid {n}" for n in range(14)}
            # Mostly modest bids (nil included), so that contracts are made, bags pile
            # up and nil bids are tried: uniform bids almost always fail.
            s.apply(rng.choice(legal) if rng.random() < 0.2 else f"bid {rng.choice([0, 1, 2, 2, 3, 3, 4])}")
            continue
        assert s.phase == "trick"
        if all(b >= 0 for b in s.vars[V["bid"]]) and sum(taken) == 0 and not s.zones[TRICK]:
            assert s.current_player == (dealer + 1) % 4  # left of the dealer leads first
        assert set(legal) == legal_plays(s, broken), (seed, legal)
        if not s.zones[TRICK]:
            first = s.current_player
        a = rng.choice(legal)
        card = INDEX[a.split(" ", 1)[1]]
        broken = broken or SUIT[card] == "spades"
        cards = list(s.zones[TRICK]) + [card]
        bids = list(s.vars[V["bid"]])
        s.apply(a)
        if len(cards) == 4:
            w = winner(cards, first)
            taken[w] += 1
            if sum(taken) == 13:
                score_hand(bids, taken, points, bags)
                assert list(s.vars[V["points"]]) == points, (seed, bids, taken)
                assert list(s.vars[V["bags"]]) == bags
            else:
                assert s.current_player == w and list(s.vars[V["taken"]]) == taken
    assert s.is_terminal()
    assert max(points) >= TARGET or min(points) <= FLOOR
    assert sorted(s.winners()) == [p for p in range(4) if points[p] == max(points)]
    assert len(s.winners()) == 2
    assert s.scores() == points


@pytest.mark.parametrize("seed", range(10))
def test_the_oracle_agrees_on_every_decision(seed):
    play_with_oracle(seed)


@pytest.mark.parametrize("seed", range(4))
def test_random_games_keep_every_property(seed):
    report = play_checked(GAME, 4, seed, {"target": TARGET, "floor": FLOOR}, agent_seed=seed,
                          chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=20000)
    assert report.ok, report.describe()
    assert report.terminal
