"""Cribbage (games/cribbage.rules): seeded random games for 2, 3 and 4 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, a
model written here in Python from the rules (not from the rules file) reads the game log
and recounts every score:
  * the deal: 6 cards each with 2 players, 5 each and one to the crib with 3, 5 each with 4;
  * the play: the points pegged for each card (15, 31, pairs, runs of the last cards of the
    count), the go and the last card, and that a player says go only when no card fits;
  * the show: each hand and crib counted by brute force over its combinations (fifteens,
    pairs, longest runs, flushes, his nobs), in the order non-dealer(s) first, dealer, crib;
  * the end: the winner is the only player at or past the target; with 4 players the
    partners (P1 and P3, P2 and P4) share one score, and both win together.
"""
from __future__ import annotations

import random
import re
from itertools import combinations
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "cribbage.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
HAND, CRIB, STOCK = PROG.zone_base["hand"], PROG.zone_base["crib"], PROG.zone_base["stock"]
SERIES = PROG.zone_base["series"]
NAMES = PROG.card_names
RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(i): i for i in range(2, 11)}}


def card(name: str) -> tuple[int, str]:
    rank, _, suit = name.partition(" of ")
    return RANKS[rank], suit


def value(c) -> int:
    return min(c[0], 10)


def show_score(hand: list, starter, crib: bool) -> int:
    """A hand (or crib) of 4 with the starter, counted by brute force over its combinations."""
    cards = hand + [starter]
    score = 0
    for k in range(2, 6):
        for combo in combinations(cards, k):
            if sum(value(c) for c in combo) == 15:
                score += 2
    score += 2 * sum(1 for a, b in combinations(cards, 2) if a[0] == b[0])
    for k in (5, 4, 3):
        n = sum(1 for combo in combinations(cards, k)
                if len({c[0] for c in combo}) == k and max(c[0] for c in combo) - min(c[0] for c in combo) == k - 1)
        if n:
            score += k * n
            break
    if len({c[1] for c in cards}) == 1:
        score += 5
    elif not crib and len({c[1] for c in hand}) == 1:
        score += 4
    score += sum(1 for c in hand if c[0] == 11 and c[1] == starter[1])
    return score


def pegging_score(series: list) -> int:
    """The points for the last card of the count `series` (15, 31, pairs, runs)."""
    total = sum(value(c) for c in series)
    score = 2 if total in (15, 31) else 0
    same = 1
    while same < len(series) and series[-1 - same][0] == series[-1][0]:
        same += 1
    score += {1: 0, 2: 2, 3: 6, 4: 12}[same]
    for n in range(len(series), 2, -1):
        ranks = [c[0] for c in series[-n:]]
        if len(set(ranks)) == n and max(ranks) - min(ranks) == n - 1:
            score += n
            break
    return score


PLAYS = re.compile(r"^(P\d) plays (.+): (\d+)$")
PEGS = re.compile(r"^(P\d) pegs (\d+) for (.+) \((\d+) points\)$")
SHOWS = re.compile(r"^(P\d) shows (.+) with the starter (.+): (\d+)$")
DEALS = re.compile(r"^(P\d) deals$")


def side(who: str, players: int) -> str:
    """Whose score a player pegs: their own, or with 4 players their partnership's (P1+P3, P2+P4)."""
    return f"P{(int(who[1:]) - 1) % 2 + 1}" if players == 4 else who


def check_log(lines: list[str], target: int, players: int) -> dict:
    """Recount every score of a finished game from its log; returns what was seen."""
    seen = {"shows": 0, "plays": 0, "gos": 0}
    points: dict[str, int] = {}  # by side: a player, or with 4 players a partnership
    series: list = []
    expect_peg: tuple[str, int] | None = None  # points the last card must score, not yet all logged
    crib_next = False
    dealer, shown = None, []

    def check_show_order():
        # the non-dealers clockwise from the dealer's left, then the dealer's hand, then the crib
        # (a prefix of it when the game ended in the show)
        if dealer is not None:
            d = int(dealer[1:]) - 1
            order = [f"P{(d + k) % players + 1}" for k in range(1, players + 1)] + [dealer]
            assert shown == order[:len(shown)], (dealer, shown)
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(" "):
            if "from series" in line:
                series = []
            if "crib is revealed" in line:
                crib_next = True
            continue
        if m := DEALS.match(line):
            check_show_order()
            dealer, shown = m.group(1), []
        elif m := PLAYS.match(line):
            who, name, total = m.group(1), m.group(2), int(m.group(3))
            series.append(card(name))
            assert total == sum(value(c) for c in series) <= 31, (line, series)
            seen["plays"] += 1
            got = 0
            while i < len(lines) and (p := PEGS.match(lines[i])) and p.group(3) not in ("the go", "the last card"):
                assert p.group(1) == who
                got += int(p.group(2))
                points[side(who, players)] = int(p.group(4))
                i += 1
            want = pegging_score(series)
            ended = any(v >= target for v in points.values())
            assert got == want or (ended and got < want), (line, series, got, want)
        elif m := PEGS.match(line):
            who, n, why, now = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
            assert now == points.get(side(who, players), 0) + n, line
            points[side(who, players)] = now
            if why in ("the go", "the last card"):
                assert n == 1 and sum(value(c) for c in series) != 31, (line, series)
                seen["gos"] += 1
        elif m := SHOWS.match(line):
            who, hand, starter, n = m.group(1), m.group(2).split(" + "), card(m.group(3)), int(m.group(4))
            assert len(hand) == 4, line
            assert n == show_score([card(c) for c in hand], starter, crib_next), (line, crib_next)
            crib_next = False
            shown.append(who)
            seen["shows"] += 1
    check_show_order()
    return seen


