"""Any rules file as an OpenSpiel game (``pip install 'rulespec[openspiel]'``).

    from rulespec.tools.ai.openspiel import load_game
    game = load_game("games/hearts.rules", players=4, seed=1)   # a pyspiel.Game
    state = game.new_initial_state()
    state.legal_actions(), state.action_to_string(a), state.information_state_tensor(0) ...

load_game also registers the file with OpenSpiel as ``rulespec_<file stem>`` (``register`` does
only that), so ``pyspiel.load_game("rulespec_hearts", {"players": 4, "target": 50})`` works
after it, and so do OpenSpiel's own serialisation and tests. The game:

- is sequential, imperfect information, SAMPLED_STOCHASTIC: a rules file's randomness (shuffling
  a 108-card deck, a random pick inside an effect) cannot be enumerated as chance outcomes, so
  there are no chance nodes. The game holds a random generator seeded by its ``seed`` parameter;
  every new state draws its engine seed from it when it is first used (the same program makes
  the same games). MCTS and other algorithms that clone states see the whole state: hidden cards
  and the future draws the seed decides.
- has integer actions that are the token ids of rulespec/tools/ai/action_codes.py's vocabulary: stable for
  a rules file and player count. An engine action is spelt as a few tokens; tokens no alternative
  competes with are taken automatically, so a decision offers at least two legal ids unless the
  engine's decision has a single action. ``action_to_string`` is the action's rulespec text when
  the id decides the action, else the token's word and what it leads to.
- returns, by the ``returns`` parameter (rulespec/tools/ai/returns.py): "zero_sum" (the winners
  share +1 and the losers -1, ZERO_SUM), "win" (1 for a winner, 0 otherwise, GENERAL_SUM),
  "score" (the rules' scores, GENERAL_SUM), "common" (everyone the shared score: the mean of the
  scores, IDENTICAL). The default is "common" when the rules' score does not depend on the
  player (a cooperative game), else "zero_sum". A game past ``max_decisions`` engine decisions
  stops with no winner (every return 0).
- observes through the player's own view only (State.observation(player)): the observation
  tensor is rulespec/tools/ai/obs_tensor.py's, its pieces exposed as named views (``make_py_observer``);
  the information state adds the player's masked log and the tokens they picked.

Everything about it is told in docs/ai.md. pyspiel is imported here only: importing rulespec
does not need it.
"""
from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Optional

try:
    import numpy as np
    import pyspiel
except ImportError as e:  # pragma: no cover - the extra is missing
    raise ImportError("rulespec.tools.ai.openspiel needs OpenSpiel: pip install 'rulespec[openspiel]' "
                      f"(open_spiel and numpy): {e}") from None

from interpreter import load as _load_rules
from interpreter.game import OptionError
from . import returns as _returns
from .obs_tensor import shown_text
from .token_env import TokenGame, TokenState
from rulespec.lang.errors import RulesError
from rulespec.tools.shipped_games import resolve

__all__ = ["load_game", "register", "RulespecGame", "RulespecState", "RulespecObserver", "max_spelling"]

# the game parameters every rules file has; the rules' own options come after them
DEFAULT_SEED = 0
DEFAULT_MAX_DECISIONS = 20_000
RESERVED = ("players", "seed", "returns", "max_decisions")
NUMBER_DIGITS = 19  # max_game_length assumes numbers in actions have at most this many digits

_NAMES: dict[str, str] = {}   # registered short name -> the rules file's absolute path
_PATHS: dict[str, str] = {}   # absolute path -> short name
_TOKEN_GAMES: dict[tuple, TokenGame] = {}
_CLASSES: dict[str, type] = {}  # short name -> its game class (the creator OpenSpiel calls)
# OpenSpiel's utility type of each returns mode: the zero-sum returns sum to 0, the common ones
# are the same for every player, the others are general
UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "win": pyspiel.GameType.Utility.GENERAL_SUM,
           "score": pyspiel.GameType.Utility.GENERAL_SUM, "common": pyspiel.GameType.Utility.IDENTICAL}


# ---------------------------------------------------------------------- loading and registering
def load_game(path, players: Optional[int] = None, **options) -> "RulespecGame":
    """The rules file at `path` as a pyspiel game of `players` players (default: the game's
    minimum). Keyword arguments: ``seed`` (whole number, default 0: the generator new states draw
    their engine seeds from), ``returns`` ("zero_sum", "win", "score" or "common"; default:
    the game's, see returns.py), ``max_decisions``
    (default 20000), and the rules file's options (``events=True``). Bad input raises
    ValueError (OptionError for a player count or an option)."""
    name = register(path)
    params = {} if players is None else {"players": players}
    params.update(options)
    params = _check_params(_NAMES[name], params)
    return pyspiel.load_game(name, params)


