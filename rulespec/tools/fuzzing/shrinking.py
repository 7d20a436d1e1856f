"""Shrinking a failing game: the shortest list of choices found that still fails the same check
(delta debugging over the recorded choices; any sub-list of choices is a valid game prefix,
see list_picker)."""
from __future__ import annotations

import math
import time
from typing import Optional, Sequence

import attrs

from .playing import Outcome, list_picker, play_game
from .results import Failure
from .secrecy import CHECK as COUNTERFACTUAL


def replay_choices(game, failure: Failure, options: Optional[dict], choices: Sequence[int],
                   max_steps: Optional[int] = None, texts: Optional[Sequence[str]] = None,
                   then_first: bool = False) -> Outcome:
    # the counterfactual check only when it is the one being shrunk (elsewhere it would only
    # cost time: a candidate must fail the same check to count)
    viewer = failure.viewer if failure.check == COUNTERFACTUAL else None
    return play_game(game, failure.players, failure.seed, options, list_picker(choices, texts, then_first),
                     max_steps, viewer=viewer)


def shrink(game, failure: Failure, options: Optional[dict], max_steps: Optional[int] = None,
           budget: int = 200, seconds: float = 60.0) -> tuple[Failure, int]:
    """The shortest list of choices found that still fails the same check (delta debugging
    over the choices, at most `budget` replays or about `seconds`); and the replays used."""
    deadline = time.perf_counter() + seconds
    used = 0
    best = list(zip(failure.choices, failure.actions))  # (index, text) pairs: see list_picker
    best_out = None
    # A game that never ends is shrunk to a prefix after which taking the first legal action
    # at every decision never ends either: the prefix is the replay, and often it is empty.
    endless = failure.check == "termination"

    def fails(pairs: list) -> Optional[Outcome]:
        nonlocal used
        used += 1
        out = replay_choices(game, failure, options, [c for c, _ in pairs], max_steps, [t for _, t in pairs],
                             then_first=endless)
        if out.failure is None or out.failure[0] != failure.check:
            return None
        if endless:  # keep only the prefix; the rest is "the first legal action" again
            out.choices, out.actions = [c for c, _ in pairs], [t for _, t in pairs]
        return out

    def left() -> bool:
        return used < budget and time.perf_counter() < deadline

    if endless:
        out = fails([])
        if out is not None:
            return attrs.evolve(failure, message=out.failure[1], choices=[], actions=[], then_first=True,
                                original_steps=failure.original_steps or failure.steps), used
    out = fails(best)  # the recorded game, cut at the failure, should fail again
    if out is None:
        return failure, used  # not reproducible by choices alone: keep it as it was
    best, best_out = list(zip(out.choices, out.actions)), out
    n = 2
    while len(best) >= 1 and left():
        size = math.ceil(len(best) / n)
        reduced = False
        for start in range(0, len(best), size):
            if not left():
                break
            cand = best[:start] + best[start + size:]
            out = fails(cand)
            if out is not None:
                best, best_out = list(zip(out.choices, out.actions)), out  # the failure may come sooner
                n = max(n - 1, 2)
                reduced = True
                break
        if not reduced:
            if size <= 1:
                break
            n = min(len(best), n * 2)
    shrunk = attrs.evolve(failure, message=best_out.failure[1], choices=list(best_out.choices),
                          actions=list(best_out.actions), original_steps=failure.original_steps or failure.steps,
                          then_first=endless, detail=best_out.detail)
    return shrunk, used
