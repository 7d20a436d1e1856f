"""The games and replays that `rulespec serve` keeps in memory, without any web framework.

The secrecy rule: what a game sends its human seat is built only from
``State.observation(seat)``, ``State.log_lines(seat)`` (and the seat's own legal actions,
which the observation holds when the seat is to act, with the cards each uses among those the
observation shows: table.action_cards), plus the settings the human chose (game name, seats,
agents).  Nothing is read from the omniscient state for a player's view; see ``GameSession.view``.
A replay may show the omniscient view (``observation(None)``), and says so.
"""
from __future__ import annotations

import hmac
import json
import secrets
import sys
from collections import OrderedDict
from typing import Optional

AGENT_KINDS = {"random": "random: a uniformly random legal action",
               "first": "first-legal: always the first legal action"}
MAX_STEPS = 20_000       # decisions a game or replay may take (as `rulespec play --max-steps`)
CHECKPOINT_EVERY = 25    # replays keep a copy of the state every this many decisions


class WebError(Exception):
    """A request that cannot be carried out: ``status`` is its HTTP status, the message one line."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def player_label(p: Optional[int]) -> str:
    return "nobody" if p is None else f"P{p + 1}"


def make_agent(kind: str, seed: int, seat: int):
    from rulespec.tools.ai.agents import FirstLegalAgent, RandomAgent
    if kind == "random":
        return RandomAgent(seed=seed * 1000 + seat)  # as `rulespec play` seeds its agents
    if kind == "first":
        return FirstLegalAgent()
    raise WebError(f"unknown agent '{kind}' (one of {', '.join(AGENT_KINDS)})")


def _engine_failure(e: Exception, where: str) -> str:
    """An engine error: the details go to the server's terminal only (a message may name
    cards the seat cannot see); the page gets one line that names none."""
    print(f"rulespec serve: {where}: {type(e).__name__}: {e}", file=sys.stderr)
    return (f"the engine stopped with an error ({type(e).__name__}) {where}; the details are in the "
            f"terminal that runs rulespec serve")


# ---------------------------------------------------------------------- a game
class GameSession:
    """One game: a human seat and agents in the others.  The agents play as soon as it is their
    turn, so whenever a request ends either the human is to decide or the game is over (or it
    stopped with an error)."""

    kind = "game"

    def __init__(self, game, players: int, seat: int, agents: list, seed: int, options: dict,
                 max_steps: int = MAX_STEPS):
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise WebError(f"the human seat must be one of P1 to P{players}")
        self.game = game
        self.seat = seat
        self.seed = seed
        self.options = dict(options)
        self.max_steps = max_steps
        self.agent_kinds = ["you" if p == seat else agents[p] for p in range(players)]
        self.agents = [None if p == seat else make_agent(agents[p], seed, p) for p in range(players)]
        self.state = game.new_state(players=players, seed=seed, options=options)
        self.error: Optional[str] = None
        self.run_agents()

    @property
    def version(self) -> int:
        """The number of decisions taken so far (every decision is a line of every seat's log, so
        the seat knows it): an action posted for another version is stale."""
        return len(self.state.history)

    def run_agents(self) -> None:
        st = self.state
        while not st.is_terminal() and self.error is None:
            p = st.current_player
            if p == self.seat:
                return
            if len(st.history) >= self.max_steps:
                self.error = f"the game did not end within {self.max_steps} decisions"
                return
            try:
                if not st.legal_actions():
                    self.error = (f"the game is stuck: {player_label(p)} has no legal action in phase "
                                  f"'{st.phase}' (a bug in the rules)")
                    return
                st.apply(self.agents[p].choose(st, p))
            except Exception as e:  # a bug in the rules: the game stops; the server goes on
                self.error = _engine_failure(e, f"while {player_label(p)}'s agent played")

    def act(self, text: str, version) -> None:
        """Play the human's action `text`, chosen on the page drawn at `version`.  Anything but a
        legal action of the human's on the current position is refused and changes nothing."""
        st = self.state
        if not isinstance(text, str) or not isinstance(version, int) or isinstance(version, bool):
            raise WebError("an action is posted as {\"action\": TEXT, \"version\": N}")
        if self.error is not None:
            raise WebError(f"the game has stopped: {self.error}", 409)
        if st.is_terminal():
            raise WebError("the game is over: no action can be played", 409)
        if version != self.version:
            raise WebError(f"stale action: the page showed the game after {version} decisions, but it is now "
                           f"after {self.version}; nothing was played (the page now shows the current position)",
                           409)
        if st.current_player != self.seat:  # cannot happen while the agents play at once; kept as a guard
            raise WebError(f"it is not your turn: {player_label(st.current_player)} is deciding", 409)
        if text not in st.legal_action_strings():
            raise WebError(f"'{text}' is not one of your legal actions now; nothing was played")
        try:
            st.apply(text)
        except Exception as e:
            self.error = _engine_failure(e, f"while playing {player_label(self.seat)}'s action")
            return
        self.run_agents()

    def view(self) -> dict:
        """Everything the human's page shows.  Built ONLY from observation(seat), log_lines(seat)
        (the legal actions are in the observation; `actions` says which of the cards the seat
        sees each of them uses) and the game's settings."""
        from .table import action_cards  # imported here: `rulespec --help` reads this module's limits
        st = self.state
        obs = st.observation(self.seat)
        return {"kind": self.kind, "game": self.game.name, "seat": self.seat, "seat_name": player_label(self.seat),
                "players": st.n, "agents": self.agent_kinds, "options": self.options,
                "version": self.version, "observation": obs, "actions": action_cards(st, self.seat, obs),
                "log": st.log_lines(self.seat), "error": self.error}


