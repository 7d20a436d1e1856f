"""Balance statistics: play many games and count who wins, how long games last and what gets used.

``collect(game, games, players, agents, ...)`` plays ``games`` games (seeds seed, seed+1, ...)
and returns ``Stats``, whose ``figures()`` is plain data (the JSON of ``rulespec stats``; the
text and HTML reports are drawn from it, see rulespec/tools/stats_text.py and rulespec/tools/stats_html.py).

Everything here is generic: the figures come from the runtime contract (winners, the first
player to decide, the actions taken and their parameters, the log's "phase" entries, the
coverage counter's triggers), never from a particular game.

Wins.  A seat *wins* a game when it is among the game's winners, so a shared win (a team win, a
tie on points) is a win for each winner: per-seat win counts then add up to the games plus the
extra winners of shared games, and the average win rate over the seats is the fair baseline
(1/N when every game has one winner).  ``win_share`` gives 1/k of a game to each of k winners
instead: those add up to the games that have a winner.  Rates come with 95% Wilson score
intervals (``wilson``), which stay inside [0, 1] and behave at small counts.

Kinds of game and scores.  Whether the games are cooperative or played in partnerships, and the
distribution of the rules' score, are read from the records by rulespec/tools/stats_kinds.py.

Usage and winning.  For each action name (each card chosen in an action's parameters, each card
named by the answer to a choice inside an effect, each card-given ability) we count uses, and
split the *player-games* (one per seat per game) into those where the player used it at least
once and those where they did not, with each group's win rate (and mean score).  An action
counts for the player who took it, a card for the seat whose zone it was in when chosen (a card
borrowed from another's hand is theirs), an ability for the card's owner (who is the one who
uses it).  It is a correlation, not a cause: a player who plays more (a longer game, a bigger
hand) has more chances to use anything.

Workers.  Games go out in small chunks to a multiprocessing pool, like ``rulespec fuzz``; each
game's seed and its agents' seeds depend only on its index, and the records are merged in
index order, so the figures do not depend on the number of workers.
"""
from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from typing import Callable, Optional, Sequence

import attrs

from rulespec.tools.ai.agents import FirstLegalAgent, MCTSAgent, RandomAgent
from interpreter.errors import EngineError
from interpreter.state import CHOICE

from .stats_kinds import kind_figures
from .stats_math import Z95, histogram, quantile, rate, wilson  # noqa: F401 (Z95, wilson: the module's API)

AGENT_KINDS = ("random", "first", "mcts")
DEFAULT_MAX_STEPS = 20_000


class StatsError(EngineError):
    """Bad input for a statistics run, or a game that did not end."""


# ---------------------------------------------------------------------- agents
@attrs.frozen
class AgentSpec:
    """How to make the agents: the kinds cycled over the seats, the MCTS budget."""
    kinds: tuple = ("random",)
    mcts_iterations: int = 100
    mcts_rollout: int = 10_000   # the most decisions of one MCTS playout (cut there: a draw)
    rotate: bool = False         # game i shifts the seating by i: every agent plays every seat

    def seating(self, players: int, index: int) -> list:
        base = [self.kinds[p % len(self.kinds)] for p in range(players)]
        if self.rotate:
            return [base[(p + index) % players] for p in range(players)]
        return base

    def make(self, kind: str, seed: int):
        if kind == "random":
            return RandomAgent(seed)
        if kind == "first":
            return FirstLegalAgent()
        if kind == "mcts":
            return MCTSAgent(seed, self.mcts_iterations, max_rollout=self.mcts_rollout)
        raise StatsError(f"unknown agent '{kind}' (agents: {', '.join(AGENT_KINDS)})")


def parse_sides(text: str, players: int) -> list:
    """'1+3,2+4' or 'P1+P3,P2+P4' -> [[0, 2], [1, 3]]; seats left out play on their own."""
    sides, seen = [], set()
    for part in text.split(","):
        side = []
        for name in part.split("+"):
            name = name.strip()
            digits = name[1:] if name[:1] in ("P", "p") else name
            if not digits.isdigit() or not 1 <= int(digits) <= players:
                raise StatsError(f"--sides: '{name}' is not a seat of this {players}-player game (P1 to "
                                 f"P{players}); write the sides as P1+P3,P2+P4")
            if int(digits) - 1 in seen:
                raise StatsError(f"--sides: P{digits.lstrip('0')} is on two sides")
            seen.add(int(digits) - 1)
            side.append(int(digits) - 1)
        sides.append(sorted(side))
    return sorted(sides + [[p] for p in range(players) if p not in seen])


