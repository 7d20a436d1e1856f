"""Reliability fixes found by an audit (issue P4b): each test failed before its fix.

1. legal_actions() hands out the caller's own list; a clone owns its own.
2. play and replay print the log in time linear in the game's length.
3. fuzz checks cost the same per decision however long the game (a game that never ends
   fails within seconds, shrunk to a short replay).
4. An action with too many ways to fill its choices stops with an error naming it (and the
   checker warns where it can count them).
5. The human prompt survives odd input.
6. State.from_json validates what it is given.
7. new_state and observation validate their arguments.
8. load() caches by content, not by time stamp.
9. replay files are validated (version, max_steps, player count, cut actions).
10. fuzz arguments and output files are checked before a run; file errors name the file;
    a repeated --option is an error; `fuzz | head` exits 0.
11. Playing no card records no play.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter.state as state_module
from interpreter import IllegalActionError, RuleRuntimeError, State, load, load_text
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.ai.agents import HumanAgent
from rulespec.tools.fuzzing.checks import check_cards, check_round_trip, full_round_trip_due
from interpreter.game import OptionError
from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
from interpreter.serialise import StateFormatError
from rulespec.lang.checker import check_text
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = str(ROOT / "games" / "charuma.rules")
CHUHAN = str(ROOT / "games" / "chuhan.rules")

LOOP = """game "Loop" { players 2..2 start turn } var n: int = 0  action pass() { effect { n += 1 } }
phase turn { actions pass after { active = next_player(active) } end when n < 0 next done }
phase done { enter { end game } }"""


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def loop_file(tmp_path) -> Path:
    p = tmp_path / "loop.rules"
    p.write_text(LOOP, encoding="utf-8")
    return p


# ---------------------------------------------------------------------- 1
def test_legal_actions_is_the_callers_own_list():
    st = load(CHARUMA).new_state(players=3, seed=1)
    legal = st.legal_actions()
    last = legal.pop()
    st.legal_actions().clear()
    st.apply(last)  # still legal, and still known to the state
    assert st.history == [last.text]


def test_a_clone_owns_its_legal_actions():
    st = load(CHARUMA).new_state(players=3, seed=1)
    st.legal_actions()
    c = st.clone()
    c.legal_actions().clear()
    assert st.legal_actions() and not st.is_terminal()
    st.apply(st.legal_actions()[0])
    assert c.legal_actions() and c.history == []


# ---------------------------------------------------------------------- 2
def count_renders(monkeypatch) -> list:
    calls = [0]
    real = State._render

    def counted(self, e, viewer):
        calls[0] += 1
        return real(self, e, viewer)
    monkeypatch.setattr(State, "_render", counted)
    return calls


def test_play_prints_the_log_in_linear_time(loop_file, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # the replay of the unfinished game is written here
    calls = count_renders(monkeypatch)
    code, out, err = run("play", loop_file, "--max-steps", "2000")
    assert code == 1 and "the game did not end within 2000 decisions" in err
    assert (tmp_path / "loop-unfinished-seed0.replay.json").exists()
    # each log entry is rendered once (quadratic printing rendered about 2000 * 4000 / 2)
    assert calls[0] < 10_000


def test_log_lines_from_an_index():
    st = load(CHARUMA).new_state(players=3, seed=1)
    for _ in range(5):
        st.apply(st.legal_actions()[0])
    k = len(st.log) - 3
    assert st.log_lines(None, k) == [line for e in st.log[k:] for line in [st._render(e, None)] if line]


def test_replay_prints_the_log_in_linear_time(loop_file, tmp_path, monkeypatch):
    result = F.fuzz(load(str(loop_file)), 1, max_steps=1500)
    f, _ = F.shrink(load(str(loop_file)), result.failures()[0], {}, max_steps=1500)
    rj, _ = F.write_failure(load(str(loop_file)), f, {}, 1500, tmp_path)
    calls = count_renders(monkeypatch)
    code, out, _ = run("replay", rj)
    assert code == 1 and "the recorded failure reproduces" in out
    assert calls[0] < 10_000


# ---------------------------------------------------------------------- 3
def test_full_round_trips_are_logarithmically_rare():
    assert sum(full_round_trip_due(k) for k in range(20_000)) <= 16


def test_an_incremental_round_trip_does_not_grow_with_the_game(monkeypatch):
    st = load_text(LOOP).new_state(players=2, seed=0)
    sizes = []
    real = State.from_json

    def measured(text, game=None):
        sizes.append(len(text))
        return real(text, game)
    monkeypatch.setattr(State, "from_json", staticmethod(measured))
    for k in range(3000):
        if k in (100, 2999):
            assert check_round_trip(st, log_from=len(st.log)) == []
        st.apply("pass")
    assert abs(sizes[0] - sizes[1]) < 20  # the history and log (3,000 entries) are not serialised


def test_a_game_that_never_ends_fails_fast_with_a_short_replay(loop_file, tmp_path):
    out_dir = tmp_path / "out"
    code, out, _ = run("fuzz", loop_file, "--games", "2", "--max-steps", "2000", "--out", out_dir, "-q")
    assert code == 1
    assert "FAIL termination" in out and "shrunk from 2000 to 0 decisions" in out
    assert "then the first legal action at every decision" in out
    replay = json.loads(next(out_dir.glob("*.replay.json")).read_text())
    assert replay["actions"] == [] and replay["then"] == "first"
    with pytest.raises(ScenarioError, match="did not end within 2000 decisions"):
        run_scenario(load_file(next(out_dir.glob("*.yaml")))[0])


def test_the_finish_step_passes_when_the_game_ends(tmp_path):
    sc = tmp_path / "finish.yaml"
    sc.write_text(f"rules: {CHARUMA}\nplayers: 3\nsteps:\n  - finish: 5000\n  - expect: {{terminal: true}}\n")
    run_scenario(load_file(sc)[0])


# ---------------------------------------------------------------------- 4
BET = """game "Bet" { players 2..2 start turn }
var n: int = 0
action bet(x: int in 0..9999, y: int in 0..9999) { effect { n += x + y } }
phase turn { actions bet after { active = next_player(active) } end when n > 10 next done }
phase done { enter { end game } }"""

GRAB = """game "Grab" { players 2..2 start deal  cards start in deck }
property v: int
card "c" { v: 1 copies: 30 }
card "d" { v: 2 copies: 30 }
zone deck: pile hidden
zone hand[player]: set owner
zone out: pile public
action grab(cs: cards from hand[active]) { effect { move cs to out } }
phase deal { enter { for p in players { deal 24 from deck to hand[p] } } next turn }
phase turn { actions grab after { active = next_player(active) } end when count(out) > 0 next done }
phase done { enter { end game } }"""


def test_too_many_number_choices_stop_with_an_error_naming_the_action():
    st = load_text(BET).new_state(players=2)
    with pytest.raises(RuleRuntimeError, match="action 'bet' has more than 100,000 ways"):
        st.legal_actions()


def test_the_choice_limit_can_be_raised_and_lowered():
    game = load_text(BET)
    game.max_choices = 50
    with pytest.raises(RuleRuntimeError, match="more than 50 ways"):
        game.new_state(players=2).legal_actions()


def test_an_unbounded_cards_choice_on_a_big_hand_stops_with_an_error():
    # 24 cards of 2 kinds: 25 * 25 - 1 kinds of subset is fine; make every card its own kind
    text = GRAB.replace('card "c" { v: 1 copies: 30 }\ncard "d" { v: 2 copies: 30 }',
                        "\n".join(f'card "c{i}" {{ v: {i} }}' for i in range(60)))
    st = load_text(text).new_state(players=2)
    with pytest.raises(RuleRuntimeError, match="action 'grab' has more than 100,000 ways"):
        st.legal_actions()


def test_the_checker_warns_where_it_can_count_the_choices():
    bet = check_text(BET)
    assert any("100,000,000 combinations" in w.message for w in bet.warnings)
    grab = check_text(GRAB)
    assert any("any subset of its cards" in w.message and w.hint and "size" in w.hint for w in grab.warnings)
    for path in (CHARUMA, CHUHAN):
        assert not any("combinations" in w.message or "subset" in w.message for w in load(path).model.warnings)


def test_max_choices_flag(tmp_path):
    p = tmp_path / "bet.rules"
    p.write_text(BET)
    code, _, err = run("play", p, "--max-steps", "3")
    assert code == 1 and "action 'bet' has more than 100,000" in err and "--max-choices" in err
    assert run("play", p, "--max-choices", "0")[0] == 2


# ---------------------------------------------------------------------- 5
def test_the_human_prompt_survives_odd_numbers():
    st = load(CHARUMA).new_state(players=3, seed=1)
    typed = io.StringIO("\u00b2\n" + "9" * 5000 + "\n0\n1\n")
    shown = io.StringIO()
    choice = HumanAgent(typed, shown).choose(st, st.current_player)
    assert choice == st.legal_actions()[0]
    assert shown.getvalue().count("not a choice") == 3


# ---------------------------------------------------------------------- 6
def corrupt(mutate) -> str:
    st = load(CHARUMA).new_state(players=3, seed=1)
    st.apply(st.legal_actions()[0])
    d = json.loads(st.to_json())
    mutate(d)
    try:
        State.from_json(json.dumps(d), load(CHARUMA))
    except StateFormatError as e:
        return str(e)
    return "accepted"


def move_card_twice(d):
    d["zones"][1].append(d["zones"][0][0] if d["zones"][0] else next(c for z in d["zones"] for c in z))


def drop_card(d):
    z = next(z for z in d["zones"] if z)
    z.pop()


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.pop("zones"), "missing 'zones'"),
    (lambda d: d.pop("rules_sha256"), "missing 'rules_sha256'"),
    (move_card_twice, "and in"),
    (drop_card, "in no zone"),
    (lambda d: d.update(phase="nowhere"), "unknown phase 'nowhere'"),
    (lambda d: d.update(stage="dancing"), "unknown stage"),
    (lambda d: d.update(active=7), "'active' must be a whole number from 0 to 2"),
    (lambda d: d.update(players="3"), "'players'"),
    (lambda d: d.update(rng=-1), "'rng'"),
    (lambda d: d.update(vars=[]), "'vars' must be a list"),
    (lambda d: d["zones"][0].append(999), "a card in"),
    (lambda d: d.update(zones={}), "'zones' must be a list"),
    (lambda d: d.update(options={"bidding": "yes"}), "option 'bidding'"),
    (lambda d: d.update(options={}), "options missing: bidding"),
    (lambda d: d.update(stack=[3]), "'stack' must list ids"),
    (lambda d: d.update(history=[1, 2]), "'history'"),
    (lambda d: d.update(terminal="no"), "'terminal'"),
    (lambda d: d.update(plays={"0": [[0, [1]]]}), "not a plays zone"),
])
def test_from_json_refuses_a_broken_state(mutate, message):
    assert message in corrupt(mutate)


@pytest.mark.parametrize("text,message", [
    ("not json", "must be JSON"),
    ("[1, 2]", "a JSON object"),
    (42, "JSON text or a dict"),
    ("{}", "does not say which rules file"),
])
def test_from_json_refuses_what_is_not_a_state(text, message):
    with pytest.raises(StateFormatError, match=message):
        State.from_json(text)


def test_a_good_state_still_round_trips():
    st = load(CHUHAN).new_state(players=2, seed=3)
    for _ in range(40):
        st.apply(st.legal_actions()[-1])
    assert State.from_json(st.to_json(), load(CHUHAN)).to_json() == st.to_json()


# ---------------------------------------------------------------------- 7
@pytest.mark.parametrize("kwargs,message", [
    ({"seed": "abc"}, "seed must be a whole number"),
    ({"seed": 1.9}, "seed must be a whole number"),
    ({"seed": True}, "seed must be a whole number"),
    ({"options": ["bidding"]}, "options must be a mapping"),
    ({"options": {1: True}}, "option's name is text"),
    ({"players": 3.0}, "for 2-5 players"),
])
def test_new_state_validates_its_arguments(kwargs, message):
    with pytest.raises(OptionError, match=message):
        load(CHARUMA).new_state(**{"players": 3, **kwargs})


@pytest.mark.parametrize("who", [-1, 99, "P1", 1.0, True])
def test_observation_validates_the_player(who):
    st = load(CHARUMA).new_state(players=3, seed=1)
    with pytest.raises(ValueError, match="seat index from 0 to 2"):
        st.observation(who)


def test_observation_of_none_is_the_omniscient_view():
    st = load(CHARUMA).new_state(players=3, seed=1)
    everything = st.observation(None)
    assert all("cards" in z for z in everything["zones"].values())
    assert any("count" in z for z in st.observation(0)["zones"].values())


# ---------------------------------------------------------------------- 8
def test_load_sees_a_file_rewritten_within_the_same_time_stamp(tmp_path):
    p = tmp_path / "g.rules"
    p.write_text(LOOP, encoding="utf-8")
    first = load(str(p))
    stamp = os.stat(p).st_mtime_ns
    p.write_text(LOOP.replace('"Loop"', '"Loop Two"'), encoding="utf-8")
    os.utime(p, ns=(stamp, stamp))
    assert load(str(p)).name == "Loop Two" and first.name == "Loop"
    assert load(str(p)) is load(str(p))  # still cached while the content is the same


# ---------------------------------------------------------------------- 9
@pytest.fixture()
def replay_file(tmp_path):
    lab = load(str(ROOT / "tests" / "rules" / "fuzz_lab.rules"))
    result = F.fuzz(lab, 4, max_steps=5)
    rj, _ = F.write_failure(lab, result.failures()[0], {}, 5, tmp_path)
    return rj


@pytest.mark.parametrize("change,message", [
    ({"actions": []}, "the file holds 0 actions"),
    ({"version": 2}, "version 2"),
    ({"max_steps": 0}, "'max_steps' must be a whole number of at least 1"),
    ({"then": "sideways"}, "'then'"),
    ({"players": 9}, "a replay for 9 players"),
])
def test_replay_refuses_a_corrupt_file(replay_file, change, message):
    d = json.loads(replay_file.read_text())
    d.update(change)
    replay_file.write_text(json.dumps(d))
    code, out, err = run("replay", replay_file)
    assert code == 1 and message in err, err
    assert "does not reproduce" not in out


# ---------------------------------------------------------------------- 10
def test_fuzz_rejects_a_negative_max_reports():
    code, _, err = run("fuzz", CHARUMA, "--max-reports", "-1")
    assert code == 2 and "--max-reports must be at least 0" in err


@pytest.mark.parametrize("flag,target,message", [
    ("--json", "/nonexistent-dir/summary.json", "cannot write /nonexistent-dir/summary.json"),
    ("--out", "{file}", "it is not a folder"),
])
def test_fuzz_finds_unwritable_outputs_before_the_run(tmp_path, flag, target, message):
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x")
    code, out, err = run("fuzz", CHARUMA, "--games", "50", flag, target.format(file=a_file), "-q")
    assert code == 1 and message in err
    assert "games over" not in out  # nothing was played


def test_write_errors_name_the_file():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    code, _, err = run("doc", CHARUMA, "-o", "/dev/full")
    assert code == 1 and "cannot write /dev/full" in err


def test_a_repeated_option_is_an_error():
    code, _, err = run("play", CHARUMA, "--option", "bidding=true", "--option", "bidding=false")
    assert code == 2 and "--option bidding is given twice" in err


@pytest.mark.parametrize("command", [["fuzz", CHARUMA, "--games", "3"], ["play", CHARUMA]])
def test_output_cut_by_head_is_not_an_error(command):
    p = subprocess.Popen([sys.executable, "-m", "rulespec.tools.cli", *command], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.readline()
    p.stdout.close()  # like `| head -1`
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err


# ---------------------------------------------------------------------- 11
def test_playing_no_card_records_no_play():
    text = """game "Empty" { players 2..2 start go cards start in deck }
card "x" { copies: 2 }
zone deck: pile hidden
zone table: plays public
var done: bool = false
action stop() { effect { play [] to table  done = true } }
phase go { actions stop end when done next over }
phase over { enter { end game } }"""
    st = load_text(text).new_state(players=2)
    st.apply("stop")
    assert st.is_terminal() and st.plays == {} and check_cards(st) == []


def test_refused_actions_still_leave_the_state_alone():
    st = load(CHARUMA).new_state(players=3, seed=1)
    before = st.to_json()
    with pytest.raises(IllegalActionError):
        st.apply("nonsense")
    assert st.to_json() == before
    assert state_module.NO_RESPONSE == "no response"
