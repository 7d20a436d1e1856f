"""Fuzzing: many random games, every check at every decision, failures shrunk and saved.

The engine side of ``rulespec fuzz`` and ``rulespec replay`` (the command line in
rulespec/tools/cli.py does all the printing).  Nothing here knows any game.

A run of N games is planned up front: game i gets its own deal seed
(``seed * 1_000_003 + i``), agent seed, player count (cycling over the game's range with
``players="all"``) and agent kind (cycling over ``agents``).  Games are independent, so a
run's totals -- decisions, coverage, failures -- are the same whatever the number of
worker processes or the backend that plays them.

What each game checks, before every decision and at the end (see rulespec/tools/fuzzing/checks.py):
cards conserved, the rules' invariants, a running game has a legal action and someone to
act, the JSON round trip, secrecy of observations and legal actions; here besides: the
previous action, once it is no longer legal, is refused (and refusing it changes nothing),
the game ends within ``max_steps`` decisions, a rules runtime error or an engine crash
is a failure, and replaying the seed and the history gives the same final state.  After a
game that passed all of that, the counterfactual secrecy check (rulespec/tools/fuzzing/secrecy.py)
compares one player's view of it with that player's view of re-deals of the cards they
never saw (the viewer cycles over the games; ``counterfactual_rate`` samples the games).
The checks that cost several plays of a decision each run at a sampled share of the
decisions and games (``state_check_rate``: StateCheckSchedule), the cheap ones at every
decision (the cards incrementally: the zones the log says changed); at rate 1 everything
runs everywhere, and shrinking and replay files always use rate 1.

A game is recorded as the list of its choices, each an index into ``legal_actions()``.
Replaying a list uses ``choice % len(legal)`` at each decision and stops when the list
runs out, so any sub-list is a valid game prefix: that is what shrinking (delta
debugging, ``shrink``) works on.
"""
from __future__ import annotations

import json
import marshal
import math
import operator
import os
import random
import re
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

import attrs

from .checks import CHOOSERS, LOG_CHECK, LogMemory, _first_difference, full_round_trip_due, replay, state_problems
from interpreter.errors import EngineError, IllegalActionError
from .secrecy import CHECK as COUNTERFACTUAL, Trace, _mark_seen, _view, counterfactual_check
from interpreter.serialise import json_loads
from interpreter.state import State

AGENT_KINDS = ("random", "rare", "mixed")
DEFAULT_AGENTS = ("random", "rare")
DEFAULT_MAX_STEPS = 20_000
REPLAY_FORMAT = "rulespec-replay"
REPLAY_VERSION = 1


def default_max_steps(model) -> int:
    """The decisions a game may take before it counts as endless, when none is given: the
    default, or the rules' own 'limit N decisions' when that is higher (the engine ends the game
    there: a game of the rules' length is finished, not endless)."""
    limit = model.limit.count if model.limit is not None else 0
    return max(DEFAULT_MAX_STEPS, limit)


class FuzzError(EngineError, ValueError):
    """Bad fuzzing parameters, or a replay file that cannot be used."""


# ---------------------------------------------------------------------- agents
class RareFirst:
    """Prefers the kinds of action this game has taken least: picks an action name with
    weight 1 / (1 + times taken so far), then one action of that name uniformly.  So powers,
    responses and other rare moves are tried whenever they are legal, and the deep states
    behind them get reached.  Deterministic for a given random.Random."""

    def __init__(self):
        self.taken: Counter = Counter()

    def __call__(self, st, rng: random.Random):
        by_name: dict = {}
        for a in st.legal_actions():
            by_name.setdefault(a.name, []).append(a)
        names = list(by_name)  # order of first appearance: deterministic
        name = rng.choices(names, [1.0 / (1 + self.taken[n]) for n in names])[0] if len(names) > 1 else names[0]
        self.taken[name] += 1
        group = by_name[name]
        return group[rng.randrange(len(group))] if len(group) > 1 else group[0]


def make_chooser(kind: str):
    """A fresh chooser (st, rng) -> Action for one game."""
    if kind == "rare":
        return RareFirst()
    if kind in CHOOSERS:
        return CHOOSERS[kind]
    raise FuzzError(f"unknown agent '{kind}' (agents: {', '.join(AGENT_KINDS)})")


# ---------------------------------------------------------------------- one game
@attrs.define
class Outcome:
    """How one game went.  `failure` is None or (check name, message); `choices` are the
    indices chosen (the last one included when applying it failed); `actions` their texts.
    For a game given a viewer: `counterfactual` is the secrecy check's Verdict (None when it
    did not run: the game failed before), `detail` what a scenario needs of its leak."""
    steps: int = 0
    terminal: bool = False
    limited: bool = False  # the game ended at the rules' 'limit N decisions' (a finished game)
    failure: Optional[tuple] = None
    choices: list = attrs.field(factory=list)
    actions: list = attrs.field(factory=list)
    state: object = None
    counterfactual: object = None
    counterfactual_seconds: float = 0.0
    detail: Optional[dict] = None
    replayed: bool = False  # the game was replayed from its seed and actions at its end
    checked: int = 0  # decisions given the costly checks (the end included)


# pick(state, legal actions) -> an index into them, or None to stop the game there
Picker = Callable[[object, list], Optional[int]]


