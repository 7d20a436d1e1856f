"""The response stack, response windows, events and triggers, and the 'distinct' / 'wild'
card selectors -- on small synthetic games under tests/rules/ (the engine knows no game).

  stack_lab.rules     spells, bolts, counters, shields, a 'wound' that asks from its target,
                      a probe that records what it sees, a doom that ends the game
  trigger_lab.rules   events and triggers that append codes to a list, in the order they run
  selector_lab.rules  'distinct rank' and 'same rank wild ...' card choices
"""
from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

import interpreter
from interpreter import IllegalActionError, State
from rulespec.tools.fuzzing.checks import play_checked, replay
from interpreter.state import NO_RESPONSE
from rulespec.lang.checker import check_file, check_text
from rulespec.lang.diagnostics import RulesError
from rulespec.lang.model import END

RULES = Path(__file__).resolve().parent / "rules"


@pytest.fixture(scope="module")
def lab():
    return interpreter.load(RULES / "stack_lab.rules")


@pytest.fixture(scope="module")
def trig():
    return interpreter.load(RULES / "trigger_lab.rules")


@pytest.fixture(scope="module")
def sel():
    return interpreter.load(RULES / "selector_lab.rules")


def new(game, players=3, **options) -> State:
    return game.new_state(players=players, seed=0, options=options)


def var(st: State, name: str):
    return st.vars[st.prog.var_index[name]]


def stack_log(st: State) -> list:
    """The stack and resolve entries of the log: ("stack", id, kind, by) / ("resolve", id, kind, cancelled)."""
    return [tuple(e) for e in st.log if e[0] in ("stack", "resolve")]


def decline_all(st: State) -> list:
    """Decline in every window until the stack is empty; the players asked, in order."""
    asked = []
    while st.in_window():
        asked.append(st.current_player)
        assert st.legal_action_strings()[-1] == NO_RESPONSE
        st.apply(NO_RESPONSE)
    return asked


# ====================================================================== the rules files check clean
@pytest.mark.parametrize("name", ["stack_lab", "trigger_lab", "selector_lab", "counters"])
def test_rules_files_check_clean(name):
    model = check_file(RULES / f"{name}.rules")
    assert [d.headline() for d in model.warnings] == []


# ====================================================================== 1. a chain of counters
def test_three_counters_resolve_last_in_first_out(lab):
    st = new(lab, 3, c1=1, c2=1, c3=1)
    assert st.current_player == 0 and not st.in_window()
    st.apply("cast")                            # spell (id 0) by P1
    assert st.in_window() and st.current_player == 1
    assert st.legal_action_strings() == ["counter Counter", NO_RESPONSE]
    st.apply("counter Counter")                 # P2: counter 1 (id 1) against the spell
    assert st.current_player == 2               # its window: P3, P1, P2
    st.apply("counter Counter")                 # P3: counter 2 (id 2) against counter 1
    assert st.current_player == 0               # its window: P1, P2, P3
    assert var(st, "after_runs") == 0           # the phase's after waits for the stack
    st.apply("counter Counter")                 # P1: counter 3 (id 3) against counter 2
    # nobody holds a card any more: everything resolves without asking anyone
    assert not st.in_window() and st.stack == [] and st.entries == []
    assert var(st, "window_top_kind") == "counter_effect" and var(st, "window_depth") == 3
    assert stack_log(st) == [
        ("stack", 0, "spell", 0), ("stack", 1, "counter_effect", 1),
        ("stack", 2, "counter_effect", 2), ("stack", 3, "counter_effect", 0),
        ("resolve", 3, "counter_effect", False),   # counter 3 cancels counter 2
        ("resolve", 2, "counter_effect", True),    # counter 2 is cancelled: counter 1 stands
        ("resolve", 1, "counter_effect", False),   # counter 1 cancels the spell
        ("resolve", 0, "spell", True),
    ]
    assert var(st, "resolved") == ["counter_effect", "counter_effect"]
    assert var(st, "resolved_ids") == [3, 1]
    assert var(st, "voided") == ["counter_effect", "spell"]
    assert var(st, "life") == [15, 10, 10]      # the spell's cancelled block ran, its resolve did not
    assert (var(st, "after_runs"), var(st, "after_depth"), var(st, "turns")) == (1, 0, 1)
    assert st.current_player == 1 and st.legal_actions()[0].text == "cast"


