"""The machine that runs blocks as frames, and the engine's own blocks.

``run(st)`` runs the top frame of ``st.frames`` step by step (see blocks.py) until no frame
is left, a decision is pending (``st.pending``), or the game is over.  Nothing here uses
Python's call stack to wait: an event inside a trigger inside a window is three frames, so
deep chains of events never reach Python's recursion limit, and everything stays plain data.

The engine's own blocks, installed first in every Program:
  * EMIT_BLOCK     -- runs an event's triggers, timing by timing (before, on, after),
                      carrying the event's record (see events.py);
  * WINDOWS_BLOCK  -- runs the response stack down to a depth: asks players in the window of
                      the top entry, resolves it when everyone has declined, and so on;
  * AFTER_RESPONSE -- after a response: if it stacked nothing, the window asks the next player.
"""
from __future__ import annotations

from .events import jobs_for, trigger_env
from .frames import AFTER_RESPONSE_BLOCK, EMIT_BLOCK, SUSPEND, TIMINGS, WINDOWS_BLOCK, CBlock
from .names import unique
from .windows import open_window, should_ask


def run(st) -> None:
    """Run frames until none is left, a decision is pending, or the game is over."""
    frames = st.frames
    blocks = st.prog.blocks
    while frames:
        if st.pending is not None:
            return
        f = frames[-1]
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
    prog.blocks.append(CBlock(EMIT_BLOCK, "an event's triggers", [_emit_step, _back_to(0)]))
    prog.blocks.append(CBlock(WINDOWS_BLOCK, "the response stack", [_windows_step, _back_to(0)]))
    prog.blocks.append(CBlock(AFTER_RESPONSE_BLOCK, "after a response", [_after_response]))


def _back_to(k: int):
    return lambda st, env: k


_DONE = 2  # the step after both steps of the looping engine blocks: the frame ends


# ---------------------------------------------------------------------- events
def _emit_step(st, env):
    rec = env["rec"]
    prog = st.prog
    while True:
        jobs = env["jobs"]
        if jobs is None:
            t = env["t"]
            if not env.get("counted"):  # once per event, whatever timing it starts at
                env["counted"] = True
                if st.cov is not None:
                    st.cov["event:" + env["ev"]] += 1
            if t >= 3 or rec["prevented"]:
                if env["ret"] is not None:
                    st.frames[env["caller"]][2][env["ret"]] = rec
                return _DONE
            jobs = env["jobs"] = jobs_for(st, env["ev"], TIMINGS[t], rec)
            env["i"] = 0
        i = env["i"]
        if i >= len(jobs) or rec["prevented"]:
            env["jobs"] = None
            env["t"] += 1
            continue
        owner = jobs[i][2]
        if owner >= 0 and env.get("ordered") != i:
            group = 1
            while i + group < len(jobs) and jobs[i + group][2] == owner and jobs[i + group][0] == jobs[i][0]:
                group += 1
            if group >= 2:  # one player's cards trigger together: that player says which goes first
                if "pick" not in env:
                    texts = unique([f"{prog.trigger_list[j[1]].name} of {prog.card_label(st, j[3])} first"
                                    for j in jobs[i:i + group]])
                    st.pending = {"kind": "choice", "who": owner, "target": "pick", "options": list(range(group)),
                                  "texts": texts,
                                  "prompt": "several of your abilities trigger at once: which goes first?",
                                  "optional": False}
                    return SUSPEND
                k = env.pop("pick")
                jobs.insert(i, jobs.pop(i + k))
            env["ordered"] = i
        env["i"] = i + 1
        trig = prog.trigger_list[jobs[i][1]]
        if st.cov is not None:
            st.cov["trigger:" + trig.name] += 1
        st.frames.append([trig.body, 0, trigger_env(trig, jobs[i], rec, len(st.frames) - 1)])
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
            st.pending = {"kind": "window", "who": p, "eid": top}
            st._legal = st._legal_map = None  # listed again with the window's own "no response"
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
        st.frames[wf][2]["idx"] += 1  # the response stacked nothing: ask the next player
    return None


def describe_frames(st) -> str:
    """The running blocks, innermost last (for error messages)."""
    names = [st.prog.blocks[f[0]].name for f in st.frames]
    return " > ".join(names[-3:]) if names else ""


