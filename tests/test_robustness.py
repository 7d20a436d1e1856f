"""Robustness (issue P3): the checker, the engine and every command survive bad input.

1. Mutants of both shipped rules files (tokens and lines deleted or duplicated, names
   misspelt and swapped, extreme numbers, random bytes, truncation, a byte-order mark,
   an empty file): `rulespec check` ends with exit 0 or 1, a located error first, no
   traceback, in bounded time.
2. A mutant that still checks clean does not crash `graph`, `doc` or the engine: random
   games (at most 300 decisions each) end, or fail with a rulespec error (RulesError,
   EngineError), never another Python exception.
3. Bad input to every command (a missing file, a directory, a binary file, a rules file
   with errors, bad options and player counts, broken scenarios) gives a one-line error
   and exit 1 or 2.

The number of Hypothesis examples per rules file is RULESPEC_ROBUSTNESS_EXAMPLES
(default 150; the gentle mutations that reach the engine more often get a sixth of
that).  Every example runs under an alarm, so a hang fails the test.  A long session
outside the suite:

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
from rulespec.lang.checker import check_text
from rulespec.tools.cli import main
from rulespec.lang.diagnostics import RulesError
from rulespec.tools.docs import to_markdown
from rulespec.lang.graph import to_dot, to_mermaid

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
    """Load a rules text that checks clean, draw its graph and rulebook, and play short random games.

    Returns what happened (for statistics); any exception other than a rulespec
    error escapes and fails the caller."""
    outcomes = []
    model = check_text(text, path)
    to_mermaid(model), to_dot(model), to_markdown(model)  # `rulespec graph` and `rulespec doc`
    try:
        game = Game(model, path)
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
@settings(max_examples=max(10, EXAMPLES // 6), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(steps=st.lists(GENTLE, min_size=1, max_size=2))
def test_gentle_mutants_play_without_crashing(name, steps):
    check_and_play(name, mutate(TEXTS[name], steps))


# ---------------------------------------------------------------------- extreme numbers, by hand
@pytest.mark.parametrize("old,new,message", [
    ("copies: 2 }", "copies: 1000000000000000000000000000000 }", "this number is too large"),
    ("copies: 2 }", "copies: 999999999999999999 }", "copies is too many: a deck holds at most 10000 cards"),
    ('card "red A"  { value: 1  colour: red  copies: 2 }', 'card "red A"  { value: 1  colour: red  copies: 9990 }',
     "with card 'red 7' the deck holds 10002 cards; at most 10000"),
    ("copies: 2 }", "copies: 0 }", "a card needs at least 1 copy"),
    ("copies: 2 }", "copies: -1 }", "a card needs at least 1 copy"),
    ("players 2..5", "players 0..5", "players 0..5 is not a valid range"),
    ("players 2..5", "players 5..2", "players 5..2 is not a valid range"),
    ("players 2..5", "players 2..999999999999999999", "a game is for at most 100 players"),
    ("players 2..5", "players 2..-1", ""),
    ("amount: int in 0..5", "amount: int in 0..999999999999999999", "holds 1000000000000000000 numbers; at most"),
    ("amount: int in 0..5", "amount: int in -999999999999999999..0", "numbers; at most 10000"),
])
def test_extreme_numbers_in_charuma(tmp_path, old, new, message):
    text = TEXTS["charuma"]
    assert old in text
    path = tmp_path / "extreme.rules"
    path.write_text(text.replace(old, new), encoding="utf-8")
    code, out, err = run("check", path, seconds=CHECK_SECONDS)
    assert_check_outcome(code, out, err, str(path))
    assert code == 1 and message in err.split("\n")[0], err


@pytest.mark.parametrize("old,new", [
    ("deal 2 from stock", "deal 999999999999999999 from stock"),
    ("deal 2 from stock", "deal 0 from stock"),
    ("deal 2 from stock", "deal -1 from stock"),
    ("amount: int in 0..5", "amount: int in 0..0"),
    ("amount: int in 0..5", "amount: int in 5..0"),
    ("amount: int in 0..5", "amount: int in -5..1994"),
    ("players 2..5", "players 1..100"),
    ("players 2..5", "players 100..100"),
    ('card "red A"  { value: 1  colour: red  copies: 2 }', 'card "red A"  { value: 1  colour: red  copies: 9962 }'),
    ("then 25 else 20", "then 999999999999999999 else -999999999999999999"),
    ("var points[player]: int = 5", "var points[player]: int = 999999999999999999"),
])
def test_extreme_numbers_that_check_clean_do_not_crash_the_engine(tmp_path, old, new):
    text = TEXTS["charuma"]
    assert old in text
    path = tmp_path / "extreme.rules"
    path.write_text(text.replace(old, new), encoding="utf-8")
    code, out, err = run("check", path, seconds=CHECK_SECONDS)
    assert code == 0, err
    with time_limit(GAME_SECONDS, "random games"):
        play_random_games(text.replace(old, new), str(path), seeds=(0,))


HUGE_RANGE_AT_RUN_TIME = [("amount: int in 0..5", "amount: int in 0..points[active]"),
                          ("var points[player]: int = 5", "var points[player]: int = 999999999999999999")]


def huge_range_rules(tmp_path: Path) -> Path:
    text = TEXTS["charuma"]
    for old, new in HUGE_RANGE_AT_RUN_TIME:
        text = text.replace(old, new)
    path = tmp_path / "huge-range.rules"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_huge_range_at_run_time_is_a_clean_error_of_play(tmp_path):
    # the checker cannot bound 0..points[active]; the engine runs out of memory listing the bids
    path = huge_range_rules(tmp_path)
    assert run("check", path)[0] == 0
    code, out, err = run("play", path, "--max-steps", "5")
    assert_no_traceback(out, err)
    assert code == 1 and err.startswith("rulespec play: error: ") and "range" in err and len(err.strip().splitlines()) == 1


def test_a_huge_range_at_run_time_is_a_rule_runtime_error(tmp_path):
    path = huge_range_rules(tmp_path)
    play_random_games(path.read_text(encoding="utf-8"), str(path), seeds=(0,))


# ---------------------------------------------------------------------- every command, bad input
BAD_RULES = 'game "Bad" {\n  players 2..2\n  start nowhere\n}\n'


@pytest.fixture
def bad_files(tmp_path):
    (tmp_path / "binary.rules").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)))
    (tmp_path / "errors.rules").write_text(BAD_RULES, encoding="utf-8")
    (tmp_path / "adir").mkdir()
    return {"missing": (tmp_path / "nope.rules", "no such file"),
            "directory": (tmp_path / "adir", "is a directory, not a rules file"),
            "binary": (tmp_path / "binary.rules", "this is a binary file, not a rules file"),
            "errors": (tmp_path / "errors.rules", "")}


def assert_no_traceback(out: str, err: str) -> None:
    assert "Traceback" not in out and "Traceback" not in err
    assert "internal error" not in out and "internal error" not in err


@pytest.mark.parametrize("kind", ["missing", "directory", "binary", "errors"])
@pytest.mark.parametrize("command", [["check"], ["graph"], ["doc"], ["play"], ["bench", "--games", "1"],
                                     ["stats", "--games", "1", "--workers", "1"]])
def test_bad_rules_file_for_every_command(bad_files, kind, command):
    path, message = bad_files[kind]
    code, out, err = run(command[0], path, *command[1:])
    assert_no_traceback(out, err)
    assert code == 1, err
    first = err.split("\n")[0]
    assert ERROR_LINE.match(first) and first.startswith(f"{path}:"), err
    assert message in first
    assert out == ""


def one_line_error(code: int, out: str, err: str, command: str, expected_code: int, message: str) -> None:
    assert_no_traceback(out, err)
    assert code == expected_code, (code, err)
    lines = err.strip().split("\n")
    assert lines[-1].startswith(f"rulespec {command}: error: "), err
    assert message in lines[-1], err
    if len(lines) > 1:  # argparse shows the usage first
        assert expected_code == 2 and err.startswith("usage: "), err
    assert out == ""


@pytest.mark.parametrize("command", ["play", "bench", "stats"])
@pytest.mark.parametrize("args,code,message", [
    (["--option", "nope=1"], 1, "unknown option 'nope' for Charuma (options: bidding)"),
    (["--option", "biding=true"], 1, "did you mean 'bidding'?"),
    (["--option", "bidding=maybe"], 1, "option 'bidding' is true or false, not 'maybe'"),
    (["--option", "=1"], 1, "unknown option ''"),
    (["--option", "bidding"], 2, "--option needs NAME=VALUE"),
    (["--players", "9"], 1, "Charuma is for 2-5 players, not 9"),
    (["--players", "0"], 1, "Charuma is for 2-5 players, not 0"),
    (["--players", "-1"], 1, "Charuma is for 2-5 players, not -1"),
    (["--players", "1000000000000000000000000000000"], 1, "not 1000000000000000000000000000000"),
    (["--players", "two"], 2, "argument --players: invalid int value: 'two'"),
    (["--players"], 2, "argument --players: expected one argument"),
    (["--seed", "x"], 2, "argument --seed: invalid int value: 'x'"),
    (["--bogus"], 2, "unrecognized arguments: --bogus"),
    (["extra.rules"], 2, "unrecognized arguments: extra.rules"),
])
def test_bad_options_and_players(command, args, code, message):
    extra = {"bench": ["--games", "1", "--runs", "1"], "stats": ["--games", "1", "--workers", "1", "-q"]}.get(
        command, ["--max-steps", "5"])
    one_line_error(*run(command, CHARUMA, *extra, *args), command, code, message)


@pytest.mark.parametrize("command,args,code,message", [
    ("play", ["--human", "0"], 2, "--human 0: there are only 2 seats (1 to 2)"),
    ("play", ["--human", "3"], 2, "--human 3: there are only 2 seats"),
    ("play", ["--max-steps", "0"], 2, "--max-steps must be at least 1"),
    ("play", ["--log", "/nonexistent-dir/x.jsonl"], 1, "No such file or directory: /nonexistent-dir/x.jsonl"),
    ("bench", ["--games", "0"], 2, "--games and --runs must be at least 1"),
    ("bench", ["--runs", "-1"], 2, "--games and --runs must be at least 1"),
    ("graph", ["--format", "png"], 2, "argument --format: invalid choice: 'png'"),
    ("graph", ["-o", "/nonexistent-dir/g.md"], 1, "cannot write /nonexistent-dir/g.md: No such file or directory"),
    ("graph", ["--bogus"], 2, "unrecognized arguments: --bogus"),
    ("check", ["--bogus"], 2, "unrecognized arguments: --bogus"),
])
def test_other_bad_arguments(command, args, code, message):
    one_line_error(*run(command, CHARUMA, *args), command, code, message)


def test_play_with_unknown_argument_is_a_usage_error_of_play(capsys):
    assert main(["play", CHARUMA, "--bogus"]) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith("usage: rulespec play ")
    assert cap.err.strip().split("\n")[-1] == "rulespec play: error: unrecognized arguments: --bogus"


@pytest.mark.parametrize("argv,message", [
    ([], "the following arguments are required: COMMAND"),
    (["bogus"], "argument COMMAND: invalid choice: 'bogus'"),
    (["--bogus"], "the following arguments are required: COMMAND"),
    (["test"], "the following arguments are required: FILE_OR_DIR"),
    (["play"], "the following arguments are required: FILE"),
])
def test_no_command_or_an_unknown_one(capsys, argv, message):
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.err.startswith("usage: rulespec") and message in cap.err.strip().split("\n")[-1], cap.err
    assert re.match(r"rulespec( \w+)?: error: ", cap.err.strip().split("\n")[-1])


# ---------------------------------------------------------------------- rulespec test, bad scenarios
def scenario(tmp_path: Path, body: str, name: str = "case.yaml") -> Path:
    p = tmp_path / name
    p.write_text(body, encoding="utf-8")
    return p


BAD_SCENARIOS = {
    "unknown card": ("players: 3\nposition:\n  zones:\n    hand[P1]: [red Z]\n",
                     r"case\.yaml:5: unknown card 'red Z'; did you mean 'red A'\?"),
    "unknown zone": ("position:\n  zones:\n    hand[P4]: [red A]\n",
                     r"case\.yaml:4: zone 'hand\[P4\]': there is no P4 in a 2-player game"),
    "misspelt zone": ("position:\n  zones:\n    hnad[P1]: [red A]\n",
                      r"case\.yaml:4: unknown zone 'hnad\[P1\]'; did you mean 'hand\[P1\]'\?"),
    "unknown player": ("position:\n  active: P7\n", r"case\.yaml:3: active: there is no P7 in a 2-player game"),
    "not a player": ("position:\n  active: Bob\n", r"case\.yaml:3: active: expected a player P1\.\.P2, not Bob"),
    "unknown phase": ("position:\n  phase: bidingg\n", r"case\.yaml:3: unknown phase 'bidingg'; did you mean 'bidding'\?"),
    "unknown variable": ("position:\n  vars: {pionts: 3}\n",
                         r"case\.yaml:3: unknown variable 'pionts'; did you mean 'points'\?"),
    "unknown option": ("options: {biding: false}\n", r"case\.yaml:2: unknown option 'biding'"),
    "bad option value": ("options: {bidding: 7}\n", r"case\.yaml:2: option 'bidding' is true or false, not '7'"),
    "bad players": ("players: 99\n", r"case\.yaml:2: Charuma is for 2-5 players, not 99"),
    "players not a number": ("players: many\n", r"case\.yaml:2: players should be a whole number, not many"),
    "unknown key": ("steps:\n  - expct: {active: P1}\n", r"case\.yaml:3: unknown key 'expct' in a step"),
    "unknown action": ("steps:\n  - play: fly away\n", r"case\.yaml:3: 'fly away' is not a legal action"),
    "bad expectation": ("steps:\n  - expect: {counts: {stock: lots}}\n",
                        r"case\.yaml:3: count of 'stock' should be a whole number, not lots"),
}


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_bad_scenarios_fail_with_one_line(tmp_path, case):
    body, message = BAD_SCENARIOS[case]
    path = scenario(tmp_path, f"rules: {CHARUMA}\n" + body)
    code, out, err = run("test", path)
    assert_no_traceback(out, err)
    assert code == 1 and err == ""
    lines = out.strip().split("\n")
    assert len(lines) == 2 and lines[1] == "0 passed, 1 failed", out
    assert lines[0].startswith("FAIL case: ") and re.search(message, lines[0]), lines[0]


@pytest.mark.parametrize("body,message", [
    ("", r"the file holds no scenario"),
    ("# only a comment\n", r"the file holds no scenario"),
    ("- rules: x\n", r":1: a scenario is a mapping of keys"),
    ("just some text\n", r":1: a scenario is a mapping of keys"),
    ("rules: [unclosed\n", r"YAML syntax error"),
    ("rules: nowhere.rules\n", r":1: no rules file at .*nowhere\.rules"),
    ("steps: []\n", r":1: the scenario needs 'rules: PATH'"),
    ("rules: .\n", r":1: the rules path .* is a directory, not a rules file"),
    ("rules: " + "a" * 5000 + "\n", r":1: no rules file at '"),
    ("rules: " + "[" * 1500 + "]" * 1500 + "\n", r"the YAML nests too deeply"),
    ("rules: {{R}}\nsteps:\n" + "  - legal_count: 1\n" * 2, r":3: legal_count: expected 1, got"),
])
def test_broken_scenario_files(tmp_path, body, message):
    path = scenario(tmp_path, body.replace("{{R}}", CHARUMA))
    code, out, err = run("test", path)
    assert_no_traceback(out, err)
    assert code == 1 and err == ""
    lines = out.strip().split("\n")
    assert len(lines) == 2 and lines[0].startswith("FAIL ") and re.search(message, lines[0]), out


@pytest.mark.parametrize("kind", ["missing", "directory", "binary", "errors"])
def test_scenario_whose_rules_file_is_bad(tmp_path, bad_files, kind):
    path, _ = bad_files[kind]
    code, out, err = run("test", scenario(tmp_path, f"rules: {path}\n"))
    assert_no_traceback(out, err)
    assert code == 1 and err == ""
    first = out.split("\n")[0]
    assert first.startswith("FAIL case: ") and "case.yaml:1: " in first, out
    assert {"missing": "no rules file at", "directory": "is a directory, not a rules file",
            "binary": "the rules file has errors: ", "errors": "the rules file has errors: "}[kind] in first


def test_scenario_paths_that_are_not_scenarios(tmp_path, bad_files):
    empty = tmp_path / "empty-dir"
    empty.mkdir()
    code, out, err = run("test", empty)
    assert code == 1 and out.strip().split("\n") == ["no scenario files found", "0 passed, 0 failed"]
    for kind in ("missing", "binary", "errors"):
        path, _ = bad_files[kind]
        code, out, err = run("test", path)
        assert_no_traceback(out, err)
        assert code == 1 and err == "" and out.startswith("FAIL "), out
        assert len(out.strip().split("\n")) == 2


# ---------------------------------------------------------------------- as a separate process
def test_subprocess_bad_input_has_no_traceback(tmp_path, bad_files):
    cases = [
        (["play", CHARUMA, "--bogus"], 2, "rulespec play: error: unrecognized arguments: --bogus"),
        (["play", str(bad_files["binary"][0])], 1, "error: this is a binary file, not a rules file"),
        (["test", str(scenario(tmp_path, "rules: " + "[" * 1500))], 1, ""),
        (["nonsense"], 2, "rulespec: error: argument COMMAND: invalid choice: 'nonsense'"),
    ]
    for argv, code, message in cases:
        r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", *argv], capture_output=True, text=True,
                           cwd=ROOT, timeout=120)
        assert r.returncode == code, (argv, r.stderr)
        assert "Traceback" not in r.stderr and "Traceback" not in r.stdout, r.stderr
        assert message in r.stderr, (argv, r.stderr)
