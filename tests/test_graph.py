"""The phase graph: reachability, ways to end the game, idle loops, and the Mermaid / DOT output."""
from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest

from rulespec.lang.checker import check_file, check_text
from rulespec.tools.cli import main
from rulespec.lang.diagnostics import RulesError
from rulespec.lang.graph import source_text, to_dot, to_mermaid
from rulespec.lang.model import END

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"

HEAD = '''\
game "G" {{ players 2..3 start {start} }}
var n: int = 0
action go() {{ effect {{ n += 1 }} }}
action stop() {{ effect {{ end game }} }}
'''


def rules(phases: str, start: str = "a") -> str:
    return HEAD.format(start=start) + phases


def diags(text: str):
    try:
        return check_text(text, "g.rules").warnings
    except RulesError as e:
        return e.diagnostics


def messages(text: str, severity: str) -> list[str]:
    return [d.message for d in diags(text) if d.severity == severity and "declares no card" not in d.message
            and "can never be taken" not in d.message]


def edges(model) -> set:
    return {(a, b) for a, b in model.graph.edges}


# ---------------------------------------------------------------- structure
def test_charuma_graph():
    model = check_file(CHARUMA)
    g = model.graph
    assert isinstance(g, nx.DiGraph)
    assert set(g.nodes) == set(model.phases) | {END}
    assert {("setup", "deal"), ("deal", "bidding"), ("deal", "family_groups"), ("bidding", "trick"),
            ("trick", "trick"), ("trick", "score_round"), ("score_round", "deal"), ("score_round", END)} <= edges(model)
    assert g.edges["deal", "bidding"]["label"] == "bidding"
    assert g.edges["deal", "family_groups"]["label"] == "otherwise"
    assert g.nodes["trick"]["has_actions"] and not g.nodes["setup"]["has_actions"]
    assert nx.has_path(g, model.start_phase, END)


def test_edges_follow_next_clauses_and_end_game():
    model = check_text(rules('''
phase a { enter { n = 1 } next b when n > 0 next c }
phase b { actions go, stop end when n > 3 next a }
phase c { enter { if n > 2 { end game } } next a }
'''))
    assert edges(model) == {("a", "b"), ("a", "c"), ("b", "a"), ("b", END), ("c", "a"), ("c", END)}
    assert model.graph.edges["a", "b"]["label"] == "n > 0"
    assert model.graph.edges["b", END]["label"] == "end game"


def test_two_conditional_nexts_to_one_phase_share_an_edge():
    model = check_text(rules('''
phase a { actions go end when n > 1 next b when n > 5 next b when n < 0 next c }
phase b { enter { end game } }
phase c { enter { end game } }
'''))
    assert model.graph.edges["a", "b"]["label"] == "n > 5 or n < 0"


def test_end_game_inside_a_loop_or_branch_counts():
    model = check_text(rules('''
phase a { enter { for p in players { if n > 1 { n = 0 } elif n < 0 { } else { end game } } } next a }
'''))
    assert ("a", END) in edges(model)


def test_an_action_that_ends_the_game_is_an_edge_to_the_end():
    model = check_text(rules("phase a { actions stop, go end when n > 9 next a }\n"))
    assert ("a", END) in edges(model)


# ---------------------------------------------------------------- reachability
def test_unreachable_phase_is_a_warning():
    text = rules('''
phase a { actions go, stop end when n > 2 next a }
phase island { enter { end game } }
''')
    assert messages(text, "warning") == ["phase 'island' is unreachable from the start phase 'a'"]
    assert messages(text, "error") == []
    check_text(text)  # warnings alone pass


def test_start_defaults_to_the_first_phase():
    text = HEAD.replace(" start {start}", "").format() + '''
phase first { enter { end game } }
phase second { enter { end game } }
'''
    model = check_text(text)
    assert model.start_phase == "first"
    assert [d.message for d in model.warnings if "unreachable" in d.message] == [
        "phase 'second' is unreachable from the start phase 'first'"]


# ---------------------------------------------------------------- reaching the end
def test_a_game_that_can_never_end_is_an_error():
    text = rules('''
phase a { actions go end when n > 2 next b }
phase b { actions go end when n > 4 next a }
''')
    assert messages(text, "error") == ["the game can never end: no path from the start reaches 'end game'"]


def test_every_reachable_phase_must_be_able_to_reach_the_end():
    text = rules('''
phase a { actions go end when n > 2 next b when n > 5 next done }
phase b { actions go end when n > 4 next c }
phase c { actions go end when n > 6 next b }
phase done { enter { end game } }
''')
    assert messages(text, "error") == ["once in phase 'b' the game can never end",
                                       "once in phase 'c' the game can never end"]


def test_a_phase_with_no_way_out():
    text = rules('''
phase a { actions go end when n > 2 next b when n > 3 next done }
phase b { actions go end when n > 4 }
phase done { enter { end game } }
''')
    errs = messages(text, "error")
    assert errs == ["phase 'b' has no 'next' and never ends the game"]  # reported once, not twice


def test_a_next_to_an_unknown_phase_causes_no_follow_on_errors():
    text = rules("phase a { actions go, stop end when n > 2 next nowhere }\n")
    assert messages(text, "error") == ["unknown phase 'nowhere'"]


# ---------------------------------------------------------------- idle loops
def test_a_loop_without_decisions_or_statements_is_an_error():
    text = rules('''
phase a { next b }
phase b { next c }
phase c { next a when n == 0 next done }
phase done { enter { end game } }
''')
    assert messages(text, "error") == [
        "the phases a -> b -> c -> a can loop forever without a player decision or a change of state"]