def register(path) -> str:
    """Register a rules file with OpenSpiel (again, if it changed) and return its short name,
    ``rulespec_<file stem>`` (with a number added when another file of that stem came first)."""
    if not isinstance(path, (str, Path)):
        raise ValueError(f"a rules file's path is text, not {path!r}")
    p = Path(path)
    if not p.is_file():  # a shipped game's name, as every command takes it
        try:
            p = Path(resolve(path))
        except RulesError:
            p = None
        if p is None or not p.is_file():
            raise ValueError(f"no rules file at {str(path)!r}, and no shipped game of that name")
    full = str(p.resolve())
    game = _load_rules(full)  # a file with errors raises RulesError with its diagnostics
    model = game.model
    clash = [o for o in model.options if o in RESERVED]
    if clash:
        raise ValueError(f"{path}: the option {clash[0]!r} has the name of a game parameter "
                         f"({', '.join(RESERVED)}); rename it to use the file with OpenSpiel")
    name = _PATHS.get(full)
    if name is None:
        base = "rulespec_" + (re.sub(r"[^a-z0-9_]+", "_", p.stem.lower()).strip("_") or "game")
        name, k = base, 1
        while name in _NAMES or name in pyspiel.registered_names():
            k += 1
            name = f"{base}_{k}"
        _NAMES[name], _PATHS[full] = full, name
    game_type = _game_type(name, model, UTILITY[_returns.default_mode(model)], _spec(game))
    # the creator is a class of its own per name, as in OpenSpiel's Python games: a lambda held
    # only by OpenSpiel's registry is freed after Python has shut down, which aborts the process
    creator = _CLASSES.get(name)
    if creator is None:
        creator = _CLASSES[name] = type(f"RulespecGame_{name}", (RulespecGame,), {"short_name": name})
    pyspiel.register_game(game_type, creator)
    return name


def _spec(game) -> dict:
    """The game parameters of a rules file and their defaults: OpenSpiel's parameter_specification."""
    limit = game.model.limit  # the rules' own 'limit N decisions' ends every game there anyway
    spec = {"players": game.model.min_players, "seed": DEFAULT_SEED, "returns": _returns.default_mode(game.model),
            "max_decisions": limit.count if limit is not None else DEFAULT_MAX_DECISIONS}
    spec.update({k: _param_value(v) for k, v in game.default_options().items()})
    return spec


def _param_value(v):
    """An option's value as an OpenSpiel game parameter (bool, int, float or text)."""
    return v if isinstance(v, (bool, int, float, str)) else str(v)


def _game_type(name: str, model, utility, spec: dict):
    return pyspiel.GameType(
        short_name=name,
        long_name=f"{model.name} (rulespec)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=model.max_players,
        min_num_players=model.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec)


def _check_params(path: str, params: dict) -> dict:
    """The game parameters checked and converted (rules options to their types): clear errors
    before OpenSpiel sees them."""
    game = _load_rules(path)
    out = {}
    for k, v in params.items():
        if not isinstance(k, str):
            raise ValueError(f"a game parameter's name is text, not {k!r}")
        if k in ("players", "seed", "max_decisions"):
            if not isinstance(v, int) or isinstance(v, bool):
                raise OptionError(f"{k} is a whole number, not {v!r}")
            out[k] = v
        elif k == "returns":
            if v is not None:  # None: the game's default
                out[k] = _returns.check_mode(v, game.model)
        else:
            out[k] = _param_value(game.parse_option(k, v))  # OptionError names the known options
    n = out.get("players", game.model.min_players)
    lo, hi = game.model.min_players, game.model.max_players
    if not lo <= n <= hi:
        raise OptionError(f"{game.name} is for {lo}-{hi} players, not {n}")
    if out.get("max_decisions", 1) < 1:
        raise OptionError(f"max_decisions is at least 1, not {out['max_decisions']}")
    return out


def _token_game(path: str, players: int, options: tuple, returns: str, max_decisions: int) -> TokenGame:
    """One TokenGame per rules file (and its content), players, options and returns: the
    vocabulary and encoder are built once, and states restored from text find their game."""
    game = _load_rules(path)
    key = (path, game.source_hash, players, options, returns, max_decisions)
    tg = _TOKEN_GAMES.get(key)
    if tg is None:
        tg = _TOKEN_GAMES[key] = TokenGame(game, players, dict(options), returns=returns,
                                           max_decisions=max_decisions)
    return tg


