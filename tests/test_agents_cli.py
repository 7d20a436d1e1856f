"""The agents and the play / bench commands."""
from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.ai.agents import FirstLegalAgent, HumanAgent, RandomAgent, ScriptedAgent
from rulespec.tools.bench import bench, default_workers, play_random_games, state_costs
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = str(ROOT / "games" / "charuma.rules")


@pytest.fixture(scope="module")
def game():
    return interpreter.load(CHARUMA)


def run_cli(*args, stdin: str = "") -> subprocess.CompletedProcess:
    """Run the real command line in a fresh process (exit codes, stderr, no traceback)."""
    return subprocess.run([sys.executable, "-m", "rulespec.tools.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


# ====================================================================== agents
def test_random_agent_is_seeded(game):
    def play(seed):
        st = game.new_state(players=3, seed=4)
        agents = [RandomAgent(seed * 10 + p) for p in range(3)]
        while not st.is_terminal():
            st.apply(agents[st.current_player].choose(st, st.current_player))
        return st.to_json()
    assert play(1) == play(1)
    assert play(1) != play(2)


def test_first_legal_agent(game):
    st = game.new_state(players=2, seed=0)
    a = FirstLegalAgent().choose(st, st.current_player)
    assert a == st.legal_actions()[0]


def test_scripted_agent_plays_its_script_then_stops(game):
    st = game.new_state(players=2, seed=0)
    script = [st.legal_action_strings()[2]]
    agent = ScriptedAgent(script)
    assert agent.choose(st, 0) == script[0]
    with pytest.raises(IndexError, match="run out"):
        agent.choose(st, 0)


def test_human_agent_reads_numbers_and_texts(game):
    st = game.new_state(players=3, seed=1)
    p = st.current_player
    legal = st.legal_actions()
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO(f"0\nnonsense\n{len(legal) + 1}\n2\n"), stdout=out)
    assert agent.choose(st, p) == legal[1]
    text = out.getvalue()
    assert text.count("not a choice") == 3
    assert f"=== P{p + 1} to act (phase bidding) ===" in text
    agent = HumanAgent(stdin=io.StringIO(legal[4].text + "\n"), stdout=io.StringIO())
    assert agent.choose(st, p) == legal[4].text
    with pytest.raises(EOFError):
        HumanAgent(stdin=io.StringIO(""), stdout=io.StringIO()).choose(st, p)


def test_human_agent_shows_only_its_own_hidden_cards(game):
    st = game.new_state(players=3, seed=1)
    p = st.current_player
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).choose(st, p)
    text = out.getvalue()
    names = game.prog.card_names
    own = names and [names[c] for c in st.zones[game.prog.zone_base["hand"] + p]]
    assert f"  hand[P{p + 1}]: {', '.join(own)}\n" in text
    for q in range(3):
        if q != p:
            assert f"  hand[P{q + 1}]: 2 hidden card(s)\n" in text
    assert "  stock" not in text or "hidden card(s)" in text
    # variables are shown for people: players by seat name, not as indexes
    assert re.search(r"  holder: P\d\n", text)
    assert re.search(r"  points: P1 \d+, P2 \d+, P3 \d+\n", text)


