"""rulespec fuzz and rulespec replay (rulespec/tools/fuzzing/fuzz.py, rulespec/tools/fuzz_cli.py).

A small seeded slice of the real games (workers 1 and 2 give identical totals), failure
detection, shrinking, replay and scenario files on a synthetic game with a deliberately
false invariant (tests/rules/fuzz_lab.rules), rule coverage and --coverage-min, the
backend interface (Ray when it is installed), and bad input.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import interpreter
from rulespec.tools.fuzzing import fuzz as F
from interpreter.actions import Action
from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
from rulespec.tools.fuzzing.secrecy import CHECK as COUNTERFACTUAL, WINDOW_PHRASE
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = str(ROOT / "games" / "charuma.rules")
CHUHAN = str(ROOT / "games" / "chuhan.rules")
LAB = str(ROOT / "tests" / "rules" / "fuzz_lab.rules")
COUNTERS = str(ROOT / "tests" / "rules" / "counters.rules")
INVARIANT = "invariant: the counter stays below 3"


def run_cli(*args, cwd=ROOT, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rulespec.tools.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, input=stdin)


@pytest.fixture(scope="module")
def lab():
    return interpreter.load(LAB)


# ====================================================================== the real games, a seeded slice
@pytest.mark.parametrize("path, games, players, options", [
    (CHARUMA, 20, 3, {}),
    (CHUHAN, 10, "all", {"events": True}),
])
def test_workers_do_not_change_the_results(path, games, players, options):
    game = interpreter.load(path)
    # a sample of the games gets the counterfactual secrecy check (all of them would double
    # this test's time; tests/test_secrecy.py checks whole runs)
    one = F.fuzz(game, games, seed=11, players=players, options=options, backend=F.LocalBackend(1),
                 counterfactual_rate=0.3)
    two = F.fuzz(game, games, seed=11, players=players, options=options, backend=F.LocalBackend(2),
                 counterfactual_rate=0.3)
    # Chu Han's known leak (tests/test_secrecy.py): the engine asks a player in a response
    # window only when they hold a response, so the rival learns whether they hold Lyu Zhi
    assert all(f.check == COUNTERFACTUAL and WINDOW_PHRASE in f.message for f in one.failures()), \
        [f.message for f in one.failures()]
    assert one.summary() == two.summary()
    sampled = sum(j.viewer is not None for j in F.plan(game, games, 11, players, counterfactual_rate=0.3))
    assert one.totals.cf_games == sampled > 0 and one.summary()["counterfactual"]["worlds"] > 0
    assert one.totals.games == games == one.totals.terminal
    assert one.totals.by_agent == Counter({"random": games // 2, "rare": games - games // 2})
    cov = F.coverage(game.model, one.totals.coverage)
    assert cov.percent > 50


def test_another_seed_gives_other_games(lab):
    a = F.fuzz(lab, 6, seed=1).summary()
    b = F.fuzz(lab, 6, seed=2).summary()
    assert a["coverage"] != b["coverage"]


def test_plan_seeds_players_and_agents(lab):
    jobs = F.plan(lab, 5, seed=3, players="all", agents=["random", "rare", "mixed"])
    assert [j.seed for j in jobs] == [3 * 1_000_003 + i for i in range(5)]
    assert [j.players for j in jobs] == [2, 3, 2, 3, 2]
    assert [j.agent for j in jobs] == ["random", "rare", "mixed", "random", "rare"]
    assert len({j.agent_seed for j in jobs}) == 5
    assert {j.players for j in F.plan(lab, 4, players=3)} == {3}
    with pytest.raises(F.FuzzError, match="2-3 players"):
        F.plan(lab, 4, players=7)
    with pytest.raises(F.FuzzError, match="unknown agent"):
        F.plan(lab, 4, agents=["clever"])


# ====================================================================== agents
class _Stub:
    def __init__(self, legal):
        self.legal = legal

    def legal_actions(self):
        return self.legal


def test_rare_first_prefers_rarely_taken_kinds():
    legal = [Action("common", (("i", i),), f"common {i}") for i in range(10)] + [Action("rare", (), "rare")]
    st = _Stub(legal)
    rng = random.Random(5)
    agent = F.RareFirst()
    picks = Counter(agent(st, rng).name for _ in range(400))
    # uniform over actions would take 'rare' 1 time in 11; by kind, it is taken as often as 'common'
    assert picks["rare"] > 150
    assert _rare_picks(legal, 5, 50) == _rare_picks(legal, 5, 50)  # deterministic for a seed
    assert _rare_picks(legal, 5, 50) != _rare_picks(legal, 6, 50)


def _rare_picks(legal, seed, n):
    agent, rng, st = F.RareFirst(), random.Random(seed), _Stub(legal)
    return [agent(st, rng).text for _ in range(n)]


def test_rare_first_balances_the_kinds_in_a_game(lab):
    cov = Counter()
    F.run_job(lab, F.GameJob(0, 2, 4, "rare", 9), {}, 1000, cov)
    taken = [cov["action:" + n] for n in ("up", "down", "wait")]
    assert sum(taken) == 20 and max(taken) - min(taken) <= 4


# ====================================================================== failures, shrinking, replay, scenario
def test_a_false_invariant_is_found_and_shrunk(lab):
    result = F.fuzz(lab, 20, options={"strict": True})
    assert not result.ok and INVARIANT in result.totals.failures
    first = result.failures()[0]
    assert first.check == INVARIANT and first.steps >= 3
    shrunk, used = F.shrink(lab, first, {"strict": True})
    assert shrunk.actions == ["up", "up", "up"]  # the shortest way to reach 3
    assert shrunk.original_steps == first.steps and used <= 200
    assert "after 3 decisions" in shrunk.message
    # the shrunk choices replay to the same failure
    out = F.replay_choices(lab, shrunk, {"strict": True}, shrunk.choices)
    assert out.failure[0] == INVARIANT


def test_shrinking_respects_its_budget(lab):
    result = F.fuzz(lab, 20, options={"strict": True})
    first = max(result.failures(), key=lambda f: f.steps)
    shrunk, used = F.shrink(lab, first, {"strict": True}, budget=2)
    assert used <= 2 and shrunk.check == first.check


def test_fuzz_command_writes_a_replay_and_a_scenario_that_reproduce(tmp_path):
    out_dir = tmp_path / "failures"
    r = run_cli("fuzz", LAB, "--games", "20", "--option", "strict=true", "--workers", "2", "--out", str(out_dir))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    assert f"FAIL {INVARIANT}: game #0, shrunk from" in r.stdout and "to 3 decisions" in r.stdout
    replays = list(out_dir.glob("*.replay.json"))
    scenarios = list(out_dir.glob("*.yaml"))
    assert len(replays) == 1 and len(scenarios) == 1
    assert str(replays[0]) in r.stdout and str(scenarios[0]) in r.stdout
    d = json.loads(replays[0].read_text())
    assert d["actions"] == ["up", "up", "up"] and d["failure"]["check"] == INVARIANT
    assert d["failure"]["decisions_before_shrinking"] >= 3
    assert d["game"] == "Fuzz lab" and d["options"] == {"strict": True}

    # the scenario replays the exact position and fails on the broken invariant
    t = run_cli("test", str(scenarios[0]))
    assert t.returncode == 1
    assert "does not hold" in t.stdout and "the counter stays below 3" in t.stdout
    doc = yaml.safe_load(scenarios[0].read_text())
    assert doc["steps"][:3] == [{"play": "up"}] * 3 and doc["steps"][-1] == {"check": "all"}

    # rulespec replay: the log as it goes, and the recorded failure reproduces
    p = run_cli("replay", str(replays[0]))
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.count("P1: up") == 2 and "P2: up" in p.stdout
    assert "the recorded failure reproduces" in p.stdout
    # stepping reads Enter between actions; q stops
    s = run_cli("replay", str(replays[0]), "--step", stdin="\n\nq\n")
    assert "[1/3] next: up" in s.stdout and "replay stopped" in s.stdout


def test_replay_of_a_fixed_game_does_not_reproduce(tmp_path, lab, capsys):
    result = F.fuzz(lab, 20, options={"strict": True})
    f, _ = F.shrink(lab, result.failures()[0], {"strict": True})
    rj, _ = F.write_failure(lab, f, {"strict": True}, 1000, tmp_path)
    d = json.loads(rj.read_text())
    d["options"] = {"strict": False}  # as if the rules were fixed
    rj.write_text(json.dumps(d))
    assert main(["replay", str(rj)]) == 0
    assert "does not reproduce" in capsys.readouterr().out


def test_a_game_that_does_not_end_is_a_failure(tmp_path, lab):
    result = F.fuzz(lab, 4, max_steps=5)
    assert result.totals.failures == Counter({"termination": 4})
    f, _ = F.shrink(lab, result.failures()[0], {}, max_steps=5)
    # shrunk to a prefix after which the first legal action at every decision does not end either
    assert f.then_first and f.steps < 5 and f.original_steps == 5
    rj, sy = F.write_failure(lab, f, {}, 5, tmp_path)
    assert json.loads(rj.read_text())["then"] == "first"
    with pytest.raises(ScenarioError, match="did not end within 5 decisions"):
        run_scenario(load_file(sy)[0])
    out = F.run_replay(lab, F.read_replay(rj))
    assert out.failure[0] == "termination" and out.steps == 5


def test_an_accepted_illegal_action_is_reported():
    class Lenient(_Stub):
        history, log = [], []

        def apply(self, text):
            pass  # accepts anything
    assert "but the engine applied it" in F._refuses(Lenient([Action("up", (), "up")]), [Action("up", (), "up")],
                                                     "down")
    assert F._refuses(Lenient([]), [Action("up", (), "up")], "up") is None  # legal: not offered


def test_scenario_check_step(tmp_path):
    good = tmp_path / "ok.yaml"
    good.write_text(f"rules: {COUNTERS}\nsteps:\n- play: cast\n- check: all\n- check: [cards, replay]\n")
    run_scenario(load_file(good)[0])
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"rules: {COUNTERS}\nsteps:\n- check: everything\n")
    with pytest.raises(ScenarioError, match="unknown check 'everything'"):
        run_scenario(load_file(bad)[0])


# ====================================================================== rule coverage
def test_rule_universe_covers_every_kind_of_rule():
    kinds = Counter(r.kind for r in F.rule_universe(interpreter.load(CHUHAN).model))
    assert set(kinds) == {"phase", "action", "response", "effect", "cancelled", "event", "trigger"}
    names = {(r.kind, r.name) for r in F.rule_universe(interpreter.load(CHUHAN).model)}
    assert ("event", "action_taken") in names  # an engine event some trigger listens to
    counters = {(r.kind, r.name) for r in F.rule_universe(interpreter.load(COUNTERS).model)}
    assert ("response", "counter") in counters and ("action", "cast") in counters
    assert ("cancelled", "spell") not in counters  # no 'cancelled' block to run


def test_coverage_min(tmp_path):
    r = run_cli("fuzz", LAB, "--games", "6", "--coverage-min", "80", "--out", str(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rule coverage: 8 of 9 rules (88.9%); never reached: action never" in r.stdout
    assert "ok: nothing broke" in r.stdout
    r = run_cli("fuzz", LAB, "--games", "6", "--coverage-min", "100", "--out", str(tmp_path), "--json",
                str(tmp_path / "s.json"))
    assert r.returncode == 1
    assert "FAIL rule coverage 88.9% is below --coverage-min 100%; never reached: action never" in r.stdout
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["rule_coverage"]["never"] == ["action never"] and s["games"] == 6
    assert not list(tmp_path.glob("*.yaml"))  # nothing failed, nothing written


# ====================================================================== backends
def test_backend_interface(lab):
    jobs = [1, 2, 3, 4]
    assert sorted(F.LocalBackend(2).map(abs, jobs)) == jobs
    assert list(F.LocalBackend(1).map(abs, jobs)) == jobs
    with pytest.raises(F.FuzzError, match="unknown backend"):
        F.make_backend("cloud")
    with pytest.raises(F.FuzzError, match="--address is for --backend ray"):
        F.make_backend("local", 1, "auto")


def test_ray_backend_gives_the_same_results(lab):
    pytest.importorskip("ray")
    local = F.fuzz(lab, 8, seed=5, backend=F.LocalBackend(1))
    ray_run = F.fuzz(lab, 8, seed=5, backend=F.make_backend("ray", 2))
    assert ray_run.summary() == local.summary()


def test_ray_missing_is_a_one_line_error(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    assert main(["fuzz", LAB, "--games", "2", "--backend", "ray"]) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and "pip install 'rulespec[ray]'" in err


# ====================================================================== bad input
@pytest.mark.parametrize("args, code, message", [
    (["fuzz", "nowhere.rules"], 1, "nowhere.rules"),
    (["fuzz", "games"], 1, "games"),
    (["fuzz", LAB, "--option", "speed=3"], 1, "unknown option 'speed'"),
    (["fuzz", LAB, "--option", "strict"], 2, "NAME=VALUE"),
    (["fuzz", LAB, "--players", "many"], 2, "a number or 'all'"),
    (["fuzz", LAB, "--players", "9"], 1, "2-3 players"),
    (["fuzz", LAB, "--workers", "0"], 2, "--workers must be at least 1"),
    (["fuzz", LAB, "--games", "0"], 2, "--games must be at least 1"),
    (["fuzz", LAB, "--agents", "clever"], 2, "--agents"),
    (["fuzz", LAB, "--coverage-min", "120"], 2, "percentage"),
    (["replay", "nowhere.json"], 1, "no replay file"),
    (["replay", "games"], 1, "directory"),
])
def test_bad_input_is_one_line(args, code, message, capsys):
    assert main(args) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    # one line, and at most a hint under it (a name that is no file: the shipped games' names)
    lines = [line for line in err.strip().splitlines() if not line.lstrip().startswith("hint:")]
    assert len(lines) == 1, err


def test_bad_replay_files(tmp_path, lab, capsys):
    result = F.fuzz(lab, 20, options={"strict": True})
    rj, _ = F.write_failure(lab, result.failures()[0], {"strict": True}, 1000, tmp_path)
    good = json.loads(rj.read_text())

    def attempt(d, *extra) -> str:
        p = tmp_path / "x.replay.json"
        p.write_text(d if isinstance(d, str) else json.dumps(d))
        assert main(["replay", str(p), *extra]) == 1
        err = capsys.readouterr().err
        assert err.strip().count("\n") == 0 and "Traceback" not in err, err
        return err

    assert "not a replay file (bad JSON" in attempt("{not json")
    assert "not a replay file written by rulespec fuzz" in attempt({"hello": 1})
    assert "'players' is missing" in attempt({k: v for k, v in good.items() if k != "players"})
    assert "is a replay of Fuzz lab, but" in attempt(good, "--rules", COUNTERS)
    assert "different version" in attempt(dict(good, rules_sha256="0" * 16))
    assert "not at" in attempt(dict(good, rules="missing/game.rules"))
    r = run_cli("replay", str(tmp_path / "x.replay.json"))  # the real command line: no traceback either
    assert r.returncode == 1 and "Traceback" not in r.stderr


def test_an_engine_crash_is_a_failure_not_the_end_of_the_run(lab, monkeypatch):
    real = F.state_problems
    calls = Counter()

    def flaky(st, **kw):
        calls["n"] += 1
        if st.vars and calls["n"] % 7 == 0:
            raise TypeError("boom")
        return real(st, **kw)
    monkeypatch.setattr(F, "state_problems", flaky)
    result = F.fuzz(lab, 4)
    assert result.totals.games == 4 and result.totals.failures["crash"] >= 1
    assert "TypeError: boom (test_fuzz.py:" in result.failures()[0].message


def test_scenarios_for_each_kind_of_failure(lab):
    def steps(check, message, actions=("up",)):
        f = F.Failure(0, 2, 1, "random", 2, check, message, [0] * len(actions), list(actions))
        return yaml.safe_load(F.scenario_text(lab, f, {}, ROOT))["steps"]
    assert steps("illegal action", "after 1 decisions: 'down' is not among the 2 legal actions, but the engine "
                 "applied it")[-1] == {"illegal": "down"}
    assert steps("termination", "the game did not end within 1 decisions")[-1] == {"finish": F.DEFAULT_MAX_STEPS}
    assert steps("runtime error", "after 0 decisions, applying 'up': oops") == [{"play": "up"}]
    assert steps("secrecy", "P2 sees P1's hand")[-1] == {"check": "all"}


# ---------------------------------------------------------------------- sampled costly checks
def test_check_schedule_samples_decisions_from_the_seed():
    every = F.StateCheckSchedule(5, 1.0)
    assert all(every.due(k) for k in range(50)) and every.replay_due()
    none = F.StateCheckSchedule(5, 0.0)
    assert not any(none.due(k) for k in range(200)) and not none.replay_due()
    tenth, again = F.StateCheckSchedule(5, 0.1), F.StateCheckSchedule(5, 0.1)
    picked = [k for k in range(2000) if tenth.due(k)]
    assert picked == [k for k in range(2000) if again.due(k)]  # the same game checks the same decisions
    assert 120 < len(picked) < 280
    assert tenth.due(picked[0]) and not tenth.due(next(k for k in range(2000) if k not in picked))


def _costly_checks_seen(lab, monkeypatch, rate: float) -> tuple:
    """(decisions checked fully, decisions played, replays) in 6 games at `rate`."""
    real, real_replay = F.state_problems, F.replay
    seen = Counter()

    def counting(st, round_trip=True, secrecy=True, **kw):
        seen["costly" if round_trip and secrecy else "cheap"] += 1
        return real(st, round_trip=round_trip, secrecy=secrecy, **kw)

    def counting_replay(game, st):
        seen["replays"] += 1
        return real_replay(game, st)
    monkeypatch.setattr(F, "state_problems", counting)
    monkeypatch.setattr(F, "replay", counting_replay)
    result = F.fuzz(lab, 6, seed=3, state_check_rate=rate)
    assert result.ok and result.state_check_rate == rate and result.summary()["state_check_rate"] == rate
    return seen["costly"], seen["costly"] + seen["cheap"], seen["replays"]


def test_the_check_rate_samples_the_costly_checks_and_the_replays(lab, monkeypatch):
    costly, total, replays = _costly_checks_seen(lab, monkeypatch, 1.0)
    assert costly == total and replays == 6
    costly, total, replays = _costly_checks_seen(lab, monkeypatch, 0.0)
    # rate 0 keeps decisions 0, 1, 2 and the end of each game
    assert costly == 6 * 4 < total and replays == 0


def test_a_costly_check_failure_is_found_at_the_sampled_decisions(lab, monkeypatch):
    """A round trip broken at every decision from the fifth on is found at any rate (a
    sampled decision, or the end of the game at the latest: 20 decisions); with rate 1 at the
    fifth itself."""
    real = F.state_problems

    def broken(st, round_trip=True, secrecy=True, **kw):
        problems = real(st, round_trip=round_trip, secrecy=secrecy, **kw)
        if round_trip and len(st.history) >= 5:
            problems.append(("round trip", f"broken at {len(st.history)}"))
        return problems
    monkeypatch.setattr(F, "state_problems", broken)
    drawn = F.StateCheckSchedule(F.game_seed(3, 0), 0.1)  # game 0 fails first
    for rate, first in ((1.0, 5), (0.0, 20), (0.1, next((k for k in range(5, 20) if drawn.due(k)), 20))):
        result = F.fuzz(lab, 3, seed=3, state_check_rate=rate)
        f = result.failures()[0]
        assert f.check == "round trip" and f"broken at {first}" in f.message


def test_fuzz_command_reports_the_check_rate(tmp_path):
    out = tmp_path / "f.json"
    r = run_cli("fuzz", LAB, "--games", "4", "--json", str(out), "--out", str(tmp_path), "-q")
    assert r.returncode == 0 and "costly checks" in r.stdout and "rate 0.05" in r.stdout
    assert json.loads(out.read_text())["state_check_rate"] == 0.05
    r = run_cli("fuzz", LAB, "--games", "4", "--check-rate", "1", "--out", str(tmp_path), "-q")
    assert r.returncode == 0 and "at every decision, every game replayed" in r.stdout
    r = run_cli("fuzz", LAB, "--games", "4", "--check-rate", "2")
    assert r.returncode == 2 and "--check-rate is a fraction of the decisions" in r.stderr
