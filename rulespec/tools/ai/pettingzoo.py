"""Any rules file as a PettingZoo AEC environment (``pip install 'rulespec[pettingzoo]'``).

    from rulespec.tools.ai.pettingzoo import env
    e = env("games/crazy_eights.rules", players=4, render_mode="ansi")
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

The environment is a thin layer over TokenGame / TokenState (token_env.py):

- agents: "player_0".."player_{N-1}"; player_i is the engine's seat i, which the rules' texts
  call P{i+1}. Who acts next is whoever the engine says: turns, out-of-turn responses, choices
  inside an effect; one agent may act several times in a row while it spells one action.
- actions: Discrete(V), V the size of the file's token vocabulary (action_codes.py), the same
  for every agent. An action of the rules is picked one token at a time.
- observations: {"observation": Box float32 of ObservationEncoder.size (obs_tensor.py), built
  from the agent's own observation only; "action_mask": int8 of size V, 1 for the legal tokens
  of the agent to act, all 0 for the others} (the PettingZoo classic-games convention).
- rewards: 0 until the game ends, then TokenState.returns() (returns="zero_sum", "win",
  "score" or "common"; by default common in a game whose score is shared, else zero_sum). A game past max_decisions engine decisions ends truncated (every agent's
  truncation is True) with rewards 0.
- reset(seed=S) plays the engine game of seed S (the very game `rulespec play --seed S` deals);
  reset() without a seed draws the next seed from the last seed given (from the system's
  randomness when none was ever given); env.unwrapped.game_seed says which game is on. The
  `options` argument of reset is accepted and ignored: rules options are fixed when the
  environment is made, like the player count.
- render(): with render_mode="ansi", a text of the game as the agent to act sees it.

env() wraps raw_env like PettingZoo's classic games: TerminateIllegalWrapper (an illegal action
ends the game, the agent who took it gets illegal_reward and every other agent 0; with
illegal_reward=None the environment raises ValueError instead and nothing changes),
AssertOutOfBoundsWrapper and OrderEnforcingWrapper.
"""
from __future__ import annotations

import operator
import random
from typing import Any, Optional

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as _e:  # pragma: no cover - depends on what is installed
    raise ImportError(f"rulespec.tools.ai.pettingzoo needs PettingZoo, Gymnasium and NumPy ({_e}); "
                      "install them with: pip install 'rulespec[pettingzoo]'") from None

from rulespec.lang.errors import RulesError
from .obs_tensor import shown_text
from .token_env import TokenGame, TokenState
from rulespec.tools.shipped_games import resolve

RENDER_MODES = ("ansi",)
LEGAL_SHOWN = 60  # render() lists at most this many legal tokens
_BIG = float(np.finfo(np.float32).max)  # bounds of tensor entries the rules do not bound


