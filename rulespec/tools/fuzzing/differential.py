"""The differential check: the compiled engine against the reference interpreter.

Both engines play the same game (same rules, players, seed, options) with the same random
choices: at every decision they must offer the same player the same legal actions, in the same
order, with the same texts, write the same new log lines, and end in the same state (the JSON
state, compared as a whole at the end, and its hash at a sampled share of the decisions).  An
error raised by the rules must be the same error in both.  Any difference is a bug in the game
compiler (interpreter/compiled/): the interpreter is the reference.

The choices are drawn as a random player draws them (``random.Random(seed)``, an index into
the legal actions), so a difference found here is replayed by the seed alone.
"""
from __future__ import annotations

import hashlib
import random
from typing import Callable, Optional

import attrs

from interpreter.errors import EngineError


@attrs.define
class Difference:
    """Where the engines first disagreed."""
    decision: int          # decisions taken before it (0: at the first decision)
    what: str              # "legal actions", "player to act", "log", "state", "error"
    compiled: str          # what the compiled engine gave (shortened)
    interpreted: str       # what the reference gave
    history: list          # the actions taken before it: replay them on both engines to see it

    def describe(self) -> str:
        return (f"after {self.decision} decisions, the {self.what} differ: compiled {self.compiled}; "
                f"interpreted {self.interpreted}")


@attrs.define
class GameResult:
    players: int
    seed: int
    decisions: int
    terminal: bool
    difference: Optional[Difference]


def _short(v, limit: int = 300) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _digest(st) -> str:
    return hashlib.sha256(st.to_json().encode()).hexdigest()[:16]


def _first_list_difference(a: list, b: list) -> tuple:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"#{i}: {_short(x)}", f"#{i}: {_short(y)}"
    return f"{len(a)} of them: {_short(a[len(b):])}", f"{len(b)} of them: {_short(b[len(a):])}"


def _run_or_error(fn) -> tuple:
    """(value, None) or (None, the engine's error as text): a rules error must be the same in both."""
    try:
        return fn(), None
    except (EngineError, ValueError) as e:
        return None, f"{type(e).__name__}: {e}"


def play_both(compiled_game, reference_game, players: int, seed: int, options: Optional[dict] = None,
              max_steps: int = 20_000, hash_every: int = 64) -> GameResult:
    """One game on both engines with the same random choices; the first difference, if any."""
    history: list = []

    def differ(what, a, b, k):
        return GameResult(players, seed, k, False, Difference(k, what, _short(a), _short(b), list(history)))

    a, ea = _run_or_error(lambda: compiled_game.new_state(players=players, seed=seed, options=options))
    b, eb = _run_or_error(lambda: reference_game.new_state(players=players, seed=seed, options=options))
    if ea or eb:
        if ea != eb:
            return differ("error", ea, eb, 0)
        return GameResult(players, seed, 0, False, None)
    rng = random.Random(seed)
    k = 0
    logged = 0
    while True:
        if a.is_terminal() != b.is_terminal():
            return differ("game over", a.is_terminal(), b.is_terminal(), k)
        if len(a.log) != len(b.log) or a.log[logged:] != b.log[logged:]:
            x, y = _first_list_difference(a.log[logged:], b.log[logged:])
            return differ("log", x, y, k)
        logged = len(a.log)
        if a.is_terminal() or k >= max_steps:
            break
        if a.current_player != b.current_player:
            return differ("player to act", a.current_player, b.current_player, k)
        la, ea = _run_or_error(a.legal_action_strings)
        lb, eb = _run_or_error(b.legal_action_strings)
        if ea or eb:
            if ea != eb:
                return differ("error", ea, eb, k)
            break  # the same rules error in both: the game cannot go on, and that is not a difference
        if la != lb:
            x, y = _first_list_difference(la, lb)
            return differ("legal actions", x, y, k)
        if not la:
            break
        text = la[rng.randrange(len(la))]
        history.append(text)
        _, ea = _run_or_error(lambda: a.apply(text))
        _, eb = _run_or_error(lambda: b.apply(text))
        k += 1
        if ea or eb:
            if ea != eb:
                return differ("error", ea, eb, k)
            break
        if hash_every and k % hash_every == 0 and _digest(a) != _digest(b):
            return differ("state", "(JSON hash) " + _digest(a), _digest(b), k)
    ja, jb = a.to_json(), b.to_json()
    if ja != jb:
        return differ("state", ja, jb, k)
    return GameResult(players, seed, k, a.is_terminal(), None)


def differential(path: str, games: int, seed: int = 0, players="all", options: Optional[dict] = None,
                 max_steps: int = 20_000, progress: Optional[Callable] = None) -> list:
    """`games` games of a rules file on both engines (seeds as ``rulespec fuzz`` numbers them,
    player counts cycling over the game's range for "all"): their GameResults."""
    from interpreter.game import load
    from .planning import game_seed
    compiled, reference = load(path, engine="compiled"), load(path, engine="interpreted")
    model = compiled.model
    counts = list(range(model.min_players, model.max_players + 1)) if players == "all" else [int(players)]
    out = []
    for i in range(games):
        out.append(play_both(compiled, reference, counts[i % len(counts)], game_seed(seed, i), options, max_steps))
        if progress is not None:
            progress(i + 1, sum(1 for r in out if r.difference is not None))
    return out
