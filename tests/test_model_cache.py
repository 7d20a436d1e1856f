"""The model cache: a large rules file checked once is read back, never stale, never required."""
from pathlib import Path

import pytest

from rulespec import RulesError, model_cache
from rulespec import checker

ROOT = Path(__file__).resolve().parent.parent
SGS = ROOT / "games" / "sanguosha.rules"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESPEC_CACHE", raising=False)
    return tmp_path / "cache"


def _no_checking(monkeypatch):
    def fail(rules):
        raise AssertionError("checked again: the cache was not used")
    monkeypatch.setattr(checker, "check", fail)


def test_a_large_file_is_read_back_from_the_cache(cache, monkeypatch):
    first = checker.check_file(SGS)
    assert len(list(cache.glob("*.model"))) == 1
    _no_checking(monkeypatch)
    again = checker.check_file(SGS)
    assert again.name == first.name and again.path == first.path
    assert [c.name for c in again.cards] == [c.name for c in first.cards] and again.source == first.source
    assert [str(w) for w in getattr(again, "warnings", [])] == [str(w) for w in getattr(first, "warnings", [])]


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
    entry.write_bytes(b"not a pickle")
    assert checker.check_text(text, "a.rules").name == model.name
    assert entry.read_bytes() != b"not a pickle"  # rebuilt and written again


def test_errors_are_never_cached(cache):
    text = SGS.read_text(encoding="utf-8") + "\nzone oops: pile nowhere\n"
    for _ in range(2):
        with pytest.raises(RulesError):
            checker.check_text(text, "bad.rules")
    assert not list(cache.glob("*.model")) if cache.exists() else True


def test_small_files_and_a_disabled_cache_skip_it(cache, monkeypatch):
    checker.check_file(ROOT / "games" / "crazy_eights.rules")
    assert not cache.exists() or not list(cache.glob("*.model"))
    monkeypatch.setenv("RULESPEC_CACHE", "0")
    checker.check_file(SGS)
    assert not cache.exists() or not list(cache.glob("*.model"))


def test_an_unwritable_cache_is_not_an_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(blocker / "sub"))  # cannot be made: a file is in the way
    assert checker.check_file(SGS).name


def test_clear(cache):
    checker.check_file(SGS)
    assert model_cache.clear() == 1
    assert model_cache.clear() == 0