def test_a_fourth_counter_brings_the_spell_back(lab):
    # P1 holds two counters: the window of each entry below reopens and asks everyone again
    st = new(lab, 3, c1=2, c2=1, c3=1)
    st.apply("cast")
    st.apply("counter Counter")                 # P2: counter 1 against the spell
    st.apply("counter Counter")                 # P3: counter 2 against counter 1
    st.apply("counter Counter")                 # P1: counter 3 against counter 2
    assert st.current_player == 0 and [e[1] for e in st.entries] == ["spell"] + ["counter_effect"] * 3
    st.apply(NO_RESPONSE)                       # P1 lets counter 3 resolve: counter 2 is cancelled
    # counter 2's window reopens (cancelled entries are asked about too): P1 is asked again
    assert st.in_window() and st.current_player == 0 and st.stack == [0, 1, 2]
    assert st.entries[2][6] is True
    st.apply(NO_RESPONSE)                       # counter 2 resolves as cancelled
    # counter 1's window reopens: P3 holds nothing, P1 is asked again
    assert st.in_window() and st.current_player == 0 and st.stack == [0, 1]
    st.apply("counter Counter")                 # P1: counter 4 against counter 1
    assert not st.in_window()
    assert [e for e in stack_log(st) if e[0] == "resolve"] == [
        ("resolve", 3, "counter_effect", False), ("resolve", 2, "counter_effect", True),
        ("resolve", 4, "counter_effect", False), ("resolve", 1, "counter_effect", True),
        ("resolve", 0, "spell", False)]
    assert var(st, "resolved") == ["counter_effect", "counter_effect", "spell"]
    assert var(st, "voided") == ["counter_effect", "counter_effect"]
    assert var(st, "life") == [10, 9, 10]       # the spell resolved: the next player loses 1


# ====================================================================== 2. who a window asks
@pytest.mark.parametrize("holding,first_turn,second_turn", [
    ((1, 1, 1, 1), [1, 2, 3, 0], [2, 3, 0, 1]),  # clockwise after the stacker, the stacker last
    ((1, 1, 0, 1), [1, 3, 0], [3, 0, 1]),        # P3 holds nothing: never asked
    ((0, 1, 0, 0), [1], [1]),
    ((0, 0, 0, 0), [], []),                      # no one can respond: resolves at once
])
def test_window_asks_in_seat_order_and_skips_who_cannot_respond(lab, holding, first_turn, second_turn):
    st = new(lab, 4, **{f"c{i + 1}": k for i, k in enumerate(holding)})
    st.apply("cast")
    assert decline_all(st) == first_turn
    assert st.current_player == 1 and var(st, "resolved") == ["spell"]
    st.apply("cast")
    assert decline_all(st) == second_turn
    assert st.current_player == 2 and var(st, "life") == [10, 9, 9, 10]


@pytest.mark.parametrize("target,holding,asked", [
    ("P3", (1, 1, 1, 1), [2, 3, 0, 1]),   # ask players_from(this.target)
    ("P3", (1, 1, 1, 0), [2, 0, 1]),
    ("P1", (1, 1, 1, 1), [0, 1, 2, 3]),   # the stacker first: 'ask' overrides the default order
])
def test_ask_gives_a_custom_order(lab, target, holding, asked):
    st = new(lab, 4, **{f"c{i + 1}": k for i, k in enumerate(holding)})
    st.apply(f"wound {target}")
    assert decline_all(st) == asked
    t = int(target[1]) - 1
    assert var(st, "life")[t] == 9


