"""Why a fuzz failure happened, in rules positions: where the game as played and its re-deal
part (a counterfactual secrecy failure), or which positions repeat (a game that does not end).

A *position trace* is the order in which the rules ran: every action, phase, trigger, effect,
event and branch arm (the keys rule and branch coverage count: "action:NAME",
"branch:LINE:COL:ARM", ...; rulespec/lang/branches.py).  It is recorded by giving a state the
program that counts branches (Game.program(branches=True)) and, as its coverage counter, a
`Positions`: a Counter that also keeps every key it is given, in order.  Plain play runs the
plain program and pays nothing for it.

A counterfactual failure says what the viewer saw differ after k decisions (secrecy.py).  The
game as played (W) and the re-dealt game (W') are replayed to that decision with position
traces, and the traces of the last action (where the views parted) are compared: the first
position where they differ is the cause -- usually an `if` that took another arm in W', because
its condition reads cards the viewer cannot see.  Its condition is walked for the zones it reads
(through the defs it calls and the lets that named its values), and those the viewer cannot
see in W are named.  When that action ran the same positions in both worlds, the earliest
action whose positions differ is named.  When none differs: a random pick that took another
item in W' (and no other outcome put W' back in step: secrecy._back_in_step) is named, with
what its list reads; where both worlds ask in a response window but ask other players, the
effect's `ask` is named (and the zones it reads); where a variable differs, the assignments
to it whose values read hidden zones; where a log line differs, the `log` and
`announce` statements that wrote that action's lines (the counting program counts them too,
"log:LINE:COL") and the zones their texts read; else the positions of that action.

A game that does not end is replayed (its choices, then the first legal action) to max_steps
with a position trace, and the shortest block of positions its end repeats is named, with the
phase whose `end when` has not held.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Optional

import attrs

from rulespec.lang import ast as A
from rulespec.lang.branches import Branch, branches, if_at, statement_at, statements
from rulespec.lang.graph import source_text

from .playing import list_picker
from .secrecy import WINDOW_PHRASE

DECISION = "decision:"   # a marker put into a trace before each recorded action
CYCLE_TAIL = 3000        # the positions of an endless game's end searched for a cycle
CYCLE_SHOWN = 12         # positions of a cycle named


class Positions(Counter):
    """A coverage counter that also keeps the keys it counts, in order (`events`)."""

    def __init__(self):
        self.events: list = []
        super().__init__()

    def __setitem__(self, key, value) -> None:
        self.events.append(key)
        super().__setitem__(key, value)

    def mark(self, k: int) -> None:
        self.events.append(f"{DECISION}{k}")


# ---------------------------------------------------------------------- naming positions
class Names:
    """Positions as a reader finds them: 'games/x.rules:12:5 if holds(p) (then)'."""

    def __init__(self, game, path: Optional[str] = None):
        self.game, self.path, self.model = game, path or game.path, game.model
        self.branches: dict[str, Branch] = {b.key: b for b in branches(game.model)}

    def where(self, key: str) -> Optional[tuple]:
        """(line, col) of a position, or None."""
        kind, _, rest = key.partition(":")
        if kind == "log":
            line, _, col = rest.partition(":")
            return int(line), int(col)
        if kind == "branch":
            b = self.branches.get(key)
            return (b.line, b.col) if b else None
        decl = {"action": self.model.actions, "phase": self.model.phases, "effect": self.model.effects,
                "cancelled": self.model.effects}.get(kind, {}).get(rest)
        if kind == "trigger":
            decl = next((t for t in self.model.triggers if t.name == rest), None)
        span = getattr(decl, "span", None)
        return (span.line, span.col) if span is not None else None

    def describe(self, key: str) -> str:
        kind, _, rest = key.partition(":")
        b = self.branches.get(key)
        what = f"{b.text} ({b.arm})" if b else self.statement(key) if kind == "log" else f"{kind} {rest}"
        at = self.where(key)
        return f"{self.path}:{at[0]}:{at[1]} {what}" if at else what


    def statement(self, key: str) -> str:
        """A `log` or `announce` statement as written (its line from its column, cut)."""
        s = statement_at(self.model, *self.where(key))
        text = " ".join(source_text(self.model.source, s.span).split()) if s is not None else key
        return text if len(text) <= 60 else text[:57].rstrip() + "..."


# ---------------------------------------------------------------------- a counterfactual failure
def counterfactual_cause(game, failure, options: Optional[dict], path: Optional[str] = None) -> Optional[dict]:
    """The cause of a counterfactual failure (its `detail` names the viewer, the decision and the
    re-deal): a dict (see module doc), or None when the failure carries no re-deal."""
    from .secrecy import (_OUT_OF_STEP, _Steer, _back_in_step, _follow_places, _realign, _same_choices, _shape,
                          _view, dealt_again, relabelled)
    d = failure.detail or {}
    if "sigma" not in d:
        return None
    viewer, k = d["viewer"], d["decision"]
    sigma = {a: b for a, b in d["sigma"]}
    opts = dict(options or {})
    actions = list(failure.actions[:k])
    played = Positions()
    w = game.new_state(players=failure.players, seed=failure.seed, options=opts, coverage=played)
    start = w.clone()
    layouts, views = [], []  # W after each action: where every card lies, what v sees (to keep W' in step)
    picked = []  # W's random picks in each action: (site, item)
    shapes = []  # W's actions as secrecy._shape gives them (to make a rival's choice with the re-dealt cards)
    chosen = {i: t for i, t in d.get("chosen", [])}
    for i, text in enumerate(actions):
        played.mark(i)
        log_from = len(w.log)
        shapes.append(_shape(w, next((a for a in w.legal_actions() if a.text == text), None)) if i in chosen else None)
        with _Steer() as steer:
            w.apply(text)
        picked.append(steer.picked)
        layouts.append(tuple(tuple(z) for z in w.zones))
        views.append(_view(w, viewer, log_from))
    redealt = Positions()
    other = dealt_again(start, game, failure.players, failure.seed, opts, sigma, coverage=redealt)
    if other is None:  # the setup does not deal that way: the dealt position relabelled (its setup not traced)
        other = relabelled(start, game, sigma)
        redealt = Positions()  # (not the setup the refused deal ran: no world's)
        other.prog, other.cov = game.program(branches=True), redealt
        first = next((i for i, e in enumerate(played.events) if e.startswith(DECISION)), len(played.events))
        del played.events[:first]  # (nor compared: only the re-deal's actions are)
    names = getattr(other.prog, "card_kind", None) or other.prog.card_names
    set_zones = [slot.kind == "set" for slot in other.prog.slots]
    sig = list(range(len(names)))
    for a, b in sigma.items():
        sig[a] = b
    parted: dict = {}  # segment -> the sites of random picks that took another item in W' (out of step)
    for i, text in enumerate(actions):
        redealt.mark(i)
        if i in chosen and shapes[i] is not None:  # the check made this rival's choice with the re-dealt cards
            made = next((s for a, s in _same_choices(other, shapes[i], sig, set(sigma), set_zones)
                         if a.text == chosen[i]), None)
            if made is None:
                break
            other.apply(chosen[i])
            sig = made
            _realign(layouts[i], other, sig, names, set_zones)
            continue
        if text not in other.legal_action_strings():
            break
        # kept in step as the check keeps it (secrecy.py): copies swap, a rival's hidden choice
        # becomes the one that takes the card in W's place, a random pick takes W's outcome
        # (played again here, to be traced)
        before, mark, sig_before, log_from = other.clone(), len(redealt.events), list(sig), len(other.log)
        rival = other.current_player != viewer
        picks = _Steer()
        with picks:
            other.apply(text)
        if _realign(layouts[i], other, sig, names, set_zones) == _OUT_OF_STEP:
            found = _back_in_step((before.clone(), sig_before), text, rival, picks.sizes, layouts[i], views[i],
                                  viewer, log_from, names, set_zones)
            if found is not None:
                del redealt.events[mark:]
                other, sig = before, found[1]
                other.cov = redealt
                with _Steer(found[3]):
                    other.apply(found[2])
                _realign(layouts[i], other, sig, names, set_zones)
            else:
                sites = _picks_parted(picked[i], picks.picked, sig_before)
                if sites:
                    parted[i + 1] = sites
                _follow_places(layouts[i], other, sig)
    return _parting(Names(game, path), w, viewer, k, played.events, redealt.events, _what_differs(failure.message),
                    actions, d.get("kind", ""), parted)


def _picks_parted(mine: list, theirs: list, sig: list) -> list:
    """The sites of the random picks of an action that took, in W', another item than W's (a
    card: not the card in W's card's place)."""
    out = []
    for (site, x), (site2, y) in zip(mine, theirs):
        same = y == x or (isinstance(x, int) and 0 <= x < len(sig) and sig[x] == y)
        if site is not None and site == site2 and not same and site not in out:
            out.append(site)
    return out


def _what_differs(message: str) -> str:
    """A failure's message without its 'after N decisions: ' (the cause says where)."""
    head, sep, rest = message.partition(" decisions: ")
    return rest if sep and head.startswith("after ") else message


