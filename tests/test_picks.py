"""Choices of cards the chooser may not see (tests/rules/pick_lab.rules): face-down picks `by
position` as values (markers.py), in JSON and in the AI adapters' spelling; both engines list
them alike, with the generated listers (no fallback to the reference)."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from interpreter import State, load
from interpreter.markers import any_marker, marker_count, marker_index, marker_text, marker_zone, position_marker
from rulespec.tools.ai.action_codes import ActionCodec

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "pick_lab.rules")


@pytest.fixture(scope="module")
def lab():
    return load(LAB)


def _hand(st, p: int) -> int:
    return st.prog.zone_base["hand"] + p


def test_markers_say_their_zone_and_place_and_nothing_else(lab):
    prog = lab.prog
    zi = prog.zone_base["hand"] + 1
    m = position_marker(prog, zi, 2)
    assert (marker_zone(prog, m), marker_index(prog, m)) == (zi, 2)
    assert marker_text(prog, m) == "face-down card 3 of hand[P2]"
    assert marker_index(prog, any_marker(prog, zi)) == -1
    assert marker_text(prog, any_marker(prog, zi)) == "a face-down card of hand[P2]"
    last = position_marker(prog, len(prog.slots) - 1, prog.card_count - 1)
    assert prog.card_count <= m < last < marker_count(prog.card_count, len(prog.slots))


def test_a_pending_choice_by_position_survives_json_and_is_spelt_with_its_place(lab):
    st = lab.new_state(players=2, seed=3)
    while st.current_player != 0:
        st.apply("pass")
    st.apply("give to P2")
    texts = st.legal_action_strings()
    assert texts == [f"face-down card {k} of hand[P1]" for k in (1, 2, 3)]
    again = State.from_json(st.to_json(), lab)
    assert again.legal_action_strings() == texts
    codec = ActionCodec(lab, 2)
    spelt = [codec.text(codec.spell(st, a)) for a in st.legal_actions()]
    assert spelt == [f"answer face-down card of hand[P1] number {k}" for k in (1, 2, 3)]
    third = st.zones[_hand(st, 0)][2]
    again.apply("face-down card 3 of hand[P1]")
    assert again.zones[_hand(again, 1)][-1] == third  # the very card at that place, nothing drawn


def test_a_saved_choice_may_not_offer_values_past_the_markers(lab):
    st = lab.new_state(players=2, seed=3)
    while st.current_player != 0:
        st.apply("pass")
    st.apply("give to P2")
    d = json.loads(st.to_json())
    d["pending"]["options"][0] = marker_count(lab.prog.card_count, len(lab.prog.slots))
    with pytest.raises(Exception, match="offers"):
        State.from_json(json.dumps(d), lab)


def test_both_engines_list_the_lab_alike_with_generated_listers():
    compiled, reference = load(LAB, engine="compiled"), load(LAB, engine="interpreted")
    prog = compiled.prog
    assert set(prog.listers) == set(prog.actions)
    before = prog.listing_fallbacks[0]
    seen: set = set()
    for seed in range(8):
        players = 2 + seed % 2
        a, b = compiled.new_state(players=players, seed=seed), reference.new_state(players=players, seed=seed)
        rng = random.Random(seed)
        while not a.is_terminal():
            la, lb = [tuple(x) for x in a.legal_actions()], [tuple(x) for x in b.legal_actions()]
            assert la == lb, (seed, la, lb)
            seen.update(t for _, _, t in la)
            text = la[rng.randrange(len(la))][2]
            a.apply(text)
            b.apply(text)
        assert a.to_json() == b.to_json()
    assert prog.listing_fallbacks[0] == before
    for start in ("play face-down card 3 of", "play_pair face-down card 1 of", "steal P", "discard nothing",
                  "discard "):
        assert any(t.startswith(start) for t in seen), start


BLIND = """game "Blind" {
  players 2..2
  start deal
  cards start in deck
}
property value: int
card "one" { value: 1 }
card "five" { value: 5 }
card "six" { value: 6 }
card "two" { value: 2 }
zone deck: pile hidden
zone hand[player]: pile hidden
zone out: pile public
action grab(c: card from hand[active] where c.value > 2, t: player where t != active, n: int in 1..2 where n > c.value) {
  require count(out) > 10 or c.value > 100
  text "grab {c} for {t} ({n})"
  effect { move c to out }
}
action pass() { effect { } }
phase deal {
  enter { for p in players { deal 2 from deck to hand[p] } }
  next play
}
phase play {
  actions grab, pass
  end when count(out) > 0
  next over
}
phase over { enter { end game } }
"""


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_conditions_that_read_a_face_down_pick_do_not_apply_to_it(engine):
    """A 'where', a later 'where' and a requirement reading a card picked face down neither fail nor
    filter (the chooser could not check them); the text names the pick as the chooser sees it; an
    illegal filling is explained by the condition that does apply."""
    from interpreter.game import Game
    from rulespec.lang.checker import check_text
    game = Game(check_text(BLIND, "blind.rules"), "blind.rules", engine=engine)
    st = game.new_state(players=2, seed=1)
    assert st.legal_action_strings() == ["grab a face-down card of hand[P1] for P2 (1)",
                                         "grab a face-down card of hand[P1] for P2 (2)", "pass"]
    why = st.explain_illegal("grab a face-down card of hand[P1] for P1 (1)")
    assert "t = P1 breaks 'where t != active'" in why
    st.apply("grab a face-down card of hand[P1] for P2 (2)")
    assert len(st.zones[st.prog.zone_base["out"]]) == 1


def test_the_rulebook_says_a_requirement_is_not_checked_on_a_face_down_pick():
    from rulespec.tools.docs import to_markdown
    text = to_markdown(load(LAB).model)
    assert "c's value is more than 2 (otherwise: “only a card above 2 may be stolen”), not checked when c is " \
           "picked face down" in text
    assert "(a face-down one is picked by its place: card 1 is the one put there first)" in text
    assert "cards from the active player's secret, 0 to 2 of them" in text


EMPTY_SET_RULES = """
game "Empty sets" { players 2..2  cards start in stock }
zone stock: pile hidden
zone table: pile public
card "a" { copies: 2 }
action take(cs: cards from table size 0..2) {
  effect { move cs to stock  let more = choose active: cards from table size 0..2  log "chose {count(more)} more"  end game }
}
phase go { actions take  end when false  next go }
"""


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_the_empty_set_reads_nothing_and_alone_is_not_asked(tmp_path, engine):
    """`size 0..N` of an empty public zone: the action reads "take nothing", and a choice whose
    only set is the empty one is no choice at all (nothing to choose, as everyone can see)."""
    path = tmp_path / "empty_sets.rules"
    path.write_text(EMPTY_SET_RULES)
    st = load(str(path), engine=engine).new_state(players=2, seed=0)
    assert st.legal_action_strings() == ["take nothing"]
    st.apply("take nothing")
    assert st.is_terminal()
    assert ["text", "chose 0 more"] in st.log


CONVERSION_RULES = """
game "Conversions" { players 2..2  cards start in stock }
zone stock: pile hidden
zone hand[player]: set owner
zone out: pile public
card "Peach" { copies: 4 }
card "Strike" { copies: 4 }
conversion borrow as "Strike" { from c: card from hand[next_player(owner)] }
action strike(u: use "Strike" from hand[active]) { effect { move u.cards to out  end game } }
phase deal { enter { for p in players { deal 3 from stock to hand[p] } } next turn }
phase turn { actions strike  end when false  next turn }
"""


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_conversion_never_uses_a_card_its_user_cannot_see(tmp_path, engine):
    """A conversion from another player's hidden hand offers nothing (it used to stop listing
    with an IndexError): the used card could not be shown, nor its values read."""
    path = tmp_path / "conversions.rules"
    path.write_text(CONVERSION_RULES)
    st = load(str(path), engine=engine).new_state(players=2, seed=0)  # P1: 3 Strikes, P2: Strike + 2 Peaches
    assert st.legal_action_strings() == ["strike Strike"]
