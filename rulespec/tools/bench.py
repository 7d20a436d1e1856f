"""Benchmark: play many games between random agents and time the engine.

``bench(game, players, games, ...)`` plays ``games`` games ``runs`` times and
reports the median (and min / max) of games per second and microseconds per
decision over the runs.  Timing uses time.perf_counter and covers everything a
game costs: creating the state, listing legal actions, choosing and applying.
The random agents pick with ``State.sample_action`` (the draw of ``rng.choice(legal_actions())``
without making every action: an int choice over a range stays one range).

With ``workers`` > 1 each run's games are split over that many processes: the
games are the same (seeds seed, seed+1, ...), microseconds per decision is the
time the workers spent per decision (the cost on one core) and games per second
is what all of them achieved together (the wall clock).  ``state_costs``
measures what a search or a fuzzer pays per copy of a state: clone(), to_json()
and the memory a state holds.
"""
from __future__ import annotations

import json
import os
import statistics
import time
import tracemalloc
from typing import Optional

import attrs

from rulespec.tools.ai.agents import RandomAgent
from interpreter.errors import EngineError


@attrs.frozen
class RunResult:
    games: int
    decisions: int
    seconds: float                  # wall clock of the whole run
    busy: Optional[float] = None    # time the workers spent playing (None: one process, = seconds)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def us_per_decision(self) -> float:
        spent = self.seconds if self.busy is None else self.busy
        return spent / self.decisions * 1e6 if self.decisions else 0.0


@attrs.frozen
class StateCosts:
    """Per copy of a mid-game state: microseconds of clone() and to_json(), bytes it holds."""
    states: int
    clone_us: float
    to_json_us: float
    json_bytes: float
    memory_bytes: float

    def report(self) -> str:
        return (f"  per state ({self.states} mid-game states): clone {self.clone_us:.1f} us, "
                f"to_json {self.to_json_us:.1f} us ({self.json_bytes / 1024:.1f} KiB of JSON), "
                f"memory {self.memory_bytes / 1024:.1f} KiB")


@attrs.frozen
class BenchResult:
    players: int
    games: int
    runs: list
    workers: int = 1
    costs: Optional[StateCosts] = None

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
        on = f", {self.workers} workers" if self.workers > 1 else ""
        text = (f"{head}{self.players} players, {self.games} games x {len(self.runs)} runs{on}, "
                f"{self.decisions_per_game:.1f} decisions per game\n"
                f"  games per second:      {gm:10.2f}  (min {glo:.2f}, max {ghi:.2f})\n"
                f"  microseconds/decision: {um:10.1f}  (min {ulo:.1f}, max {uhi:.1f})")
        if self.workers > 1:
            text += "  (time in the workers per decision: the cost on one core)"
        if self.costs is not None:
            text += "\n" + self.costs.report()
        return text


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
            if not st.count_actions():
                raise BenchError(f"the game with seed {s} is stuck: no legal action in phase '{st.phase}'")
            p = st.active
            st.apply(agents[p].choose(st, p))
            steps += 1
            if steps > max_steps:
                raise BenchError(f"the game with seed {s} did not end within {max_steps} decisions")
        decisions += steps
    return RunResult(games, decisions, time.perf_counter() - t0)


def default_workers() -> int:
    """The machine's cores (those this process may run on)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


_WORKER_GAME = None  # the game a bench worker compiled as it started


def _start_worker(path: str, source: str) -> None:
    """Compile the rules as the worker starts, so that the runs time play, not compiling."""
    global _WORKER_GAME
    from rulespec.tools.fuzzing.fuzz import _game_from_source, _quiet_worker
    _quiet_worker()
    _WORKER_GAME = _game_from_source(path, source)


def _ready(_) -> None:
    """A task that only returns once its worker has started (the initializer ran first)."""
    time.sleep(0.02)


def _play_share(payload: tuple) -> tuple[int, float]:
    """A few games of a run, in a worker: (decisions, seconds spent).  Top level, for multiprocessing."""
    players, seeds, options, max_steps = payload
    decisions, busy = 0, 0.0
    for s in seeds:
        r = play_random_games(_WORKER_GAME, players, 1, s, options, max_steps)
        decisions += r.decisions
        busy += r.seconds
    return decisions, busy


def _run_parallel(game, players: int, games: int, seed: int, options: Optional[dict], max_steps: int,
                  workers: int, pool) -> RunResult:
    """The run's games handed out a few at a time to whichever worker is free (games of very
    different lengths then keep every worker busy to the end); the same games whatever the count."""
    size = max(1, games // (workers * 8))
    payloads = [(players, list(range(seed + i, min(seed + i + size, seed + games))), options, max_steps)
                for i in range(0, games, size)]
    t0 = time.perf_counter()
    done = list(pool.imap_unordered(_play_share, payloads))
    wall = time.perf_counter() - t0
    return RunResult(games, sum(d for d, _ in done), wall, sum(b for _, b in done))


def state_costs(game, players: int, seed: int = 0, options: Optional[dict] = None, states: int = 20,
                max_steps: int = 100_000) -> StateCosts:
    """Clone, serialise and weigh `states` states taken along one random game (or several)."""
    samples, s = [], seed
    while len(samples) < states:
        st = game.new_state(players=players, seed=s, options=options)
        agents = [RandomAgent(seed=s * 1000 + p) for p in range(players)]
        trail = []
        steps = 0
        while not st.terminal and steps < max_steps:
            trail.append(st.clone())
            p = st.active
            st.apply(agents[p].choose(st, p))
            steps += 1
        if not trail:
            raise BenchError("the game ends before its first decision: no state to measure")
        step = max(1, len(trail) // states)
        samples += trail[::step][:states - len(samples)]
        s += 1
    reps = 20
    t0 = time.perf_counter()
    for st in samples:
        for _ in range(reps):
            st.clone()
    clone_us = (time.perf_counter() - t0) / (reps * len(samples)) * 1e6
    t0 = time.perf_counter()
    texts = [st.to_json() for st in samples for _ in range(3)]
    to_json_us = (time.perf_counter() - t0) / len(texts) * 1e6
    json_bytes = statistics.mean(len(t.encode("utf-8")) for t in texts)
    # Memory: what a fresh clone allocates (the rules and compiled program are shared, not counted).
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    copies = [st.clone() for st in samples]
    memory = (tracemalloc.get_traced_memory()[0] - before) / len(copies)
    tracemalloc.stop()
    del copies
    return StateCosts(len(samples), clone_us, to_json_us, json_bytes, memory)


def bench(game, players: int, games: int = 100, seed: int = 0, options: Optional[dict] = None,
          runs: int = 5, max_steps: int = 100_000, workers: int = 1, costs: bool = False) -> BenchResult:
    if games < 1 or runs < 1:
        raise ValueError("--games and --runs must be at least 1")
    if workers < 1:
        raise ValueError("--workers must be at least 1")
    workers = min(workers, games)
    if workers == 1:
        results = [play_random_games(game, players, games, seed, options, max_steps) for _ in range(runs)]
    else:
        import multiprocessing
        with multiprocessing.get_context().Pool(workers, initializer=_start_worker,
                                                initargs=(game.path, game.model.source)) as pool:
            pool.map(_ready, range(workers * 2), chunksize=1)  # every worker has compiled the rules: not timed
            results = [_run_parallel(game, players, games, seed, options, max_steps, workers, pool)
                       for _ in range(runs)]
    measured = state_costs(game, players, seed, options) if costs else None
    return BenchResult(players, games, results, workers, measured)