# ---------------------------------------------------------------------- a replay
class ReplaySession:
    """A recorded game, stepped through forward and back.  Step k is the position after k
    decisions.  The states are rebuilt from a copy kept every CHECKPOINT_EVERY decisions."""

    kind = "replay"

    def __init__(self, game, players: int, seed: int, options: dict, actions: list, source: str,
                 fmt: str, then_first: bool = False, max_steps: int = MAX_STEPS, recorded: Optional[dict] = None,
                 expected_events: Optional[list] = None):
        self.game = game
        self.players, self.seed, self.options = players, seed, dict(options)
        self.source, self.format = source, fmt
        self.recorded = recorded
        self.note: Optional[str] = None
        st = game.new_state(players=players, seed=seed, options=options)
        self.checkpoints = {0: st.clone()}
        self.texts: list[str] = []     # the decision taken at each step
        self.deciders: list[int] = []  # who took it
        k = 0
        while not st.is_terminal() and k < max_steps:
            if k < len(actions):
                text = actions[k]
            elif then_first and st.legal_actions():
                text = st.legal_actions()[0].text
            else:
                break
            who = st.current_player
            if expected_events is not None:  # a play --log file: its players and events must match too
                _match_log(st, k, text, expected_events[k], self.describe())
            if text not in st.legal_action_strings():
                self.note = (f"the replay diverged at decision {k + 1}: '{text}' is not a legal action of "
                             f"{player_label(who)} there; shown up to that point")
                break
            before = len(st.log)
            try:
                st.apply(text)
            except Exception as e:
                self.note = _engine_failure(e, f"at decision {k + 1}")
                break
            if expected_events is not None:
                got = json.loads(json.dumps(st.log[before:]))
                if got != expected_events[k]["events"]:
                    raise WebError(f"this log does not match {self.describe()}: decision {k + 1} "
                                   f"('{text}') gives other events than the log records; give the player "
                                   f"count, seed and options it was played with")
            self.texts.append(text)
            self.deciders.append(who)
            k += 1
            if k % CHECKPOINT_EVERY == 0:
                self.checkpoints[k] = st.clone()
        if self.note is None and k < len(actions):
            self.note = (f"the game ended after {k} decisions; the file has {len(actions) - k} more"
                         if st.is_terminal() else f"stopped after {max_steps} decisions")
        self.steps = k
        self._cache = (k, st)

    def describe(self) -> str:
        opts = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in self.options.items())
        return f"{self.game.name} with {self.players} players, seed {self.seed}, options {opts or 'none'}"

    def state_at(self, k: int):
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= self.steps:
            raise WebError(f"a step from 0 to {self.steps}", 404)
        if self._cache[0] == k:
            return self._cache[1]
        base = k - k % CHECKPOINT_EVERY
        st = self.checkpoints[base].clone()
        for text in self.texts[base:k]:
            st.apply(text)
        self._cache = (k, st)
        return st

    def view(self, k: int, viewer: Optional[int]) -> dict:
        """Step k as `viewer` sees it (None: the omniscient view)."""
        if viewer is not None and (not isinstance(viewer, int) or not 0 <= viewer < self.players):
            raise WebError(f"the view is 'all' or a seat from P1 to P{self.players}", 404)
        st = self.state_at(k)
        nxt = None
        if k < self.steps:
            who = self.deciders[k]
            # a seat sees the text of its own next decision only; the omniscient view every one
            nxt = {"who": player_label(who),
                   "action": self.texts[k] if viewer is None or viewer == who else None}
        from .table import action_cards
        obs = st.observation(viewer)
        if viewer is not None and st.current_player != viewer:
            obs["legal_actions"] = []
        return {"kind": self.kind, "game": self.game.name, "source": self.source, "format": self.format,
                "players": self.players, "seed": self.seed, "options": self.options, "step": k,
                "steps": self.steps, "viewer": "all" if viewer is None else viewer,
                "omniscient": viewer is None, "next": nxt, "note": self.note, "recorded": self.recorded,
                "observation": obs, "actions": action_cards(st, viewer, obs), "log": st.log_lines(viewer)}


def _match_log(st, k: int, text: str, record: dict, settings: str) -> None:
    if record["player"] != st.current_player:
        raise WebError(f"this log does not match {settings}: decision {k + 1} ('{text}') is "
                       f"{player_label(record['player'])}'s in the log, but {player_label(st.current_player)} "
                       f"decides there; give the player count, seed and options it was played with")
    if text not in st.legal_action_strings():
        raise WebError(f"this log does not match {settings}: decision {k + 1}, '{text}', is not legal there; "
                       f"give the player count, seed and options it was played with")


