"""Benchmark: play many games between random agents and time the engine.

``bench(game, players, games, ...)`` plays ``games`` games ``runs`` times and
reports the median (and min / max) of games per second and microseconds per
decision over the runs.  Timing uses time.perf_counter and covers everything a
game costs: creating the state, listing legal actions, choosing and applying.
"""
from __future__ import annotations

import statistics
import time
from typing import Optional

import attrs

from .agents import RandomAgent
from .errors import EngineError


@attrs.frozen
class RunResult:
    games: int
    decisions: int
    seconds: float

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def us_per_decision(self) -> float:
        return self.seconds / self.decisions * 1e6 if self.decisions else 0.0


@attrs.frozen
class BenchResult:
    players: int
    games: int
    runs: list

    def _stat(self, attr: str) -> tuple[float, float, float]:
        vals = [getattr(r, attr) for r in self.runs]
        return statistics.median(vals), min(vals), max(vals)

    @property
    def games_per_second(self) -> tuple[float, float, float]:
        """(median, min, max) over the runs."""
        return self._stat("games_per_second")

    @property
    def us_per_decision(self) -> tuple[float, float, float]:
        """(median, min, max) over the runs."""
        return self._stat("us_per_decision")

    @property
    def decisions_per_game(self) -> float:
        return sum(r.decisions for r in self.runs) / max(1, sum(r.games for r in self.runs))

    def report(self, name: str = "") -> str:
        gm, glo, ghi = self.games_per_second
        um, ulo, uhi = self.us_per_decision
        head = f"{name}: " if name else ""
        return (f"{head}{self.players} players, {self.games} games x {len(self.runs)} runs, "
                f"{self.decisions_per_game:.1f} decisions per game\n"
                f"  games per second:      {gm:10.2f}  (min {glo:.2f}, max {ghi:.2f})\n"
                f"  microseconds/decision: {um:10.1f}  (min {ulo:.1f}, max {uhi:.1f})")


class BenchError(EngineError):
    """A benchmarked game got stuck or did not end within the step bound."""


def play_random_games(game, players: int, games: int, seed: int = 0, options: Optional[dict] = None,
                      max_steps: int = 100_000) -> RunResult:
    """Play `games` games (seeds seed, seed+1, ...) between random agents; time them."""
    decisions = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = seed + i
        st = game.new_state(players=players, seed=s, options=options)
        agents = [RandomAgent(seed=s * 1000 + p) for p in range(players)]
        steps = 0
        while not st.terminal:
            if not st.legal_actions():
                raise BenchError(f"the game with seed {s} is stuck: no legal action in phase '{st.phase}'")
            p = st.active
            st.apply(agents[p].choose(st, p))
            steps += 1
            if steps > max_steps:
                raise BenchError(f"the game with seed {s} did not end within {max_steps} decisions")
        decisions += steps
    return RunResult(games, decisions, time.perf_counter() - t0)


def bench(game, players: int, games: int = 100, seed: int = 0, options: Optional[dict] = None,
          runs: int = 5, max_steps: int = 100_000) -> BenchResult:
    if games < 1 or runs < 1:
        raise ValueError("--games and --runs must be at least 1")
    results = [play_random_games(game, players, games, seed, options, max_steps) for _ in range(runs)]
    return BenchResult(players, games, results)