def play_game(game, players: int, seed: int, options: Optional[dict], pick: Picker,
              max_steps: Optional[int] = None, coverage: Optional[Counter] = None,
              check_illegal: bool = True, check_replay: bool = True, viewer: Optional[int] = None,
              state_check_rate: float = 1.0, replayed: Optional[bool] = None) -> Outcome:
    """Play one game with `pick`, checking everything before each decision and at the end;
    stops at the first failure.  With `viewer` (a seat from 0), a game that passed every
    check then gets the counterfactual secrecy check for that player.

    `state_check_rate` below 1 samples the decisions given the checks that cost several
    plays of a decision each (the JSON round trip, every player's observation, refusing the
    previous action, the cards of every zone): see StateCheckSchedule.  The cheap checks run
    at every decision: the rules' invariants, someone to act with a legal action, and the
    cards of the zones that changed since the previous decision.  `replayed`: whether the
    game is replayed at its end (fuzz's plan chooses the games: see sampled_games); None draws it
    from the seed."""
    out = Outcome()
    if max_steps is None:
        max_steps = default_max_steps(game.model)
    schedule = StateCheckSchedule(seed, state_check_rate, replayed)
    trace = LazyTrace(viewer) if viewer is not None and 0 <= viewer < players else None
    try:
        st = game.new_state(players=players, seed=seed, options=options, coverage=coverage)
    except EngineError as e:
        out.failure = ("start", f"the game could not start: {e}")
        return out
    except Exception as e:  # an engine bug: report it, never crash the fuzzer
        out.failure = ("crash", f"starting the game: {_crash(e)}")
        return out
    out.state = st
    log_checked = history_checked = 0  # the log and history entries checked by the last costly check
    cards_checked = None  # the log's length at the last check of the cards (None: check them all)
    texts: dict = {}  # the whole state's JSON at the end (see check_round_trip), compared with the replay
    memory = LogMemory(players)  # the log as every player read it (its past lines never change)
    prev_text = None
    doing = "checking the state"
    try:
        while True:
            doing = "checking the state"
            costly = schedule.costly(out.steps, st.terminal)
            full = schedule.whole(out.steps, st.terminal)
            out.checked += costly
            seen_now: dict = {}  # the secrecy check builds every observation: the trace takes the viewer's
            problems = state_problems(st, round_trip=costly, secrecy=costly, observations=seen_now,
                                      log_from=None if full else log_checked, history_from=history_checked,
                                      cards_from=None if costly else cards_checked,
                                      texts=texts if st.terminal else None)
            cards_checked = len(st.log)
            if costly:
                log_checked, history_checked = len(st.log), len(st.history)
                if not problems:  # (a log entry the round trip refuses is not read)
                    problems = [(LOG_CHECK, p) for p in memory.problems(st, whole=full)]
            if problems:
                out.failure = (problems[0][0], f"after {out.steps} decisions: {problems[0][1]}")
                break
            if trace is not None:
                doing = "recording what the viewer sees"
                trace.record(st, seen_now.get(trace.viewer))
            if st.terminal:
                out.terminal = True
                out.limited = st.ended_by_limit()
                break
            if out.steps >= max_steps:
                out.failure = ("termination", f"the game did not end within {max_steps} decisions")
                break
            legal = st.legal_actions()
            if check_illegal and prev_text is not None and costly:
                doing = f"offering the illegal action '{prev_text}'"
                problem = _refuses(st, legal, prev_text)
                if problem is not None:
                    out.failure = ("illegal action", f"after {out.steps} decisions: {problem}")
                    break
            doing = "choosing"
            i = pick(st, legal)
            if i is None:
                break
            action = legal[i]
            out.choices.append(i)
            out.actions.append(action.text)
            doing = f"applying '{action.text}'"
            st.apply(action)
            out.steps += 1
            prev_text = action.text
    except IllegalActionError as e:
        out.failure = ("illegal action", f"after {out.steps} decisions, {doing}: a legal action was refused: {e}")
    except EngineError as e:
        out.failure = ("runtime error", f"after {out.steps} decisions, {doing}: {e}")
    except Exception as e:  # noqa: BLE001 - an engine bug must be a finding, not a crash
        out.failure = ("crash", f"after {out.steps} decisions, {doing}: {_crash(e)}")
    if out.failure is None and check_replay and schedule.replay_due():
        out.replayed = True
        try:
            again = replay(game, st)
            a = texts.get("state") if st.terminal else None  # the end's round trip wrote it
            a, b = a if a is not None else st.to_json(), again.to_json()
        except Exception as e:  # noqa: BLE001
            out.failure = ("replay", f"replaying the seed and the {out.steps} actions failed: {_crash(e)}")
        else:
            if a != b:
                out.failure = ("replay", f"replaying the seed and the {out.steps} actions gives a different state "
                                         f"({_first_difference(a, b)})")
    if out.failure is None and trace is not None and len(trace.views) == len(out.actions) + 1:
        _counterfactual(game, players, seed, options, out, trace)
    return out


class LazyTrace(Trace):
    """secrecy.Trace (the game as played, seen by the counterfactual check's viewer) whose
    views are built only when the check compares them.

    Trace.record builds the viewer's view at every decision -- their observation as JSON and
    their new log lines -- but the check compares a view only while some re-deal is still
    consistent with the public history: in the shipped games from a tenth of the decisions
    to all of them (docs/performance.md).  Here a decision keeps a snapshot of the state
    instead (see _Snapshot), and the view is built from it the first time the check asks
    for it, with the same secrecy._view, so the verdict is the one Trace gives
    (tests/test_fuzz_checks.py compares them).  At a decision whose observations the secrecy
    check built anyway, the view is made at once from the viewer's."""

    def __init__(self, viewer: int):
        super().__init__(viewer)
        self.views = _LazyViews()

    def record(self, st, observation: Optional[dict] = None) -> None:
        if self.start is None:
            self.start = st.clone()
            self.seen = [-1] * st.prog.card_count
            self.moved = [-1] * st.prog.card_count
            self.views.log = st.log
        k = len(self.views)
        _mark_seen(st, self.viewer, self._log_from, self.seen, self.moved, k)
        layout = tuple(map(tuple, st.zones))  # tuples of ints: untracked by the GC
        if observation is not None:  # built already (by the secrecy check): the rest is cheap
            self.views.append(_view(st, self.viewer, self._log_from, observation))
        else:
            try:
                self.views.append(_Snapshot(st, layout, self.viewer, self._log_from))
            except ValueError:  # a state holding something marshal cannot copy: build the view now
                self.views.append(_view(st, self.viewer, self._log_from))
        self.layouts.append(layout)
        self._log_from = len(st.log)

    def prefix(self, k: int) -> "LazyTrace":
        t = LazyTrace(self.viewer)
        t.start, t.views, t.layouts = self.start, self.views[:k + 1], self.layouts[:k + 1]
        t.seen = [d if d <= k else -1 for d in self.seen]
        t.moved = [d if d <= k else -1 for d in self.moved]
        return t


