"""Gin Rummy (games/gin_rummy.rules): seeded random games for 2 players, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the 10-point limit: a player who has drawn may knock discarding exactly the cards
    (other than one just taken from the discard pile) that leave a hand whose best division
    into melds (sets of 3 or 4 of a rank, runs of 3 or more of a suit, ace low) leaves 10 or
    less deadwood -- the oracle searches the melds itself;
  * every hand that ends in a knock scores as the rules say: gin 25 plus the other
    player's deadwood, else the difference, or 25 more to the other player on an undercut;
  * at the end, one player reached the target, and the final scores add 100 for the game
    to them (200 on a shutout: the other player scored nothing), 25 for each hand won; the higher total wins.
Random players rarely knock (a random hand seldom gets within 10 points), so the players
here go gin when they can, often knock when they can, usually discard their worst card and lay out what they can:
the hands end in knocks, gins and undercuts within a few dozen decisions.
"""
from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "gin_rummy.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
HAND = PROG.zone_base["hand"]
RANK, SUIT, VALUE = PROG.card_props["rank"], PROG.card_props["suit"], PROG.card_props["value"]
V = PROG.var_index
TARGET = 60


def melds(hand: list[int]) -> list[frozenset[int]]:
    """Every meld the cards hold: sets of 3 or 4 of a rank, runs of 3 or more of a suit."""
    found = []
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        by_rank.setdefault(RANK[c], []).append(c)
    for cs in by_rank.values():
        for k in (3, 4):
            found += [frozenset(m) for m in combinations(cs, k)]
    for c in hand:
        run = [c]
        while True:
            nxt = [x for x in hand if SUIT[x] == SUIT[c] and RANK[x] == RANK[run[-1]] + 1]
            if not nxt:
                break
            run.append(nxt[0])
            if len(run) >= 3:
                found.append(frozenset(run))
    return found


def least_deadwood(hand: list[int]) -> int:
    """The least deadwood any division of the hand into disjoint melds leaves."""
    ms = melds(hand)
    best = 0

    def search(start: int, used: frozenset, saved: int) -> None:
        nonlocal best
        best = max(best, saved)
        for i in range(start, len(ms)):
            if not ms[i] & used:
                search(i + 1, used | ms[i], saved + sum(VALUE[c] for c in ms[i]))

    search(0, frozenset(), 0)
    return sum(VALUE[c] for c in hand) - best


def choose(st, rng: random.Random):
    """Go gin when possible, and often knock; mostly discard the card that leaves the least deadwood; lay out
    melds and lay off before finishing; otherwise random."""
    legal = st.legal_actions()
    texts = [a.text for a in legal]
    knocks = [a for a in legal if a.text.startswith("knock")]
    if st.phase == "play_turn":
        hand = list(st.zones[HAND + st.current_player])
        by_name = {NAMES[c]: c for c in hand}
        gins = [a for a in knocks if least_deadwood([c for c in hand if c != by_name[a.text[18:]]]) == 0]
        if gins:
            return rng.choice(gins)
    if knocks and rng.random() < 0.3:
        return rng.choice(knocks)
    if st.phase == "play_turn" and rng.random() < 0.8:
        discards = [a for a in legal if a.text.startswith("discard ")]
        return min(discards, key=lambda a: (least_deadwood([c for c in hand if c != by_name[a.text[8:]]]),
                                            rng.random()))
    if st.phase in ("knocker_lays", "other_lays") and len(texts) > 1 and rng.random() < 0.9:
        return rng.choice([a for a in legal if not a.text.startswith("finish")])
    return rng.choice(legal)


def hand_value(st, p: int) -> int:
    return sum(VALUE[c] for c in st.zones[HAND + p])


def play_with_oracle(seed: int) -> None:
    st = GAME.new_state(players=2, seed=seed, options={"target": TARGET})
    rng = random.Random(seed)
    knocks = 0
    for _ in range(5000):
        if st.is_terminal():
            break
        me = st.current_player
        legal = st.legal_action_strings()
        assert len(legal) == len(set(legal))
        if st.phase == "play_turn":
            hand = list(st.zones[HAND + me])
            taken = st.vars[V["taken"]]
            want = {f"knock, discarding {NAMES[c]}" for c in hand
                    if c != taken and least_deadwood([x for x in hand if x != c]) <= 10}
            assert {a for a in legal if a.startswith("knock")} == want, (seed, legal)
        action = choose(st, rng)
        if st.phase == "other_lays" and action.text.startswith("finish"):  # the hand is scored
            k = st.vars[V["knocker"]]
            dk, do = hand_value(st, k), hand_value(st, 1 - k)
            if dk == 0:
                w, pts = k, 25 + do
            elif do <= dk:
                w, pts = 1 - k, dk - do + 25
            else:
                w, pts = k, do - dk
            points = list(st.vars[V["points"]])
            points[w] += pts
            st.apply(action)
            knocks += 1
            assert list(st.vars[V["points"]]) == points, (seed, points)
            continue
        st.apply(action)
    assert st.is_terminal() and knocks > 0
    points, won, bonus = (list(st.vars[V[n]]) for n in ("points", "won", "bonus"))
    w = next(p for p in range(2) if points[p] >= TARGET)  # who reached the target
    l = 1 - w
    assert points[l] < TARGET
    want = [25 * won[0], 25 * won[1]]
    want[w] += 100
    if points[l] == 0:  # a shutout: the game bonus is 200
        want[w] += 100
    assert bonus == want
    totals = [points[p] + bonus[p] for p in range(2)]
    assert st.scores() == totals
    assert sorted(st.winners()) == [p for p in range(2) if totals[p] == max(totals)]


def test_the_oracle_agrees_on_simple_hands():
    by_name = {n: i for i, n in enumerate(NAMES)}
    hand = [by_name[n] for n in ("7 of hearts", "7 of clubs", "7 of spades", "7 of diamonds",
                                 "5 of hearts", "6 of hearts", "K of clubs")]
    assert least_deadwood(hand) == 10  # 5-6-7 of hearts and three 7s leave the K; four 7s would leave 21
    assert least_deadwood([by_name[n] for n in ("Q of spades", "K of spades", "A of spades")]) == 21


# Seed 0's game has a gin, seed 11's two undercuts, seed 10's a shutout (short: two hands), 14 and 19
# an undercut each.
@pytest.mark.parametrize("seed", [0, 11, 10, 14, 19])
def test_the_oracle_agrees_on_every_decision(seed):
    play_with_oracle(seed)


@pytest.mark.parametrize("seed", [0, 11, 10])
def test_random_games_keep_every_property(seed):
    report = play_checked(GAME, 2, seed, {"target": TARGET}, agent_seed=seed, chooser=choose, max_steps=5000)
    assert report.ok, report.describe()
    assert report.terminal
