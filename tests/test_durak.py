"""Durak (games/durak.rules): seeded random games for 2 to 6 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: 6 cards each, the turned-up card sets trumps (the dealer's last card with 6
    players), and the holder of the lowest trump attacks first;
  * the defender's legal moves are exactly the oracle's: the cards that beat an attack card
    (higher of its suit, or a trump on a plain card), picking up, and with the passing option
    (Perevodnoy) passing the attack on with a card of the same rank before beating any;
  * a thrower's legal moves are exactly the cards of ranks on the table, while there is room
    (fewer than 6 attack cards, fewer unbeaten cards than the defender holds), and passing;
  * at the end, the durak is the only player holding cards, and everyone else wins.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "durak.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
HAND, STOCK, TRUMP_CARD = PROG.zone_base["hand"], PROG.zone_base["stock"], PROG.zone_base["trump_card"]
ATTACK, BEATEN, COVER = PROG.zone_base["attack"], PROG.zone_base["beaten"], PROG.zone_base["cover"]
RANK, SUIT = PROG.card_props["rank"], PROG.card_props["suit"]
TRUMP, ATTACKER, DEFENDER = PROG.var_index["trump"], PROG.var_index["attacker"], PROG.var_index["defender"]
DURAK = PROG.var_index["durak"]


def beats(d: int, a: int, trump) -> bool:
    return (SUIT[d] == SUIT[a] and RANK[d] > RANK[a]) or (SUIT[d] == trump and SUIT[a] != trump)


def check_the_deal(s, players: int) -> None:
    assert [len(s.zones[HAND + p]) for p in range(players)] == [6] * players
    trump = s.vars[TRUMP]
    if players == 6:
        assert not s.zones[STOCK] and not s.zones[TRUMP_CARD]
    else:
        assert len(s.zones[TRUMP_CARD]) == 1 and SUIT[s.zones[TRUMP_CARD][0]] == trump
        assert len(s.zones[STOCK]) == 36 - 6 * players - 1
    trumps = [(RANK[c], p) for p in range(players) for c in s.zones[HAND + p] if SUIT[c] == trump]
    first = min(trumps)[1] if trumps else 0
    assert s.vars[ATTACKER] == first and s.current_player == first
    assert s.vars[DEFENDER] == (first + 1) % players


def next_holding(s, p: int) -> int:
    return next(q % s.n for q in range(p + 1, p + s.n + 1) if s.zones[HAND + q % s.n])


def expected_moves(s, passing: bool = False) -> set[str]:
    """The legal actions' texts, from the rules of Durak."""
    me, trump = s.current_player, s.vars[TRUMP]
    hand = s.zones[HAND + me]
    if s.phase == "open_bout":
        return {f"attack with {NAMES[c]}" for c in hand}
    if s.phase == "defend":
        attack = s.zones[ATTACK]
        assert passing or len(attack) == 1
        moves = {f"beat {NAMES[a]} with {NAMES[d]}" for a in attack for d in hand if beats(d, a, trump)}
        holding = sum(1 for p in range(s.n) if s.zones[HAND + p])
        if (passing and not s.zones[BEATEN] and holding > 2 and len(attack) < 6
                and len(attack) + 1 <= len(s.zones[HAND + next_holding(s, me)])):
            moves |= {f"pass the attack on with {NAMES[c]}" for c in hand if RANK[c] == RANK[attack[0]]}
        return moves | {"pick up"}
    assert s.phase == "throw_in"
    table = s.zones[ATTACK] + s.zones[BEATEN] + s.zones[COVER]
    ranks = {RANK[c] for c in table}
    attacks = len(s.zones[ATTACK]) + len(s.zones[BEATEN])
    room = attacks < 6 and len(s.zones[ATTACK]) + 1 <= len(s.zones[HAND + s.vars[DEFENDER]])
    assert me != s.vars[DEFENDER] and hand
    return {f"throw in {NAMES[c]}" for c in hand if room and RANK[c] in ranks} | {"throw in nothing"}


def check_the_end(s) -> None:
    assert s.is_terminal() and s.current_player is None
    assert sum(len(z) for z in s.zones) == 36
    holding = [p for p in range(s.n) if s.zones[HAND + p]]
    assert len(holding) <= 1 and not s.zones[STOCK] and not s.zones[TRUMP_CARD]
    durak = s.vars[DURAK]
    assert holding == ([durak] if durak is not None else [])
    assert sorted(s.winners()) == [p for p in range(s.n) if p != durak]
    assert s.scores() == [0 if p == durak else 1 for p in range(s.n)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_keep_every_property(players):
    for seed in range(2 if players <= 4 else 1):
        report = play_checked(GAME, players, seed, agent_seed=seed, chooser=CHOOSERS["random"], max_steps=5000)
        assert report.ok, report.describe()
        assert report.terminal
        check_the_end(report.state)


@pytest.mark.parametrize("players", [3, 6])
def test_random_games_with_passing_keep_every_property(players):
    report = play_checked(GAME, players, 7, {"passing": True}, agent_seed=7, chooser=CHOOSERS["random"],
                          max_steps=5000)
    assert report.ok, report.describe()
    assert report.terminal
    check_the_end(report.state)


@pytest.mark.parametrize("passing", [False, True], ids=["podkidnoy", "perevodnoy"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_legal_moves_are_the_oracles(players, passing):
    passes = 0
    for seed in range(2):
        s = GAME.new_state(players=players, seed=100 + seed, options={"passing": passing})
        check_the_deal(s, players)
        rng = random.Random(seed)
        steps = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            assert {a.text for a in legal} == expected_moves(s, passing), (seed, steps, s.phase)
            action = rng.choice(legal)
            passes += action.text.startswith("pass the attack on")
            s.apply(action)
            steps += 1
            assert steps < 5000
        check_the_end(s)
    assert passes > 0 if passing and players > 2 else passes == 0
