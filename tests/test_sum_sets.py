"""'cards from ZONES ... sum PROP == E': a set choice listing only the sets whose values of a number
property add up to E, cut off while it is built (interpreter/cardsets.py, _sum_choices).  Checked
against every subset filtered afterwards, for random tables, and through the checker, the rulebook
and the illegal-move message."""
from __future__ import annotations

import random
from itertools import combinations

import pytest

from interpreter import IllegalActionError, load_text
from rulespec.lang.checker import check_text
from rulespec.tools.docs import to_markdown
from rulespec.lang.errors import RulesError

RULES = '''
game "Sums" {
  players 1..2
  start play
  cards start in deck
}
property value: int
property colour: text
card "One" { value: 1  colour: "red"  copies: 4 }
card "Two" { value: 2  colour: "red"  copies: 3 }
card "Three" { value: 3  colour: "black"  copies: 3 }
card "Five" { value: 5  colour: "black"  copies: 2 }
card "Zero" { value: 0  colour: "black"  copies: 2 }
option goal: int = 6 "The total a set must make."
zone deck: pile hidden
zone table: set public
zone taken: pile public
var done: bool = false
action take(ts: cards from table SIZE sum value == goal) {
  text "take {ts}"
  effect { move ts to taken
           done = true }
}
action stop() { effect { done = true } }
phase play {
  enter { shuffle deck
          deal 9 from deck to table }
  actions take, stop
  end when done
  next over
}
phase over { enter { end game } next over }
'''


def game(size: str = "size 1..9"):
    return load_text(RULES.replace("SIZE", size), "sums.rules")


def brute(st, goal: int, sizes) -> set:
    """Every set of table cards of those sizes adding up to goal, as sorted name tuples."""
    names, vals = st.prog.card_names, st.prog.card_props["value"]
    table = st.zones[st.prog.zone_base["table"]]
    out = set()
    for k in sizes:
        for cs in combinations(table, k):
            if sum(vals[c] for c in cs) == goal:
                out.add(tuple(sorted(names[c] for c in cs)))
    return out


def listed(st) -> list:
    names = st.prog.card_names
    return [tuple(sorted(names[c] for c in a.params[0][1])) for a in st.legal_actions() if a.name == "take"]


@pytest.mark.parametrize("size,sizes", [("size 1..9", range(1, 10)), ("size 2..3", (2, 3)), ("size 4", (4,))])
def test_the_listed_sets_are_exactly_the_subsets_that_add_up(size, sizes):
    g = game(size)
    for seed in range(40):
        goal = random.Random(seed).randint(0, 14)
        st = g.new_state(players=1, seed=seed, options={"goal": goal})
        got = listed(st)
        assert len(got) == len(set(got))  # alike cards (two Ones) give one choice, not two
        assert set(got) == brute(st, goal, sizes), (seed, goal)


def test_a_set_that_does_not_add_up_is_refused_with_the_reason():
    g = game()
    st = g.new_state(players=1, seed=1, options={"goal": 6})
    table = sorted(st.prog.card_names[c] for c in st.zones[st.prog.zone_base["table"]])
    before = st.to_json()
    wrong = next(n for n in table if st.prog.card_props["value"][st.prog.card_names.index(n)] != 6)
    with pytest.raises(IllegalActionError):
        st.apply(f"take {wrong}")
    assert st.to_json() == before


def test_the_rulebook_says_what_the_set_adds_up_to():
    text = to_markdown(game().model)
    assert "whose value adds up to the goal option" in text, text


@pytest.mark.parametrize("selector,message", [
    ("sum worth == goal", "unknown card property 'worth'"),
    ("sum colour == goal", "adds up a number property; 'colour' is text"),
    ('sum value == "six"', "the total a set's values must add up to"),
    ("same colour sum value == goal", "cannot also be 'same' or 'distinct'"),
])
def test_the_checker_explains_a_wrong_sum(selector, message):
    text = RULES.replace("SIZE sum value == goal", "size 1..3 " + selector)
    with pytest.raises(RulesError) as e:
        check_text(text, "bad.rules")
    assert any(message in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]
    d = next(d for d in e.value.diagnostics if message in d.message)
    assert d.span.line == text[:text.index("action take")].count("\n") + 1
