"""How the command line copes with very large rules files: a long flat sum, many cards.

    python benchmarks/large_files.py [--sum N ...] [--cards N ...] [--commands C ...] [--root CHECKOUT]
                                     [--timeout S]

Writes each file to a temporary folder and runs `rulespec check`, `doc`, `fmt --check` and one
`play` on it, each in a new process with the model and code caches off, printing wall-clock and
CPU seconds (CPU is less disturbed by other work on a shared machine) and the exit status;
--commands picks some of them.  A command still running after --timeout seconds is stopped.

  --sum N     a game whose only def is a sum of N terms (x + x + ... + x): a chain of operators
              at one level, which must neither count as nesting nor recurse in any pass; the
              game's score is the sum, so `play` shows whether it came out right
  --cards N   a game of N card declarations (with two properties each)

--root runs another checkout of rulespec (say, the main branch before a change) with this script.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_FRAME = '''game "{name}" {{
  players 2..2
  start setup
  cards start in deck
  score p: total
}}
{decls}
zone deck: pile hidden
var x: int = 1
var total: int = 0
action stop() {{
  effect {{
    total = {total}
    end game
  }}
}}
phase setup {{
  enter {{ active = players[0] }}
  next turn
}}
phase turn {{
  actions stop
  after {{ active = next_player(active) }}
  next turn
}}
'''


def game_text(name: str, decls: str, total: str) -> str:
    """A two-player game of one decision ('stop'), after which every score is `total`; decls
    declare the cards (the zone 'deck' holds them) and anything total reads (the int var x is 1)."""
    return _FRAME.format(name=name, decls=decls, total=total)


def sum_game(n: int) -> str:
    """A game whose score is a def summing n terms."""
    terms = " + ".join(["x"] * n)
    return game_text(f"Sum of {n}", f'card "A" {{}}\ndef big(): int = {terms}', "big()")


def cards_game(n: int) -> str:
    """A game of n card declarations."""
    decls = ["enum Suit { hearts, spades }", "property rank: int", "property suit: Suit"]
    decls += [f'card "Card {i:06d}" {{ rank: {i % 13 + 1}  suit: {("hearts", "spades")[i % 2]} }}'
              for i in range(n)]
    return game_text(f"{n} cards", "\n".join(decls), "count(deck)")


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(args: list, root: Path, timeout: float) -> str:
    env = dict(os.environ, RULESPEC_CACHE="0", PYTHONPATH=str(root))
    c, t = _cpu_children(), time.perf_counter()
    try:
        out = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", *args], env=env, cwd=root,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # stopped (and waited for): its CPU time is counted all the same
        return f"stopped after {time.perf_counter() - t:7.2f} s wall {_cpu_children() - c:7.2f} s cpu"
    wall, cpu = time.perf_counter() - t, _cpu_children() - c
    said = (out.stdout.strip().splitlines() or out.stderr.strip().splitlines() or [""])[-1]
    return f"{wall:7.2f} s wall {cpu:7.2f} s cpu  exit {out.returncode}  {said[:70]}"


COMMANDS = {"check": [], "doc": ["-o", "{dir}/big.md"], "fmt": ["--check"], "play": ["--seed", "1"]}


def measure(label: str, text: str, root: Path, timeout: float, commands: list) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.rules"
        path.write_text(text, encoding="utf-8")
        print(f"{label} ({len(text.encode()) / 1e6:.1f} MB)")
        for name in commands:
            args = [a.format(dir=tmp) for a in COMMANDS[name]]
            print(f"  {name:6} {run([name, *args, str(path)], root, timeout)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sum", type=int, nargs="*", default=[], metavar="N")
    ap.add_argument("--cards", type=int, nargs="*", default=[], metavar="N")
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--commands", nargs="+", choices=list(COMMANDS), default=list(COMMANDS))
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    if not args.sum and not args.cards:
        args.sum, args.cards = [10_000], [8_000, 30_000]
    for n in args.sum:
        measure(f"a sum of {n} terms", sum_game(n), args.root.resolve(), args.timeout, args.commands)
    for n in args.cards:
        measure(f"{n} cards", cards_game(n), args.root.resolve(), args.timeout, args.commands)


if __name__ == "__main__":
    main()
