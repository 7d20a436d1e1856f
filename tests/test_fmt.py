"""`rulespec fmt`: the canonical layout of rules files (rulespec/fmt.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rulespec.errors import RulesError
from rulespec.fmt import format_text, same_meaning

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rules"))


def test_spacing_and_indentation():
    messy = ('game  "G"{\n'
             'players 2 .. 4\n'
             '      score p :points [p]+1\n'
             '}\n')
    assert format_text(messy) == 'game "G" {\n  players 2..4\n  score p: points[p] + 1\n}\n'


def test_a_syntax_error_is_a_rules_error():
    with pytest.raises(RulesError) as e:
        format_text('game "x" {\n  players 2..\n}\n', "a.rules")
    assert e.value.diagnostics[0].location() == "a.rules:3:1"


@pytest.mark.parametrize("path", GAMES[:3], ids=lambda p: p.name)
def test_shipped_games_are_formatted(path):
    text = path.read_text(encoding="utf-8")
    assert format_text(text, str(path)) == text
