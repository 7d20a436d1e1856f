"""Any rules file as a sequence of integer decisions (rulespec/tools/ai/action_codes.py, token_env.py,
obs_tensor.py): the layer the OpenSpiel and PettingZoo adapters stand on."""
import itertools
import json
import random

import pytest

from interpreter import load
from rulespec.tools.ai.token_env import TokenGame

GAMES = [("games/chuhan.rules", 2), ("games/charuma.rules", 4), ("games/crazy_eights.rules", 4),
         ("games/sanguosha.rules", 6)]


def _positions(tg, seeds, every=7, limit=400):
    """Engine positions along random token games."""
    for seed in seeds:
        ts = tg.new_state(seed)
        rng = random.Random(seed)
        n, last = 0, -1
        while not ts.is_terminal() and n < limit:
            if ts.decisions % every == 0 and ts.decisions != last:  # a new decision (forced tokens taken)
                last = ts.decisions
                yield ts
            legal = ts.legal_tokens()
            ts.apply_token(legal[rng.randrange(len(legal))])
            n += 1


@pytest.mark.parametrize("path,players", GAMES)
def test_every_legal_action_is_spelt_once_and_reached_by_its_tokens(path, players):
    tg = TokenGame(load(path), players)
    checked = 0
    for ts in _positions(tg, [3], limit=150 if players == 6 else 400):
        st = ts.state
        actions = st.legal_actions()
        spellings = tg.codec.spell_all(st, actions)
        assert len(set(spellings)) == len(spellings)
        for s in spellings:  # no spelling is the start of another: picking tokens is never ambiguous
            assert not any(o != s and o[:len(s)] == s for o in spellings)
        for action, spelling in list(zip(actions, spellings))[:6]:
            direct = st.clone()
            direct.apply(action)
            via = ts.clone()
            while via.decisions == ts.decisions:  # pick its tokens until the action is carried out
                k = len(via.prefix)
                assert via.prefix == spelling[:k] and spelling[k] in via.legal_tokens()
                via.apply_token(spelling[k])
            assert via.state.to_json() == direct.to_json(), (path, action.text)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("path,players", GAMES)
def test_a_player_always_has_a_real_choice_or_a_single_action(path, players):
    tg = TokenGame(load(path), players)
    ts = tg.new_state(5)
    rng = random.Random(5)
    steps = 0
    while not ts.is_terminal() and steps < 300:
        legal = ts.legal_tokens()
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        if len(legal) == 1:  # only when the engine's decision has one legal action
            assert len(ts.state.legal_actions()) == 1 and not ts.prefix
        for t in legal:
            assert 0 <= t < tg.num_actions
            assert ts.token_text(t)
        ts.apply_token(legal[rng.randrange(len(legal))])
        steps += 1


def test_the_vocabulary_is_the_same_in_every_game_of_a_file():
    a = TokenGame(load("games/charuma.rules"), 4)
    b = TokenGame(load("games/charuma.rules"), 4)
    assert a.codec.words == b.codec.words
    assert a.codec.words[a.codec.action_token["bid"]] == "do bid"
    # the same action is spelt the same in two different games
    s1, s2 = a.new_state(1), b.new_state(2)
    t1 = {a.codec.spell(s1.state, x): x.text for x in s1.state.legal_actions()}
    t2 = {b.codec.spell(s2.state, x): x.text for x in s2.state.legal_actions()}
    for k in set(t1) & set(t2):
        assert t1[k] == t2[k]
    assert set(t1) & set(t2)


def test_a_set_of_cards_is_picked_card_by_card():
    tg = TokenGame(load("games/chuhan.rules"), 2)
    # find a lead with many legal sets: the first token picks the action, the next ones the cards
    for ts in _positions(tg, [1, 2, 3], every=1):
        acts = ts.state.legal_actions()
        if len(acts) > 40:
            legal = ts.legal_tokens()
            assert len(legal) < len(acts)  # spelt, not listed
            words = [tg.codec.words[t] for t in legal]
            assert all(w.startswith("do ") or w == "no response" for w in words), words
            return
    pytest.fail("no position with many legal sets in three games")


