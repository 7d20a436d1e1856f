"""The running blocks of a saved state and the decision they wait for, checked against the rules.

A state saved by the engine is always at a decision (state.py): a phase awaiting its actor with
nothing running, or a block stopped for a response window or a choice.  These checks hold a
saved state to that, so that a state read back can always go on:

  * the decision: a game over has no frame, no pending decision and the stage "over"; a game
    going on with nothing pending awaits a phase's actor with no frame and no stack entry; a
    pending decision belongs to the top frame -- a window to the response stack's frame, asking
    the player its order says, about the top entry; a choice to the step that asked it;
  * the engine's own frames (machine.py): an event's frame, its record and its triggers to run,
    the response stack's frame, the frame after a response, and the links between them (a
    trigger's body reads its event's frame just below it, and so on);
  * a block's locals: only the names the block may hold (its inputs: an action's parameters, an
    effect's entry, a trigger's event fields; and the names it binds), each of its type; the
    names it has surely bound at the step it resumes at are there (blocks.py records them).

Nothing here knows any game.  The validator (serialise.py) gives `fail`, `value` and the sizes.
"""
from __future__ import annotations

from rulespec.lang import types as T

from .blocks import assigned_names
from .events import SECRET
from .frames import AFTER_RESPONSE_BLOCK, EMIT_BLOCK, TIMINGS, WINDOWS_BLOCK
from .markers import marker_count

_EMIT_NEEDS = frozenset(["ev", "rec", "t", "jobs", "i", "ret", "caller"])
_EMIT_KEYS = _EMIT_NEEDS | {"counted", "ordered", "secret_asked", "secret_used"}
_CHOICE_KEYS = frozenset(["kind", "who", "target", "options", "texts", "prompt", "optional", "param", "named"])
_ENGINE_TARGETS = ("pick", "answer", "use")  # the choices an event's frame asks (machine.py)


def check_frames(val) -> None:
    d = val.d
    frames, pending = d["frames"], d["pending"]
    if type(frames) is not list:
        val.fail("'frames' must be a list")
    blocks = val.prog.blocks
    for i, f in enumerate(frames):
        if not (type(f) is list and len(f) == 3 and type(f[0]) is int and 0 <= f[0] < len(blocks)
                and type(f[1]) is int and 0 <= f[1] <= len(blocks[f[0]].steps) and type(f[2]) is dict):
            val.fail(f"frame {i}: a running block must be [block, step, locals] of this rules file, "
                     f"not {str(f)[:80]}")
        val.need(f[1] in blocks[f[0]].resumes, f"frame {i} ({blocks[f[0]].name}) is at step {f[1]}, where it "
                                               f"cannot have stopped (it stops at steps {sorted(blocks[f[0]].resumes)})")
    _decision(val, frames, pending)
    for i, f in enumerate(frames):  # the engine's frames first: they say what the blocks await
        where = f"frame {i} ({blocks[f[0]].name})"
        if f[0] == EMIT_BLOCK:
            _emit_frame(val, frames, i, where)
        elif f[0] == WINDOWS_BLOCK:
            _windows_frame(val, f[2], where)
        elif f[0] == AFTER_RESPONSE_BLOCK:
            _after_response_frame(val, frames, i, where)
    awaited = _awaited_names(frames, pending)
    for i, f in enumerate(frames):
        if f[0] > AFTER_RESPONSE_BLOCK:
            _block_frame(val, frames, i, f"frame {i} ({blocks[f[0]].name})", awaited.get(i, ()))
    if pending is not None:
        _pending(val, frames, pending)


# ---------------------------------------------------------------------- the decision
def _decision(val, frames: list, pending) -> None:
    d = val.d
    if d["terminal"]:
        val.need(d["stage"] == "over" and not frames and pending is None and isinstance(d["winners"], list),
                 "a game that is over has the stage 'over', a list of winners, no running block and no "
                 "pending decision")
        return
    val.need(d["stage"] != "over" and d["winners"] is None,
             "a game that is not over has no winners yet and is not at the stage 'over'")
    if pending is None:
        val.need(d["stage"] == "await" and not frames and not d["stack"] and not d["entries"],
                 "nothing is pending, so the state must await a phase's actor (stage 'await') with no running "
                 "block and an empty response stack, but "
                 + ("blocks are running" if frames else "the stack holds entries" if d["stack"] or d["entries"]
                    else f"the stage is {d['stage']!r}") + " (a dropped frame or decision?)")
        return
    val.need(type(pending) is dict and pending.get("kind") in ("choice", "window"),
             "'pending' must be a choice or a response window")
    val.need(bool(frames), "a decision is pending but no block is running")
    val.player(pending.get("who"), "the player deciding", nullable=False)