def max_spelling(tg: TokenGame) -> int:
    """The most tokens an action of this game can be spelt with (action_codes.py): the action's
    token, each parameter's longest value, and a variant token. A set of cards counts every card
    of the game with its zone; a number at most NUMBER_DIGITS digits."""
    prog = tg.game.prog
    cards = prog.card_count
    # a card: its token and its zone, or a face-down one's token and its place ('by position')
    card = 2 if cards < 256 or not any(p.by_position for a in prog.actions.values() for p in a.params) \
        else NUMBER_DIGITS + 4
    value = {"player": 1, "bool": 1, "enum": 1, "int": NUMBER_DIGITS + 3, "option": NUMBER_DIGITS + 3,
             "card": card, "cards": card * cards + 1, "players": tg.players + 1, "use": card * cards + 4}
    longest_value = max(value.values())
    best = 2 + longest_value  # an answer to a choice inside an effect: "answer", the value, a variant
    for act in prog.actions.values():
        best = max(best, 2 + 2 + sum(value.get(p.kind, 1) for p in act.params))  # + owner, self
    return best


# ---------------------------------------------------------------------- the game
class RulespecGame(pyspiel.Game):
    """A rules file as a pyspiel game. Made by load_game or pyspiel.load_game("rulespec_...")."""

    short_name = ""  # set by each registered file's own subclass

    def __init__(self, params: Optional[dict] = None):
        name = self.short_name
        if not name:
            raise ValueError("make rulespec games with rulespec.tools.ai.openspiel.load_game(path, ...)")
        path = _NAMES[name]
        game = _load_rules(path)
        spec = _spec(game)
        unknown = [k for k in (params or {}) if k not in spec]
        if unknown:
            raise OptionError(f"unknown game parameter {unknown[0]!r} for {name} (parameters: {', '.join(spec)})")
        params = {**spec, **(params or {})}
        players = params.pop("players")
        seed = params.pop("seed")
        returns = params.pop("returns")
        max_decisions = params.pop("max_decisions")
        returns = _returns.check_mode(returns, game.model)
        if max_decisions < 1:
            raise OptionError(f"max_decisions is at least 1, not {max_decisions}")
        options = tuple(sorted((k, game.parse_option(k, v)) for k, v in params.items()))
        self.token_game = tg = _token_game(path, players, options, returns, max_decisions)
        self._key = (path, players, options, returns, max_decisions)
        lo, hi = tg.utility_range()
        full = {"players": players, "seed": seed, "returns": returns, "max_decisions": max_decisions}
        full.update({k: _param_value(v) for k, v in options})
        info = pyspiel.GameInfo(
            num_distinct_actions=tg.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if returns == "zero_sum" else None,
            max_game_length=max_decisions * max_spelling(tg))
        super().__init__(_game_type(name, game.model, UTILITY[returns], spec), info, full)
        self._rng = random.Random(seed)
        self._pending: Optional[int] = None            # the engine seed the next new state takes
        self._provisional: Optional[TokenState] = None  # its state, built once looked at
        self._provisional_memo = _Memo()

    def new_initial_state(self, *args) -> "RulespecState":
        if args:
            raise ValueError("a rulespec game starts from its seed only: new_initial_state() takes no argument")
        return RulespecState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "RulespecObserver":
        if isinstance(iig_obs_type, dict) and params is None:  # OpenSpiel's C++ passes params alone
            iig_obs_type, params = None, iig_obs_type
        return RulespecObserver(self.token_game, iig_obs_type, params)

    # ---------------------------------------------------------------- engine seeds
    def _peek(self) -> tuple[int, TokenState]:
        """The engine seed the next new state will take and its initial state, without taking it
        (OpenSpiel asks fresh states for tensors just to learn their shapes)."""
        if self._pending is None:
            self._pending = self._rng.getrandbits(48)
        if self._provisional is None:
            self._provisional = self.token_game.new_state(self._pending)
            self._provisional_memo = _Memo()
        return self._pending, self._provisional

    def _take(self, seed: Optional[int]) -> TokenState:
        """The initial state of a new state's game: the pending seed's, or `seed` (a state that
        looked at an earlier pending seed keeps it)."""
        if seed is None:
            if self._pending is None:
                self._pending = self._rng.getrandbits(48)
            seed = self._pending
        if seed == self._pending:
            ts = self._provisional
            self._pending = self._provisional = None
            if ts is not None:
                return ts
        return self.token_game.new_state(seed)


