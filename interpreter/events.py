"""Events: which triggers run when an event is emitted, in which order, with what locals.

An emitted event is one record (its parameters and ``prevented``) that passes through three
timings, ``before``, ``on`` and ``after``.  At the start of each timing the triggers of that
timing whose conditions hold are listed (conditions are read then, before any of them runs;
an optional trigger's again as its question comes, machine._still_holds);
each then runs with the record's fields as locals, sees what earlier triggers changed, and
writes back what it changes (blocks.trigger_epilogue).  ``prevent`` stops the event: no later
trigger runs, in any timing, and the emitter reads ``prevented``.

Order within a timing: triggers without a player first, in declaration order; then by
player, the acting player first and then clockwise -- for each player the rules' triggers
for that player (declaration order), then the triggers of cards that player owns, whose
order that player chooses when there are several (machine._emit_step asks).

A job is plain data: [player offset, trigger index, owner or -1, the card or None,
the value of the trigger's 'for' variable or None].

Optional triggers (``optional "prompt"``) ask before their body runs.  One carried by a card
that another player cannot see (a face-down card in its owner's zone) must not give the card
away by the mere fact its owner is asked: such triggers become *secret jobs*
``[player offset, SECRET, player, None, [[trigger index, card], ...]]``, one per player who
*could* hold one (``secret_candidates``), whether or not they do: each is asked the same
generic question, with "no" always an option (machine._emit_step asks).  A secret job stands
after that player's other jobs and takes no part in ordering their cards' triggers.

How the triggers are found is decided once per game's options (trigger_plans.py): only those
that can run in this game are read; a card's trigger whose condition names its player
(``p == owner``: owner_keys.py) is looked for among that player's cards only (card_index.py);
the head of a condition that is alike for every copy is read once.  Every condition read draws
no random number, so reading fewer of them, or in another order, lists the same jobs.
"""
from __future__ import annotations

from .abilities import could_apply, face_down_holders, face_down_in, instances
from .frames import EMIT_BLOCK
from .owner_keys import key_player
from .static_conditions import live_copies, live_only
from .trigger_plans import plans_for

SECRET = -1  # the trigger index of a secret job (see the module's docstring)


def jobs_for(st, plan, rec: dict) -> list:
    """The jobs of one timing of an event (plan: trigger_plans.Plan) with this record."""
    others, groups = plan.others, plan.groups
    first = st.active if st.active is not None else 0
    n = st.n
    jobs = []
    base = dict(rec)
    base.pop("prevented", None)
    fired: list = []  # (trigger, card, owner) of the cards' triggers whose conditions hold
    for t in others:
        if t.ability is not None:
            _card_trigger(st, t, base, fired)
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
    for g in groups:
        _group(st, g, base, fired)
    secret = None  # player -> [[trigger index, card], ...]: optional triggers of face-down cards firing now
    for t, c, owner in fired:
        if t.optional is not None and not st.is_revealed(c):
            secret = secret if secret is not None else {}
            secret.setdefault(owner, []).append([t.index, c])
        else:
            jobs.append([(owner - first) % n, t.index, owner, c, None])
    if len(jobs) > 1:
        jobs.sort(key=_job_order)
    if plan.optional or plan.secret_groups:
        candidates = secret_candidates(st, plan, base)
        if secret:
            for uses in secret.values():
                uses.sort()  # declaration order, then the card's
        if candidates or secret:
            add_secret_jobs(st, jobs, secret or {}, candidates, first)
    return jobs


def _job_order(j: list) -> tuple:
    """Rules' triggers before cards' triggers of the same player; declaration order otherwise
    (copies of one card in the order of their ids)."""
    return j[0], j[2] >= 0, j[1], j[3]


def _card_trigger(st, t, base: dict, fired: list) -> None:
    """A card's trigger read copy by copy (its condition does not say whose card it is)."""
    ab = t.ability
    if not (t.pure and ab.pure):
        for c, owner in instances(st, ab):
            if t.when is None or t.when(st, {**base, "owner": owner, "self": c}):
                fired.append((t, c, owner))
        return
    # the trigger's own condition first: it fails for most cards
    when, group, works_in, guard = t.when, ab.when, ab.slots, t.guard
    if t.guard_first:  # (it cannot fail: read before looking for copies)
        if not guard(st, base):
            return
        guard = None
    where, slots, n = st.where, st.prog.slots, st.n
    copies = ab.copies if ab.fixed is None else (st.opts.live.get(ab.key) or live_copies(st, ab))
    for c in copies:  # (abilities.placed, written out: this runs for every event)
        zi = where[c]
        if zi not in works_in:
            continue
        owner = slots[zi].owner
        if owner is None or owner >= n:
            continue
        if guard is not None:  # the part of `when` alike for all copies, read at the first
            if not guard(st, base):
                return
            guard = None
        env = dict(base)
        env["owner"], env["self"] = owner, c
        if (when is None or when(st, env)) and (group is None or group(st, env)):
            fired.append((t, c, owner))


def _group(st, g, base: dict, fired: list) -> None:
    """The triggers of a group (trigger_plans.py): only the cards of the player their conditions
    name.  Their conditions draw no random number: the order they are read in changes nothing."""
    p = base[g.field]
    if g.owner_zones is not None:
        p = key_player(st, p, g.owner_zones)
    for _, c, t in g.index.placed(st, p):
        env = dict(base)
        env["owner"], env["self"] = p, c
        when, group = t.when, t.ability.when
        if (when is None or when(st, env)) and (group is None or group(st, env)):
            fired.append((t, c, p))


