"""What a fuzz run found: a failing game (Failure), a batch's totals (ChunkResult, merged the
same whatever the batching), the run's result and its summary (FuzzResult), and the rules
the games exercised (rule coverage) and the branches they took (branch coverage)."""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Optional

import attrs

from rulespec.lang.branches import branches

if TYPE_CHECKING:
    from .planning import GameJob
    from .playing import Outcome


# ---------------------------------------------------------------------- results
@attrs.define
class Failure:
    """One failing game: how to play it again, and what went wrong."""
    index: int
    players: int
    seed: int
    agent: str
    agent_seed: int
    check: str
    message: str
    choices: list
    actions: list
    original_steps: int = 0  # decisions before shrinking
    then_first: bool = False  # after the choices, the first legal action at every decision (an endless game)
    viewer: Optional[int] = None  # the counterfactual check's viewer in this game (None: not checked)
    detail: Optional[dict] = None  # a counterfactual leak: what a scenario needs (see _counterfactual)
    cause: Optional[dict] = None  # why, in rules positions (cause.py: explain); its "text" is one line

    @property
    def steps(self) -> int:
        return len(self.choices)


@attrs.frozen
class Longest:
    """A run's longest game: which it is and how it ended ("over", "limit": ended by the rules'
    limit, or "unfinished")."""
    decisions: int
    index: int
    players: int
    seed: int
    agent: str
    ending: str

    @classmethod
    def of(cls, job: "GameJob", out: Outcome) -> "Longest":
        ending = "limit" if out.limited else "over" if out.terminal else "unfinished"
        return cls(out.steps, job.index, job.players, job.seed, job.agent, ending)

    def beats(self, other: Optional["Longest"]) -> bool:
        """Longer than `other`; of two games of one length the first counts (whatever the batching)."""
        return other is None or (self.decisions, -self.index) > (other.decisions, -other.index)

    def as_dict(self) -> dict:
        return {"index": self.index, "decisions": self.decisions, "players": self.players, "seed": self.seed,
                "agent": self.agent, "ending": self.ending}


@attrs.define
class ChunkResult:
    """What a batch of games found; results merge the same whatever the batching."""
    games: int = 0
    terminal: int = 0
    limited: int = 0         # games over because the rules' limit of decisions was reached (in terminal)
    decisions: int = 0
    longest_game: Optional[Longest] = None
    coverage: Counter = attrs.field(factory=Counter)
    by_players: Counter = attrs.field(factory=Counter)
    by_agent: Counter = attrs.field(factory=Counter)
    failures: Counter = attrs.field(factory=Counter)         # check -> games
    first: dict = attrs.field(factory=dict)                  # check -> the Failure of its first game
    failing: list = attrs.field(factory=list)                # (game index, check), at most MAX_LISTED
    cpu_seconds: float = 0.0                                  # CPU time the games took (not in summary())
    cf_games: int = 0        # games given the counterfactual secrecy check
    cf_worlds: int = 0       # re-deals compared
    cf_dropped: int = 0      # re-deals dropped as inconsistent with the public history
    cf_drops: Counter = attrs.field(factory=Counter)  # why re-deals were dropped: a kind of reason -> how many
    cf_decisions: int = 0    # decisions compared
    cf_empty: int = 0        # games checked in which no re-deal was compared
    cf_visible: int = 0      # of those, games with fewer than two cards ever hidden from the viewer (nothing to re-deal)
    cf_seconds: float = 0.0  # CPU time in the check (not in summary())
    checked: int = 0         # decisions given the costly checks
    replayed: int = 0        # games replayed at their end

    def add(self, other: "ChunkResult") -> None:
        self.games += other.games
        self.checked += other.checked
        self.replayed += other.replayed
        self.terminal += other.terminal
        self.limited += other.limited
        self.decisions += other.decisions
        self.note_longest(other.longest_game)
        self.cpu_seconds += other.cpu_seconds
        self.cf_games += other.cf_games
        self.cf_worlds += other.cf_worlds
        self.cf_dropped += other.cf_dropped
        self.cf_drops.update(other.cf_drops)
        self.cf_decisions += other.cf_decisions
        self.cf_empty += other.cf_empty
        self.cf_visible += other.cf_visible
        self.cf_seconds += other.cf_seconds
        self.coverage.update(other.coverage)
        self.by_players.update(other.by_players)
        self.by_agent.update(other.by_agent)
        self.failures.update(other.failures)
        for check, f in other.first.items():
            if check not in self.first or f.index < self.first[check].index:
                self.first[check] = f
        self.failing = sorted(self.failing + other.failing)[:MAX_LISTED]

    @property
    def longest(self) -> int:
        """The decisions of the longest game."""
        return self.longest_game.decisions if self.longest_game is not None else 0

    def note_longest(self, game: Optional[Longest]) -> None:
        if game is not None and game.beats(self.longest_game):
            self.longest_game = game