# ---------------------------------------------------------------------- states
class _Core:
    """What a RulespecState holds (its only attribute, so that pyspiel's Clone and Serialize,
    which deep-copy and pickle a Python state's __dict__, stay cheap): the TokenState, made when
    the state is first used, and the player's rendered log lines."""

    __slots__ = ("tg", "key", "origin", "_ts", "peeked", "logs", "memo")

    def __init__(self, tg: TokenGame, key: tuple, origin: Optional[RulespecGame], ts: Optional[TokenState] = None):
        self.tg, self.key, self.origin, self._ts = tg, key, origin, ts
        self.peeked: Optional[int] = None
        self.logs: dict = {}
        self.memo = _Memo()

    @property
    def ts(self) -> TokenState:
        if self._ts is None:
            self._ts = self.origin._take(self.peeked)
            self.origin = None
        return self._ts

    def view(self) -> tuple[TokenState, "_Memo"]:
        """The state to observe and its memo: a state not used yet shows the game it will have
        without drawing its seed."""
        if self._ts is not None:
            return self._ts, self.memo
        o = self.origin
        if self.peeked is None or (self.peeked == o._pending and o._provisional is not None):
            self.peeked, ts = o._peek()
            return ts, o._provisional_memo
        return self.ts, self.memo  # its seed was taken by another state meanwhile: the same game again

    def __deepcopy__(self, memo) -> "_Core":
        c = _Core(self.tg, self.key, None, self.ts.clone())
        c.logs = {p: (n, list(lines)) for p, (n, lines) in self.logs.items()}
        return c

    def __reduce__(self):
        ts = self.ts
        return (_restore_core, (self.key, ts.state.to_json(), ts.prefix, ts.decisions, ts.truncated, ts.chosen))

    def log_lines(self, player: int) -> list[str]:
        """State.log_lines(player), each entry rendered once: a line never changes once
        written (it shows what its viewer could see then), so only new entries are rendered."""
        st = self.view()[0].state
        n, lines = self.logs.get(player, (0, None))
        if lines is None or n > len(st.log):
            n, lines = 0, []
        if n < len(st.log):
            lines.extend(st.log_lines(player, start=n))
            n = len(st.log)
        self.logs[player] = (n, lines)
        return lines


def _restore_core(key: tuple, text: str, prefix: tuple, decisions: int, truncated: bool, chosen: list) -> _Core:
    from interpreter import State
    tg = _token_game(*key)
    ts = TokenState(tg, State.from_json(text, tg.game), tuple(prefix), decisions, truncated, chosen)
    return _Core(tg, key, None, ts)


