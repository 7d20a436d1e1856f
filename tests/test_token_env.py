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


@pytest.mark.parametrize("returns", ["zero_sum", "win", "score"])
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
    else:
        assert r == [float(s) for s in ts.state.scores()]


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
