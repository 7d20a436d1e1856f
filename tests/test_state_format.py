"""State.from_json refuses a saved state that is not consistent (issue P12), with a message that
says what is wrong and where, and a state it accepts can be played on.

The mutation fuzz takes states from real games in mid-play (San Guo Sha with 6 players and its
response stack, Chu Han with its events, Charuma), changes one thing at random (deletes a key, puts
a value of another type, an out-of-range number, duplicates, drops or shuffles a list's elements)
and asserts that from_json either refuses it (StateFormatError) or gives a state on which
legal_actions, apply, observation, log_lines and to_json work, raising at most the engine's own
clear errors.  benchmarks/state_format.py runs more of them (--mutations N).
"""
from __future__ import annotations

import copy
import functools
import json
import random
import re
from pathlib import Path

import pytest

from interpreter import IllegalActionError, RuleRuntimeError, State, load
from interpreter.saved_log import ENTRY_KINDS, _all_fit
from interpreter.serialise import StateFormatError, _Validator

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

# ---------------------------------------------------------------------- states from real games
# (rules file, players, options, seed, the decisions after which a state is taken)
SOURCES = [
    ("sanguosha.rules", 6, {}, 0, (60, 120, 200, 260, 330, 375)),
    ("sanguosha.rules", 6, {"formations": True, "momentum": True, "bi_thien": True}, 2, (80, 160, 240)),
    ("chuhan.rules", 2, {"events": True}, 1, (20, 45, 70)),
    ("charuma.rules", 4, {}, 1, (15, 40)),
]


@functools.lru_cache(maxsize=None)
def game(name: str):
    return load(str(GAMES / name))


@functools.lru_cache(maxsize=None)
def sample_states() -> tuple:
    """(rules file name, a state's JSON) taken in random games (seeded): the states at the listed
    decisions, and every state where a block waits for a choice or a response window with two
    entries or more on the stack (at most a few per game)."""
    out = []
    for name, players, options, seed, marks in SOURCES:
        st = game(name).new_state(players=players, seed=seed, options=options)
        rng = random.Random(seed)
        deep = 0
        for k in range(max(marks) + 1):
            if st.is_terminal():
                break
            interesting = k > 40 and (len(st.stack) >= 2 or (st.in_choice() and st.frames[-1][0] > 2))
            if k in marks or (interesting and deep < 3):
                deep += k not in marks
                out.append((name, st.to_json()))
            st.apply(rng.choice(st.legal_actions()))
    return tuple(out)


# ---------------------------------------------------------------------- mutations
ODD_VALUES = ["x", 1.5, None, [], {}, True, -1, 10**9, [0], {"a": 1}]
SKIPPED = {"rules", "rules_sha256"}  # (a changed hash is refused before anything else is read)
WEIGHTS = {"frames": 4, "pending": 3, "entries": 3, "stack": 2, "log": 3, "vars": 2}  # the rest: 1


def paths(value, prefix=()) -> list:
    """Every place in a JSON value: (path, value), containers and leaves."""
    out = [(prefix, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths(v, prefix + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(paths(v, prefix + (i,)))
    return out


def mutate(d: dict, rng: random.Random) -> str:
    """Change one thing in d (in place); returns what was done."""
    keys = [k for k in d if k not in SKIPPED]
    key = rng.choices(keys, [WEIGHTS.get(k, 1) for k in keys])[0]
    places = paths(d[key], (key,))
    path, value = rng.choice(places)
    parent = d
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    ops = ["type"]
    if isinstance(parent, dict) and len(path) > 1:
        ops.append("delete")
    if type(value) is int:
        ops += ["number", "number"]
    if isinstance(value, list) and value:
        ops += ["duplicate", "drop", "shuffle"]
    op = rng.choice(ops)
    if op == "delete":
        del parent[last]
    elif op == "type":
        parent[last] = copy.deepcopy(rng.choice([v for v in ODD_VALUES if type(v) is not type(value)]))
    elif op == "number":
        parent[last] = rng.choice([-1, value + 1, value - 1, 2 * value + 7, 10**6])
    elif op == "duplicate":
        i = rng.randrange(len(value))
        value.insert(rng.randrange(len(value) + 1), copy.deepcopy(value[i]))
    elif op == "drop":
        value.pop(rng.randrange(len(value)))
    else:
        rng.shuffle(value)
    return f"{op} at {'/'.join(map(str, path))}"


# a wrapped Python error, or a stack entry gone: a broken state blamed on the rules
BLAMES_THE_RULES = re.compile(r"(TypeError|IndexError|KeyError|AttributeError|ValueError|ZeroDivisionError|"
                              r"RecursionError)|stack entry \d+ is gone")


def exercise(st: State, rng: random.Random) -> None:
    """What a tool does with a state it read: raises if anything breaks."""
    for p in [None] + list(range(st.n)):
        st.observation(p)
        st.log_lines(p)
    st.to_json()
    legal = st.legal_actions()
    for action in rng.sample(legal, min(3, len(legal))):
        nxt = st.clone()
        try:
            nxt.apply(action)
        except IllegalActionError:
            continue
        nxt.legal_actions()
        nxt.observation(0)
        nxt.log_lines(0)
        nxt.to_json()


def try_mutation(name: str, text: str, rng: random.Random) -> tuple:
    """(outcome, what was done, the problem or None): the outcome is "refused", "accepted" or
    "broken" (from_json accepted a state that then failed)."""
    d = json.loads(text)
    what = mutate(d, rng)
    try:
        st = State.from_json(json.dumps(d), game(name))
    except StateFormatError:
        return "refused", what, None
    except Exception as e:  # noqa: BLE001
        return "broken", what, f"from_json: {type(e).__name__}: {e}"
    try:
        exercise(st, rng)
    except RuleRuntimeError as e:
        if BLAMES_THE_RULES.search(str(e)):
            return "broken", what, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 -- any other exception is what this test looks for
        return "broken", what, f"{type(e).__name__}: {e}"
    return "accepted", what, None


def run_mutations(count: int, seed: int = 0) -> dict:
    """Run `count` mutations (seeded); raise AssertionError naming every broken one."""
    rng = random.Random(seed)
    states = sample_states()
    outcome = {"refused": 0, "accepted": 0, "broken": 0}
    broken = []
    for k in range(count):
        name, text = states[k % len(states)]
        result, what, problem = try_mutation(name, text, rng)
        outcome[result] += 1
        if problem is not None:
            broken.append(f"{name}, state {k % len(states)}, {what}: {problem[:300]}")
    assert not broken, f"{len(broken)} accepted state(s) broke:\n" + "\n".join(broken)
    return outcome


def test_mutated_states_are_refused_or_work():
    outcome = run_mutations(300, seed=1)
    assert outcome["refused"] > 100  # (most single changes make a state inconsistent)


def test_the_sample_has_deep_stacks_and_pending_choices():
    states = [json.loads(t) for _, t in sample_states()]
    assert max(len(d["stack"]) for d in states) >= 2
    assert any(d["pending"] and d["pending"]["kind"] == "choice" and len(d["frames"]) >= 2 for d in states)
    assert any(d["pending"] and d["pending"]["kind"] == "window" for d in states)
