"""Tests of the scenario runner itself (rulespec/tools/scenario/) and of `rulespec test`."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import textwrap
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from rulespec.tools.scenario import ScenarioError, load_file, run_file, run_scenario
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "games" / "charuma.rules"

# A 3-player bidding position: P1 to bid with 5 points, everything else fixed.
HEADER = f"""\
rules: {RULES}
players: 3
position:
  phase: bidding
  active: P1
  rest: aside
  keep: [box]
  zones:
    group[P1]: [red 6, red 7]
    hand[P1]: [red A, blue A]
  vars: {{holder: P1, points: [5, 5, 5]}}
"""


def write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def run_one(path: Path):
    scenarios = load_file(path)
    assert len(scenarios) == 1
    return run_scenario(scenarios[0])


def error_of(path: Path) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        run_one(path)
    msg = str(info.value)
    assert "\n" not in msg and "Traceback" not in msg
    return info.value


def line_of(path: Path, needle: str) -> int:
    """The number of the last line that contains needle."""
    found = [i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    assert found, needle
    return found[-1]


def run_cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------- passing scenarios
def test_a_good_scenario_passes_and_returns_the_state(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - play: bid 2 on group 3
          - expect:
              active: P2
              vars: {points: [3, 5, 5], bidder: [none, none, P1], bid: {P3: 2}}
              zones: {"group[P1]": [red 7, red 6], "hand[P1]": [blue A, red A]}
              counts: {box: 8}
        """))
    st = run_one(p)
    assert st.vars[st.prog.var_index["points"]] == [3, 5, 5]


def test_position_keeps_every_card_somewhere(tmp_path):
    p = write(tmp_path, HEADER + "steps: []\n")
    st = run_one(p)
    assert sorted(c for z in st.zones for c in z) == list(range(st.prog.card_count))
    for zi, z in enumerate(st.zones):
        for c in z:
            assert st.where[c] == zi
    names = st.prog.card_names
    slot = {s.name: s.index for s in st.prog.slots}
    assert sorted(names[c] for c in st.zones[slot["group[P1]"]]) == ["red 6", "red 7"]
    assert len(st.zones[slot["box"]]) == 8            # kept
    assert len(st.zones[slot["aside"]]) == 40 - 8 - 4  # the rest
    assert st.phase == "bidding" and st.active == 0


def test_a_trick_in_progress_can_be_placed(tmp_path):
    p = write(tmp_path, f"""\
        rules: {RULES}
        players: 3
        position:
          phase: trick
          active: P3
          rest: aside
          keep: [box]
          plays:
            trick: [[P1, [red 6]], [P2, [red 8]]]
          zones:
            open[P3]: [red 7, blue 9]
            open[P1]: [blue 2]
            open[P2]: [blue 3]
          vars: {{leader: P1}}
        steps:
          - expect:
              plays: {{trick: [[P1, [red 6]], [P2, [red 8]]]}}
              counts: {{trick: 2}}
          - legal_exactly: [follow red 7 (open)]
          - play: follow red 7 (open)
          - expect:
              active: P2
              vars: {{leader: P2, round_points: [0, 1, 0]}}
              zones: {{"won[P2]": [red 6, red 8, red 7], trick: []}}
              plays: {{trick: []}}
        """)
    run_one(p)


def test_cards_after_plus_may_be_written_in_any_order(tmp_path):
    p = write(tmp_path, f"""\
        rules: {RULES}
        players: 3
        position:
          phase: trick
          active: P1
          rest: aside
          keep: [box]
          zones:
            open[P1]: [red 8, blue 8]
            hand[P1]: [red 9]
            open[P2]: [red 2]     # hands differ by at most 2 cards in a trick (an invariant)
            open[P3]: [blue 2]
        steps:
          - legal: [lead red 8 (open) + blue 8 (open), lead blue 8 (open) + red 8 (open)]
          - play: lead blue 8 (open) + red 8 (open)
          - expect: {{plays: {{trick: [[P1, [red 8, blue 8]]]}}}}
        """)
    run_one(p)


def test_a_choice_of_cards_only_matches_in_any_order():
    from interpreter.explain import match_action
    legal = ["Wine ♠9 + Strike ♠7 + Dodge ♦8", "Wine ♠9 + Strike ♠7", "Strike ♠7 + Dodge ♦8"]
    for text in ("Dodge ♦8 + Wine ♠9 + Strike ♠7", "Strike ♠7 + Dodge ♦8 + Wine ♠9"):
        assert match_action(text, legal) == legal[0]
    assert match_action("Strike ♠7 + Wine ♠9", legal) == legal[1]
    assert match_action("Dodge ♦8 + Strike ♠7 + Peach ♥6", legal) is None