def test_a_response_inside_an_ask_window_uses_its_own_order(lab):
    st = new(lab, 4, c1=1, c2=1, c3=1, c4=1)
    st.apply("wound P3")
    assert st.current_player == 2
    st.apply("counter Counter")               # P3 answers first; the counter asks P4, P1, P2 (P3 has no card)
    assert decline_all(st) == [3, 0, 1,       # counter's window, then it resolves: the wound is cancelled
                               3, 0, 1]       # the wound's window reopens in its 'ask' order, P3 skipped
    assert var(st, "resolved") == ["counter_effect"]
    assert var(st, "voided") == []            # wound has no 'cancelled' block: nothing happens
    assert var(st, "life") == [10, 10, 10, 10]


# ====================================================================== 4. a response for one effect only
def test_shield_answers_only_a_bolt_aimed_at_its_holder(lab):
    st = new(lab, 3, s2=1)
    st.apply("cast")                          # P1: a spell; P2's Shield does not answer it, but
    # P2 holds a card the others cannot see (it could be a Counter), so P2 is asked anyway
    assert st.in_window() and st.current_player == 1 and st.legal_action_strings() == [NO_RESPONSE]
    st.apply(NO_RESPONSE)
    assert not st.in_window() and st.current_player == 1 and var(st, "life") == [10, 9, 10]
    st.apply("bolt P3")                       # P2: a bolt at P3; P2 holds the Shield but is not the target
    assert decline_all(st) == [1]             # asked (a hidden card) after P3 and P1, who hold none
    assert not st.in_window() and st.current_player == 2 and var(st, "life") == [10, 9, 7]
    st.apply("bolt P2")                       # P3: a bolt at P2: P2 is asked, offered only the Shield
    assert st.in_window() and st.current_player == 1
    assert st.legal_action_strings() == ["shield Shield", NO_RESPONSE]
    assert var(st, "bolt_saw_cancelled") is False
    st.apply("shield Shield")                 # cancels the bolt without stacking anything
    assert not st.in_window()
    assert var(st, "voided") == ["bolt"] and var(st, "life") == [10, 9, 7]
    assert var(st, "bolt_saw_cancelled") is True   # this.cancelled and tagged() in a 'cancelled' block


def test_a_response_that_stacks_nothing_passes_the_window_on(lab):
    st = new(lab, 3, s2=2, c3=1)
    st.apply("bolt P2")                       # P1 bolts P2: asked P2, P3, P1
    assert st.current_player == 1
    st.apply("shield Shield")
    # P2 still holds a Shield but has had their turn in this window: P3 may still counter the
    # (cancelled) bolt
    assert st.in_window() and st.current_player == 2
    assert st.legal_action_strings() == ["counter Counter", NO_RESPONSE]
    st.apply(NO_RESPONSE)
    assert not st.in_window() and var(st, "voided") == ["bolt"] and var(st, "life") == [10, 10, 10]


def test_shield_is_not_offered_against_what_is_on_top_of_the_bolt(lab):
    st = new(lab, 3, c1=1, s2=1)
    st.apply("cast")                          # P1's turn: P2 (a hidden card) and P1 (the stacker) decline
    assert decline_all(st) == [1, 0]
    st.apply("cast")                          # P2's turn: P1 declines, then P2 (a hidden card)
    assert decline_all(st) == [0, 1]
    assert var(st, "life") == [10, 9, 9]
    st.apply("bolt P2")                       # P3 bolts P2: asked P1 (counter), P2 (shield), P3
    assert st.current_player == 0
    st.apply("counter Counter")               # P1 counters the bolt: a counter is on top now
    # P2's shield answers a bolt, not a counter; P2 holds a hidden card, so P2 is asked about
    # the counter too (it could be a Counter of theirs) and may only decline
    assert st.current_player == 1 and st.legal_action_strings() == [NO_RESPONSE]
    st.apply(NO_RESPONSE)
    # the counter resolves; the bolt is cancelled, and its window reopens: P2 may still shield it
    assert st.current_player == 1 and st.legal_action_strings() == ["shield Shield", NO_RESPONSE]
    st.apply(NO_RESPONSE)
    assert var(st, "resolved")[-1] == "counter_effect" and var(st, "voided") == ["bolt"]
    assert var(st, "life") == [10, 9, 9]