def _awaited_names(frames: list, pending) -> dict:
    """frame index -> the names a decision or a frame above it will write when it is done: the
    answer of the pending choice, the record of an event a block emitted (``let r = emit ...``)."""
    out: dict = {}
    if pending is not None and pending.get("kind") == "choice" and frames and isinstance(pending.get("target"), str):
        out.setdefault(len(frames) - 1, set()).add(pending["target"])
    for f in frames:
        if f[0] == EMIT_BLOCK and isinstance(f[2].get("ret"), str) and type(f[2].get("caller")) is int:
            out.setdefault(f[2]["caller"], set()).add(f[2]["ret"])
    return out


# ---------------------------------------------------------------------- the engine's frames
def _emit_frame(val, frames: list, i: int, where: str) -> None:
    env = frames[i][2]
    unknown = set(env) - _EMIT_KEYS
    val.need(not unknown, f"{where}: unknown locals {sorted(unknown)} (an answer left unread?)")
    missing = _EMIT_NEEDS - set(env)
    val.need(not missing, f"{where}: the locals {sorted(missing)} are missing")
    ev = env.get("ev")
    params = val.event_params(ev) if isinstance(ev, str) else None
    val.need(params is not None, f"{where}: {ev!r} is not an event of the rules")
    rec = env.get("rec")
    val.need(type(rec) is dict and set(rec) == set(params) | {"prevented"},
             f"{where}: the record of event '{ev}' must hold its fields ({', '.join(params)}) and 'prevented'")
    val.need(type(rec["prevented"]) is bool, f"{where}: 'prevented' must be true or false")
    for name, t in params.items():
        if t is not None:
            val.value(rec[name], t, f"{where}: the field '{name}' of the event")
    t = env.get("t")
    val.int_in(t, 0, 4, f"{where}: the timing 't'")
    jobs = env.get("jobs")
    if jobs is not None:
        val.need(type(jobs) is list, f"{where}: 'jobs' must be a list of triggers to run or null")
        for job in jobs:
            _job(val, job, ev, t, where)
        val.int_in(env.get("i"), 0, len(jobs) + 1, f"{where}: the next job 'i'")
    else:
        val.need(type(env.get("i")) is int, f"{where}: the next job 'i' must be a whole number")
    for key, kind in (("counted", bool), ("ordered", int), ("secret_asked", int), ("secret_used", list)):
        val.need(key not in env or type(env[key]) is kind, f"{where}: '{key}' must be a {kind.__name__}")
    ret, caller = env.get("ret"), env.get("caller")
    if ret is None:
        val.int_in(caller, -1, i, f"{where}: the frame that emitted the event ('caller')")
        return
    # `let r = emit ...`: the record goes back to the frame just below, which binds r
    val.need(type(ret) is str and caller == i - 1 and frames[caller][0] > AFTER_RESPONSE_BLOCK
             and ret in val.prog.blocks[frames[caller][0]].names,
             f"{where}: the record goes back to {ret!r} of frame {caller!r}, which is not a name bound by "
             f"the block just below")


def _job(val, job, ev: str, t: int, where: str) -> None:
    """A trigger to run: [player offset, trigger, owner or -1, card or None, its player or None],
    or a secret job [player offset, SECRET, player, None, [[trigger, card], ...]] (events.py)."""
    prog = val.prog
    triggers = prog.trigger_list
    bad = f"{where}: a job {str(job)[:80]} is not a trigger of this event"
    val.need(type(job) is list and len(job) == 5 and type(job[0]) is int and -1 <= job[0] < val.n
             and type(job[1]) is int and SECRET <= job[1] < len(triggers) and t < 3, bad)
    if job[1] == SECRET:
        val.need(type(job[2]) is int and 0 <= job[2] < val.n and job[3] is None and type(job[4]) is list, bad)
        for use in job[4]:
            val.need(type(use) is list and len(use) == 2 and type(use[0]) is int and 0 <= use[0] < len(triggers)
                     and triggers[use[0]].ability is not None and triggers[use[0]].optional is not None
                     and _is_card(use[1], val), f"{where}: a secret job offers {str(use)[:60]}, not an optional "
                                                f"trigger of a card")
        return
    trig = triggers[job[1]]
    val.need(trig.event == ev and trig.timing == TIMINGS[t], bad)
    if trig.ability is not None:
        val.need(type(job[2]) is int and 0 <= job[2] < val.n and _is_card(job[3], val), bad)
    else:
        val.need(job[2] == -1 and job[3] is None, bad)
    if trig.for_var is not None:
        val.need(type(job[4]) is int and 0 <= job[4] < val.n, bad)
    else:
        val.need(job[4] is None, bad)


