"""The optional native build of a game's module: Cython compiles the generated module
(module_text.py, pure Python, no annotations) to a C extension, kept per rules hash under the
cache folder, and a later build of the game replays its functions from that extension instead
of from the code objects (expressions.py's replay; the values the code refers to are bound into
the extension's globals from the same recipes).

Opt-in, since the first build of a large game takes minutes of C compilation:
`rulespec compile --native FILE` builds one game's extension, which later loads of that file
use; $RULESPEC_NATIVE=1 builds it on the first load of any game; RULESPEC_NATIVE=0 uses none.
Anything missing or failing (Cython not installed, no C compiler, a compile error, the code
cache turned off) leaves the game on the generated Python, with a note in the debug log
("rulespec.native") and in `rulespec compile --native`'s output; never an error.

The extension's key is the code cache's entry for the game (the rules file's path and text,
rulespec's and the engine's source, the Python version, the compiler's mode), so an extension
is only used with the very record it was compiled from; the module stamps that key and the
loader checks it.
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
import os
from pathlib import Path
from typing import Optional

from rulespec.lang import model_cache

from .. import code_cache

log = logging.getLogger("rulespec.native")
KEEP = 20  # extensions kept in the cache folder (a large game's is tens of MB); the least used go
CFLAGS = ["-O1", "-fwrapv", "-DNDEBUG", "-w"]  # -O2 takes several times longer to compile and gains little


def mode() -> str:
    """$RULESPEC_NATIVE: "build" (1: build a game's extension when it has none), "off" (0: never use
    one), else "cached" (use the extension `rulespec compile --native` built, if there is one)."""
    v = os.environ.get("RULESPEC_NATIVE", "").strip().lower()
    if v in ("1", "true", "yes", "on"):
        return "build"
    return "off" if v in ("0", "false", "no", "off") else "cached"


def key_of(model, fused: bool, engine: str) -> Optional[str]:
    """The extension's key: the name of the game's code cache entry (None with the cache off)."""
    if not model_cache.enabled() or not isinstance(getattr(model, "source", None), str):
        return None
    return code_cache.entry_path(model, fused, engine).stem


def _module_name(key: str) -> str:
    return f"rulespec_game_{key[:32]}"


def extension_path(key: str) -> Path:
    return model_cache.cache_dir() / "native" / (_module_name(key) + importlib.machinery.EXTENSION_SUFFIXES[0])


def load(key: Optional[str]):
    """The extension module built for this key, or None (none built, or it does not load)."""
    if key is None:
        return None
    path = extension_path(key)
    if not path.is_file():
        return None
    name = _module_name(key)
    try:
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        ext = importlib.util.module_from_spec(spec)
        loader.exec_module(ext)
        if getattr(ext, "__rulespec_key__", None) != key:
            raise ImportError("built for another game")
        os.utime(path)  # recently used: kept when the folder is pruned
    except Exception as e:  # a damaged or foreign file: the generated Python runs
        log.debug("native build %s not used: %s", path, e)
        return None
    return ext


def build(prog) -> tuple[bool, str]:
    """Compile prog's module to an extension (when none is cached yet).  Returns whether one is
    there now, and a note saying what happened (for the debug log and `rulespec compile`)."""
    import shlex  # only when building
    import shutil
    import sys
    import sysconfig
    import tempfile
    import time
    key = key_of(prog.model, prog.exprs.fast, prog.engine)
    if key is None:
        return _note(False, "the native build needs the code cache (RULESPEC_CACHE is off)")
    path = extension_path(key)
    if path.is_file():
        return _note(True, f"native build: {path} (cached)")
    if importlib.util.find_spec("Cython") is None:
        return _note(False, "no native build: Cython is not installed (pip install 'rulespec[fast]'); "
                            "the game runs as generated Python")
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        return _note(False, f"no native build: no C compiler ({cc[0] if cc else 'CC'} not found); "
                            "the game runs as generated Python")
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="rulespec-native-") as tmp:
            name = _module_name(key)
            src = Path(tmp) / f"{name}.py"
            src.write_text(prog.module_source(key), encoding="utf-8")
            _run([sys.executable, "-m", "cython", "-3", str(src)], "Cython")
            so = Path(tmp) / path.name
            _run(cc + ["-shared", *shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC"), *CFLAGS,
                       f"-I{sysconfig.get_paths()['include']}", str(src.with_suffix(".c")), "-o", str(so)],
                 "the C compiler")
            path.parent.mkdir(parents=True, exist_ok=True)
            staged = path.with_name(f".{path.name}.{os.getpid()}")
            shutil.copyfile(so, staged)
            os.replace(staged, path)  # another process sees the whole file or none
    except (OSError, _BuildError) as e:
        return _note(False, f"no native build: {e}; the game runs as generated Python")
    _prune(path.parent)
    return _note(True, f"native build: {path} (built in {time.perf_counter() - t0:.1f} s)")


class _BuildError(Exception):
    pass


def _run(cmd: list, what: str) -> None:
    import subprocess
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise _BuildError(f"{what} did not start ({e.strerror or e})") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise _BuildError(f"{what} failed ({lines[-1] if lines else f'exit {done.returncode}'})")


def _note(ok: bool, text: str) -> tuple[bool, str]:
    log.debug(text)
    return ok, text


def _prune(folder: Path) -> None:
    try:
        files = sorted(folder.glob("rulespec_game_*"), key=lambda p: p.stat().st_mtime)
        for p in files[:-KEEP]:
            p.unlink()
    except OSError:
        pass