# the parts of a State a snapshot marshals: all but the rules, the log and history, the caches,
# and the zones and where each card is (the trace's layout of the zones has them)
_SNAPSHOT_SKIP = frozenset({"game", "prog", "log", "history", "cov", "_memo", "_legal", "_legal_map", "zones", "where",
                            "opts"})  # (the options never change in a game: the snapshot shares them)
_SNAPSHOT_FIELDS = tuple(f for f in State.__slots__ if f not in _SNAPSHOT_SKIP)
_snapshot_values = operator.attrgetter(*_SNAPSHOT_FIELDS)


class _LegalText:
    """What an observation reads of a legal action: its text."""
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class _Snapshot:
    """A view not built yet: the state at its decision as one bytes object (marshal: a deep
    copy in one C call, and bytes cost the garbage collector nothing -- a State copy per
    decision, all lists and dicts, made every collection slower than the views it saves),
    its zones as the trace's layout of them (where each card is follows from the zones,
    which the cards check holds to that), the viewer's legal actions' texts when the viewer
    is to act, and where the log stood.  The log itself is the live state's: it only grows,
    and entries are never changed once written, so log[:log_to] is the log as it was then."""
    __slots__ = ("game", "opts", "data", "layout", "viewer", "log_from", "log_to")

    def __init__(self, st, layout: tuple, viewer: int, log_from: int):
        legal = None
        if st._legal is not None and st.current_player == viewer:
            legal = tuple(a.text for a in st._legal)
        self.data = marshal.dumps((_snapshot_values(st), legal))
        self.game, self.layout, self.viewer, self.log_from, self.log_to = st.game, layout, viewer, log_from, len(st.log)
        self.opts = st.opts

    def build(self, log: list) -> tuple:
        """Exactly what Trace.record stores: secrecy._view of the state then."""
        values, legal = marshal.loads(self.data)
        snap = State.__new__(State)
        snap.game, snap.prog, snap.opts = self.game, self.game.prog, self.opts
        for f, v in zip(_SNAPSHOT_FIELDS, values):
            setattr(snap, f, v)
        snap.zones = [list(z) for z in self.layout]
        where = snap.where = [0] * snap.prog.card_count
        for zi, zone in enumerate(self.layout):
            for c in zone:
                where[c] = zi
        snap.log, snap.history = log[:self.log_to], []
        snap.cov = snap._memo = snap._legal_map = None
        snap._legal = [_LegalText(t) for t in legal] if legal is not None else None
        return _view(snap, self.viewer, self.log_from)


class _LazyViews:
    """The list of a LazyTrace's views: an entry is built on first reading and kept (as the
    text tuple Trace keeps); slices share the entries not built yet."""
    __slots__ = ("items", "log")

    def __init__(self, items: Optional[list] = None, log: Optional[list] = None):
        self.items = items if items is not None else []
        self.log = log

    def append(self, item) -> None:
        self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return _LazyViews(self.items[k], self.log)
        item = self.items[k]
        if type(item) is _Snapshot:
            item = self.items[k] = item.build(self.log)
        return item

    def __iter__(self):
        return (self[k] for k in range(len(self.items)))


FIRST_CHECKED = 3  # decisions 0, 1 and 2 get the costly checks in every game


class StateCheckSchedule:
    """Which decisions of a game get the costly state checks: every one at rate 1; else the
    first decisions (0, 1 and 2: the position the setup dealt, and the first moves), the end,
    and each other decision with probability `rate`, drawn from the game's seed, so that
    replaying or shrinking a game checks the same decisions.  Whether the game is replayed
    at its end is sampled at the same rate.  The log and history entries written between two
    checked decisions are all checked at the second one, and so are the zones cards moved
    between.  (Decisions 4, 8, 16, ... used to be checked in every game too, for the round
    trip of the whole state; that is sampled now, as below.)

    The round trip of the whole state, log and history included (``whole``), is made at
    those of the decisions 0, 1, 2, 4, 8, ... that are drawn and at the end of the games
    that are replayed (all of them at rate 1); the other costly checks round-trip the state
    without its log and history, plus each log and history entry new since the previous
    costly check on its own (checks.check_round_trip).  Entries are never changed once
    written, so every entry of the log is checked, once, either way."""
    __slots__ = ("seed", "rate", "rng", "drawn", "_replay")

    def __init__(self, seed: int, rate: float = 1.0, replay: Optional[bool] = None):
        self.seed, self.rate = seed, rate
        self.rng = random.Random(f"rulespec-state-checks:{seed}") if rate < 1 else None
        self.drawn: list = []  # one draw per decision, in order (a decision may be asked twice)
        self._replay = True if rate >= 1 else replay

    def replay_due(self) -> bool:
        """Is the game replayed from its seed and actions at the end?  Every game at rate 1;
        else as the run's plan says (a share `rate` of its games: see sampled_games), or, for
        a game played on its own, with probability `rate` (a replay costs as much as playing
        the game)."""
        if self._replay is None:
            self._replay = self.rng is None or random.Random(f"rulespec-replay:{self.seed}").random() < self.rate
        return self._replay

    def due(self, step: int) -> bool:
        """Is decision `step` drawn (every decision at rate 1)?"""
        if self.rng is None:
            return True
        while len(self.drawn) <= step:
            self.drawn.append(self.rng.random() < self.rate)
        return self.drawn[step]

    def costly(self, step: int, terminal: bool = False) -> bool:
        """Does decision `step` get the costly checks?  The first decisions (FIRST_CHECKED) and
        the end of a game always do."""
        return terminal or step < FIRST_CHECKED or self.due(step)

    def whole(self, step: int, terminal: bool = False) -> bool:
        """Is the whole state, log and history included, round-tripped at decision `step`?
        At the drawn ones of decisions 0, 1, 2, 4, 8, ..., and at the end of a game that is
        replayed (whose JSON the replay is compared with): every such decision at rate 1."""
        if terminal:
            return self.replay_due()
        return full_round_trip_due(step) and self.due(step)