def _windows_frame(val, env: dict, where: str) -> None:
    """The response stack run down to 'depth'; 'eid', 'order', 'idx': the window open now."""
    val.need(set(env) <= {"depth", "eid", "order", "idx"}, f"{where}: unknown locals {sorted(env)}")
    val.need(type(env.get("depth")) is int and env["depth"] >= 0, f"{where}: 'depth' must be a whole number")
    eid = env.get("eid")
    if eid is None:
        return
    val.need(_is_entry(eid, val), f"{where}: the window is for stack entry {eid!r}, which is not there")
    order = env.get("order")
    val.need(type(order) is list and all(type(p) is int and 0 <= p < val.n for p in order),
             f"{where}: the window's 'order' must be a list of players")
    val.int_in(env.get("idx"), 0, len(order) + 1, f"{where}: the player asked ('idx')")


def _after_response_frame(val, frames: list, i: int, where: str) -> None:
    env = frames[i][2]
    if "resolved" in env:
        val.need(set(env) == {"resolved"} and _is_entry(env["resolved"], val),
                 f"{where}: 'resolved' must be the id of a stack entry")
        return
    val.need(set(env) == {"wf", "top", "depth"}, f"{where}: its locals are 'resolved', or 'wf', 'top' and 'depth'")
    wf = env["wf"]
    val.need(wf == i - 1 and frames[wf][0] == WINDOWS_BLOCK and type(frames[wf][2].get("idx")) is int,
             f"{where}: 'wf' must be the response stack's frame just below, with a window open")
    val.need(type(env["top"]) is int and type(env["depth"]) is int, f"{where}: 'top' and 'depth' must be whole numbers")


# ---------------------------------------------------------------------- a block's locals
def _block_frame(val, frames: list, i: int, where: str, awaited) -> None:
    f = frames[i]
    blk = val.prog.blocks[f[0]]
    inputs = val.block_inputs().get(f[0], {})
    env = f[2]
    for name, v in env.items():
        if name in blk.loops:
            _loop(val, blk, name, v, inputs, f"{where}: the loop '{name}'")
            continue
        spec = _spec(name, inputs, blk)
        val.need(spec is not None, f"{where}: {name!r} is not a name this block holds")
        if name == "$rf":  # a trigger's body reads (and may prevent) its event's frame, just below
            val.need(v == i - 1 and frames[v][0] == EMIT_BLOCK, f"{where}: '$rf' must be the event's frame just below")
        else:
            _typed(val, v, spec, f"{where}: the local '{name}'")
    if "this" in inputs:
        val.need(_is_entry(env.get("this"), val), f"{where}: 'this' must be a stack entry that is there")
    if "$rf" in env:
        rec = frames[env["$rf"]][2]["rec"]
        differ = [n for n in val.trigger_mirrors().get(f[0], ()) if n in env and env[n] != rec[n]]
        val.need(not differ, f"{where}: the event fields {differ} differ from its event's record (the trigger "
                             f"never changes them)")
    required = set(inputs)
    if f[1] < len(blk.starts):
        required |= blk.starts[f[1]]
    missing = sorted(n for n in required - set(env) if n not in awaited)
    val.need(not missing, f"{where}: the locals {missing} are missing (the block has bound them by step {f[1]})")


def _loop(val, blk, key: str, v, inputs: dict, where: str) -> None:
    """A 'for' that can stop inside: [its items, the next index, the names to restore after it]."""
    var, scoped = blk.loops[key]
    val.need(type(v) is list and len(v) == 3 and type(v[0]) is list and type(v[1]) is int
             and 0 <= v[1] <= len(v[0]) and type(v[2]) is dict and set(v[2]) <= set(scoped),
             f"{where} must be [items, next index, saved names]")
    t = blk.names[var][0]
    if t is not None:
        for x in v[0]:
            val.value(x, t, f"{where}: an item")
    for name, x in v[2].items():
        _typed(val, x, _spec(name, inputs, blk) or (None, True, False), f"{where}: the saved '{name}'")