def parse_agents(text: str) -> tuple:
    kinds = tuple(a.strip() for a in text.split(",") if a.strip())
    bad = [a for a in kinds if a not in AGENT_KINDS]
    if bad or not kinds:
        what = f"unknown agent '{bad[0]}'" if bad else "no agent given"
        raise StatsError(f"{what}: --agents takes a comma-separated list of {', '.join(AGENT_KINDS)}")
    return kinds


# ---------------------------------------------------------------------- one game
@attrs.define
class GameRecord:
    """What one game contributes (plain data: it travels back from a worker)."""
    index: int
    seed: int
    agents: list            # the agent kind of each seat
    first: Optional[int]    # the seat that made the first decision (None: no decision at all)
    winners: list
    decisions: int
    phases: dict            # phase name -> times entered
    actions: list           # per seat: {action name: uses}
    cards: list             # per seat whose card it was: {card name: times chosen in an action's parameters}
    choices: list           # per seat whose card it was: {card name: times named by an answer to a choice}
    abilities: list         # per seat: {"action (Card)": uses}
    triggered: dict         # "trigger (Card)" -> times a card's triggered ability ran (any owner)
    limited: bool = False   # the game ended at the rules' 'limit N decisions'
    scores: Optional[list] = None  # the rules' score of each seat at the end (None: the rules declare none)


def ability_triggers(prog) -> dict:
    """The triggers that cards carry: trigger name -> its label, "name (Card)"."""
    out = {}
    for trigs in prog.triggers.values():
        for t in trigs:
            if t.ability is not None:
                out[t.name] = f"{t.name} ({t.ability.card})"
    return out


def play_one(game, players: int, index: int, seed: int, options: Optional[dict], spec: AgentSpec,
             max_steps: int = DEFAULT_MAX_STEPS) -> GameRecord:
    """Play game number `index` (the game's seed: seed + index; seat p's agent: seed*1000 + p)."""
    try:
        return _play_one(game, players, index, seed, options, spec, max_steps)
    except StatsError:
        raise
    except EngineError as e:  # a StatsError travels back from a worker intact, and names the game
        raise StatsError(f"the game with seed {seed + index}: {e}") from None


def _play_one(game, players: int, index: int, seed: int, options: Optional[dict], spec: AgentSpec,
              max_steps: int) -> GameRecord:
    s = seed + index
    kinds = spec.seating(players, index)
    agents = [spec.make(k, s * 1000 + p) for p, k in enumerate(kinds)]
    coverage = Counter()
    # the rules' uses only: the plain program, not the one that also counts branches (fuzz's job)
    st = game.new_state(players=players, seed=s, options=options, coverage=coverage, count_branches=False)
    prog = st.prog
    names, n_cards, slots = prog.card_names, prog.card_count, prog.slots
    actions = [Counter() for _ in range(players)]
    cards = [Counter() for _ in range(players)]
    abilities = [Counter() for _ in range(players)]
    chosen = [Counter() for _ in range(players)]
    first = st.current_player
    steps = 0
    while not st.terminal:
        if steps >= max_steps:
            raise StatsError(f"the game with seed {s} did not end within {max_steps} decisions (--max-steps)")
        p = st.current_player
        if not st.legal_actions():
            raise StatsError(f"the game with seed {s} is stuck: P{p + 1} has no legal action in phase "
                             f"'{st.phase}' (a bug in the rules)")
        a = agents[p].choose(st, p)
        if isinstance(a, str):  # an agent may answer with the action's text
            a = next(x for x in st.legal_actions() if x.text == a)
        actions[p][a.name] += 1
        act = prog.actions.get(a.name) if a.name != CHOICE else None
        # A card counts for the seat whose zone it is in when chosen (a card taken from another
        # player's hand is that player's), a card of a shared zone for the one who chose it.
        where = st.where
        if a.name == CHOICE:  # "choose two generals", "discard a card": the cards the answer names
            for c in st._named_cards(a, None):
                chosen[_holder(slots[where[c]].owner, p)][names[c]] += 1
        elif act is not None:
            if act.card_slots:
                params = dict(a.params)
                for pname, kind in act.card_slots:
                    for c in _chosen_cards(params.get(pname), kind):
                        if c < n_cards:  # a face-down pick names no card
                            cards[_holder(slots[where[c]].owner, p)][names[c]] += 1
            # a card gives its actions to the owner of the zone it is in (abilities.py): the actor
            if act.ability is not None:
                abilities[p][f"{act.name} ({act.ability.card})"] += 1
        st.apply(a)
        steps += 1
    phases = Counter(e[1] for e in st.log if e[0] == "phase")
    labels = ability_triggers(prog)
    triggered = {labels[k[8:]]: v for k, v in coverage.items() if k.startswith("trigger:") and k[8:] in labels}
    return GameRecord(index, s, kinds, first, st.winners(), steps, dict(phases),
                      [dict(c) for c in actions], [dict(c) for c in cards], [dict(c) for c in chosen],
                      [dict(c) for c in abilities],
                      triggered, st.ended_by_limit(), st.scores() if prog.score is not None else None)


