"""The runtime contract of the interpreter, on Charuma and on tiny rules written inline."""
from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path

import pytest

import interpreter
import rulespec
from interpreter import IllegalActionError, OptionError, RuleRuntimeError, State

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"


@pytest.fixture(scope="module")
def game():
    return interpreter.load(CHARUMA)


def play_random(st: State, rng: random.Random, steps: int = 100_000, each=None) -> State:
    """Play random legal actions until the game ends (or `steps` decisions)."""
    for _ in range(steps):
        if st.is_terminal():
            break
        if each is not None:
            each(st)
        st.apply(rng.choice(st.legal_actions()))
    return st


def var_index(g, name: str) -> int:
    return g.prog.var_index[name]


def zone_index(g, zone: str, player=None) -> int:
    return g.prog.zone_base[zone] + (player or 0)


def names(g, cards) -> list[str]:
    return [g.prog.card_names[c] for c in cards]


# ====================================================================== loading and new states
def test_load_both_ways(game):
    assert interpreter.load(str(CHARUMA)).name == "Charuma"
    assert rulespec.load(CHARUMA).name == "Charuma"
    assert game.model.min_players == 2 and game.model.max_players == 5


def test_new_state_runs_to_the_first_decision(game):
    st = game.new_state(players=3, seed=1)
    assert not st.is_terminal()
    assert st.phase == "bidding"
    assert st.current_player in range(3)
    assert st.legal_actions()
    assert st.scores() == [5, 5, 5]
    assert st.winners() == [] and st.returns() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("players", [0, 1, 6, 10, "3", 2.5])
def test_bad_player_count(game, players):
    with pytest.raises(OptionError, match="2-5 players"):
        game.new_state(players=players, seed=0)


def test_default_player_count_is_the_minimum(game):
    assert game.new_state(seed=0).n == 2


def test_unknown_option(game):
    with pytest.raises(OptionError, match=r"unknown option 'bid'.*did you mean 'bidding'"):
        game.new_state(players=3, seed=0, options={"bid": False})


@pytest.mark.parametrize("value", ["maybe", 3, "2"])
def test_invalid_option_value(game, value):
    with pytest.raises(OptionError, match="option 'bidding' is true or false"):
        game.new_state(players=3, seed=0, options={"bidding": value})


@pytest.mark.parametrize("value,expected", [("false", False), ("no", False), (False, False), ("true", True), ("on", True)])
def test_option_values_are_converted(game, value, expected):
    st = game.new_state(players=3, seed=0, options={"bidding": value})
    assert st.opts["bidding"] is expected
    assert st.phase == ("bidding" if expected else "trick")


def test_option_error_is_a_value_error(game):
    # the CLI relies on this to print a one-line error
    assert issubclass(OptionError, ValueError) and issubclass(OptionError, interpreter.EngineError)


# ====================================================================== actions
def test_legal_actions_are_unique_readable_strings(game):
    rng = random.Random(5)
    for players in (2, 3, 4, 5):
        st = game.new_state(players=players, seed=players)

        def check(s):
            texts = s.legal_action_strings()
            assert texts, "no legal action while the game runs"
            assert len(texts) == len(set(texts))
            for t in texts:
                assert t == t.strip() and "\n" not in t and re.fullmatch(r"[a-z]+ .+", t), t
            assert [str(a) for a in s.legal_actions()] == texts
        play_random(st, rng, steps=150, each=check)


def test_apply_accepts_action_or_string(game):
    st = game.new_state(players=3, seed=2)
    other = st.clone()
    action = st.legal_actions()[3]
    st.apply(action)
    other.apply("  " + action.text + " ")
    assert st.to_json() == other.to_json()
    assert st.history == [action.text]


def test_apply_accepts_an_equal_action_from_another_state(game):
    st = game.new_state(players=3, seed=2)
    twin = game.new_state(players=3, seed=2)
    st.apply(twin.legal_actions()[0])
    twin.apply(twin.legal_actions()[0])
    assert st.to_json() == twin.to_json()


def _with_points(game, st: State, player: int, points: int) -> State:
    d = json.loads(st.to_json())
    d["vars"][var_index(game, "points")][player] = points
    return State.from_json(d, game)


