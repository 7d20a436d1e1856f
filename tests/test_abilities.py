"""Cards that carry abilities, conversions, rule values, per-copy cards, stack entries with
data, windows that must be answered and effects resolved at once (issue P5 §2, §4, §5)
(tests/rules/ability_lab.rules)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import IllegalActionError, State, load
from rulespec.tools.fuzzing.checks import check_state, replay

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "ability_lab.rules")


@pytest.fixture(scope="module")
def lab():
    return load(LAB)


def var(st, name):
    return st.vars[st.prog.var_index[name]]


def card(st, label):
    prog = st.prog
    return next(c for c in range(prog.card_count) if prog.card_label(st, c) == label)


def zone(st, name):
    return next(s.index for s in st.prog.slots if s.name == name)


def put(st, *placements):
    """put(st, ("Strike s7", "hand[P1]"), ...): move cards, as a scenario position would."""
    for label, z in placements:
        st.move_cards([card(st, label)], zone(st, z), False)
    st._legal = None


def labels(st, z):
    return sorted(st.prog.card_label(st, c) for c in st.zones[zone(st, z)])


def new(lab, players=3, *placements):
    st = lab.new_state(players=players, seed=1)
    put(st, *placements)
    return st


# ---------------------------------------------------------------------- per-copy cards
def test_every_copy_has_its_own_values_and_label(lab):
    st = lab.new_state(players=2, seed=1)
    strikes = [c for c in range(st.prog.card_count) if st.prog.card_names[c] == "Strike"]
    assert [st.prog.card_label(st, c) for c in strikes] == ["Strike s7", "Strike h10", "Strike c2"]
    assert [st.prog.card_props["colour"][c] for c in strikes] == ["black", "red", "black"]
    assert len({st.prog.card_kind[c] for c in strikes}) == 3   # not interchangeable: three choices


# ---------------------------------------------------------------------- conversions
def test_a_conversion_is_offered_only_while_its_card_works(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Peach h12", "hand[P1]"), ("Mirror s1", "hand[P1]"))
    assert not any("(mirror)" in t for t in st.legal_action_strings())       # the Mirror is in the hand
    put(st, ("Mirror s1", "gear[P1]"))
    assert "strike P2 with Peach h12 as Strike (mirror)" in st.legal_action_strings()


def test_a_converted_card_knows_its_cards_its_values_and_its_conversion(lab):
    st = new(lab, 3, ("Peach h12", "hand[P1]"), ("Mirror s1", "gear[P1]"))
    action = next(a for a in st.legal_actions() if a.text == "strike P2 with Peach h12 as Strike (mirror)")
    assert dict(action.params)["s"]["giver"] == card(st, "Mirror s1")  # the card whose ability it is
    st.apply(action)
    assert var(st, "last_strike_cards") == [card(st, "Peach h12")]
    assert var(st, "last_strike_via") == "mirror" and var(st, "last_strike_colour") == "red"
    assert labels(st, "discard") == ["Peach h12"]


def test_two_cards_as_one_and_the_real_card(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Rock c9", "hand[P1]"))
    texts = st.legal_action_strings()
    assert "strike P2 with Strike s7" in texts and "strike P2 with Strike s7 + Rock c9 as a Strike" in texts
    st.apply("strike P2 with Strike s7 + Rock c9 as a Strike")
    assert sorted(var(st, "last_strike_cards")) == sorted([card(st, "Strike s7"), card(st, "Rock c9")])
    assert var(st, "last_strike_via") == "double"
    st2 = new(lab, 3, ("Strike s7", "hand[P1]"))
    st2.apply("strike P2 with Strike s7")
    assert var(st2, "last_strike_via") == "" and var(st2, "last_strike_colour") == "black"


def test_a_conversion_without_cards_and_its_requirement(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Lantern h1", "gear[P2]"))
    st.apply("strike P2 with Strike s7")
    assert st.current_player == 1 and "dodge with Dodge (lantern)" in st.legal_action_strings()
    st.apply("dodge with Dodge (lantern)")
    assert var(st, "lantern_used") == [False, True, False] and var(st, "life") == [4, 4, 4]


# ---------------------------------------------------------------------- rule values
def test_rule_values_combine_contributions_of_working_cards(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Strike c2", "hand[P1]"), ("Blade d1", "hand[P1]"))
    st.apply("strike P2 with Strike s7")                        # P2 holds no card: not asked
    with pytest.raises(IllegalActionError, match="no more strikes this turn"):
        st.apply("strike P2 with Strike c2")
    put(st, ("Blade d1", "gear[P1]"))                            # equipped: strike_limit is max(1, 3)
    assert "strike P2 with Strike c2" in st.legal_action_strings()


def test_a_card_that_adds_to_a_distance(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Cloak c1", "gear[P2]"))
    assert "strike P2 with Strike s7" not in st.legal_action_strings()
    assert "strike P3 with Strike s7" in st.legal_action_strings()
    with pytest.raises(IllegalActionError, match="too far"):
        st.apply("strike P2 with Strike s7")


# ---------------------------------------------------------------------- entries with data
def test_entry_fields_are_read_and_changed_by_responses(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Dodge d2", "hand[P2]"), ("Dodge h5", "hand[P2]"))
    st.apply("strike P2 with Strike s7")
    entry = st.entry(st.stack[-1])
    assert entry[7] == {"damage": 1, "dodges": 1}
    st.apply("dodge with Dodge d2")                             # dodges 1 -> 0: cancelled
    assert var(st, "life") == [4, 4, 4] and "the strike misses" in st.log_lines()


def test_a_card_in_a_hidden_zone_gives_a_response_and_changes_the_entry(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Rock c9", "hand[P2]"), ("Oath c11", "generals[P2]"))
    st.apply("strike P2 with Strike s7")
    assert "parry with Rock c9" in st.legal_action_strings()
    st.apply("parry with Rock c9")                              # damage 1 -> 0; the window moves on
    assert st.stack == [] and var(st, "life") == [4, 4, 4]
    assert "   wound resolves" in st.log_lines()


def test_resolve_runs_an_effect_and_its_window_at_once(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Peach h12", "hand[P3]"))
    st.vars[st.prog.var_index["life"]][1] = 1
    st.apply("strike P2 with Strike s7")                        # P2 holds no card: not asked
    # the wound resolves at once inside the strike, and the dying plea inside the wound:
    # everyone from the active player is asked for a Peach
    assert st.in_window() and st.current_player == 2
    assert st.legal_action_strings() == ["save P2 with Peach h12", "no response"]
    st.apply("save P2 with Peach h12")
    assert var(st, "life") == [4, 1, 4] and "P2 falls" not in st.log_lines()


# ---------------------------------------------------------------------- windows
def test_a_mandatory_window_offers_no_way_out(lab):
    st = new(lab, 3, ("Rock c9", "hand[P2]"), ("Rock s3", "hand[P2]"))
    st.apply("demand a card from P2")
    assert st.current_player == 1 and st.legal_action_strings() == ["show Rock c9", "show Rock s3"]
    st.apply("show Rock s3")
    assert st.is_revealed(card(st, "Rock s3")) and "Rock s3" in st.observation(0)["zones"]["hand[P2]"]["shown"]


def test_a_player_with_a_hidden_card_that_could_answer_is_asked(lab):
    # P2's general is face down (only P2 sees it): the other players must not learn whether it
    # can parry, so P2 is asked in the strike's window even with nothing to parry with
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Oath c11", "generals[P2]"))
    st.apply("strike P2 with Strike s7")
    assert st.in_window() and st.current_player == 1 and st.legal_action_strings() == ["no response"]
    # and P3, with no card at all, is never asked
    st.apply("no response")
    assert not st.in_window()


def test_a_face_down_card_asks_its_owner_only_where_such_a_card_could_answer(lab):
    # the last stand answers only its owner's own dying: were P3's face-down general an Oath, P3
    # still could not answer P2's dying, so P3 is not asked (and nobody learns anything) ...
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Oath c11", "generals[P3]"))
    var(st, "life")[1] = 1
    st.apply("strike P2 with Strike s7")         # P2 holds nothing: no window for the strike either
    assert not st.in_window() and var(st, "life")[1] == 0
    # ... but when P3 is dying, P3 is asked whatever their general is
    for general in ("Oath c11", "Rock c9"):
        st = new(lab, 3, ("Strike s7", "hand[P1]"), (general, "generals[P3]"))
        var(st, "life")[2] = 1
        st.apply("strike P3 with Strike s7")
        assert st.in_window() and st.current_player == 2
        st.apply("no response")                  # the strike itself
        assert st.in_window() and st.current_player == 2, general   # P3's own dying
        assert st.legal_action_strings() == (["last stand", "no response"] if general == "Oath c11" else ["no response"])


def test_a_player_whose_card_is_revealed_is_asked_only_if_they_can_answer(lab):
    # the same Oath, shown to everyone: everybody knows P2 cannot parry without a Rock, and P2's
    # hand is empty, so nothing is hidden and nobody is asked
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Oath c11", "generals[P2]"))
    st.shown.append(card(st, "Oath c11"))
    st.apply("strike P2 with Strike s7")
    assert not st.in_window()
    # with a Rock in hand (hidden from the others) P2 is asked again, and may parry
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Oath c11", "generals[P2]"), ("Rock c9", "hand[P2]"))
    st.shown.append(card(st, "Oath c11"))
    st.apply("strike P2 with Strike s7")
    assert st.in_window() and st.current_player == 1 and "parry with Rock c9" in st.legal_action_strings()


# ---------------------------------------------------------------------- abilities as actions
def test_an_action_a_card_gives_only_while_it_is_in_its_zone(lab):
    st = new(lab, 3, ("Rock c9", "hand[P1]"), ("Oath c11", "hand[P1]"))
    assert not any(t.startswith("vow") for t in st.legal_action_strings())
    put(st, ("Oath c11", "generals[P1]"))
    assert "vow with Rock c9" in st.legal_action_strings()
    st.apply("vow with Rock c9")
    assert var(st, "life")[0] == 5 and var(st, "vowed")[0] is True
    assert not any(t.startswith("vow") for t in st.legal_action_strings())


def test_a_phase_requirement_applies_to_all_its_actions(lab):
    st = new(lab, 3)
    st.vars[st.prog.var_index["life"]][0] = 0
    st._legal = None
    assert st.legal_action_strings() == []
    with pytest.raises(IllegalActionError, match="a player at 0 life cannot act"):
        st.apply("end the turn")


def test_states_with_entries_round_trip_mid_window(lab):
    st = new(lab, 3, ("Strike s7", "hand[P1]"), ("Dodge d2", "hand[P2]"))
    st.apply("strike P2 with Strike s7")
    text = st.to_json()
    assert State.from_json(text, lab).to_json() == text and st.clone().to_json() == text


def test_random_games_keep_every_property(lab):
    for seed in range(15):
        st = lab.new_state(players=2 + seed % 3, seed=seed)
        deck = list(st.zones[zone(st, "deck")])
        rng = random.Random(seed)
        rng.shuffle(deck)
        for i, c in enumerate(deck):  # deal everything out, and the special cards too
            st.move_cards([c], zone(st, f"hand[P{i % st.n + 1}]"), False)
        for i, name in enumerate(["Blade d1", "Cloak c1", "Mirror s1", "Lantern h1"]):
            put(st, (name, f"gear[P{i % st.n + 1}]"))
        put(st, ("Oath c11", f"generals[P{st.n}]"))
        steps = 0
        while not st.is_terminal():
            assert check_state(st, log_from=None if steps % 5 == 0 else len(st.log) - 1) == [], steps
            st.apply(rng.choice(st.legal_actions()))
            steps += 1
            assert steps < 400


def test_a_scenario_position_may_hold_a_stack(tmp_path):
    from rulespec.tools.scenario import load_file, run_scenario
    sc = tmp_path / "stack.yaml"
    sc.write_text(f"""rules: {LAB}
