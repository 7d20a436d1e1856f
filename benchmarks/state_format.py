"""How long State.from_json takes on real mid-game states (its validation included), and how
many random mutations of them it refuses or survives.

    python benchmarks/state_format.py [--runs N] [--mutations N] [--seed S]

The states: San Guo Sha with 6 players in a random game (seed 0) at the decision where the
response stack is deepest within the first 400 decisions, and after 600 decisions (a long log),
and one mid-game state of Chu Han and of Charuma.  For each: its JSON size, the number of log entries, and the median time of
from_json (text in, State out), in microseconds: the least CPU time of --runs runs of 10 calls
each, and the median wall-clock time.  With --mutations, the seeded
mutation fuzz of tests/test_state_format.py runs that many mutations and prints what happened.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import State, load  # noqa: E402


def mid_game(path: str, players: int, seed: int, decisions: int, deepest: bool = False) -> State:
    """The state after `decisions` random decisions (seeded); with `deepest`, the state of those
    decisions whose response stack (then frames) is deepest, the latest on ties."""
    game = load(str(ROOT / path))
    st = game.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    best, best_key = st.clone(), (-1, -1)
    for _ in range(decisions):
        if st.is_terminal():
            break
        key = (len(st.stack), len(st.frames))
        if deepest and key >= best_key:
            best, best_key = st.clone(), key
        st.apply(rng.choice(st.legal_actions()))
    return best if deepest else st


def states() -> dict:
    return {
        "sanguosha (6 players, deepest stack)": mid_game("games/sanguosha.rules", 6, 0, 400, deepest=True),
        "sanguosha (6 players, 600 decisions)": mid_game("games/sanguosha.rules", 6, 0, 600),
        "chuhan (mid-game)": mid_game("games/chuhan.rules", 2, 3, 60),
        "charuma (mid-game)": mid_game("games/charuma.rules", 4, 1, 60),
    }


def time_from_json(st: State, runs: int) -> tuple:
    """(the least CPU time, the median wall-clock time) of from_json, in microseconds: on a
    shared machine the least CPU time is the steadier figure."""
    text, game = st.to_json(), st.game
    cpu, wall = [], []
    for _ in range(runs):
        c, t = time.process_time(), time.perf_counter()
        for _ in range(10):
            State.from_json(text, game)
        cpu.append((time.process_time() - c) / 10)
        wall.append((time.perf_counter() - t) / 10)
    return min(cpu) * 1e6, statistics.median(wall) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--mutations", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    for name, st in states().items():
        text = st.to_json()
        cpu, wall = time_from_json(st, args.runs)
        print(f"{name}: {len(text):,} bytes, {len(st.log)} log entries, stack {len(st.stack)}, "
              f"frames {len(st.frames)}: from_json {cpu:,.0f} us CPU (least of {args.runs} runs of 10), "
              f"{wall:,.0f} us wall (median)")
    if args.mutations:
        sys.path.insert(0, str(ROOT / "tests"))
        from test_state_format import run_mutations
        outcome = run_mutations(args.mutations, args.seed)
        print(", ".join(f"{k}: {v}" for k, v in sorted(outcome.items())))


if __name__ == "__main__":
    main()