def _spec(name: str, inputs: dict, blk):
    """(type, nullable, distinct) of a name a block holds, None if it holds no such name."""
    spec = inputs.get(name) or blk.names.get(name)
    if name in inputs and name in blk.names and inputs[name][0] != blk.names[name][0]:
        return None, True, False  # an input the block binds anew with another type: either
    return spec


def _typed(val, v, spec: tuple, what: str) -> None:
    """v fits (type or None, may it be none: True, False, or None for as the type allows, are the
    values of a list all different)."""
    t, nullable, distinct = spec
    if v is None and nullable is not None:
        val.need(nullable, f"{what} must not be none")
        return
    if t is not None:
        val.value(v, t, what)
    if distinct and v is not None:
        val.need(len(set(v)) == len(v), f"{what} holds a value twice")


# ---------------------------------------------------------------------- the pending decision
def _pending(val, frames: list, pending: dict) -> None:
    top = frames[-1]
    if pending["kind"] == "window":
        env = top[2]
        stack = val.d["stack"]
        val.need(set(pending) == {"kind", "who", "eid"}, "a pending window is {kind, who, eid}")
        val.need(top[0] == WINDOWS_BLOCK and stack and pending["eid"] == stack[-1] == env.get("eid")
                 and env["order"][env["idx"]:env["idx"] + 1] == [pending["who"]] and val.d["active"] == pending["who"],
                 "the pending response window must be the window of the response stack's frame on top: for "
                 "the top entry, asking the player its order gives (who is active)")
        return
    val.need(set(pending) <= _CHOICE_KEYS, f"a pending choice has unknown keys {sorted(set(pending) - _CHOICE_KEYS)}")
    opts, texts = pending.get("options"), pending.get("texts")
    val.need(type(opts) is list and type(texts) is list and len(opts) == len(texts) and opts
             and all(type(t) is str for t in texts) and len(set(texts)) == len(texts),
             "a pending choice needs options and as many distinct texts")
    val.need(type(pending.get("target")) is str, "a pending choice must say where its answer goes")
    val.need(type(pending.get("prompt", "")) is str and type(pending.get("optional", False)) is bool,
             "a pending choice's prompt must be text and 'optional' true or false")
    named = pending.get("named")
    val.need(named is None or (type(named) is list and len(named) == len(opts)
                               and all(type(cs) is list and all(_is_card(c, val) for c in cs) for cs in named)),
             "'named' of a pending choice must list the cards each option names")
    if top[0] == EMIT_BLOCK:
        _engine_choice(val, top[2], pending)
    else:
        _block_choice(val, top, pending)


def _block_choice(val, frame: list, pending: dict) -> None:
    """A 'choose' or 'ask': the step before the one the frame resumes at asked it."""
    blk = val.prog.blocks[frame[0]]
    step = blk.steps[frame[1] - 1] if 0 < frame[1] <= len(blk.steps) and frame[0] > AFTER_RESPONSE_BLOCK else None
    target = getattr(step, "choice_target", None)
    val.need(target is not None and target == pending["target"] and pending.get("param") == step.choice_kind,
             f"the pending choice (for {pending['target']!r}) is not the one {blk.name} asks where it stopped")
    kind, t = step.choice_kind, step.choice_type
    for v in pending["options"]:
        if kind == "card":
            ok = v is None or _is_card_or_marker(v, val)
        elif kind == "cards":  # (face-down picks of one zone repeat; cards do not)
            ok = type(v) is list and all(_is_card_or_marker(c, val) for c in v) and \
                len({c for c in v if c < val.card_count}) == sum(c < val.card_count for c in v)
        else:
            ok = True
            if v is not None:
                _typed(val, v, (t, True, kind == "players"), f"an option of the pending choice for '{target}'")
        if not ok:  # (the message is made only then: a choice may offer hundreds of options)
            val.fail(f"the pending choice for '{target}' offers {str(v)[:60]}, which is not a {kind} choice")