def test_illegal_bid_gives_the_rules_else_message_and_changes_nothing(game):
    st = game.new_state(players=3, seed=1)
    st = _with_points(game, st, st.current_player, 1)
    before = st.to_json()
    with pytest.raises(IllegalActionError) as err:
        st.apply("bid 3 on group 1")
    msg = str(err.value)
    assert "'bid 3 on group 1'" in msg
    assert "you cannot bid more points than you hold" in msg
    assert "charuma.rules:" in msg
    assert st.to_json() == before
    st.apply("bid 1 on group 1")  # the state still works


def test_illegal_raise_names_the_rule(game):
    st = game.new_state(players=3, seed=1)
    st.apply("bid 3 on group 1")
    before = st.to_json()
    with pytest.raises(IllegalActionError, match="can only be taken by raising that bid"):
        st.apply("bid 2 on group 1")
    assert st.to_json() == before


@pytest.mark.parametrize("text,pattern", [
    ("lead red 5", r"'lead' cannot be taken in phase 'bidding' \(allowed here: bid\)"),
    ("dance wildly", r"'dance wildly' is not a legal action for P\d in phase 'bidding'; legal now: 'bid 0 on group 1'"),
    ("bid 9 on group 1", r"is not a legal action"),
])
def test_other_illegal_actions(game, text, pattern):
    st = game.new_state(players=3, seed=1)
    before = st.to_json()
    with pytest.raises(IllegalActionError, match=pattern):
        st.apply(text)
    assert st.to_json() == before


def test_illegal_follow_explains_the_obligation(game):
    # play until someone must follow the led colour and has a choice that breaks the rule
    rng = random.Random(3)
    for seed in range(40):
        st = game.new_state(players=3, seed=seed)
        while not st.is_terminal():
            if st.phase == "trick" and st.plays:
                open_cards = st.zones[zone_index(game, "open", st.active)]
                legal = set(st.legal_action_strings())
                hand = [c for zi in (zone_index(game, "open", st.active), zone_index(game, "hand", st.active))
                        for c in st.zones[zi]]
                lead = st.plays[zone_index(game, "trick")][0][1]
                if len(lead) == 1 and open_cards:
                    for c in hand:
                        zone = game.prog.slots[st.where[c]].zone
                        text = f"follow {game.prog.card_names[c]} ({zone})"
                        if text not in legal:
                            before = st.to_json()
                            with pytest.raises(IllegalActionError, match="you must follow it"):
                                st.apply(text)
                            assert st.to_json() == before
                            return
            st.apply(rng.choice(st.legal_actions()))
    pytest.fail("no position with a forced follow found")


def test_apply_after_the_end_is_illegal(game):
    st = play_random(game.new_state(players=2, seed=4), random.Random(4))
    assert st.is_terminal()
    with pytest.raises(IllegalActionError, match="the game is over"):
        st.apply("bid 0 on group 1")


# ====================================================================== the end of the game
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_game_ends_with_scores_winners_and_returns(game, players):
    st = play_random(game.new_state(players=players, seed=11), random.Random(players))
    assert st.is_terminal()
    assert st.current_player is None
    assert st.legal_actions() == []
    scores = st.scores()
    assert len(scores) == players
    winners = st.winners()
    assert winners and all(scores[w] == max(scores) for w in winners)
    assert max(scores) >= (25 if players <= 3 else 20)
    assert st.returns() == [1.0 if p in winners else 0.0 for p in range(players)]
    assert st.observation(0)["terminal"] is True
    assert st.log_lines()[-1].startswith("Game over. Winner")


# ====================================================================== observations
def test_observation_masks_other_players_hidden_cards(game):
    st = game.new_state(players=4, seed=9)
    for p in range(4):
        obs = st.observation(p)
        assert obs["player"] == f"P{p + 1}"
        zones = obs["zones"]
        for q in range(4):
            hand = zones[f"hand[P{q + 1}]"]
            if q == p:
                assert hand["cards"] == names(game, st.zones[zone_index(game, "hand", q)])
                assert "count" not in hand
            else:
                assert hand == {"count": 2}
            assert zones[f"group[P{q + 1}]"]["cards"]  # public: shown by name
            assert "cards" not in zones[f"won[P{q + 1}]"]  # hidden even to its owner
        for hidden in ("stock", "box", "aside"):
            assert set(zones[hidden]) == {"count"}
        assert "hand[P5]" not in zones  # seats beyond the player count do not exist
        assert obs["legal_actions"] == (st.legal_action_strings() if p == st.current_player else [])