def test_an_illegal_token_is_refused_with_the_legal_ones_and_nothing_changes():
    tg = TokenGame(load("games/crazy_eights.rules"), 4)
    ts = tg.new_state(0)
    before = ts.state.to_json()
    bad = max(set(range(tg.num_actions)) - set(ts.legal_tokens()))
    with pytest.raises(ValueError, match="not legal here; legal:"):
        ts.apply_token(bad)
    assert ts.state.to_json() == before and ts.prefix == ()


@pytest.mark.parametrize("returns", ["zero_sum", "win", "score", "common"])
def test_returns(returns):
    tg = TokenGame(load("games/charuma.rules"), 4, returns=returns)
    ts = tg.new_state(0)
    assert ts.returns() == [0.0] * 4
    rng = random.Random(0)
    while not ts.is_terminal():
        legal = ts.legal_tokens()
        ts.apply_token(legal[rng.randrange(len(legal))])
    r = ts.returns()
    lo, hi = tg.utility_range()
    assert all(lo <= x <= hi for x in r)
    if returns == "zero_sum":
        assert abs(sum(r)) < 1e-9 and max(r) == 1.0
    elif returns == "win":
        assert sorted(r) == [0.0, 0.0, 0.0, 1.0]
    elif returns == "score":
        assert r == [float(s) for s in ts.state.scores()]
    else:  # Charuma's scores differ: everyone gets their mean
        assert r == [sum(ts.state.scores()) / 4] * 4


class _Ended:
    """A finished engine state as returns.py reads it: its winners and scores."""

    def __init__(self, winners, scores):
        self.n, self._w, self._s = len(scores), winners, scores

    def is_terminal(self):
        return True

    def returns(self):
        return [1.0 if p in self._w else 0.0 for p in range(self.n)]

    def scores(self):
        return self._s


@pytest.mark.parametrize("winners,expected", [
    ([1], [-1 / 3, 1.0, -1 / 3, -1 / 3]),    # a lone winner takes +1, the others pay a third each
    ([0, 2], [0.5, -0.5, 0.5, -0.5]),        # partners share +1, the other side -1
    ([0, 1, 3], [1 / 3, 1 / 3, -1.0, 1 / 3]),  # a lone loser pays the whole -1
    ([], [0.0] * 4), ([0, 1, 2, 3], [0.0] * 4)])
def test_zero_sum_winners_share_plus_one_and_losers_minus_one(winners, expected):
    from rulespec.tools.ai.returns import returns, utility_range
    r = returns("zero_sum", _Ended(winners, [0] * 4))
    assert r == pytest.approx(expected) and abs(sum(r)) < 1e-12
    lo, hi = utility_range("zero_sum", 4)
    assert (lo, hi) == (-1.0, 1.0) and min(expected) >= lo
    assert returns("win", _Ended(winners, [0] * 4)) == [1.0 if p in winners else 0.0 for p in range(4)]
    # common: everyone the mean of the scores (the shared score itself when they agree)
    assert returns("common", _Ended(winners, [3, 3, 3, 3])) == [3.0] * 4
    assert returns("common", _Ended(winners, [1, 2, 3, 6])) == [3.0] * 4


def test_partners_share_the_zero_sum_return_in_a_whole_game():
    tg = TokenGame(load("games/euchre.rules"), 4, {"target": 3})
    assert tg.returns_kind == "zero_sum"
    ts = tg.new_state(2)
    rng = random.Random(2)
    while not ts.is_terminal():
        legal = ts.legal_tokens()
        ts.apply_token(legal[rng.randrange(len(legal))])
    won = ts.state.winners()
    assert len(won) == 2 and (won[1] - won[0]) == 2  # partners sit opposite
    assert ts.returns() == [0.5 if p in won else -0.5 for p in range(4)]