def test_next_to_itself_without_anything_is_an_idle_loop():
    text = rules("phase a { next a when n == 0 next done }\nphase done { enter { end game } }\n")
    assert messages(text, "error") == [
        "the phases a -> a can loop forever without a player decision or a change of state"]


def test_each_idle_loop_is_reported():
    text = rules('''
phase a { next b next x }
phase b { next a next done }
phase x { next y }
phase y { next x next done }
phase done { enter { end game } }
''')
    errs = messages(text, "error")
    assert errs == ["the phases a -> b -> a can loop forever without a player decision or a change of state",
                    "the phases x -> y -> x can loop forever without a player decision or a change of state"]


def test_a_loop_with_a_decision_or_a_statement_is_fine():
    with_action = rules("phase a { actions go, stop end when n > 1 next b }\nphase b { next a }\n")
    assert messages(with_action, "error") == []
    with_statement = rules("phase a { enter { n += 1 } next b }\nphase b { enter { if n > 9 { end game } } next a }\n")
    assert messages(with_statement, "error") == []


def test_many_idle_phases_are_analysed_quickly():
    # all-to-all edges between idle phases: exponentially many simple cycles, one strongly connected component
    names = [f"p{i}" for i in range(14)]
    body = "".join(f"phase {a} {{ {' '.join(f'next {b} when n == {j}' for j, b in enumerate(names))} next done }}\n"
                   for a in names)
    text = rules(body + "phase done { enter { end game } }\n", start="p0")
    errs = [m for m in messages(text, "error") if "loop forever" in m]
    assert len(errs) == 1


# ---------------------------------------------------------------- output
def test_mermaid_has_every_phase_and_edge():
    model = check_file(CHARUMA)
    text = to_mermaid(model)
    assert text.startswith("flowchart TD\n")
    for phase in model.phases:
        assert re.search(rf'^\s+p_{phase}(\(\[|\[)"{phase}"', text, re.M), phase
    assert "END(((end of game)))" in text
    assert f"START(( )) --> p_{model.start_phase}" in text
    for a, b in model.graph.edges:
        src = "END" if a == END else f"p_{a}"
        dst = "END" if b == END else f"p_{b}"
        assert re.search(rf"^\s+{src} -->(\|\"[^\"]*\"\| )? ?{dst}$", text, re.M), (a, b)
    assert 'p_deal -->|"bidding"| p_bidding' in text
    assert 'p_score_round -->|"end game"| END' in text


def test_dot_has_every_phase_and_edge():
    model = check_file(CHARUMA)
    text = to_dot(model)
    assert text.startswith('digraph "Charuma" {')
    assert text.rstrip().endswith("}")
    for phase in model.phases:
        assert re.search(rf'^\s+"{phase}" \[shape=(box|ellipse)\];$', text, re.M), phase
    assert '"(end)" [shape=doublecircle];' in text
    assert f'"(start)" -> "{model.start_phase}";' in text
    for a, b in model.graph.edges:
        assert re.search(rf'^\s+"{re.escape(a)}" -> "{re.escape(b)}"( \[label="[^"]*"\])?;$', text, re.M), (a, b)
    assert '"trick" -> "trick" [label="count(open[leader]) + count(hand[leader]) > 0"];' in text


def test_output_quotes_awkward_text():
    text = HEAD.format(start="a").replace('game "G"', r'game "Say \"hi\" \\ there"') + '''
phase a { actions go, stop end when n > 1 next a when n != 2 and "x\\"y" == "z" }
'''
    model = check_text(text)
    dot = to_dot(model)
    assert dot.startswith(r'digraph "Say \"hi\" \\ there" {')
    edge = [line for line in dot.splitlines() if line.strip().startswith('"a" -> "a"')][0]
    assert re.fullmatch(r'\s+"a" -> "a" \[label="(\\.|[^"\\])*"\];', edge), edge
    mermaid = to_mermaid(model)
    edge = [line for line in mermaid.splitlines() if line.strip().startswith("p_a -->|")][0]
    assert edge.count('"') == 2, edge


def test_source_text_of_spans():
    src = "line one\nx = a +\n   b\n"
    from rulespec.lang.ast import Span
    assert source_text(src, Span(1, 6, 1, 9)) == "one"
    assert source_text(src, Span(2, 5, 3, 5)) == "a + b"
    assert source_text(src, Span(9, 1, 9, 2)) == "?"
    assert source_text("a\x0cb\nc", Span(2, 1, 2, 2)) == "c"  # a form feed is not a line break


def test_graph_command(capsys, tmp_path):
    assert main(["graph", str(CHARUMA)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("flowchart TD") and "p_score_round" in out
    assert main(["graph", "--format", "dot", str(CHARUMA)]) == 0
    assert capsys.readouterr().out.startswith('digraph "Charuma"')
    target = tmp_path / "g.dot"
    assert main(["graph", "--format", "dot", "-o", str(target), str(CHARUMA)]) == 0
    assert target.read_text(encoding="utf-8").startswith('digraph "Charuma"')


@pytest.mark.parametrize("fmt", ["mermaid", "dot"])
def test_graph_command_on_a_bad_file(capsys, tmp_path, fmt):
    bad = tmp_path / "bad.rules"
    bad.write_text(rules("phase a { next nowhere }\n"), encoding="utf-8")
    assert main(["graph", "--format", fmt, str(bad)]) == 1
    err = capsys.readouterr().err
    assert re.match(rf"^{re.escape(str(bad))}:\d+:\d+: error: unknown phase 'nowhere'", err)
