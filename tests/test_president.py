"""President (games/president.rules): seeded random games for 3 to 7 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: all 52 cards, the players after the dealer getting the odd cards;
  * in the play, the legal actions are exactly the oracle's: the leader plays 1 to 4 cards of
    one rank; then pass, or as many cards of one higher rank; the turn goes to the next player
    still holding cards, and when all the others have passed, the last player to play (or the
    next one still in) leads;
  * the exchange: the Scum's card (pagat.com's basic game; 2 cards, and the Vice-Scum's 1, with
    the exchange option at 2) that went over are their best;
  * the end: the given number of hands, 2 + 1 points a hand (2 with 3 players), the most
    points win (a tie shares the win) and the scores are the points.
"""
from __future__ import annotations

import random
import re
from itertools import combinations
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "president.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
BY_NAME = {n: c for c, n in enumerate(NAMES)}
HAND, TRICK = PROG.zone_base["hand"], PROG.zone_base["trick"]
RANK = PROG.card_props["rank"]
POINTS, HAND_NO, RANKING = PROG.var_index["points"], PROG.var_index["hand_no"], PROG.var_index["ranking"]
HANDS = 3  # a shorter game keeps the test fast; the rules are the same
MOVED = re.compile(r"moved (.+) from hand\[P(\d)\] to hand\[P(\d)\]$")


def cards_of(text: str) -> frozenset[str]:
    """The card names of an action text such as `play 7 of clubs + 7 of spades`."""
    return frozenset(text.split(" ", 1)[1].split(" + "))


def sets_of(hand: list[int], size: int, above: int) -> set[frozenset[str]]:
    """Every set of `size` cards of one rank higher than `above` in the hand."""
    out = set()
    for r in {RANK[c] for c in hand if RANK[c] > above}:
        same = sorted(NAMES[c] for c in hand if RANK[c] == r)
        out |= {frozenset(cs) for cs in combinations(same, size)}
    return out


def expected(s, plays: list[tuple[int, list[int]]]) -> set:
    hand = s.zones[HAND + s.current_player]
    if not plays:
        return {("lead", cs) for k in range(1, 5) for cs in sets_of(hand, k, 0)}
    size, last = len(plays[0][1]), RANK[plays[-1][1][0]]
    return {("pass", frozenset({""}))} | {("play", cs) for cs in sets_of(hand, size, last)}


def seen(legal: list[str]) -> set:
    return {(t, frozenset({""})) if t == "pass" else (t.split(" ", 1)[0], cards_of(t)) for t in legal}


def check_exchange(s, players: int, exchange: int) -> None:
    """At the exchange's first decision: what the Scum (and the Vice-Scum) gave were their best cards."""
    lines = s.log_lines()
    start = max(i for i, line in enumerate(lines) if re.match(r"hand \d+: P\d deals", line))
    ranking = list(s.vars[RANKING])
    gifts = {}
    for line in lines[start:]:
        m = MOVED.search(line)
        if m:
            giver, taker = int(m.group(2)) - 1, int(m.group(3)) - 1
            gifts.setdefault((giver, taker), []).extend(m.group(1).split(" + "))
    expected_gifts = {(ranking[-1], ranking[0]): exchange}
    if players >= 4 and exchange == 2:
        expected_gifts[(ranking[-2], ranking[1])] = 1
    assert {k: len(v) for k, v in gifts.items()} == expected_gifts, gifts
    for (giver, _), names in gifts.items():
        kept = [RANK[c] for c in s.zones[HAND + giver]]
        assert min(RANK[BY_NAME[n]] for n in names) >= max(kept), (names, kept)


def play_with_oracle(players: int, seed: int, exchange: int = 1) -> None:
    s = GAME.new_state(players=players, seed=seed, options={"hands": HANDS, "exchange": exchange})
    rng = random.Random(seed)
    # The first dealer is P1; the cards go one at a time clockwise from P2.
    dealt = [sum(1 for i in range(1, 53) if i % players == q) for q in range(players)]
    assert [len(s.zones[HAND + q]) for q in range(players)] == dealt
    plays: list[tuple[int, list[int]]] = []
    passes, hand_no, exchanges = 0, s.vars[HAND_NO], 0
    for _ in range(5000):
        if s.is_terminal():
            break
        legal = s.legal_action_strings()
        p = s.current_player
        if s.phase == "exchange":
            s.apply(rng.choice(legal))
            continue
        assert s.phase == "play"
        assert seen(legal) == expected(s, plays), (seed, legal)
        action = rng.choice(legal)
        s.apply(action)
        if s.is_terminal() or s.vars[HAND_NO] != hand_no:  # the hand is over
            hand_no = s.vars[HAND_NO]
            plays, passes = [], 0
            if s.phase == "exchange":
                check_exchange(s, players, exchange)
                exchanges += 1
            continue
        if action == "pass":
            passes += 1
        else:
            plays.append((p, [BY_NAME[n] for n in cards_of(action)]))
            passes = 0
        holding = [q for q in range(players) if s.zones[HAND + q]]
        last = plays[-1][0]
        if passes >= len([q for q in holding if q != last]):
            nxt = last if s.zones[HAND + last] else next(q for q in [(last + i) % players for i in range(1, players + 1)] if s.zones[HAND + q])
            plays, passes = [], 0
            assert not s.zones[TRICK]
        else:
            nxt = next(q for q in [(p + i) % players for i in range(1, players + 1)] if s.zones[HAND + q])
        assert s.current_player == nxt, (seed, action, s.current_player, nxt)
    assert s.is_terminal()
    assert exchanges == HANDS - 1
    points = list(s.vars[POINTS])
    assert s.vars[HAND_NO] == HANDS
    assert sum(points) == HANDS * (3 if players >= 4 else 2)
    assert sorted(s.winners()) == [q for q in range(players) if points[q] == max(points)]
    assert s.scores() == points


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_the_oracle_agrees_on_every_decision(players):
    for seed in range(2):
        play_with_oracle(players, seed)
    play_with_oracle(players, 2, exchange=2)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_random_games_keep_every_property(players):
    for seed in range(2):
        report = play_checked(GAME, players, seed, {"hands": HANDS}, agent_seed=seed,
                              chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=5000)
        assert report.ok, report.describe()
        assert report.terminal