@pytest.mark.parametrize("path,shared", [
    ("tests/rules/viewer_lab.rules", True),       # score p: count(fireworks)
    ("tests/rules/secrecy_reveal.rules", True),   # score p: count(table)
    ("games/charuma.rules", False), ("games/spades.rules", False), ("games/crazy_eights.rules", False),
    ("tests/rules/secrecy_announce.rules", False),  # count(table) + count(hand[p])
    ("tests/rules/secrecy_discard.rules", False)])  # no score clause
def test_a_shared_score_makes_common_returns_the_default(path, shared):
    from rulespec.tools.ai.returns import default_mode, shared_score
    game = load(path)
    assert shared_score(game.model) == shared
    assert default_mode(game.model) == ("common" if shared else "zero_sum")
    assert TokenGame(game, game.model.min_players).returns_kind == default_mode(game.model)


@pytest.mark.parametrize("expr,shared", [
    ("count(fireworks)", True), ("sum q in players: points[q]", True),
    ("points[p]", False), ("count(table) + count(hand[p])", False),
    ("sum p in players: points[p]", False),  # p shadowed: read as naming the player (the safe side)
    ("0", False), ("3 * 2", False)])         # a constant measures nothing
def test_which_scores_are_shared(expr, shared):
    from types import SimpleNamespace

    from rulespec.lang.parser import parse_expr
    from rulespec.tools.ai.returns import shared_score
    assert shared_score(SimpleNamespace(score=SimpleNamespace(var="p", expr=parse_expr(expr)))) == shared


def test_a_cooperative_game_gives_everyone_the_shared_score():
    """viewer_lab: one score for all (the fireworks built), a team that wins or loses together."""
    tg = TokenGame(load("tests/rules/viewer_lab.rules"), 3)
    assert tg.returns_kind == "common" and tg.utility_range() == (-1e6, 1e6)
    for seed in range(3):
        ts = tg.new_state(seed)
        rng = random.Random(seed)
        while not ts.is_terminal():
            legal = ts.legal_tokens()
            ts.apply_token(legal[rng.randrange(len(legal))])
        st = ts.state
        assert st.winners() in ([], [0, 1, 2])
        fireworks = len(st.zones[next(s.index for s in tg.game.prog.slots if s.name == "fireworks")])
        assert ts.returns() == [float(fireworks)] * 3 == [float(x) for x in st.scores()]


def test_common_returns_need_a_score():
    with pytest.raises(ValueError, match="has no score clause: use 'win' or 'zero_sum'"):
        TokenGame(load("tests/rules/secrecy_discard.rules"), 2, returns="common")


def test_bad_returns_and_bad_player_counts_are_clear_errors():
    g = load("games/charuma.rules")
    with pytest.raises(ValueError, match="returns is one of"):
        TokenGame(g, 4, returns="money")
    with pytest.raises(ValueError, match="players"):
        TokenGame(g, 9)


def test_a_game_past_its_decision_budget_ends_without_a_winner():
    tg = TokenGame(load("games/crazy_eights.rules"), 4, max_decisions=10)
    ts = tg.new_state(0)
    while not ts.is_terminal():
        ts.apply_token(ts.legal_tokens()[0])
    assert ts.truncated and ts.decisions == 10 and ts.returns() == [0.0] * 4


# ---------------------------------------------------------------------- the observation tensor
def test_the_tensor_has_the_size_it_describes_and_shows_own_cards():
    tg = TokenGame(load("games/crazy_eights.rules"), 4)
    ts = tg.new_state(1)
    enc = tg.encoder
    assert sum(s for _, s in enc.describe()) == enc.size
    v = enc.encode(ts, 0)
    assert len(v) == enc.size and len(enc.encode(ts, 0, info_state=True)) == enc.info_size
    hand = ts.state.observation(0)["zones"]["hand[P1]"]["cards"]
    zones_at = sum(s for name, s in enc.describe()[:enc.describe().index(("zones", enc.pieces[4][1]))])
    row = enc.zone_names.index("hand[P1]") * (enc.k + 2)
    block = v[zones_at + row: zones_at + row + enc.k + 2]
    assert sum(block[:enc.k]) == len(hand) and block[enc.k + 1] == 1.0
    other = enc.zone_names.index("hand[P2]") * (enc.k + 2)
    block = v[zones_at + other: zones_at + other + enc.k + 2]
    assert sum(block[:enc.k]) == 0 and block[enc.k] == len(ts.state.zones[3]) and block[enc.k + 1] == 0.0


