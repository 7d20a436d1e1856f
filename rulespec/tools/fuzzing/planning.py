"""Planning a fuzz run: which games it plays, with which seeds, player counts and agents, and
which games get the sampled checks.

A run of N games is planned up front: game i gets its own deal seed
(``seed * 1_000_003 + i``), agent seed, player count (cycling over the game's range with
``players="all"``) and agent kind (cycling over ``agents``), and whether it gets the
counterfactual secrecy check and the replay at its end (``sampled_games``).  Here too: the
agents (``make_chooser``), how many decisions a game may take, and FuzzError, the error of
bad fuzzing parameters that every part of the fuzzer raises.
"""
from __future__ import annotations

import math
import random
from collections import Counter
from typing import Optional, Sequence

import attrs

from .checks import CHOOSERS
from interpreter.errors import EngineError

AGENT_KINDS = ("random", "rare", "mixed")
DEFAULT_AGENTS = ("random", "rare")
DEFAULT_MAX_STEPS = 20_000


def default_max_steps(model) -> int:
    """The decisions a game may take before it counts as endless, when none is given: the
    default, or the rules' own 'limit N decisions' when that is higher (the engine ends the game
    there: a game of the rules' length is finished, not endless)."""
    limit = model.limit.count if model.limit is not None else 0
    return max(DEFAULT_MAX_STEPS, limit)


class FuzzError(EngineError, ValueError):
    """Bad fuzzing parameters, or a replay file that cannot be used."""


# ---------------------------------------------------------------------- agents
class RareFirst:
    """Prefers the kinds of action this game has taken least: picks an action name with
    weight 1 / (1 + times taken so far), then one action of that name uniformly.  So powers,
    responses and other rare moves are tried whenever they are legal, and the deep states
    behind them get reached.  Deterministic for a given random.Random."""

    def __init__(self):
        self.taken: Counter = Counter()

    def __call__(self, st, rng: random.Random):
        by_name: dict = {}
        for a in st.legal_actions():
            by_name.setdefault(a.name, []).append(a)
        names = list(by_name)  # order of first appearance: deterministic
        name = rng.choices(names, [1.0 / (1 + self.taken[n]) for n in names])[0] if len(names) > 1 else names[0]
        self.taken[name] += 1
        group = by_name[name]
        return group[rng.randrange(len(group))] if len(group) > 1 else group[0]


def make_chooser(kind: str):
    """A fresh chooser (st, rng) -> Action for one game."""
    if kind == "rare":
        return RareFirst()
    if kind in CHOOSERS:
        return CHOOSERS[kind]
    raise FuzzError(f"unknown agent '{kind}' (agents: {', '.join(AGENT_KINDS)})")


# ---------------------------------------------------------------------- planning a run
@attrs.frozen
class GameJob:
    index: int
    players: int
    seed: int
    agent: str
    agent_seed: int
    viewer: Optional[int] = None  # the counterfactual secrecy check's viewer (None: not checked)
    state_check_rate: float = 1.0  # the fraction of decisions given the costly state checks
    replay: Optional[bool] = None  # replayed at its end? (None: drawn from its seed, see StateCheckSchedule)


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def sampled_games(games: int, rate: float, key: str) -> frozenset:
    """The indexes of the games a run samples at `rate`: every game at rate 1, none at 0, else
    exactly ceil(rate * games) of them, a random choice drawn from `key` (made of the run's
    seed), so that a run samples the same games whatever its workers.  The share is the
    rate itself rather than a draw per game around it: drawn per game, 10 games at rate 0.2
    would check none of them one run in nine, and the cost of a run would swing with it."""
    if rate >= 1:
        return frozenset(range(games))
    k = math.ceil(rate * games - 1e-9)
    return frozenset(random.Random(key).sample(range(games), k)) if k > 0 else frozenset()


def counterfactual_viewer(index: int, players: int, n_agents: int) -> int:
    """The viewer of game `index` for the counterfactual secrecy check.  Viewers cycle over the
    games (P1, P1, P2, P2, ... with two agents, so that every agent plays with every viewer)."""
    return (index // max(1, n_agents)) % players


def check_rate(rate: float, flag: str = "--counterfactual-rate", of: str = "the games") -> float:
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 1:
        raise FuzzError(f"{flag} is a fraction of {of}, from 0 to 1, not {rate!r}")
    return float(rate)


def check_state_rate(rate: float) -> float:
    return check_rate(rate, "--check-rate", "the decisions")


def plan(game, games: int, seed: int = 0, players="all", agents: Sequence[str] = DEFAULT_AGENTS,
         counterfactual_rate: float = 1.0, state_check_rate: float = 1.0) -> list[GameJob]:
    model = game.model
    rate = check_rate(counterfactual_rate)
    state_rate = check_state_rate(state_check_rate)
    if games < 1:
        raise FuzzError("--games must be at least 1")
    if not agents:
        raise FuzzError("give at least one agent")
    for a in agents:
        make_chooser(a)
    if players in (None, "all"):
        counts = list(range(model.min_players, model.max_players + 1))
    else:
        n = int(players)
        if not model.min_players <= n <= model.max_players:
            raise FuzzError(f"{model.name} is for {model.min_players}-{model.max_players} players, not {n}")
        counts = [n]
    viewed = sampled_games(games, rate, f"rulespec-counterfactual-games:{seed}")
    replayed = sampled_games(games, state_rate, f"rulespec-replayed-games:{seed}")
    jobs = []
    for i in range(games):
        s = game_seed(seed, i)
        n = counts[i % len(counts)]
        jobs.append(GameJob(i, n, s, agents[i % len(agents)], s * 7_919 + 104_729,
                            counterfactual_viewer(i, n, len(agents)) if i in viewed else None, state_rate,
                            i in replayed))
    return jobs
