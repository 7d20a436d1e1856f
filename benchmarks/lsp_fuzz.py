"""`rulespec lsp` under an editor gone wild: random edits and requests, with the latencies.

    python benchmarks/lsp_fuzz.py [--edits 300] [--seed 1] [FILE...]

Opens every shipped game (or the files given) in one server over stdio, makes --edits random
edits spread over them (a share each) with hover, definition, references, completion, formatting
and outline requests at random places in between (tests/lsp_fuzz_support.py says what and what
must hold: every request answered, no internal error, the diagnostics of each last version those
of the editor's text, the server alive at the end), then prints the p50 and p99 latency of each
kind of request in milliseconds. tests/test_lsp.py runs a shorter version.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from lsp_fuzz_support import GAMES, Fuzzer, latency_table  # noqa: E402


def main(argv: list | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edits", type=int, default=300, help="how many edits in all (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds any one answer may take")
    ap.add_argument("files", nargs="*", type=Path, help="rules files (default: every shipped game)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    fuzzer = Fuzzer(args.seed, args.files or GAMES, timeout=args.timeout)
    latency = fuzzer.run(args.edits)
    print(f"{args.edits} edits over {len(fuzzer.docs)} files, seed {args.seed}: "
          f"{time.perf_counter() - t0:.1f} s, every request answered")
    print(latency_table(latency))
    return 0


if __name__ == "__main__":
    sys.exit(main())