def test_observation_never_names_hidden_cards(game):
    rng = random.Random(1)
    st = game.new_state(players=3, seed=1)

    def check(s):
        for p in range(3):
            text = json.dumps(s.observation(p)["zones"])
            for slot in game.prog.slots:
                if slot.owner is not None and slot.owner >= 3:
                    continue
                if not s.can_see(slot.index, p):
                    assert slot.name in text
                    entry = s.observation(p)["zones"][slot.name]
                    assert entry == {"count": len(s.zones[slot.index])}
    play_random(st, rng, steps=60, each=check)


# ====================================================================== copies and JSON
def test_clone_is_independent(game):
    st = game.new_state(players=3, seed=6)
    st.apply(st.legal_actions()[0])
    before = st.to_json()
    copy = st.clone()
    assert copy.to_json() == before
    play_random(copy, random.Random(0), steps=40)
    assert st.to_json() == before
    assert copy.to_json() != before
    play_random(st, random.Random(1), steps=5)
    assert st.history != copy.history


def test_json_round_trip_at_many_points(game):
    rng = random.Random(8)
    for players in (2, 5):
        st = game.new_state(players=players, seed=8)
        checked = 0

        def check(s):
            nonlocal checked
            text = s.to_json()
            back = State.from_json(text, game)
            assert back.to_json() == text
            assert back.legal_action_strings() == s.legal_action_strings()
            assert back.observation(s.current_player) == s.observation(s.current_player)
            checked += 1
        play_random(st, rng, each=check)
        text = st.to_json()
        assert State.from_json(text, game).to_json() == text  # also at the end
        assert State.from_json(json.loads(text)).to_json() == text  # from a dict, loading the rules itself
        assert checked > 20


def test_state_restored_from_json_plays_on_identically(game):
    a = game.new_state(players=3, seed=12)
    play_random(a, random.Random(1), steps=30)
    b = State.from_json(a.to_json(), game)
    play_random(a, random.Random(2))
    play_random(b, random.Random(2))
    assert a.to_json() == b.to_json()


def test_from_json_refuses_other_rules(game):
    d = json.loads(game.new_state(players=2, seed=0).to_json())
    d["rules_sha256"] = "0" * 16
    with pytest.raises(ValueError, match="different version"):
        State.from_json(d, game)


def test_same_seed_and_actions_give_identical_states(game):
    def run(seed):
        st = game.new_state(players=4, seed=seed)
        play_random(st, random.Random(99))
        return st
    a, b = run(21), run(21)
    assert a.to_json() == b.to_json()
    replay = game.new_state(players=4, seed=21)
    for text in a.history:
        replay.apply(text)
    assert replay.to_json() == a.to_json()


def test_different_seeds_deal_differently(game):
    deals = set()
    for seed in range(5):
        st = game.new_state(players=3, seed=seed)
        deals.add(json.dumps(st.zones))
    assert len(deals) == 5


def test_seed_is_exact_for_big_numbers(game):
    st = game.new_state(players=2, seed=2**70 + 3)
    assert State.from_json(st.to_json(), game).to_json() == st.to_json()


# ====================================================================== tiny rules written inline
MINI = '''
game "Mini" {
  players 2..3
  start setup
  cards start in deck
  score p: pts[p]
}
property value: int
card "A" { value: 1 copies: 2 }
card "B" { value: 2 copies: 2 }
card "C" { value: 3 copies: 2 }
zone deck: pile hidden
zone bin: pile hidden
zone hand[player]: set owner
zone table: plays public
var pts[player]: int = 0
var seen: list[card]
action put(cs: cards from hand[active] size 1..2 same value) {
  effect {
    play cs to table
    pts[active] += count(cs)
  }
}
action stop() {
  effect {
    pts[active] += 1
    end game
    pts[active] += 100
  }
}
phase setup {
  enter { SETUP }
  next turn
}
phase turn {
  actions put, stop
  after { active = next_player(active) }
  end when count(hand[active]) == 0
  next over
}
phase over {
  enter { end game }
  next over
}
'''