def test_several_documents_are_several_scenarios(tmp_path):
    p = write(tmp_path, HEADER + "name: first\n---\n" + HEADER + "name: second\nsteps:\n  - expect: {active: P2}\n")
    results = run_file(p)
    assert [name for name, _ in results] == ["first", "second"]
    assert results[0][1] is None
    err = results[1][1]
    assert err is not None and err.line == 2 * HEADER.count("\n") + 5
    assert "active: expected P2, got P1" in str(err)


# ---------------------------------------------------------------------- failures name file and line
def test_a_wrong_expectation_fails_with_file_line_expected_and_actual(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - play: bid 1 on group 2
          - expect:
              active: P2
              vars:
                points: [5, 5, 5]
        """))
    err = error_of(p)
    # the offending node is the 'points' inside the expectation, not the position's
    want_line = len(p.read_text().splitlines())
    assert err.line == want_line
    assert err.path == os.path.relpath(p) or err.path == str(p)
    assert str(err) == f"{err.path}:{want_line}: vars.points: expected [5, 5, 5], got [4, 5, 5]"


def test_a_wrong_zone_expectation_lists_missing_and_extra_cards(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - expect:
              zones:
                group[P1]: [red 6, red 8]
        """))
    err = error_of(p)
    assert err.line == line_of(p, "group[P1]: [red 6, red 8]")
    assert "zone group[P1]: expected [red 6, red 8], got [red 6, red 7]" in str(err)
    assert "missing [red 8]" in str(err) and "not expected [red 7]" in str(err)


def test_an_illegal_play_fails_with_the_engines_reason(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - play: bid 1 on group 2
          - play: bid 1 on group 2
        """))
    err = error_of(p)
    assert err.line == HEADER.count("\n") + 3
    assert "'bid 1 on group 2' is illegal for P2" in str(err)
    assert "raising that bid" in str(err)


def test_an_illegal_step_fails_when_the_action_is_legal(tmp_path):
    p = write(tmp_path, HEADER + "steps:\n  - illegal: bid 5 on group 1\n")
    err = error_of(p)
    assert err.line == HEADER.count("\n") + 2
    assert "expected 'bid 5 on group 1' to be illegal, but it is legal" in str(err)


def test_an_illegal_step_checks_the_reason(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - illegal: bid 3 on group 1
            because: no such reason
        """))
    p.write_text(p.read_text().replace("points: [5, 5, 5]", "points: [2, 5, 5]"))
    err = error_of(p)
    assert "expected the reason to mention 'no such reason'" in str(err)
    assert "cannot bid more points than you hold" in str(err)


def test_legal_count_and_legal_exactly(tmp_path):
    p = write(tmp_path, HEADER + "steps:\n  - legal_count: 18\n  - legal_exactly: [bid 0 on group 1]\n")
    err = error_of(p)
    assert err.line == HEADER.count("\n") + 3
    assert "legal_exactly: 17 more actions are legal" in str(err)


def test_log_expectations(tmp_path):
    p = write(tmp_path, HEADER + textwrap.dedent("""\
        steps:
          - play: [bid 1 on group 2, bid 2 on group 2]
          - expect: {log_contains: P1 is outbid on group 2 and takes back 1 points, log_lacks: P2 is outbid}
          - expect: {log_contains: nothing like this}
        """))
    err = error_of(p)
    assert err.line == HEADER.count("\n") + 4
    assert "log_contains: no log line contains 'nothing like this'" in str(err)