def _counterfactual(game, players: int, seed: int, options: Optional[dict], out: Outcome, trace: Trace) -> None:
    """The counterfactual secrecy check of a game that passed every other check.  A leak
    found at decision k of a longer game is looked for again in the game cut there (its
    first k actions: cards v saw only later are re-dealt too); when that game fails as well,
    the failure keeps only those k choices, so the failure that shrinking starts from is as
    short as the leak.  Either way the failure replays exactly: the verdict depends only on
    the seed, the viewer and the actions."""
    t0 = time.process_time()
    try:
        verdict = counterfactual_check(game, players, seed, options, out.actions, trace.viewer, trace=trace)
        out.counterfactual = verdict
        leak = verdict.leak
        if leak is not None and leak.decision < len(out.actions):
            k = leak.decision
            again = counterfactual_check(game, players, seed, options, out.actions[:k], trace.viewer,
                                         trace=trace.prefix(k))
            if again.leak is not None:
                leak = again.leak
                del out.choices[k:]
                del out.actions[k:]
    except Exception as e:  # noqa: BLE001 - a crash of the check is a finding, not the end of the run
        out.failure = ("crash", f"in the counterfactual secrecy check for P{trace.viewer + 1}: {_crash(e)}")
        return
    finally:
        out.counterfactual_seconds = time.process_time() - t0
    if leak is not None:
        out.failure = (COUNTERFACTUAL, f"after {leak.decision} decisions: {leak.message}")
        out.detail = {"viewer": leak.viewer, "decision": leak.decision, "kind": leak.kind, "cut": leak.cut,
                      "redealt": leak.redealt, "position": leak.position, "expect": leak.expect}


def _refuses(st, legal: list, text: str) -> Optional[str]:
    """None when the engine refuses `text` (if it is not legal now) and stays unchanged."""
    if any(a.text == text for a in legal):
        return None
    history, log = len(st.history), len(st.log)
    try:
        st.apply(text)
    except IllegalActionError:
        pass
    else:
        return f"'{text}' is not among the {len(legal)} legal actions, but the engine applied it"
    if len(st.history) != history or len(st.log) != log:
        return f"refusing the illegal action '{text}' changed the state"
    return None


def _crash(e: BaseException) -> str:
    tb = traceback.extract_tb(e.__traceback__)
    where = f" ({Path(tb[-1].filename).name}:{tb[-1].lineno})" if tb else ""
    return f"{type(e).__name__}: {e}{where}"


def agent_picker(chooser, rng: random.Random) -> Picker:
    def pick(st, legal):
        chosen = chooser(st, rng)
        for i, a in enumerate(legal):
            if a is chosen:
                return i
        texts = [a.text for a in legal]
        return texts.index(chosen.text if hasattr(chosen, "text") else str(chosen))
    return pick


def list_picker(choices: Sequence[int], texts: Optional[Sequence[str]] = None, then_first: bool = False) -> Picker:
    """Replays a list of choices, each taken modulo the number of legal actions; with `texts`
    (the actions' texts when they were recorded), a text that is legal now wins over its
    index, so a game keeps its later moves when shrinking removes earlier ones.  When the list
    runs out the game stops there, or with `then_first` goes on with the first legal action
    at every decision (how a game that never ends is shrunk: to a short prefix after which
    plain play never ends either)."""
    k = 0

    def pick(st, legal):
        nonlocal k
        if k >= len(choices):
            return 0 if then_first else None
        c, k = choices[k], k + 1
        if texts is not None:
            text = texts[k - 1]
            for i, a in enumerate(legal):
                if a.text == text:
                    return i
        return c % len(legal)
    return pick


def text_picker(actions: Sequence[str], on_step: Optional[Callable] = None,
                diverged: Optional[list] = None, then_first: bool = False) -> Picker:
    """Replays action texts.  on_step(state, next text or None) runs before each decision.
    A text that is not legal stops the game, and its explanation goes into `diverged`.
    When the texts run out the game stops, or with `then_first` goes on with the first
    legal action at every decision."""
    it = iter(actions)

    def pick(st, legal):
        text = next(it, None)
        if text is None and then_first:
            text = legal[0].text
        if on_step is not None:
            on_step(st, text)
        if text is None:
            return None
        for i, a in enumerate(legal):
            if a.text == text:
                return i
        try:
            why = st.explain_illegal(text)
        except Exception as e:  # noqa: BLE001
            why = f"'{text}' is not legal ({_crash(e)})"
        if diverged is not None:
            diverged.append(f"after {len(st.history)} decisions the recorded action is not legal: {why}")
        return None
    return pick


