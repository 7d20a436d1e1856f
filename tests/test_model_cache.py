"""The model cache and the code cache: a file checked or loaded once is read back, never stale,
never required, and a load from them makes the same game as one without them."""
import gc
import json
import os
import pickle
import random
import subprocess
import sys
from pathlib import Path

import pytest

import interpreter
from interpreter import code_cache
from interpreter import expressions as X
from interpreter.game import Game
from rulespec import RulesError
from rulespec.lang import model_cache
from rulespec.lang import checker
from rulespec.lang.ast import Span
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
SGS = ROOT / "games" / "sanguosha.rules"
CRAZY = ROOT / "games" / "crazy_eights.rules"
CHUHAN = ROOT / "games" / "chuhan.rules"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESPEC_CACHE", raising=False)
    return tmp_path / "cache"


def _no_checking(monkeypatch):
    def fail(rules):
        raise AssertionError("checked again: the cache was not used")
    monkeypatch.setattr(checker, "check", fail)


def _no_generating(monkeypatch):
    def fail(self, *a, **k):
        raise AssertionError("generated Python again: the code cache was not used")
    monkeypatch.setattr(X._Gen, "define", fail)


def _child(code: str, cache: Path, **env) -> str:
    """Run Python code in a new process with this cache; its standard output."""
    e = dict(os.environ, RULESPEC_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **env)
    e.pop("RULESPEC_CACHE", None) if "RULESPEC_CACHE" not in env else None
    r = subprocess.run([sys.executable, "-c", code], env=e, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _play(game, seed: int, players: int, steps: int = 400) -> str:
    st = game.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    return st.to_json()


# ---------------------------------------------------------------- the model cache
def test_a_large_file_is_read_back_from_the_cache(cache, monkeypatch):
    first = checker.check_file(SGS)
    assert len(list(cache.glob("*.model"))) == 1
    _no_checking(monkeypatch)
    again = checker.check_file(SGS)
    assert again.name == first.name and again.path == first.path
    assert [c.name for c in again.cards] == [c.name for c in first.cards] and again.source == first.source
    assert [str(w) for w in getattr(again, "warnings", [])] == [str(w) for w in getattr(first, "warnings", [])]
    assert list(again.phase_graph.edges) == list(first.phase_graph.edges)


def test_a_small_file_is_cached_too(cache, monkeypatch):
    first = checker.check_file(CRAZY)
    assert len(list(cache.glob("*.model"))) == 1
    _no_checking(monkeypatch)
    assert checker.check_file(CRAZY).name == first.name


def test_a_changed_file_or_path_misses(cache, tmp_path):
    text = SGS.read_text(encoding="utf-8")
    checker.check_text(text, "a.rules")
    checker.check_text(text + "\n# a comment\n", "a.rules")
    checker.check_text(text, "b.rules")  # diagnostics name the file: another path, another entry
    assert len(list(cache.glob("*.model"))) == 3


def test_a_broken_entry_is_a_miss(cache):
    text = SGS.read_text(encoding="utf-8")
    model = checker.check_text(text, "a.rules")
    entry = model_cache.entry_path(text, "a.rules")
    for junk in (b"not a pickle", entry.read_bytes()[:1000], pickle.dumps({"path": "a.rules"})):
        entry.write_bytes(junk)
        assert checker.check_text(text, "a.rules").name == model.name
        assert entry.read_bytes() != junk  # rebuilt and written again


def test_errors_are_never_cached(cache):
    text = SGS.read_text(encoding="utf-8") + "\nzone oops: pile nowhere\n"
    for _ in range(2):
        with pytest.raises(RulesError):
            checker.check_text(text, "bad.rules")
    assert not list(cache.glob("*.model")) if cache.exists() else True


def test_an_error_is_reported_the_same_after_the_good_version_was_cached(cache, tmp_path, capsys, monkeypatch):
    f = tmp_path / "g.rules"
    good = CRAZY.read_text(encoding="utf-8")
    f.write_text(good, encoding="utf-8")
    assert main(["check", str(f)]) == 0
    bad = good.replace("  players 2..5\n", "  players 2..5\n  oops\n", 1)
    assert bad != good
    f.write_text(bad, encoding="utf-8")
    outputs = []
    for _ in range(2):
        capsys.readouterr()
        assert main(["check", str(f)]) == 1
        outputs.append(capsys.readouterr().err)
    assert outputs[0] == outputs[1] and outputs[0].startswith(f"{f}:8:3: error: ")
    monkeypatch.setenv("RULESPEC_CACHE", "0")  # without the cache: the very same report
    assert main(["check", str(f)]) == 1
    assert capsys.readouterr().err == outputs[0]


def test_a_disabled_cache_is_not_used(cache, monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE", "0")
    checker.check_file(CRAZY)
    interpreter.load_text(CRAZY.read_text(encoding="utf-8"), "c.rules")
    assert not cache.exists() or not list(cache.iterdir())


def test_an_unwritable_cache_is_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(blocker / "sub"))  # cannot be made: a file is in the way
    assert checker.check_file(SGS).name
    assert interpreter.load_text(CRAZY.read_text(encoding="utf-8"), "c.rules").name


def test_clear(cache):
    checker.check_file(SGS)
    assert model_cache.clear() == 1
    assert model_cache.clear() == 0


def test_the_cache_keeps_the_entries_used_last(cache, monkeypatch):
    monkeypatch.setattr(model_cache, "MAX_ENTRIES", 8)
    text = CRAZY.read_text(encoding="utf-8")
    for i in range(12):
        checker.check_text(text + f"\n# {i}\n", "c.rules")
    kept = list(cache.glob("*.model"))
    assert 6 <= len(kept) <= 8
    assert model_cache.entry_path(text + "\n# 11\n", "c.rules") in kept
    assert model_cache.entry_path(text + "\n# 0\n", "c.rules") not in kept


def test_the_pause_of_the_collector_is_undone(cache):
    assert gc.isenabled()
    with model_cache.no_gc():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    try:
        with model_cache.no_gc():
            pass
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()
    keep = [object() for _ in range(10)]
    gc.freeze()  # someone else's frozen objects stay frozen
    try:
        n = gc.get_freeze_count()
        with model_cache.no_gc():
            pass
        assert gc.get_freeze_count() == n
    finally:
        gc.unfreeze()
    del keep


# ---------------------------------------------------------------- `rulespec check` from the header
def test_check_of_a_cached_file_prints_the_same(cache, tmp_path, capsys, monkeypatch):
    f = tmp_path / "w.rules"
    f.write_text(CRAZY.read_text(encoding="utf-8") + "\nzone spare: pile public\n", encoding="utf-8")
    assert main(["check", str(f)]) == 0
    first = capsys.readouterr()
    assert ": warning: zone 'spare' is never used" in first.err and first.out.strip().endswith(", 1 warning)")
    _no_checking(monkeypatch)
    monkeypatch.setattr(model_cache, "checked_model", None)  # the header is enough
    assert main(["check", str(f)]) == 0
    again = capsys.readouterr()
    assert (again.out, again.err) == (first.out, first.err)


def test_a_warm_check_imports_neither_the_parser_nor_the_checker(cache):
    cmd = (f"import sys; from rulespec.tools.cli import main; code = main(['check', {str(SGS)!r}]); "
           "print(code, sorted(m for m in ('lark', 'networkx', 'attrs', 'rulespec.lang.checker', 'rulespec.lang.parser', "
           "'interpreter.game') if m in sys.modules))")
    cold = _child(cmd, cache)
    assert cold.split("\n")[-2] .startswith("0 ") and "rulespec.lang.checker" in cold  # it checked
    warm = _child(cmd, cache).split("\n")[-2]
    assert warm == "0 []", warm


# ---------------------------------------------------------------- the code cache
def test_a_second_load_replays_the_compiled_expressions(cache, monkeypatch):
    text = CRAZY.read_text(encoding="utf-8")
    first = interpreter.load_text(text, "c.rules")
    assert not first.prog.exprs.replayed and len(list(cache.glob("*.code"))) == 1
    _no_checking(monkeypatch)
    _no_generating(monkeypatch)
    again = interpreter.load_text(text, "c.rules")
    assert again.prog.exprs.replayed
    for seed in range(3):
        assert _play(again, seed, 3) == _play(first, seed, 3)


def test_a_replayed_game_is_the_same_game(cache):
    """Every shipped game, and its checked-only build: the same seed and choices give the same game."""
    for path in (CHUHAN, SGS):
        text = path.read_text(encoding="utf-8")
        for fused in (True, False):
            model = checker.check_text(text, str(path))
            made = Game(model, str(path), fused=fused)
            replayed = Game(model, str(path), fused=fused)
            assert replayed.prog.exprs.replayed and not made.prog.exprs.replayed
            for seed in range(2):
                assert _play(replayed, seed, model.min_players, 150) == _play(made, seed, model.min_players, 150)


def test_a_changed_file_compiles_again(cache):
    text = CRAZY.read_text(encoding="utf-8")
    interpreter.load_text(text, "c.rules")
    changed = interpreter.load_text(text + "\n# a comment\n", "c.rules")
    assert not changed.prog.exprs.replayed
    assert len(list(cache.glob("*.code"))) == 2
    assert interpreter.load_text(text + "\n# a comment\n", "c.rules").prog.exprs.replayed


def test_a_broken_code_entry_is_a_miss(cache):
    text = CRAZY.read_text(encoding="utf-8")
    game = interpreter.load_text(text, "c.rules")
    entry = code_cache.entry_path(game.model, True, game.prog.engine)
    good = entry.read_bytes()
    for junk in (b"junk", good[:len(good) // 2], pickle.dumps((code_cache.FORMAT, "c.rules")) + pickle.dumps({})):
        entry.write_bytes(junk)
        again = interpreter.load_text(text, "c.rules")
        assert not again.prog.exprs.replayed
        assert _play(again, 1, 2) == _play(game, 1, 2)


def test_a_record_of_another_build_is_not_trusted(cache):
    """The replay checks each expression's kind and place: from the first that differs it generates."""
    text = CRAZY.read_text(encoding="utf-8")
    game = interpreter.load_text(text, "c.rules")
    entry = code_cache.entry_path(game.model, True, game.prog.engine)
    head, rec = model_cache.read(entry)
    rec["entries"][len(rec["entries"]) // 2] = ("value", 99999, 1, "_f1", None)
    model_cache.write(entry, head, rec)
    again = Game(game.model, "c.rules")
    assert not again.prog.exprs.replayed
    for seed in range(3):
        assert _play(again, seed, 4) == _play(game, seed, 4)


PROBE = """
game "Probe" { players 2..3 start setup cards start in deck }
property value: int
card "A" { value: 1 copies: 2 }
zone deck: pile hidden
zone bin: pile hidden
var out: int = 0
action go() { effect { end game } }
phase setup {
  enter { out = 1 + cards(bin)[0].value }
  actions go
  next setup
}
"""


def test_a_runtime_error_is_reported_at_its_node_after_a_replay(cache):
    messages = []
    for replayed in (False, True):
        game = interpreter.load_text(PROBE, "probe.rules") if not replayed else \
            Game(checker.check_text(PROBE, "probe.rules"), "probe.rules")
        assert game.prog.exprs.replayed == replayed
        # replayed functions keep the names that show where they come from in tracebacks and profiles
        (_, default), = game.prog.var_defaults  # var out: int = 0
        assert default.__code__.co_filename == "<rules probe.rules:7:16>"
        with pytest.raises(interpreter.RuleRuntimeError) as err:
            game.new_state(players=2, seed=0)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == "probe.rules:10:21: runtime error: index 0 is outside a list of 0"


def test_a_warm_load_imports_neither_networkx_nor_lark(cache):
    cmd = (f"import sys, rulespec; g = rulespec.load({str(CHUHAN)!r}); "
           "print(g.prog.exprs.replayed, sorted(m for m in ('lark', 'networkx', 'rulespec.lang.parser') if m in sys.modules))")
    cold = _child(cmd, cache).strip()
    assert cold.startswith("False") and "lark" in cold  # the first load parsed the file
    assert _child(cmd, cache).strip() == "True []"


def test_a_cold_load_with_an_empty_cache_folder_works(tmp_path):
    d = tmp_path / "fresh"
    out = _child(f"import rulespec; g = rulespec.load({str(CRAZY)!r}); print(g.name)", d)
    assert out.strip() == "Crazy Eights" and list(d.glob("*.model")) and list(d.glob("*.code"))
    out = _child(f"import rulespec; g = rulespec.load({str(CRAZY)!r}); print(g.name)", d, RULESPEC_CACHE="0")
    assert out.strip() == "Crazy Eights"


# ---------------------------------------------------------------- plain data for the cache
def test_spans_are_tuples_that_survive_pickle():
    s = Span(3, 4, 3, 9)
    assert (s.line, s.col, s.end_line, s.end_col) == (3, 4, 3, 9) and str(s) == "3:4"
    assert repr(s) == "Span(line=3, col=4, end_line=3, end_col=9)"
    back = pickle.loads(pickle.dumps([s, s], protocol=pickle.HIGHEST_PROTOCOL))
    assert back == [s, s] and type(back[0]) is Span and back[0] is back[1]


def test_the_phase_graph_is_plain_data(cache):
    model = checker.check_file(CHUHAN)
    data = pickle.dumps(model.phase_graph)
    assert b"networkx" not in data
    g = model.graph  # a networkx view, made on demand
    assert set(g.edges) == set(model.phase_graph.edges) and list(g.nodes) == list(model.phase_graph.nodes)
    assert json.dumps(sorted(map(list, g.edges))) == json.dumps(sorted(map(list, model.phase_graph.edges)))
    assert b"networkx" not in pickle.dumps(model)  # the view is not kept in the cache