def _holder(owner: Optional[int], actor: int) -> int:
    return actor if owner is None else owner


def _chosen_cards(v, kind: str) -> list:
    if v is None:
        return []
    if kind == "card":
        return [v]
    if kind == "cards":
        return list(v)
    return list(v.get("cards", ()))  # 'use': {"cards": [...], ...}


# ---------------------------------------------------------------------- many games
def run_chunk(payload: tuple) -> list:
    """Play a few games in a worker (top level, for multiprocessing)."""
    from rulespec.tools.fuzzing.fuzz import _game_from_source
    path, source, max_choices, players, indices, seed, options, spec, max_steps = payload
    game = _game_from_source(path, source)
    game.max_choices = max_choices
    return [play_one(game, players, i, seed, options, spec, max_steps) for i in indices]


def collect(game, games: int, players: Optional[int] = None, agents: Sequence[str] = ("random",), seed: int = 0,
            options: Optional[dict] = None, workers: int = 1, mcts_iterations: int = 100,
            mcts_rollout: int = 10_000, rotate: bool = False, max_steps: int = DEFAULT_MAX_STEPS,
            progress: Optional[Callable[[int, int], None]] = None, sides: Optional[str] = None) -> "Stats":
    """Play `games` games and gather their records; progress(done, total) after each chunk.
    sides: declared partnerships, '1+3,2+4' (parse_sides); without, they are read from the games."""
    if games < 1:
        raise StatsError("--games must be at least 1")
    if workers < 1:
        raise StatsError("--workers must be at least 1")
    if mcts_iterations < 1:
        raise StatsError("--mcts-iterations must be at least 1")
    if mcts_rollout < 1:
        raise StatsError("--mcts-rollout must be at least 1")
    if max_steps < 1:
        raise StatsError("--max-steps must be at least 1")
    kinds = parse_agents(",".join(agents))
    players = game.model.min_players if players is None else players
    declared = parse_sides(sides, players) if sides else None
    options = dict(options or {})
    game.new_state(players=players, seed=seed, options=options)  # a bad player count or option fails here
    spec = AgentSpec(kinds, mcts_iterations, mcts_rollout, rotate)
    size = max(1, min(25, math.ceil(games / (workers * 8))))
    payloads = [(game.path, game.model.source, game.max_choices, players, list(range(i, min(i + size, games))),
                 seed, options, spec, max_steps) for i in range(0, games, size)]
    records: list = []
    t0 = time.perf_counter()
    if workers == 1 or len(payloads) == 1:
        for pl in payloads:
            records += [play_one(game, players, i, seed, options, spec, max_steps) for i in pl[4]]
            if progress is not None:
                progress(len(records), games)
    else:
        import multiprocessing

        from rulespec.tools.fuzzing.fuzz import _quiet_worker
        with multiprocessing.get_context().Pool(min(workers, len(payloads)), initializer=_quiet_worker) as pool:
            for chunk in pool.imap_unordered(run_chunk, payloads):
                records += chunk
                if progress is not None:
                    progress(len(records), games)
    records.sort(key=lambda r: r.index)  # a fixed order: the same figures whatever the workers
    return Stats(game.path, game.name, players, seed, options, spec, records, workers,
                 time.perf_counter() - t0, declared)