def mini(setup: str = "", extra: str = "", path: str = "mini.rules", text: str = MINI):
    return interpreter.load_text(text.replace("SETUP", setup) + extra, path)


def test_runtime_error_has_file_line_col():
    g = mini("let c0 = cards(bin)[0]\n    move c0 to deck")
    with pytest.raises(RuleRuntimeError) as err:
        g.new_state(players=2, seed=0)
    msg = str(err.value)
    line = next(i for i, l in enumerate((MINI.replace("SETUP", "let c0 = cards(bin)[0]\n    move c0 to deck")).splitlines(), 1)
                if "cards(bin)[0]" in l)
    assert re.match(rf"mini\.rules:{line}:\d+: runtime error: index 0 is outside a list of 0", msg), msg


@pytest.mark.parametrize("setup,message", [
    ("pts[players[0]] = 3 / count(bin)", "division by zero"),
    ("let c = first x in cards(deck) where x.value == 9\n    pts[players[0]] = c.value", "no card to read 'value' from"),
    ("pts[players[0]] = max x in cards(bin): x.value", "'max' over an empty list"),
    ("move random(cards(bin)) to deck", "random() of an empty list"),
])
def test_runtime_errors_point_at_the_rule(setup, message):
    g = mini(setup)
    with pytest.raises(RuleRuntimeError, match=rf"^mini\.rules:\d+:\d+: runtime error: {re.escape(message)}"):
        g.new_state(players=2, seed=0)


def test_runtime_error_inside_a_def_points_into_the_def():
    extra = "def top_value(): int = cards(bin)[0].value\n"
    g = mini("pts[players[0]] = top_value() + 1", extra=extra)
    text = MINI + extra
    line = len(text.splitlines())
    with pytest.raises(RuleRuntimeError, match=rf"^mini\.rules:{line}:\d+: runtime error: index 0 is outside"):
        g.new_state(players=2, seed=0)


def test_runtime_error_while_listing_actions():
    text = MINI.replace("action stop() {", "action stop() {\n  require cards(bin)[0].value > 0")
    g = mini("deal 2 from deck to hand[players[0]]", text=text)
    with pytest.raises(RuleRuntimeError, match=r"^mini\.rules:\d+:\d+: runtime error: index 0 is outside"):
        g.new_state(players=2, seed=0).legal_actions()


def test_end_game_stops_the_effect_at_once():
    g = mini("for p in players { deal 2 from deck to hand[p] }")
    st = g.new_state(players=2, seed=0)
    st.apply("stop")
    assert st.is_terminal()
    assert st.vars[var_index(g, "pts")] == [1, 0]
    assert st.winners() == [0]
    assert st.returns() == [1.0, 0.0]
    assert st.current_player is None


def test_end_game_in_enter_ends_before_any_decision():
    g = mini("end game\n    deal 2 from deck to hand[players[0]]")
    st = g.new_state(players=2, seed=0)
    assert st.is_terminal() and st.legal_actions() == []
    assert st.zones[zone_index(g, "hand", 0)] == []  # the deal after 'end game' never ran
    assert st.winners() == [0, 1]  # a tie on the score


def test_deal_takes_the_top_cards():
    g = mini("deal 2 from deck to hand[players[0]]\n    deal 1 from deck to hand[players[1]]\n    deal 9 from bin to hand[players[1]]")
    st = g.new_state(players=2, seed=0)
    # cards start in the deck in declaration order, bottom first: A A B B C C; the top is the end
    assert names(g, st.zones[zone_index(g, "deck")]) == ["A", "A", "B"]
    assert names(g, st.zones[zone_index(g, "hand", 0)]) == ["C", "C"]
    assert names(g, st.zones[zone_index(g, "hand", 1)]) == ["B"]
    assert st.zones[zone_index(g, "hand", 0)] == [5, 4]  # dealt one by one from the top


