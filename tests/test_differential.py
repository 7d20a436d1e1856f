"""The compiled engine against the reference interpreter: a seeded slice of the differential
check (rulespec fuzz --differential) on every shipped game and every tests/rules file, with the
options at their defaults and with every yes/no option turned the other way, at the smallest
and the largest table.  Any difference is a bug in the game compiler."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest

from interpreter.game import load
from rulespec.tools.fuzzing.differential import play_both

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(glob.glob(str(ROOT / "games" / "*.rules"))) + sorted(glob.glob(str(ROOT / "tests" / "rules" / "*.rules")))
# games whose every hand is long: one hand (their 'target' option) keeps the slice short
SHORT = {"gin_rummy": {"target": 1}, "uno": {"target": 1}}
STEPS = 600  # decisions compared a game (most games end before)


def _configs(game) -> list:
    model = game.model
    base = dict(SHORT.get(Path(game.path).stem, {}))
    flipped = dict(base)
    for name, info in model.options.items():
        if info.type.name == "bool":
            flipped[name] = not info.default
    sizes = sorted({model.min_players, model.max_players})
    out = [(n, base) for n in sizes]
    if flipped != base:
        out += [(n, flipped) for n in sizes]
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_both_engines_play_alike(path):
    compiled, reference = load(path, engine="compiled"), load(path, engine="interpreted")
    assert compiled.prog.engine == "compiled" and reference.prog.engine == "interpreted"
    played = 0
    for players, options in _configs(compiled):
        for seed in (1, 2):
            r = play_both(compiled, reference, players, seed, options, max_steps=STEPS)
            assert r.difference is None, f"{players} players, seed {seed}, options {options}: {r.difference.describe()}"
            played += r.decisions
    assert played > 0


def test_a_difference_is_found_and_named(monkeypatch):
    """The check itself can fail: a compiled engine whose first legal action text differs."""
    path = str(ROOT / "games" / "crazy_eights.rules")
    compiled, reference = load(path, engine="compiled"), load(path, engine="interpreted")
    real = type(compiled.new_state(players=2, seed=0)).legal_action_strings

    def wrong(self):
        got = real(self)
        return [got[0] + " (sic)"] + got[1:] if self.prog.engine == "compiled" else got
    monkeypatch.setattr(type(compiled.new_state(players=2, seed=0)), "legal_action_strings", wrong)
    r = play_both(compiled, reference, 2, 1, {}, max_steps=50)
    assert r.difference is not None and r.difference.what == "legal actions" and r.difference.decision == 0
    assert "(sic)" in r.difference.compiled
