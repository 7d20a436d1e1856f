"""The compiled engine's statements (interpreter/compiled/statements.py) on tests/rules/statement_lab.rules:
runs of statements and each phase's turn of the phase machine are generated code, play is the
reference's (random draws included), a for loop's names are restored after it, and a runtime
error in any statement -- in its expressions or in its own work, in a plain run, a step that
stops or a trigger -- or in a phase's actor, 'end when' or 'next' reads the same on both engines,
also when the code comes back from the code cache."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.errors import RuleRuntimeError
from interpreter.game import Game, load
from rulespec.lang.checker import check_file
from rulespec.tools.fuzzing.differential import play_both

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "statement_lab.rules")
FAULTS = range(1, 18)  # the lab's option 'fault': the statement (or phase clause) that fails


def _generated(f) -> bool:
    return getattr(getattr(f, "__code__", None), "co_filename", "").startswith("<rules")


def _outcome(game, fault: int, players: int = 2) -> str:
    """What a game with the fault comes to: the error's text, or the state at the end."""
    try:
        st = game.new_state(players=players, seed=3, options={"fault": fault})
        while not st.is_terminal():
            st.apply(next(a for a in st.legal_action_strings() if a.startswith("give") or a == "boast"))
        return st.to_json()
    except RuleRuntimeError as e:
        return f"error: {e}"


def test_runs_of_statements_are_generated_code():
    compiled, reference = load(LAB, engine="compiled"), load(LAB, engine="interpreted")
    setup = compiled.prog.phases["setup"].enter
    steps = compiled.prog.blocks[setup].steps
    assert len(steps) == len(reference.prog.blocks[setup].steps)  # the same steps: frames move between engines
    assert all(_generated(s) or s.__qualname__.startswith("_jump") for s in steps)  # (an if's jumps are data)
    assert not any(_generated(s) for s in reference.prog.blocks[setup].steps)
    effect = compiled.prog.blocks[compiled.prog.actions["gift"].effect]  # a run, an emit that stops, a run
    assert len(effect.steps) == 3 and all(_generated(s) for s in effect.steps)
    assert all(_generated(f) for f in compiled.prog.phase_code.values()) and reference.prog.phase_code is None


@pytest.mark.parametrize("fault", FAULTS)
def test_a_runtime_error_reads_the_same_on_both_engines(fault):
    compiled, reference = load(LAB, engine="compiled"), load(LAB, engine="interpreted")
    got, want = _outcome(compiled, fault), _outcome(reference, fault)
    assert want.startswith("error: ")
    assert got == want


def test_errors_alike_when_the_code_is_replayed(tmp_path, monkeypatch):
    """A build that replays the code cache gives the fallbacks to code it did not generate."""
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("RULESPEC_CACHE", "1")
    model = check_file(LAB)
    first = Game(model, LAB, engine="compiled")
    again = Game(model, LAB, engine="compiled")
    assert not first.prog.exprs.replayed and again.prog.exprs.replayed
    reference = load(LAB, engine="interpreted")
    for fault in FAULTS:
        assert _outcome(again, fault) == _outcome(reference, fault), fault


def test_a_for_loop_restores_its_names():
    for engine in ("compiled", "interpreted"):
        st = load(LAB, engine=engine).new_state(players=2, seed=1)
        seen = st.vars[st.prog.var_index["seen"]]
        assert seen[:7] == [1, 2, 1, 2, 1, 2, 7], engine  # the outer x is 7 again after its loop
        st.apply("pick")  # a loop, then a choice: the frame that waits holds no name of the loop
        env = st.frames[-1][2]
        assert "i" not in env and "w" not in env, engine


def test_random_draws_and_play_are_the_reference_s():
    compiled, reference = load(LAB, engine="compiled"), load(LAB, engine="interpreted")
    for players in (2, 3):
        for seed in range(8):
            for lucky in (True, False):
                r = play_both(compiled, reference, players, seed, {"lucky": lucky}, max_steps=200)
                assert r.difference is None, r.difference.describe()
                assert r.decisions > 0


def _nested(body: str) -> str:
    return f'''game "Nested" {{
  players 2..2
  start setup
}}

var tally: int = 0

phase setup {{
  enter {{
    let x = 3
    if {" elif ".join(f"x == {i} {{ tally += {i} }}" for i in range(300))} else {{ tally = 1 }}
    {body}
  }}
  next done
}}

phase done {{
  enter {{ end game }}
  next done
}}
'''


@pytest.mark.parametrize("body", [
    "".join(f"for a{i} in [1] {{ tally += 1 " for i in range(40)) + "} " * 40,  # past Python's 20 nested loops
    "".join(f"if tally > -{i} {{ tally += 1 " for i in range(45)) + "} " * 45,     # deep indentation
], ids=["loops", "ifs"])
def test_deep_nesting_and_long_elif_chains_play_alike(body):
    from interpreter.game import load_text
    got = [load_text(_nested(body), "nested.rules", engine=e).new_state(players=2, seed=0).to_json()
           for e in ("compiled", "interpreted")]
    assert got[0] == got[1]


def test_a_state_stopped_mid_block_moves_between_engines():
    """The compiled blocks have the reference's steps: a frame saved by one engine resumes on the other."""
    from interpreter.state import State
    games = {e: load(LAB, engine=e) for e in ("compiled", "interpreted")}
    for src, dst in (("compiled", "interpreted"), ("interpreted", "compiled")):
        st = games[src].new_state(players=3, seed=5)
        st.apply("pick")  # stops at the choice inside the effect
        assert st.frames and st.in_choice()
        moved, stayed = State.from_json(st.to_json(), games[dst]), st
        for _ in range(6):
            if stayed.is_terminal():
                break
            a = stayed.legal_action_strings()[-1]
            assert moved.legal_action_strings() == stayed.legal_action_strings()
            moved.apply(a)
            stayed.apply(a)
        assert moved.to_json() == stayed.to_json()