def test_move_to_top_and_bottom():
    g = mini("move top(deck, 1) to bin\n    move bottom(deck, 1) to bin\n    move top(deck, 1) to bin bottom\n"
             "    deal 1 from deck to hand[players[0]]\n    deal 1 from deck to hand[players[1]]")
    st = g.new_state(players=2, seed=0)
    # deck: [A0 A1 B2 B3 C4 C5]; top C5 -> bin; bottom A0 -> bin (on top); top C4 -> bin bottom
    assert st.zones[zone_index(g, "bin")] == [4, 5, 0]
    assert st.zones[zone_index(g, "deck")] == [1]
    assert st.zones[zone_index(g, "hand", 0)] == [3] and st.zones[zone_index(g, "hand", 1)] == [2]
    for c, zi in enumerate(st.where):
        assert c in st.zones[zi]


def test_move_a_whole_zone_and_where_stays_consistent():
    g = mini("move deck to bin\n    deal 3 from bin to hand[players[0]]\n    deal 3 from bin to hand[players[1]]")
    st = g.new_state(players=2, seed=0)
    assert st.zones[zone_index(g, "deck")] == []
    assert sorted(st.zones[zone_index(g, "hand", 0)] + st.zones[zone_index(g, "hand", 1)]) == list(range(6))
    for c in range(6):
        assert st.zones[st.where[c]].count(c) == 1


def test_shuffle_uses_the_seed():
    g = mini("shuffle deck\n    deal 3 from deck to hand[players[0]]\n    deal 3 from deck to hand[players[1]]")
    hands = {json.dumps(g.new_state(players=2, seed=s).zones) for s in range(12)}
    assert len(hands) > 3
    assert g.new_state(players=2, seed=3).to_json() == g.new_state(players=2, seed=3).to_json()


def test_plays_zone_records_who_played_what():
    g = mini("move cards(deck) to hand[players[0]]\n    move bottom(hand[players[0]], 0) to hand[players[1]]\n"
             "    deal 0 from deck to bin\n    move [cards(hand[players[0]])[4], cards(hand[players[0]])[5]] to hand[players[1]]")
    st = g.new_state(players=2, seed=0)
    table = zone_index(g, "table")
    assert sorted(names(g, st.zones[zone_index(g, "hand", 1)])) == ["C", "C"]
    st.apply("put A + A")
    assert st.plays == {table: [[0, [0, 1]]]}
    assert st.observation(1)["zones"]["table"] == {"cards": ["A", "A"], "plays": [["P1", ["A", "A"]]]}
    st.apply("put C")
    assert st.plays[table] == [[0, [0, 1]], [1, [4]]]
    assert st.vars[var_index(g, "pts")] == [2, 1]
    back = State.from_json(st.to_json(), g)
    assert back.plays == st.plays and back.to_json() == st.to_json()


def test_moving_cards_out_of_a_plays_zone_forgets_the_plays():
    text = MINI.replace("play cs to table", "play cs to table\n    move top(table, 1) to bin")
    g = mini("move cards(deck) to hand[players[0]]\n    move [cards(hand[players[0]])[4], cards(hand[players[0]])[5]] to hand[players[1]]", text=text)
    st = g.new_state(players=2, seed=0)
    table = zone_index(g, "table")
    st.apply("put A + A")
    assert st.plays[table] == [[0, [0]]]  # the top card left the table, and its play with it
    st.apply("put C")
    assert st.plays[table] == [[0, [0]]]  # a one-card play that left entirely is gone
    assert st.zones[table] == [0]


def test_plays_function_and_play_by():
    text = MINI.replace("play cs to table", "play cs to table by next_player(active)")
    extra = "def last_player(): player = if count(plays(table)) == 0 then none else plays(table)[-1].player\n"
    text = text.replace("pts[active] += count(cs)", "pts[active] += count(cs)\n    pts[next_player(active)] += count(plays(table)) * 10")
    g = mini("move cards(deck) to hand[players[0]]", text=text, extra=extra)
    st = g.new_state(players=2, seed=0)
    st.apply("put B")
    assert st.plays[zone_index(g, "table")] == [[1, [2]]]
    assert st.vars[var_index(g, "pts")] == [1, 10]


