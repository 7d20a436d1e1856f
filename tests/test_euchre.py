"""Euchre (games/euchre.rules): seeded random games, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (not from the rules file) plays along:
  * the deal: 5 cards each, the kitty's top card turned up; the dealer rotates to the
    left (thrown-in hands included); the player left of the dealer speaks first;
  * making trump: exactly the oracle's offers in each round (order up or pick up the
    turned card, alone or not; name another suit, alone or not; pass, except for a
    stuck dealer), and a hand thrown in when all pass twice;
  * in the tricks, the legal plays are exactly the oracle's (follow the suit led, the
    left bower belonging to trump); the partner of a lone maker never plays; the oracle
    finds each trick's winner itself (right bower, left bower, other trumps, else the
    highest card of the suit led);
  * at the end of each hand the oracle scores it (1, 2 for a march, 4 for a lone march,
    2 to the defenders for a euchre), and the game ends at the target with both partners
    of the side that reached it winning, scores being the partnership's points.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "euchre.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
INDEX = {n: i for i, n in enumerate(NAMES)}
HAND, TRICK, UPCARD, STOCK = (PROG.zone_base[z] for z in ("hand", "trick", "upcard", "stock"))
V = PROG.var_index
TARGET = 5  # a shorter game keeps the test fast; the rules are the same
SUITS = ("clubs", "diamonds", "hearts", "spades")
COLOUR = {"clubs": "black", "spades": "black", "diamonds": "red", "hearts": "red"}
RANK = {"9": 9, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}


def parse(name: str) -> tuple[str, str]:
    rank, _, suit = name.split(" ")
    return rank, suit


def suit_of(name: str, trump: str) -> str:
    rank, suit = parse(name)
    if rank == "J" and suit != trump and COLOUR[suit] == COLOUR[trump]:
        return trump  # the left bower
    return suit


def power(name: str, trump: str, led: str) -> int:
    rank, suit = parse(name)
    if rank == "J" and suit == trump:
        return 100
    if suit_of(name, trump) == trump:
        return 99 if suit != trump else 50 + RANK[rank]
    return RANK[rank] if suit == led else 0


def hand_points(got: int, alone: bool) -> int:
    return 4 if got == 5 and alone else 2 if got == 5 else 1 if got >= 3 else 0


def play_with_oracle(seed: int, stick: bool) -> None:
    s = GAME.new_state(players=4, seed=seed, options={"target": TARGET, "stick_the_dealer": stick})
    rng = random.Random(seed)
    points = [0] * 4
    hand_no, finished = 0, True
    for _ in range(20000):
        if s.is_terminal():
            break
        if s.vars[V["hand_no"]] != hand_no:  # a new hand was dealt
            assert s.vars[V["hand_no"]] == hand_no + 1 and finished, "a hand is dealt only when the last one is over"
            hand_no, finished = hand_no + 1, False
            dealer = (hand_no - 1) % 4
            assert [len(s.zones[HAND + p]) for p in range(4)] == [5] * 4
            assert len(s.zones[UPCARD]) == 1 and len(s.zones[STOCK]) == 3
            turned = NAMES[s.zones[UPCARD][0]]
            assert s.phase == "order" and s.current_player == (dealer + 1) % 4
            speaker, passes, maker, trump, alone = (dealer + 1) % 4, 0, None, None, False
            taken, first, out = [0] * 4, None, None
        legal = s.legal_action_strings()
        p = s.current_player
        if s.phase in ("order", "name"):
            assert p == speaker
            _, tsuit = parse(turned)
            if s.phase == "order":
                verb = "pick up" if p == dealer else "order up"
                want = {f"{verb} {turned}", f"{verb} {turned}, going alone", "pass"}
            else:
                want = {f"name {x}{a}" for x in SUITS if x != tsuit for a in ("", ", going alone")}
                if not (stick and p == dealer):
                    want.add("pass")
            assert set(legal) == want, (seed, legal)
            a = "pass" if "pass" in legal and rng.random() < 0.6 else rng.choice(legal)
            s.apply(a)
            if a == "pass":
                passes += 1
                speaker = (speaker + 1) % 4
                if passes == 8:  # thrown in: the next hand is dealt at once
                    finished = True
                    assert s.vars[V["hand_no"]] == hand_no + 1 and points == list(s.vars[V["points"]])
            else:
                maker, alone = p, a.endswith("going alone")
                trump = tsuit if s.phase == "exchange" else a.split(" ")[1].rstrip(",")
                out = (maker + 2) % 4 if alone else None
                assert s.vars[V["trump"]] == trump and s.vars[V["maker"]] == maker and s.vars[V["alone"]] == alone
            continue
        if s.phase == "exchange":
            assert p == dealer and len(s.zones[HAND + p]) == 6 and INDEX[turned] in s.zones[HAND + p]
            s.apply(rng.choice(legal))
            continue
        assert s.phase == "trick"
        assert p != out, "the partner of a lone maker never plays"
        hand = [NAMES[c] for c in s.zones[HAND + p]]
        trick = [NAMES[c] for c in s.zones[TRICK]]
        if not trick:
            if sum(taken) == 0:  # the first lead: left of the dealer, skipping a sitter-out
                assert p == ((dealer + 2) % 4 if out == (dealer + 1) % 4 else (dealer + 1) % 4)
            want = {f"lead {c}" for c in hand}
            first = p
        else:
            led = suit_of(trick[0], trump)
            ok = [c for c in hand if suit_of(c, trump) == led] or hand
            want = {f"play {c}" for c in ok}
        assert set(legal) == want, (seed, trump, trick, legal)
        a = rng.choice(legal)
        cards = trick + [a.split(" ", 1)[1]]
        s.apply(a)
        size = 3 if alone else 4
        if len(cards) == size:
            order = [q for q in ((first + i) % 4 for i in range(4)) if q != out]
            powers = [power(c, trump, suit_of(cards[0], trump)) for c in cards]
            w = order[powers.index(max(powers))]
            taken[w] += 1
            if sum(taken) == 5:
                finished = True
                got = taken[maker] + taken[(maker + 2) % 4]
                for q in range(4):
                    if (q - maker) % 2 == 0:
                        points[q] += hand_points(got, alone)
                    elif got < 3:
                        points[q] += 2
                assert list(s.vars[V["points"]]) == points, (seed, taken, maker, alone)
            else:
                assert s.current_player == w and list(s.vars[V["taken"]]) == taken
    assert s.is_terminal()
    assert max(points) >= TARGET
    assert sorted(s.winners()) == [p for p in range(4) if points[p] == max(points)]
    assert len(s.winners()) == 2
    assert s.scores() == points


@pytest.mark.parametrize("seed", range(8))
def test_the_oracle_agrees_on_every_decision(seed):
    play_with_oracle(seed, stick=seed % 2 == 1)


@pytest.mark.parametrize("seed", range(4))
def test_random_games_keep_every_property(seed):
    report = play_checked(GAME, 4, seed, {"target": TARGET, "stick_the_dealer": seed % 2 == 1}, agent_seed=seed,
                          chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=20000)
    assert report.ok, report.describe()
    assert report.terminal
