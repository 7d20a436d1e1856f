"""`rulespec check`: exit codes, compiler-style output, and no traceback whatever the input."""
from __future__ import annotations

import contextlib
import io
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"
CHARUMA_TEXT = CHARUMA.read_text(encoding="utf-8")

ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: \S")
OK_LINE = re.compile(r"^\S+: ok \(.+: \d+ phases?, \d+ actions?, \d+ cards?(, \d+ warnings?)?\)$")


def run(*argv) -> tuple[int, str, str]:
    """Run the CLI in-process; any exception that escapes fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def check_bytes(data: bytes, tmp: Path, name: str = "t.rules") -> tuple[int, str, str]:
    f = tmp / name
    f.write_bytes(data)
    return run("check", f)


def assert_clean_outcome(code: int, out: str, err: str, path: str | None = None) -> None:
    """Exit 0 with an 'ok' line, or exit 1 whose first line on stderr is a located error."""
    assert "Traceback" not in err and "Traceback" not in out
    assert code in (0, 1), (code, err)
    if code == 0:
        assert OK_LINE.match(out.strip().split("\n")[-1]), out
        assert ": error: " not in err
    else:
        first = err.split("\n")[0]
        assert ERROR_LINE.match(first), err[:2000]
        if path is not None:
            assert first.startswith(f"{path}:")
        assert re.search(r"^\S+: \d+ errors?$", err, re.M), err[-500:]


# ---------------------------------------------------------------- exit codes
def test_clean_file_exits_0(capsys):
    assert main(["check", str(CHARUMA)]) == 0
    cap = capsys.readouterr()
    assert OK_LINE.match(cap.out.strip()), cap.out
    assert cap.out.startswith(f"{CHARUMA}: ok (Charuma: ")
    assert cap.err == ""


def test_warnings_alone_exit_0(tmp_path, capsys):
    f = tmp_path / "w.rules"
    f.write_text(CHARUMA_TEXT + "\nzone spare: pile public\nvar unused: int = 0\n", encoding="utf-8")
    assert main(["check", str(f)]) == 0
    cap = capsys.readouterr()
    assert f"{f}:" in cap.err and ": warning: zone 'spare' is never used" in cap.err
    assert ": warning: variable 'unused' is never used" in cap.err
    assert ": error: " not in cap.err
    assert cap.out.strip().endswith(", 2 warnings)")


def test_errors_exit_1_with_compiler_style_output(tmp_path, capsys):
    f = tmp_path / "bad.rules"
    f.write_text(CHARUMA_TEXT.replace("move stock to aside", "move stock to asdie"), encoding="utf-8")
    assert main(["check", str(f)]) == 1
    cap = capsys.readouterr()
    lines = cap.err.split("\n")
    line_no = CHARUMA_TEXT[:CHARUMA_TEXT.index("move stock to aside")].count("\n") + 1
    src_line = CHARUMA_TEXT.split("\n")[line_no - 1]
    col = src_line.index("aside") + 1
    assert lines[0] == f"{f}:{line_no}:{col}: error: unknown zone 'asdie' [unknown-name]"
    assert lines[1] == "    " + src_line.replace("aside", "asdie")
    assert lines[2] == "    " + " " * (col - 1) + "^~~~~"
    assert lines[3] == "  hint: did you mean 'aside'?"
    assert lines[-2] == f"{f}: 1 error"
    assert cap.out == ""


def test_three_errors_are_all_reported(tmp_path, capsys):
    f = tmp_path / "three.rules"
    text = (CHARUMA_TEXT.replace("move stock to aside", "move stock to asdie")
            .replace("next family_groups", "next family_gruops")
            .replace("var leader: player = none", "var leader: playr = none"))
    f.write_text(text, encoding="utf-8")
    assert main(["check", str(f)]) == 1
    err = capsys.readouterr().err
    headlines = [x for x in err.split("\n") if ERROR_LINE.match(x)]
    assert len(headlines) == 3, err
    assert err.rstrip().endswith(f"{f}: 3 errors")
    assert "did you mean 'aside'?" in err and "did you mean 'family_groups'?" in err
    assert "did you mean 'player'?" in err


def test_several_files_one_bad(tmp_path, capsys):
    bad = tmp_path / "bad.rules"
    bad.write_text("game", encoding="utf-8")
    assert main(["check", str(CHARUMA), str(bad), str(CHARUMA)]) == 1
    cap = capsys.readouterr()
    assert cap.out.count(": ok (") == 2
    assert cap.err.startswith(f"{bad}:1:")


@pytest.mark.parametrize("argv", [[], ["check"], ["check", "--bogus", str(CHARUMA)], ["bogus"],
                                  ["--nope"], ["graph"]])
def test_usage_errors_exit_2(argv, capsys):
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert "usage:" in cap.err and "Traceback" not in cap.err


def test_help_exits_0(capsys):
    assert main(["check", "--help"]) == 0
    assert "usage:" in capsys.readouterr().out


# ---------------------------------------------------------------- bad files
def test_missing_file(tmp_path):
    path = tmp_path / "nope.rules"
    code, out, err = run("check", path)
    assert code == 1 and err.startswith(f"{path}:1:1: error: no such file")
    assert_clean_outcome(code, out, err)


def test_directory(tmp_path):
    code, out, err = run("check", tmp_path)
    assert code == 1 and err.startswith(f"{tmp_path}:1:1: error: is a directory, not a rules file")


def test_binary_file(tmp_path):
    code, out, err = check_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)), tmp_path)
    assert code == 1 and ": error: this is a binary file, not a rules file" in err.split("\n")[0]
    assert_clean_outcome(code, out, err)


def test_non_utf8_file(tmp_path):
    data = CHARUMA_TEXT.encode("utf-8").replace(b'game "Charuma"', b'game "Charum\xe9"')
    code, out, err = check_bytes(data, tmp_path)
    assert code == 1
    assert re.match(r"^\S+:6:13: error: the file is not valid UTF-8 text \[unreadable-file\]$", err.split("\n")[0]), err
    assert "hint: byte 0xe9" in err


def test_non_utf8_position_counts_characters(tmp_path):
    code, _, err = check_bytes("# é\nzone «x»: pile\n".encode("utf-8") + b"var \xff\n", tmp_path)
    assert code == 1 and re.match(r"^\S+:3:5: error: the file is not valid UTF-8", err)


def test_empty_file(tmp_path):
    code, out, err = check_bytes(b"", tmp_path)
    assert code == 1
    assert ": error: there is no 'game' block" in err.split("\n")[0]
    assert_clean_outcome(code, out, err)


def test_whitespace_only_file(tmp_path):
    assert_clean_outcome(*check_bytes(b"  \n\t\n# nothing\n", tmp_path))


def test_byte_order_mark_parses_fine(tmp_path):
    code, out, err = check_bytes(b"\xef\xbb\xbf" + CHARUMA.read_bytes(), tmp_path)
    assert code == 0, err
    assert OK_LINE.match(out.strip())


def test_crlf_and_cr_line_ends(tmp_path):
    assert check_bytes(CHARUMA_TEXT.replace("\n", "\r\n").encode(), tmp_path)[0] == 0
    assert check_bytes(CHARUMA_TEXT.replace("\n", "\r").encode(), tmp_path)[0] == 0
    code, _, err = check_bytes(CHARUMA_TEXT.replace("move stock to aside", "move stock to asdie")
                               .replace("\n", "\r\n").encode(), tmp_path)
    assert code == 1 and "\r" not in err and "    move stock to asdie\n" in err


def test_unicode_line_separators_do_not_shift_the_source_line(tmp_path):
    text = "# a\u2028comment\x0c with odd breaks\u0085\n" + CHARUMA_TEXT.replace("shuffle stock", "shuffle stokc")
    code, _, err = check_bytes(text.encode("utf-8"), tmp_path)
    lines = err.split("\n")
    assert code == 1 and "unknown zone 'stokc'" in lines[0]
    assert lines[1].strip() == "shuffle stokc"


def test_truncated_copies_of_charuma(tmp_path):
    data = CHARUMA_TEXT
    # evenly spaced cuts, plus cuts just before an opening brace, parenthesis or quote
    cuts = sorted({len(data) * i // 47 for i in range(1, 47)}
                  | set([m.start() for m in re.finditer(r"[{(\"]", data)][::7]))
    assert len(cuts) > 50
    for cut in cuts:
        code, out, err = check_bytes(data[:cut].encode("utf-8"), tmp_path)
        assert_clean_outcome(code, out, err)
        assert code == 1, cut  # a cut copy always misses something


def test_cut_in_the_middle_of_a_utf8_character(tmp_path):
    data = ("# café\n" + CHARUMA_TEXT).encode("utf-8")
    cut = data.index("é".encode("utf-8")) + 1
    code, out, err = check_bytes(data[:cut], tmp_path)
    assert code == 1 and "not valid UTF-8" in err.split("\n")[0]


@pytest.mark.parametrize("expr", [
    "(" * 5000 + "1" + ")" * 5000,
    "(1 + " * 5000 + "1" + ")" * 5000,
    "1" + " + 1" * 2000,
    "-" * 2000 + "1",
    "not " * 2000 + "true",
    "[" * 2000 + "]" * 2000,
    "a[" * 1000 + "1" + "]" * 1000,
    "if true then " * 1000 + "1" + " else 2" * 1000,
    "any x in players: " * 1000 + "true",
    "f(" * 1000 + ")" * 1000,
    "(" * 5000,
    "(" * 5000 + "1" + ")" * 4999,
])
def test_deeply_nested_expressions_give_a_clean_error(tmp_path, expr):
    text = CHARUMA_TEXT + f"\nvar deep: int = {expr}\n"
    code, out, err = check_bytes(text.encode(), tmp_path)
    assert_clean_outcome(code, out, err)
    assert len(err) < 20_000  # the excerpt of a long line is cut down


def test_deeply_nested_blocks_give_a_clean_error(tmp_path):
    blocks = "if true { " * 1000 + "}" * 1000
    text = CHARUMA_TEXT.replace("enter { active = leader }", "enter { active = leader " + blocks + " }")
    code, out, err = check_bytes(text.encode(), tmp_path)
    assert code == 1 and "levels deep" in err.split("\n")[0]


def test_deep_nesting_in_a_template(tmp_path):
    text = CHARUMA_TEXT.replace('log "{holder} takes the Charuma token"',
                                'log "{' + "(" * 3000 + "holder" + ")" * 3000 + "} " + "{" + "-" * 1000 + '1}"')
    code, out, err = check_bytes(text.encode(), tmp_path)
    assert_clean_outcome(code, out, err)
    assert code == 1 and "levels deep" in err.split("\n")[0]


def test_long_lines_are_cut_in_the_excerpt(tmp_path):
    text = CHARUMA_TEXT + "\nvar wide: int = " + "1 + " * 3000 + "true\n"
    code, _, err = check_bytes(text.encode(), tmp_path)
    assert code == 1
    assert max(len(line) for line in err.split("\n")) < 300


@pytest.mark.parametrize("seed", range(12))
def test_random_garbage(tmp_path, seed):
    rng = random.Random(seed)
    kind = seed % 4
    if kind == 0:
        data = bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 3000)))
    elif kind == 1:
        data = "".join(rng.choice("abcxyz_0123456789 \n\t{}()[]<>=!+-*/%.,:;\"'#@$^&|~`\\")
                       for _ in range(rng.randrange(1, 3000))).encode()
    elif kind == 2:
        words = re.findall(r"\w+|[^\w\s]+", CHARUMA_TEXT)
        data = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 800))).encode()
    else:
        data = "".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0x2fff)]))
                       for _ in range(rng.randrange(1, 1500))).encode("utf-8")
    assert_clean_outcome(*check_bytes(data, tmp_path))


# ---------------------------------------------------------------- as a separate process
def test_subprocess_check(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "check", str(CHARUMA)],
                        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert OK_LINE.match(ok.stdout.strip())
    bad = tmp_path / "deep.rules"
    bad.write_bytes(b"\x00binary")
    deep = tmp_path / "deep2.rules"
    deep.write_text("var v: int = " + "(1+" * 5000 + "1" + ")" * 5000 + "\n", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "check", str(bad), str(deep), str(tmp_path / "nope")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert ERROR_LINE.match(res.stderr.split("\n")[0])
    assert f"{deep}:1:" in res.stderr and f"{tmp_path / 'nope'}:1:1: error: no such file" in res.stderr
    usage = subprocess.run([sys.executable, "-m", "rulespec.tools.cli"], capture_output=True, text=True, cwd=ROOT,
                           timeout=120)
    assert usage.returncode == 2 and "usage:" in usage.stderr


# ---------------------------------------------------------------- mutations of charuma (Hypothesis)
TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d+|\"(?:[^\"\\\n]|\\.)*\"|\.\.|\s+|.", re.S)
NAME_RE = re.compile(r"[A-Za-z_]\w*")
NAMES = sorted(set(NAME_RE.findall(CHARUMA_TEXT)))
assert "".join(TOKEN_RE.findall(CHARUMA_TEXT)) == CHARUMA_TEXT

index = st.integers(0, 10**6)  # taken modulo the length of whatever it indexes
mutation = st.one_of(
    st.tuples(st.just("delete_lines"), st.lists(index, min_size=1, max_size=4)),
    st.tuples(st.just("duplicate_line"), index, index),
    st.tuples(st.just("delete_tokens"), st.lists(index, min_size=1, max_size=4)),
    st.tuples(st.just("duplicate_token"), index, index),
    st.tuples(st.just("rename"), st.lists(st.tuples(index, st.sampled_from(NAMES)), min_size=1, max_size=4)),
    st.tuples(st.just("swap_names"), index, index),
    st.tuples(st.just("truncate"), index),
    st.tuples(st.just("insert_bytes"), index, st.binary(min_size=1, max_size=6)),
)


def mutate(steps) -> bytes:
    """Apply the steps one after the other to the bytes of charuma.rules."""
    data = CHARUMA_TEXT.encode("utf-8")
    for op, *args in steps:
        text = data.decode("utf-8", errors="surrogateescape")  # inserted bytes survive the round trip
        lines = text.splitlines(keepends=True) or [""]
        tokens = TOKEN_RE.findall(text) or [""]
        names = [i for i, t in enumerate(tokens) if NAME_RE.fullmatch(t)] or [0]
        if op == "delete_lines":
            for i in sorted({i % len(lines) for i in args[0]}, reverse=True):
                del lines[i]
            text = "".join(lines)
        elif op == "duplicate_line":
            lines.insert(args[1] % (len(lines) + 1), lines[args[0] % len(lines)])
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
        elif op == "swap_names":
            a, b = names[args[0] % len(names)], names[args[1] % len(names)]
            tokens[a], tokens[b] = tokens[b], tokens[a]
            text = "".join(tokens)
        elif op == "truncate":
            text = text[: args[0] % (len(text) + 1)]
        data = text.encode("utf-8", errors="surrogateescape")
        if op == "insert_bytes":
            at = args[0] % (len(data) + 1)
            data = data[:at] + args[1] + data[at:]
    return data


def test_mutate_applies_every_step():
    assert mutate([("truncate", 10)]) == CHARUMA_TEXT[:10].encode()
    assert mutate([("insert_bytes", 0, b"\xff")]) == b"\xff" + CHARUMA_TEXT.encode()
    both = mutate([("insert_bytes", 0, b"\xff"), ("delete_lines", [0])])
    assert both == "".join(LINE for LINE in CHARUMA_TEXT.splitlines(keepends=True)[1:]).encode()
    swapped = mutate([("swap_names", 0, 1)]).decode()
    first, second = NAME_RE.findall(CHARUMA_TEXT)[:2]
    assert NAME_RE.findall(swapped)[:2] == [second, first]


@settings(max_examples=100, deadline=3000, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(st.lists(mutation, min_size=1, max_size=3))
def test_mutated_charuma_never_crashes(steps):
    data = mutate(steps)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "mutant.rules"
        path.write_bytes(data)
        code, out, err = run("check", path)
    assert_clean_outcome(code, out, err, str(path))


# ---------------------------------------------------------------- --format json
JSON_KEYS = ["file", "line", "column", "end_line", "end_column", "severity", "message", "hint", "code"]
JSON_OPTIONAL = ["related", "silenced"]  # a second place; a warning an allow comment silenced


def json_lines(out: str) -> list:
    import json
    records = [json.loads(line) for line in out.splitlines()]
    for r in records:
        assert list(r)[:len(JSON_KEYS)] == JSON_KEYS and set(list(r)[len(JSON_KEYS):]) <= set(JSON_OPTIONAL)
        assert r["code"] and r["code"] == r["code"].lower() and " " not in r["code"]
        assert r["severity"] in ("error", "warning")
        assert all(isinstance(r[k], int) and r[k] >= 1 for k in JSON_KEYS[1:5])
    return records


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESPEC_CACHE", raising=False)
    return tmp_path / "cache"


def test_json_errors_one_object_a_line(tmp_path, fresh_cache):
    f = tmp_path / "bad.rules"
    f.write_text(CHARUMA_TEXT.replace("move stock to aside", "move stock to asdie"), encoding="utf-8")
    code, out, err = run("check", "--format", "json", f)
    assert code == 1 and err == ""
    [r] = json_lines(out)
    line_no = CHARUMA_TEXT[:CHARUMA_TEXT.index("move stock to aside")].count("\n") + 1
    col = CHARUMA_TEXT.split("\n")[line_no - 1].index("aside") + 1
    assert r == {"file": str(f), "line": line_no, "column": col, "end_line": line_no, "end_column": col + 5,
                 "severity": "error", "message": "unknown zone 'asdie'", "hint": "did you mean 'aside'?",
                 "code": "unknown-name"}


def test_json_clean_file_prints_nothing(fresh_cache):
    code, out, err = run("check", "--format", "json", CHARUMA)
    assert (code, out, err) == (0, "", "")
    assert run("check", "--format", "text", CHARUMA)[1].startswith(f"{CHARUMA}: ok (")


def test_json_warnings_the_same_from_the_model_cache(tmp_path, fresh_cache, monkeypatch):
    from rulespec.lang import checker, model_cache
    f = tmp_path / "w.rules"
    f.write_text(CHARUMA_TEXT + "\nzone spare: pile public\nvar unused: int = 0\n", encoding="utf-8")
    code, out, err = run("check", "--format", "json", f)
    assert code == 0 and err == ""
    first = json_lines(out)
    assert [(r["severity"], r["message"], r["code"]) for r in first] == [
        ("warning", "zone 'spare' is never used", "unused-zone"),
        ("warning", "variable 'unused' is never used", "unused-variable")]
    assert first[0]["line"] == CHARUMA_TEXT.count("\n") + 2 and first[0]["column"] == 1
    # again: from the header of the cache entry, checking nothing
    monkeypatch.setattr(checker, "check", None)
    monkeypatch.setattr(model_cache, "checked_model", None)
    code, out, err = run("check", "--format", "json", f)
    assert code == 0 and json_lines(out) == first


def test_json_an_old_cache_entry_is_checked_again(tmp_path, fresh_cache):
    import pickle

    from rulespec.lang import model_cache
    f = tmp_path / "w.rules"
    text = CHARUMA_TEXT + "\nzone spare: pile public\n"
    f.write_text(text, encoding="utf-8")
    assert run("check", f)[0] == 0
    entry = model_cache.entry_path(text, str(f))
    with open(entry, "rb") as fh:
        header, model = pickle.load(fh), pickle.load(fh)
    del header["summary"]["diagnostics"]  # as the cache kept it before --format json
    model_cache.write(entry, header, model)
    assert model_cache.cached_summary(text, str(f)) is None
    code, out, err = run("check", "--format", "json", f)
    assert code == 0 and [r["message"] for r in json_lines(out)] == ["zone 'spare' is never used"]
    assert model_cache.cached_summary(text, str(f))["diagnostics"]  # the entry was brought up to date
    code, out, err = run("check", f)
    assert code == 0 and ": warning: zone 'spare' is never used" in err


def test_json_syntax_errors_and_missing_files_are_objects_too(tmp_path, fresh_cache):
    bad = tmp_path / "bad.rules"
    bad.write_text('game "x" {\n  players 2..\n}\n', encoding="utf-8")
    missing = tmp_path / "nope.rules"
    code, out, err = run("check", "--format", "json", bad, missing, tmp_path, CHARUMA)
    assert code == 1 and err == ""
    records = json_lines(out)
    assert [(r["file"], r["line"], r["column"], r["message"]) for r in records] == [
        (str(bad), 3, 1, "unexpected '}'"), (str(missing), 1, 1, "no such file"),
        (str(tmp_path), 1, 1, "is a directory, not a rules file")]
    assert records[0]["hint"] == "expected a number" and records[1]["hint"] is None


def test_json_format_is_checked(capsys):
    assert main(["check", "--format", "yaml", str(CHARUMA)]) == 2