def test_reveal_and_conceal_change_what_players_see():
    text = MINI.replace("action stop() {", "action show() { effect { reveal hand[active] } }\n"
                        "action hide() { effect { conceal hand[active] } }\naction stop() {")
    text = text.replace("actions put, stop", "actions put, stop, show, hide").replace(
        "after { active = next_player(active) }", "")
    g = mini("deal 2 from deck to hand[players[0]]\n    deal 2 from deck to hand[players[1]]\n    reveal bin\n    move top(deck, 1) to bin",
             text=text)
    st = g.new_state(players=2, seed=0)
    assert st.observation(1)["zones"]["bin"] == {"cards": ["A"]}  # a revealed hidden zone
    assert st.observation(1)["zones"]["hand[P1]"] == {"count": 2}
    st.apply("show")
    assert st.observation(1)["zones"]["hand[P1]"] == {"cards": ["C", "C"]}
    assert any("hand[P1] is revealed: C + C" in line for line in st.log_lines(1))
    st.apply("hide")
    assert st.observation(1)["zones"]["hand[P1]"] == {"count": 2}
    assert st.observation(0)["zones"]["hand[P1]"] == {"cards": ["C", "C"]}  # the owner still sees them
    assert State.from_json(st.to_json(), g).observation(1) == st.observation(1)


def test_log_masks_moves_the_viewer_cannot_see():
    g = mini("deal 2 from deck to hand[players[0]]\n    deal 2 from deck to hand[players[1]]")
    st = g.new_state(players=2, seed=0)
    p1 = "\n".join(st.log_lines(0))
    p2 = "\n".join(st.log_lines(1))
    assert "moved C + C from deck to hand[P1]" in p1
    assert "moved 2 cards from deck to hand[P1]" in p2
    assert "moved B + B from deck to hand[P2]" in p2
    assert "C + C" not in p2


# ---------------------------------------------------------------------- enumeration of card choices
def test_card_choices_dedup_alike_cards():
    g = mini("move cards(deck) to hand[players[0]]")
    st = g.new_state(players=2, seed=0)
    puts = [t for t in st.legal_action_strings() if t.startswith("put")]
    # singles: one per kind; pairs: only two alike cards share a value
    assert puts == ["put A", "put B", "put C", "put A + A", "put B + B", "put C + C"]
    assert len(set(puts)) == len(puts)


def test_card_choices_without_same_combine_kinds():
    text = MINI.replace("size 1..2 same value", "size 2")
    g = mini("move cards(deck) to hand[players[0]]", text=text)
    st = g.new_state(players=2, seed=0)
    puts = sorted(t for t in st.legal_action_strings() if t.startswith("put"))
    assert puts == sorted(["put A + A", "put A + B", "put A + C", "put B + B", "put B + C", "put C + C"])


def test_card_choices_with_a_card_parameter():
    text = MINI.replace("action stop() {", "action drop(c: card from hand[active] where c.value >= 2) {\n"
                        "  effect { move c to bin }\n}\naction stop() {").replace("actions put, stop", "actions drop, stop")
    g = mini("move cards(deck) to hand[players[0]]", text=text)
    st = g.new_state(players=2, seed=0)
    assert st.legal_action_strings() == ["drop B", "drop C", "stop"]


def test_card_choices_from_two_zones_say_where_each_card_is():
    text = MINI.replace("cards from hand[active] size", "cards from hand[active] + bin size") \
        .replace("zone bin: pile hidden", "zone bin: pile public")
    g = mini("deal 1 from deck to hand[players[0]]\n    deal 1 from deck to bin\n    deal 1 from deck to bin", text=text)
    st = g.new_state(players=2, seed=0)
    puts = [t for t in st.legal_action_strings() if t.startswith("put")]
    assert puts == ["put C (hand)", "put C (bin)", "put B (bin)", "put C (hand) + C (bin)"]


LARGE = '''
game "Large" {
  players 2..2
  start setup
  cards start in deck
}
property value: int
CARDS
zone deck: pile hidden
zone hand[player]: set owner
zone table: pile public
action put(cs: cards from hand[active] SIZE) { effect { move cs to table } }
action pass() { effect { end game } }
phase setup { enter { move cards(deck) to hand[players[0]] } next turn }
phase turn { actions put, pass  next turn }
'''


def large_game(cards: dict, size: str):
    decl = "\n".join(f'card "{n}" {{ value: {v} copies: {k} }}' for n, (v, k) in cards.items())
    return interpreter.load_text(LARGE.replace("CARDS", decl).replace("SIZE", size), "large.rules")


