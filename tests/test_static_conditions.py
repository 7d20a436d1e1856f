"""Conditions fixed for a whole game (interpreter/static_conditions.py): the parts of a card
group's or a trigger's condition that read only options, literals and printed card values are
decided once per game; cards and triggers that cannot work are then never looked at, and play
is the same as reading the whole condition every time."""
from __future__ import annotations

import random

from interpreter import load_text
from interpreter.static_conditions import Options, live_copies, live_only

RULES = """
game "Fixed lab" {
  players 2..3
  start setup
  cards start in box
  score p: points[p]
}

enum Set { core, extra }
property set: Set
option extras: bool = false "Play with the extra cards."

def in_play(c: card): bool = c.set == core or extras
def busy(p: player): bool = count(hand[p]) > 2

card "Coin" { set: core copies: 4 }
card "Gem" {
  set: extra
  while in hand when in_play(self) and not busy(owner) {
    trigger shine on gained when p == owner { points[owner] += 2 }
    action polish() { text "polish" effect { points[owner] += 1 } }
  }
}
card "Lamp" {
  set: core
  while in hand when in_play(self) {
    trigger glow on gained when p == owner { points[owner] += 1 }
  }
}

zone box: pile hidden
zone hand[player]: set owner

var points[player]: int = 0
var turns: int = 0

event gained(p: player) "A player takes a card."

trigger bonus on gained when extras and p == active { points[p] += 5 }
trigger tally on gained when turns >= 0 and p == active { turns += 0 }

action take() {
  text "take"
  effect {
    if count(box) > 0 { deal 1 from box to hand[active] }
    emit gained(active)
  }
}

phase setup {
  enter { shuffle box }
  next play
}

phase play {
  actions take
  after {
    turns += 1
    active = next_player(active)
  }
  end when turns >= 12
  next over
}

phase over {
  enter { end game }
}
"""


def game():
    return load_text(RULES, "fixed_lab.rules")


def _group(prog, card):
    return next(ab for ab in prog.ability_groups.values() if ab.card == card)


def _trigger(prog, name):
    return next(t for t in prog.trigger_list if t.name == name)


def test_only_the_conjuncts_that_read_options_and_printed_values_are_fixed():
    prog = game().prog
    gem, lamp = _group(prog, "Gem"), _group(prog, "Lamp")
    assert gem.fixed is not None and gem.when is not None   # in_play(self) fixed; busy(owner) is not
    assert lamp.fixed is not None and lamp.when is None     # all of it fixed
    assert _trigger(prog, "bonus").fixed is not None        # 'extras' alone
    assert _trigger(prog, "tally").fixed is None            # a variable is never fixed
    assert _trigger(prog, "shine").fixed is None            # 'p == owner': an event field


def test_a_def_that_reads_the_state_is_not_fixed():
    prog = game().prog
    assert not prog.static.is_static(prog.model.defs["busy"].body, frozenset(["p"]))
    assert prog.static.is_static(prog.model.defs["in_play"].body, frozenset(["c"]))
    assert not prog.static.is_static(prog.model.defs["in_play"].body, frozenset())  # c not fixed


def test_a_card_of_an_option_left_off_is_never_live_and_never_gives_its_action():
    g = game()
    st = g.new_state(players=2, seed=3)
    gem = _group(st.prog, "Gem")
    assert live_copies(st, gem) == ()
    assert [t.name for t in live_only(st, "k", st.prog.trigger_list)] == ["glow", "tally"]
    st2 = g.new_state(players=2, seed=3, options={"extras": True})
    assert len(live_copies(st2, gem)) == 1
    assert [t.name for t in live_only(st2, "k", st2.prog.trigger_list)] == ["shine", "glow", "bonus", "tally"]


def _play(g, options, seed):
    st = g.new_state(players=2, seed=seed, options=options)
    rng = random.Random(seed)
    while not st.is_terminal():
        la = st.legal_actions()
        st.apply(la[rng.randrange(len(la))])
    return st


def test_play_with_the_option_on_reads_the_whole_condition():
    g = game()
    for seed in range(6):
        st = _play(g, {"extras": True}, seed)
        texts = " ".join(st.history)
        gem_held = any(st.prog.card_names[c] == "Gem" for z in st.zones for c in z)
        assert gem_held
        # 'bonus' (extras) gives 5 a take; with the option off nobody ever gets it
        assert sum(st.vars[st.prog.var_index["points"]]) >= 5 * 12
        off = _play(g, {"extras": False}, seed)
        assert sum(off.vars[off.prog.var_index["points"]]) < 5 * 12
        assert "polish" not in " ".join(off.history)
        assert texts  # both games were played through


def test_options_changed_after_the_fact_forget_what_they_decided():
    opts = Options({"extras": False})
    opts.live["x"] = ()
    opts["extras"] = True
    assert opts.live == {}
    assert dict(opts) == {"extras": True}


def test_the_state_survives_a_json_round_trip_with_its_options():
    g = game()
    st = g.new_state(players=2, seed=1, options={"extras": True})
    again = type(st).from_json(st.to_json(), g)
    assert isinstance(again.opts, Options)
    assert again.legal_action_strings() == st.legal_action_strings()


def test_printed_filters_and_wild_tables_are_found_where_they_apply():
    from pathlib import Path
    from interpreter import load
    g = load(str(Path(__file__).resolve().parent.parent / "games" / "chuhan.rules"))
    acts = g.prog.actions
    cs = acts["play_set"].params[0]
    assert cs.wild_static and cs.printed is None           # 'wild w where w.rank == 0'
    ji_bu = acts["ji_bu"].params[0]
    assert ji_bu.printed is not None                       # 'where c.power == ji_bu'
    assert acts["ying_bu"].params[1].printed is None        # 't.rank >= 1 and t.rank <= 5': no equality