# ====================================================================== rulespec play
def test_play_prints_the_game_and_final_scores(capsys):
    assert main(["play", CHARUMA, "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "-- bidding --" in out and "-- trick --" in out
    assert re.search(r"^Game over\. Winners?: P\d", out, re.M)
    assert re.search(r"^Final scores: P1 -?\d+, P2 -?\d+, P3 -?\d+$", out, re.M)
    # the log of an all-computer game is omniscient
    assert not re.search(r"moved \d+ cards? from stock to hand", out)


def test_play_is_deterministic(capsys):
    main(["play", CHARUMA, "--players", "2", "--seed", "7"])
    first = capsys.readouterr().out
    main(["play", CHARUMA, "--players", "2", "--seed", "7"])
    assert capsys.readouterr().out == first


def test_play_subprocess_exit_code_and_scores():
    r = run_cli("play", "games/charuma.rules", "--players", "3", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().splitlines()[-1].startswith("Final scores: P1 ")
    assert r.stderr == ""


def test_play_with_options(capsys):
    assert main(["play", CHARUMA, "--players", "2", "--seed", "3", "--option", "bidding=false"]) == 0
    out = capsys.readouterr().out
    assert "-- family_groups --" in out and "-- bidding --" not in out


def test_play_writes_a_json_lines_log(tmp_path, capsys):
    log = tmp_path / "out.jsonl"
    assert main(["play", CHARUMA, "--players", "3", "--seed", "2", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    lines = log.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line is valid JSON
    decisions = [r for r in records if "decision" in r]
    assert decisions and [r["decision"] for r in decisions] == list(range(1, len(decisions) + 1))
    assert all(set(r) == {"decision", "player", "action"} for r in decisions)
    assert any("event" in r for r in records)
    final = records[-1]
    assert set(final) == {"final_scores", "winners"}
    assert "Final scores: " + ", ".join(f"P{p + 1} {s}" for p, s in enumerate(final["final_scores"])) in out
    # the logged actions replay the game exactly
    g = interpreter.load(CHARUMA)
    st = g.new_state(players=3, seed=2)
    for r in decisions:
        assert st.current_player == r["player"]
        st.apply(r["action"])
    assert st.is_terminal() and st.scores() == final["final_scores"] and st.winners() == final["winners"]


def test_play_with_a_human_from_scripted_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5000))
    assert main(["play", CHARUMA, "--players", "3", "--seed", "1", "--human", "1"]) == 0
    out = capsys.readouterr().out
    assert "=== P1 to act" in out
    assert "=== P2 to act" not in out and "=== P3 to act" not in out
    assert re.search(r"^Final scores: ", out, re.M)
    # P1 sees their own hand by name, and only counts of the other hands
    assert re.search(r"^  hand\[P1\]: \w+ \w+", out, re.M)
    for q in (2, 3):
        for line in re.findall(rf"^  hand\[P{q}\]: .*$", out, re.M):
            assert line.endswith("hidden card(s)"), line
    # the log shown to P1 hides the cards dealt to the others
    assert re.search(r"moved 2 cards from stock to hand\[P2\]", out)
    assert re.search(r"moved \w+ \w+ \+ \w+ \w+ from stock to hand\[P1\]", out)


def test_human_hidden_cards_never_appear_in_the_human_view():
    # deal with seed 1: find P2's and P3's hidden cards in the first round and make sure
    # no "hand[P2]: <names>" style line names them before they are played
    r = run_cli("play", "games/charuma.rules", "--players", "3", "--seed", "1", "--human", "1", stdin="1\n" * 5000)
    assert r.returncode == 0, r.stderr
    for q in (2, 3):
        assert not re.search(rf"^  hand\[P{q}\]: (?!\d+ hidden card)", r.stdout, re.M)
        assert not re.search(rf"moved [a-z]+ \w+( \+ [a-z]+ \w+)* from stock to hand\[P{q}\]", r.stdout)


def test_human_running_out_of_input_abandons_the_game():
    r = run_cli("play", "games/charuma.rules", "--players", "3", "--seed", "1", "--human", "1", stdin="1\n")
    assert r.returncode == 1
    assert "game abandoned" in r.stdout
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("stdin", ["empty", "closed"])
def test_play_with_a_human_and_no_input_exits_non_zero_with_one_line(stdin):
    """stdin at its end (</dev/null) or closed altogether (0<&-, where sys.stdin is None)."""
    import os
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "play", "games/charuma.rules", "--human", "1"],
                       stdin=subprocess.DEVNULL if stdin == "empty" else None, capture_output=True, text=True,
                       cwd=ROOT, timeout=120, preexec_fn=(lambda: os.close(0)) if stdin == "closed" else None)
    assert r.returncode == 1, r.stdout[-300:] + r.stderr
    assert "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("rulespec play: error: P1 plays from the terminal")
    assert "game abandoned" in r.stderr


def test_human_agent_treats_an_unreadable_input_as_the_end(game):
    st = game.new_state(players=3, seed=1)
    closed = io.StringIO("1\n")
    closed.close()
    for stdin in (closed, None):
        agent = HumanAgent(stdin=closed, stdout=io.StringIO())
        agent.stdin = stdin   # None: what sys.stdin is when the process starts with it closed
        with pytest.raises(EOFError):
            agent.choose(st, st.current_player)


# ---------------------------------------------------------------------- bad input: one line, no traceback
@pytest.mark.parametrize("args,code,message", [
    (["--option", "bid=1"], 1, "unknown option 'bid' for Charuma; did you mean 'bidding'?"),
    (["--option", "bidding=maybe"], 1, "option 'bidding' is true or false, not 'maybe'"),
    (["--option", "bidding"], 2, "--option needs NAME=VALUE"),
    (["--players", "9"], 1, "Charuma is for 2-5 players, not 9"),
    (["--players", "1"], 1, "Charuma is for 2-5 players, not 1"),
    (["--human", "4", "--players", "3"], 2, "there are only 3 seats"),
])
def test_bad_play_arguments(args, code, message):
    r = run_cli("play", "games/charuma.rules", *args)
    assert r.returncode == code
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("rulespec play: error: ") and message in lines[0]
    assert r.stdout == ""


@pytest.mark.parametrize("args", [["--players", "x"], ["--seed", "abc"], ["--games", "2"]])
def test_unusable_arguments_are_usage_errors(args):
    r = run_cli("play", "games/charuma.rules", *args)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert re.match(r"rulespec( play)?: error: ", r.stderr.strip().splitlines()[-1])


def test_missing_rules_file():
    r = run_cli("play", "games/no-such-game.rules")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "no such file" in r.stderr


# ====================================================================== rulespec bench
def test_bench_helpers(game):
    one = play_random_games(game, 3, 4, seed=5)
    assert one.games == 4 and one.decisions > 4 * 10 and one.seconds > 0
    assert one.games_per_second > 0 and one.us_per_decision > 0
    result = bench(game, 2, games=2, seed=1, runs=3)
    assert len(result.runs) == 3
    assert len({r.decisions for r in result.runs}) == 1  # every run plays the same games
    med, lo, hi = result.us_per_decision
    assert lo <= med <= hi
    text = result.report("x")
    assert "games per second" in text and "microseconds/decision" in text
    with pytest.raises(ValueError):
        bench(game, 2, games=0)


def test_bench_workers_play_the_same_games(game):
    # the games are split over the workers, not changed: the same seeds give the same decisions
    one = bench(game, 3, games=4, seed=2, runs=1)
    two = bench(game, 3, games=4, seed=2, runs=1, workers=2)
    assert two.workers == 2
    assert two.runs[0].decisions == one.runs[0].decisions
    assert two.runs[0].busy is not None and two.runs[0].busy > 0  # per-decision cost from the workers' time
    assert "2 workers" in two.report("x")
    assert bench(game, 3, games=1, seed=2, runs=1, workers=4).workers == 1  # never more workers than games
    with pytest.raises(ValueError):
        bench(game, 3, games=2, workers=0)
    assert default_workers() >= 1


def test_bench_state_costs(game):
    costs = state_costs(game, 3, seed=1, states=5)
    assert costs.states == 5
    assert costs.clone_us > 0 and costs.to_json_us > 0
    assert costs.json_bytes > 100 and costs.memory_bytes > 0
    assert "clone" in costs.report() and "to_json" in costs.report() and "memory" in costs.report()
    assert bench(game, 3, games=1, runs=1, costs=True).costs is not None


def test_bench_games_match_play(game):
    # bench plays exactly the games 'play' would play with the same seed: same agents, same seeds
    st = game.new_state(players=3, seed=5)
    agents = [RandomAgent(seed=5 * 1000 + p) for p in range(3)]
    steps = 0
    while not st.is_terminal():
        st.apply(agents[st.current_player].choose(st, st.current_player))
        steps += 1
    assert play_random_games(game, 3, 1, seed=5).decisions == steps


def test_bench_command(capsys):
    assert main(["bench", CHARUMA, "--players", "2", "--games", "3", "--runs", "2", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "2 players, 3 games x 2 runs" in out
    assert re.search(r"games per second: +[\d.]+ +\(min [\d.]+, max [\d.]+\)", out)
    assert re.search(r"microseconds/decision: +[\d.]+ +\(min [\d.]+, max [\d.]+\)", out)


def test_bench_command_workers_and_scaling(capsys):
    assert main(["bench", CHARUMA, "--players", "2", "--games", "4", "--runs", "1", "--workers", "2",
                 "--scaling"]) == 0
    out = capsys.readouterr().out
    assert "2 workers" in out
    assert re.search(r"scaling: 1 worker [\d.]+ games/s, 2 workers [\d.]+ games/s: [\d.]+x", out)
    assert re.search(r"per state \(\d+ mid-game states\): clone [\d.]+ us, to_json [\d.]+ us", out)
    assert main(["bench", CHARUMA, "--players", "2", "--games", "2", "--runs", "1", "--no-state-costs"]) == 0
    assert "per state" not in capsys.readouterr().out


def test_bench_command_with_an_option(capsys):
    assert main(["bench", CHARUMA, "--players", "4", "--games", "2", "--runs", "1",
                 "--option", "bidding=false"]) == 0
    assert "4 players, 2 games x 1 runs" in capsys.readouterr().out


@pytest.mark.parametrize("args,code", [
    (["--players", "9"], 1), (["--option", "nope=1"], 1), (["--games", "0"], 2), (["--runs", "0"], 2),
    (["--runs", "x"], 2), (["--workers", "0"], 2),
])
def test_bench_bad_arguments(args, code):
    r = run_cli("bench", "games/charuma.rules", "--games", "1", *args)
    assert r.returncode == code
    assert "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("rulespec bench: error: ")


def test_bench_reports_a_stuck_game(tmp_path):
    rules = tmp_path / "stuck.rules"
    rules.write_text('game "Stuck" { players 2..2 start a cards start in deck }\n'
                     'card "x" { copies: 2 }\nzone deck: pile hidden\nzone hand[player]: set owner\n'
                     'action take(c: card from hand[active]) { effect { end game } }\n'
                     'phase a { actions take next a }\n', encoding="utf-8")
    r = run_cli("bench", str(rules), "--games", "1", "--runs", "1")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert r.stderr.strip() == "rulespec bench: error: the game with seed 0 is stuck: no legal action in phase 'a'"


def test_human_view_leaves_out_variables_nothing_has_touched():
    """Flags and counters still at a blank starting value (no, 0, none) are not listed; a
    variable that changed, or starts with something to say, is."""
    import interpreter
    sgs = interpreter.load(str(Path(__file__).resolve().parent.parent / "games" / "sanguosha.rules"))
    st = sgs.new_state(players=4, seed=2)
    while st.phase == "setup":
        st.apply(st.legal_actions()[0])
    out = io.StringIO()
    HumanAgent(stdin=io.StringIO("1\n"), stdout=out).choose(st, st.current_player)
    text = out.getvalue()
    assert re.search(r"  health: P1 \d, P2 \d, P3 \d, P4 \d\n", text)
    assert "  side: P1 unrevealed" in text      # an enum's first value says something
    assert "bonus_taken" not in text and "chained" not in text and "wine_on" not in text