def test_fifteen_card_hand_is_enumerated_without_subsets():
    cards = {f"k{i}": (i % 5, 1 + i % 2) for i in range(10)}  # 15 cards in 10 kinds, 5 values
    g = large_game(cards, "size 1..2 same value")
    t0 = time.perf_counter()
    st = g.new_state(players=2, seed=0)
    legal = st.legal_action_strings()
    assert time.perf_counter() - t0 < 0.5
    hand = st.zones[zone_index(g, "hand", 0)]
    assert len(hand) == 15
    puts = [t for t in legal if t.startswith("put")]
    kinds = {n: v for n, (v, _) in cards.items()}
    singles = [t for t in puts if "+" not in t]
    pairs = [t for t in puts if "+" in t]
    assert len(singles) == 10
    expected_pairs = set()
    for a in kinds:
        for b in kinds:
            if kinds[a] == kinds[b] and (a < b or (a == b and cards[a][1] == 2)):
                expected_pairs.add(tuple(sorted((a, b))))
    assert {tuple(sorted(t[4:].split(" + "))) for t in pairs} == expected_pairs
    assert len(pairs) == len(expected_pairs)


def test_large_hand_any_size_counts_multisets_once():
    # 4 kinds x 3 copies: every multiset of kinds with at most 3 of each, except the empty one = 4^4 - 1
    g = large_game({k: (1, 3) for k in "wxyz"}, "")
    t0 = time.perf_counter()
    st = g.new_state(players=2, seed=0)
    puts = [t for t in st.legal_action_strings() if t.startswith("put")]
    assert time.perf_counter() - t0 < 1.0
    assert len(puts) == 4 ** 4 - 1
    assert len(set(puts)) == len(puts)