players: 3
position:
  phase: play
  active: P1
  rest: deck
  zones: {{"hand[P2]": [Dodge, Dodge]}}
  stack:
    - {{effect: strike, by: P1, target: P2, cards: [Strike], fields: {{dodges: 2}}}}
steps:
  - expect: {{active: P2}}
  - play: dodge with Dodge d2
  - note: one Dodge is not enough for a strike that needs two; the target was asked once
    expect: {{active: P1, vars: {{life: [4, 3, 4]}}, log_lacks: the strike misses}}
""")
    run_scenario(load_file(sc)[0])


@pytest.mark.parametrize("extra,message", [
    ('card "Z" { while in pool { trigger zz on e { n += 1 } } }', "zone 'pool' is shared"),
    ('conversion x as "X" { from c: int in 1..3 }', "a conversion is made 'from' a card or cards"),
    ('rule r(): int = 1 combine avg', "unknown way to combine 'avg'"),
    ('rule s(p: player): bool = false combine sum', "'sum' combines numbers, not bool"),
    ('modify nope() = 1', "unknown rule value 'nope'"),
    ('action c() { effect { stack eff(unknown = 1) } }', "effect 'eff' has no field 'unknown'"),
    ('trigger t before moved { n += 1 }', "a trigger can run 'on' or 'after' it, not 'before'"),
    ('action d2() { effect { prevent } }', "'prevent' stops an event from a trigger"),
    ('action g() { effect { let r = emit e(1)  n += r.nope } }', "the record of event 'e' has no field 'nope'"),
    ('action h(u: use "Nope" from hand[active]) { effect { n += 1 } }', "no card and no conversion is called 'Nope'"),
    ('action w() { effect { stack_top.cards = [] } }', "a stack entry's 'cards' cannot be assigned"),
    ('action b() { effect { let x = choose active: cards from hand[active] ordered } }', "'ordered' goes with a players"),
])
def test_the_checker_explains_misuse_of_the_new_constructs(extra, message):
    from rulespec.lang.checker import check_text
    from rulespec.lang.diagnostics import RulesError
    base = """game "B" { players 2..2 start p cards start in box }
