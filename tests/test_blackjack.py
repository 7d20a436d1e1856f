"""Blackjack (games/blackjack.rules): random games for 1 to 7 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game:
  * how a game ends: after the last round, or earlier when nobody can afford the smallest
    bet; the scores are the chips and the winners hold the most;
  * each round's result for a player is one the rules allow: a lost bet, a push, an
    even-money win, or 3 to 2 for a natural, half the bet lost for a surrender, and an
    insurance of half the bet paid 2 to 1 exactly when the dealer has blackjack (checked with
    a no-split, no-double player);
  * the peek: insurance only under an Ace, and a dealer's blackjack settles the round before
    any hand is played, taking only the original bets;
  * the dealer's finished hand: 17 or more, or no draw at all when every hand is dead.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "blackjack.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
RANK = PROG.card_props["rank"]
DEALER = PROG.zone_base["dealer"]
OPTION_SETS = [
    {},
    {"decks": 2, "penetration": 100, "rounds": 12},
    {"hit_soft_17": True, "chips_start": 12, "rounds": 8, "peek": False, "surrender": False},
]


def vars_of(s):
    return s.observation(0)["vars"]


def value(cards) -> int:
    hard = sum(min(10, RANK[c]) for c in cards)
    return hard + 10 if any(RANK[c] == 1 for c in cards) and hard + 10 <= 21 else hard


def check_the_end(s, options) -> None:
    assert s.is_terminal() and s.current_player is None
    assert sum(len(z) for z in s.zones) == 312
    v = vars_of(s)
    chips, rounds = v["chips"], options.get("rounds", 5)
    assert s.scores() == chips
    assert sorted(s.winners()) == [p for p in range(s.n) if chips[p] == max(chips)]
    assert 1 <= v["round"] <= rounds
    if v["round"] < rounds:
        assert all(c < 2 for c in chips), "the game ended early while someone could still bet"


@pytest.mark.parametrize("options", OPTION_SETS, ids=["defaults", "2-decks-no-cut", "h17-short-stacks-no-peek"])
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6, 7])
def test_random_games_keep_every_property(players, options):
    for seed in range(2):
        chooser = CHOOSERS["random" if seed % 2 == 0 else "mixed"]
        report = play_checked(GAME, players, seed, options, agent_seed=seed + 10 * players, chooser=chooser,
                              max_steps=5000)
        assert report.ok, report.describe()
        assert report.terminal
        check_the_end(report.state, options)


def choose_basic(s, rng):
    """Bets at random and takes insurance at random; then surrenders a hard 15 or 16 against a
    ten up, hits below 17 and stands: never splits or doubles."""
    texts = {a.text: a for a in s.legal_actions()}
    if s.phase in ("betting", "insurance_offer"):
        return rng.choice(list(texts.values()))
    hand = s.zones[PROG.zone_base["hand"] + s.current_player]
    up = s.zones[DEALER][0]
    hard = sum(min(10, RANK[c]) for c in hand)
    if "surrender" in texts and min(10, RANK[up]) == 10 and value(hand) == hard and hard in (15, 16):
        return texts["surrender"]
    return texts["hit"] if value(hand) < 17 else texts["stand"]


@pytest.mark.parametrize("players", [1, 4, 7])
def test_each_round_pays_what_the_rules_say_and_the_dealer_plays_to_17(players):
    """With a player who never splits or doubles, a round's net result on the hand is -bet, 0
    (a push), +bet or +3/2 bet (a natural), or -bet/2 for a surrender; an insurance of half the
    bet adds +bet when the dealer has blackjack and -bet/2 otherwise.  Insurance is offered only
    under an Ace; a dealer's blackjack under an Ace or a ten is found by the peek before anyone
    plays (no hand decision that round, every hand but a natural loses its bet, nobody
    surrenders); the dealer ends below 17 only when every hand in the round busted, was a
    natural or surrendered (then the dealer draws nothing)."""
    rng = random.Random(players)
    rounds_seen = naturals = insured_won = insured_lost = surrenders = peeked_blackjacks = 0
    for seed in range(8):
        s = GAME.new_state(players=players, seed=seed, options={"rounds": 8})
        start, log_at, insured, gave_up, played = None, 0, set(), set(), 0
        while not s.is_terminal():
            v = vars_of(s)
            if s.phase == "betting" and not any(v["bet"]):
                start, log_at, insured, gave_up, played = list(v["chips"]), len(s.log_lines()), set(), set(), 0
            if s.phase == "insurance_offer":
                assert RANK[s.zones[DEALER][0]] == 1, "insurance is offered only under an Ace"
            bets = list(v["bet"])
            action, who = choose_basic(s, rng), s.current_player
            if action.text.startswith("bet "):      # the last bet may settle the round at once (the peek, naturals)
                bets[who] = int(action.text.split()[1])
            insured |= {who} if action.text == "take insurance" else set()
            gave_up |= {who} if action.text == "surrender" else set()
            played += s.phase == "play"
            s.apply(action)
            if s.is_terminal() or vars_of(s)["round"] != v["round"]:
                rounds_seen += 1
                chips = vars_of(s)["chips"]
                lines = s.log_lines()[log_at:]
                dealer_bj = any("the dealer has blackjack" in l for l in lines)
                if dealer_bj and any("the dealer peeks" in l for l in lines):
                    raise AssertionError(("the peek both found and did not find a blackjack", lines))
                if dealer_bj:
                    assert played == 0 and not gave_up, ("the peek settles the round before anyone plays", lines)
                    peeked_blackjacks += 1
                for p in range(players):
                    b, net = bets[p], chips[p] - start[p]
                    if p in insured:
                        net -= b if dealer_bj else -(b // 2)
                        insured_won += dealer_bj
                        insured_lost += not dealer_bj
                    if p in gave_up:
                        assert net == -(b // 2), (seed, p, b, net)
                        surrenders += 1
                    elif dealer_bj:
                        assert net in (-b, 0), (seed, p, b, net)
                    else:
                        assert net in (-b, 0, b, b * 3 // 2), (seed, p, b, net)
                    naturals += net == b * 3 // 2 and b > 0
                dealer = [int(m.group(1)) for l in lines for m in [re.search(r"the dealer has (\d+)", l)] if m]
                if dealer and dealer[-1] < 17:
                    dead = sum(1 for l in lines if re.search(r"P\d+ (busts|has blackjack|surrenders)", l))
                    assert dead == sum(1 for b in bets if b), lines
    assert rounds_seen >= 8 * 3 and naturals > 0
    assert insured_won + insured_lost > 0 and surrenders > 0 and peeked_blackjacks > 0