def test_fixed_size_same_value_in_a_big_hand_is_fast():
    g = large_game({f"k{i}": (i % 3, 2) for i in range(20)}, "size 3 same value")  # a 40-card hand
    t0 = time.perf_counter()
    st = g.new_state(players=2, seed=0)
    puts = [t for t in st.legal_action_strings() if t.startswith("put")]
    assert time.perf_counter() - t0 < 1.0
    # per value: 7 (or 6) kinds of 2 copies; multisets of size 3 = C(k,3) + k*(k-1)
    by_value = [sum(1 for i in range(20) if i % 3 == v) for v in range(3)]
    assert len(puts) == sum(k * (k - 1) * (k - 2) // 6 + k * (k - 1) for k in by_value)


def test_duplicate_action_texts_are_made_unique():
    text = MINI.replace("action put(cs: cards from hand[active] size 1..2 same value) {",
                        'action put(cs: cards from hand[active] size 1..2 same value) {\n  text "put some"')
    g = mini("move cards(deck) to hand[players[0]]", text=text)
    st = g.new_state(players=2, seed=0)
    legal = st.legal_action_strings()
    assert legal[:3] == ["put some", "put some #2", "put some #3"]
    assert len(set(legal)) == len(legal)
    st.apply("put some #2")
    assert names(g, st.zones[zone_index(g, "table")]) == ["B"]


def test_list_variables_and_zone_values():
    text = MINI.replace("pts[active] += count(cs)", "pts[active] += count(cs)\n    seen = seen + cs + cs")
    extra = "def size_of(cs: list[card]): int = count(cs)\n"
    text = text.replace("end when count(hand[active]) == 0", "end when size_of(hand[active]) == 0")
    g = mini("move cards(deck) to hand[players[0]]\n    seen = hand[players[1]]", text=text, extra=extra)
    st = g.new_state(players=2, seed=0)
    assert st.vars[var_index(g, "seen")] == []
    st.apply("put A + A")
    assert st.vars[var_index(g, "seen")] == [0, 1, 0, 1]


# ====================================================================== the fused compiler agrees with the plain one
def test_fused_and_plain_compilers_play_identical_games(game):
    plain = interpreter.Game(game.model, game.path, fused=False)
    for players, seed, bidding in [(2, 1, True), (3, 2, False), (4, 3, True), (5, 4, True)]:
        a = game.new_state(players=players, seed=seed, options={"bidding": bidding})
        b = plain.new_state(players=players, seed=seed, options={"bidding": bidding})
        rng = random.Random(seed)
        while not a.is_terminal():
            assert a.legal_action_strings() == b.legal_action_strings()
            text = rng.choice(a.legal_action_strings())
            a.apply(text)
            b.apply(text)
        assert b.is_terminal()
        assert a.to_json() == b.to_json()
        assert a.log_lines() == b.log_lines()


@pytest.mark.parametrize("setup", [
    "let c0 = cards(bin)[0]\n    move c0 to deck",
    "pts[players[0]] = 3 / count(bin)",
    "pts[players[0]] = max x in cards(bin): x.value",
])
def test_fused_and_plain_compilers_report_the_same_error(setup):
    fused = mini(setup)
    plain = interpreter.Game(fused.model, fused.path, fused=False)
    errors = []
    for g in (fused, plain):
        with pytest.raises(RuleRuntimeError) as err:
            g.new_state(players=2, seed=0)
        errors.append(str(err.value))
    assert errors[0] == errors[1]


def test_a_play_kept_in_a_local_survives_moving_its_cards():
    text = MINI.replace("play cs to table\n", "play cs to table\n    let first_play = plays(table)[0]\n"
                        "    move table to bin\n    log \"kept {first_play.cards} of {first_play.player}\"\n")
    g = mini("move cards(deck) to hand[players[0]]", text=text)
    st = g.new_state(players=2, seed=0)
    st.apply("put B + B")
    assert "kept B + B of P1" in st.log_lines()
    assert st.plays == {}


def test_observation_never_shows_a_hidden_card_held_in_a_variable():
    from interpreter import load_text
    game = load_text('''
game "t" { players 2..2 cards start in deck start p }
card "A" { copies: 1 }
card "B" { copies: 1 }
zone deck: pile hidden
zone hand[player]: set owner
var secret: card = none
var who: player = none
action go() { effect { end game } }
phase p {
  enter { deal 1 from deck to hand[active]  secret = first c in cards(hand[active])  who = active }
  actions go
  after {}
  next p
}
''')
    st = game.new_state(players=2, seed=1)
    mine = st.observation(0)["vars"]
    theirs = st.observation(1)["vars"]
    assert mine["secret"] in ("A", "B") and mine["who"] == "P1"
    assert theirs["secret"] == "hidden card"
    assert theirs["who"] == "P1"


def test_an_enum_choice_offers_each_member_once():
    from interpreter import load_text
    game = load_text('''
game "t" { players 2..2 start p }
enum Suit { hearts, spades, clubs }
var named: Suit = hearts
action name_suit(s: Suit where s != named) { effect { named = s  end game } }
phase p { actions name_suit after {} next p }
''')
    st = game.new_state(players=2)
    assert st.legal_action_strings() == ["name_suit spades", "name_suit clubs"]
    st.apply("name_suit clubs")
    assert st.is_terminal() and st.vars[0] == "clubs"


def test_action_cards_are_the_cards_an_action_uses():
    """State.action_cards: the cards a decision's text names (its card choices; a face-down pick
    names none), and for an ability or conversion a card gives, that card; nothing changes."""
    sgs = interpreter.load(ROOT / "games" / "sanguosha.rules")
    st = sgs.new_state(players=6, seed=3)
    rng = random.Random(1)
    label = sgs.prog.card_label
    seen = {"choice": False, "ability": False, "conversion": False, "none": False}
    for _ in range(600):
        if st.is_terminal():
            break
        before = st.to_json()
        for a in st.legal_actions():
            cards = [label(st, c) for c in st.action_cards(a)]
            named = [x for x in cards if x in a.text]
            act = sgs.prog.actions.get(a.name)
            if act is not None and act.ability is not None:  # given by a card: that card (the general) is one
                assert label(st, dict(a.params)["self"]) in cards
                seen["ability"] = True
            elif any(type(v) is dict and v.get("via") for _, v in a.params):
                assert cards, a.text  # a card used as another: its own cards, and the card that gives the conversion
                seen["conversion"] = True
            elif a.name == "(choice)" and cards:
                assert named == cards, a.text  # a choice of cards: the cards its text names, each by its label
                seen["choice"] = True
            elif a.text in ("no response", "decline") or "face-down" in a.text:
                assert cards == [], a.text
                seen["none"] = True
        assert st.to_json() == before
        st.apply(rng.choice(st.legal_actions()))
    assert all(seen.values()), seen
