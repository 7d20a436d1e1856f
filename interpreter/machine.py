"""The machine that runs blocks as frames, and the engine's own blocks.

``run(st)`` runs the top frame of ``st.frames`` step by step (see blocks.py) until no frame
is left, a decision is pending (``st.pending``), or the game is over.  Nothing here uses
Python's call stack to wait: an event inside a trigger inside a window is three frames, so
deep chains of events never reach Python's recursion limit, and everything stays plain data.

The engine's own blocks, installed first in every Program:
  * EMIT_BLOCK     -- runs an event's triggers, timing by timing (before, on, after),
                      carrying the event's record (see events.py); asks a player the order
                      of their cards' triggers, an optional trigger's question, and the one
                      question about their face-down cards' optional triggers;
  * WINDOWS_BLOCK  -- runs the response stack down to a depth: asks players in the window of
                      the top entry, resolves it when everyone has declined, and so on;
  * AFTER_RESPONSE -- after a response: if it stacked nothing, the window asks the next player.
"""
from __future__ import annotations

from .abilities import face_down_holders
from .events import SECRET, jobs_for, secret_room, trigger_env
from .frames import AFTER_RESPONSE_BLOCK, EMIT_BLOCK, SUSPEND, TIMINGS, WINDOWS_BLOCK, CBlock
from .names import unique
from .static_conditions import live_only
from .trigger_plans import plans_for
from .windows import open_window, should_ask


def run(st) -> None:
    """Run frames until none is left, a decision is pending, or the game is over."""
    frames = st.frames
    blocks = st.prog.blocks
    while frames:
        if st.pending is not None:
            return
        f = frames[-1]
        if st._fshared:  # shared with a clone: this state's own copy runs on (copy_on_write.py)
            f = st.own_frame(-1)
        steps = blocks[f[0]].steps
        pc, env = f[1], f[2]
        n = len(steps)
        while pc < n:
            r = steps[pc](st, env)
            if r is None:
                pc += 1
            elif r is SUSPEND:
                f[1] = pc + 1
                break
            else:
                pc = r
        else:
            frames.pop()


def install_engine_blocks(prog) -> None:
    assert not prog.blocks
    prog.blocks.append(CBlock(EMIT_BLOCK, "an event's triggers", [_emit_step, _back_to(0)], resumes=frozenset([0, 1])))
    prog.blocks.append(CBlock(WINDOWS_BLOCK, "the response stack", [_windows_step, _back_to(0)],
                              resumes=frozenset([0, 1])))
    prog.blocks.append(CBlock(AFTER_RESPONSE_BLOCK, "after a response", [_after_response]))


def _back_to(k: int):
    return lambda st, env: k


_DONE = 2  # the step after both steps of the looping engine blocks: the frame ends


# ---------------------------------------------------------------------- events
def _emit_step(st, env):
    rec = env["rec"]
    while True:
        jobs = env["jobs"]
        if jobs is None:
            t = env["t"]
            if not env.get("counted"):  # once per event, whatever timing it starts at
                env["counted"] = True
                if st.cov is not None:
                    st.cov["event:" + env["ev"]] += 1
            plans = plans_for(st, env["ev"])
            while t < 3 and plans[t] is None:  # a timing no trigger can run at: nothing to list
                t += 1
            env["t"] = t
            if t >= 3 or rec["prevented"]:
                if env["ret"] is not None:
                    caller = env["caller"]
                    (st.frame_env(caller) if st._fshared else st.frames[caller][2])[env["ret"]] = rec
                return _DONE
            jobs = env["jobs"] = jobs_for(st, plans[t], rec)
            env["i"] = 0
        i = env["i"]
        if i >= len(jobs) or rec["prevented"]:
            env["jobs"] = None
            env["t"] += 1
            if "secret_asked" in env:  # (the next timing's jobs are numbered afresh)
                env.pop("secret_asked")
                env.pop("secret_used", None)
            continue
        r = _secret_job(st, env, jobs[i]) if jobs[i][1] == SECRET else _job(st, env, jobs, i)
        if r is not None:
            return r


def _job(st, env, jobs: list, i: int):
    """Run job i (after its player has ordered their cards' triggers and answered an optional
    trigger's question); None when it is skipped."""
    if jobs[i][2] >= 0 and env.get("ordered") != i:
        if _ask_order(st, env, jobs, i):
            return SUSPEND
        env["ordered"] = i
    job = jobs[i]
    trig = st.prog.trigger_list[job[1]]
    if trig.optional is not None:
        if "answer" not in env:
            if not _still_holds(st, trig, job, env["rec"]):
                env["i"] = i + 1  # an earlier trigger of this timing changed things: no question left
                return None
            _ask_optional(st, trig, job, env["rec"])
            return SUSPEND
        if not env.pop("answer"):
            env["i"] = i + 1
            return None
    env["i"] = i + 1
    return _run_trigger(st, trig, job, env["rec"])