def test_the_tensor_does_not_change_with_cards_the_player_cannot_see():
    game = load("games/crazy_eights.rules")
    tg = TokenGame(game, 4)
    ts = tg.new_state(1)
    d = json.loads(ts.state.to_json())
    names = game.prog.card_names
    # swap a card of P2's hand with a stock card of another name: hidden from P1 and P3, not from P2
    hand, stock = d["zones"][3], d["zones"][0]
    j = next(j for j, c in enumerate(stock) if names[c] != names[hand[0]])
    hand[0], stock[j] = stock[j], hand[0]
    from interpreter import State
    from rulespec.tools.ai.token_env import TokenState
    other = TokenState(tg, State.from_json(d, game))
    assert tg.encoder.encode(ts, 0) == tg.encoder.encode(other, 0)
    assert tg.encoder.encode(ts, 2, True) == tg.encoder.encode(other, 2, True)
    assert tg.encoder.encode(ts, 1) != tg.encoder.encode(other, 1)


def test_the_tensor_of_a_hand_held_facing_away_and_of_a_top_public_pile():
    """viewer_lab: P1's own hand ('others') is unseen by P1, seen by P2; the discard pile ('top
    public') shows its top card, in the "tops" piece too; a re-deal of P1's own hand does not
    change P1's tensor."""
    game = load("tests/rules/viewer_lab.rules")
    tg = TokenGame(game, 2)
    enc = tg.encoder
    assert enc.top_names == ["discard"] and ("tops", enc.k) in enc.describe()
    ts = tg.new_state(1)
    d = json.loads(ts.state.to_json())
    slot = {s.name: s.index for s in game.prog.slots}
    names = game.prog.card_names
    d["zones"][slot["discard"]] = [d["zones"][slot["deck"]].pop(), d["zones"][slot["deck"]].pop()]
    from interpreter import State
    from rulespec.tools.ai.token_env import TokenState
    at = dict(zip([n for n, _ in enc.describe()], itertools.accumulate([0] + [s for _, s in enc.describe()])))

    def row(v, zone):
        i = enc.zone_names.index(zone) * (enc.k + 2)
        return v[at["zones"] + i: at["zones"] + i + enc.k + 2]
    st = State.from_json(d, game)
    v1, v2 = enc.encode(TokenState(tg, st), 0), enc.encode(TokenState(tg, st), 1)
    hand = row(v1, "hand[P1]")
    assert sum(hand[:enc.k]) == 0 and hand[enc.k] == 3 and hand[enc.k + 1] == 0.0
    assert sum(row(v2, "hand[P1]")[:enc.k]) == 3 and row(v2, "hand[P1]")[enc.k + 1] == 1.0
    top = names[d["zones"][slot["discard"]][-1]]
    pile = row(v1, "discard")
    assert pile[enc.label_index[top]] == 1.0 and sum(pile[:enc.k]) == 1 and pile[enc.k] == 1
    tops = v1[at["tops"]: at["tops"] + enc.k]
    assert tops[enc.label_index[top]] == 1.0 and sum(tops) == 1
    # swap a card of P1's hand with a deck card of another name: unseen by P1, seen by P2
    hand_cards, deck = d["zones"][slot["hand[P1]"]], d["zones"][slot["deck"]]
    j = next(j for j, c in enumerate(deck) if names[c] != names[hand_cards[0]])
    hand_cards[0], deck[j] = deck[j], hand_cards[0]
    other = State.from_json(d, game)
    assert enc.encode(TokenState(tg, other), 0) == v1 and enc.encode(TokenState(tg, other), 1) != v2