# ====================================================================== 5. after, stack_top, this.*, end game
def test_probe_sees_itself_and_the_stack(lab):
    st = new(lab, 3, s1=1)
    hand = list(st.zones[st.prog.zone_base["hand"] + 0])
    assert len(hand) == 1
    st.apply("inspect P2")                    # stacks a bolt (id 0), then a probe (id 1) against it
    decline_all(st)                           # P1 holds a card the others cannot see: asked, declines
    assert var(st, "seen_kind") == "probe"
    assert var(st, "seen_by") == 0 and var(st, "seen_target") == 1
    assert var(st, "seen_cards") == hand
    assert var(st, "seen_against") == 0 and var(st, "seen_against_kind") == "bolt"
    assert var(st, "seen_cancelled") is False
    assert var(st, "seen_magic") is False     # probe has no tags...
    assert var(st, "seen_probe") is True      # ...but tagged(e, its own name) holds
    assert var(st, "seen_bolt") is False
    assert var(st, "seen_self") == 1
    # a resolving effect is off the stack already: stack_top is the effect below it
    assert var(st, "seen_top") == 0 and var(st, "seen_stacked") == [0]
    assert var(st, "resolved") == ["probe", "bolt"] and var(st, "life") == [10, 7, 10]
    assert (var(st, "after_runs"), var(st, "after_depth")) == (1, 0)


def test_stacked_inside_resolve_lacks_the_resolving_entry_also_while_it_waits_on_a_choose():
    """An entry leaves the stack when it starts to resolve (docs/language.md: stacked holds the
    entries waiting): inside its resolve, before, during and after a choose, stacked is the rest."""
    st = new(interpreter.load(RULES / "stacked_lab.rules"), 2)
    st.apply("muse")                          # stacks a bolt (id 0), then a ponder (id 1) on it
    decline_all(st)
    assert st.pending["kind"] == "choice" and st.legal_action_strings() == ["1", "2", "3"]
    assert list(st.stack) == [0]              # while the ponder waits on its choose: only the bolt
    assert (var(st, "waiting_count"), var(st, "waiting_self"), var(st, "waiting_top")) == (1, False, "bolt")
    st.apply("2")
    assert (var(st, "pondered"), var(st, "chosen_count"), var(st, "chosen_self")) == (2, 1, False)
    assert var(st, "resolved") == ["ponder", "bolt"]


def test_after_runs_once_the_stack_is_empty(lab):
    st = new(lab, 3, c2=1, c3=1)
    st.apply("cast")
    assert st.in_window() and st.phase == "turn" and var(st, "after_runs") == 0
    st.apply(NO_RESPONSE)                     # P2
    assert st.in_window() and var(st, "after_runs") == 0 and var(st, "turns") == 0
    st.apply(NO_RESPONSE)                     # P3; P1 holds nothing: the spell resolves
    assert not st.in_window()
    assert (var(st, "after_runs"), var(st, "after_depth"), var(st, "turns")) == (1, 0, 1)
    assert st.current_player == 1


@pytest.mark.parametrize("holding", [{}, {"c2": 1}])
def test_end_game_inside_a_resolving_effect_ends_at_once(lab, holding):
    st = new(lab, 3, **holding)
    st.apply("doomsday")
    if holding:
        assert st.in_window() and st.current_player == 1
        st.apply(NO_RESPONSE)
    assert st.is_terminal() and st.current_player is None
    assert st.winners() == [0] and st.legal_actions() == []
    assert var(st, "resolved") == ["doom"]
    assert var(st, "doom_after_end") is False  # the statement after 'end game' never ran
    assert var(st, "after_runs") == 0 and var(st, "turns") == 0
    assert st.log[-1] == ["end", [0]]
    with pytest.raises(IllegalActionError, match="the game is over"):
        st.apply("cast")