def env(path, players: Optional[int] = None, render_mode: Optional[str] = None, *,
        returns: Optional[str] = None, max_decisions: int = 20_000, illegal_reward: Optional[float] = -1.0,
        rules_options: Optional[dict] = None, **options):
    """A rules file as a wrapped PettingZoo AEC environment (see the module's doc).

    path: the rules file; players: the player count (default: the game's minimum);
    render_mode: None or "ansi"; returns: "zero_sum", "win", "score" or "common" (default: the
    game's, returns.py: common for a shared score, else zero_sum); max_decisions: engine
    decisions before the game ends truncated; illegal_reward: what an illegal action earns its
    agent (the game then ends), or None to raise ValueError instead; every other keyword is a
    rules option (events=True), as are the entries of rules_options (for an option whose name
    is one of the keywords above)."""
    e = raw_env(path, players, render_mode, returns=returns, max_decisions=max_decisions,
                rules_options=rules_options, **options)
    if illegal_reward is not None:
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=float(illegal_reward))
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """A rules file as a PettingZoo AEC environment, without wrappers (an illegal action raises
    ValueError and changes nothing). Same arguments as env(), but illegal_reward."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "rulespec_v0", "is_parallelizable": False}

    def __init__(self, path, players: Optional[int] = None, render_mode: Optional[str] = None, *,
                 returns: Optional[str] = None, max_decisions: int = 20_000,
                 rules_options: Optional[dict] = None, **options):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is None or one of {', '.join(map(repr, RENDER_MODES))}, "
                             f"not {render_mode!r}")
        if not isinstance(max_decisions, int) or isinstance(max_decisions, bool) or max_decisions < 1:
            raise ValueError(f"max_decisions is a whole number from 1, not {max_decisions!r}")
        if rules_options is not None and not isinstance(rules_options, dict):
            raise TypeError(f"rules_options is a dict of option name to value, not {type(rules_options).__name__}")
        if returns is not None and returns not in TokenGame.RETURNS:
            raise ValueError(f"returns is one of {', '.join(TokenGame.RETURNS)}, not {returns!r}")
        from interpreter import load  # rulespec.load's engine link, kept lazy like it
        opts = dict(rules_options or {})
        opts.update(options)
        # a bad file, player count or option: the error's message says it all, no engine frames
        try:
            game = load(resolve(path))  # a path, or a shipped game's name
        except RulesError as err:
            raise err.with_traceback(None) from None
        try:
            tg = TokenGame(game, players, opts, returns=returns, max_decisions=max_decisions)
        except ValueError as err:  # an OptionError, or 'common' returns for a game without a score
            raise err.with_traceback(None) from None
        self.tg = tg
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"rulespec_{_slug(game.name)}_v0")
        n, v = tg.players, tg.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = _bounds(tg)
        self.action_spaces = {a: spaces.Discrete(v) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({"observation": spaces.Box(low, high, dtype=np.float32),
                            "action_mask": spaces.Box(0, 1, (v,), dtype=np.int8)})
            for a in self.possible_agents}
        self.token_state: Optional[TokenState] = None  # the game on: .state is the engine State
        self.game_seed: Optional[int] = None
        self._seeds: Optional[random.Random] = None
        self.agents = []

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ playing
    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is not None:
            try:
                seed = operator.index(seed)
            except TypeError:
                raise TypeError(f"the seed is a whole number or None, not {seed!r}") from None
            self._seeds = random.Random(seed)
        elif self._seeds is None:
            self._seeds = random.Random()
        game_seed = seed if seed is not None else self._seeds.randrange(2 ** 31)
        self.game_seed = game_seed
        self.token_state = self.tg.new_state(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        if self.token_state.is_terminal():
            self.agent_selection = self.agents[0]
            self._finish()
        else:
            self.agent_selection = self.possible_agents[self.token_state.current_player()]

    def step(self, action) -> None:
        if not self.agents:
            raise RuntimeError("step() with no agent left: the game is over (or not begun): call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        token = self._token(action)
        ts = self.token_state
        legal = ts.legal_tokens()
        if token not in legal:  # refused before anything changes, naming the legal tokens
            words = self.tg.codec.words
            raise ValueError(f"{agent} (P{self._seat[agent] + 1}): token {token} ({words[token]}) is not "
                             "legal here; legal: " + ", ".join(f"{t} ({words[t]})" for t in legal[:12])
                             + (" ..." if len(legal) > 12 else ""))
        ts.apply_token(token)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if ts.is_terminal():
            self._finish()
        else:
            self.agent_selection = self.possible_agents[ts.current_player()]
        self._accumulate_rewards()

    def observe(self, agent):
        seat = self._seat_of(agent)
        ts = self.token_state
        if ts is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        obs = np.asarray(self.tg.encoder.encode(ts, seat), dtype=np.float32)
        mask = np.zeros(self.tg.num_actions, dtype=np.int8)
        if ts.current_player() == seat:
            mask[ts.legal_tokens()] = 1
        return {"observation": obs, "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.token_state is None:
            raise RuntimeError("render() before reset(): call reset() first")
        return self.view_text(self.agent_selection)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ the text view
    def view_text(self, agent) -> str:
        """The game as `agent` sees it: their observation (zones with their cards and others'
        counts, the stack, the decision, variables), and, when they are to act, the tokens
        they may pick with what each means. Nothing the agent's observation hides."""
        seat = self._seat_of(agent)
        ts = self.token_state
        st = ts.state
        obs = st.observation(seat)
        me = f"P{seat + 1}"
        lines = [f"{self.tg.game.name}, {self.tg.players} players, seed {self.game_seed}, "
                 f"decision {ts.decisions}: as {agent} ({me}) sees it"]
        cur = ts.current_player()
        if ts.is_terminal():
            r = ts.returns()
            how = "truncated (past max_decisions, no winner)" if ts.truncated else \
                "winners: " + (", ".join(obs["winners"]) or "nobody")
            lines.append(f"Game over, {how}; rewards: "
                         + ", ".join(f"{a} {r[i]:g}" for i, a in enumerate(self.possible_agents)))
        else:
            d = obs["decision"] or {}
            what = {"turn": f"their turn in phase {d.get('phase')}",
                    "response": f"a response to {d.get('to')}",
                    "choice": f"a choice: {d.get('prompt')}"}.get(d.get("kind"), str(d.get("kind")))
            lines.append(f"To act: player_{cur} (P{cur + 1}), {what}")
        lines.append(f"Phase: {obs['phase']}")
        lines.append("Zones:")
        for name, z in obs["zones"].items():
            if "cards" in z:
                text = ", ".join(z["cards"]) if z["cards"] else "empty"
                if z.get("plays"):
                    text += "  (plays: " + "; ".join(f"{p}: {' + '.join(cs)}" for p, cs in z["plays"]) + ")"
            else:
                text = f"{z['count']} card{'s' if z['count'] != 1 else ''}, hidden"
                text += shown_text(z)
            lines.append(f"  {name}: {text}")
        if obs["stack"]:
            lines.append("Stack (top first):")
            for e in reversed(obs["stack"]):
                text = f"  {e['effect']} by {e['by']}"
                if e.get("target"):
                    text += f" against {e['target']}"
                if e["cards"]:
                    text += ": " + ", ".join(e["cards"])
                if e["cancelled"]:
                    text += " (cancelled)"
                lines.append(text)
        else:
            lines.append("Stack: empty")
        plain = self._plain_values()
        shown = [(k, v) for k, v in obs["vars"].items() if k not in plain or not plain[k](v)]
        if shown:
            lines.append("Variables (those at their declared starting value are not shown):")
            per_player = {name for name, pp, _w, _e in self.tg.encoder.vars if pp}
            for k, v in shown:
                if k in per_player and isinstance(v, list):
                    v = ", ".join(f"P{i + 1} {_show(x)}" for i, x in enumerate(v))
                else:
                    v = _show(v)
                lines.append(f"  {k}: {v}")
        if cur == seat:
            words = self.tg.codec.words
            if ts.prefix:
                lines.append("Picked so far: " + " ".join(words[t] for t in ts.prefix))
            legal = ts.legal_tokens()
            lines.append(f"Legal actions ({len(legal)}; action id: what it means):")
            for t in legal[:LEGAL_SHOWN]:
                lines.append(f"  {t}: {ts.token_text(t)}")
            if len(legal) > LEGAL_SHOWN:
                lines.append(f"  ... and {len(legal) - LEGAL_SHOWN} more")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ inside
    def _finish(self) -> None:
        """The game is over: rewards from the rules' returns; every agent done."""
        ts = self.token_state
        r = ts.returns()
        for a in self.agents:
            self.rewards[a] = float(r[self._seat[a]])
        done = self.truncations if ts.truncated else self.terminations
        for a in self.agents:
            done[a] = True
        self._deads_step_first()

    def _token(self, action) -> int:
        if isinstance(action, (bool, np.bool_)):
            raise TypeError(f"an action is a whole number from 0 to {self.tg.num_actions - 1}, not {action!r}")
        try:
            token = operator.index(action)
        except TypeError:
            raise TypeError(f"an action is a whole number from 0 to {self.tg.num_actions - 1}, "
                            f"not {action!r}") from None
        if not 0 <= token < self.tg.num_actions:
            raise ValueError(f"action {token} is not in Discrete({self.tg.num_actions})")
        return token

    def _seat_of(self, agent) -> int:
        seat = self._seat.get(agent)
        if seat is None:
            raise KeyError(f"no agent {agent!r}: the agents are {', '.join(self.possible_agents)}")
        return seat

    def _plain_values(self) -> dict:
        """{variable: is this observed value its starting value?} for the variables whose
        starting value the rules state as a literal (or do not state: 0, no, none, empty)."""
        plain = getattr(self, "_plain", None)
        if plain is None:
            plain = self._plain = {}
            model = self.tg.game.model
            for info, _f in self.tg.game.prog.var_defaults:
                known, value = _literal(info, model)
                if known:
                    if info.per_player:
                        plain[info.name] = lambda v, d=value: isinstance(v, list) and all(x == d for x in v)
                    else:
                        plain[info.name] = lambda v, d=value: v == d
        return plain


