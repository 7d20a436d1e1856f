"""Agents that choose actions: random, first-legal, scripted, a terminal human, and MCTS (UCT)."""
from __future__ import annotations

import math
import random
import sys
from typing import Iterable

from interpreter.compiler import player_name
from .obs_tensor import shown_text


class RandomAgent:
    """Uniformly random among the legal actions (its own seeded generator, not the game's)."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, state, player: int):
        return state.sample_action(self.rng)  # the draw of rng.choice(legal_actions()), without listing them all


class FirstLegalAgent:
    """Always the first legal action: deterministic, handy for smoke tests."""

    def choose(self, state, player: int):
        return state.legal_actions()[0]


class MCTSAgent:
    """Monte Carlo tree search (UCT) with random rollouts, for any game.

    It searches over ``state.clone()``: it SEES THE WHOLE STATE, the other players' hidden
    cards and the order of the draw pile included (the game's random generator is part of the
    state, so a rollout even knows the next card to be drawn).  It is an upper bound on skill
    for balance figures, not a fair player.

    Each decision with more than one legal action spends ``iterations`` playouts: select down
    the tree by UCB1 (each node judged by the player to move there, so it works for any number
    of players), add one child, play random actions to the end of the game (at most
    ``max_rollout`` decisions; a playout cut there counts as a draw), and credit every player
    with their share of the result (1/k to each of k winners).  It then takes the most visited
    action.  Seeded: the same seed, state and budget give the same choice.
    """

    def __init__(self, seed: int = 0, iterations: int = 100, exploration: float = 1.4,
                 max_rollout: int = 10_000):
        if iterations < 1:
            raise ValueError("the MCTS budget (--mcts-iterations) must be at least 1")
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.exploration = exploration
        self.max_rollout = max_rollout

    def choose(self, state, player: int):
        legal = state.legal_actions()
        if len(legal) == 1:  # nothing to think about
            return legal[0]
        root = _Node(state.clone(), legal, self.rng)
        for _ in range(self.iterations):
            node, path = root, [root]
            # selection: down while the node is fully expanded
            while not node.untried and node.children:
                node = node.select(self.exploration)
                path.append(node)
            # expansion
            if node.untried:
                node = node.expand(self.rng)
                path.append(node)
            # rollout and back-propagation
            value = self._rollout(node.state)
            for n in path:
                n.visits += 1
                w = n.wins
                for p, v in enumerate(value):
                    w[p] += v
        best = max(root.children, key=lambda c: c.visits)  # ties: the first listed
        return best.action

    def _rollout(self, state) -> list:
        n = state.n
        if not state.terminal:
            st = state.clone()
            rng = self.rng
            for _ in range(self.max_rollout):
                st.apply(st.sample_action(rng))  # (the draw of rng.choice(st.legal_actions()))
                if st.terminal:
                    break
            else:
                return [1.0 / n] * n  # cut short: a draw
            state = st
        return shares(state)


def shares(state) -> list:
    """Each player's share of a finished game: 1/k to each of its k winners, 0 to the others
    (nobody wins: 0 to everyone)."""
    winners = state.winners()
    out = [0.0] * state.n
    for p in winners:
        out[p] = 1.0 / len(winners)
    return out


class _Node:
    """A node of the search tree: the state reached, the actions not yet tried there."""
    __slots__ = ("state", "action", "children", "untried", "visits", "wins", "mover")

    def __init__(self, state, legal: list, rng: random.Random, action=None):
        self.state = state
        self.action = action
        self.children: list = []
        self.untried = list(legal)
        rng.shuffle(self.untried)
        self.visits = 0
        self.wins = [0.0] * state.n
        self.mover = state.current_player

    def expand(self, rng: random.Random) -> "_Node":
        action = self.untried.pop()
        st = self.state.clone()
        st.apply(action)
        child = _Node(st, st.legal_actions() if not st.terminal else [], rng, action)
        self.children.append(child)
        return child

    def select(self, c: float) -> "_Node":
        log_n = math.log(self.visits)
        p = self.mover
        return max(self.children, key=lambda ch: ch.wins[p] / ch.visits + c * math.sqrt(log_n / ch.visits))


class ScriptedAgent:
    """Plays a fixed list of action strings, in order."""

    def __init__(self, actions: Iterable[str]):
        self.actions = list(actions)
        self.next = 0

    def choose(self, state, player: int):
        if self.next >= len(self.actions):
            raise IndexError(f"the script for {player_name(player)} has run out of actions")
        a = self.actions[self.next]
        self.next += 1
        return a


def _at_start(state) -> set:
    """The variables still at a blank starting value for every player (no, 0, none, nothing):
    flags and counters nothing has touched yet.  Starting values that say something (10 points
    each) are shown."""
    out = set()
    for i, (info, f) in enumerate(state.prog.var_defaults):
        try:
            start = f(state, {}) if f is not None else None
        except Exception:  # a starting value that reads the state: always shown
            continue
        value = state.vars[i]
        values = value if info.per_player else [value]
        if f is not None and start in (False, 0, None, "", []) and all(v == start for v in values):
            out.add(info.name)
    return out


class HumanAgent:
    """Shows the player's own view and numbered legal actions; reads a number or an action's text."""

    def __init__(self, stdin=None, stdout=None):
        # sys.stdin / sys.stdout are None when the process was started with them closed
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else (sys.stdout or _Discard())

    def show(self, state, player: int) -> None:
        obs = state.observation(player)
        out = self.stdout
        out.write(f"\n=== {obs['player']} to act (phase {obs['phase']}) ===\n")
        for name, zone in obs["zones"].items():
            if "cards" in zone and zone["cards"]:
                out.write(f"  {name}: {', '.join(zone['cards'])}\n")
            elif "count" in zone and zone["count"]:
                out.write(f"  {name}: {zone['count']} hidden card(s){shown_text(zone)}\n")
        for e in obs.get("stack", []):
            target = f" targeting {e['target']}" if e["target"] else ""
            cards = f" with {', '.join(e['cards'])}" if e["cards"] else ""
            flag = " (cancelled)" if e["cancelled"] else ""
            out.write(f"  on the stack: {e['effect']} by {e['by']}{target}{cards}{flag}\n")
        decision = obs.get("decision") or {}
        if decision.get("kind") == "choice":
            out.write(f"  you are choosing: {decision.get('prompt') or 'a choice inside an effect'}\n")
        elif decision.get("kind") == "response":
            out.write(f"  you may respond to: {decision.get('to')}\n")
        types = {info.name: info for info, _ in state.prog.var_defaults}
        quiet = _at_start(state)
        for name, value in obs["vars"].items():
            if name in quiet:  # still at its starting value: nothing to read yet
                continue
            info = types.get(name)
            if info is not None and info.per_player and isinstance(value, list):
                shown = ", ".join(f"{player_name(p)} {_show(state, info.type, v)}" for p, v in enumerate(value))
            else:
                shown = _show(state, info.type, value) if info is not None else str(value)
            out.write(f"  {name}: {shown}\n")

    def choose(self, state, player: int):
        self.show(state, player)
        legal = state.legal_actions()
        for i, a in enumerate(legal, 1):
            self.stdout.write(f"  {i:3d}. {a}\n")
        while True:
            self.stdout.write("choice> ")
            self.stdout.flush()
            line = self.read_line()
            line = line.strip()
            # ASCII digits only ('²' is a digit to Python but not a number), and no more of them
            # than the list needs (int() refuses numbers of thousands of digits)
            if line.isascii() and line.isdigit() and len(line) <= len(str(len(legal))) \
                    and 1 <= int(line) <= len(legal):
                return legal[int(line) - 1]
            if line in {a.text for a in legal}:
                return line
            self.stdout.write(f"  not a choice: give a number from 1 to {len(legal)} or an action's text\n")


    def read_line(self) -> str:
        """The next line typed; EOFError when there is none to come (end of input, or an input
        that is closed or unreadable): nobody is there to choose, so the game cannot go on."""
        if self.stdin is None:
            raise EOFError("standard input is closed")
        try:
            line = self.stdin.readline()
        except (OSError, ValueError) as e:  # ValueError: reading a closed file
            raise EOFError(f"standard input cannot be read: {getattr(e, 'strerror', None) or e}") from None
        if not line:
            raise EOFError("end of standard input")
        return line


class _Discard:
    """Where the prompt goes when there is no standard output."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _show(state, t, v) -> str:
    """A value from an observation, for people (players and cards are already names there)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return "[" + ", ".join(_show(state, t, x) for x in v) + "]"
    return str(v)
