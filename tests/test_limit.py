"""The rules' own limit on a game's length: `limit N decisions [winners W] ["why"]` in the game
block (docs/language.md), on tests/rules/limit_lab.rules (its scenarios are in
tests/scenarios/limit_lab/): the checker's errors, the engine stopping the game, the JSON round
trip across the limit, the fuzzer counting such games as finished and naming its longest game,
and the rulebook's sentence."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing import fuzz as F
from interpreter.game import load_text
from interpreter.state import State
from rulespec.lang.checker import check_text
from rulespec.tools.cli import main
from rulespec.tools.docs import Rulebook
from rulespec.lang.errors import RulesError
from rulespec.tools.editor.lsp_analysis import KEYWORDS

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "tests" / "rules" / "limit_lab.rules"
LAB_TEXT = LAB.read_text(encoding="utf-8")
LIMIT_LINE = '  limit 6 decisions "Two players who only pass would play for ever."\n'


def lab_with(limit_line: str) -> str:
    """The lab's rules with another limit clause in place of its own."""
    assert LIMIT_LINE in LAB_TEXT
    return LAB_TEXT.replace(LIMIT_LINE, limit_line)


def errors_of(text: str) -> list:
    with pytest.raises(RulesError) as e:
        check_text(text, "lab.rules")
    return [d for d in e.value.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("line, message, col", [
    ("  limit 6 hands\n", "a limit counts decisions, not 'hands'", 11),
    ("  limit 0 decisions\n", "a game limited to 0 decisions could not start", 3),
    ("  limit 6 decisions winners 3\n", "winners must be a player or a list of players, not int", 29),
    ("  limit 6 decisions winners tally\n", "'tally' is per player", 29),  # W is checked as an expression
])
def test_the_checker_reports_a_bad_limit_where_it_is(line, message, col):
    (err,) = errors_of(lab_with(line))
    assert message in err.message
    assert (err.span.line, err.span.col) == (8, col)
    assert err.render(lab_with(line)).startswith(f"lab.rules:8:{col}: error: ")


def test_a_second_limit_is_an_error():
    errs = errors_of(lab_with(LIMIT_LINE + "  limit 7 decisions\n"))
    assert any("limit" in e.message and e.span.line == 9 for e in errs), [e.message for e in errs]


def test_the_limit_is_a_keyword_for_editors():
    assert "limit" in KEYWORDS


def play_passes(game, n: int) -> State:
    """A 2-player game where P1 adds once and then everybody passes (confirming each pass)."""
    st = game.new_state(players=2, seed=1)
    st.apply("add")
    while not st.is_terminal() and len(st.history) < n:
        st.apply(st.legal_action_strings()[0] if st.in_choice() else "pass")
    return st


def test_winners_nobody_and_the_json_round_trip_across_the_limit():
    game = load_text(lab_with("  limit 6 decisions winners []\n"), "lab.rules")
    st = play_passes(game, 5)
    assert not st.is_terminal() and len(st.history) == 5
    again = State.from_json(st.to_json(), game)  # the decisions so far are the history: kept
    for s in (st, again):
        s.apply(s.legal_action_strings()[0])
        assert s.is_terminal() and s.ended_by_limit() and s.winners() == [] and s.current_player is None
    assert again.to_json() == st.to_json()
    assert State.from_json(st.to_json(), game).ended_by_limit()


def test_without_a_limit_the_same_game_goes_on():
    game = load_text(lab_with(""), "lab.rules")
    st = play_passes(game, 40)
    assert not st.is_terminal() and not st.ended_by_limit() and len(st.history) == 40


def test_a_game_ended_by_its_rules_is_not_ended_by_the_limit():
    st = interpreter.load(str(LAB)).new_state(players=2, seed=1, options={"target": 1})
    st.apply("add")
    assert st.is_terminal() and st.winners() == [0] and not st.ended_by_limit()


def test_fuzz_counts_games_ended_by_the_limit_as_finished_and_names_the_longest():
    game = interpreter.load(str(LAB))
    result = F.fuzz(game, 12, seed=4, counterfactual_rate=0, state_check_rate=0)
    t = result.totals
    assert result.ok and t.terminal == 12 and 0 < t.limited < 12
    lengths = {}
    for job in F.plan(game, 12, seed=4):  # the same games, played without the checks
        st = game.new_state(players=job.players, seed=job.seed)
        pick = F.agent_picker(F.make_chooser(job.agent), random.Random(job.agent_seed))
        while not st.is_terminal():
            legal = st.legal_actions()
            st.apply(legal[pick(st, legal)])
        lengths[job.index] = (len(st.history), st.ended_by_limit())
    longest = max(lengths, key=lambda i: (lengths[i][0], -i))
    g = t.longest_game
    assert (g.index, g.decisions, g.ending) == (longest, lengths[longest][0], "limit" if lengths[longest][1] else "over")
    assert t.limited == sum(limited for _, limited in lengths.values())
    assert result.summary()["longest_game"]["index"] == longest


def test_fuzz_command_reports_the_limit_and_the_longest_game(capsys):
    assert main(["fuzz", str(LAB), "--games", "6", "--workers", "1", "-q", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "ended by the rules' limit of 6 decisions" in out
    assert "longest game" in out and "6 decisions: game #" in out


def test_a_game_that_does_not_end_is_named_as_the_longest(tmp_path, capsys):
    assert main(["fuzz", str(LAB), "--games", "4", "--workers", "1", "-q", "--max-steps", "3",
                 "--shrink-budget", "0", "--out", str(tmp_path)]) == 1
    assert "3 decisions: game #0 (2 players, seed 0, random), not over within --max-steps 3" in capsys.readouterr().out


def test_max_steps_default_rises_to_the_rules_limit():
    assert F.default_max_steps(interpreter.load(str(LAB)).model) == F.DEFAULT_MAX_STEPS
    big = load_text(lab_with("  limit 50000 decisions\n"), "lab.rules")
    assert F.default_max_steps(big.model) == 50_000


def test_the_rulebook_states_the_limit():
    text = "\n".join(str(b) for b in Rulebook(interpreter.load(str(LAB)).model).blocks())
    assert ("A game that has not ended after 6 decisions (every choice a player makes counts one) stops there; "
            "the highest score wins (ties share the win). Two players who only pass would play for ever.") in text
    nobody = load_text(lab_with("  limit 6 decisions winners []\n"), "lab.rules")
    assert "stops there; nobody wins." in "\n".join(str(b) for b in Rulebook(nobody.model).blocks())


def test_stats_count_the_games_ended_by_the_limit():
    from rulespec.tools.stats import collect
    from rulespec.tools.stats_text import report
    f = collect(interpreter.load(str(LAB)), 10, players=2, seed=4, options={"target": 2}).figures()
    limited = f["limited"]
    assert 0 < limited < 10 and sum(f["outcomes"].values()) == 10
    assert f"; {limited} ended by the rules' limit of decisions" in report(f)
