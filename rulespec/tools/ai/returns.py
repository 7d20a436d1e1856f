"""What each player gets when a game ends: the AI adapters' `returns` modes (docs/ai.md).

  zero_sum  the winners share +1 and the losers share -1, each side split equally (the sum is
            0); everyone gets 0 when nobody or everybody wins
  win       1 for each winner, 0 for the others (the engine's State.returns())
  score     each player's score by the rules' `score` clause (State.scores())
  common    every player gets the same number: the mean of the players' scores, which is the
            shared score itself when the rules' score does not depend on the player

A game's default is `common` when its score is shared -- a `score p: EXPR` whose EXPR reads the
game but never p gives every player the same number, so the rules measure the players only
together (a cooperative game) -- and `zero_sum` otherwise. A game the adapters stop at max_decisions
(truncated) gives everyone 0 in every mode.
"""
from __future__ import annotations

from rulespec.lang import ast as A

MODES = ("zero_sum", "win", "score", "common")
SCORE_BOUND = 1e6  # the utility bounds of the score modes: the rules state none


def shared_score(model) -> bool:
    """Does the rules' score measure the players together: a score clause whose expression reads
    the game (names something) but never names its player? (A constant score, `score p: 0`,
    measures nothing; a name of the player shadowed by a local counts as a reading of it: a
    false "no" only keeps the zero-sum default.)"""
    clause = model.score
    if clause is None:
        return False
    stack, reads = [clause.expr], False
    while stack:
        e = stack.pop()
        if isinstance(e, A.Name):
            if e.name == clause.var:
                return False
            reads = True
        stack.extend(A.children(e))
    return reads


def default_mode(model) -> str:
    return "common" if shared_score(model) else "zero_sum"


def check_mode(mode, model) -> str:
    """The mode to use: `mode`, or the game's default for None; ValueError for a bad one."""
    if mode is None:
        return default_mode(model)
    if mode not in MODES:
        raise ValueError(f"returns is one of {', '.join(MODES)}, not {mode!r}")
    if mode == "common" and model.score is None:
        raise ValueError(f"returns='common' gives every player the rules' shared score, and {model.name} "
                         "has no score clause: use 'win' or 'zero_sum'")
    return mode


def utility_range(mode: str, players: int) -> tuple[float, float]:
    """The least and the most a player can get in this mode."""
    if mode == "zero_sum":
        return (-1.0 if players > 1 else 0.0, 1.0)  # a lone loser pays the whole -1
    if mode == "win":
        return (0.0, 1.0)
    return (-SCORE_BOUND, SCORE_BOUND)


def returns(mode: str, state) -> list[float]:
    """Each player's return of a finished engine state (0 for everyone before the end)."""
    n = state.n
    if not state.is_terminal():
        return [0.0] * n
    if mode == "score":
        return [float(s) for s in state.scores()]
    if mode == "common":
        scores = state.scores()
        return [sum(scores) / n] * n
    wins = state.returns()
    if mode == "win":
        return wins
    w = int(sum(wins))
    if w == 0 or w == n:
        return [0.0] * n
    won, lost = 1.0 / w, -1.0 / (n - w)
    return [won if x else lost for x in wins]
