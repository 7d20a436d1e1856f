"""How the engine finds cards' triggers, modify lines and actions (interpreter/owner_keys.py,
card_index.py, trigger_plans.py): what the compiler reads from conditions, and random play
that is the same as the engine's plain reading of every copy of every card, on
tests/rules/owner_lab.rules and San Guo Sha."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import State
from interpreter.game import load_text
from interpreter.owner_keys import cannot_fail, guard_parts, key_player, owner_key
from interpreter.static_conditions import conjuncts
from rulespec.lang import ast as A
from rulespec.lang.parser import parse_expr

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "tests" / "rules" / "owner_lab.rules"


def fresh(path: Path):
    """A Game of its own (load() shares one per file: the plain copy below is changed)."""
    return load_text(path.read_text(encoding="utf-8"), str(path))


def plain(game):
    """The game read the plain way: every card's condition read for every copy, in order, as if
    no condition named its player and every card's group condition drew a random number."""
    prog = game.prog
    for t in prog.trigger_list:
        t.owner_key = t.owner_zones = t.guard = None
        t.guard_first = False
    for ab in prog.ability_groups.values():
        ab.pure = False
    for rule in prog.rules.values():
        for m in rule.modifies:
            m.owner_arg = None
    return game


def trace(game, players: int, seed: int, options=None, round_trip: bool = False) -> list:
    st = game.new_state(players=players, seed=seed, options=options or {})
    rng = random.Random(seed)
    out = []
    while not st.is_terminal() and len(out) < 1500:
        if round_trip and len(out) % 5 == 2:
            st = State.from_json(st.to_json(), game) if len(out) % 2 else st.clone()
        legal = st.legal_action_strings()
        out.append((st.current_player, legal))
        st.apply(legal[rng.randrange(len(legal))])
    out.append(st.to_json())
    return out


# ---------------------------------------------------------------------- what the compiler reads
def test_what_the_lab_conditions_say():
    prog = fresh(LAB).prog
    got = {t.name: (t.owner_key, t.owner_zones, t.guard is not None, t.guard_first) for t in prog.trigger_list}
    assert got["scout"] == ("who", None, False, False)               # who == owner and n > 0
    assert got["watch"] == ("who", None, False, False)
    assert got["sieve"] == ("source", frozenset({"hand", "gear"}), False, False)  # source == hand[owner] or ...
    assert got["sentry"] == (None, None, True, True)                 # n == 2 and ...: read first
    assert got["herald"] == (None, None, True, False)                # n > 1 may fail: read at the first copy
    assert got["gauge"] == (None, None, False, False)                # reads the owner first: no guard
    assert got["dice"][0] is None                                    # draws a random number: read as it is
    assert [m.owner_arg for m in prog.rules["grip"].modifies] == [0, None]
    # Dice's line draws in its value, not in its condition: its player's copies are enough; the
    # rule draws, so its lines are read one by one, in order
    assert [m.owner_arg for m in prog.rules["reach"].modifies] == [0, None, 0]
    assert not prog.rules["reach"].pure and prog.rules["grip"].pure


def _names_and_refs(text: str, locals_: tuple):
    e = parse_expr(text)
    refs = {}

    def walk(x):
        if isinstance(x, A.Name):
            refs[x] = ("local",) if x.name in locals_ else ("var",)
        if isinstance(x, A.Index):
            refs[x] = ("pzone", type("Zone", (), {"name": x.obj.name})())
        for c in A.children(x):
            walk(c)
    walk(e)
    return e, refs


class _Types(dict):
    def __init__(self, kinds: dict):
        super().__init__()
        self.kinds = kinds

    def get(self, e, default=None):
        kind = self.kinds.get(getattr(e, "name", None))
        return type("T", (), {"name": kind})() if kind else default


@pytest.mark.parametrize("text,key", [
    ("p == owner and alive[owner]", ("p", None)),
    ("owner == p", ("p", None)),
    ("alive[owner] and p == owner", ("p", None)),
    ("source == hand[owner]", ("source", frozenset({"hand"}))),
    ("source == hand[owner] or source == gear[owner]", ("source", frozenset({"hand", "gear"}))),
    ("source == hand[owner] or p == owner", None),       # two ways of saying it: none is sure
    ("p != owner", None),
    ("q == owner", None),                                 # not one of the event's fields
    ("n == owner", None),                                 # not a player
])
def test_owner_key(text, key):
    e, refs = _names_and_refs(text, ("p", "q", "n", "source", "owner"))
    types = _Types({"p": "player", "q": "player", "n": "int", "source": "zone"})
    assert owner_key(refs, types, conjuncts(e), {"p", "n", "source"}) == key


@pytest.mark.parametrize("text,guard,safe", [
    ('name == "end" and p != owner', 1, True),
    ("n > 1 and p != owner", 1, False),
    ("alive[owner] and n == 1", 0, True),
    ("not flag and (n == 1 or n == 2) and owner != p and n == 2", 2, True),
])
def test_guard_parts(text, guard, safe):
    e, refs = _names_and_refs(text, ("p", "n", "name", "owner"))
    parts = guard_parts(refs, conjuncts(e))
    assert len(parts) == guard
    assert all(cannot_fail(refs, x) for x in parts) == safe


def test_key_player_reads_the_owner_of_a_zone():
    game = fresh(LAB)
    st = game.new_state(players=3, seed=0)
    prog = st.prog
    hand1 = prog.zone_base["hand"] + 1
    assert key_player(st, hand1, frozenset({"hand"})) == 1
    assert key_player(st, hand1, frozenset({"gear"})) is None
    assert key_player(st, prog.zone_base["deck"], frozenset({"hand"})) is None
    assert key_player(st, None, frozenset({"hand"})) is None
    assert key_player(st, 2, None) == 2


# ---------------------------------------------------------------------- the same play
@pytest.mark.parametrize("players", [2, 3, 4])
def test_lab_plays_as_the_plain_reading(players):
    fast, slow = fresh(LAB), plain(fresh(LAB))
    for seed in range(12):
        assert trace(fast, players, seed) == trace(slow, players, seed), seed


def test_lab_round_trips_play_as_the_plain_reading():
    fast, slow = fresh(LAB), plain(fresh(LAB))
    for seed in range(6):
        assert trace(fast, 3, seed, round_trip=True) == trace(slow, 3, seed), seed


@pytest.mark.parametrize("players,options", [(4, {}), (6, {"formations": True, "momentum": True, "bi_thien": True})])
def test_sanguosha_plays_as_the_plain_reading(players, options):
    path = ROOT / "games" / "sanguosha.rules"
    fast, slow = fresh(path), plain(fresh(path))
    for seed in range(2):
        assert trace(fast, players, seed, options) == trace(slow, players, seed, options), seed


def test_games_with_the_same_options_share_what_they_decide():
    game = fresh(LAB)
    a, b = game.new_state(players=2, seed=0), game.new_state(players=3, seed=1)
    assert a.opts.live is b.opts.live and a.opts.live
    a.opts["x"] = 1  # a changed option decides anew
    assert a.opts.live is not b.opts.live