@pytest.mark.parametrize("body, needle, message", [
    ("steps:\n  - play: bid 1 on group 2\n  - expect: {zones: {\"hand[P1]\": [red 11]}}\n",
     "red 11", "unknown card 'red 11'"),
    ("steps:\n  - expect: {zones: {\"hand[P1]\": [Red A]}}\n", "Red A", "did you mean 'red A'?"),
    ("steps:\n  - expect: {zones: {\"hnd[P1]\": []}}\n", "hnd", "unknown zone 'hnd[P1]'; did you mean 'hand[P1]'?"),
    ("steps:\n  - expect: {counts: {hand: 2}}\n", "hand: 2", "'hand' is a per-player zone"),
    ("steps:\n  - expect: {counts: {\"hand[P4]\": 2}}\n", "hand[P4]", "there is no P4 in a 3-player game"),
    ("steps:\n  - expect: {vars: {pionts: [5, 5, 5]}}\n", "pionts", "unknown variable 'pionts'; did you mean 'points'?"),
    ("steps:\n  - expect: {vars: {points: [5, 5]}}\n", "[5, 5]", "one value per player (3), not 2"),
    ("steps:\n  - expect: {phase: biding}\n", "biding", "unknown phase 'biding'; did you mean 'bidding'?"),
    ("steps:\n  - expect: {activ: P1}\n", "activ", "unknown key 'activ' in expect; did you mean 'active'?"),
    ("steps:\n  - expect: {active: P7}\n", "P7", "there is no P7 in a 3-player game"),
    ("stepz: []\n", "stepz", "unknown key 'stepz' in a scenario; did you mean 'steps'?"),
    ("steps:\n  - play: bid 1 on group 2\n    expect: {active: P2}\n", "- play", "exactly one of"),
    ("steps:\n  - legal: bid 9 on group 1\n", "bid 9", "'bid 9 on group 1' is not a legal action for P1"),
])
def test_bad_scenarios_give_one_clear_line(tmp_path, body, needle, message):
    p = write(tmp_path, HEADER + body)
    err = error_of(p)
    assert message in str(err)
    assert err.line == line_of(p, needle)
    assert str(err).startswith(f"{p}:{err.line}: ") or str(err).startswith(f"{os.path.relpath(p)}:{err.line}: ")


def test_unknown_card_in_a_position(tmp_path):
    p = write(tmp_path, HEADER.replace("[red A, blue A]", "[red A, blue Z]") + "steps: []\n")
    err = error_of(p)
    assert err.line == line_of(p, "blue Z")
    assert "unknown card 'blue Z'" in str(err)


def test_too_many_copies_of_a_card(tmp_path):
    p = write(tmp_path, HEADER.replace("[red A, blue A]", "[red A, red A, red A]") + "steps: []\n")
    err = error_of(p)
    assert "too many 'red A' cards: the game has 2" in str(err)


def test_a_kept_card_cannot_be_placed(tmp_path):
    p = write(tmp_path, HEADER.replace("[red A, blue A]", "[red 4]") + "steps: []\n")
    err = error_of(p)
    assert "too many 'red 4' cards: the game has 2 (2 kept in box)" in str(err)


SETUP_LAB = ROOT / "tests" / "rules" / "setup_lab.rules"


def test_a_position_names_only_copies_the_setup_holds(tmp_path):
    """Copies a setup leaves out ('copies: EXPR' of the player count and options) cannot be placed."""
    none = write(tmp_path, f"rules: {SETUP_LAB}\nplayers: 3\nposition:\n  zones:\n    hand[P1]: [Joker]\n")
    err = error_of(none)
    assert err.line == 5 and "card 'Joker' has no copy in this game (with 3 players and jokers = false)" in str(err)
    fewer = write(tmp_path, f"rules: {SETUP_LAB}\nplayers: 3\nposition:\n  zones:\n    hand[P1]: [King, King]\n",
                  "fewer.yaml")
    assert "too many 'King' cards: the game has 1 (with 3 players)" in str(error_of(fewer))
    four = write(tmp_path, f"rules: {SETUP_LAB}\nplayers: 4\nposition:\n  zones:\n    hand[P1]: [King, King]\n"
                           f"steps:\n  - expect: {{counts: {{stock: 5}}}}\n", "four.yaml")
    run_one(four)  # 2 Aces, 3 Queens left: the fourth Queen (five players) is out of this game


def test_missing_rules_file(tmp_path):
    p = write(tmp_path, "rules: nowhere.rules\nsteps: []\n")
    err = error_of(p)
    assert err.line == 1 and "no rules file at" in str(err)


def test_bad_option(tmp_path):
    p = write(tmp_path, f"rules: {RULES}\noptions: {{biding: false}}\n")
    err = error_of(p)
    assert err.line == 2 and "unknown option 'biding'" in str(err) and "did you mean 'bidding'" in str(err)


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    p = write(tmp_path, f"rules: {RULES}\nsteps:\n  - play: [bid 1 on group 2\n  - expect: {{active: P2}}\n")
    with pytest.raises(ScenarioError) as info:
        load_file(p)
    msg = str(info.value)
    assert "YAML syntax error" in msg and "\n" not in msg
    assert info.value.line in (3, 4, 5)
    assert msg.startswith(f"{p}:{info.value.line}:") or msg.startswith(f"{os.path.relpath(p)}:{info.value.line}:")


def test_unquoted_zone_in_flow_mapping_gets_a_hint(tmp_path):
    p = write(tmp_path, f"rules: {RULES}\nsteps:\n  - expect: {{counts: {{hand[P1]: 2}}}}\n")
    with pytest.raises(ScenarioError) as info:
        load_file(p)
    assert info.value.line == 3
    assert 'write zone names in quotes' in str(info.value)


