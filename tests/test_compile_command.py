"""`rulespec compile`: the compiled engine's generated module as text (one module a rules file),
the same whether the game was built or replayed from the code cache."""
from __future__ import annotations

import contextlib
import hashlib
import io
import re
from pathlib import Path

import pytest

from interpreter import code_cache
from interpreter.compiled.module_text import functions_of
from interpreter.game import Game
from rulespec.lang.checker import check_file
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CHUHAN = ROOT / "games" / "chuhan.rules"
CRAZY = ROOT / "games" / "crazy_eights.rules"
ERROR_LINE = re.compile(r"^\S+:\d+:\d+: error: \S")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESPEC_CACHE", raising=False)
    return tmp_path / "cache"


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def test_the_module_compiles_names_its_file_and_has_every_recorded_function(cache):
    model = check_file(str(CRAZY))
    game = Game(model, str(CRAZY), engine="compiled")
    text = game.prog.module_source()
    compile(text, "crazy_eights_module.py", "exec")  # a module Python reads as it is
    assert f"rules file: {CRAZY}" in text
    assert hashlib.sha256(model.source.encode()).hexdigest() in text
    assert "engine: compiled" in text
    record = code_cache.load(model, True, "compiled")
    assert record is not None and record["entries"]
    names = functions_of(text)
    assert len(names) == len(set(names))
    for _, line, _, fname, _ in record["entries"]:  # every function the engine asked for, at its line
        assert f"def {fname}(" in text
        assert re.search(rf"^# rules {re.escape(str(CRAZY))}:{line}:\d+\ndef {fname}\(", text, re.M)
    for _, fname in record["bodies"]:  # the defs
        assert f"def {fname}(" in text


def test_a_replayed_build_gives_the_same_module(cache):
    model = check_file(str(CHUHAN))
    first = Game(model, str(CHUHAN), engine="compiled")
    second = Game(model, str(CHUHAN), engine="compiled")
    assert not first.prog.exprs.replayed and second.prog.exprs.replayed
    assert second.prog.module_source() == first.prog.module_source()


def test_every_global_the_code_reads_is_named_in_the_module(cache):
    """The helpers and bound values are declared (None, with their recipe), so the module stands
    on its own: a reader, or a compiler of it, finds every name."""
    import builtins
    import dis
    text = Game(check_file(str(CHUHAN)), str(CHUHAN), engine="compiled").prog.module_source()
    module = compile(text, "m", "exec")
    assigned = set(re.findall(r"^(\w+) = ", text, re.M)) | set(functions_of(text))
    read, todo = set(), [k for k in module.co_consts if hasattr(k, "co_code")]
    while todo:
        c = todo.pop()
        read |= {i.argval for i in dis.get_instructions(c) if i.opname == "LOAD_GLOBAL"}
        todo += [k for k in c.co_consts if hasattr(k, "co_code")]
    assert read and not {n for n in read if n not in assigned and not hasattr(builtins, n)}


def test_compile_writes_the_module(cache, tmp_path):
    out = tmp_path / "chuhan_module.py"
    code, stdout, err = run("compile", CHUHAN, "-o", out)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    assert f"wrote {out} ({len(functions_of(text))} functions of {CHUHAN})" in stdout
    compile(text, str(out), "exec")
    code, stdout, err = run("compile", CHUHAN)  # to standard output
    assert code == 0 and stdout == text and err == ""


def test_compile_reports_errors_like_check(cache, tmp_path):
    bad = tmp_path / "bad.rules"
    bad.write_text(CRAZY.read_text(encoding="utf-8").replace("phase ", "phsae ", 1), encoding="utf-8")
    code, stdout, err = run("compile", bad)
    assert code == 1 and stdout == ""
    assert "Traceback" not in err
    assert ERROR_LINE.match(err.splitlines()[0]), err
    assert re.search(rf"^{re.escape(str(bad))}: \d+ errors?$", err, re.M)
    assert run("check", bad)[2] == err  # the very report of `rulespec check`
    code, _, err = run("compile", tmp_path / "missing.rules")
    assert code == 1 and "error: no such file" in err


def test_compile_help_says_what_it_writes(capsys):
    assert main(["compile", "--help"]) == 0
    text = capsys.readouterr().out
    assert "module" in text and "generates from a rules file" in text and "-o OUT.py" in text

