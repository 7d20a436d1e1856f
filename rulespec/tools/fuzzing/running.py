"""Running many games: a run's jobs cut into batches (run_chunk, one batch in one worker), the
backends that play the batches (worker processes on this machine, a Ray cluster), and fuzz,
which plans a run, plays it and merges what the batches found in a fixed order.  Games are
independent, so a run's totals -- decisions, coverage, failures -- are the same whatever the
number of worker processes or the backend that plays them."""
from __future__ import annotations

import math
import os
import random
import time
from collections import Counter
from typing import Callable, Iterator, Optional, Sequence

from .planning import (DEFAULT_AGENTS, FuzzError, GameJob, check_rate, check_state_rate, default_max_steps,
                       make_chooser, plan)
from .playing import Outcome, agent_picker, play_game
from .results import MAX_LISTED, ChunkResult, Failure, FuzzResult, Longest


def run_job(game, job: GameJob, options: Optional[dict], max_steps: int, coverage: Optional[Counter] = None) -> Outcome:
    pick = agent_picker(make_chooser(job.agent), random.Random(job.agent_seed))
    return play_game(game, job.players, job.seed, options, pick, max_steps, coverage, viewer=job.viewer,
                     state_check_rate=job.state_check_rate, replayed=job.replay)


_GAMES: dict = {}


def _game_from_source(path: str, source: str):
    """Compile the rules once per worker process (Ray workers may not have the file)."""
    from interpreter.game import load_text
    from interpreter.state import stable_hash
    key = (path, stable_hash(source))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_text(source, path)
    return game


def run_chunk(payload: tuple) -> tuple[int, ChunkResult]:
    """Play a batch of games: payload (chunk id, rules path, rules text, options, jobs, max steps,
    max choices).
    A top-level function, so multiprocessing and Ray can ship it to a worker."""
    chunk_id, path, source, options, jobs, max_steps, max_choices = payload
    game = _game_from_source(path, source)
    game.max_choices = max_choices
    res = ChunkResult()
    cpu = time.process_time()
    for job in jobs:
        out = run_job(game, job, options, max_steps, res.coverage)
        res.games += 1
        res.decisions += out.steps
        res.note_longest(Longest.of(job, out))
        res.terminal += out.terminal
        res.limited += out.limited
        res.checked += out.checked
        res.replayed += out.replayed
        res.by_players[job.players] += 1
        res.by_agent[job.agent] += 1
        if out.counterfactual is not None:
            res.cf_games += 1
            res.cf_worlds += out.counterfactual.worlds
            res.cf_dropped += out.counterfactual.dropped
            res.cf_drops.update(out.counterfactual.drops)
            res.cf_decisions += out.counterfactual.compared
            res.cf_empty += out.counterfactual.worlds == 0
            res.cf_visible += out.counterfactual.worlds == 0 and out.counterfactual.hidden < 2
        res.cf_seconds += out.counterfactual_seconds
        if out.failure is not None:
            check, message = out.failure
            res.failures[check] += 1
            if len(res.failing) < MAX_LISTED:
                res.failing.append((job.index, check))
            if check not in res.first:
                res.first[check] = Failure(job.index, job.players, job.seed, job.agent, job.agent_seed, check,
                                           message, list(out.choices), list(out.actions), len(out.choices),
                                           viewer=job.viewer, detail=out.detail)
    res.cpu_seconds = time.process_time() - cpu
    return chunk_id, res


class Backend:
    """Runs a function over jobs somewhere: ``map(fn, jobs)`` yields (in any order) fn(job)."""
    name = "?"
    workers = 1

    def map(self, fn: Callable, jobs: list) -> Iterator:
        raise NotImplementedError

    def close(self) -> None:
        pass


class LocalBackend(Backend):
    """Worker processes on this machine (multiprocessing); one worker runs in this process."""
    name = "local"

    def __init__(self, workers: int = 1):
        if workers < 1:
            raise FuzzError("--workers must be at least 1")
        self.workers = workers

    def map(self, fn, jobs):
        if self.workers == 1 or len(jobs) == 1:
            for j in jobs:
                yield fn(j)
            return
        import multiprocessing
        with multiprocessing.get_context().Pool(min(self.workers, len(jobs)), initializer=_quiet_worker) as pool:
            yield from pool.imap_unordered(fn, jobs)


