"""Fuzz failures that name their cause (rulespec/tools/fuzzing/cause.py): a counterfactual secrecy
failure names the rules line where the game as played and its re-deal part (the `if` on a hidden
hand, the zone it reads, what the viewer then sees differ), in the text report, the JSON, the
replay file and the scenario; a game that does not end names the positions it repeats.  The
planted lab: tests/rules/secrecy_cause.rules."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from rulespec.tools.fuzzing.cause import Positions, _cycle

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "secrecy_cause.rules")
WINDOW = str(ROOT / "tests" / "rules" / "secrecy_window.rules")
PLANTED = str(ROOT / "tests" / "rules" / "secrecy_planted.rules")
RANDOM = str(ROOT / "tests" / "rules" / "secrecy_random.rules")


def line_of(path: str, text: str) -> int:
    """The line of the first line of `path` holding `text`."""
    return next(i for i, line in enumerate(Path(path).read_text().split("\n"), 1) if text in line)


def first_cause(game, games: int = 16, options=None):
    result = F.fuzz(game, games, options=options)
    f = next(f for f in result.failures() if f.check == S.CHECK)
    return F.explain(game, f, options, result.max_steps).cause


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_leak_names_the_if_that_reads_the_hidden_hand(engine):
    cause = first_cause(interpreter.load(LAB, engine=engine))
    line = line_of(LAB, "if holds_ace(next_player(active))")
    assert cause["parted"] and (cause["line"], cause["col"]) == (line, 5), cause
    assert {cause["arms"]["played"], cause["arms"]["redealt"]} == {
        "if holds_ace(next_player(active)) (then)", "if holds_ace(next_player(active)) (else)"}
    assert cause["reads"] and all(r.startswith("hand[") for r in cause["reads"])
    assert f"secrecy_cause.rules:{line}:5 `if holds_ace(next_player(active))` took another branch" in cause["text"]
    assert "which P" in cause["text"] and "to act" in cause["differs"]


def test_a_relabelled_re_deal_is_traced_from_its_first_decision(monkeypatch):
    """Where the setup does not deal the re-deal again, the dealt position is relabelled: its
    setup is not run again, so only the actions are compared (not a setup that 'parts')."""
    game = interpreter.load(LAB)
    result = F.fuzz(game, 16)
    f = next(f for f in result.failures() if f.check == S.CHECK)
    monkeypatch.setattr(S, "dealt_again", lambda *a, **k: None)
    cause = F.explain(game, f, {}, result.max_steps).cause
    assert cause["line"] == line_of(LAB, "if holds_ace(next_player(active))") and cause["decision"] >= 1, cause


def test_a_re_deal_the_setup_refused_leaves_no_setup_in_the_trace(monkeypatch):
    """A setup that does not deal the re-deal again has run nonetheless (into the trace it was
    given) before it was refused; the relabelled world starts from the first decision, and that
    refused setup is no part of its trace.  (It was: the re-deal's trace began with a setup the
    game as played had not, and the cause read 'the runs part in the setup', line 1 of the
    setup phase, for San Guo Sha's Tửu Sắc at decision 90.)"""
    game = interpreter.load(LAB)
    options = {"leak": False, "boast": True}  # no branch parts in the action: the log statement is named
    result = F.fuzz(game, 20, options=options)
    f = next(f for f in result.failures() if f.check == S.CHECK)
    dealt = S.dealt_again

    def refused(*args, **kwargs):
        dealt(*args, **kwargs)  # the setup runs into the coverage counter, then the deal is refused
        return None
    monkeypatch.setattr(S, "dealt_again", refused)
    cause = F.explain(game, f, options, result.max_steps).cause
    assert "in the setup" not in cause["text"], cause["text"]
    assert cause["line"] == line_of(LAB, "passes holding") and cause["decision"] >= 1, cause


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_random_pick_that_took_another_card_names_its_random(monkeypatch, engine):
    """No branch parts, but a random pick among hidden cards took another card in the re-deal and
    no other outcome of it was tried (the check tries them: here it is kept from it, as for a pick
    no outcome puts back in step): the cause names the `random(...)` and the zone its list reads,
    through the `let` that named the list -- not the setup, nor only the action's positions."""
    monkeypatch.setattr(S, "MAX_STEERED", 0)
    cause = first_cause(interpreter.load(RANDOM, engine=engine), games=40)
    line = line_of(RANDOM, "move random(reds) to table")
    assert (cause["line"], cause["col"]) == (line, 12), cause
    assert f"secrecy_random.rules:{line}:12 `random(reds)` took another item in the re-deal" in cause["text"]
    assert cause["reads"] == ["hand[P2]"] and "which P1 cannot see" in cause["text"], cause


def test_a_condition_on_a_let_reads_what_the_let_read():
    """`if count(reds) > 0` reads hand[...] through `let reds = collect c in cards(hand[...]) ...`:
    the cause names the hand, as for a def (San Guo Sha's Tửu Sắc: `if count(blacks) > 0`)."""
    cause = first_cause(interpreter.load(RANDOM), games=200, options={"quiet": True})
    line = line_of(RANDOM, "if count(reds) > 0")
    assert (cause["line"], cause["col"]) == (line, 5) and "took another branch" in cause["text"], cause
    assert cause["reads"] and all(r.startswith("hand[") for r in cause["reads"]), cause
    assert "it reads hand, which P" in cause["text"]


def test_the_announced_twin_is_clean():
    game = interpreter.load(LAB)
    fair = F.fuzz(game, 30, options={"leak": False})
    assert fair.ok and fair.totals.cf_worlds > 0, [f.message for f in fair.failures()]


def test_a_window_names_its_ask():
    cause = first_cause(interpreter.load(WINDOW))
    assert cause["line"] == line_of(WINDOW, "  ask if leak then"), cause
    assert "the `ask` of effect spell chose whom its window asks" in cause["text"] and cause["reads"]


def test_a_variable_set_from_a_hidden_hand_names_its_assignment():
    cause = first_cause(interpreter.load(PLANTED), games=6)
    assert cause["parted"] is False and cause["line"] == line_of(PLANTED, "if leak { hint = next_hand_value() }")
    assert "`hint = next_hand_value()` sets hint from hidden cards" in cause["text"], cause
    assert cause["reads"] and "vars.hint" in cause["differs"]


@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_log_text_that_reads_a_hidden_hand_names_its_statement(engine):
    cause = first_cause(interpreter.load(LAB, engine=engine), games=20, options={"leak": False, "boast": True})
    line = line_of(LAB, "passes holding")
    assert cause["parted"] is False and cause["line"] == line, cause
    assert f"secrecy_cause.rules:{line}:16 log \"{{active}} passes holding {{aces(active)}} Aces\"" in cause["text"]
    assert cause["reads"] and "log differs" in cause["differs"]


def test_an_endless_game_names_the_positions_it_repeats(tmp_path):
    game = interpreter.load(LAB)
    options = {"leak": False, "endless": True}
    result = F.fuzz(game, 2, options=options, max_steps=40)
    f = result.failures()[0]
    assert f.check == "termination"
    f, _ = F.shrink(game, f, options, max_steps=40)
    cause = F.explain(game, f, options, 40).cause
    check, ask = line_of(LAB, "action check()"), line_of(LAB, "if holds_ace(next_player(active))")
    assert cause["decisions"] >= 1 and cause["text"].startswith("the game repeats"), cause
    assert any(f"secrecy_cause.rules:{check}:1 action check" in r for r in cause["repeats"])
    assert any(f"secrecy_cause.rules:{ask}:5 if holds_ace" in r for r in cause["repeats"])
    assert f"stays in phase turn, whose `end when turns >= 8 and endless == false`" in cause["text"]
    rj, _ = F.write_failure(game, f, options, 40, tmp_path)  # `rulespec replay` names it again
    out = F.run_replay(game, F.read_replay(rj))
    assert F.replay_cause(game, F.read_replay(rj), out)["repeats"] == cause["repeats"]


def test_the_cause_reaches_the_report_the_json_the_replay_and_the_scenario(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "fuzz", "tests/rules/secrecy_cause.rules",
                        "--games", "16", "--out", str(out),
                        "--json", str(tmp_path / "r.json")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 1, r.stderr
    line = line_of(LAB, "if holds_ace(next_player(active))")
    assert f"  cause:    tests/rules/secrecy_cause.rules:{line}:5" in r.stdout, r.stdout
    cause = json.loads((tmp_path / "r.json").read_text())["causes"][S.CHECK]
    assert cause["line"] == line and cause["file"] == "tests/rules/secrecy_cause.rules"
    replay = json.loads(next(out.glob("*.replay.json")).read_text())
    assert replay["failure"]["cause"]["line"] == line
    assert f"# cause: tests/rules/secrecy_cause.rules:{line}:5" in next(out.glob("*.yaml")).read_text()
    rj = next(out.glob("*.replay.json"))
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "replay", str(rj)], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 1 and "the recorded failure reproduces" in r.stdout, r.stdout + r.stderr
    assert "cause: " in r.stdout and f"secrecy_cause.rules:{line}:5 `if holds_ace" in r.stdout, r.stdout


def test_plain_play_runs_the_plain_program():
    game = interpreter.load(LAB)
    assert game.new_state(players=3, seed=1).prog is game.prog
    traced = Positions()
    st = game.new_state(players=3, seed=1, coverage=traced)
    assert st.prog is game.program(branches=True) and traced.events[0] == "phase:setup"
    st.apply(st.legal_action_strings()[0])
    assert traced.events[-1] != "phase:setup" and sum(traced.values()) == len(traced.events)


def test_a_cycle_is_the_shortest_block_repeated_from_a_decision():
    d = "decision:"
    assert _cycle(["x", d, "a", "b", d, "a", "b", d, "a", "b"]) == [d, "a", "b"]
    assert _cycle(["a", "b", "c"]) is None


@pytest.mark.parametrize("name", ["games/sanguosha.rules", "games/chuhan.rules", "tests/rules/secrecy_cause.rules"])
def test_both_engines_trace_the_same_positions(name):
    """The position trace (branch arms, log statements, rules) is the same on both engines."""
    import random
    traces = []
    for engine in ("compiled", "interpreted"):
        game = interpreter.load(str(ROOT / name), engine=engine)
        traced = Positions()
        players = min(max(game.model.min_players, 3), game.model.max_players)
        st = game.new_state(players=players, seed=5, coverage=traced)
        rng = random.Random(1)
        for _ in range(200):
            if st.terminal:
                break
            acts = st.legal_action_strings()
            st.apply(acts[rng.randrange(len(acts))])
        traces.append(traced.events)
    assert traces[0] == traces[1]
    assert any(e.startswith("log:") for e in traces[0]) and any(e.startswith("branch:") for e in traces[0])