def secret_candidates(st, plan, base: dict) -> set:
    """The players who could hold a face-down card whose optional trigger fires now: they own a
    zone where such a card works that holds a card hidden from someone, and the trigger's
    conditions hold for them, read for a copy of the card ("were their hidden card this one,
    would it fire?").  Only who they are and what is public decides it, never which card.
    (plan: trigger_plans.Plan, whose optional triggers are read.)"""
    out: set = set()
    n = st.n
    for g in plan.secret_groups:  # only the player their conditions name can be asked (owner_keys.py)
        p = base[g.field]
        if g.owner_zones is not None:
            p = key_player(st, p, g.owner_zones)
        zs = g.index.zones_of.get(p)
        if zs is None or p >= n or p in out or not face_down_in(st, zs):
            continue
        hidden: dict = {}  # the zones of p's where a trigger works -> is a face-down card there?
        for t in g.triggers:
            ab = t.ability
            mine = ab.by_owner.get(p)
            if mine is None:
                continue
            down = hidden.get(mine)
            if down is None:
                down = hidden[mine] = face_down_in(st, mine)
            if down and could_apply(st, ab, p, t.when, base, True):
                out.add(p)
                break
    holders: dict = {}  # an ability's zones -> who has a face-down card there (many triggers share them)
    for t in plan.optional:
        ab = t.ability
        players = holders.get(ab.slots)
        if t.guard_first:  # the part of `when` alike for all players, that cannot fail: first
            if not t.guard(st, base):
                continue
        elif t.guard is not None:  # ... that may fail: read for the first player asked, as `when` would
            if players is None:
                first = face_down_holders(st, ab, out)
            else:
                first = [p for p in players if p not in out]
            if not first or not t.guard(st, base):
                continue
        if players is None:
            players = holders[ab.slots] = face_down_holders(st, ab)
        for p in players:
            if p not in out and could_apply(st, ab, p, t.when, base, t.pure and ab.pure):
                out.add(p)
    return out


def add_secret_jobs(st, jobs: list, real: dict, candidates: set, first: int) -> None:
    """One secret job per player asked, after that player's other jobs.  A player who holds a
    real one is asked even if the counterfactual reading said no (a condition that reads where
    its card is: the checker warns about those)."""
    n = st.n
    for p in sorted(candidates | set(real), key=lambda p: (p - first) % n):
        offset = (p - first) % n
        k = len(jobs)
        while k > 0 and jobs[k - 1][0] > offset:
            k -= 1
        jobs.insert(k, [offset, SECRET, p, None, real.get(p, [])])


def secret_room(st, key: tuple, p: int, rec: dict) -> int:
    """How many uses of face-down cards' optional triggers player p could make at this timing, as
    the others can reckon it: p's face-down cards in zones where one of these triggers works and
    whose conditions hold for p when read for a copy of the card (as secret_candidates reads
    them), times the most such triggers one card has.  A player who has used fewer is asked
    again (machine._secret_job), so whether they are asked depends on how many face-down cards
    they hold and where, never on which."""
    base = {k: v for k, v in rec.items() if k != "prevented"}
    zones: set = set()
    per_card: dict = {}
    for t in live_only(st, ("secret", key), st.prog.secret_at.get(key, [])):
        ab = t.ability
        mine = ab.by_owner.get(p)
        if mine is None or not face_down_in(st, mine) or not could_apply(st, ab, p, t.when, base):
            continue
        zones |= mine
        per_card[ab.card] = per_card.get(ab.card, 0) + 1
    if not zones:
        return 0
    down = sum(not st.is_revealed(c) for zi in zones for c in st.zones[zi])
    return down * max(per_card.values())


def trigger_env(t, job: list, rec: dict, runner: int) -> dict:
    env = {k: v for k, v in rec.items() if k != "prevented"}
    if t.ability is not None:
        env["owner"], env["self"] = job[2], job[3]
    elif t.for_var is not None:
        env[t.for_var] = job[4]
    env["$rf"] = runner
    return env


def first_jobs(st, event: str, rec: dict, t: int = 0) -> tuple:
    """(timing, jobs) of the first timing from t on with jobs, or (3, None): what the event's
    frame would list first if it started now (machine._emit_step).  An emit that is run at once
    calls it: when no trigger runs, no timing can change what the next one lists, so an event
    nobody answers needs no frame at all (blocks.py)."""
    plans = plans_for(st, event)
    while t < 3:
        plan = plans[t]
        if plan is not None:
            jobs = jobs_for(st, plan, rec)
            if jobs:
                return t, jobs
        t += 1
    return 3, None


def emit_frame(event: str, rec: dict, t: int, jobs: list, ret, caller: int) -> list:
    """The frame of an event whose first jobs (at timing t) are listed already: as _emit_step
    leaves it once it has listed them."""
    return [EMIT_BLOCK, 0, {"ev": event, "rec": rec, "t": t, "jobs": jobs, "i": 0, "ret": ret,
                            "caller": caller, "counted": True}]


def emit_now(st, event: str, rec: dict, runs_next: bool = False) -> None:
    """Push the frame that runs an event's triggers (the engine's own events: phase_start, ...).
    runs_next: the frame would run before anything else happens, so its first jobs may be listed
    now, and no frame is pushed when there are none (first_jobs)."""
    rec["prevented"] = False
    frames = st.frames
    t = 1 if event in _ENGINE_EVENTS else 0
    if runs_next:
        if st.cov is not None:
            st.cov["event:" + event] += 1
        t, jobs = first_jobs(st, event, rec, t)
        if jobs is not None:
            frames.append(emit_frame(event, rec, t, jobs, None, len(frames) - 1))
        return
    frames.append([EMIT_BLOCK, 0, {"ev": event, "rec": rec, "t": t, "jobs": None, "i": 0, "ret": None,
                                   "caller": len(frames) - 1}])


_ENGINE_EVENTS = {"phase_start", "phase_end", "action_taken", "moved"}
