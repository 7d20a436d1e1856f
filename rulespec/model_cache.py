"""A cache of checked models on disk, so that loading a rules file again in a new process skips
parsing and checking (for the largest shipped file, about 3 s of the two, against a fraction of a second to read
the model back).

The key is the file's path and text and the source of the language itself (this package's
Python files and grammar): a changed file, or a changed rulespec, misses the cache.  Only
files that check without an error are kept; anything wrong with a cache entry (unreadable,
truncated, from another Python) is treated as a miss, and a cache that cannot be written is
simply not used.  Small files are not cached: they parse faster than the cache is read.

Where: ``$RULESPEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/rulespec``, else ``~/.cache/rulespec``.
``RULESPEC_CACHE=0`` turns it off.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

MIN_CHARS = 20_000   # below this, parsing is as fast as reading the cache
_PACKAGE = Path(__file__).resolve().parent


def enabled() -> bool:
    return os.environ.get("RULESPEC_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> Path:
    if os.environ.get("RULESPEC_CACHE_DIR"):
        return Path(os.environ["RULESPEC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulespec"


@functools.lru_cache(maxsize=1)
def _language_hash() -> str:
    """A hash of the language's own source: a model checked by another rulespec is never reused."""
    h = hashlib.sha256(sys.version.encode())
    for f in sorted(_PACKAGE.rglob("*")):
        if f.suffix in (".py", ".lark") and "__pycache__" not in f.parts:
            h.update(f.relative_to(_PACKAGE).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def entry_path(text: str, path: str) -> Path:
    h = hashlib.sha256(_language_hash().encode())
    h.update(path.encode("utf-8", "surrogatepass"))
    h.update(b"\0")
    h.update(text.encode("utf-8", "surrogatepass"))
    return cache_dir() / f"{h.hexdigest()}.model"


def _read(entry: Path):
    try:
        with open(entry, "rb") as f:
            return pickle.load(f)
    except Exception:  # a missing, partial or foreign entry is a miss
        return None


def _write(entry: Path, model) -> None:
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".model")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(model, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, entry)  # readers see the whole entry or none
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except Exception:  # a read-only or full disk: go on without the cache
        pass


def checked_model(text: str, path: str, build: Callable[[], object]):
    """The model of `text` (the file at `path`): from the cache, or build() it and keep it."""
    if len(text) < MIN_CHARS or not enabled():
        return build()
    entry = entry_path(text, path)
    model = _read(entry)
    if model is not None and getattr(model, "path", None) == path:
        return model
    model = build()  # a RulesError goes up before anything is written
    _write(entry, model)
    return model


def clear() -> Optional[int]:
    """Remove every cache entry; the number removed (None when there is no cache)."""
    d = cache_dir()
    if not d.is_dir():
        return None
    n = 0
    for f in d.glob("*.model"):
        try:
            f.unlink()
            n += 1
        except OSError:
            pass
    return n