def _ask_order(st, env, jobs: list, i: int) -> bool:
    """When one player's cards trigger together, that player says which goes first (secret
    jobs take no part).  Alike jobs -- one trigger of alike copies of a card (same name, same
    values) in one zone, which no rule tells apart -- are one option: their order cannot matter,
    and when all of them are alike nobody is asked.  True: the question is asked now."""
    owner, offset = jobs[i][2], jobs[i][0]
    group = 1
    while i + group < len(jobs) and jobs[i + group][2] == owner and jobs[i + group][0] == offset \
            and jobs[i + group][1] != SECRET:
        group += 1
    if group < 2:
        return False
    if "pick" not in env:
        firsts = _unlike(st, jobs[i:i + group])
        if len(firsts) < 2:
            return False
        texts = unique(_order_texts(st, [jobs[i + k] for k in firsts]))
        st.pending = {"kind": "choice", "who": owner, "target": "pick", "options": firsts,
                      "texts": texts, "prompt": "several of your abilities trigger at once: which goes first?",
                      "optional": False}
        return True
    k = env.pop("pick")
    jobs.insert(i, jobs.pop(i + k))
    return False


def _order_texts(st, jobs: list) -> list:
    """"NAME of CARD first" for each job; a card shown alike in two zones says which is which
    ("spark of Spark (reserve) first")."""
    prog = st.prog
    shown = [(prog.trigger_list[j[1]].name, prog.card_label(st, j[3])) for j in jobs]
    zones: dict = {}
    for (name, label), j in zip(shown, jobs):
        zones.setdefault((name, label), set()).add(st.where[j[3]])
    return [f"{name} of {label}{f' ({prog.slot_zone[st.where[j[3]]]})' if len(zones[name, label]) > 1 else ''} first"
            for (name, label), j in zip(shown, jobs)]


def _unlike(st, jobs: list) -> list:
    """The places in jobs (one player's cards' jobs) of the first of each kind of alike jobs: the
    same trigger of copies of one kind (card_kind: same name and values) in the same zone."""
    kind, where = st.prog.card_kind, st.where
    seen, firsts = set(), []
    for k, j in enumerate(jobs):
        key = (j[1], kind[j[3]], where[j[3]])
        if key not in seen:
            seen.add(key)
            firsts.append(k)
    return firsts


def _still_holds(st, trig, job: list, rec: dict) -> bool:
    """An optional trigger's conditions, read again as its question comes (they were read when the
    timing started; an earlier trigger may have ended what it asks about, say its owner's life)."""
    tenv = trigger_env(trig, job, rec, len(st.frames) - 1)
    ab = trig.ability  # (its game-fixed part held when the trigger was listed, and still does)
    if ab is not None and ab.when is not None and not ab.when(st, tenv):
        return False
    return trig.when is None or trig.when(st, tenv)


def _ask_optional(st, trig, job: list, rec: dict) -> None:
    """An optional trigger of a card everyone can see (or of the rules, for a player): its
    card's owner, or the player of its 'for', says yes or no."""
    tenv = trigger_env(trig, job, rec, len(st.frames) - 1)
    who = job[2] if trig.ability is not None else job[4]
    st.pending = {"kind": "choice", "who": who, "target": "answer", "options": [True, False], "texts": ["yes", "no"],
                  "prompt": trig.optional(st, tenv), "optional": False, "param": "bool"}


def _secret_job(st, env, job: list):
    """A player who could hold face-down cards with optional triggers that fire now: asked which
    to use (or "no"); after a use, asked again while the others could reckon they have one left
    (events.secret_room: public facts and the number of uses only), whether or not they do, so
    being asked again gives away nothing about their other face-down cards.  None when done."""
    if "use" not in env:
        if env.get("secret_asked") != env["i"]:  # the first question of this job
            if not _still_face_down(st, env, job):
                env["i"] += 1  # meanwhile their face-down cards were all revealed (say, at their death)
                return None
            env["secret_asked"], env["secret_used"] = env["i"], []
        elif not _may_use_more(st, env, job):  # back from a use
            env["i"] += 1
            return None
        _ask_secret(st, env, job)
        return SUSPEND
    k = env.pop("use")
    if k < 0:
        env["i"] += 1
        return None
    tix, card = job[4].pop(k)
    env.setdefault("secret_used", []).append(card)
    trig = st.prog.trigger_list[tix]
    return _run_trigger(st, trig, [job[0], tix, job[2], card, None], env["rec"])


def _may_use_more(st, env, job: list) -> bool:
    """After a use: could the player, as the others reckon it, have another one left?  Yes while
    they have used fewer cards still face down than they could (events.secret_room), or a card
    their uses revealed has a trigger left (everyone sees that card).  (Or while they do hold
    one: a condition that reads where its card lies is read for the real card too, as when the
    jobs were listed -- the checker warns about those.)"""
    p, slots, shown = job[2], st.prog.slots, st.is_revealed
    job[4] = uses = [u for u in job[4] if slots[st.where[u[1]]].owner == p]
    if any(shown(c) for _, c in uses):
        return True
    hidden_used = sum(not shown(c) for c in env.get("secret_used", ()))
    key = (env["ev"], TIMINGS[env["t"]])
    return hidden_used < secret_room(st, key, p, env["rec"]) or bool(uses)


