"""A game of a rules file as a sequence of integer decisions: what AI libraries expect.

TokenGame fixes a rules file, a player count and options; TokenState wraps an engine State
and the tokens picked so far toward its next action (action_codes.py spells actions as
tokens). The OpenSpiel and PettingZoo adapters are thin layers over these two.

At every decision of a TokenState the current player has at least two legal tokens, unless
the engine's decision has one legal action only (then its one token carries it out): tokens
no alternative competes with are taken at once, and the action is carried out as soon as the
tokens picked agree with one legal action only.
"""
from __future__ import annotations

import random
from typing import Optional

from . import returns as _returns
from .action_codes import ActionCodec


class TokenGame:
    """A rules file for AI libraries: fixed players and options; new states, the vocabulary,
    the observation encoder and the returns."""

    RETURNS = _returns.MODES

    def __init__(self, game, players: Optional[int] = None, options: Optional[dict] = None,
                 returns: Optional[str] = None, max_decisions: int = 20_000):
        """returns: a mode of returns.py ("zero_sum", "win", "score", "common"); None is the
        game's default (common for a shared score, else zero_sum)."""
        from .obs_tensor import ObservationEncoder
        returns = _returns.check_mode(returns, game.model)
        self.game = game
        self.players = game.model.min_players if players is None else players
        self.options = dict(options or {})
        game.new_state(players=self.players, seed=0, options=self.options)  # a bad count or option fails here
        self.returns_kind = returns
        self.max_decisions = max_decisions
        self.codec = ActionCodec(game, self.players)
        self.encoder = ObservationEncoder(game, self.players, self.codec)

    @property
    def num_actions(self) -> int:
        return len(self.codec)

    def new_state(self, seed: int) -> "TokenState":
        st = self.game.new_state(players=self.players, seed=seed, options=self.options)
        return TokenState(self, st)

    def utility_range(self) -> tuple[float, float]:
        return _returns.utility_range(self.returns_kind, self.players)


class TokenState:
    """An engine state plus the tokens picked toward its current player's next action."""

    __slots__ = ("tg", "state", "prefix", "_spellings", "decisions", "truncated", "chosen")

    def __init__(self, tg: TokenGame, state, prefix: tuple = (), decisions: int = 0,
                 truncated: bool = False, chosen: Optional[list] = None):
        self.tg = tg
        self.state = state
        self.prefix = prefix
        self._spellings = None
        self.decisions = decisions
        self.truncated = truncated
        # per player: how many times they picked each token (the information state's summary)
        self.chosen = chosen if chosen is not None else [dict() for _ in range(tg.players)]
        self._settle()

    # ------------------------------------------------------------------ reading
    def is_terminal(self) -> bool:
        return self.truncated or self.state.is_terminal()

    def current_player(self) -> Optional[int]:
        return None if self.is_terminal() else self.state.current_player

    def legal_tokens(self) -> list[int]:
        """The tokens the current player may pick next, ascending."""
        if self.is_terminal():
            return []
        k = len(self.prefix)
        p = self.prefix
        return sorted({s[k] for s, _ in self._candidates() if s[:k] == p})

    def token_text(self, token: int) -> str:
        """What picking `token` now means: the action's own text when it decides the action,
        else the vocabulary word with what it leads to."""
        word = self.tg.codec.words[token]
        if self.is_terminal():
            return word
        k = len(self.prefix)
        p = self.prefix + (token,)
        hits = [a for s, a in self._candidates() if s[:k + 1] == p]
        if len(hits) == 1:
            return hits[0].text
        if not hits:
            return word
        return f"{word} (toward: {len(hits)} actions, e.g. {hits[0].text})"

    def returns(self) -> list[float]:
        """Each player's return by the game's mode (returns.py); 0 for everyone until the end,
        and in a game stopped at max_decisions."""
        return _returns.returns(self.tg.returns_kind, self.state)

    # ------------------------------------------------------------------ changing
    def apply_token(self, token: int) -> None:
        if self.is_terminal():
            raise ValueError("the game is over: no token can be applied")
        legal = self.legal_tokens()
        if token not in legal:
            words = self.tg.codec.words
            what = words[token] if isinstance(token, int) and 0 <= token < len(words) else repr(token)
            raise ValueError(f"token {token} ({what}) is not legal here; legal: "
                             + ", ".join(f"{t} ({words[t]})" for t in legal[:12])
                             + (" ..." if len(legal) > 12 else ""))
        counts = self.chosen[self.state.current_player]
        counts[token] = counts.get(token, 0) + 1
        self.prefix = self.prefix + (token,)
        self._settle()

    def clone(self) -> "TokenState":
        return TokenState(self.tg, self.state.clone(), self.prefix, self.decisions, self.truncated,
                          [dict(c) for c in self.chosen])

    # ------------------------------------------------------------------ inside
    def _candidates(self) -> list:
        """(spelling, action) of every legal action of the engine's decision."""
        if self._spellings is None:
            acts = self.state.legal_actions()
            self._spellings = list(zip(self.tg.codec.spell_all(self.state, acts), acts))
        return self._spellings

    def _settle(self) -> None:
        """Take forced tokens and carry out the action once the tokens pick one."""
        while not self.is_terminal():
            cands = self._candidates()
            k = len(self.prefix)
            p = self.prefix
            agree = [(s, a) for s, a in cands if s[:k] == p] if k else cands
            if len(agree) == 1 and k:  # the tokens picked name one action
                self._carry_out(agree[0][1])
                continue
            nexts = {s[k] for s, _ in agree}
            if len(nexts) == 1 and len(agree) > 1:  # no alternative competes: taken at once
                self.prefix = p + (next(iter(nexts)),)
                continue
            return

    def _carry_out(self, action) -> None:
        self.state.apply(action)
        self.prefix = ()
        self._spellings = None
        self.decisions += 1
        if self.decisions >= self.tg.max_decisions and not self.state.is_terminal():
            self.truncated = True


def random_token_game(tstate: TokenState, rng: random.Random, max_steps: int = 1_000_000) -> int:
    """Play random tokens to the end; the number of tokens picked."""
    n = 0
    while not tstate.is_terminal() and n < max_steps:
        legal = tstate.legal_tokens()
        tstate.apply_token(legal[rng.randrange(len(legal))])
        n += 1
    return n