# ---------------------------------------------------------------------- planning a run
@attrs.frozen
class GameJob:
    index: int
    players: int
    seed: int
    agent: str
    agent_seed: int
    viewer: Optional[int] = None  # the counterfactual secrecy check's viewer (None: not checked)
    state_check_rate: float = 1.0  # the fraction of decisions given the costly state checks
    replay: Optional[bool] = None  # replayed at its end? (None: drawn from its seed, see StateCheckSchedule)


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def sampled_games(games: int, rate: float, key: str) -> frozenset:
    """The indexes of the games a run samples at `rate`: every game at rate 1, none at 0, else
    exactly ceil(rate * games) of them, a random choice drawn from `key` (made of the run's
    seed), so that a run samples the same games whatever its workers.  The share is the
    rate itself rather than a draw per game around it: drawn per game, 10 games at rate 0.2
    would check none of them one run in nine, and the cost of a run would swing with it."""
    if rate >= 1:
        return frozenset(range(games))
    k = math.ceil(rate * games - 1e-9)
    return frozenset(random.Random(key).sample(range(games), k)) if k > 0 else frozenset()


def counterfactual_viewer(index: int, players: int, n_agents: int) -> int:
    """The viewer of game `index` for the counterfactual secrecy check.  Viewers cycle over the
    games (P1, P1, P2, P2, ... with two agents, so that every agent plays with every viewer)."""
    return (index // max(1, n_agents)) % players


def check_rate(rate: float, flag: str = "--counterfactual-rate", of: str = "the games") -> float:
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 1:
        raise FuzzError(f"{flag} is a fraction of {of}, from 0 to 1, not {rate!r}")
    return float(rate)


def check_state_rate(rate: float) -> float:
    return check_rate(rate, "--check-rate", "the decisions")


def plan(game, games: int, seed: int = 0, players="all", agents: Sequence[str] = DEFAULT_AGENTS,
         counterfactual_rate: float = 1.0, state_check_rate: float = 1.0) -> list[GameJob]:
    model = game.model
    rate = check_rate(counterfactual_rate)
    state_rate = check_state_rate(state_check_rate)
    if games < 1:
        raise FuzzError("--games must be at least 1")
    if not agents:
        raise FuzzError("give at least one agent")
    for a in agents:
        make_chooser(a)
    if players in (None, "all"):
        counts = list(range(model.min_players, model.max_players + 1))
    else:
        n = int(players)
        if not model.min_players <= n <= model.max_players:
            raise FuzzError(f"{model.name} is for {model.min_players}-{model.max_players} players, not {n}")
        counts = [n]
    viewed = sampled_games(games, rate, f"rulespec-counterfactual-games:{seed}")
    replayed = sampled_games(games, state_rate, f"rulespec-replayed-games:{seed}")
    jobs = []
    for i in range(games):
        s = game_seed(seed, i)
        n = counts[i % len(counts)]
        jobs.append(GameJob(i, n, s, agents[i % len(agents)], s * 7_919 + 104_729,
                            counterfactual_viewer(i, n, len(agents)) if i in viewed else None, state_rate,
                            i in replayed))
    return jobs


def run_job(game, job: GameJob, options: Optional[dict], max_steps: int, coverage: Optional[Counter] = None) -> Outcome:
    pick = agent_picker(make_chooser(job.agent), random.Random(job.agent_seed))
    return play_game(game, job.players, job.seed, options, pick, max_steps, coverage, viewer=job.viewer,
                     state_check_rate=job.state_check_rate, replayed=job.replay)


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
    cf_decisions: int = 0    # decisions compared
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
        self.cf_decisions += other.cf_decisions
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
            "coverage": dict(sorted(t.coverage.items())), "players": dict(sorted(t.by_players.items())),
            "agents": dict(sorted(t.by_agent.items())), "failures": dict(sorted(t.failures.items())),
            "failing": list(t.failing),
            "first": {k: [f.index, f.message, list(f.choices)] for k, f in sorted(t.first.items())},
            "state_check_rate": self.state_check_rate,
            "state_checks": {"rate": self.state_check_rate, "decisions": t.checked, "replayed": t.replayed},
            "counterfactual": {"rate": self.counterfactual_rate, "games": t.cf_games, "worlds": t.cf_worlds,
                               "dropped": t.cf_dropped, "decisions": t.cf_decisions},
        }


# ---------------------------------------------------------------------- running batches
_GAMES: dict = {}


def _game_from_source(path: str, source: str):
    """Compile the rules once per worker process (Ray workers may not have the file)."""
    from interpreter.game import load_text
    from interpreter.state import stable_hash
    key = (path, stable_hash(source))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_text(source, path)
    return game


def run_chunk(payload: tuple) -> tuple[int, ChunkResult]:
    """Play a batch of games: payload (chunk id, rules path, rules text, options, jobs, max steps,
    max choices).
    A top-level function, so multiprocessing and Ray can ship it to a worker."""
    chunk_id, path, source, options, jobs, max_steps, max_choices = payload
    game = _game_from_source(path, source)
    game.max_choices = max_choices
    res = ChunkResult()
    cpu = time.process_time()
    for job in jobs:
        out = run_job(game, job, options, max_steps, res.coverage)
        res.games += 1
        res.decisions += out.steps
        res.note_longest(Longest.of(job, out))
        res.terminal += out.terminal
        res.limited += out.limited
        res.checked += out.checked
        res.replayed += out.replayed
        res.by_players[job.players] += 1
        res.by_agent[job.agent] += 1
        if out.counterfactual is not None:
            res.cf_games += 1
            res.cf_worlds += out.counterfactual.worlds
            res.cf_dropped += out.counterfactual.dropped
            res.cf_decisions += out.counterfactual.compared
        res.cf_seconds += out.counterfactual_seconds
        if out.failure is not None:
            check, message = out.failure
            res.failures[check] += 1
            if len(res.failing) < MAX_LISTED:
                res.failing.append((job.index, check))
            if check not in res.first:
                res.first[check] = Failure(job.index, job.players, job.seed, job.agent, job.agent_seed, check,
                                           message, list(out.choices), list(out.actions), len(out.choices),
                                           viewer=job.viewer, detail=out.detail)
    res.cpu_seconds = time.process_time() - cpu
    return chunk_id, res


