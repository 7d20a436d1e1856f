"""How rulespec fuzz spends its checks (rulespec/tools/fuzzing/fuzz.py, rulespec/tools/fuzzing/checks.py): the checks
made incremental (the cards of the zones that changed, each new log and history entry on its
own), the sampled ones (the whole-state round trip, the replay, the counterfactual secrecy
check), and the lazy trace of the counterfactual check.

Each incremental or sampled check is shown to find a deliberately planted bug: at the very
decision with --check-rate 1, and at a sampled decision (or at once, for the incremental
ones) at the default rate.
"""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing import checks as C
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from interpreter.state import State

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = str(ROOT / "games" / "charuma.rules")
CHUHAN = str(ROOT / "games" / "chuhan.rules")
CRAZY = str(ROOT / "games" / "crazy_eights.rules")
SANGUOSHA = str(ROOT / "games" / "sanguosha.rules")
LAB = str(ROOT / "tests" / "rules" / "fuzz_lab.rules")


@pytest.fixture(scope="module")
def crazy():
    return interpreter.load(CRAZY)


def _play(game, rate: float, players: int = 3, seed: int = 5, **kw) -> F.Outcome:
    """One checked game of random play (the agent's seed fixed), costly checks at `rate`."""
    pick = F.agent_picker(F.make_chooser("random"), random.Random(seed))
    return F.play_game(game, players, seed, {}, pick, state_check_rate=rate, **kw)


def _decision(out: F.Outcome) -> int:
    """The decision a failure was found at ("after N decisions: ...")."""
    return int(out.failure[1].split("after ", 1)[1].split(" decisions", 1)[0])


def _next_checked(game, rate: float, at: int, players: int = 3, seed: int = 5) -> int:
    """The first decision from `at` on that gets the costly checks in _play's game at `rate`
    (the end of the game at the latest)."""
    end = _play(game, 1.0, players, seed).steps
    schedule = F.StateCheckSchedule(seed, rate)
    return next(k for k in range(at, end + 1) if schedule.costly(k, k == end))


def _after_apply(monkeypatch, at: int, harm) -> None:
    """Plant a bug: harm(state) right after the `at`-th action of a game is applied."""
    real = State.apply

    def apply(self, action):
        real(self, action)
        if len(self.history) == at:
            harm(self)
    monkeypatch.setattr(State, "apply", apply)


# ====================================================================== cards: incremental
def test_a_lost_card_is_found_at_the_next_decision_at_any_rate(crazy, monkeypatch):
    """A move that loses a card: the check of the moved zones (and of the number of cards)
    made at every decision finds it at once, whether or not the decision is sampled."""
    real = State.move_cards
    lost = {}

    def losing(self, cards, dest, bottom, *site):
        real(self, cards, dest, bottom, *site)
        if len(self.history) >= 12 and not lost:
            lost["decision"] = len(self.history)
            self.edit_zone(dest).remove(cards[0])  # gone from the zone, where[] still names it
    monkeypatch.setattr(State, "move_cards", losing)
    for rate in (1.0, 0.1, 0.0):
        lost.clear()
        out = _play(crazy, rate)
        assert lost, "no card moved from the 12th action on"
        assert out.failure[0] == "cards" and _decision(out) == lost["decision"], (rate, out.failure)
        assert "expected 52" in out.failure[1]


def test_the_moved_zones_check_sees_only_what_moved(crazy):
    """The incremental cards check looks at the zones the log says changed (and the number of
    cards): a change made behind the log's back is left to the whole check, which rulespec
    fuzz makes at the sampled decisions (next test)."""
    st = crazy.new_state(players=3, seed=5)
    rng = random.Random(1)
    for _ in range(6):
        st.apply(rng.choice(st.legal_actions()))
    mark = len(st.log)
    st.apply(rng.choice(st.legal_actions()))
    assert C.check_cards(st, mark) == [] == C.check_cards(st)
    moved = C.zones_moved_since(st, mark)
    still = [zi for zi, z in enumerate(st.zones) if z and zi not in moved]
    a, b = st.zones[still[0]][0], st.zones[still[-1]][-1]
    st.where[a], st.where[b] = st.where[b], st.where[a]  # where[] wrong for two cards nothing moved
    assert C.check_cards(st, mark) == []
    assert any("where[" in p for p in C.check_cards(st))
    st.zones[next(iter(moved))].append(a)  # a card twice, in a zone that moved: found either way
    assert C.check_cards(st, mark) and C.check_cards(st)


