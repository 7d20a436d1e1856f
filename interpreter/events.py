"""Events: which triggers run when an event is emitted, in which order, with what locals.

An emitted event is one record (its parameters and ``prevented``) that passes through three
timings, ``before``, ``on`` and ``after``.  At the start of each timing the triggers of that
timing whose conditions hold are listed (conditions are read then, before any of them runs);
each then runs with the record's fields as locals, sees what earlier triggers changed, and
writes back what it changes (blocks.trigger_epilogue).  ``prevent`` stops the event: no later
trigger runs, in any timing, and the emitter reads ``prevented``.

Order within a timing: triggers without a player first, in declaration order; then by
player, the acting player first and then clockwise -- for each player the rules' triggers
for that player (declaration order), then the triggers of cards that player owns, whose
order that player chooses when there are several (machine._emit_step asks).

A job is plain data: [player offset, trigger index, owner or -1, the card or None,
the value of the trigger's 'for' variable or None].
"""
from __future__ import annotations

from .abilities import instances
from .frames import EMIT_BLOCK


def jobs_for(st, event: str, timing: str, rec: dict) -> list:
    trigs = st.prog.triggers_at.get((event, timing))
    if not trigs:
        return []
    first = st.active if st.active is not None else 0
    n = st.n
    jobs = []
    base = {k: v for k, v in rec.items() if k != "prevented"}
    for t in trigs:
        if t.ability is not None:
            for c, owner in instances(st, t.ability):
                env = dict(base)
                env["owner"], env["self"] = owner, c
                if t.when is None or t.when(st, env):
                    jobs.append([(owner - first) % n, t.index, owner, c, None])
            continue
        if t.for_players is None:
            if t.when is None or t.when(st, base):
                jobs.append([-1, t.index, -1, None, None])
            continue
        for p in t.for_players(st, base):
            env = dict(base)
            env[t.for_var] = p
            if t.when is None or t.when(st, env):
                jobs.append([(p - first) % n, t.index, -1, None, p])
    # rules' triggers before cards' triggers of the same player; declaration order otherwise
    jobs.sort(key=lambda j: (j[0], j[2] >= 0, j[1]))
    return jobs


def trigger_env(t, job: list, rec: dict, runner: int) -> dict:
    env = {k: v for k, v in rec.items() if k != "prevented"}
    if t.ability is not None:
        env["owner"], env["self"] = job[2], job[3]
    elif t.for_var is not None:
        env[t.for_var] = job[4]
    env["$rf"] = runner
    return env


def emit_now(st, event: str, rec: dict) -> None:
    """Push the frame that runs an event's triggers (the engine's own events: phase_start, ...)."""
    rec["prevented"] = False
    frames = st.frames
    frames.append([EMIT_BLOCK, 0, {"ev": event, "rec": rec, "t": 1 if event in _ENGINE_EVENTS else 0,
                                   "jobs": None, "i": 0, "ret": None, "caller": len(frames) - 1}])


_ENGINE_EVENTS = {"phase_start", "phase_end", "action_taken", "moved"}
