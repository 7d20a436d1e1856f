"""The log's past stays secret (P12): a log line shows what its viewer could see when it was
written, and a later reveal or conceal changes only later lines.

It used to be re-rendered on every read with the visibility of the moment: when Ji Bu's power
revealed the rival's hand in Chu Han, every earlier line that moved cards into or out of that
hand showed the card names (the rival's whole deal, each card drawn), in the web page's JSON,
the adapters' information states and `rulespec play`.  Each game below that reveals or conceals
a hand-like zone is played with every player's whole log read at every decision.

Then the checks that guard it: the fuzzer's per-decision log memory (rulespec/tools/fuzzing/checks.py,
LogMemory) and the counterfactual check's comparison of the whole log, past lines included
(rulespec/tools/fuzzing/secrecy.py), each shown to catch a deliberately re-rendering log; and a public
fact the setup works out from hidden cards (tests/rules/secrecy_setup.rules), which the
counterfactual check used to miss because it re-dealt only after the setup.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from rulespec.tools.fuzzing.checks import LOG_CHECK, LogMemory
from interpreter.observation import Observation

ROOT = Path(__file__).resolve().parent.parent
SETUP_LEAK = str(ROOT / "tests" / "rules" / "secrecy_setup.rules")
REVEAL = str(ROOT / "tests" / "rules" / "secrecy_reveal.rules")


def _game(name: str):
    return interpreter.load(str(ROOT / "games" / f"{name}.rules"))


def _play_reading_every_log(game, players: int, seed: int, options: dict, after_reveal: int):
    """Play random moves; at every decision read every player's whole log and check it starts
    with what they read before.  Returns (the decision of the first reveal, the owners of the
    zones revealed then, the state)."""
    st = game.new_state(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    read = {p: [] for p in range(players)}
    revealed_at, owners = None, []
    steps = 0
    while not st.is_terminal() and (revealed_at is None or steps < revealed_at + after_reveal) and steps < 6000:
        for p in range(players):
            now = st.log_lines(p)
            assert now[:len(read[p])] == read[p], (
                f"after {steps} decisions P{p + 1}'s log changed a past line: "
                + next(f"{x!r} became {y!r}" for x, y in zip(read[p], now) if x != y))
            read[p] = now
        if st.revealed and revealed_at is None:
            revealed_at, owners = steps, [st.prog.slots[zi].owner for zi in st.revealed]
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
        steps += 1
    return revealed_at, owners, st


# ====================================================================== the games that reveal a hand
@pytest.mark.parametrize("name, players, seed, options", [
    ("chuhan", 2, 5, {}),          # Ji Bu with an empty draw pile reveals the rival's hand at decision 34
    ("chuhan", 2, 15, {}),         # ... at decision 43
    ("gin_rummy", 2, 3, {}),       # the knocker lays out and shows the hand at decision 37
])
def test_earlier_lines_stay_as_written_when_a_hand_is_revealed(name, players, seed, options):
    revealed_at, owners, st = _play_reading_every_log(_game(name), players, seed, options, after_reveal=40)
    assert revealed_at is not None, "the game never revealed a zone: the test would prove nothing"
    # the rival's deal, read by the other player, is still a count after the reveal
    if name == "chuhan":
        rival = owners[0]
        deal = f"15 cards from draw to hand[P{rival + 1}]"
        assert any(deal in line for line in st.log_lines(1 - rival))


def test_a_line_written_while_a_zone_was_revealed_keeps_its_names():
    """The other direction: Cribbage's crib is turned up at the show and gathered into the
    stock before it is concealed again; the line of that move shows the crib's cards (every
    player saw them), also later, when the crib is hidden again."""
    game = _game("cribbage")
    st = game.new_state(players=2, seed=0)
    rng = random.Random(0)
    gathered = None
    for _ in range(400):
        if st.is_terminal():
            break
        acts = st.legal_actions()
        mark = len(st.log)
        st.apply(acts[rng.randrange(len(acts))])
        crib = st.prog.zone_base["crib"]
        gathered = next((i for i in range(mark, len(st.log)) if st.log[i][0] == "move"
                         and any(src == crib for _, src in st.log[i][2])), None)
        if gathered is not None and not st.revealed:
            break
    assert gathered is not None and not st.revealed, "no crib was gathered in 400 decisions"
    entry = st.log[gathered]
    assert len(entry) == 4 and crib in entry[3], entry  # the entry recorded that the crib was revealed
    line = st.log_lines(0, gathered)[0]
    names = [st.prog.card_label(st, c) for c, src in entry[2] if src == crib]
    assert " + ".join(names) + " from crib" in line, line
    # and the entry survives the JSON round trip
    again = interpreter.State.from_json(st.to_json(), game)
    assert again.log_lines(0) == st.log_lines(0)


# ====================================================================== the checks catch a re-rendering log
def _render_with_todays_visibility(monkeypatch):
    """Plant the old behaviour: a move line read with the zones revealed now."""
    render = Observation._render

    def old(self, e, viewer):
        if e[0] == "move":
            e = [e[0], e[1], e[2], list(self.revealed)]
        return render(self, e, viewer)
    monkeypatch.setattr(Observation, "_render", old)


def test_the_fuzzer_catches_a_re_rendering_log(monkeypatch):
    game = _game("chuhan")
    pick = F.agent_picker(F.make_chooser("random"), random.Random(5))
    assert F.play_game(game, 2, 5, {}, pick, state_check_rate=1.0).failure is None
    _render_with_todays_visibility(monkeypatch)
    pick = F.agent_picker(F.make_chooser("random"), random.Random(5))
    out = F.play_game(game, 2, 5, {}, pick, state_check_rate=1.0)
    assert out.failure is not None and out.failure[0] == LOG_CHECK, out.failure
    assert "changed a past line" in out.failure[1] and "15 cards from draw to hand[P2]" in out.failure[1]


def test_the_log_memory_reads_the_whole_log_only_when_asked_or_when_a_reveal_changed(monkeypatch):
    game = _game("chuhan")
    st = game.new_state(players=2, seed=5)
    memory = LogMemory(2)
    calls = []
    real = type(st).log_lines_for

    def counting(self, viewers, start=0):
        calls.append((start, tuple(viewers)))
        return real(self, viewers, start)
    monkeypatch.setattr(type(st), "log_lines_for", counting)
    rng = random.Random(5)
    for _ in range(20):
        assert memory.problems(st) == []
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
    assert not st.revealed and all(start > 0 for start, _ in calls[1:])  # only new entries after the first call
    assert memory.problems(st, whole=True) == [] and calls.count((0, (0, 1))) == 2  # the whole log, for both players


def test_log_lines_for_several_viewers_are_each_viewers_log_lines():
    game = _game("chuhan")
    st = game.new_state(players=2, seed=7)
    rng = random.Random(7)
    for _ in range(60):
        acts = st.legal_actions()
        st.apply(acts[rng.randrange(len(acts))])
    for start in (0, 5, len(st.log) - 4):
        assert st.log_lines_for([0, 1, None], start) == [st.log_lines(v, start) for v in (0, 1, None)]
    assert st.log_lines_for([], 3) == []


def test_the_counterfactual_check_compares_the_whole_log(monkeypatch):
    """tests/rules/secrecy_reveal.rules: the last player's hand is turned face up in the second
    round.  With a re-rendering log, the first round's deal to that hand shows its cards -- cards
    the other player never saw, which a re-deal replaces -- so the re-dealt world's past lines
    differ from the lines read as they were written.  (In Chu Han a random game shows every
    card to both players sooner or later: there the fuzzer's log memory above finds it.)"""
    game = interpreter.load(REVEAL)
    result = F.fuzz(game, 6, players=2, counterfactual_rate=1.0)
    assert result.ok, [f.message for f in result.failures()]
    _render_with_todays_visibility(monkeypatch)
    leaks = []
    for seed in range(6):
        st = game.new_state(players=2, seed=seed)
        actions = []
        while not st.is_terminal():
            actions.append(st.legal_actions()[0].text)
            st.apply(actions[-1])
        leak = S.counterfactual_check(game, 2, seed, {}, actions, 0).leak
        if leak is not None:
            leaks.append(leak)
    # the lines a re-rendering log writes at a reveal differ already (the first round's hand
    # going back to the deck, read after the reveal); the past lines differ at the cut
    assert leaks and all(leak.kind == "log" for leak in leaks), leaks


def test_past_lines_are_compared_with_the_lines_read_as_they_were_written(monkeypatch):
    """secrecy._past_changed, the counterfactual check's comparison at each world's cut: Chu Han,
    seed 20, Ji Bu reveals a hand in the third hand (decision 99).  The lines read as they were
    written (the trace's views) and the whole log read now agree, until the log re-renders."""
    game = _game("chuhan")
    st = game.new_state(players=2, seed=20)
    rng = random.Random(20)
    actions = []
    while not st.revealed:
        acts = st.legal_actions()
        actions.append(acts[rng.randrange(len(acts))].text)
        st.apply(actions[-1])
    viewer = 1 - st.prog.slots[st.revealed[0]].owner
    trace = S.record_trace(game, 2, 20, {}, actions, viewer)
    k = len(actions)
    assert S._past_changed(st, viewer, trace.views, k) is None
    _render_with_todays_visibility(monkeypatch)
    changed = S._past_changed(st, viewer, trace.views, k)
    assert changed is not None and "changes its past" in changed and "15 cards from draw" in changed, changed


# ====================================================================== a public fact the setup derives
def test_a_public_total_worked_out_by_the_setup_is_a_leak():
    game = interpreter.load(SETUP_LEAK)
    result = F.fuzz(game, 6, players=2, options={"leak": True}, counterfactual_rate=1.0)
    failures = [f for f in result.failures() if f.check == S.CHECK]
    assert failures, "the setup's public total of a hidden hand went unnoticed"
    assert all("vars.total" in f.message and "after 0 decisions" in f.message for f in failures)


def test_a_total_the_setup_announces_is_no_leak():
    game = interpreter.load(SETUP_LEAK)
    for options in ({}, {"announce": True}):
        result = F.fuzz(game, 6, players=2, options=options, counterfactual_rate=1.0)
        assert result.ok, [f.message for f in result.failures()]
    # worlds in which the announcement reads otherwise are dropped
    assert result.totals.cf_dropped > 0


def test_the_re_dealt_scenario_of_a_setup_leak_fails_where_the_viewer_sees_otherwise(tmp_path):
    from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
    game = interpreter.load(SETUP_LEAK)
    failure = next(f for f in F.fuzz(game, 4, players=2, options={"leak": True}, counterfactual_rate=1.0).failures()
                   if f.check == S.CHECK)
    _, scenario = F.write_failure(game, failure, {"leak": True}, F.DEFAULT_MAX_STEPS, tmp_path)
    as_played, redealt = load_file(scenario)
    run_scenario(as_played)
    with pytest.raises(ScenarioError):
        run_scenario(redealt)
    assert "total" in json.dumps(redealt.position if hasattr(redealt, "position") else scenario.read_text())


def test_start_order_must_be_a_permutation_of_the_cards():
    game = interpreter.load(SETUP_LEAK)
    with pytest.raises(interpreter.OptionError, match="each of the 9 cards once"):
        game.new_state(players=2, seed=0, start_order=[0] * 9)
    st = game.new_state(players=2, seed=0, start_order=list(range(9))[::-1])
    assert sorted(c for z in st.zones for c in z) == list(range(9))


# ====================================================================== every shipped game, a seeded slice
SHORT = {"gin_rummy": {"target": 1}, "uno": {"target": 1}}  # one hand: a whole game in seconds


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "games").glob("*.rules")))
def test_every_shipped_game_keeps_its_log_and_its_setup_secret(name):
    """Two games of every shipped game (one of San Guo Sha), with the log memory at a fifth of
    the decisions (and the whole log re-read where it is due) and the counterfactual check
    (re-dealing before the setup, comparing the whole log) on each."""
    game = _game(name)
    games, players = (1, 4) if name == "sanguosha" else (2, "all")  # (the slowest game: one, at four)
    result = F.fuzz(game, games, seed=1, players=players, options=SHORT.get(name, {}), backend=F.LocalBackend(1),
                    counterfactual_rate=1.0, state_check_rate=0.2)
    assert result.ok, [f.message for f in result.failures()]
    assert result.totals.cf_games == games
