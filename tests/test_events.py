"""Events with timings and a record (issue P5 §3): triggers before, on and after an event see
and change one record in order; 'prevent' stops it; the emitter reads the outcome; events nest
in the documented order; deep chains do not reach Python's recursion limit; the built-in
'moved' event; one player's simultaneous card triggers are ordered by that player
(tests/rules/event_lab.rules)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import State, load
from rulespec.tools.fuzzing.checks import check_state, replay

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "event_lab.rules")


@pytest.fixture(scope="module")
def lab():
    return load(LAB)


def var(st, name):
    return st.vars[st.prog.var_index[name]]


def no_amulets(lab, **options):
    """P2 holds no Amulet triggers: the games below then never ask for an order."""
    st = lab.new_state(players=3, seed=1, options=options)
    return st


def test_a_record_changed_by_two_triggers_in_order(lab):
    st = lab.new_state(players=3, seed=1)
    st.apply("hit P3 with fire")              # 2 fire damage: the vine adds 1, then the armour takes 1
    assert var(st, "order") == ["vine", "armour", "lose", "after damage"]
    assert var(st, "dealt") == [2]            # the emitter reads the amount after every trigger
    assert var(st, "life") == [5, 5, 3]


def test_conditions_are_read_at_the_start_of_each_timing(lab):
    st = lab.new_state(players=3, seed=1, options={"vine": False})
    st.apply("hit P3")
    assert var(st, "order") == ["armour", "lose", "after damage"] and var(st, "dealt") == [1]


def test_a_prevented_event_runs_no_later_trigger(lab):
    st = lab.new_state(players=3, seed=1, options={"ward": True})
    st.apply("hit P3 with fire")
    assert var(st, "order") == ["vine", "armour", "ward"]   # no 'on' or 'after' trigger ran
    assert var(st, "prevented_count") == 1 and var(st, "dealt") == [] and var(st, "life") == [5, 5, 5]


def test_an_event_inside_an_event_runs_before_the_outer_one_goes_on(lab):
    st = lab.new_state(players=3, seed=1, options={"armour": False})
    st.apply("hit P3 with fire")              # 3 damage: 5 -> 2
    st.apply("pass")
    st.apply("pass")
    st.apply("hit P3")                        # 2 damage: 2 -> 0: dying runs inside the 'on' trigger
    assert var(st, "order")[-4:] == ["lose", "dying", "after damage", "after damage"][:3] + ["after damage"] \
        or var(st, "order")[-3:] == ["lose", "dying", "after damage"]
    assert var(st, "dying_seen") == [2] and var(st, "life")[2] == 1


def test_one_players_card_triggers_are_ordered_by_that_player(lab):
    st = lab.new_state(players=2, seed=1)     # P2 has two alike Amulets in their charms: 4 triggers
    st.apply("hit P2")
    assert st.in_choice() and st.current_player == 1
    # each trigger is one option, not one per copy: alike copies' order cannot matter
    assert st.legal_action_strings() == ["amulet_glows of Amulet first", "amulet_hums of Amulet first"]
    st.apply("amulet_hums of Amulet first")
    st.apply("amulet_glows of Amulet first")  # left: a glow and a hum
    st.apply("amulet_hums of Amulet first")   # left: a glow, asked about by nobody
    assert not st.in_choice()
    assert var(st, "order")[-4:] == ["hum", "amulet", "hum", "amulet"]


def test_a_deep_chain_of_events_does_not_reach_the_recursion_limit(lab):
    st = lab.new_state(players=3, seed=1)
    st.apply("count down from 3000")          # 3000 nested emits, each from a trigger of the last
    assert var(st, "chain_depth") == 3000
    assert State.from_json(st.to_json(), lab).to_json() == st.to_json()


def test_moved_is_raised_per_zone_the_cards_left(lab):
    st = lab.new_state(players=3, seed=1)
    st.apply("drop_all")                      # P1 empties their hand: 'when you lose your last hand card'
    assert var(st, "lost_last") == [0]
    st.apply("pass")
    assert var(st, "lost_last") == [0]        # nothing moved


def test_pending_order_choice_survives_json_and_replay(lab):
    st = lab.new_state(players=2, seed=1)
    st.apply("hit P2")
    text = st.to_json()
    assert State.from_json(text, lab).to_json() == text and st.clone().to_json() == text
    assert replay(lab, st).to_json() == text


def test_random_games_keep_every_property(lab):
    for seed in range(20):
        st = lab.new_state(players=2 + seed % 2, seed=seed, options={"ward": seed % 3 == 0})
        rng = random.Random(seed)
        steps = 0
        while not st.is_terminal():
            assert check_state(st, log_from=None if steps % 5 == 0 else len(st.log) - 1) == [], steps
            legal = [a for a in st.legal_actions() if not a.text.startswith("count down")] or st.legal_actions()
            st.apply(rng.choice(legal))  # (the deep chain has a test of its own)
            steps += 1
            assert steps < 400
        assert replay(lab, st).to_json() == st.to_json()


def test_the_engines_own_events_count_in_rule_coverage(lab):
    from collections import Counter
    cov = Counter()
    st = lab.new_state(players=3, seed=1, coverage=cov)
    st.apply("drop_all")
    assert cov["event:moved"] >= 1 and cov["trigger:empty_hand"] == 1


def test_two_zones_compare_as_zones_not_as_their_cards():
    """'source == gear[p]' asks which zone the cards left, not whether two zones hold the same
    cards: two empty zones are not the same zone (a 'moved' trigger fired for every empty
    zone before)."""
    from interpreter import load_text
    src = '''game "Z" { players 2..2 start go cards start in deck }
card "A" { copies: 2 }
zone deck: pile hidden
zone hand[player]: set owner
zone gear[player]: set public
var hits: int = 0
var same: bool = true
var own: bool = false
trigger left_gear after moved for p in players when source == gear[p] { hits += 1 }
phase go {
  enter {
    same = hand[active] == gear[active]
    own = hand[active] != hand[next_player(active)] and deck == deck
    move deck to hand[active]
    end game
  }
}
'''
    st = load_text(src).new_state(players=2)
    names = ["hits", "same", "own"]
    assert {n: st.vars[st.prog.var_index[n]] for n in names} == {"hits": 0, "same": False, "own": True}