def _bounds(tg: TokenGame):
    """Per entry of the tensor: 0..1 for one-hots, 0..the number of cards for card counts,
    no bound but float32's for the numbers the rules do not bound."""
    enc = tg.encoder
    cards = float(tg.game.prog.card_count)
    low, high = [], []
    for piece, size in enc.describe():
        if piece in ("player", "current", "decision", "phase"):
            lo, hi = 0.0, 1.0
        elif piece == "zones":
            lo, hi = 0.0, max(cards, 1.0)
        elif piece == "vars":
            lo, hi = -_BIG, _BIG
        else:  # stack, prefix: counts
            lo, hi = 0.0, _BIG
        low += [lo] * size
        high += [hi] * size
    return np.array(low, dtype=np.float32), np.array(high, dtype=np.float32)


def _slug(name: str) -> str:
    s = "".join(c.lower() if c.isalnum() else "_" for c in name).strip("_")
    return "_".join(p for p in s.split("_") if p) or "game"


def _literal(info, model) -> tuple:
    """(True, value as an observation shows it) when a variable starts at a literal value."""
    from rulespec.lang import ast as A
    d, t = info.default, info.type
    if d is None:
        return True, {"int": 0, "bool": False, "list": [], "text": ""}.get(t.name)  # the engine's zero
    if isinstance(d, (A.IntLit, A.BoolLit, A.StrLit)):
        return True, d.value
    if isinstance(d, A.NoneLit):
        return True, None
    if isinstance(d, A.Unary) and d.op == "-" and isinstance(d.operand, A.IntLit):
        return True, -d.operand.value
    if isinstance(d, A.ListLit) and not d.items:
        return True, []
    if isinstance(d, A.Name) and t.name == "enum" and t.enum in model.enums \
            and d.name in model.enums[t.enum].members:
        return True, d.name
    return False, None


def _show(v) -> str:
    if v is None:
        return "none"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return str(v)
