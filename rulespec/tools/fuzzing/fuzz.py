"""Fuzzing: many random games, every check at every decision, failures shrunk and saved.

The engine side of ``rulespec fuzz`` and ``rulespec replay`` (the command line in
rulespec/tools/fuzz_cli.py does all the printing).  Nothing here knows any game.  This module
is the face of the fuzzer: the names others use, gathered from its parts, one job each:

  planning.py    which games a run plays: seeds, player counts, agents, the sampled checks
  playing.py     one checked game (play_game), the pickers, which decisions get the costly checks
  lazy_trace.py  the counterfactual check's viewer's trace, its views built only when compared
  running.py     many games: batches, the backends that play them (local processes, Ray), fuzz
  shrinking.py   a failing game cut to the shortest list of choices that still fails
  results.py     what a run found: failures, totals, the summary, rule and branch coverage
  replays.py     replay files and scenarios: written, read back, replayed

A run of N games is planned up front (planning.py); games are independent, so a run's
totals -- decisions, coverage, failures -- are the same whatever the number of worker
processes or the backend that plays them.  What each game checks is in playing.py.  The
checks that cost several plays of a decision each run at a sampled share of the decisions
and games (``state_check_rate``: StateCheckSchedule), the cheap ones at every decision (the
cards incrementally: the zones the log says changed); at rate 1 everything runs everywhere,
and shrinking and replay files always use rate 1.

A game is recorded as the list of its choices, each an index into ``legal_actions()``.
Replaying a list uses ``choice % len(legal)`` at each decision and stops when the list
runs out, so any sub-list is a valid game prefix: that is what shrinking (delta
debugging, ``shrink``) works on.
"""
from __future__ import annotations

import sys
import types

from . import cause, lazy_trace, planning, playing, replays, results, running, shrinking
# the names others use (tests, the command line, stats, bench, the web table), from the parts;
# replay and state_problems (of checks.py) because tests patch them here: see _Face
from .cause import Positions, explain
from .checks import replay, state_problems
from .lazy_trace import LazyTrace
from .planning import (AGENT_KINDS, DEFAULT_AGENTS, DEFAULT_MAX_STEPS, FuzzError, GameJob, RareFirst, check_rate,
                       check_state_rate, counterfactual_viewer, default_max_steps, game_seed, make_chooser, plan,
                       sampled_games)
from .playing import (FIRST_CHECKED, Outcome, Picker, StateCheckSchedule, _refuses, agent_picker, list_picker,
                      play_game, text_picker)
from .replays import (REPLAY_FIELDS, REPLAY_FORMAT, REPLAY_VERSION, check_replay_game, read_replay, replay_from_text,
                      replay_cause, replay_record, replay_rules_path, run_replay, scenario_text, write_failure)
from .results import (MAX_LISTED, RULE_KINDS, BranchCoverage, ChunkResult, Coverage, Failure, FuzzResult, Longest,
                      Rule, branch_coverage, coverage, rule_universe)
from .running import (Backend, BackendUnavailable, LocalBackend, RayBackend, _game_from_source, _quiet_worker,
                      fuzz, make_backend, run_chunk, run_job)
from .shrinking import replay_choices, shrink

_PARTS = (planning, playing, lazy_trace, running, shrinking, results, replays)
_UNSET = object()


class _Face(types.ModuleType):
    """This module, with its names set through to its parts.  Tests patch a name here
    (monkeypatch.setattr(F, "state_problems", ...)) while the code that calls it lives in a
    part (play_game, in playing.py): setting a name here sets it too in every part that holds
    the same object under that name, so the patch reaches its caller, and undoing the patch
    puts the original back the same way."""

    def __setattr__(self, name: str, value) -> None:
        old = self.__dict__.get(name, _UNSET)
        if old is not _UNSET:
            for part in _PARTS:
                if part.__dict__.get(name, _UNSET) is old:
                    setattr(part, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Face