card "X" { copies: 2 }
zone box: pile hidden
zone hand[player]: set owner
zone pool: pile public
var n: int = 0
event e(k: int)
effect eff(m: int = 1) { resolve { n += this.m } }
action a() { effect { n += 1 } }
phase p { actions a end when n > 3 next q }
phase q { enter { end game } }
"""
    with pytest.raises(RulesError) as err:
        check_text(base + extra, "b.rules")
    assert message in str(err.value) and "b.rules:12:" in str(err.value)


# ---------------------------------------------------------------------- rule values while listing
def test_a_rule_value_is_computed_once_per_arguments_while_actions_are_listed(lab, monkeypatch):
    from interpreter.abilities import CRule
    st = new(lab, 4, ("Strike s7", "hand[P1]"), ("Strike h10", "hand[P1]"))  # two Strikes x three targets
    calls = []
    orig = CRule._value
    monkeypatch.setattr(CRule, "_value", lambda self, s, args: calls.append((self.name, tuple(args))) or orig(self, s, args))
    texts = st.legal_action_strings()
    assert sum(t.startswith("strike") for t in texts) >= 6
    assert ("distance", (0, 1)) in calls
    assert len(calls) == len(set(calls))      # the same rule and arguments: read once
    calls.clear()
    st.prog.rules["distance"].value(st, [0, 1])
    st.prog.rules["distance"].value(st, [0, 1])
    assert len(calls) == 2                    # outside a listing nothing is remembered


def test_a_rule_that_draws_a_random_number_is_never_memoised():
    from interpreter import load_text
    text = (Path(LAB).read_text()
            .replace('rule distance(a: player, b: player): int = 1 combine sum',
                     'rule distance(a: player, b: player): int = random([1, 1]) combine sum'))
    g = load_text(text, "lab_random.rules")
    assert g.prog.rules["strike_limit"].pure and not g.prog.rules["distance"].pure


# ---------------------------------------------------------------------- sure there is nothing to choose
def test_a_choice_of_a_named_card_is_skipped_only_when_no_such_card_is_at_hand(lab):
    from interpreter.cardsets import nothing_to_choose
    st = new(lab, 3)
    give = st.prog.actions["give_peach"].params[0]          # 'where c.name == "Peach"'
    strike = st.prog.actions["use_strike"].params[0]        # 'use "Strike"': conversions to Strike exist
    me = st.active
    if any(st.prog.card_names[c] == "Peach" for c in st.zones[zone(st, f"hand[P{me + 1}]")]):
        st.move_cards([c for c in st.zones[zone(st, f"hand[P{me + 1}]")] if st.prog.card_names[c] == "Peach"],
                      zone(st, "discard"), False)
    assert nothing_to_choose(st.prog, give, st, {}, me)
    assert not nothing_to_choose(st.prog, strike, st, {}, me)
    put(st, ("Peach h12", f"hand[P{me + 1}]"))
    assert not nothing_to_choose(st.prog, give, st, {}, me)


def test_a_hidden_zone_is_never_sure_to_offer_nothing(lab):
    from interpreter.cardsets import nothing_to_choose
    st = new(lab, 3)
    give = st.prog.actions["give_peach"].params[0]
    other = (st.active + 1) % st.n
    put(st, ("Strike s7", f"hand[P{st.active + 1}]"))            # no Peach, but a card `other` cannot see
    assert nothing_to_choose(st.prog, give, st, {}, st.active)
    assert not nothing_to_choose(st.prog, give, st, {}, other)  # another's hand: face-down cards
