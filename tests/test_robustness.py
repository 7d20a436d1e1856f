"""Robustness (issue P3): the checker, the engine and every command survive bad input.

1. Mutants of both shipped rules files (tokens and lines deleted or duplicated, names
   misspelt and swapped, extreme numbers, random bytes, truncation, a byte-order mark,
   an empty file): `rulespec check` ends with exit 0 or 1, a located error first, no
   traceback, in bounded time.
2. A mutant that still checks clean does not crash the engine: random games end, or
   fail with a rulespec error (RulesError, EngineError), never another Python exception.
3. Bad input to every command (a missing file, a directory, a binary file, a rules file
   with errors, bad options and player counts, broken scenarios) gives a one-line error
   and exit 1 or 2.

The number of Hypothesis examples per rules file is RULESPEC_ROBUSTNESS_EXAMPLES
(default 150); a long session outside the suite:

    RULESPEC_ROBUSTNESS_EXAMPLES=5000 .venv/bin/pytest tests/test_robustness.py \
        -k mutants --hypothesis-show-statistics
"""
from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from interpreter.errors import EngineError
from interpreter.game import Game
from rulespec.checker import check_text
from rulespec.cli import main
from rulespec.diagnostics import RulesError

ROOT = Path(__file__).resolve().parent.parent
GAMES = {name: ROOT / "games" / f"{name}.rules" for name in ("charuma", "chuhan")}
TEXTS = {name: path.read_text(encoding="utf-8") for name, path in GAMES.items()}
CHARUMA = str(GAMES["charuma"])

EXAMPLES = int(os.environ.get("RULESPEC_ROBUSTNESS_EXAMPLES", "150"))
CHECK_SECONDS = 5      # one `rulespec check` of a mutant
GAME_SECONDS = 10      # every game played with one mutant, together
MAX_DECISIONS = 300    # per game

ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: \S")
OK_LINE = re.compile(r"^\S+: ok \(.+: \d+ phases?, \d+ actions?, \d+ cards?(, \d+ warnings?)?\)$")


# ---------------------------------------------------------------------- helpers
class Hang(BaseException):
    """Raised by the alarm: a BaseException, so no `except Exception` in the code under test hides it."""