def _stage(segment: int, actions: list) -> str:
    """Where a segment of a trace ran: 'the setup', or 'action 3 (\'pass\')'."""
    return "the setup" if segment == 0 else f"action {segment} ('{actions[segment - 1]}')"


def _segments(events: list) -> list:
    """A trace cut at its decision markers: [setup, action 0, action 1, ...]."""
    out = [[]]
    for e in events:
        if e.startswith(DECISION):
            out.append([])
        else:
            out[-1].append(e)
    return out


def _parting(names: Names, w, viewer: int, k: int, mine: list, theirs: list, message: str, actions: list,
             kind: str = "", parted: Optional[dict] = None) -> dict:
    """The cause, from the two traces: the first position where they part, in the action after
    which the views differ (else the earliest action where they part); else a random pick that
    took another item in the re-deal (parted: segment -> sites); else what that action ran."""
    a, b = _segments(mine), _segments(theirs)
    last = k  # the segment of the action after which the views differ (the setup when k is 0)
    order = [last] + [j for j in range(min(len(a), len(b))) if j != last]
    for j in order:
        x, y = (a[j] if j < len(a) else []), (b[j] if j < len(b) else [])
        if x == y:
            continue
        i = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        return _branch_cause(names, w, viewer, j, x[i] if i < len(x) else None, y[i] if i < len(y) else None,
                             message, _stage(j, actions))
    for j in sorted(parted or {}):
        if j <= last:
            return _pick_cause(names, w, viewer, j, parted[j][0], message, _stage(j, actions))
    stage = _stage(last, actions)
    window = _asking(names.model, w)
    if window is not None and WINDOW_PHRASE in message:  # both worlds ask, others: the `ask` chose them
        return _window_cause(names, w, viewer, last, window, message, stage)
    seg = a[last] if last < len(a) else []
    logs = list(dict.fromkeys(e for e in seg if e.startswith("log:")))
    if logs and kind == "log":
        return _log_cause(names, w, viewer, last, logs, message, stage)
    rules = [names.describe(e) for e in seg if not e.startswith(("event:", "log:"))]
    var = re.search(r"differs at vars\.(\w+)", message)
    if var is not None:
        found = _var_cause(names, w, viewer, last, var.group(1), message, stage)
        if found is not None:
            return found
    return {"parted": False, "decision": last, "positions": rules[-CYCLE_SHOWN:], "differs": message,
            "text": (f"the game as played and the re-deal ran the same rules positions (no branch took another "
                     f"arm): what P{viewer + 1} sees differs in what a statement wrote or showed from a hidden "
                     f"card (a log text, a variable) in {stage}, which ran "
                     + "; ".join(rules[-4:]) + f"; P{viewer + 1} sees: {message}")}