class Backend:
    """Runs a function over jobs somewhere: ``map(fn, jobs)`` yields (in any order) fn(job)."""
    name = "?"
    workers = 1

    def map(self, fn: Callable, jobs: list) -> Iterator:
        raise NotImplementedError

    def close(self) -> None:
        pass


class LocalBackend(Backend):
    """Worker processes on this machine (multiprocessing); one worker runs in this process."""
    name = "local"

    def __init__(self, workers: int = 1):
        if workers < 1:
            raise FuzzError("--workers must be at least 1")
        self.workers = workers

    def map(self, fn, jobs):
        if self.workers == 1 or len(jobs) == 1:
            for j in jobs:
                yield fn(j)
            return
        import multiprocessing
        with multiprocessing.get_context().Pool(min(self.workers, len(jobs)), initializer=_quiet_worker) as pool:
            yield from pool.imap_unordered(fn, jobs)


def _quiet_worker() -> None:
    """Ctrl-C stops the run from the main process; workers must not print tracebacks of their own."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class RayBackend(Backend):
    """A Ray cluster (``address``: "auto", "ray://host:10001", ...; None starts a local instance
    with ``workers`` CPUs).  Needs the optional extra: pip install rulespec[ray]."""
    name = "ray"

    def __init__(self, workers: int = 1, address: Optional[str] = None):
        try:
            import ray  # noqa: F401
        except ImportError:
            raise BackendUnavailable("the Ray backend needs Ray: pip install 'rulespec[ray]'") from None
        self.workers = workers
        self.address = address
        self._started = False

    def map(self, fn, jobs):
        import ray
        if not ray.is_initialized():
            kwargs = {"ignore_reinit_error": True, "include_dashboard": False, "log_to_driver": False,
                      "configure_logging": False}
            if self.address:
                import interpreter
                import rulespec
                # ship this package to the cluster's workers, which may not have it installed
                kwargs["runtime_env"] = {"py_modules": [os.path.dirname(rulespec.__file__),
                                                        os.path.dirname(interpreter.__file__)]}
                ray.init(address=self.address, **kwargs)
            else:
                ray.init(num_cpus=self.workers, **kwargs)
            self._started = True
        remote = ray.remote(fn)
        pending = [remote.remote(j) for j in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])

    def close(self) -> None:
        if self._started:
            import ray
            ray.shutdown()
            self._started = False


class BackendUnavailable(FuzzError):
    """The chosen backend cannot run here (a missing optional dependency)."""


def make_backend(name: str = "local", workers: int = 1, address: Optional[str] = None) -> Backend:
    if workers < 1:
        raise FuzzError("--workers must be at least 1")
    if name == "local":
        if address:
            raise FuzzError("--address is for --backend ray")
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(workers, address)
    raise FuzzError(f"unknown backend '{name}' (backends: local, ray)")


def fuzz(game, games: int, seed: int = 0, players="all", options: Optional[dict] = None,
         agents: Sequence[str] = DEFAULT_AGENTS, max_steps: Optional[int] = None,
         backend: Optional[Backend] = None, progress: Optional[Callable[[int, int], None]] = None,
         chunk_size: Optional[int] = None, counterfactual_rate: float = 1.0,
         state_check_rate: float = 1.0) -> FuzzResult:
    """Play `games` checked games; progress(games done, failing games so far) after each batch.
    `counterfactual_rate`: the fraction of games (0 to 1) given the counterfactual secrecy check;
    `state_check_rate`: the fraction of decisions given the costly state checks (play_game).
    `max_steps` (default: default_max_steps): the decisions after which a game counts as endless."""
    if max_steps is None:
        max_steps = default_max_steps(game.model)
    if max_steps < 1:
        raise FuzzError("--max-steps must be at least 1")
    rate = check_rate(counterfactual_rate)
    state_rate = check_state_rate(state_check_rate)
    backend = backend or LocalBackend(1)
    options = dict(options or {})
    game.new_state(players=game.model.min_players if players in (None, "all") else int(players),
                   seed=seed, options=options)  # a bad option or player count fails here, early
    jobs = plan(game, games, seed, players, agents, rate, state_rate)
    size = chunk_size or max(1, min(25, math.ceil(games / (backend.workers * 8))))
    source = game.model.source
    payloads = [(k, game.path, source, options, jobs[i:i + size], max_steps, game.max_choices)
                for k, i in enumerate(range(0, len(jobs), size))]
    totals = ChunkResult()
    results = {}
    t0 = time.perf_counter()
    try:
        for k, res in backend.map(run_chunk, payloads):
            results[k] = res
            totals.games += res.games
            totals.failures.update(res.failures)
            if progress is not None:
                progress(totals.games, sum(totals.failures.values()))
    finally:
        backend.close()
    seconds = time.perf_counter() - t0
    merged = ChunkResult()
    for k in sorted(results):  # merge in a fixed order: same totals whatever the workers
        merged.add(results[k])
    return FuzzResult(game.path, game.name, games, seed, players, options, tuple(agents), max_steps,
                      backend.name, backend.workers, merged, seconds, rate, state_rate)


# ---------------------------------------------------------------------- shrinking
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


# ---------------------------------------------------------------------- replay and scenario files
def _slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "failure"


def _relative(target: str, base_dir: Path) -> str:
    """`target` as a path from base_dir when it was given relative (a project's own layout),
    else absolute."""
    if os.path.isabs(target):
        return target
    try:
        return os.path.relpath(os.path.abspath(target), os.path.abspath(base_dir))
    except ValueError:  # another drive
        return os.path.abspath(target)


def replay_record(game, failure: Failure, options: dict, max_steps: int, base_dir: Path) -> dict:
    return {
        "format": REPLAY_FORMAT, "version": REPLAY_VERSION,
        "game": game.name, "rules": _relative(game.path, base_dir), "rules_sha256": game.source_hash,
        "players": failure.players, "seed": failure.seed, "options": dict(options),
        "agent": failure.agent, "agent_seed": failure.agent_seed, "game_index": failure.index,
        "max_steps": max_steps,
        "failure": {"check": failure.check, "message": failure.message, "decisions": failure.steps,
                    "decisions_before_shrinking": failure.original_steps or failure.steps},
        "choices": list(failure.choices), "actions": list(failure.actions),
        # after the actions: "stop", or "first" (the first legal action at every decision, until
        # the game ends or max_steps: how a game that never ends is replayed from a short prefix)
        "then": "first" if failure.then_first else "stop",
    } | ({"counterfactual": {"viewer": failure.viewer}}  # replayed with the secrecy check for this seat
         if failure.check == COUNTERFACTUAL and failure.viewer is not None else {})


def scenario_text(game, failure: Failure, options: dict, base_dir: Path, max_steps: int = DEFAULT_MAX_STEPS) -> str:
    """A scenario (rulespec/tools/scenario.py) that replays the failing game and fails the same way."""
    import yaml
    if failure.check == COUNTERFACTUAL and failure.detail:
        return _counterfactual_scenario(game, failure, options, base_dir)
    doc = {
        "rules": _relative(game.path, base_dir),
        "name": f"fuzz: {failure.check} (game {failure.index}, seed {failure.seed})",
        "doc": failure.message,
        "players": failure.players, "seed": failure.seed,
    }
    if options:
        doc["options"] = dict(options)
    steps = [{"play": a} for a in failure.actions]
    offered = re.search(r"'(.*)' is not among|the illegal action '(.*)' changed", failure.message)
    if failure.check == "illegal action" and offered:
        steps.append({"illegal": offered.group(1) or offered.group(2)})  # fails: the engine applies it
    elif failure.check == "termination":
        steps.append({"finish": max_steps})  # fails: the game does not end within max_steps decisions
    elif failure.check not in ("runtime error", "crash", "start"):
        steps.append({"check": "all"})  # the state checks (and the replay) fail here
    doc["steps"] = steps
    head = ("# Written by rulespec fuzz: replays a failing game. Run: rulespec test THIS_FILE\n"
            f"# {failure.check}: {failure.message}\n")
    return head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)


def _counterfactual_scenario(game, failure: Failure, options: dict, base_dir: Path,
                             confirm: Optional[Path] = None) -> str:
    """Two scenarios for a counterfactual leak: the game as played, ending with a step that
    states what the viewer saw (it passes), and the same actions from the re-dealt position,
    ending with the same step (it fails while the leak is there, and passes once it is
    fixed).  The leak offers several such steps; with `confirm` (the path the file will have)
    each is tried in turn, and the first that passes as played and fails re-dealt is kept.
    (The scenario's re-deal is the check's start position, but it replays the actions plainly:
    the check also keeps the order of hands in step, so now and then no step is confirmed;
    the file says so, and the replay file reproduces the check exactly.)"""
    import yaml
    d = failure.detail
    pv = f"P{d['viewer'] + 1}"
    head = {"rules": _relative(game.path, base_dir), "players": failure.players, "seed": failure.seed}
    if options:
        head["options"] = dict(options)
    plays = [{"play": a} for a in failure.actions[:d["decision"]]]  # the views differ after these
    position = dict(d["position"])
    zones = list(position.get("zones", {}))
    if zones:
        position["rest"] = zones[0]  # every card is placed: the rest zone gets none
    name = f"fuzz: {failure.check} (game {failure.index}, seed {failure.seed})"
    dump = lambda doc: yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)  # noqa: E731

    def text(step: Optional[dict], confirmed: Optional[bool]) -> str:
        last = [step] if step is not None else []
        played = {"name": f"{name}: as played, what {pv} sees", **head,
                  "doc": f"The game as played; the last step is what {pv} sees after {d['decision']} decisions.",
                  "steps": plays + last}
        redealt = {"name": f"{name}: the cards {pv} never saw re-dealt", **head,
                   "doc": (f"The same game with the {d['redealt']} cards {pv} had not seen by decision {d['cut']} "
                           f"re-dealt (dealt so by the setup: the position gives what the setup then worked out); "
                           f"{pv} must see the same as in the game as played. "
                           f"Fails while the leak is there: {failure.message}"),
                   "position": position, "steps": plays + last}
        note = ("" if confirmed is None or confirmed else
                "# NOTE: no step was confirmed to fail in the re-dealt game; rulespec replay reproduces the check.\n")
        return ("# Written by rulespec fuzz: a counterfactual secrecy failure. Run: rulespec test THIS_FILE\n"
                f"# {failure.check}: {failure.message}\n"
                "# The first scenario is the game as played and passes; the second replays the same actions\n"
                f"# after re-dealing the cards {pv} never saw, and fails where {pv} sees something else.\n"
                + note + dump(played) + "---\n" + dump(redealt))

    steps = list(d.get("expect") or [])
    if confirm is None:
        return text(steps[0] if steps else None, None)
    from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
    for step in steps:
        candidate = text(step, True)
        confirm.write_text(candidate, encoding="utf-8")
        try:
            as_played, redealt = load_file(confirm)
            run_scenario(as_played)
        except Exception:  # noqa: BLE001 - this step does not hold as played: try the next
            continue
        try:
            run_scenario(redealt)
        except ScenarioError:
            return candidate  # passes as played, fails re-dealt: the leak
        except Exception:  # noqa: BLE001
            continue
    return text(steps[0] if steps else None, False)


def write_failure(game, failure: Failure, options: dict, max_steps: int, out_dir) -> tuple[Path, Path]:
    """Write NAME.replay.json and NAME.yaml into out_dir; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{_slug(Path(game.path).stem, 20)}-{_slug(failure.check)}-seed{failure.seed}"
    rj, sy = out / f"{stem}.replay.json", out / f"{stem}.yaml"
    rj.write_text(json.dumps(replay_record(game, failure, options, max_steps, out), indent=1) + "\n",
                  encoding="utf-8")
    if failure.check == COUNTERFACTUAL and failure.detail:
        sy.write_text(_counterfactual_scenario(game, failure, options, out, confirm=sy), encoding="utf-8")
    else:
        sy.write_text(scenario_text(game, failure, options, out, max_steps), encoding="utf-8")
    return rj, sy


REPLAY_FIELDS = {"game": str, "rules": str, "players": int, "seed": int, "options": dict, "actions": list}


def read_replay(path) -> dict:
    """Read and validate a replay file (FuzzError with a one-line reason if it is not one)."""
    p = Path(path)
    if p.is_dir():
        raise FuzzError(f"{path} is a directory, not a replay file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FuzzError(f"no replay file at {path}") from None
    except UnicodeDecodeError:
        raise FuzzError(f"{path} is not a replay file (not text)") from None
    return replay_from_text(text, path)


def replay_from_text(text: str, path) -> dict:
    """Validate a replay file's text (`path` names it in the messages): the checks of read_replay."""
    try:
        d = json_loads(text)
    except json.JSONDecodeError as e:
        raise FuzzError(f"{path} is not a replay file (bad JSON at line {e.lineno}: {e.msg})") from None
    if not isinstance(d, dict) or d.get("format") != REPLAY_FORMAT:
        raise FuzzError(f"{path} is not a replay file written by rulespec fuzz")
    for key, t in REPLAY_FIELDS.items():
        if not isinstance(d.get(key), t) or (t is int and isinstance(d.get(key), bool)):
            raise FuzzError(f"{path}: the replay's '{key}' is missing or is not a {t.__name__}")
    if not all(isinstance(a, str) for a in d["actions"]):
        raise FuzzError(f"{path}: the replay's actions must be texts")
    version = d.get("version")
    if version != REPLAY_VERSION or isinstance(version, bool):
        raise FuzzError(f"{path}: a replay file of version {version!r}; this rulespec reads version {REPLAY_VERSION}")
    if "max_steps" in d and (not isinstance(d["max_steps"], int) or isinstance(d["max_steps"], bool)
                             or d["max_steps"] < 1):
        raise FuzzError(f"{path}: the replay's 'max_steps' must be a whole number of at least 1, "
                        f"not {d['max_steps']!r} (a corrupt file?)")
    if d.get("then", "stop") not in ("stop", "first"):
        raise FuzzError(f"{path}: the replay's 'then' is \"stop\" or \"first\", not {d['then']!r}")
    cf = d.get("counterfactual")
    if cf is not None:
        v = cf.get("viewer") if isinstance(cf, dict) else None
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < d["players"]:
            raise FuzzError(f"{path}: the replay's 'counterfactual' must give a 'viewer' seat from 0 to "
                            f"{d['players'] - 1} (a corrupt file?)")
    f = d.get("failure")
    if f is not None and not (isinstance(f, dict) and isinstance(f.get("check"), str)):
        raise FuzzError(f"{path}: the replay's 'failure' is malformed")
    if f is not None and "decisions" in f:
        n = f["decisions"]
        if not isinstance(n, int) or isinstance(n, bool) or n != len(d["actions"]):
            # e.g. a file whose actions were cut: replaying it would wrongly say the failure is gone
            raise FuzzError(f"{path}: the recorded failure came after {n!r} decisions but the file holds "
                            f"{len(d['actions'])} actions (an incomplete or corrupt file)")
    return d


def replay_rules_path(d: dict, replay_path) -> str:
    rules = Path(d["rules"])
    if not rules.is_absolute():
        rules = Path(replay_path).parent / rules
    return os.path.normpath(rules)


def check_replay_game(d: dict, game, path) -> None:
    """The replay must be of this game and of this version of its rules."""
    if d["game"] != game.name:
        raise FuzzError(f"{path} is a replay of {d['game']}, but {game.path} is {game.name}")
    sha = d.get("rules_sha256")
    if sha is not None and sha != game.source_hash:
        raise FuzzError(f"{path} was recorded with a different version of {game.path} "
                        f"(the rules changed since; the recorded actions may no longer apply)")
    model = game.model
    if not model.min_players <= d["players"] <= model.max_players:
        raise FuzzError(f"{path}: a replay for {d['players']} players, but {game.name} is for "
                        f"{model.min_players}-{model.max_players} (a corrupt file?)")


def run_replay(game, d: dict, on_step: Optional[Callable] = None) -> Outcome:
    """Replay a replay file's actions with every check (and the counterfactual secrecy check
    for the seat the file names, if it names one).  A recorded action that is not legal any
    more stops the replay with the failure "replay diverged"."""
    options = {k: game.parse_option(k, v) for k, v in d["options"].items()}
    max_steps = d.get("max_steps") if isinstance(d.get("max_steps"), int) else default_max_steps(game.model)
    diverged: list = []
    pick = text_picker(d["actions"], on_step, diverged, then_first=d.get("then") == "first")
    viewer = (d.get("counterfactual") or {}).get("viewer")
    out = play_game(game, d["players"], d["seed"], options, pick, max_steps, viewer=viewer)
    if diverged and out.failure is None:
        out.failure = ("replay diverged", diverged[0])
    return out


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
    rules: list       # [(Rule, count)]

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