# ====================================================================== 6. JSON, clone, replay, illegal actions
def test_json_and_clone_in_an_open_window(lab):
    st = new(lab, 3, c1=1, c2=1, c3=1)
    st.apply("cast")
    st.apply("counter Counter")               # P3 now decides, two entries on the stack
    assert st.in_window() and st.current_player == 2 and len(st.stack) == 2
    snap = st.to_json()
    loaded = State.from_json(snap, lab)
    copy = st.clone()
    assert loaded.to_json() == snap and copy.to_json() == snap
    for other in (loaded, copy):
        assert other.in_window() and other.current_player == 2
        assert other.legal_action_strings() == st.legal_action_strings()
    assert replay(lab, st).to_json() == snap
    for s in (st, loaded, copy):
        s.apply("counter Counter")
        assert s.current_player == 0
        s.apply("counter Counter")
        assert not s.in_window()
    assert loaded.to_json() == st.to_json() == copy.to_json()
    assert replay(lab, st).to_json() == st.to_json()
    assert var(st, "life") == [15, 10, 10]


def test_a_clone_in_a_window_is_independent(lab):
    st = new(lab, 4, c1=1, c2=1, c3=1, c4=1)
    st.apply("cast")
    snap = st.to_json()
    copy = st.clone()
    copy.apply(NO_RESPONSE)                   # P2 declines in the copy only
    assert copy.current_player == 2
    copy.apply("counter Counter")
    copy.apply(NO_RESPONSE)
    loaded = State.from_json(snap, lab)
    loaded.apply(NO_RESPONSE)
    assert st.to_json() == snap and st.current_player == 1 and st.stack == [0]
    assert decline_all(st) == [1, 2, 3, 0]


def test_random_games_round_trip_and_replay(lab, trig):
    opts = {"c1": 2, "c2": 1, "c3": 2, "c4": 1, "s1": 1, "s2": 1, "s3": 1, "s4": 1, "max_turns": 8}
    windows = 0
    for seed in range(8):
        for n in (3, 4):
            r = play_checked(lab, n, seed, opts, agent_seed=seed, full_round_trip_every=1)
            assert r.ok and r.terminal, r.describe()
            windows += r.history.count(NO_RESPONSE)
    assert windows > 10                       # the random games did go through windows
    for seed in range(3):
        r = play_checked(trig, 3, seed, {}, agent_seed=seed)
        assert r.ok and r.terminal, r.describe()


@pytest.mark.parametrize("text,pattern", [
    ("cast", r"'cast' cannot be taken in the response window of 'spell' \(allowed here: counter, no response\)"),
    ("bolt P1", r"'bolt P1' is not a legal action for P2 in the response window of 'spell'"),
    ("shield Shield", r"'shield' cannot be taken in the response window of 'spell'"),
    ("counter Shield", r"is not a legal action for P2 in the response window of 'spell': "
                       r"c = Shield breaks 'where c.name == \"Counter\"' \(.*stack_lab.rules:\d+\); "
                       r"legal now: 'counter Counter', 'no response'"),
])
def test_illegal_actions_in_a_window_change_nothing(lab, text, pattern):
    st = new(lab, 3, c2=1, s2=1)
    st.apply("cast")
    assert st.current_player == 1
    before = st.to_json()
    with pytest.raises(IllegalActionError, match=pattern):
        st.apply(text)
    assert st.to_json() == before
    st.apply(NO_RESPONSE)                     # the game goes on normally
    assert not st.in_window() and var(st, "life") == [10, 9, 10]


def test_a_response_whose_requirement_fails_is_illegal(lab):
    st = new(lab, 3, c1=1, s1=1)
    st.apply("cast")                          # P1's turn
    assert decline_all(st) == [0]
    st.apply("bolt P3")                       # P2 bolts P3: P1 is asked (the counter), not for the Shield
    assert st.current_player == 0 and st.legal_action_strings() == ["counter Counter", NO_RESPONSE]
    before = st.to_json()
    with pytest.raises(IllegalActionError, match=r"illegal for P1 now: it needs 'require stack_top.target == active'"):
        st.apply("shield Shield")
    assert st.to_json() == before


def test_no_response_outside_a_window_is_illegal(lab):
    st = new(lab, 3, c2=1)
    before = st.to_json()
    with pytest.raises(IllegalActionError, match="no response window is open"):
        st.apply(NO_RESPONSE)
    assert st.to_json() == before


# ====================================================================== 3. triggers
def trace(st):
    return var(st, "trace")