def _engine_choice(val, env: dict, pending: dict) -> None:
    """The questions an event's frame asks (machine.py): which trigger first ('pick'), an optional
    trigger's yes or no ('answer'), the abilities of face-down cards ('use')."""
    target, opts = pending["target"], pending["options"]
    val.need(target in _ENGINE_TARGETS, f"the pending choice (for {target!r}) is not one an event's frame asks")
    jobs, i = env.get("jobs"), env.get("i")
    val.need(type(jobs) is list and i < len(jobs), "the pending choice is about a trigger the event's frame does "
                                                   "not hold")
    job = jobs[i]
    if target == "pick":
        val.need(len(opts) >= 2 and all(type(k) is int for k in opts) and opts[0] == 0
                 and all(a < b for a, b in zip(opts, opts[1:])) and i + opts[-1] < len(jobs)
                 and "param" not in pending, "the pending choice of which trigger goes first must offer 0 and "
                                             "the places of other triggers after the current one, in order")
    elif target == "answer":
        val.need(opts == [True, False] and pending.get("param") == "bool" and job[1] != SECRET
                 and val.prog.trigger_list[job[1]].optional is not None,
                 "the pending yes-or-no must be about an optional trigger")
    else:
        val.need(job[1] == SECRET and opts == list(range(len(job[4]))) + [-1] and "param" not in pending
                 and pending.get("named") is not None,
                 "the pending choice of face-down abilities must offer each of the job's abilities, then -1 (no)")


def _is_entry(v, val) -> bool:
    """The id of a stack entry that is there."""
    return type(v) is int and v in val.entry_ids


def _is_card(v, val) -> bool:
    return type(v) is int and 0 <= v < val.card_count


def _is_card_or_marker(v, val) -> bool:
    """A card, or a face-down pick from a zone (markers.py)."""
    return type(v) is int and 0 <= v < marker_count(val.card_count, val.zone_count)


# ---------------------------------------------------------------------- what blocks take
def block_inputs(prog, model) -> dict:
    """block index -> {name: (type or None, may it be none)}: the locals a block starts with (an
    action's parameters, an effect's entry, a trigger's event fields, owner and card)."""
    out: dict = {}
    for act in prog.actions.values():
        if act.effect is not None:
            names = out[act.effect] = {p.name: (p.type, p.nullable, p.kind in ("cards", "players"))
                                       for p in act.params}
            if act.ability is not None:  # the card that gives the action, and its owner (actions.py)
                names["owner"], names["self"] = _PLAYER, _CARD
    for eff in prog.effects.values():
        for b in (eff.resolve, eff.cancelled):
            if b is not None:
                out[b] = {"this": (T.ENTRY, False, False)}
    for trig in prog.trigger_list:
        names = {n: (t, None, False) for n, t in event_params(model, trig.event).items()}
        if trig.ability is not None:
            names["owner"], names["self"] = _PLAYER, _CARD
        elif trig.for_var is not None:
            names[trig.for_var] = _PLAYER
        names["$rf"] = (None, False, False)
        out[trig.body] = names
    return out


_PLAYER, _CARD = (T.PLAYER, False, False), (T.CARD, False, False)


def trigger_mirrors(prog, model) -> dict:
    """trigger body -> the event fields it never assigns: while it runs they equal the fields of
    its event's record (it starts with a copy, and only its own end writes the record back)."""
    out = {}
    for trig in prog.trigger_list:
        decl = model.triggers[trig.index]
        own = prog.blocks[trig.body].names  # (a 'let' may take an event field's name)
        out[trig.body] = [p for p in trig.params if p not in assigned_names(decl.body) and p not in own]
    return out


def event_params(model, name: str):
    """{field: type} of an event (declared, or one the engine raises), None for no event."""
    from rulespec.lang.checker import BUILTIN_EVENTS
    if name in BUILTIN_EVENTS:
        return dict(BUILTIN_EVENTS[name])
    decl = model.events.get(name)
    if decl is None:
        return None
    return {p.name: resolve_type(p.type, model) for p in decl.params}


def resolve_type(ref, model):
    """The type a type name of the rules means (None when it cannot be told: nothing is checked)."""
    if ref.name == "list":
        elem = resolve_type(ref.elem, model) if ref.elem is not None else None
        return T.list_of(elem) if elem is not None else None
    if ref.name in T.SIMPLE:
        return T.SIMPLE[ref.name]
    if ref.name in model.enums:
        return T.enum_type(ref.name)
    return None
