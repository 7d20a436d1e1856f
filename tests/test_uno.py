"""Uno (games/uno.rules): seeded random games for 2 to 10 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved, a
legal action while the game runs, the game ends within a step bound, the JSON round trip,
replay, secrecy, and the declared invariants.  Random agents draw whenever they like and make
hands of thousands of decisions, so most games here are played by a greedy agent (it plays a
card whenever it can) and a single hand (option target=1); a few are random.  On top of the
checks, for this game:
  * the deal: 7 cards each, one card turned up that is never a Wild Draw Four;
  * the end of a hand: one player with an empty hand, who scores the cards left in the
    others' hands (number cards their number, action cards 20, wild cards 50);
  * a full game to 500 points, whose winner alone has reached the target.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "uno.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
STOCK, DISCARD = PROG.zone_base["stock"], PROG.zone_base["discard"]
HAND = PROG.zone_base["hand"]
KIND, NUMBER = PROG.card_props["kind"], PROG.card_props["number"]
KINDS = {"number": 0, "skip": 1, "reverse": 2, "draw_two": 3, "wild": 4, "wild_four": 5}


def value(c: int) -> int:
    name = NAMES[c]
    if name.startswith("Wild"):
        return 50
    if name.split()[-1].isdigit():
        return int(name.split()[-1])
    return 20


def choose_greedy(s, rng):
    """Plays a card whenever it can (wild cards last), says Uno, never challenges, always catches."""
    legal = s.legal_actions()
    texts = [a.text for a in legal]
    plain = [a for a in legal if a.text.startswith("play ") and " and name " not in a.text]
    wild = [a for a in legal if " and name " in a.text]
    if plain or wild:
        return rng.choice(plain or wild)
    return rng.choice(legal)


def check_the_end(s, target: int) -> None:
    assert s.is_terminal() and s.current_player is None
    assert sum(len(z) for z in s.zones) == 108
    winners, scores = s.winners(), s.scores()
    assert len(winners) == 1
    w = winners[0]
    assert scores[w] >= target
    assert all(scores[p] < target for p in range(s.n) if p != w)
    if target == 1:  # a single hand: the winner went out and scored the others' cards
        assert not s.zones[HAND + w]
        assert scores[w] == sum(value(c) for p in range(s.n) for c in s.zones[HAND + p])
        assert all(scores[p] == 0 for p in range(s.n) if p != w)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8, 9, 10])
def test_the_deal_and_the_starter(players):
    for seed in range(20):
        s = GAME.new_state(players=players, seed=seed)
        top = s.zones[DISCARD][-1]
        assert NAMES[top] != "Wild Draw Four"
        sizes = sorted(len(s.zones[HAND + p]) for p in range(players))
        extra = 2 if NAMES[top].endswith("Draw Two") else 0
        assert sizes == [7] * (players - 1) + [7 + extra], (seed, NAMES[top], sizes)
        assert len(s.zones[STOCK]) == 108 - 1 - 7 * players - extra
        assert len(s.zones[DISCARD]) == 1


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8, 9, 10])
def test_greedy_single_hands_keep_every_property(players):
    for seed in range(3):
        report = play_checked(GAME, players, seed, {"target": 1}, agent_seed=seed, chooser=choose_greedy,
                              max_steps=5000)
        assert report.ok, report.describe()
        check_the_end(report.state, 1)


@pytest.mark.parametrize("players", [2, 4])
def test_random_single_hands_keep_every_property(players):
    report = play_checked(GAME, players, 7, {"target": 1}, agent_seed=7, chooser=CHOOSERS["random"],
                          max_steps=20_000, round_trip=False, check_replay=False)
    assert report.ok, report.describe()
    check_the_end(report.state, 1)


def test_a_whole_game_to_500_points():
    report = play_checked(GAME, 3, 1, agent_seed=1, chooser=choose_greedy, max_steps=20_000,
                          round_trip=False, secrecy=False, check_replay=False)
    assert report.ok, report.describe()
    check_the_end(report.state, 500)


def test_only_the_challenger_sees_the_challenged_hand_and_the_outcome_keeps_the_secret():
    """A challenged Wild Draw Four: the challenger looks at the hand, the third player is told
    only the outcome (an announcement), and the counterfactual secrecy check finds no leak for
    the third player (re-deals that would change the outcome are dropped, the rest agree)."""
    from rulespec.tools.fuzzing import secrecy as S

    def challenger(s, rng):  # greedy, but plays a Wild Draw Four first and always challenges
        texts = [a.text for a in s.legal_actions()]
        for t in texts:
            if t == "yes" or (t.startswith("play Wild Draw Four") and "yes" not in texts):
                return next(a for a in s.legal_actions() if a.text == t)
        return choose_greedy(s, rng)
    for seed in range(30):
        s, rng, actions = GAME.new_state(players=3, seed=seed, options={"target": 1}), random.Random(seed), []
        while not s.is_terminal() and not any(e[0] == "announce" for e in s.log) and len(actions) < 300:
            a = challenger(s, rng)
            actions.append(a.text)
            s.apply(a.text)
        if any(e[0] == "announce" for e in s.log):
            break
    else:
        pytest.fail("no challenge in 30 games")
    i = next(i for i, e in enumerate(s.log) if e[0] == "announce")
    j = max(k for k in range(i) if s.log[k][0] == "look")
    looker = s.log[j][1]
    challenged = next(p for p in range(3) if p != looker and f"P{p + 1} held" in s.log[i][1])
    third = 3 - looker - challenged
    hand = " + ".join(NAMES[c] for c in s.log[j][2])
    assert s.log_lines(looker, j)[0] == f"   P{looker + 1} looks at {hand}"
    assert s.log_lines(third, j)[0] == f"   P{looker + 1} looks at {len(s.log[j][2])} cards"
    assert s.log_lines(third, i)[0] == s.log[i][1]  # the outcome, told to everyone
    verdict = S.counterfactual_check(GAME, 3, seed, {"target": 1}, actions, viewer=third)
    assert verdict.ok, verdict.leak
    assert verdict.worlds > 0


def test_a_long_two_player_game_is_not_a_fuzz_failure():
    """`rulespec fuzz games/uno.rules --games 10 --seed 2`: game #0, two random players, takes
    22,788 decisions to reach 500 points (11 long hands, no loop).  Mattel's rules do not bound a
    hand, so the file declares its own limit (100,000 decisions), and fuzz's bound follows it:
    the game ends, it does not fail as endless (it did at the 20,000 default)."""
    from rulespec.tools.fuzzing import fuzz as F
    game = GAME
    assert F.default_max_steps(game.model) == 100_000
    job = F.plan(game, 10, seed=2)[0]
    pick = F.agent_picker(F.make_chooser(job.agent), random.Random(job.agent_seed))
    out = F.play_game(game, job.players, job.seed, {}, pick, max_steps=F.default_max_steps(game.model),
                      check_replay=False, state_check_rate=0.0)
    assert out.failure is None and out.terminal and not out.limited
    assert job.players == 2 and out.steps > F.DEFAULT_MAX_STEPS