def test_triggers_run_in_the_documented_order(trig):
    st = trig.new_state(players=4, seed=0)
    assert trace(st) == [101, 104]            # phase_start runs before the phase's enter block
    st.apply("poke")                          # P1: action_taken, game-level trigger before per-player
    assert trace(st)[2:] == [103, 120, 111, 105]
    st.apply("poke")                          # P2
    assert trace(st)[6:] == [103, 120, 112, 105]
    del st.vars[st.prog.var_index["trace"]][:]
    st.apply("ring 1")                        # P3 pings: game-level (ga, gb) first, then per player
    # from the acting player P3 clockwise, each player's triggers in declaration order (pa, pb);
    # pc's condition (flag) was read before ga set it, so pc does not run
    assert trace(st) == [100, 1, 2, 13, 23, 14, 24, 11, 21, 12, 22, 120, 105]
    assert var(st, "flag") is True
    st.vars[st.prog.var_index["trace"]] = []
    st.apply("ring 1")                        # P4: now flag holds: pc runs for the pinger, after pb
    assert trace(st) == [100, 1, 2, 14, 24, 34, 11, 21, 12, 22, 13, 23, 120, 105]
    assert var(st, "points") == [2, 2, 2, 2]
    st.vars[st.prog.var_index["trace"]] = []
    st.apply("knock")                         # P1: bump's trigger emits ping(P1, 0) inside itself
    assert trace(st) == [50, 1, 2, 21, 31, 22, 23, 24, 51, 120, 105]   # pa skipped: n == 0
    st.vars[st.prog.var_index["trace"]] = []
    st.apply("stop")                          # P2: phase_end runs before the exit block
    assert trace(st) == [120, 105, 102, 106]
    assert st.is_terminal()


def test_trigger_order_does_not_depend_on_seat_zero(trig):
    st = trig.new_state(players=3, seed=0)
    st.apply("poke")
    st.apply("ring 0")                        # P2 pings with n = 0: pa does not run
    assert trace(st)[6:] == [100, 1, 2, 22, 23, 21, 120, 105]


# ====================================================================== 7. distinct and wild selectors
def chosen(st, name):
    names = st.prog.card_names
    return [tuple(sorted(names[c] for c in dict(a.params)["cs"])) for a in st.legal_actions() if a.name == name]


def test_distinct_lists_every_set_of_different_ranks_quickly(sel):
    t0 = time.perf_counter()
    st = sel.new_state(players=2, seed=0, options={"layout": 1})
    legal = st.legal_actions()
    elapsed = time.perf_counter() - t0
    hand = st.zones[st.prog.zone_base["hand"]]
    assert len(hand) == 15 and len({st.prog.card_props["rank"][c] for c in hand}) == 8
    assert elapsed < 1.0
    texts = [a.text for a in legal]
    assert len(texts) == len(set(texts)) and not any("#" in t for t in texts)
    rank = st.prog.card_props["rank"]
    runs = [a for a in legal if a.name == "run"]
    # rank 1 offers R1 or B1 (or nothing), ranks 2..8 one kind each (or nothing): 3 * 2^7 - 1,
    # far fewer than the 2^15 subsets of the hand
    assert len(runs) == 3 * 2 ** 7 - 1
    for a in runs:
        cs = dict(a.params)["cs"]
        assert len({rank[c] for c in cs}) == len(cs)
        assert set(cs) <= set(hand)
    assert len(set(chosen(st, "run"))) == len(runs)
    # size 3: three of ranks 2..8, or R1/B1 and two of ranks 2..8
    assert len(chosen(st, "run3")) == 35 + 2 * 21
    assert all(len(set(rank[c] for c in dict(a.params)["cs"])) == 3 for a in legal if a.name == "run3")


def test_distinct_scales_to_a_bigger_hand(sel):
    st = sel.new_state(players=2, seed=0, options={"layout": 1})
    hand = st.prog.zone_base["hand"]
    st.move_cards(list(st.zones[st.prog.zone_base["deck"]]), hand, False)   # the Jokers too: 17 cards
    st._legal = None
    t0 = time.perf_counter()
    runs = chosen(st, "run")
    assert time.perf_counter() - t0 < 1.0
    assert len(runs) == 2 * 3 * 2 ** 7 - 1 and len(set(runs)) == len(runs)


