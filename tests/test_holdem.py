"""Texas Hold'em (games/holdem.rules): the hand values its defs compute, against a Python
evaluator, and random games for 2 to 10 players checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants (chips conserved among them).  On top of
them, for this game:
  * hand_value (the best five of seven cards as one number) orders hands exactly as a
    plain Python evaluator of every five-card subset does, on hand-picked corner cases
    (the wheel, two three-of-a-kinds, three pairs, a flush beside a straight, kickers) and
    on random seven-card hands, and names the same category;
  * every showdown of the random games: the categories shown are those of the players'
    seven cards, and the main pot goes to the best hand (shared by equal hands);
  * how a game ends: one player with every chip, or after max_hands the biggest stacks.
"""
from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "holdem.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
BY_NAME = {n: i for i, n in enumerate(NAMES)}
RANK, SUIT = PROG.card_props["rank"], PROG.card_props["suit"]
HAND_VALUE = PROG.exprs.def_body("hand_value", False)
CATEGORIES = ["high card", "a pair", "two pair", "three of a kind", "a straight", "a flush",
              "a full house", "four of a kind", "a straight flush"]


def five_key(cards) -> tuple:
    """The rank of a five-card poker hand, as a tuple (bigger is better)."""
    ranks = sorted((RANK[c] for c in cards), reverse=True)
    counts = {r: ranks.count(r) for r in ranks}
    by_count = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({SUIT[c] for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        straight = distinct[0]
    elif distinct == [14, 5, 4, 3, 2]:
        straight = 5
    if straight and flush:
        return (8, straight)
    if shape == [4, 1]:
        return (7, *by_count)
    if shape == [3, 2]:
        return (6, *by_count)
    if flush:
        return (5, *ranks)
    if straight:
        return (4, straight)
    if shape == [3, 1, 1]:
        return (3, *by_count)
    if shape == [2, 2, 1]:
        return (2, *by_count)
    if shape == [2, 1, 1, 1]:
        return (1, *by_count)
    return (0, *ranks)


def best_key(cards) -> tuple:
    return max(five_key(five) for five in itertools.combinations(cards, 5))


_STATE = GAME.new_state(players=2, seed=0)   # hand_value reads only its argument


def rules_value(cards) -> int:
    """The rules' own hand_value def, called on a list of card ids."""
    return HAND_VALUE(_STATE, list(cards))


def cards_of(text: str) -> list[int]:
    """'A of spades, 5 of clubs, ...' -> card ids."""
    return [BY_NAME[n.strip()] for n in text.split(",")]


def sign(x) -> int:
    return (x > 0) - (x < 0)


CORNERS = [
    # (hand a, hand b, which is better: 1 a, -1 b, 0 equal)
    ("A of spades, 2 of clubs, 3 of hearts, 4 of diamonds, 5 of spades, 9 of clubs, K of hearts",  # the wheel
     "6 of spades, 2 of clubs, 3 of hearts, 4 of diamonds, 5 of spades, 9 of clubs, K of hearts", -1),
    ("A of clubs, 2 of clubs, 3 of clubs, 4 of clubs, 5 of clubs, K of hearts, K of spades",
     "K of clubs, K of diamonds, K of hearts, K of spades, 5 of clubs, 2 of hearts, 3 of spades", 1),
    # two three-of-a-kinds: a full house, the lower trips as the pair
    ("9 of clubs, 9 of hearts, 9 of spades, 4 of clubs, 4 of hearts, 4 of spades, A of diamonds",
     "9 of clubs, 9 of hearts, 9 of spades, 5 of clubs, 5 of hearts, 2 of spades, A of diamonds", -1),
    # three pairs: the best two and the best kicker (the third pair's rank may be the kicker)
    ("Q of clubs, Q of hearts, 8 of spades, 8 of clubs, 6 of hearts, 6 of spades, 2 of diamonds",
     "Q of clubs, Q of hearts, 8 of spades, 8 of clubs, 5 of hearts, 3 of spades, 2 of diamonds", 1),
    # a flush beats a straight on the same board
    ("2 of hearts, 7 of hearts, 9 of hearts, 10 of hearts, J of hearts, 8 of clubs, Q of spades",
     "2 of spades, 7 of clubs, 9 of hearts, 10 of diamonds, J of spades, 8 of clubs, Q of spades", 1),
    # the sixth flush card does not count; suits never break ties
    ("A of hearts, K of hearts, 9 of hearts, 7 of hearts, 4 of hearts, 3 of hearts, 2 of clubs",
     "A of spades, K of spades, 9 of spades, 7 of spades, 4 of spades, 2 of spades, 3 of clubs", 0),
    # kickers: a pair of Aces with K-Q-9 against A-A with K-Q-8
    ("A of hearts, A of clubs, K of spades, Q of diamonds, 9 of clubs, 4 of hearts, 2 of spades",
     "A of hearts, A of clubs, K of spades, Q of diamonds, 8 of clubs, 4 of hearts, 2 of spades", 1),
    # only five cards count: the sixth and seventh best do not break the tie
    ("A of hearts, A of clubs, K of spades, Q of diamonds, J of clubs, 4 of hearts, 2 of spades",
     "A of hearts, A of clubs, K of spades, Q of diamonds, J of clubs, 5 of hearts, 3 of spades", 0),
    # four of a kind with the best kicker
    ("7 of clubs, 7 of hearts, 7 of spades, 7 of diamonds, K of hearts, Q of spades, 2 of clubs",
     "7 of clubs, 7 of hearts, 7 of spades, 7 of diamonds, Q of hearts, J of spades, 2 of clubs", 1),
    # a straight flush inside a bigger flush; a higher straight elsewhere does not matter
    ("5 of spades, 6 of spades, 7 of spades, 8 of spades, 9 of spades, 10 of hearts, A of spades",
     "6 of clubs, 7 of clubs, 8 of clubs, 9 of clubs, 10 of clubs, 2 of hearts, 3 of spades", -1),
]


@pytest.mark.parametrize("a,b,better", CORNERS)
def test_corner_cases_rank_as_poker_says(a, b, better):
    ca, cb = cards_of(a), cards_of(b)
    assert sign((best_key(ca) > best_key(cb)) - (best_key(ca) < best_key(cb))) == better
    assert sign(rules_value(ca) - rules_value(cb)) == better


def test_random_hands_rank_as_a_python_evaluator_ranks_them():
    rng = random.Random(7)
    hands = [rng.sample(range(52), 7) for _ in range(600)]
    # make the rare categories common: hands built around quads, full houses and straights
    for _ in range(200):
        r = rng.randint(2, 14)
        hand = [c for c in range(52) if RANK[c] == r][:rng.randint(2, 4)]
        hand += rng.sample([c for c in range(52) if c not in hand], 7 - len(hand))
        hands.append(hand)
        top = rng.randint(5, 14)
        run = [rng.choice([c for c in range(52) if RANK[c] == (14 if k == 1 else k)]) for k in range(top - 4, top + 1)]
        hands.append(run + rng.sample([c for c in range(52) if c not in run], 2))
    values = [rules_value(h) for h in hands]
    keys = [best_key(h) for h in hands]
    for v, k in zip(values, keys):
        assert v // 15 ** 5 == k[0], (v, k)
    seen = sorted(set(k[0] for k in keys))
    assert seen == list(range(9)), seen
    order = sorted(range(len(hands)), key=lambda i: values[i])
    for i, j in zip(order, order[1:]):
        assert (values[i] < values[j]) == (keys[i] < keys[j]), ([NAMES[c] for c in hands[i]], [NAMES[c] for c in hands[j]])
        assert keys[i] <= keys[j]


def check_showdowns(s) -> int:
    """Every showdown in the log: the categories shown, and who takes the main pot.  Returns
    how many showdowns there were."""
    n = 0
    board, shown, cats, result = [], {}, {}, None
    for line in s.log_lines() + ["hand end"]:
        if line.startswith("hand "):
            if shown:
                n += 1
                keys = {p: best_key(cs + board) for p, cs in shown.items()}
                for p, k in keys.items():
                    assert cats[p] == CATEGORIES[k[0]], (p, cats[p], [NAMES[c] for c in shown[p] + board])
                best = max(keys.values())
                tops = sorted(p for p, k in keys.items() if k == best)
                assert result is not None
                if result[0] == "wins":
                    assert tops == [result[1]], (tops, result)
                else:
                    assert len(tops) == result[1], (tops, result)
            board, shown, cats, result = [], {}, {}, None
            continue
        m = re.match(r"\s+moved (.*) from deck to board$", line)
        if m:
            board += cards_of(m.group(1).replace(" + ", ","))
        m = re.match(r"\s+moved (.*) from hole\[(P\d+)\] to shown\[P\d+\]$", line)
        if m:
            shown[m.group(2)] = cards_of(m.group(1).replace(" + ", ","))
        m = re.match(r"(P\d+) shows (.*)$", line)
        if m:
            cats[m.group(1)] = m.group(2)
        if result is None:
            m = re.match(r"(P\d+) wins \d+ with", line)
            if m:
                result = ("wins", m.group(1))
            m = re.match(r"(\d+) players split \d+ with", line)
            if m:
                result = ("split", int(m.group(1)))
    return n


def check_the_end(s, players: int, options: dict) -> None:
    assert s.is_terminal() and s.current_player is None
    assert sum(len(z) for z in s.zones) == 52
    v = s.observation(0)["vars"]
    chips = v["chips"]
    assert sum(chips) == players * options.get("chips_start", 200)
    assert s.scores() == chips
    assert sorted(s.winners()) == [p for p in range(players) if chips[p] == max(chips)]
    if v["hand_no"] < options.get("max_hands", 100):
        assert sum(1 for c in chips if c > 0) == 1


OPTION_SETS = [{"max_hands": 12}, {"chips_start": 40, "blinds_every": 3, "max_hands": 15}]


@pytest.mark.parametrize("options", OPTION_SETS, ids=["12-hands", "short-stacks-rising-blinds"])
@pytest.mark.parametrize("players", [2, 3, 4, 6, 10])
def test_random_games_keep_every_property(players, options):
    showdowns = 0
    for seed in range(2):
        chooser = CHOOSERS["random" if seed % 2 == 0 else "mixed"]
        report = play_checked(GAME, players, seed, options, agent_seed=seed + 10 * players, chooser=chooser,
                              max_steps=5000)
        assert report.ok, report.describe()
        assert report.terminal
        check_the_end(report.state, players, options)
        showdowns += check_showdowns(report.state)
    assert showdowns > 0