def test_the_prefix_is_seen_by_the_player_choosing_only():
    tg = TokenGame(load("games/chuhan.rules"), 2)
    for ts in _positions(tg, [1, 2], every=1):
        if len(ts.legal_tokens()) > 1:
            me = ts.current_player()
            t = ts.legal_tokens()[0]
            before_me, before_other = tg.encoder.encode(ts, me), tg.encoder.encode(ts, 1 - me)
            ts.apply_token(t)
            if ts.prefix:  # still choosing: only the chooser's tensor shows the pick
                assert tg.encoder.encode(ts, me) != before_me
                assert tg.encoder.encode(ts, 1 - me) == before_other
                return
    pytest.fail("no partly chosen action in two games")


# ---------------------------------------------------------------------- list variables in the tensor
LIST_LAB = """
game "List lab" {
  players 2..3
  start play
  cards start in deck
  score p: count(hand[p])
}
enum Colour { red, blue, green }
property colour: Colour
card "red 1" { colour: red copies: 2 }
card "blue 1" { colour: blue copies: 2 }
card "green 1" { colour: green copies: 2 }
zone deck: pile hidden
zone hand[player]: set owner
var held: list[card] = []
var seats: list[player] = []
var counts: list[int] = []
var flags: list[bool] = []
var colours: list[Colour] = []
var words: list[text] = []
var rows: list[list[int]] = []
var mine[player]: list[card] = []
var note: text = ""
action done() { effect { end game } }
phase play {
  enter { for p in players { deal 2 from deck to hand[p] } }
  actions done
}
"""


def _list_lab(tmp_path):
    path = tmp_path / "list_lab.rules"
    path.write_text(LIST_LAB)
    game = load(str(path))
    return game, TokenGame(game, 2)


def _with(tg, ts, zones=None, **values):
    """ts's position with some variables (by name) and zones (by name) set otherwise."""
    from interpreter import State
    from rulespec.tools.ai.token_env import TokenState
    prog = tg.game.prog
    d = json.loads(ts.state.to_json())
    names = [info.name for info, _ in prog.var_defaults]
    for name, v in values.items():
        d["vars"][names.index(name)] = v
    slot = {s.name: s.index for s in prog.slots}
    for name, cards in (zones or {}).items():
        d["zones"][slot[name]] = cards
    return TokenState(tg, State.from_json(d, tg.game))


def test_list_variables_have_fixed_widths_by_their_type(tmp_path):
    game, tg = _list_lab(tmp_path)
    enc = tg.encoder
    k, n = enc.k, 2
    widths = {name: (w, pp) for name, pp, w, _ in enc.vars}
    assert k == 3
    assert widths == {"held": (1 + k + 1, False), "seats": (1 + 8 * (n + 1), False), "counts": (1 + 8, False),
                      "flags": (1 + 8, False), "colours": (1 + 8 * 4, False), "words": (1 + 8 * 17, False),
                      "rows": (1 + 8 * 9, False), "mine": (1 + k + 1, True), "note": (17, False)}
    assert dict(enc.describe())["vars"] == sum(w * (n if pp else 1) for w, pp in widths.values())
    ts = tg.new_state(1)
    long = _with(tg, ts, counts=list(range(20)), seats=[0, 1] * 6)  # longer than 8: bounded, same size
    assert len(enc.encode(long, 0)) == enc.size


@pytest.mark.parametrize("name,a,b", [
    ("seats", [0, 1], [1, 0]),            # the same players in another order
    ("counts", [1, 2], [1, 3]),
    ("flags", [True], [False]),
    ("colours", ["red"], ["blue"]),
    ("words", ["a"], ["b"]),
    ("rows", [[1], [2]], [[1], [5]]),
    ("note", "a", "b")])