def check_the_end(s, target: int) -> None:
    assert s.is_terminal() and s.current_player is None
    scores = s.scores()
    winners = s.winners()
    if s.n == 4:  # partners share one score and win together
        assert all(scores[p] == scores[(p + 2) % 4] for p in range(4)), scores
        assert len(winners) == 2 and winners[1] == winners[0] + 2, winners
    else:
        assert len(winners) == 1
    w = winners[0]
    assert scores[w] >= target
    assert all(scores[p] < target for p in range(s.n) if p not in winners), scores
    assert sum(len(z) for z in s.zones) == 52


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_games_keep_every_property(players, seed):
    target = 61
    report = play_checked(GAME, players, seed, {"target": target}, agent_seed=seed,
                          chooser=CHOOSERS["random" if seed % 2 else "mixed"], max_steps=5000)
    assert report.ok, report.describe()
    assert report.terminal
    check_the_end(report.state, target)
    check_log(report.state.log_lines(), target, players)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal(players):
    for seed in range(20):
        s = GAME.new_state(players=players, seed=seed)
        assert s.phase == "discard"
        size = 6 if players == 2 else 5
        assert [len(s.zones[HAND + p]) for p in range(players)] == [size] * players
        assert len(s.zones[CRIB]) == (1 if players == 3 else 0)
        assert len(s.zones[STOCK]) == 52 - size * players - len(s.zones[CRIB])


def test_every_score_matches_a_model_of_the_rules():
    """Many unchecked random games, every pegging and show score recounted from the log."""
    seen = {"shows": 0, "plays": 0, "gos": 0}
    for seed in range(12):
        s = GAME.new_state(players=2 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            if s.phase == "play":  # go exactly when no card of the hand keeps the count to 31
                total = sum(value(card(NAMES[c])) for c in s.zones[SERIES])
                fits = [c for c in s.zones[HAND + s.current_player] if total + value(card(NAMES[c])) <= 31]
                assert sorted(a.text for a in legal) == (sorted(f"play {NAMES[c]}" for c in fits) or ["go"])
            s.apply(rng.choice(legal))
        check_the_end(s, 121)
        for k, v in check_log(s.log_lines(), 121, s.n).items():
            seen[k] += v
    assert seen["shows"] > 300 and seen["plays"] > 1000 and seen["gos"] > 200, seen


def test_the_model_itself():
    """The model gives the classic counts (so the comparison above compares with something right)."""
    h = lambda *names: [card(n) for n in names]  # noqa: E731
    # the 29 hand: three 5s and the jack of the starter's suit, a 5 turned up
    assert show_score(h("5 of clubs", "5 of hearts", "5 of spades", "J of diamonds"), card("5 of diamonds"), False) == 29
    # a double double run: 3-3-4-4-5 is 20 (four runs of 3, two pairs, two fifteens 3+3+4+5)
    assert show_score(h("3 of clubs", "3 of hearts", "4 of spades", "4 of diamonds"), card("5 of clubs"), False) == 20
    assert show_score(h("2 of clubs", "4 of clubs", "6 of clubs", "8 of clubs"), card("K of hearts"), False) == 4  # no fifteen of even cards
    assert show_score(h("2 of clubs", "4 of clubs", "6 of clubs", "8 of clubs"), card("K of hearts"), True) == 0
    assert show_score(h("2 of clubs", "4 of clubs", "6 of clubs", "8 of clubs"), card("Q of clubs"), True) == 5
    assert pegging_score(h("7 of clubs", "8 of hearts")) == 2
    assert pegging_score(h("4 of clubs", "6 of hearts", "5 of spades")) == 3 + 2
    assert pegging_score(h("9 of clubs", "9 of hearts", "9 of spades")) == 6