def test_text_with_colon_gets_a_hint(tmp_path):
    p = write(tmp_path, HEADER + "steps:\n  - expect:\n      log_lacks:\n        - P1 says: hello\n")
    err = error_of(p)
    assert err.line == line_of(p, "P1 says")
    assert "put text that contains ': ' in quotes" in str(err)
    p = write(tmp_path, HEADER + "steps:\n  - expect:\n      log_contains: P1 says: hello\n")
    with pytest.raises(ScenarioError) as info:
        load_file(p)
    assert info.value.line == line_of(p, "P1 says")
    assert "put text that contains ': ' in quotes" in str(info.value)


# ---------------------------------------------------------------------- the command line
def test_cli_test_passes_a_good_directory(tmp_path):
    write(tmp_path, HEADER + "name: good one\nsteps:\n  - expect: {active: P1}\n", "a.yaml")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", HEADER + "name: good two\n", "b.yaml")
    code, out, _ = run_cli("test", str(tmp_path))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("ok   good one")
    assert lines[1].startswith("ok   good two")
    assert lines[-1] == "2 passed, 0 failed"


def test_cli_test_fails_with_one_line_per_scenario(tmp_path):
    good = write(tmp_path, HEADER + "name: good\n", "good.yaml")
    bad = write(tmp_path, HEADER + "name: bad\nsteps:\n  - expect: {active: P3}\n", "bad.yaml")
    broken = write(tmp_path, "rules: [\n", "broken.yaml")
    code, out, err = run_cli("test", str(good), str(bad), str(broken))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("ok   good")
    assert lines[1].startswith("FAIL bad: ") and "active: expected P3, got P1" in lines[1]
    assert lines[1].endswith(f"bad.yaml:{line_of(bad, 'active: P3')}: active: expected P3, got P1")
    assert lines[2].startswith("FAIL ") and "YAML syntax error" in lines[2]
    assert lines[3] == "1 passed, 2 failed"
    assert "Traceback" not in out + err


def test_cli_test_missing_path_and_empty_directory(tmp_path):
    code, out, _ = run_cli("test", str(tmp_path / "nope.yaml"))
    assert code == 1 and "no such file" in out and out.splitlines()[-1] == "0 passed, 1 failed"
    (tmp_path / "empty").mkdir()
    code, out, _ = run_cli("test", str(tmp_path / "empty"))
    assert code == 1 and "no scenario files found" in out


def test_cli_test_runs_the_charuma_scenarios():
    code, out, _ = run_cli("test", str(ROOT / "tests" / "scenarios" / "charuma"))
    assert code == 0, out
    passed = int(out.splitlines()[-1].split()[0])
    assert passed >= 30


# ---------------------------------------------------------------------- pytest collects scenarios
def test_pytest_reports_a_failing_scenario_with_the_runners_message(tmp_path):
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "scenarios").mkdir()
    bad = write(tmp_path / "scenarios", HEADER + "name: bad one\nsteps:\n  - expect: {active: P2}\n", "bad.yaml")
    write(tmp_path / "scenarios", HEADER + "name: good one\n", "good.yaml")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
                           "-c", os.devnull, str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "2 failed, 2 passed" in out  # each scenario runs on both engines
    assert f"bad.yaml:{line_of(bad, 'active: P2')}: active: expected P2, got P1" in out
    assert "Traceback" not in out


def test_a_position_cannot_place_a_labelled_copy_its_setup_leaves_out(tmp_path):
    rules = tmp_path / "labelled.rules"
    rules.write_text('game "L" { players 2..3 start go cards start in deck label c: "{c.name} {c.n}" }\n'
                     'property n: int\ncard "A" { n: 1 copies: player_count - 2 }\ncard "B" { n: 2 copies: 2 }\n'
                     'zone deck: pile hidden\nzone hand[player]: set owner\n'
                     'action end_it() { effect { end game } }\n'
                     'phase go { actions end_it  after { active = next_player(active) } next go }\n', encoding="utf-8")
    three = write(tmp_path, f"rules: {rules}\nplayers: 3\nposition:\n  zones:\n    hand[P1]: [A 1]\n")
    run_one(three)
    two = write(tmp_path, f"rules: {rules}\nplayers: 2\nposition:\n  zones:\n    hand[P1]: [A 1]\n", "two.yaml")
    assert "copy 'A 1' is not in this game (with 2 players)" in str(error_of(two))
