"""The compiled engine's generated legal-action listers (interpreter/compiled/listing.py): every
shipped action gets one (but those left to the reference), they list the very actions of the
reference (names, parameters, texts, in order), and when the rules fail while actions are listed
the error is the reference's, word for word."""
from __future__ import annotations

import glob
import random
from pathlib import Path

import pytest

from interpreter.cardsets import DEFAULT_MAX_CHOICES
from interpreter.compiled.listing import reference_only
from interpreter.errors import RuleRuntimeError
from interpreter.game import Game, load
from rulespec.lang.checker import check_file, check_text

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(glob.glob(str(ROOT / "games" / "*.rules")))
LAB = str(ROOT / "tests" / "rules" / "listing_lab.rules")
# int choices over a range: the reference lists them (as one range), and the decisions that offer them
INT_ONLY = {"holdem": {"bet", "raise_to"}, "spades": {"bid_tricks"}}
SHORT = {"gin_rummy": {"target": 1}, "uno": {"target": 1}}


def _both(path: str):
    return load(path, engine="compiled"), load(path, engine="interpreted")


def _listing(st):
    """Every legal action as (name, parameters, text), or the error listing them raised."""
    try:
        return [tuple(a) for a in st.legal_actions()]
    except RuleRuntimeError as e:
        return f"error: {e}"


def _play_alike(compiled, reference, players: int, seed: int, options: dict, steps: int = 300) -> int:
    """One game on both engines with the same random choices, asserting the same listing at every
    decision; returns the decisions played."""
    a = compiled.new_state(players=players, seed=seed, options=options)
    b = reference.new_state(players=players, seed=seed, options=options)
    rng = random.Random(seed)
    k = 0
    while not a.is_terminal() and k < steps:
        la, lb = _listing(a), _listing(b)
        assert la == lb, f"{players} players, seed {seed}, options {options}, decision {k}"
        if isinstance(la, str) or not la:
            break
        text = la[rng.randrange(len(la))][2]
        a.apply(text)
        b.apply(text)
        k += 1
    assert a.to_json() == b.to_json()
    return k


@pytest.mark.parametrize("path", GAMES, ids=lambda p: Path(p).stem)
def test_shipped_actions_have_generated_listers(path):
    game = load(path, engine="compiled")
    prog = game.prog
    assert prog.lister is not None
    left = {name for name, act in prog.actions.items() if reference_only(prog, act) is not None}
    assert left == INT_ONLY.get(Path(path).stem, set())
    assert set(prog.listers) == set(prog.actions) - left
    # ... and play lists with them: no decision went back to the reference
    before = prog.listing_fallbacks[0]
    _play_alike(game, load(path, engine="interpreted"), game.model.min_players, 3, SHORT.get(Path(path).stem, {}),
                steps=150)
    assert prog.listing_fallbacks[0] == before


@pytest.mark.parametrize("name", ["chuhan", "sanguosha", "hearts", "charuma", "euchre", "uno"])
def test_same_actions_parameters_and_texts(name):
    compiled, reference = _both(str(ROOT / "games" / f"{name}.rules"))
    played = sum(_play_alike(compiled, reference, n, seed, SHORT.get(name, {}))
                 for n in sorted({compiled.model.min_players, compiled.model.max_players}) for seed in (5, 6))
    assert played > 0


def test_the_lab_lists_alike_with_every_kind_of_choice():
    """Alike cards, face-down picks, two zones, 'same', ints with players, enums with yes/no, a
    nullable player, equal texts (" #2"), a card's action, and an action left to the reference."""
    compiled, reference = _both(LAB)
    prog = compiled.prog
    assert "gamble" not in prog.listers and reference_only(prog, prog.actions["gamble"]) is not None
    assert set(prog.listers) == set(prog.actions) - {"gamble"}
    texts: set = set()
    for n in (2, 3, 4):
        for seed in range(6):
            _play_alike(compiled, reference, n, seed, {})
            st = compiled.new_state(players=n, seed=seed)
            texts.update(a.text for a in st.legal_actions())
    assert prog.listing_fallbacks[0] == 0
    assert any(t.startswith("snoop a face-down card of hand[") for t in texts)
    assert "blame nobody" in texts and any(t.startswith("invoke the Totem on") for t in texts)


