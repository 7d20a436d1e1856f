"""Choosing the engine: compiled by default, the interpreter as the reference, by argument,
environment or command line; a bad name is a clear error; a state moves between engines."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import rulespec
from interpreter.game import OptionError, engine_named, load
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CRAZY = str(ROOT / "games" / "crazy_eights.rules")


def test_compiled_is_the_default_and_the_reference_is_selectable(monkeypatch):
    monkeypatch.delenv("RULESPEC_ENGINE", raising=False)
    assert rulespec.load(CRAZY).engine == "compiled"
    assert type(rulespec.load(CRAZY).prog).__name__ == "CompiledProgram"
    ref = rulespec.load(CRAZY, engine="interpreted")
    assert ref.engine == "interpreted" and type(ref.prog).__name__ == "Program"
    monkeypatch.setenv("RULESPEC_ENGINE", "interpreted")
    assert load(CRAZY).engine == "interpreted"
    assert load(CRAZY, engine="compiled").engine == "compiled"  # the argument wins


def test_a_bad_engine_name_is_a_clear_error(monkeypatch):
    with pytest.raises(OptionError, match="unknown engine 'fast': the engines are compiled and interpreted"):
        engine_named("fast")
    monkeypatch.setenv("RULESPEC_ENGINE", "turbo")
    with pytest.raises(OptionError, match=r"\$RULESPEC_ENGINE"):
        load(CRAZY)


def test_the_command_line_takes_an_engine_and_leaves_the_environment_as_it_was(monkeypatch, capsys):
    monkeypatch.delenv("RULESPEC_ENGINE", raising=False)
    assert main(["play", CRAZY, "--engine", "interpreted", "--seed", "2"]) == 0
    import os
    assert "RULESPEC_ENGINE" not in os.environ
    assert main(["play", CRAZY, "--engine", "fast"]) == 2
    monkeypatch.setenv("RULESPEC_ENGINE", "turbo")
    capsys.readouterr()
    assert main(["play", CRAZY, "--seed", "2"]) == 1
    err = capsys.readouterr().err
    assert "unknown engine 'turbo'" in err and "Traceback" not in err


def test_a_state_moves_between_the_engines():
    compiled, reference = load(CRAZY, engine="compiled"), load(CRAZY, engine="interpreted")
    st = compiled.new_state(players=3, seed=4)
    rng = random.Random(4)
    for _ in range(25):
        st.apply(st.sample_action(rng))
    moved = type(st).from_json(st.to_json(), reference)
    assert moved.prog.engine == "interpreted" and moved.legal_action_strings() == st.legal_action_strings()
    for _ in range(10):
        text = st.sample_action(rng).text
        st.apply(text)
        moved.apply(text)
    assert moved.to_json() == st.to_json()


def test_the_differential_command_reports_no_difference(capsys):
    assert main(["fuzz", CRAZY, "--differential", "--games", "3", "--players", "2", "-q"]) == 0
    out = capsys.readouterr().out
    assert "differing games" in out and "3 on both engines" in out