def test_a_change_behind_the_logs_back_is_found_by_the_whole_cards_check(crazy, monkeypatch):
    def swap(st):  # where[] of two cards in two zones swapped, nothing logged
        full = [z for z in st.zones if z]
        a, b = full[0][0], full[-1][-1]
        st.where[a], st.where[b] = st.where[b], st.where[a]
    latest = {rate: _next_checked(crazy, rate, 5) for rate in (0.0, 0.1)}
    assert 5 < latest[0.1] < latest[0.0]
    _after_apply(monkeypatch, 5, swap)
    out = _play(crazy, 1.0)
    assert out.failure[0] == "cards" and _decision(out) == 5 and "where[" in out.failure[1]
    for rate in (0.0, 0.1):  # at the next checked decision at the latest (the end, with none sampled)
        out = _play(crazy, rate)
        assert out.failure[0] == "cards" and 5 <= _decision(out) <= latest[rate], (rate, out.failure)
    # shrinking replays with every check at every decision: the failure comes back at 5
    again = F.play_game(crazy, 3, 5, {}, F.list_picker(out.choices))
    assert again.failure[0] == "cards" and _decision(again) == 5


# ====================================================================== the round trip: entries one by one
def test_a_log_entry_from_json_would_refuse_is_found(crazy, monkeypatch):
    latest = {rate: _next_checked(crazy, rate, 5) for rate in (0.0, 0.1)}
    _after_apply(monkeypatch, 5, lambda st: st.log.append([]))
    out = _play(crazy, 1.0)
    assert out.failure[0] == "round trip" and _decision(out) == 5 and "not a log entry" in out.failure[1]
    for rate in (0.0, 0.1):  # at the next decision checked
        out = _play(crazy, rate)
        assert out.failure[0] == "round trip" and _decision(out) == latest[rate], (rate, out.failure)
    # the whole-state round trip names it the same way (from_json refuses the state)
    st = crazy.new_state(players=3, seed=5)
    st.log.append([])
    assert any("from_json refuses" in p for p in C.check_round_trip(st))
    assert any("not a log entry" in p for p in C.check_round_trip(st, 0, 0))


def test_every_new_history_entry_is_checked(crazy, monkeypatch):
    """Not only the newest: an entry slipped in before it is found at the next check."""
    latest = _next_checked(crazy, 0.1, 5)
    _after_apply(monkeypatch, 5, lambda st: st.history.insert(-1, 42))
    out = _play(crazy, 1.0)
    assert out.failure[0] == "round trip" and _decision(out) == 5 and "history holds 42" in out.failure[1]
    out = _play(crazy, 0.1)
    assert out.failure[0] == "round trip" and _decision(out) == latest


def test_the_whole_state_round_trip_schedule():
    every, none = F.StateCheckSchedule(5, 1.0), F.StateCheckSchedule(5, 0.0)
    assert [k for k in range(40) if every.whole(k)] == [0, 1, 2, 4, 8, 16, 32] and every.whole(77, terminal=True)
    assert all(every.costly(k) for k in range(40))
    assert [k for k in range(40) if none.costly(k)] == [0, 1, 2] and none.costly(77, terminal=True)
    assert not any(none.whole(k) for k in range(40)) and not none.whole(77, terminal=True)
    sampled = F.StateCheckSchedule(5, 0.5)
    assert [k for k in range(40) if sampled.whole(k)] == [k for k in (0, 1, 2, 4, 8, 16, 32) if sampled.due(k)]
    assert F.StateCheckSchedule(5, 0.1, True).whole(77, terminal=True)  # a replayed game: compared with its JSON
    assert not F.StateCheckSchedule(5, 0.1, False).whole(77, terminal=True)


def test_a_replay_that_differs_is_found(crazy, monkeypatch):
    """The end of a replayed game compares its JSON (written by the end's round trip) with the
    replay's."""
    real = F.replay

    def wrong(game, st):
        again = real(game, st)
        again.vars[0] = "not what was played"
        return again
    monkeypatch.setattr(F, "replay", wrong)
    for rate, replayed in ((1.0, None), (0.1, True)):
        out = _play(crazy, rate, replayed=replayed)
        assert out.failure[0] == "replay" and out.replayed and "different state" in out.failure[1]
    out = _play(crazy, 0.1, replayed=False)
    assert out.failure is None and not out.replayed