@pytest.mark.parametrize("option, message", [
    ("broken", "listing_lab.rules:52:11: runtime error: division by zero"),
    ("peek", "listing_lab.rules:62:23: runtime error: index 4 is outside a list of 1")])
def test_an_error_while_listing_is_the_reference_error(option, message):
    compiled, reference = _both(LAB)
    errors = []
    for game in (compiled, reference):
        st = game.new_state(players=2, seed=1, options={option: True})
        with pytest.raises(RuleRuntimeError) as info:
            st.legal_actions()
        errors.append(str(info.value))
    assert errors[0] == errors[1] and errors[0].endswith(message)
    assert compiled.prog.listing_fallbacks[0] > 0  # the generated code failed, the reference said why


BETS = """game "Bets" {
  players 2..4
  start turn
  score p: 0
}

var bets: int = 0

action bet(amount: int in 1..3, t: player where t != active) {
  effect { bets += amount }
}

phase turn {
  actions bet
  after { active = next_player(active) }
  end when bets > 6
  next over
}

phase over {
  enter { end game }
}
"""


def _messages(compiled, reference, limit: int, players: int) -> set:
    """Play both engines with Game.max_choices = limit: the same listing (or the same error) at
    every decision; the errors met (what they say, without where) and "listed"."""
    seen = set()
    try:
        for game in (compiled, reference):
            game.max_choices = limit
        for seed in range(4):
            a = compiled.new_state(players=players, seed=seed)
            b = reference.new_state(players=players, seed=seed)
            rng = random.Random(seed)
            for _ in range(30):
                la, lb = _listing(a), _listing(b)
                assert la == lb
                if isinstance(la, str):
                    seen.add(la.split("runtime error: ")[1].split(" at this decision")[0].split(" (")[0])
                    break
                seen.add("listed")
                if not la or a.is_terminal():
                    break
                text = la[rng.randrange(len(la))][2]
                a.apply(text)
                b.apply(text)
    finally:
        compiled.max_choices = reference.max_choices = DEFAULT_MAX_CHOICES
    return seen


def test_limits_on_choices_and_actions_are_the_reference_limits():
    """Game.max_choices: the same decisions fail with the same message on both engines, whether
    the first choice, a later one ('bet' of 4 players: 3 amounts, 9 with a player) or the
    actions listed so far pass it."""
    seen = set()
    compiled, reference = _both(LAB)
    for limit in (1, 3, 5, 8, 13):
        seen |= _messages(compiled, reference, limit, 3)
    assert {"listed", "action 'play' has more than 1 ways to fill its choices", "more than 5 legal actions"} <= seen
    compiled, reference = (Game(check_text(BETS, "bets.rules"), "bets.rules", engine=e) for e in ("compiled", "interpreted"))
    assert _messages(compiled, reference, 5, 4) == {"action 'bet' has more than 5 ways to fill its choices"}
    assert _messages(compiled, reference, 9, 4) >= {"listed"}
    assert compiled.prog.listing_fallbacks[0] > 0


def test_a_replayed_build_lists_alike(tmp_path, monkeypatch):
    """The listers are functions of the game's module: a later build replays them from the code
    cache (in the order they were asked for) and lists the same actions."""
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path))
    path = str(ROOT / "games" / "chuhan.rules")
    first = Game(check_file(path), path, engine="compiled")
    again = Game(check_file(path), path, engine="compiled")
    assert not first.prog.exprs.replayed and again.prog.exprs.replayed
    assert set(again.prog.listers) == set(first.prog.listers)
    assert _play_alike(again, first, 2, 9, {}) > 0


def test_the_checked_only_build_lists_as_the_reference():
    """fused=False (every expression checked, a reference for tests) keeps the reference listing."""
    game = Game(check_file(LAB), LAB, fused=False, engine="compiled")
    assert game.prog.lister is None