def test_wild_cards_join_groups_of_alike_cards(sel):
    st = sel.new_state(players=2, seed=0, options={"layout": 2})   # R1 R1 B1 R2 Joker Joker
    meld3 = chosen(st, "meld3")
    assert sorted(meld3) == sorted([
        ("B1", "R1", "R1"),                   # rank 1, no wild
        ("Joker", "R1", "R1"), ("B1", "Joker", "R1"),              # rank 1 with one wild
        ("Joker", "Joker", "R1"), ("B1", "Joker", "Joker"),        # rank 1 with two wilds
        ("Joker", "Joker", "R2"),             # rank 2 with two wilds
    ])
    meld = chosen(st, "meld")
    assert len(meld) == len(set(meld)) == 20
    assert ("Joker",) in meld and ("Joker", "Joker") in meld       # the wild alone counts in its own group
    assert ("Joker", "Joker", "Joker") not in meld and ("R1", "R2") not in meld
    assert ("B1", "Joker", "Joker", "R1", "R1") in meld            # up to k - 1 wilds with the group
    # twos wild: R2 joins any group; the wild alone (a single R2) is its own group of rank 2
    assert sorted(chosen(st, "deuces")) == sorted([
        ("R1", "R1"), ("B1", "R1"), ("R1", "R2"), ("B1", "R2"),
        ("Joker", "Joker"), ("Joker", "R2"),
    ])


def test_wild_sets_are_never_all_wild_with_too_few_plain_cards(sel):
    st = sel.new_state(players=2, seed=0, options={"layout": 1})  # no Jokers: 'meld' is plain 'same rank'
    meld = chosen(st, "meld")
    assert len(meld) == len(set(meld)) == 5 + 5 * 2 + 2
    assert chosen(st, "meld3") == [("B1", "R1", "R1")]
    assert len(chosen(st, "deuces")) == 15


# ====================================================================== 8. checker diagnostics
BASE = '''\
game "Mini" {
  players 2..3
  start play
  cards start in deck
  score p: life[p]
}
property rank: int
card "Counter" { rank: 1 copies: 2 }
card "Ace" { rank: 2 }
zone deck: pile public
zone hand[player]: set owner
var life[player]: int = 5
var turns: int = 0
event hit(who: player, n: int)
effect zap {
  is magic
  ask players_from(this.target)
  resolve { emit hit(this.target, 1) }
}
effect negate {
  resolve { if tagged(this.against, "magic") { cancel this.against } }
}
trigger ouch on hit for q in players when q == who { life[q] -= n }
action cast(p: player) {
  effect { stack zap by active target p }
}
action counter(c: card from hand[active]) {
  respond to magic
  effect { move c to deck  stack negate against stack_top }
}
action meld(cs: cards from hand[active] same rank) {
  effect { move cs to deck }
}
phase play {
  enter { for p in players { deal 1 from deck to hand[p] } }
  actions cast, meld
  after { turns += 1  active = next_player(active) }
  end when turns >= 4
  next over
}
phase over { enter { end game } }
'''


def test_base_checks_clean():
    assert check_text(BASE).warnings == []