@contextlib.contextmanager
def time_limit(seconds: float, what: str):
    def on_alarm(signum, frame):
        raise Hang(f"{what} took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def run(*argv, seconds: float = 60) -> tuple[int, str, str]:
    """Run the CLI in-process; any exception that escapes fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with time_limit(seconds, "rulespec " + " ".join(map(str, argv))):
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def assert_check_outcome(code: int, out: str, err: str, path: str) -> None:
    """Exit 0 with an 'ok' line, or exit 1 whose first line on stderr is a located error."""
    assert "Traceback" not in err and "Traceback" not in out
    assert code in (0, 1), (code, err)
    if code == 0:
        assert OK_LINE.match(out.strip().split("\n")[-1]), out
        assert ": error: " not in err
    else:
        first = err.split("\n")[0]
        assert ERROR_LINE.match(first), err[:2000]
        assert first.startswith(f"{path}:"), first
        assert re.search(r"^\S+: \d+ errors?$", err, re.M), err[-500:]


def play_random_games(text: str, path: str, seeds=(0, 1)) -> list[str]:
    """Load a rules text that checks clean and play short random games with it.

    Returns what happened (for statistics); any exception other than a rulespec
    error escapes and fails the caller."""
    outcomes = []
    try:
        game = Game(check_text(text, path), path)
    except (RulesError, EngineError) as e:
        return [f"load failed cleanly: {type(e).__name__}"]
    m = game.model
    counts = sorted({m.min_players, min(m.max_players, m.min_players + 1), min(m.max_players, 5)})
    start = time.monotonic()
    for players in counts:
        for seed in seeds:
            rng = random.Random(seed)
            try:
                st = game.new_state(players=players, seed=seed)
                for _ in range(MAX_DECISIONS):
                    if st.is_terminal():
                        break
                    legal = st.legal_actions()
                    if not legal:
                        break
                    st.observation(st.current_player)
                    st.apply(rng.choice(legal))
                    if time.monotonic() - start > GAME_SECONDS / 2:
                        break
                st.log_lines()
                st.log_lines(0)
                st.scores()
                st.winners()
                outcomes.append("terminal" if st.is_terminal() else "stopped")
            except (RulesError, EngineError) as e:
                outcomes.append(f"clean {type(e).__name__}")
                assert "Traceback" not in str(e)
    return outcomes


# ---------------------------------------------------------------------- mutations
TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d+|\"(?:[^\"\\\n]|\\.)*\"|\.\.|\s+|.", re.S)
NAME_RE = re.compile(r"[A-Za-z_]\w*")
NUMBER_RE = re.compile(r"\d+")
NAMES = sorted(set(NAME_RE.findall(TEXTS["charuma"])) | set(NAME_RE.findall(TEXTS["chuhan"])))
for _text in TEXTS.values():
    assert "".join(TOKEN_RE.findall(_text)) == _text
EXTREME_NUMBERS = ["0", "-1", "1", "-0", "00", "2147483648", "999999999999999999", "1000000",
                   "1000000000000000000000000000000", "10**30", "1e30", "-999999999999999999"]
SNIPPETS = ["{", "}", "(", ")", "[", "]", ",", ":", "..", "=", "+=", "-", "\"", "#", "\n", "\t", "\\",
            "\x00", "\ufeff", "é", "\u2028", "if", "for", "end game", "next", "phase", "none", "players",
            "copies: 0", "deal 999999999999999999 from", "..-1", "card \"x\" { }", "zone z: pile",
            "move", "stack", "respond to", "ties last"]

index = st.integers(0, 10**6)  # taken modulo the length of whatever it indexes
MUTATION = st.one_of(
    st.tuples(st.just("delete_lines"), st.lists(index, min_size=1, max_size=4)),
    st.tuples(st.just("duplicate_line"), index, index),
    st.tuples(st.just("swap_lines"), index, index),
    st.tuples(st.just("delete_tokens"), st.lists(index, min_size=1, max_size=4)),
    st.tuples(st.just("duplicate_token"), index, index),
    st.tuples(st.just("rename"), st.lists(st.tuples(index, st.sampled_from(NAMES)), min_size=1, max_size=4)),
    st.tuples(st.just("misspell"), index, index, st.sampled_from(["drop", "double", "swap", "case", "digit"])),
    st.tuples(st.just("swap_names"), index, index),
    st.tuples(st.just("number"), st.lists(st.tuples(index, st.sampled_from(EXTREME_NUMBERS)), min_size=1,
                                          max_size=3)),
    st.tuples(st.just("insert_text"), index, st.sampled_from(SNIPPETS)),
    st.tuples(st.just("truncate"), index),
    st.tuples(st.just("insert_bytes"), index, st.binary(min_size=1, max_size=6)),
    st.tuples(st.just("bom")),
    st.tuples(st.just("replace_all"), st.binary(max_size=200)),
)


def mutate(base: str, steps) -> bytes:
    """Apply the steps one after the other to the bytes of a rules text."""
    data = base.encode("utf-8")
    for op, *args in steps:
        text = data.decode("utf-8", errors="surrogateescape")  # inserted bytes survive the round trip
        lines = text.splitlines(keepends=True) or [""]
        tokens = TOKEN_RE.findall(text) or [""]
        names = [i for i, t in enumerate(tokens) if NAME_RE.fullmatch(t)] or [0]
        numbers = [i for i, t in enumerate(tokens) if NUMBER_RE.fullmatch(t)] or [0]
        if op == "delete_lines":
            for i in sorted({i % len(lines) for i in args[0]}, reverse=True):
                del lines[i]
            text = "".join(lines)
        elif op == "duplicate_line":
            lines.insert(args[1] % (len(lines) + 1), lines[args[0] % len(lines)])
            text = "".join(lines)
        elif op == "swap_lines":
            a, b = args[0] % len(lines), args[1] % len(lines)
            lines[a], lines[b] = lines[b], lines[a]
            text = "".join(lines)
        elif op == "delete_tokens":
            for i in sorted({i % len(tokens) for i in args[0]}, reverse=True):
                del tokens[i]
            text = "".join(tokens)
        elif op == "duplicate_token":
            tokens.insert(args[1] % (len(tokens) + 1), tokens[args[0] % len(tokens)])
            text = "".join(tokens)
        elif op == "rename":
            for i, name in args[0]:
                tokens[names[i % len(names)]] = name
            text = "".join(tokens)
        elif op == "misspell":
            i = names[args[0] % len(names)]
            word = tokens[i] or "x"
            k = args[1] % len(word)
            how = args[2]
            if how == "drop" and len(word) > 1:
                word = word[:k] + word[k + 1:]
            elif how == "double":
                word = word[:k] + word[k] + word[k:]
            elif how == "swap" and k + 1 < len(word):
                word = word[:k] + word[k + 1] + word[k] + word[k + 2:]
            elif how == "case":
                word = word[:k] + word[k].swapcase() + word[k + 1:]
            else:
                word = word[:k] + "7" + word[k:]
            tokens[i] = word
            text = "".join(tokens)
        elif op == "swap_names":
            a, b = names[args[0] % len(names)], names[args[1] % len(names)]
            tokens[a], tokens[b] = tokens[b], tokens[a]
            text = "".join(tokens)
        elif op == "number":
            for i, value in args[0]:
                tokens[numbers[i % len(numbers)]] = value
            text = "".join(tokens)
        elif op == "insert_text":
            at = args[0] % (len(tokens) + 1)
            tokens.insert(at, args[1])
            text = "".join(tokens)
        elif op == "truncate":
            text = text[: args[0] % (len(text) + 1)]
        data = text.encode("utf-8", errors="surrogateescape")
        if op == "insert_bytes":
            at = args[0] % (len(data) + 1)
            data = data[:at] + args[1] + data[at:]
        elif op == "bom":
            data = b"\xef\xbb\xbf" + data
        elif op == "replace_all":
            data = args[0]
    return data


def test_mutate_applies_every_step():
    base = TEXTS["charuma"]
    assert mutate(base, [("truncate", 10)]) == base[:10].encode()
    assert mutate(base, [("bom",)]) == b"\xef\xbb\xbf" + base.encode()
    assert mutate(base, [("replace_all", b"")]) == b""
    assert mutate(base, [("swap_lines", 0, 1)]).decode().split("\n")[:2] == base.split("\n")[1::-1]
    players = mutate("players 2..5\n", [("number", [(0, "0"), (1, "999999999999999999")])]).decode()
    assert players == "players 0..999999999999999999\n"
    assert mutate(base, [("misspell", 0, 0, "case")]).decode() != base


def check_and_play(name: str, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / f"{name}-mutant.rules"
        path.write_bytes(data)
        code, out, err = run("check", path, seconds=CHECK_SECONDS)
        assert_check_outcome(code, out, err, str(path))
        event(f"check exit {code}")
        if code == 0:
            text = data.decode("utf-8-sig")
            with time_limit(GAME_SECONDS, "random games with a mutant that checks clean"):
                for outcome in play_random_games(text, str(path)):
                    event(f"game: {outcome}")


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(steps=st.lists(MUTATION, min_size=1, max_size=3))
def test_mutants_check_cleanly_and_play_without_crashing(name, steps):
    check_and_play(name, mutate(TEXTS[name], steps))


# Mutations that keep a file more often valid, so that more mutants reach the engine.
GENTLE = st.one_of(
    st.tuples(st.just("number"), st.lists(st.tuples(index, st.sampled_from(EXTREME_NUMBERS[:8])), min_size=1,
                                          max_size=3)),
    st.tuples(st.just("swap_names"), index, index),
    st.tuples(st.just("duplicate_line"), index, index),
    st.tuples(st.just("delete_lines"), st.lists(index, min_size=1, max_size=1)),
)


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=max(10, EXAMPLES // 5), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(GENTLE, min_size=1, max_size=2))
def test_gentle_mutants_play_without_crashing(name, steps):
    check_and_play(name, mutate(TEXTS[name], steps))