class RulespecState(pyspiel.State):
    """A pyspiel state over a TokenState (``token_state``; its engine State is ``engine_state``)."""

    def __init__(self, game: RulespecGame):
        super().__init__(game)
        self._core = _Core(game.token_game, game._key, game)

    @property
    def token_state(self) -> TokenState:
        return self._core.ts

    @property
    def engine_state(self):
        return self._core.ts.state

    def current_player(self) -> int:
        p = self._core.ts.current_player()
        return pyspiel.PlayerId.TERMINAL if p is None else p

    def is_terminal(self) -> bool:
        return self._core.ts.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        ts = self._core.ts
        return ts.legal_tokens() if player == ts.current_player() else []

    def _apply_action(self, action: int) -> None:
        self._core.ts.apply_token(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        ts = self._core.ts
        if not 0 <= action < ts.tg.num_actions:
            return f"action {action} (not in the vocabulary)"
        return ts.token_text(action)

    def returns(self) -> list[float]:
        return self._core.ts.returns()

    def __str__(self) -> str:
        """The game, seed and actions so far (as a digest), who is to act and the tokens picked
        toward their action: two states with the same text are the same state."""
        ts = self._core.ts
        st = ts.state
        digest = hashlib.sha1("\n".join(st.history).encode("utf-8")).hexdigest()[:16]
        lines = [f"{ts.tg.game.name}, engine seed {st.seed}: {ts.decisions} decisions, "
                 f"{len(st.history)} actions (digest {digest})"]
        if st.history:
            lines.append(f"last action: {st.history[-1]}")
        if ts.truncated:
            lines.append(f"stopped after {ts.tg.max_decisions} decisions: no winner")
        elif st.is_terminal():
            lines.append("game over; winners: " + (", ".join(f"P{p + 1}" for p in st.winners()) or "nobody"))
        else:
            lines.append(f"phase {st.phase}; P{st.current_player + 1} to act")
            if ts.prefix:
                lines.append("picked so far: " + ts.tg.codec.text(ts.prefix))
        return "\n".join(lines)


# ---------------------------------------------------------------------- observations
class RulespecObserver:
    """OpenSpiel's PyObserver for rulespec games: ``tensor`` (float32) with named views ``dict``
    (the pieces of obs_tensor.py; "zones" shaped zones x (labels + 2), "tops" top-public piles x labels),
    and ``string_from``.
    perfect_recall=True gives the information state (adds the "history" piece and the log),
    otherwise the observation. Only the player's own view is offered (private_info
    SINGLE_PLAYER, public_info True)."""

    def __init__(self, tg: TokenGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"rulespec observers take no parameters; passed {params}")
        info = False
        if iig_obs_type is not None:
            if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
                raise ValueError("rulespec observers give a player's own view only (public_info=True, "
                                 "private_info=SINGLE_PLAYER); the public or omniscient views are not offered")
            info = bool(iig_obs_type.perfect_recall)
        self.tg, self.info = tg, info
        enc = tg.encoder
        pieces = list(enc.describe()) + ([("history", len(tg.codec))] if info else [])
        self.tensor = np.zeros(sum(s for _, s in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, size in pieces:
            if size:
                self.dict[name] = self.tensor[at:at + size].reshape(enc.shapes.get(name, (size,)))
            at += size

    def set_from(self, state: RulespecState, player: int) -> None:
        ts, memo = state._core.view()
        full = memo.get(ts, ("tensor", player),
                        lambda: np.asarray(self.tg.encoder.encode(ts, player, True), np.float32))
        self.tensor[:] = full[:len(self.tensor)]  # the observation is the information state's beginning

    def string_from(self, state: RulespecState, player: int) -> str:
        core = state._core
        ts, memo = core.view()
        text = memo.get(ts, ("text", player), lambda: observation_text(ts, player))
        if self.info:
            text += "\nlog:\n" + "\n".join(core.log_lines(player))
        return text


class _Memo:
    """Tensors and texts of one position of a TokenState, each computed once: OpenSpiel asks
    for the observation and the information state of every player, often several times."""

    __slots__ = ("key", "data")

    def __init__(self):
        self.key, self.data = None, {}

    def get(self, ts: TokenState, what, make):
        key = (ts.decisions, ts.prefix, ts.truncated)
        if key != self.key:
            self.key, self.data = key, {}
        v = self.data.get(what)
        if v is None:
            v = self.data[what] = make()
        return v


def observation_text(ts: TokenState, player: int) -> str:
    """The player's observation (State.observation) as text, and the tokens they have picked
    toward the action they are choosing."""
    obs = ts.state.observation(player)
    d = obs["decision"]
    if d is None:
        head = "game over; winners: " + (", ".join(obs["winners"]) or "nobody")
    elif d["kind"] == "turn":
        head = f"{d['who']} to act"
    elif d["kind"] == "response":
        head = f"{d['who']} may respond to {d['to']}"
    else:
        head = f"{d['who']} chooses" + (f": {d['prompt']}" if d.get("prompt") else "")
    lines = [f"view of {obs['player']}; phase {obs['phase']}; {head}"]
    for name, z in obs["zones"].items():
        if "cards" in z:
            line = f"{name}: " + (", ".join(z["cards"]) or "-")
            if z.get("plays"):
                line += " (plays: " + "; ".join(f"{p} {' + '.join(cs)}" for p, cs in z["plays"]) + ")"
        else:
            line = f"{name}: {z['count']} hidden" + shown_text(z)
        lines.append(line)
    for name, v in obs["vars"].items():
        lines.append(f"{name} = {v!r}")
    for e in obs["stack"]:
        lines.append(f"stack: {e['effect']} by {e['by']}" + (f" on {e['target']}" if e["target"] else "")
                     + (f" [{', '.join(e['cards'])}]" if e["cards"] else "")
                     + (" (cancelled)" if e["cancelled"] else "")
                     + (f" {e['fields']!r}" if e.get("fields") else ""))
    if ts.prefix and ts.current_player() == player:
        lines.append("picked: " + ts.tg.codec.text(ts.prefix))
    return "\n".join(lines)