@pytest.mark.parametrize("old,new,message", [
    ("stack zap by active", "stack zapp by active", "unknown effect 'zapp'"),
    ("respond to magic", "respond to magik", "unknown effect or effect tag 'magik'"),
    ("respond to magic", "respond to zapp", "unknown effect or effect tag 'zapp'"),
    ("resolve { emit hit(", "resolve { emit hurt(", "unknown event 'hurt'"),
    ("trigger ouch on hit", "trigger ouch on hurt", "unknown event 'hurt'"),
    ("emit hit(this.target, 1)", "emit hit(this.target)", "event 'hit' takes 2 argument(s), not 1"),
    ("emit hit(this.target, 1)", "emit hit(this.target, 1, 2)", "event 'hit' takes 2 argument(s), not 3"),
    ("emit hit(this.target, 1)", "emit hit(this.target, true)", "argument 'n' of event 'hit' must be int, not bool"),
    ("emit hit(this.target, 1)", 'emit phase_start("play")', "'phase_start' is raised by the engine itself"),
    ("emit hit(this.target, 1)", 'emit action_taken(this.by, "x")', "'action_taken' is raised by the engine itself"),
    ("actions cast, meld", "actions cast, meld, counter", "'counter' is a response: it is offered in response windows"),
    ("after { turns += 1", "after { let e = this  turns += 1", "unknown name 'this'"),
    ("life[q] -= n }", "life[q] -= n  cancel this }", "unknown name 'this'"),
    ("effect { stack zap by active target p }", "effect { stack zap by this.by target p }", "unknown name 'this'"),
    ('tagged(this.against, "magic")', 'tagged(this.against, "magick")', "unknown effect or effect tag 'magick'"),
    ('tagged(this.against, "magic")', "tagged(this.against, magic)", "the tag must be written as a string"),
    ("cards from hand[active] same rank)", "cards from hand[active] wild w where w.rank == 2)",
     "'wild' only goes with 'same'"),
    ("cards from hand[active] same rank)", "cards from hand[active] distinct rank wild w where w.rank == 2)",
     "'wild' only goes with 'same'"),
    ("cards from hand[active] same rank)", "cards from hand[active] same rank distinct rank)",
     "a set cannot be both 'same' and 'distinct'"),
    ("cards from hand[active] same rank)", "cards from hand[active] distinct colour)",
     "unknown card property 'colour'"),
    ("cards from hand[active] same rank)", "cards from hand[active] same rank wild w where w.rank)",
     "a wild-card condition must be bool, not int"),
    ("ask players_from(this.target)", "ask this.target", "the players a window asks must be list[player], not player"),
    ("against stack_top }", "against 3 }", "'against' must be entry, not int"),
    ("stack negate against", "cancel 3  stack negate against", "what 'cancel' cancels must be entry, not int"),
    ("cancel this.against }", "cancel this.against  let k = this.owner }", "a stack entry has no field 'owner'"),
    ("event hit(who: player, n: int)", "event hit(who: player, n: int)\nevent hit(who: player)",
     "event 'hit' is already declared"),
    ("event hit(who: player, n: int)", "event hit(who: player, n: int)\nevent phase_end(phase: text)",
     "event 'phase_end' is already declared"),
    ("trigger ouch on hit", "trigger ouch on phase_start when n > 0 {}\ntrigger ouch2 on hit", "unknown name 'n'"),
    ("effect negate {", "effect zap { }\neffect negate {", "effect 'zap' is already declared"),
])
def test_checker_diagnostics(old, new, message):
    assert old in BASE
    with pytest.raises(RulesError) as info:
        check_text(BASE.replace(old, new, 1))
    headlines = [d.headline() for d in info.value.diagnostics if d.severity == "error"]
    assert any(message in h for h in headlines), headlines


def test_a_response_needs_no_phase():
    # an action with 'respond to' is not reported as never taken
    model = check_text(BASE)
    assert not any("counter" in d.message for d in model.warnings)


def test_the_graph_follows_stacked_effects_and_triggers():
    # the only 'end game' is in an effect a phase action stacks, or in a trigger an effect emits
    ends_in_effect = BASE.replace("resolve { emit hit(this.target, 1) }", "resolve { end game }") \
        .replace("  next over\n}\nphase over { enter { end game } }\n", "}\n")
    model = check_text(ends_in_effect)
    assert model.graph.has_edge("play", END)
    ends_in_trigger = BASE.replace("{ life[q] -= n }", "{ end game }") \
        .replace("  next over\n}\nphase over { enter { end game } }\n", "}\n")
    check_text(ends_in_trigger)
    ends_in_response = BASE.replace("effect { move c to deck  stack negate against stack_top }",
                                    "effect { end game }") \
        .replace("  next over\n}\nphase over { enter { end game } }\n", "}\n")
    check_text(ends_in_response)
    never_ends = BASE.replace("  next over\n}\nphase over { enter { end game } }\n", "}\n")
    with pytest.raises(RulesError, match="never ends the game"):
        check_text(never_ends)
