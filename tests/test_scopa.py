"""Scopa (games/scopa.rules): seeded random games for 2 players, and for 4 in two partnerships
(P1 with P3, P2 with P4), checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: 3 cards each and 4 on the table, never 3 or more kings on it;
  * in play, the legal moves are exactly the oracle's: a card takes a table card of its
    value if there is one (and then no sum); otherwise any set of 2 or more table cards
    adding up to its value; a card that can take nothing goes to the table;
  * at the end of each deal the points scored are the oracle's (most cards, most coins,
    settebello, primiera, scopas), and at the end of the game the winner has reached the
    target with more points than the other.
With 4 players the oracle counts by partnership: a partnership's captures and scopas are kept
by its first player (P1 or P2), both partners hold its points, and both partners win.
"""
from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "scopa.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
HAND, TABLE, TAKEN = PROG.zone_base["hand"], PROG.zone_base["table"], PROG.zone_base["taken"]
STOCK = PROG.zone_base["stock"]
VALUE, SUIT, PRIME = PROG.card_props["value"], PROG.card_props["suit"], PROG.card_props["prime"]
POINTS, DEAL_POINTS, SCOPAS = PROG.var_index["points"], PROG.var_index["deal_points"], PROG.var_index["scopas"]
LAST_TAKER = PROG.var_index["last_taker"]
TARGET = 11
SUITS = ("coins", "cups", "swords", "clubs")


def expected_moves(s) -> set[tuple[str, frozenset[str]]]:
    """The legal plays: (card played, the table cards taken), from the rules of Scopa."""
    hand = s.zones[HAND + s.current_player]
    table = list(s.zones[TABLE])
    moves = set()
    for c in hand:
        v = VALUE[c]
        singles = [t for t in table if VALUE[t] == v]
        if singles:
            moves |= {(NAMES[c], frozenset([NAMES[t]])) for t in singles}
            continue
        sums = {frozenset(NAMES[t] for t in ts)
                for k in range(2, len(table) + 1) for ts in combinations(table, k)
                if sum(VALUE[t] for t in ts) == v}
        if sums:
            moves |= {(NAMES[c], ts) for ts in sums}
        else:
            moves.add((NAMES[c], frozenset()))
    return moves


def parse(action: str) -> tuple[str, frozenset[str]]:
    body = action.removeprefix("play ")
    if body.endswith(" to the table"):
        return body.removesuffix(" to the table"), frozenset()
    card, taken = body.split(" taking ")
    return card, frozenset(taken.split(" + "))


def primiera(cards) -> int:
    best = {}
    for c in cards:
        best[SUIT[c]] = max(best.get(SUIT[c], 0), PRIME[c])
    return sum(best.values()) if len(best) == 4 else 0


def deal_points(s, move: tuple[str, frozenset[str]]) -> list[int]:
    """The points of the deal that the deal's last card, `move`, ends (from the state before it),
    for each side: the two players, or the two partnerships (P1 and P3, P2 and P4)."""
    me = s.current_player % 2
    taken = [list(s.zones[TAKEN + p]) for p in range(2)]
    table = list(s.zones[TABLE])
    played = next(c for c in s.zones[HAND + s.current_player] if NAMES[c] == move[0])
    last_taker = s.vars[LAST_TAKER]
    if move[1]:
        grabbed = [t for t in table if NAMES[t] in move[1]]
        taken[me] += [played] + grabbed
        table = [t for t in table if t not in grabbed]
        last_taker = me
    else:
        table.append(played)
    if last_taker is not None:
        taken[last_taker % 2] += table  # the rest of the table, to the last taker's side
    pts = list(s.vars[SCOPAS])[:2]  # no scopa on the last card
    for key in (len, lambda cs: sum(1 for c in cs if SUIT[c] == "coins"), primiera):
        a, b = key(taken[0]), key(taken[1])
        if a != b:
            pts[0 if a > b else 1] += 1
    for p in range(2):
        if any(NAMES[c] == "7 of coins" for c in taken[p]):
            pts[p] += 1
    return pts


def play_with_oracle(seed: int, n: int = 2) -> None:
    s = GAME.new_state(players=n, seed=seed)
    rng = random.Random(seed)
    totals = [0, 0]  # per side
    for _ in range(5000):
        if s.is_terminal():
            break
        assert s.phase == "turn"
        if all(len(s.zones[HAND + p]) == 3 for p in range(n)) and len(s.zones[STOCK]) == 36 - 3 * n:
            assert len(s.zones[TABLE]) == 4  # a fresh deal
            assert sum(1 for t in s.zones[TABLE] if VALUE[t] == 10) < 3
        legal = s.legal_action_strings()
        assert len(legal) == len(set(legal))
        assert {parse(a) for a in legal} == expected_moves(s), (seed, legal)
        last = len(s.zones[STOCK]) == 0 and sum(len(s.zones[HAND + p]) for p in range(n)) == 1
        move = rng.choice(legal)
        if last:  # the deal's last card: the deal is scored
            want = deal_points(s, parse(move))
            s.apply(move)
            assert list(s.vars[DEAL_POINTS]) == [want[p % 2] for p in range(n)], (seed, want)
            totals = [t + g for t, g in zip(totals, want)]
            assert list(s.vars[POINTS]) == [totals[p % 2] for p in range(n)]
        else:
            mover = s.current_player
            before = [len(s.zones[TAKEN + p]) for p in range(n)]
            s.apply(move)
            if parse(move)[1] and not s.zones[TABLE]:  # a scopa, for the mover's side
                assert s.vars[SCOPAS][mover % 2] >= 1
            assert sum(len(s.zones[TAKEN + p]) for p in range(n)) >= sum(before)
            assert all(not s.zones[TAKEN + p] for p in range(2, n))  # kept by P1 and P2
    assert s.is_terminal()
    points = list(s.vars[POINTS])
    w = s.winners()
    side = w[0] % 2
    assert sorted(w) == [p for p in range(n) if p % 2 == side]  # both partners win
    assert totals[side] >= TARGET and totals[side] > totals[1 - side]
    assert s.scores() == points


@pytest.mark.parametrize("seed", range(4))
def test_the_oracle_agrees_on_every_decision(seed):
    play_with_oracle(seed)


@pytest.mark.parametrize("seed", range(3))
def test_the_oracle_agrees_on_every_decision_with_four_players(seed):
    play_with_oracle(seed, 4)


@pytest.mark.parametrize("players,seed", [(2, 0), (2, 1), (2, 2), (4, 0), (4, 1)])
def test_random_games_keep_every_property(players, seed):
    report = play_checked(GAME, players, seed, {}, agent_seed=seed,
                          chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=5000)
    assert report.ok, report.describe()
    assert report.terminal