def _window_cause(names: Names, w, viewer: int, segment: int, effect, message: str, stage: str) -> dict:
    """Both worlds ask in the effect's window, other players: its `ask` chose them."""
    line, col = effect.ask.span.line, effect.ask.span.col
    reads = _hidden_reads(names.model, w, viewer, [effect.ask])
    text = f"{names.path}:{line}:{col} the `ask` of effect {effect.name} chose whom its window asks, in {stage}"
    return {"parted": True, "file": names.path, "line": line, "col": col, "decision": segment, "arms": {},
            "reads": reads, "differs": message,
            "text": text + (_reads_text(reads, viewer) if reads else "")
            + f"; what P{viewer + 1} then sees differs: {message}"}


def _var_cause(names: Names, w, viewer: int, segment: int, var: str, message: str, stage: str) -> Optional[dict]:
    """A variable v sees differs, and no branch parted: the assignments to it whose values read
    zones v cannot see (the first of them is the cause), or None when none does."""
    found = []
    for s in statements(names.model):
        if isinstance(s, A.Assign) and s.target.name == var and not s.target.path:
            reads = _hidden_reads(names.model, w, viewer, [s.value])
            if reads:
                found.append((s, reads))
    if not found:
        return None
    s, reads = found[0]
    said = " ".join(source_text(names.model.source, s.span).split())
    return {"parted": False, "decision": segment, "file": names.path, "line": s.span.line, "col": s.span.col,
            "reads": reads, "differs": message,
            "text": (f"{names.path}:{s.span.line}:{s.span.col} `{said}` sets {var} from hidden cards (the runs "
                     f"took the same rules positions; the views differ after {stage})" + _reads_text(reads, viewer)
                     + ("; so do lines " + ", ".join(f"{o.span.line}:{o.span.col}" for o, _ in found[1:])
                        if len(found) > 1 else "")
                     + f"; what P{viewer + 1} then sees differs: {message}")}


