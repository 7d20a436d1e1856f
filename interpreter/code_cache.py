"""The compiled expressions of a model, kept on disk next to the model cache.

Building a Program generates Python for every expression of the rules and compiles it (for the
largest shipped game, thousands of functions: most of a warm load).  expressions.py records
that work as a session (the code objects, marshalled; their source, so that a replayed build
can still show the game's module as text; how to make every value the code refers to; the
order in which the compiler asked for the expressions); this module keeps the record
under a key made of the model's path and source, the source of rulespec and of this engine,
the Python version and the compiler's mode, so that a later process replays it instead.

The model must be what the checker made of its source (the engine never changes a model).
Anything wrong with an entry is a miss; RULESPEC_CACHE=0 turns this cache off with the other.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from rulespec.lang import model_cache

FORMAT = 2  # 2: the record keeps the functions' source (the game's module as text)
_FOLDER = Path(__file__).resolve().parent
_RULESPEC = Path(model_cache.__file__).resolve().parent


def entry_path(model, fast: bool, engine: str = "interpreted") -> Path:
    return model_cache.key_path(".code", model.source, model.path, model_cache.source_hash(_RULESPEC),
                                model_cache.source_hash(_FOLDER), f"code format {FORMAT} fast {fast} engine {engine}")


def load(model, fast: bool, engine: str = "interpreted") -> Optional[dict]:
    """The recorded session of this model, or None."""
    if not model_cache.enabled() or not isinstance(getattr(model, "source", None), str):
        return None
    got = model_cache.read(entry_path(model, fast, engine), parts=2)
    if got is None or got[0] != (FORMAT, model.path) or not isinstance(got[1], dict):
        return None
    return got[1]


def store(model, fast: bool, record: Optional[dict], engine: str = "interpreted") -> None:
    if record is None or not model_cache.enabled() or not isinstance(getattr(model, "source", None), str):
        return
    model_cache.write(entry_path(model, fast, engine), (FORMAT, model.path), record)