def test_two_lists_of_the_same_length_and_other_contents_differ_in_the_tensor(tmp_path, name, a, b):
    """Variables every player sees: whoever looks sees the difference (a tensor of the length
    alone would not)."""
    game, tg = _list_lab(tmp_path)
    ts = tg.new_state(1)
    one, two = _with(tg, ts, **{name: a}), _with(tg, ts, **{name: b})
    assert one.state.observation(0)["vars"][name] != two.state.observation(0)["vars"][name]
    for p in (0, 1):
        assert tg.encoder.encode(one, p) != tg.encoder.encode(two, p)
        assert tg.encoder.encode(one, p, True) != tg.encoder.encode(two, p, True)


def test_a_list_of_cards_shows_a_player_the_cards_they_see_and_hides_the_others(tmp_path):
    """held (a shared list) and mine[P1] (a per-player one) hold a card of P1's hand: P1 sees
    which, P2 sees "hidden card" in the observation and the same tensor either way."""
    game, tg = _list_lab(tmp_path)
    enc = tg.encoder
    names = game.prog.card_names
    red = names.index("red 1")
    blue = names.index("blue 1")
    ts = tg.new_state(1)
    d = json.loads(ts.state.to_json())
    slot = {s.name: s.index for s in game.prog.slots}
    p2 = [c for c in d["zones"][slot["hand[P2]"]] if c not in (red, blue)]
    deck = [c for c in range(len(names)) if c not in [red, blue] + p2]
    everywhere = {"deck": deck, "hand[P2]": p2}
    base = _with(tg, ts, zones={"hand[P1]": [red, blue], **everywhere})
    assert base.state.observation(1)["zones"]["hand[P1]"] == {"count": 2}
    at = dict(zip([n for n, _ in enc.describe()], itertools.accumulate([0] + [s for _, s in enc.describe()])))
    for var, value in (("held", lambda c: [c]), ("mine", lambda c: [[c], []])):
        one, two = _with(tg, base, **{var: value(red)}), _with(tg, base, **{var: value(blue)})
        assert enc.encode(one, 0) != enc.encode(two, 0)  # P1 sees their own cards
        assert enc.encode(one, 1) == enc.encode(two, 1)  # P2 does not
        assert enc.encode(one, 1, True) == enc.encode(two, 1, True)
        seen = one.state.observation(1)["vars"][var]
        assert seen in (["hidden card"], [["hidden card"], []])
    # where P2 reads held: the length, no label, one card they cannot see
    one = _with(tg, base, held=[red])
    v1, v2 = enc.encode(one, 0), enc.encode(one, 1)
    held_at = at["vars"]  # held is the first variable
    assert v1[held_at:held_at + 5] == [1.0] + [1.0 if i == enc.label_index["red 1"] else 0.0 for i in range(3)] + [0.0]
    assert v2[held_at:held_at + 5] == [1.0, 0.0, 0.0, 0.0, 1.0]
    # once P2 may see the card (it moves to a zone they see: their own hand), they see which
    shown = _with(tg, base, zones={"hand[P1]": [blue], "hand[P2]": [red] + everywhere["hand[P2]"]}, held=[red])
    assert enc.encode(shown, 1)[held_at:held_at + 5][1 + enc.label_index["red 1"]] == 1.0


def test_the_docs_give_the_pieces_sizes_of_the_four_games():
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "ai.md").read_text(encoding="utf-8")
    for (path, players), name in zip(GAMES, ["Chu Han", "Charuma", "Crazy Eights", "San Guo Sha"]):
        enc = TokenGame(load(path), players).encoder
        d = dict(enc.describe())
        zones = f"{d['zones']} ({len(enc.zone_names)} x {enc.k + 2})"
        cells = [name, players, d["player"], d["current"], d["decision"], d["phase"], zones, d["stack"],
                 d["vars"], d["prefix"], enc.size, enc.info_size]
        row = "| " + " | ".join(map(str, cells)) + " |"
        assert row in text, row