def _log_cause(names: Names, w, viewer: int, segment: int, logs: list, message: str, stage: str) -> dict:
    """A log line reads otherwise, and no branch parted: the statements that wrote the action's
    lines, and the hidden zones their texts read."""
    said = [statement_at(names.model, *names.where(e)) for e in logs]
    parts = [p for s in said if s is not None for p in names.model.templates.get(s.template, ())]
    reads = _hidden_reads(names.model, w, viewer, [p for p in parts if not isinstance(p, str)])
    line, col = names.where(logs[0])
    shown = [names.describe(e) for e in logs]
    return {"parted": False, "decision": segment, "logs": shown, "file": names.path, "line": line, "col": col,
            "reads": reads, "differs": message,
            "text": (f"the game as played and the re-deal ran the same rules positions (no branch took another "
                     f"arm): a log text shows P{viewer + 1} something of a hidden card; in {stage} the log was "
                     f"written by " + "; ".join(shown)
                     + (_reads_text(reads, viewer, "they read") if reads else "")
                     + f"; P{viewer + 1} sees: {message}")}


def _branch_cause(names: Names, w, viewer: int, segment: int, mine, theirs, message: str, stage: str) -> dict:
    key = mine or theirs
    where = names.where(key) if key else None
    if key and key.startswith("branch:"):  # the fork itself: the if (or the phase), not the arm
        where = tuple(int(x) for x in key.split(":")[1:3])
    b_mine, b_theirs = names.branches.get(mine or ""), names.branches.get(theirs or "")
    asked = _window(names.model, mine, theirs)
    if asked is not None:  # one world asks in the effect's window, the other resolves it: its `ask` chose
        where = (asked.ask.span.line, asked.ask.span.col)
        reads = _hidden_reads(names.model, w, viewer, [asked.ask])
    else:
        node = if_at(names.model, *where) if where and (b_mine or b_theirs) else None
        conds = [c for c, _ in node.branches] if node else []
        reads = _hidden_reads(names.model, w, viewer, conds + _let_values(names.model, conds, node.span)) if node else []
    def arm(bb, e):
        if bb:
            return f"{bb.text} ({bb.arm})"
        if e is None:
            return "the rules stop for a decision (a response window or a choice)"
        return names.describe(e) + (" resolves" if e.startswith("effect:") else "")
    arms = {"played": arm(b_mine, mine), "redealt": arm(b_theirs, theirs)}
    out = {"parted": True, "file": names.path, "line": where[0] if where else None,
           "col": where[1] if where else None,
           "decision": segment,  # 0: the setup; j: action j (the j-th recorded action)
           "arms": arms, "reads": reads, "differs": message}
    head = f"{names.path}:{where[0]}:{where[1]} " if where else ""
    fork = b_mine or b_theirs
    if fork is not None and mine and theirs and mine.rsplit(":", 1)[0] == theirs.rsplit(":", 1)[0]:
        text = (f"{head}`{fork.text}` took another branch in the re-deal, in {stage}: "
                f"the {b_mine.arm} arm as played, the {b_theirs.arm} arm re-dealt")
    elif asked is not None:
        how = lambda e: "its window asks" if not e else "it resolves at once"  # noqa: E731
        text = (f"{head}the `ask` of effect {asked.name} chose whom its window asks, in {stage}: "
                f"{how(mine)} as played, {how(theirs)} re-dealt")
    else:
        text = f"{head}the runs part in {stage}: {arms['played']} as played, {arms['redealt']} re-dealt"
    if reads:
        text += _reads_text(reads, viewer)
    out["text"] = text + f"; what P{viewer + 1} then sees differs: {message}"
    return out