# ---------------------------------------------------------------------- the figures
@attrs.define
class Stats:
    path: str
    name: str
    players: int
    seed: int
    options: dict
    spec: AgentSpec
    records: list
    workers: int = 1
    seconds: float = 0.0
    sides: Optional[list] = None  # declared partnerships: [[seat, ...], ...] (0-based)

    def figures(self) -> dict:
        """Every figure, as plain data (the JSON).  All but 'run' (workers, seconds) depend
        only on the games played."""
        recs, n = self.records, self.players
        games = len(recs)
        wins, sole, share = [0] * n, [0] * n, [0.0] * n
        outcomes = Counter()
        for r in recs:
            k = len(r.winners)
            outcomes["one winner" if k == 1 else "shared" if k > 1 else "no winner"] += 1
            for p in r.winners:
                wins[p] += 1
                share[p] += 1 / k
                if k == 1:
                    sole[p] += 1
        seats = []
        for p in range(n):
            kinds = Counter(r.agents[p] for r in recs)
            seats.append({"seat": p + 1, "agent": "/".join(sorted(kinds)), **rate(wins[p], games),
                          "sole_wins": sole[p], "win_share": round(share[p], 6)})
        average = sum(wins) / (games * n)
        firsts = [r for r in recs if r.first is not None]
        first_wins = sum(1 for r in firsts if r.first in r.winners)
        first = {**rate(first_wins, len(firsts)), "average": average,
                 "seats": {f"P{p + 1}": sum(1 for r in firsts if r.first == p) for p in range(n)}}
        lengths = sorted(r.decisions for r in recs)
        phase_totals = Counter()
        for r in recs:
            phase_totals.update(r.phases)
        length = {"decisions": {"min": lengths[0], "median": statistics.median(lengths),
                                "mean": round(statistics.fmean(lengths), 3), "p10": quantile(lengths, 0.1),
                                "p90": quantile(lengths, 0.9), "max": lengths[-1],
                                "histogram": histogram(lengths)},
                  "phases": {k: round(v / games, 3) for k, v in sorted(phase_totals.items(), key=lambda kv: -kv[1])}}
        agents = {}
        for kind in sorted({k for r in recs for k in r.agents}):
            seat_games = [(r, p) for r in recs for p in range(n) if r.agents[p] == kind]
            agents[kind] = rate(sum(1 for r, p in seat_games if p in r.winners), len(seat_games))
        triggered = Counter()
        trig_games = Counter()
        for r in recs:
            triggered.update(r.triggered)
            trig_games.update(r.triggered.keys())
        return {
            "game": self.name, "rules": self.path, "players": n, "games": games, "seed": self.seed,
            "options": dict(self.options), "agents": [r for r in self.spec.seating(n, 0)],
            "rotate": self.spec.rotate,
            "mcts": ({"iterations": self.spec.mcts_iterations, "rollout": self.spec.mcts_rollout}
                     if "mcts" in self.spec.kinds else None),
            "outcomes": {k: outcomes[k] for k in ("one winner", "shared", "no winner")},
            "limited": sum(r.limited for r in recs),  # of those, games ended by the rules' limit
            "seats": seats, "average_rate": average, "first_player": first, "by_agent": agents,
            "length": length,
            **kind_figures(recs, n, self.sides),
            "actions": self._usage("actions"), "cards": self._usage("cards"),
            "card_choices": self._usage("choices"), "abilities": self._usage("abilities"),
            "triggered": [{"name": k, "fired": v, "games": trig_games[k]}
                          for k, v in sorted(triggered.items(), key=lambda kv: (-kv[1], kv[0]))],
            "run": {"workers": self.workers, "seconds": round(self.seconds, 3)},
        }

    def _usage(self, field: str) -> list:
        """Uses of each name, and the win rates of the player-games that used it vs the others."""
        n = self.players
        uses, games, users, user_wins, user_score = Counter(), Counter(), Counter(), Counter(), Counter()
        scored = bool(self.records) and self.records[0].scores is not None
        for r in self.records:
            in_game = set()
            for p in range(n):
                won = p in r.winners
                for name, k in getattr(r, field)[p].items():
                    uses[name] += k
                    users[name] += 1
                    user_wins[name] += won
                    if scored:
                        user_score[name] += r.scores[p]
                    in_game.add(name)
            games.update(in_game)
        total = len(self.records) * n
        total_wins = sum(len(r.winners) for r in self.records)
        total_score = sum(sum(r.scores) for r in self.records) if scored else 0
        out = []
        for name in sorted(uses, key=lambda k: (-uses[k], k)):
            used = rate(user_wins[name], users[name])
            not_used = rate(total_wins - user_wins[name], total - users[name])
            if scored:  # the mean of the rules' score over the same player-games
                used["score"] = _mean(user_score[name], users[name])
                not_used["score"] = _mean(total_score - user_score[name], total - users[name])
            out.append({"name": name, "uses": uses[name], "games": games[name],
                        "per_game": round(uses[name] / len(self.records), 4), "used": used, "not_used": not_used})
        return out


def _mean(total: float, n: int) -> Optional[float]:
    return round(total / n, 4) if n else None