def _quiet_worker() -> None:
    """Ctrl-C stops the run from the main process; workers must not print tracebacks of their own."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class RayBackend(Backend):
    """A Ray cluster (``address``: "auto", "ray://host:10001", ...; None starts a local instance
    with ``workers`` CPUs).  Needs the optional extra: pip install rulespec[ray]."""
    name = "ray"

    def __init__(self, workers: int = 1, address: Optional[str] = None):
        try:
            import ray  # noqa: F401
        except ImportError:
            raise BackendUnavailable("the Ray backend needs Ray: pip install 'rulespec[ray]'") from None
        self.workers = workers
        self.address = address
        self._started = False

    def map(self, fn, jobs):
        import ray
        if not ray.is_initialized():
            kwargs = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False,
                      "configure_logging": False}
            if self.address:
                import interpreter
                import rulespec
                # ship this package to the cluster's workers, which may not have it installed
                kwargs["runtime_env"] = {"py_modules": [os.path.dirname(rulespec.__file__),
                                                        os.path.dirname(interpreter.__file__)]}
                ray.init(address=self.address, **kwargs)
            else:
                ray.init(num_cpus=self.workers, **kwargs)
            self._started = True
        remote = ray.remote(fn)
        pending = [remote.remote(j) for j in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])

    def close(self) -> None:
        if self._started:
            import ray
            ray.shutdown()
            self._started = False


class BackendUnavailable(FuzzError):
    """The chosen backend cannot run here (a missing optional dependency)."""


def make_backend(name: str = "local", workers: int = 1, address: Optional[str] = None) -> Backend:
    if workers < 1:
        raise FuzzError("--workers must be at least 1")
    if name == "local":
        if address:
            raise FuzzError("--address is for --backend ray")
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(workers, address)
    raise FuzzError(f"unknown backend '{name}' (backends: local, ray)")


def fuzz(game, games: int, seed: int = 0, players="all", options: Optional[dict] = None,
         agents: Sequence[str] = DEFAULT_AGENTS, max_steps: Optional[int] = None,
         backend: Optional[Backend] = None, progress: Optional[Callable[[int, int], None]] = None,
         chunk_size: Optional[int] = None, counterfactual_rate: float = 1.0,
         state_check_rate: float = 1.0) -> FuzzResult:
    """Play `games` checked games; progress(games done, failing games so far) after each batch.
    `counterfactual_rate`: the fraction of games (0 to 1) given the counterfactual secrecy check;
    `state_check_rate`: the fraction of decisions given the costly state checks (play_game).
    `max_steps` (default: default_max_steps): the decisions after which a game counts as endless."""
    if max_steps is None:
        max_steps = default_max_steps(game.model)
    if max_steps < 1:
        raise FuzzError("--max-steps must be at least 1")
    rate = check_rate(counterfactual_rate)
    state_rate = check_state_rate(state_check_rate)
    backend = backend or LocalBackend(1)
    options = dict(options or {})
    game.new_state(players=game.model.min_players if players in (None, "all") else int(players),
                   seed=seed, options=options)  # a bad option or player count fails here, early
    jobs = plan(game, games, seed, players, agents, rate, state_rate)
    size = chunk_size or max(1, min(25, math.ceil(games / (backend.workers * 8))))
    source = game.model.source
    payloads = [(k, game.path, source, options, jobs[i:i + size], max_steps, game.max_choices)
                for k, i in enumerate(range(0, len(jobs), size))]
    totals = ChunkResult()
    results = {}
    t0 = time.perf_counter()
    try:
        for k, res in backend.map(run_chunk, payloads):
            results[k] = res
            totals.games += res.games
            totals.failures.update(res.failures)
            if progress is not None:
                progress(totals.games, sum(totals.failures.values()))
    finally:
        backend.close()
    seconds = time.perf_counter() - t0
    merged = ChunkResult()
    for k in sorted(results):  # merge in a fixed order: same totals whatever the workers
        merged.add(results[k])
    return FuzzResult(game.path, game.name, games, seed, players, options, tuple(agents), max_steps,
                      backend.name, backend.workers, merged, seconds, rate, state_rate)