def _pick_cause(names: Names, w, viewer: int, segment: int, site, message: str, stage: str) -> dict:
    """A random pick took another item in the re-deal, and no outcome put the worlds back in step
    (secrecy._back_in_step): the `random` at `site`, and the hidden zones its list reads (through
    the `let` that named it)."""
    span = site[1]
    said = " ".join(source_text(names.model.source, span).split())
    call = _call_at(names.model, span)
    reads = _hidden_reads(names.model, w, viewer, list(call.args) + _let_values(names.model, call.args, span)) \
        if call else []
    return {"parted": True, "file": names.path, "line": span.line, "col": span.col, "decision": segment,
            "arms": {}, "reads": reads, "differs": message,
            "text": (f"{names.path}:{span.line}:{span.col} `{said}` took another item in the re-deal, in {stage}: "
                     f"the same random number, a list of other cards, and no other outcome keeps the worlds "
                     f"alike" + (_reads_text(reads, viewer) if reads else "")
                     + f"; what P{viewer + 1} then sees differs: {message}")}


def _call_at(model, span):
    """The `random(...)` call at span, or None."""
    found = []

    def walk(node):
        if isinstance(node, A.Call) and node.func == "random" and (node.span.line, node.span.col) == (span.line, span.col):
            found.append(node)
        if isinstance(node, (tuple, list)):
            for x in node:
                walk(x)
        elif attrs.has(type(node)):
            for f in attrs.fields(type(node)):
                if f.name != "span":
                    walk(getattr(node, f.name))
    for s in statements(model):
        if s.span.line <= span.line <= getattr(s.span, "end_line", s.span.line):
            walk(s)
    return found[0] if found else None


def _let_values(model, exprs, span, depth: int = 3) -> list:
    """The values the names in exprs stand for where a `let` bound them (the nearest `let` of the
    name before span; and the names in those, `depth` deep): `count(blacks) > 0` reads what
    `let blacks = collect c in cards(hand[t]) ...` reads."""
    names: list = []
    _names_in(exprs, names)
    out = []
    for name in dict.fromkeys(names):
        lets = [s for s in statements(model) if isinstance(s, A.Let) and s.name == name
                and (s.span.line, s.span.col) < (span.line, span.col)]
        if lets:
            value = max(lets, key=lambda s: (s.span.line, s.span.col)).value
            out.append(value)
            if depth > 1:
                out += _let_values(model, [value], span, depth - 1)
    return out


def _names_in(node, out: list) -> None:
    if isinstance(node, A.Name):
        out.append(node.name)
    if isinstance(node, (tuple, list)):
        for x in node:
            _names_in(x, out)
    elif attrs.has(type(node)):
        for f in attrs.fields(type(node)):
            if f.name != "span":
                _names_in(getattr(node, f.name), out)


def _reads_text(reads: list, viewer: int, verb: str = "it reads") -> str:
    """'; it reads hand, which P1 cannot see (hand[P2], hand[P3])'"""
    zones = ", ".join(dict.fromkeys(r.split("[")[0] for r in reads))
    return f"; {verb} {zones}, which P{viewer + 1} cannot see ({', '.join(reads)})"


def _asking(model, w):
    """The effect on top of w's stack when it has an `ask` (its window is asking), or None."""
    if not w.stack:
        return None
    e = model.effects.get(w.entry(w.stack[-1])[1])
    return e if e is not None and e.ask is not None else None


def _window(model, mine, theirs):
    """The effect whose window one world asks while the other resolves it at once, or None."""
    for key in (mine, theirs):
        if key and key.startswith("effect:"):
            e = model.effects.get(key.partition(":")[2])
            if e is not None and e.ask is not None and not (mine and theirs and mine.startswith("effect:")
                                                            and theirs.startswith("effect:")):
                return e
    return None


def _hidden_reads(model, w, viewer: int, exprs: list) -> list:
    """The zones the expressions read (through the defs they call) that the viewer cannot see in
    state w: ['hand[P2]', ...] (of a zone of every player: the others' places)."""
    zones: list = []
    for e in exprs:
        _zones_read(model, e, zones, set())
    out = []
    for slot in w.prog.slots:
        if slot.zone in zones and not w.can_see(slot.index, viewer) and slot.name not in out:
            if slot.owner is None or slot.owner < w.n:
                out.append(slot.name)
    return out


