"""Zone capacities (`zone NAME: KIND VISIBILITY, at most N cards`): the checker takes 1 or more and
refuses the rest at the clause; both engines refuse a move beyond the capacity before any card
moves (a rules error at the statement); a scenario position cannot overfill such a zone; the
rulebook says it.  tests/rules/capacity_lab.rules, tests/scenarios/capacity_lab/."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from interpreter.errors import RuleRuntimeError
from interpreter.game import load
from rulespec.lang.checker import check_file, check_text
from rulespec.lang.diagnostics import RulesError
from rulespec.tools.docs import to_markdown
from rulespec.tools.scenario import ScenarioError, load_file, run_scenario

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "tests" / "rules" / "capacity_lab.rules"


def test_the_lab_declares_its_capacities():
    zones = check_file(str(LAB)).zones
    assert (zones["slot"].capacity, zones["row"].capacity, zones["hand"].capacity) == (1, 2, None)


@pytest.mark.parametrize("clause, message", [
    ("at most 0 cards", "zone 'row' would hold at most 0 cards"),
    ("at most -1 cards", "zone 'row' would hold at most -1 cards"),
    ("at most x cards", "expected a number"),
    ("at most 2", "expected 'card' or 'cards'"),  # (at the next declaration)
])
def test_a_bad_capacity_is_an_error_at_its_place(clause, message):
    text = LAB.read_text().replace("at most 2 cards", clause)
    with pytest.raises(RulesError) as info:
        check_text(text, "lab.rules")
    [d] = [d for d in info.value.diagnostics if d.severity == "error"]
    line = text.count("\n", 0, text.index(clause)) + 1
    assert message in d.render() and line <= d.span.line <= line + 2, d.render()
    assert re.match(r"lab\.rules:\d+:\d+: error", d.render())


def test_the_rulebook_says_how_many_cards_a_zone_holds():
    book = to_markdown(check_file(str(LAB)))
    assert "a set (order does not matter), holding at most 1 card" in book
    assert "an ordered pile, holding at most 2 cards" in book


def _seated(engine: str):
    """P1 has put a card in their slot and P2 passed: P1 to act, with two cards in hand."""
    st = load(LAB, engine=engine).new_state(2, seed=1, options={"broken": True})
    st.apply(next(a.text for a in st.legal_actions() if a.text.startswith("seat")))
    st.apply("pass")
    return st


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
@pytest.mark.parametrize("action, line, message", [
    ("crowd", "effect { move c to slot[active] }", "zone 'slot[P1]' holds at most 1 card; this move would put 2 in it"),
    ("flood", "effect { deal 3 from deck to row }", "zone 'row' holds at most 2 cards; this move would put 3 in it"),
])
def test_a_move_beyond_the_capacity_is_a_rules_error_at_the_move(engine, action, line, message):
    st = _seated(engine)
    slot = list(st.zones[st.prog.zone_base["slot"]])
    text = LAB.read_text()
    n = text.count("\n", 0, text.rindex(line)) + 1  # (crowd comes after seat, which reads the same)
    col = len(text.split("\n")[n - 1]) - len(text.split("\n")[n - 1].lstrip()) + line.index(line.split("{ ")[1]) + 1
    with pytest.raises(RuleRuntimeError) as info:
        st.apply(next(a.text for a in st.legal_actions() if a.text.startswith(action)))
    assert str(info.value) == f"{LAB}:{n}:{col}: runtime error: {message}"
    # refused before any card moved: every card in one zone, the slot as it was
    assert sorted(c for z in st.zones for c in z) == list(range(9))
    assert all(st.where[c] == zi for zi, z in enumerate(st.zones) for c in z)
    assert st.zones[st.prog.zone_base["slot"]] == slot


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_filling_a_zone_up_to_its_capacity_is_fine(engine):
    st = _seated(engine)
    st.apply("lay")
    st.apply("lay")
    assert len(st.zones[st.prog.zone_base["row"]]) == 2 and "lay" not in st.legal_action_strings()


def _scenario(tmp_path, body: str):
    p = tmp_path / "case.yaml"
    p.write_text(f"rules: {LAB}\nplayers: 2\noptions: {{broken: true}}\n" + textwrap.dedent(body), encoding="utf-8")
    [sc] = load_file(p)
    return sc


def test_a_position_cannot_overfill_a_zone(tmp_path):
    sc = _scenario(tmp_path, """\
        position:
          phase: turn
          rest: deck
          zones:
            slot[P1]: [one, two]
        steps:
          - legal: pass
        """)
    with pytest.raises(ScenarioError, match=r"case\.yaml:8: impossible position: zone 'slot\[P1\]' holds at most 1 card, "
                                            r"the position puts 2 there"):
        run_scenario(sc)


@pytest.mark.parametrize("steps, message", [
    ("- fails: pass", "expected 'pass' to meet an error of the rules, but the engine applied it"),
    ("- fails: crowd one\n  because: at most 3", "expected the error to mention 'at most 3', got: "),
    ("- fails: crowd one\n- legal: pass", "a 'fails' step is the last"),
    ("- legal: pass\n  because: x", "'because' goes with an 'illegal' or a 'fails' step"),
])
def test_a_fails_step_expects_a_rules_error(tmp_path, steps, message):
    sc = _scenario(tmp_path, textwrap.dedent("""\
        position:
          phase: turn
          active: P1
          rest: deck
          zones:
            hand[P1]: [one]
            slot[P1]: [two]
        steps:
        """) + textwrap.indent(steps, "  ") + "\n")
    with pytest.raises(ScenarioError, match=re.escape(message)):
        run_scenario(sc)
