"""How long checking and loading a rules file take, cold (empty cache) and warm, in new processes.

    python benchmarks/load_times.py [FILE ...] [--runs N] [--root CHECKOUT] [--bytecode]

For every file, for `check` (rulespec.lang.checker.check_file) and `load` (rulespec.load): a cold run
(the cache folder emptied first) and then N warm runs, each in a new Python process.  Each
process reports its imports (`import rulespec.lang.checker`, or `import rulespec, interpreter.game`:
the engine) and the check or load itself; the parent adds the whole process (start to exit, as
`time` would show it).  Then the whole `python -m rulespec.tools.cli check FILE`, warm.  Wall-clock
milliseconds, and CPU milliseconds (less disturbed by other work on the machine); warm figures
are medians.

--root runs another checkout of rulespec (say, the main branch before a change) with this
script.  --bytecode lets Python keep compiled modules (__pycache__) even when the environment
says PYTHONDONTWRITEBYTECODE, as an installed package would: imports are then much cheaper.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import sys, time
w0, c0 = time.perf_counter(), time.process_time()
kind, path = sys.argv[1], sys.argv[2]
if kind == "check":
    from rulespec.lang.checker import check_file
    w1, c1 = time.perf_counter(), time.process_time()
    check_file(path)
else:
    import rulespec, interpreter.game
    w1, c1 = time.perf_counter(), time.process_time()
    rulespec.load(path)
w2, c2 = time.perf_counter(), time.process_time()
print(w1 - w0, w2 - w1, c1 - c0, c2 - c1)
"""


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(argv: list, env: dict, root: Path) -> tuple:
    """(wall, cpu, stdout) of a child process."""
    c = _cpu_children()
    t = time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=root, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{out.stderr}")
    return wall, _cpu_children() - c, out.stdout


def measure(path: str, runs: int, cache_dir: Path, root: Path, bytecode: bool) -> dict:
    env = dict(os.environ, RULESPEC_CACHE_DIR=str(cache_dir), PYTHONPATH=str(root))
    env.pop("RULESPEC_CACHE", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    res = {}
    for kind in ("check", "load"):
        shutil.rmtree(cache_dir, ignore_errors=True)
        rows = []
        for _ in range(runs + 1):  # the first run is the cold one
            wall, cpu, out = _run([sys.executable, "-c", _CHILD, kind, path], env, root)
            imports, work, imports_cpu, work_cpu = map(float, out.split())
            rows.append((imports, work, wall, imports_cpu, work_cpu, cpu))
        res[kind, "cold"] = rows[0]
        res[kind, "warm"] = tuple(statistics.median(r[k] for r in rows[1:]) for k in range(6))
    cli = [_run([sys.executable, "-m", "rulespec.tools.cli", "check", path], env, root)[:2] for _ in range(runs)]
    res["cli", "warm"] = (statistics.median(w for w, _ in cli), statistics.median(c for _, c in cli))
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", default=sorted(str(p.relative_to(ROOT)) for p in (ROOT / "games").glob("*.rules")))
    ap.add_argument("--runs", type=int, default=5, help="warm runs per figure (default 5)")
    ap.add_argument("--root", default=str(ROOT), help="the checkout of rulespec to measure (default: this one)")
    ap.add_argument("--bytecode", action="store_true", help="keep compiled modules, whatever PYTHONDONTWRITEBYTECODE says")
    ap.add_argument("--cache-dir", help="the cache folder to use (emptied first; default a temporary one)")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    tmp = Path(args.cache_dir) if args.cache_dir else Path(tempfile.mkdtemp(prefix="rulespec-load-times-"))
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    print(f"{root}: milliseconds, wall (cpu); warm: median of {args.runs} runs; "
          f"imports / the call itself / the whole process")
    print("| file | size | check cold | check warm | load cold | load warm | `rulespec check` warm |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    try:
        for f in args.files:
            r = measure(f, args.runs, tmp, root, args.bytecode)
            size = f"{os.path.getsize(root / f) // 1000} KB"
            cells = []
            for k in (("check", "cold"), ("check", "warm"), ("load", "cold"), ("load", "warm")):
                i, w, p, ic, wc, pc = r[k]
                cells.append(f"{ms(i)} / **{ms(w)}** / {ms(p)} ({ms(ic)} / {ms(wc)} / {ms(pc)})")
            cw, cc = r["cli", "warm"]
            print(f"| {f} | {size} | " + " | ".join(cells) + f" | {ms(cw)} ({ms(cc)}) |", flush=True)
    finally:
        if not args.cache_dir:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
