"""Why an action is illegal (issue P5 §7): the explanation names the action the text belongs to,
never another action whose text starts the same way."""
from __future__ import annotations

import pytest

from interpreter import IllegalActionError, load_text

AIM = """game "Aim" { players 2..2 start go cards start in deck }
property v: int
card "A" { v: 2 }
card "B" { v: 1 }
zone deck: pile hidden
zone hand[player]: set owner
var n: int = 0
action aim(c: card from hand[active] where c.v == 1, t: player where t != active) {
  text "play {c} on {t}"
  effect { n += 1 }
}
action plain(c: card from hand[active]) {
  text "play {c}"
  require n > 100 else "only late in the game"
  effect { n += 1 }
}
action rest() { effect { n += 1 } }
phase go {
  enter { move deck to hand[active] }
  actions aim, plain, rest
  end when n > 3
  next done
}
phase done { enter { end game } }
"""


def test_the_explanation_belongs_to_the_action_the_text_is_from():
    st = load_text(AIM).new_state(players=2)
    # "play A on P1" can only come from 'aim' (A has v 2, so aim does not offer it): not a legal
    # action -- and never plain's "only late in the game", although "play {c}" starts alike
    with pytest.raises(IllegalActionError) as e:
        st.apply("play A on P2")
    assert "only late in the game" not in str(e.value)
    # the choice's 'where' that the filling breaks is named, with its source
    assert "not a legal action" in str(e.value) and "c = A breaks 'where c.v == 1'" in str(e.value)
    with pytest.raises(IllegalActionError, match="t = P1 breaks 'where t != active'"):
        st.apply("play B on P1")
    with pytest.raises(IllegalActionError, match="only late in the game"):
        st.apply("play A")
    st.apply("play B on P2")


def test_a_response_outside_a_window_is_explained_as_such(tmp_path):
    from pathlib import Path
    lab = load_text(Path(__file__).with_name("rules").joinpath("stack_lab.rules").read_text(),
                    "stack_lab.rules")
    st = lab.new_state(players=3, seed=0, options={"c1": 1})
    with pytest.raises(IllegalActionError, match="no response window is open"):
        st.apply("counter Counter")


PAIR = """game "Pair" { players 2..2 start go cards start in deck }
property v: int
card "A" { v: 1 }
card "B" { v: 2 }
card "C" { v: 3 }
zone deck: pile hidden
zone hand[player]: set owner
zone pile: pile public
var n: int = 0
action pair(cs: cards from hand[active] size 2) {
  text "pair {cs}"
  require (sum c in cs: c.v) > 3 else "the pair must add up to more than 3"
  effect { move cs to pile
           n += 1 }
}
phase go {
  enter { move deck to hand[active] }
  actions pair
  end when n > 0
  next done
}
phase done { enter { end game } }
"""


def test_the_explanation_is_found_whatever_order_the_cards_are_written_in():
    st = load_text(PAIR).new_state(players=2)
    for text in ("pair A + B", "pair B + A"):  # the engine writes the first
        with pytest.raises(IllegalActionError, match="the pair must add up to more than 3"):
            st.apply(text)
    st.apply("pair A + C")
    assert st.is_terminal()