def _zones_read(model, node, out: list, defs: set) -> None:
    if isinstance(node, A.Name) and node.name in model.zones and node.name not in out:
        out.append(node.name)
    if isinstance(node, A.Call) and node.func in model.defs and node.func not in defs:
        defs.add(node.func)
        _zones_read(model, model.defs[node.func].body, out, defs)
    if isinstance(node, (tuple, list)):
        for x in node:
            _zones_read(model, x, out, defs)
    elif attrs.has(type(node)):
        for f in attrs.fields(type(node)):
            if f.name != "span":
                _zones_read(model, getattr(node, f.name), out, defs)


# ---------------------------------------------------------------------- a game that does not end
def endless_cause(game, failure, options: Optional[dict], max_steps: int, path: Optional[str] = None) -> Optional[dict]:
    """The rules positions that repeat at the end of a game that did not end within max_steps:
    the shortest cycle of positions its last part repeats, or the positions run most there."""
    trace = Positions()
    st = game.new_state(players=failure.players, seed=failure.seed, options=dict(options or {}), coverage=trace)
    pick = list_picker(failure.choices, failure.actions, failure.then_first)
    for k in range(max_steps):
        if st.terminal:
            return None
        legal = st.legal_actions()
        i = pick(st, legal)
        if i is None:
            break
        trace.mark(k)
        st.apply(legal[i])
    names = Names(game, path)
    # (a decision's marker without its number: the same decision of every round reads the same)
    tail = [DECISION if e.startswith(DECISION) else e for e in trace.events[-CYCLE_TAIL:]
            if not e.startswith(("event:", "log:"))]  # (the rules run, not what they wrote)
    cycle = _cycle(tail)
    decisions = sum(1 for e in cycle or () if e.startswith(DECISION))
    ending = _never_held(names, st)
    if cycle:
        shown = [names.describe(e) for e in cycle if not e.startswith(DECISION)]
        text = (f"the game repeats {decisions} decision{'s' if decisions != 1 else ''} without end: "
                + "; ".join(shown[:CYCLE_SHOWN]) + ("; ..." if len(shown) > CYCLE_SHOWN else ""))
        return {"repeats": shown, "decisions": decisions, "text": text + ending}
    common = Counter(e for e in tail if not e.startswith(DECISION)).most_common(CYCLE_SHOWN)
    shown = [f"{names.describe(e)} ({n} time{'s' if n != 1 else ''})" for e, n in common]
    return {"repeats": shown, "decisions": None,
            "text": f"the rules run most, in the last {sum(1 for e in tail if e.startswith(DECISION))} "
                    f"decisions: " + "; ".join(shown) + ending}


def _never_held(names: Names, st) -> str:
    """'; the game stays in phase turn, whose `end when ...` (file:line:col) has not held' (or nothing)."""
    phase = names.model.phases.get(st.phase)
    cond = getattr(phase, "end_when", None)
    if cond is None:
        return ""
    text = " ".join(source_text(names.model.source, cond.span).split())
    return (f"; the game stays in phase {phase.name}, whose `end when {text}` "
            f"({names.path}:{cond.span.line}:{cond.span.col}) has not held")


def _cycle(events: list) -> Optional[list]:
    """The shortest block of positions that the end of `events` repeats at least 3 times,
    starting at a decision, or None."""
    n = len(events)
    for p in range(1, n // 3 + 1):
        if all(events[n - 1 - i] == events[n - 1 - i - p] for i in range(2 * p)):
            block = events[n - p:]
            starts = [i for i, e in enumerate(block) if e.startswith(DECISION)]
            if starts:
                return block[starts[0]:] + block[:starts[0]]
    return None


# ---------------------------------------------------------------------- a failure
def explain(game, failure, options: Optional[dict], max_steps: int, path: Optional[str] = None):
    """The failure with its `cause` (a dict with a one-line "text"), when one can be found;
    `path`: the rules file as the reader named it (else the game's path)."""
    from .secrecy import CHECK as COUNTERFACTUAL
    try:
        if failure.check == COUNTERFACTUAL:
            cause = counterfactual_cause(game, failure, options, path)
        elif failure.check == "termination":
            cause = endless_cause(game, failure, options, max_steps, path)
        else:
            return failure
    except Exception as e:  # noqa: BLE001 - a cause not found must not lose the failure
        cause = {"text": f"the cause could not be traced: {type(e).__name__}: {e}"}
    return attrs.evolve(failure, cause=cause) if cause else failure