def open_replay(game, text: str, name: str, players=None, seed=None, options=None) -> ReplaySession:
    """A replay from a file's text: a replay file written by `rulespec fuzz` (or `play` for an
    unfinished game), or a `rulespec play --log` JSON Lines file; such a log does not record
    the player count, seed and options, so they are given (and checked against its events)."""
    try:
        return _open_replay(game, text, name, players, seed, options)
    except RecursionError:  # JSON nested deeper than Python's parser goes: no replay file is
        raise WebError(f"{name} is not a replay file (its JSON is nested too deep)") from None


def _open_replay(game, text: str, name: str, players, seed, options) -> ReplaySession:
    from rulespec.tools.fuzzing import fuzz as F
    from interpreter.serialise import json_loads  # imported here: `rulespec --help` reads this module's limits
    stripped = text.lstrip()
    if not stripped:
        raise WebError(f"{name} is empty")
    first = stripped.splitlines()[0]
    try:
        head = json_loads(first)
    except json.JSONDecodeError:
        head = None
    if isinstance(head, dict) and ("decision" in head or "event" in head or "final_scores" in head):
        return _open_log(game, text, name, players, seed, options)
    try:
        d = F.replay_from_text(text, name)
        F.check_replay_game(d, game, name)
        opts = {k: game.parse_option(k, v) for k, v in d["options"].items()}
    except F.FuzzError as e:
        raise WebError(str(e) + " (a replay is a file written by rulespec fuzz, or a rulespec play --log file)") \
            from None
    except ValueError as e:
        raise WebError(f"{name}: {e}") from None
    max_steps = d.get("max_steps", MAX_STEPS)
    return ReplaySession(game, d["players"], d["seed"], opts, d["actions"], name, "replay",
                         then_first=d.get("then") == "first", max_steps=min(max_steps, MAX_STEPS),
                         recorded=d.get("failure"))


def _open_log(game, text: str, name: str, players, seed, options) -> ReplaySession:
    from interpreter.serialise import json_loads
    records = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json_loads(line)
        except json.JSONDecodeError as e:
            raise WebError(f"{name}:{i}: not a JSON line ({e.msg})") from None
        if not isinstance(r, dict):
            raise WebError(f"{name}:{i}: a play log line is a JSON object")
        records.append(r)
    decisions = []
    for r in records:
        if "decision" in r:
            if not (isinstance(r.get("action"), str) and isinstance(r.get("player"), int)):
                raise WebError(f"{name}: decision {r.get('decision')!r} has no action text or player")
            decisions.append({"player": r["player"], "action": r["action"], "events": []})
        elif "event" in r:
            if decisions:
                decisions[-1]["events"].append(r["event"])
    if not decisions:
        raise WebError(f"{name} records no decision (is it a rulespec play --log file?)")
    players = game.model.min_players if players is None else players
    seed = 0 if seed is None else seed
    opts = {}
    try:
        for k, v in (options or {}).items():
            opts[k] = game.parse_option(k, v)
        game.new_state(players=players, seed=seed, options=opts)  # a bad player count or seed says so
    except ValueError as e:
        raise WebError(str(e)) from None
    return ReplaySession(game, players, seed, opts, [d["action"] for d in decisions], name, "play log",
                         expected_events=decisions)


# ---------------------------------------------------------------------- the store
DEFAULT_MAX_GAMES = 200  # games and replays kept in memory (`rulespec serve --max-games`)


class Store:
    """Games and replays by id, in memory, each with the digest of its owner's client key.  At
    most `limit` are kept: past it, the one left unused the longest is forgotten."""

    def __init__(self, limit: int = DEFAULT_MAX_GAMES):
        if limit < 1:
            raise ValueError(f"a server keeps at least one game, not {limit}")
        self.items: "OrderedDict[str, tuple]" = OrderedDict()  # id -> (owner digest, session); the last used last
        self.limit = limit

    def add(self, item, owner: str) -> str:
        key = secrets.token_urlsafe(16)  # 128 random bits: not guessed, not counted up to
        self.items[key] = (owner, item)
        while len(self.items) > self.limit:
            self.items.popitem(last=False)
        return key

    def get(self, key: str, kind: str, owner: str):
        """The `kind` with id `key` if the client whose key digest is `owner` made it.  Another
        client's game is answered exactly as a missing one: its id is no use without the key."""
        owner_and_item = self.items.get(key)
        if (owner_and_item is None or owner_and_item[1].kind != kind
                or not hmac.compare_digest(owner_and_item[0], owner)):
            raise WebError(f"no {kind} {key[:40]} on this server for this browser or client (the server was "
                           f"restarted, the {kind} was forgotten, or another client started it)", 404)
        self.items.move_to_end(key)
        return owner_and_item[1]

    def session(self, key: str):
        """The game or replay `key`, whoever owns it (for tests and tools in this process)."""
        return self.items[key][1]