# ====================================================================== the secrecy check, rewritten
@pytest.mark.parametrize("harm, message", [
    (lambda st, obs, name: obs["zones"].pop(name), "lacks zone"),
    (lambda st, obs, name: obs["zones"][name].update(cards=["?"]), "is wrong"),
    (lambda st, obs, name: obs["zones"][name].update(count=99), "shows more than a count"),
])
def test_the_secrecy_check_still_reads_every_zone(crazy, monkeypatch, harm, message):
    st = crazy.new_state(players=3, seed=5)
    zi = next(zi for zi, z in enumerate(st.zones) if z and (st.can_see(zi, 0) == ("is wrong" in message)))
    name = st.prog.slots[zi].name
    honest = State.observation

    def broken(self, player):
        obs = honest(self, player)
        if player == 0:
            harm(self, obs, name)
        return obs
    assert C.check_secrecy(st) == []
    monkeypatch.setattr(State, "observation", broken)
    problems = C.check_secrecy(st)
    assert problems and all(message in p and name in p and p.startswith("P1") for p in problems), problems


def test_an_empty_shown_list_is_still_allowed(crazy, monkeypatch):
    st = crazy.new_state(players=3, seed=5)
    honest = State.observation

    def with_shown(self, player):
        obs = honest(self, player)
        for entry in obs["zones"].values():
            if "count" in entry:
                entry["shown"] = []
        return obs
    monkeypatch.setattr(State, "observation", with_shown)
    assert C.check_secrecy(st) == []


# ====================================================================== the counterfactual check's lazy trace
@pytest.mark.parametrize("path, players, seed", [(CHARUMA, 4, 3), (CHUHAN, 2, 6), (CRAZY, 3, 2)])
def test_the_lazy_trace_gives_the_views_and_verdict_of_the_eager_one(path, players, seed):
    """LazyTrace keeps snapshots and builds a view only when the check reads it: the views are
    secrecy.Trace's, whatever the order they are read in, and so is the verdict."""
    game = interpreter.load(path)
    st = game.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    eager, lazy, fresh = S.Trace(1), F.LazyTrace(1), F.LazyTrace(1)
    actions = []
    while True:
        st.legal_actions()
        for t in (eager, lazy, fresh):
            t.record(st)
        if st.terminal:
            break
        a = rng.choice(st.legal_actions())
        actions.append(a.text)
        st.apply(a)
    order = list(range(len(eager.views)))
    random.Random(0).shuffle(order)
    assert len(lazy.views) == len(eager.views) == len(actions) + 1
    assert all(lazy.views[k] == eager.views[k] for k in order)
    assert (lazy.seen, lazy.moved, lazy.layouts) == (eager.seen, eager.moved, eager.layouts)
    half = len(actions) // 2
    assert list(fresh.prefix(half).views) == list(eager.prefix(half).views)
    a = S.counterfactual_check(game, players, seed, {}, actions, 1, trace=eager)
    b = S.counterfactual_check(game, players, seed, {}, actions, 1, trace=fresh)
    assert a == b and a.worlds > 0 and a.compared > 0


@pytest.mark.parametrize("path, players", [(CHARUMA, 4), (CHUHAN, 2), (CRAZY, 4), (SANGUOSHA, 6)])
def test_every_decision_of_a_shipped_game_is_snapshotted(path, players):
    """The trace keeps a snapshot per decision -- bytes and tuples of numbers, not a State -- in
    every shipped game: a state holding something marshal refuses falls back to building the
    view at once, which is correct but slow (the game's options once did)."""
    import gc
    game = interpreter.load(path)
    st = game.new_state(players=players, seed=3)
    rng = random.Random(3)
    trace = F.LazyTrace(0)
    for _ in range(60):
        st.legal_actions()
        trace.record(st)
        if st.terminal:
            break
        st.apply(rng.choice(st.legal_actions()))
    kinds = {type(item).__name__ for item in trace.views.items}
    assert kinds == {"_Snapshot"}, kinds
    snap = trace.views.items[-1]
    assert isinstance(snap.data, bytes) and not gc.is_tracked(snap.data)
    gc.collect()
    gc.collect()  # a tuple of tuples of numbers is untracked once a collection has looked at it
    assert not gc.is_tracked(snap.layout) and snap.layout is trace.layouts[-1]