def _still_face_down(st, env, job: list) -> bool:
    """Does the player of a secret job still hold a face-down card where one of this timing's
    optional triggers works?  (Jobs are listed when the timing starts; an earlier trigger may have
    revealed their cards since.)  Public facts only, like events.secret_candidates."""
    p, slots = job[2], st.prog.slots
    job[4] = [u for u in job[4] if not st.is_revealed(u[1]) and slots[st.where[u[1]]].owner == p]
    key = (env["ev"], TIMINGS[env["t"]])
    return any(p in face_down_holders(st, t.ability)
               for t in live_only(st, ("secret", key), st.prog.secret_at.get(key, [])))


def _ask_secret(st, env, job: list) -> None:
    """The same question whoever is asked and whatever they hold: the prompt names the timing
    and the event only; the options name the player's own cards (only they see them)."""
    prog = st.prog
    who, uses = job[2], job[4]
    texts = [f"use {prog.trigger_list[tix].name} of {_seen_as(st, c, who)}" for tix, c in uses] + ["no"]
    st.pending = {"kind": "choice", "who": who, "target": "use", "options": list(range(len(uses))) + [-1],
                  "texts": unique(texts), "optional": False,
                  "prompt": f"abilities of face-down cards ({TIMINGS[env['t']]} {env['ev'].replace('_', ' ')})",
                  "named": [[c] for _, c in uses] + [[]]}  # the cards each answer names (the log masks them)


def idle_secret_ask(st) -> bool:
    """Is the engine asking a player about abilities of face-down cards they do not hold (the
    only answer is "no")?  Scenarios may answer such asks for themselves."""
    p = st.pending
    return p is not None and p.get("target") == "use" and "named" in p and p["options"] == [-1]


def _seen_as(st, c: int, who: int) -> str:
    """A card as `who` knows it (a card in a zone hidden even from its owner stays unnamed)."""
    return st.prog.card_label(st, c) if st.can_see_card(c, who) else "a face-down card"


def _run_trigger(st, trig, job: list, rec: dict):
    if st.cov is not None:
        st.cov["trigger:" + trig.name] += 1
    st.frames.append([trig.body, 0, trigger_env(trig, job, rec, len(st.frames) - 1)])
    return SUSPEND


# ---------------------------------------------------------------------- the response stack
def _windows_step(st, env):
    """One turn of the response stack: ask the next player of the top entry's window, or
    resolve the top entry when everyone asked has declined."""
    stack = st.stack
    if len(stack) <= env["depth"]:
        if not stack:
            st.turn_active = None
        return _DONE
    top = stack[-1]
    if st.turn_active is None:
        st.turn_active = st.active
    if env.get("eid") != top:  # a new top entry: a new window
        env["eid"] = top
        env["order"] = open_window(st, top)
        env["idx"] = 0
    order, idx = env["order"], env["idx"]
    while idx < len(order):
        p = order[idx]
        st.active = p
        st._legal = None
        if should_ask(st, top, p):
            env["idx"] = idx
            listed = st._legal  # p's responses, listed by should_ask (nothing has changed since)
            st.pending = {"kind": "window", "who": p, "eid": top}
            st._legal_map = None
            st._legal = st.with_no_response(listed) if listed is not None else None
            return SUSPEND
        idx += 1
    env["idx"] = idx
    # everyone asked declined: the top entry resolves (last in, first out)
    st._legal = st._legal_map = None
    stack.pop()
    env["eid"] = None  # the entry below gets a window of its own again
    e = st.entry(top)
    st.active = st.turn_active
    eff = st.prog.effects[e[1]]
    st.log.append(["resolve", top, e[1], e[6]])
    if st.cov is not None:
        st.cov[("cancelled:" if e[6] else "effect:") + e[1]] += 1
    block = eff.cancelled if e[6] else eff.resolve
    st.frames.append([AFTER_RESPONSE_BLOCK, 0, {"resolved": top}])
    if block is not None:
        st.frames.append([block, 0, {"this": top}])
    return SUSPEND


def _after_response(st, env):
    """After a response's effect, or after an entry resolved."""
    if "resolved" in env:
        st.turn_active = st.active  # a resolving effect may have changed whose turn it is
        return None
    wf = env["wf"]
    if st.stack and st.stack[-1] == env["top"] and len(st.stack) == env["depth"]:
        (st.frame_env(wf) if st._fshared else st.frames[wf][2])["idx"] += 1  # nothing stacked: the next player
    return None


def describe_frames(st) -> str:
    """The running blocks, innermost last (for error messages)."""
    names = [st.prog.blocks[f[0]].name for f in st.frames]
    return " > ".join(names[-3:]) if names else ""