MAX_LISTED = 50


@attrs.define
class FuzzResult:
    rules: str
    game: str
    games: int
    seed: int
    players: object
    options: dict
    agents: tuple
    max_steps: int
    backend: str
    workers: int
    totals: ChunkResult
    seconds: float
    counterfactual_rate: float = 1.0
    state_check_rate: float = 1.0

    @property
    def ok(self) -> bool:
        return not self.totals.failures

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def games_per_cpu_second(self) -> float:
        """Games per second of CPU time in the workers: what one worker does on an idle core."""
        cpu = self.totals.cpu_seconds
        return self.games / cpu if cpu > 0 else float("inf")

    def failures(self) -> list[Failure]:
        """The first failing game of each check, in order of game index."""
        return sorted(self.totals.first.values(), key=lambda f: f.index)

    def summary(self) -> dict:
        """Everything that does not depend on timing, workers or backend (for comparisons)."""
        t = self.totals
        return {
            "games": t.games, "terminal": t.terminal, "limited": t.limited, "decisions": t.decisions,
            "longest": t.longest, "longest_game": t.longest_game.as_dict() if t.longest_game else None,
            "coverage": {k: v for k, v in sorted(t.coverage.items()) if not k.startswith("log:")},  # (log_key) "players": dict(sorted(t.by_players.items())),
            "agents": dict(sorted(t.by_agent.items())), "failures": dict(sorted(t.failures.items())),
            "failing": list(t.failing),
            "first": {k: [f.index, f.message, list(f.choices)] for k, f in sorted(t.first.items())},
            "state_check_rate": self.state_check_rate,
            "state_checks": {"rate": self.state_check_rate, "decisions": t.checked, "replayed": t.replayed},
            "counterfactual": {"rate": self.counterfactual_rate, "games": t.cf_games, "worlds": t.cf_worlds,
                               "dropped": t.cf_dropped, "dropped_by": dict(t.cf_drops.most_common()),
                               "decisions": t.cf_decisions,
                               "games_without_redeal": t.cf_empty, "games_all_visible": t.cf_visible,
                               "nothing_to_compare": self.compared_nothing},
        }

    @property
    def compared_nothing(self) -> bool:
        """Games were given the counterfactual secrecy check, and not one re-deal was compared:
        its silence says nothing (usually every card was visible to the viewers from the setup on)."""
        t = self.totals
        return t.cf_games > 0 and t.cf_worlds == 0


# ---------------------------------------------------------------------- rule coverage
@attrs.frozen
class Rule:
    kind: str   # action, response, phase, effect, cancelled, event, trigger
    name: str
    key: str    # its coverage counter key


RULE_KINDS = ("phase", "action", "response", "effect", "cancelled", "event", "trigger")


def rule_universe(model) -> list[Rule]:
    """Every declared rule a game can exercise, in a fixed order."""
    rules = [Rule("phase", n, "phase:" + n) for n in model.phases]
    for name, a in model.actions.items():
        rules.append(Rule("response" if a.respond_to else "action", name, "action:" + name))
    for name, e in model.effects.items():
        rules.append(Rule("effect", name, "effect:" + name))
        if e.cancelled is not None:
            rules.append(Rule("cancelled", name, "cancelled:" + name))
    events = list(model.events)
    for t in model.triggers:  # engine events (phase_start, ...) count when something listens
        if t.event.name not in events:
            events.append(t.event.name)
    rules += [Rule("event", n, "event:" + n) for n in events]
    rules += [Rule("trigger", t.name, "trigger:" + t.name) for t in model.triggers]
    order = {k: i for i, k in enumerate(RULE_KINDS)}
    return sorted(rules, key=lambda r: order[r.kind])  # stable: declaration order within a kind


@attrs.frozen
class Coverage:
    rules: list       # [(Rule, count)] (BranchCoverage: [(Branch, count)])

    @property
    def total(self) -> int:
        return len(self.rules)

    @property
    def reached(self) -> int:
        return sum(1 for _, c in self.rules if c)

    @property
    def percent(self) -> float:
        return 100.0 * self.reached / self.total if self.total else 100.0

    def never(self) -> list:
        return [r for r, c in self.rules if not c]


def coverage(model, counter: Counter) -> Coverage:
    return Coverage([(r, counter.get(r.key, 0)) for r in rule_universe(model)])


# ---------------------------------------------------------------------- branch coverage
@attrs.frozen
class BranchCoverage(Coverage):
    """Every branch of the rules (rulespec/lang/branches.py) and how often the games took it:
    `rules` holds [(Branch, count)], in the order of the source."""

    @property
    def branches(self) -> list:
        return self.rules

    @property
    def taken(self) -> int:
        return self.reached


def branch_coverage(model, counter: Counter) -> BranchCoverage:
    return BranchCoverage([(b, counter.get(b.key, 0)) for b in branches(model)])
