"""Playing one checked game: play_game runs every check before each decision and at the end
and stops at the first failure; the pickers that choose its moves (an agent, a list of
choices, a list of action texts); StateCheckSchedule, which decisions get the costly checks.

What each game checks, before every decision and at the end (see rulespec/tools/fuzzing/checks.py):
cards conserved, the rules' invariants, a running game has a legal action and someone to
act, the JSON round trip, secrecy of observations and legal actions; here besides: the
previous action, once it is no longer legal, is refused (and refusing it changes nothing),
the game ends within ``max_steps`` decisions, a rules runtime error or an engine crash
is a failure, and replaying the seed and the history gives the same final state.  After a
game that passed all of that, the counterfactual secrecy check (rulespec/tools/fuzzing/secrecy.py)
compares one player's view of it with that player's view of re-deals of the cards they
never saw (the viewer cycles over the games; ``counterfactual_rate`` samples the games: see
planning.py; the viewer's trace: lazy_trace.py).
"""
from __future__ import annotations

import random
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Callable, Optional, Sequence

import attrs

from .checks import LOG_CHECK, LogMemory, _first_difference, full_round_trip_due, replay, state_problems
from interpreter.errors import EngineError, IllegalActionError
from .lazy_trace import LazyTrace
from .planning import default_max_steps
from .secrecy import CHECK as COUNTERFACTUAL, Trace, counterfactual_check


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
            if trace is not None:
                trace.act(st, action)
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
                      "redealt": leak.redealt, "position": leak.position, "expect": leak.expect,
                      "sigma": [list(p) for p in leak.sigma]}
        if leak.chosen:  # (the rivals' choices the re-deal made with its own cards: cause.py replays them)
            out.detail["chosen"] = [list(p) for p in leak.chosen]


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
