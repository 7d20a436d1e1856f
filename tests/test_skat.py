"""Skat (games/skat.rules): seeded random games, checked at every decision.

The engine-level checks come from rulespec/tools/fuzzing/checks.py (play_checked): cards conserved,
a legal action while the game runs, the game ends within a step bound, the JSON round
trip, replay, secrecy, and the declared invariants.  On top of them, for this game, an
oracle written here in Python from the rules (ISkO as on pagat.com, not from the rules
file) plays along:
  * the deal: 10 cards each and 2 to the skat; the dealer rotates to the left, P3 first;
  * the auction: middlehand speaks first; the bids offered are exactly the game values
    above the last bid (only 18 for forehand opening alone);
  * the matadors with or against, counted over the declarer's twelve cards (the hand when
    the play starts and the skat) and shown when the deal is scored;
  * the tricks: the legal plays are exactly the oracle's (the jacks belong to the trump
    suit in suit and grand games, to their own suit in null), and the oracle finds each
    trick's winner itself;
  * each deal's score: card points, schneider, schwarz, announcements, hand, overbids,
    null values, +value won and -2 x value lost, and a passed-in deal scoring nothing.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, play_checked

RULES = Path(__file__).resolve().parent.parent / "games" / "skat.rules"
GAME = interpreter.load(RULES)
PROG = GAME.prog
NAMES = PROG.card_names
INDEX = {n: i for i, n in enumerate(NAMES)}
HAND, TRICK, SKAT, WON, LAID = (PROG.zone_base[z] for z in ("hand", "trick", "skat", "won", "laid"))
RANK, SUIT, PTS = PROG.card_props["rank"], PROG.card_props["suit"], PROG.card_props["pts"]
V = PROG.var_index
DEALS = 3
SUITS = ["diamonds", "hearts", "spades", "clubs"]
BASE = {"diamonds": 9, "hearts": 10, "spades": 11, "clubs": 12}
BIDS = sorted({b * m for b in (9, 10, 11, 12) for m in range(2, 19)} | {24 * m for m in range(2, 12)}
              | {23, 35, 46, 59})
LEVEL = {"plain": 0, "schneider": 1, "schwarz": 2, "ouvert": 3}


def var(s, name):
    return s.vars[V[name]]


def plain_order(c):  # A 10 K Q 9 8 7
    return {14: 8, 10: 7, 13: 6, 12: 5}.get(RANK[c], RANK[c] - 5)


def is_trump(c, kind, trump):
    return (kind == "suit_game" and (RANK[c] == 11 or SUIT[c] == trump)) or (kind == "grand" and RANK[c] == 11)


def trump_order(kind, trump):
    """The trumps from the top, as card indices."""
    jacks = [INDEX[f"J of {s}"] for s in reversed(SUITS)]
    if kind == "grand":
        return jacks
    return jacks + [INDEX[f"{r} of {trump}"] for r in ("A", "10", "K", "Q", "9", "8", "7")]


def matadors(cards, kind, trump):
    held = [t in cards for t in trump_order(kind, trump)]
    run = next((i for i, h in enumerate(held) if h != held[0]), len(held))
    return run


def follow_class(c, kind, trump):
    return "trump" if is_trump(c, kind, trump) else SUIT[c]


def power(c, led, kind, trump):
    if is_trump(c, kind, trump):
        return 100 - trump_order(kind, trump).index(c)
    if follow_class(c, kind, trump) != led:
        return 0
    return RANK[c] if kind == "null_game" else plain_order(c)


def null_value(g):
    return (46 if g["ouvert_null"] else 23) if g["took_skat"] else (59 if g["ouvert_null"] else 35)


def deal_score(g):
    """The declarer's score for a deal played out, from the oracle's record `g`."""
    if g["kind"] == "null_game":
        value = null_value(g)
        return value if g["decl_tricks"] == 0 else -2 * value
    pts = sum(PTS[c] for c in g["decl_cards"])
    lvl, tricks = LEVEL[g["level"]], g["decl_tricks"]
    base = 24 if g["kind"] == "grand" else BASE[g["trump"]]
    schneider = pts >= 90 or pts <= 30
    schwarz = tricks in (0, 10)
    mult = (g["matadors"] + 1 + (0 if g["took_skat"] else 1) + (schneider or lvl >= 1) + (lvl >= 1)
            + (schwarz or lvl >= 2) + (lvl >= 2) + (lvl >= 3))
    value = base * mult
    won = pts >= 61 and (lvl < 1 or pts >= 90) and (lvl < 2 or tricks == 10) and value >= g["bid"]
    if value < g["bid"]:
        value = base * -(-g["bid"] // base)
    return value if won else -2 * value


def choose(s, rng, legal):
    """Random, but bids low most of the time, so that many games are won and some passed in."""
    texts = [a.text for a in legal]
    if all(t.isdigit() for t in texts):
        return legal[0] if rng.random() < 0.7 else rng.choice(legal)
    return rng.choice(legal)


def play_with_oracle(seed: int) -> int:
    s = GAME.new_state(players=3, seed=seed, options={"deals": DEALS})
    rng = random.Random(seed)
    points = [0, 0, 0]
    deal_no, g, scored = 0, None, 0
    for _ in range(5000):
        if s.is_terminal():
            break
        if var(s, "deal_no") != deal_no:  # a new deal
            deal_no = var(s, "deal_no")
            dealer = (deal_no + 1) % 3
            assert var(s, "dealer") == dealer and var(s, "forehand") == (dealer + 1) % 3
            assert [len(s.zones[HAND + p]) for p in range(3)] == [10] * 3 and len(s.zones[SKAT]) == 2
            assert s.phase == "bidding" and s.current_player == (dealer + 2) % 3  # middlehand
            g = None
        legal = s.legal_actions()
        texts = {a.text for a in legal}
        if s.phase == "bidding" and all(t.isdigit() for t in texts):
            high = var(s, "high_bid")
            want = {"18"} if var(s, "stage") == 3 else {str(b) for b in BIDS if b > high}
            assert texts == want, (seed, sorted(texts))
        if s.phase == "trick" and g is None:  # the first decision of the play: record the game
            d = var(s, "declarer")
            kind, trump = var(s, "kind"), var(s, "trump")
            skat = list(s.zones[SKAT]) + list(s.zones[LAID + d])
            assert len(skat) == 2 and (var(s, "took_skat") or len(s.zones[SKAT]) == 2)
            twelve = list(s.zones[HAND + d]) + skat
            g = {"declarer": d, "kind": kind, "trump": trump, "level": var(s, "level"),
                 "took_skat": var(s, "took_skat"), "bid": var(s, "high_bid"), "ouvert_null": var(s, "ouvert_null"),
                 "decl_cards": skat, "decl_tricks": 0, "tricks": 0}
            assert g["bid"] >= 18 and str(g["bid"]) in {str(b) for b in BIDS}
            if kind != "null_game":
                g["matadors"] = matadors(twelve, kind, trump)
            else:  # a null game worth less than the bid cannot be announced
                assert null_value(g) >= g["bid"]
            assert s.current_player == var(s, "forehand")
        action = choose(s, rng, legal)
        if s.phase == "trick":
            kind, trump = g["kind"], g["trump"]
            hand, trick = list(s.zones[HAND + s.current_player]), list(s.zones[TRICK])
            if not trick:
                assert texts == {f"lead {NAMES[c]}" for c in hand}
            else:
                led = follow_class(trick[0], kind, trump)
                ok = [c for c in hand if follow_class(c, kind, trump) == led] or hand
                assert texts == {f"play {NAMES[c]}" for c in ok}, (seed, sorted(texts))
            first = (s.current_player - len(trick)) % 3
            card = INDEX[action.text.split(" ", 1)[1]]
            cards = trick + [card]
            before = list(s.vars[V["points"]])
            s.apply(action)
            if len(cards) == 3:
                led = follow_class(cards[0], kind, trump)
                pw = [power(c, led, kind, trump) for c in cards]
                w = (first + pw.index(max(pw))) % 3
                g["tricks"] += 1
                if w == g["declarer"]:
                    g["decl_tricks"] += 1
                    g["decl_cards"] += cards
                over = g["tricks"] == 10 or (kind == "null_game" and w == g["declarer"])
                if over:
                    if kind != "null_game":  # the matadors, counted when the deal is scored
                        assert f"with or against {g['matadors']}" in "\n".join(s.log_lines()[-80:]), seed
                    points[g["declarer"]] += deal_score(g)
                    scored += 1
                    assert list(s.vars[V["points"]]) == points, (seed, g, before)
                else:
                    assert s.current_player == w
            continue
        s.apply(action)
        if s.phase == "bidding" and var(s, "deal_no") != deal_no and g is None and deal_no:
            assert list(s.vars[V["points"]]) == points  # passed in: nobody scores
    assert s.is_terminal() and var(s, "deal_no") == DEALS
    assert s.scores() == points
    assert sorted(s.winners()) == [p for p in range(3) if points[p] == max(points)]
    return scored


def test_the_oracle_agrees_on_every_decision():
    scored = sum(play_with_oracle(seed) for seed in range(12))
    assert scored >= 20


@pytest.mark.parametrize("seed", range(3))
def test_random_games_keep_every_property(seed):
    report = play_checked(GAME, 3, seed, {"deals": DEALS}, agent_seed=seed,
                          chooser=CHOOSERS["random" if seed % 2 == 0 else "mixed"], max_steps=5000)
    assert report.ok, report.describe()
    assert report.terminal