# ====================================================================== which games are sampled
def test_a_rate_samples_exactly_that_share_of_the_games():
    assert len(F.sampled_games(60, 0.2, "k")) == 12 == len(F.sampled_games(60, 0.2, "k") & set(range(60)))
    assert F.sampled_games(60, 0.2, "k") == F.sampled_games(60, 0.2, "k") != F.sampled_games(60, 0.2, "other")
    assert len(F.sampled_games(10, 0.2, "k")) == 2 and len(F.sampled_games(3, 0.2, "k")) == 1
    assert F.sampled_games(5, 0.0, "k") == frozenset() and F.sampled_games(5, 1.0, "k") == frozenset(range(5))
    lab = interpreter.load(LAB)
    jobs = F.plan(lab, 60, seed=4, counterfactual_rate=0.2, state_check_rate=0.1)
    assert sum(j.viewer is not None for j in jobs) == 12 and sum(j.replay for j in jobs) == 6
    assert jobs == F.plan(lab, 60, seed=4, counterfactual_rate=0.2, state_check_rate=0.1)
    assert all(j.replay for j in F.plan(lab, 5, state_check_rate=1.0))
    result = F.fuzz(lab, 20, seed=4, counterfactual_rate=0.25, state_check_rate=0.1)
    assert result.totals.replayed == 2 and result.totals.cf_games == 5
    s = result.summary()
    assert s["state_checks"]["replayed"] == 2 and s["state_checks"]["rate"] == 0.1 == s["state_check_rate"]
    assert 0 < s["state_checks"]["decisions"] < result.totals.decisions


def _text(stdout: str) -> str:
    """The command's output with the table's borders and line breaks taken out."""
    return re.sub(r"[\s│]+", " ", stdout)


def test_the_command_line_says_which_rates_were_used(tmp_path):
    out = tmp_path / "s.json"
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "fuzz", LAB, "--games", "10", "--workers", "1",
                        "--json", str(out), "--out", str(tmp_path), "-q"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    text = _text(r.stdout)
    assert "rate 0.2: 2 of 10 games checked" in text and "(--counterfactual-rate 1: every game)" in text
    assert "rate 0.05: " in text and "1 of 10 games replayed" in text
    s = json.loads(out.read_text())
    assert s["counterfactual"]["rate"] == 0.2 and s["counterfactual"]["games"] == 2
    assert s["state_checks"] == {"rate": 0.05, "decisions": s["state_checks"]["decisions"], "replayed": 1}
    assert s["state_check_rate"] == 0.05
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "fuzz", LAB, "--games", "4", "--workers", "1",
                        "--counterfactual-rate", "1", "--check-rate", "1", "--out", str(tmp_path), "-q"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    text = _text(r.stdout)
    assert r.returncode == 0 and "rate 1: 4 of 4 games checked" in text
    assert "every game replayed (--check-rate 1)" in text and "4 of 4 games replayed" in text


def test_the_report_says_why_re_deals_were_dropped(tmp_path):
    """Re-deals dropped as inconsistent with the public history are tallied by reason: the report
    names the commonest, --json all of them (dropped_by), and they add up to the dropped."""
    lab = str(ROOT / "tests" / "rules" / "secrecy_cause.rules")  # leak=false: every check is announced
    out = tmp_path / "s.json"
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "fuzz", lab, "--games", "20", "--workers", "1",
                        "--counterfactual-rate", "1", "--option", "leak=false", "--json", str(out),
                        "--out", str(tmp_path), "-q"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    cf = json.loads(out.read_text())["counterfactual"]
    assert cf["dropped"] > 0 and sum(cf["dropped_by"].values()) == cf["dropped"], cf
    assert set(cf["dropped_by"]) == {"an announcement reads otherwise"}, cf
    n = cf["dropped_by"]["an announcement reads otherwise"]
    assert f"dropped as inconsistent with the public history ({n} an announcement reads otherwise)" in _text(r.stdout)
