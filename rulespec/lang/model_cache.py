"""A cache on disk of checked models (and, for the engine, of compiled rules), so that loading or
checking a rules file again in a new process skips parsing, checking and compiling.

The key of a model is the file's path and text and the source of the language itself (this
package's Python files and grammar) and the Python version: a changed file, or a changed
rulespec, misses the cache.  The engine keeps the Python code it compiles a model's
expressions into under a key that adds its own source (interpreter/code_cache.py).  Only files
that check without an error are kept, so an erroneous file is always parsed and checked again
and its diagnostics are exactly those of a first run.  Anything wrong with an entry
(unreadable, truncated, from another Python) is a miss, and a cache that cannot be written is
simply not used.  Every file is cached whatever its size: even a small file is read back
several times faster than it is parsed in a new process (the parser alone takes longer to load).

An entry holds a short header (what ``rulespec check`` prints about the file: its summary and
its warnings, both rendered and as plain data for ``--format json``) and then the model, so
that ``rulespec check`` of an unchanged file reads only the header.  The cache keeps the MAX_ENTRIES entries used last and removes the
others when it writes a new one (an editor that re-checks on every keystroke writes many).

Where: ``$RULESPEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/rulespec``, else ``~/.cache/rulespec``.
``RULESPEC_CACHE=0`` turns it off.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

from .gc_pause import no_gc

FORMAT = 2          # the layout of an entry (a header, then the model)
MAX_ENTRIES = 200   # entries kept (of every kind together); the least recently used go first
_PACKAGE = Path(__file__).resolve().parent
_SUFFIXES = (".model", ".code", ".lsp")  # .lsp: rulespec lsp's parsed declarations (rulespec/tools/editor/lsp_analysis.py)


def enabled() -> bool:
    return os.environ.get("RULESPEC_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    if os.environ.get("RULESPEC_CACHE_DIR"):
        return Path(os.environ["RULESPEC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulespec"


@functools.lru_cache(maxsize=None)
def source_hash(folder: Path) -> str:
    """A hash of the Python version and of the source (.py and .lark files) under a package's folder."""
    h = hashlib.sha256(sys.version.encode())
    for f in sorted(folder.rglob("*")):
        if f.suffix in (".py", ".lark") and "__pycache__" not in f.parts:
            h.update(f.relative_to(folder).as_posix().encode())
            h.update(b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
    return h.hexdigest()


def _language_hash() -> str:
    """A hash of the language's own source: a model checked by another rulespec is never reused."""
    return source_hash(_PACKAGE)


def key_path(suffix: str, text: str, path: str, *parts: str) -> Path:
    """The entry for a file's text and path under the given hashes (parts), with that suffix."""
    h = hashlib.sha256()
    for p in (*parts, path):
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return cache_dir() / f"{h.hexdigest()}{suffix}"


def entry_path(text: str, path: str) -> Path:
    return key_path(".model", text, path, _language_hash(), f"model format {FORMAT}")


def read(entry: Path, parts: int = 2) -> list | None:
    """The first `parts` pickles of an entry, or None: a missing, partial or foreign entry is a miss."""
    try:
        with no_gc(), open(entry, "rb") as f:
            got = [pickle.load(f) for _ in range(parts)]
    except Exception:
        return None
    try:
        os.utime(entry)  # recently used: kept when the cache is pruned
    except OSError:
        pass
    return got


def write(entry: Path, *objs) -> None:
    """Write an entry (its pickles one after the other) atomically; any failure is ignored."""
    try:
        import tempfile  # only on a miss
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=entry.suffix)
        try:
            with os.fdopen(fd, "wb") as f:
                for o in objs:
                    pickle.dump(o, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)  # readers see the whole entry or none
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        _prune(entry.parent)
    except Exception:  # a read-only or full disk: go on without the cache
        pass


def _prune(d: Path) -> None:
    entries = []
    with os.scandir(d) as it:
        for e in it:
            if e.name.endswith(_SUFFIXES) and not e.name.startswith("."):
                try:
                    entries.append((e.stat().st_mtime, e.path))
                except OSError:
                    pass
    if len(entries) <= MAX_ENTRIES:
        return
    entries.sort()
    for _, p in entries[:len(entries) - MAX_ENTRIES * 3 // 4]:
        try:
            os.unlink(p)
        except OSError:
            pass


def summarise(model) -> dict:
    """What ``rulespec check`` prints about a file that checks: kept in the entry's header.
    "warnings" are rendered, "diagnostics" are the same warnings as plain data (Diagnostic.to_dict);
    "silenced" are the warnings an allow comment silenced, as plain data marked "silenced": true;
    a header written before "diagnostics" or "silenced" existed lacks them, and is then not used."""
    return {"name": model.name, "phases": len(model.phases), "actions": len(model.actions),
            "cards": sum(c.copies for c in model.cards),
            "warnings": [w.render(model.source) for w in model.warnings],
            "diagnostics": [w.to_dict() for w in model.warnings],
            "silenced": [dict(w.to_dict(), silenced=True) for w in getattr(model, "silenced", [])]}


def _complete(summary) -> bool:
    """Whether a header's summary has everything summarise() gives now (an older one may not)."""
    return isinstance(summary, dict) and isinstance(summary.get("warnings"), list) \
        and isinstance(summary.get("diagnostics"), list) and isinstance(summary.get("silenced"), list)


def checked_model(text: str, path: str, build: Callable[[], object]):
    """The model of `text` (the file at `path`): from the cache, or build() it and keep it."""
    if not enabled():
        return build()
    entry = entry_path(text, path)
    got = read(entry)
    if got is not None and isinstance(got[0], dict) and got[0].get("path") == path \
            and getattr(got[1], "path", None) == path:
        if _complete(got[0].get("summary")):
            return got[1]
        try:  # an older header: bring it up to date
            write(entry, {"path": path, "summary": summarise(got[1])}, got[1])
            return got[1]
        except Exception:  # not a model this rulespec can summarise: build it again
            pass
    model = build()  # a RulesError goes up before anything is written
    write(entry, {"path": path, "summary": summarise(model)}, model)
    return model


def cached_summary(text: str, path: str) -> dict | None:
    """summarise() of the model of `text` when the cache holds it (reading only the header), else None."""
    if not enabled():
        return None
    got = read(entry_path(text, path), parts=1)
    if got is None or not isinstance(got[0], dict) or got[0].get("path") != path:
        return None
    summary = got[0].get("summary")
    return summary if _complete(summary) else None  # an older header: check again


def clear() -> int | None:
    """Remove every cache entry; the number removed (None when there is no cache)."""
    d = cache_dir()
    if not d.is_dir():
        return None
    n = 0
    for f in d.iterdir():
        if f.suffix in _SUFFIXES:
            try:
                f.unlink()
                n += 1
            except OSError:
                pass
    return n
