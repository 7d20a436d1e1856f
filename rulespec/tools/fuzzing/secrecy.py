"""The counterfactual secrecy check: what a player cannot see must not change what they see.

For every player v, two positions that differ only in cards v cannot see are, to v, the same
position: v's observation, v's log, v's legal actions when v is to act, and who is to act
(e.g. who is asked in a response window) must be the same in both (docs/fuzzing.md, "Secrecy
is an information set" in the design).  The per-decision checks of rulespec/tools/fuzzing/checks.py look
at one state at a time (no observation shows a hidden card's face); this module checks the
information set itself, by comparing a recorded game with a counterfactual one:

  W   the game as recorded: its seed, players, options and the texts of its actions;
  W'  the same game with the cards v never saw *re-dealt*: the identities of those cards are
      permuted at random among the places they occupy at the first decision (made before the
      setup where it can be: see below), and then the recorded actions are replayed.

Before each recorded action (and after the last one) v's view of W and of W' must agree:

  * who is to act (``current_player``: being asked in a response window is a decision too),
  * v's legal actions when v is to act,
  * v's observation (``State.observation(v)``: zones, counts, variables, phase, the stack),
  * the new log lines as v reads them (``State.log_lines(v, ...)``; at decision 0 the setup's),
    and at each world's last decision the whole log, past lines included.

A difference is a leak: it tells v something about cards v has not seen.  A recorded action
that is not legal in W' (the rival did not follow suit, so they had no card of that suit; a
re-deal gave them one) means W' contradicts the public history: that world is dropped there,
and it is not a leak.  An engine or rules error in W' drops it too.  So does an announcement
(the `announce` statement: a fact about hidden cards the rules tell everyone, "the challenged
hand held a card of the colour") that reads differently in W': the rules made that fact public,
so worlds where it is false are not the viewer's information set any more.  The world is
dropped at the decision whose new log holds the differing announcement (what else differs at
that decision is then not compared: a leak there is found by the worlds that agree).

Which cards are re-dealt.  A card is *seen* by v at decision k when, at any decision up to k,
it lay in a zone v can see (``State.can_see``), or a log entry showed v its face (a move from
or into a zone v can see, a reveal, a look by v), or it was shown to everyone on its own --
the same rules ``State._render`` uses to show names.  Only cards never seen are re-dealt: a card seen once may have been remembered,
so it keeps its place (conservative: fewer cards re-dealt, no false alarm from a card v could
have tracked).  Nor are cards the setup set aside: cards that never move in the whole game
and still lie in the order the rules file declares them (never shuffled, never dealt: Chu
Han's event cards in the box when events are off).  A re-deal that put one of those in a
hand would invent a position the setup cannot make.
And a card is re-dealt only among the cards no player can tell it from: those shuffled
together with it by the setup (the last shuffle that held it before the first decision), or,
for a card never shuffled, those of its zone -- so two decks shuffled apart (characters and
playing cards) never trade cards (``shuffle_groups``).

A card seen at decision 40 was still unseen at decision 10, and a leak of it before decision
40 can only be caught by a world that re-deals it, so the check compares several worlds,
each up to a *cut* c: world c re-deals the cards unseen up to decision c and is compared at
decisions 0..c.  The cuts are the end of the recorded game and halves of it (n, n/2, n/4,
... down to 2 decisions): a secret kept for the whole game is tested by the first world, one
kept for a while by a shorter one, and early in a game, when most cards are unseen, the cuts
are dense.  All the worlds together replay at most about 2n decisions (a cut with fewer
than two unseen cards has nothing to re-deal).

Keeping W' in step (``_realign``): an action's text names cards by name, so where W' holds
two copies of a card the engine may play the other copy, and taking a card from another
place in a hand shifts the rest of the hand; neither is anything v sees, and both are undone
after every action (the copies swap roles; the hand's order is restored).

Where cards are re-dealt: the permutation is one of the places cards occupy at the first
decision, but it is made *before the setup* when it can be (``dealt_again``): the game starts
again with its cards in the order that makes the setup's own shuffles deal every place the
card the permutation puts there, so what the setup works out from the cards it dealt (a public
total, who starts, its log lines) is worked out again from the re-dealt cards, and compared at
decision 0.  (Re-dealing only at the first decision kept the setup's record as it was: a public
variable the setup computed from a hidden hand read the same in both worlds, and the leak went
unseen.)  When the setup does not deal that way -- it moved cards by what they are, so that the
re-dealt start puts other cards in other places, or drew another count of random numbers --
the position at the first decision is relabelled instead (``relabelled``).  Everything after
the first decision, shuffles included, acts on places, so it treats both worlds alike.

The log: at each decision the new lines are compared, and at each world's cut the whole log v
reads in W' -- past lines included -- is compared with the lines v read in W as each was
written (``_past_changed``): a log line shows what its viewer could see when it was written,
so a log whose old lines change later (re-rendered with a later reveal) differs there.

Determinism: the permutation comes from ``random.Random`` seeded with a string made of the
game's seed, the viewer and the cut, so the same game, viewer and actions always give the
same verdict: fuzz failures shrink, replay and run the same in any worker.
"""
from __future__ import annotations

import json
import random
from typing import Optional, Sequence

import attrs

from interpreter import rng as rng_module
from interpreter.choices import ask_again
from interpreter.errors import EngineError
from interpreter.state import CHOICE, State

from .checks import first_different_line

CHECK = "secrecy (counterfactual)"
MIN_CUT = 2  # the shortest cut compared (see cuts_for)
WINDOW_PHRASE = "asked in a response window"  # in every message about who is asked in a window


@attrs.frozen
class Leak:
    """A difference between v's view of the game as played and of a re-deal."""
    viewer: int
    decision: int          # the number of recorded actions played when the views differ
    kind: str              # "window", "turn", "legal actions", "observation", "log"
    message: str           # one line, without "after N decisions: "
    cut: int               # the world's cut: cards unseen by v up to this decision were re-dealt
    redealt: int           # how many cards were re-dealt
    position: dict         # the re-dealt start position: zone name -> card names (for a scenario)
    expect: list           # what v saw as played, as candidate scenario steps (for a scenario)
    sigma: tuple = ()      # the re-deal: (card, the card put in its place) pairs (to replay it: cause.py)
    chosen: tuple = ()     # (decision, text): the rivals' choices W' made with the re-dealt cards (_same_choices)


@attrs.define
class Verdict:
    """What the check did: the first leak (None: no leak), the worlds compared (each re-deal),
    those dropped as inconsistent with the public history, and the decisions compared."""
    viewer: int
    leak: Optional[Leak] = None
    worlds: int = 0
    dropped: int = 0
    compared: int = 0
    realigned: int = 0  # decisions after which a re-deal had to be put back in step (see _realign)
    hidden: int = 0     # the most cards in play hidden from v up to a cut (below 2: nothing to re-deal)
    reasons: list = attrs.field(factory=list)  # why worlds were dropped (first few)
    drops: dict = attrs.field(factory=dict)    # why worlds were dropped: a kind of reason -> how many

    def drop(self, kind: str, why: str) -> None:
        """A world dropped as inconsistent with the public history: `kind` says why in a few
        words (tallied), `why` in full (the first few kept)."""
        self.dropped += 1
        self.drops[kind] = self.drops.get(kind, 0) + 1
        if len(self.reasons) < 5:
            self.reasons.append(why)

    @property
    def ok(self) -> bool:
        return self.leak is None


# ---------------------------------------------------------------------- what v sees
# an observation as a view keeps it (json.dumps(obs, ensure_ascii=False, separators=(",", ":"))),
# by one encoder made once, without the check for circular references (an observation is a tree)
_VIEW_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def _view(st, v: int, log_from: int, obs: Optional[dict] = None) -> tuple:
    """(who is to act, in a response window?, v's observation, v's new log lines, the new
    announcements), the last three as text: a game's views are kept until it ends, and strings
    cost the garbage collector nothing (thousands of nested dicts and lists slowed every
    collection down)."""
    lines = st.log_lines(v, log_from)
    return (st.current_player, st.in_window(),
            _VIEW_JSON.encode(obs if obs is not None else st.observation(v)),
            "\n".join(lines), _announcements(st, log_from))


def _announcements(st, log_from: int) -> str:
    """The texts of the `announce` statements run since log_from: public facts the rules chose
    to tell everyone (one per line; empty: none)."""
    return "\n".join(e[1] for e in st.log[log_from:] if e[0] == "announce")


def _unpack(view: tuple) -> tuple:
    cur, win, obs, log = view[:4]
    return cur, win, json.loads(obs), log.split("\n") if log else []


def _mark_seen(st, v: int, log_from: int, seen: list, moved: list, k: int, every_zone: bool = True) -> None:
    """Cards v sees at this decision (in a zone v can see, or shown to everyone on their own),
    or whose faces the log entries from log_from on showed v: their first decision goes into
    `seen`; cards the log shows moving: into `moved`.  `every_zone` False: only the zones cards
    moved into since log_from are looked at (the caller knows that no zone became visible to v
    since it marked them all: what is revealed is as it was; a card changes zones only by a
    logged move)."""
    none = -1
    glimpses = st.prog.glimpses
    if every_zone:
        zones = enumerate(st.zones)
    else:
        all_zones = st.zones
        # (and every `top public` pile: taking its top shows the card below)
        zones = [(zi, all_zones[zi]) for zi in {e[1] for e in st.log[log_from:] if e[0] == "move"}
                 | st.prog.top_slots]
    for zi, zone in zones:
        if zone and st.can_see(zi, v):
            for c in zone:
                if seen[c] == none:
                    seen[c] = k
        elif zone and glimpses:  # cards seen on their own: a top card, cards v knows
            for c in st.glimpsed_in(zi, v):
                if seen[c] == none:
                    seen[c] = k
    for c in getattr(st, "shown", ()):  # a card revealed on its own ("reveal_card")
        if seen[c] == none:
            seen[c] = k
    for e in st.log[log_from:]:
        kind = e[0]
        if kind == "move":
            for (c, _), saw in zip(e[2], st.saw_moved(e, v)):  # (as State._render shows the move to v)
                if moved[c] == none:
                    moved[c] = k
                if seen[c] == none and saw:
                    seen[c] = k
        elif kind == "reveal" or (kind == "look" and e[1] == v):
            for c in e[2]:
                if seen[c] == none:
                    seen[c] = k
        elif kind == "reveal_card":
            if seen[e[1]] == none:
                seen[e[1]] = k


def cuts_for(n: int) -> list[int]:
    """The cuts compared for a game of n recorded actions: n, n/2, n/4, ... down to MIN_CUT,
    shortest first (a leak found in a short world spares the longer ones most of their work:
    they only look for an earlier one)."""
    cuts, c = [n], n // 2
    while c >= MIN_CUT:
        cuts.append(c)
        c //= 2
    return cuts[::-1]


def world_seed(seed: int, viewer: int, cut: int) -> str:
    return f"rulespec-counterfactual:{seed}:{viewer}:{cut}"


# ---------------------------------------------------------------------- re-dealing
def shuffle_groups(game, players: int, seed: int, options: Optional[dict], start) -> list:
    """For every card, the group of cards no player can tell it from at the first decision: the
    cards of the last shuffle that held it before then, or else the cards of its zone.  A
    re-deal permutes cards within a group only: swapping cards of two decks shuffled apart (a
    character card into the draw pile) would invent a position the setup cannot make."""
    recorded: list = []
    rng_module.shuffle_recorder = recorded
    try:
        game.new_state(players=players, seed=seed, options=dict(options or {}))
    finally:
        rng_module.shuffle_recorder = None
    group = [-1 - start.where[c] for c in range(start.prog.card_count)]  # its zone, as a negative key
    for i, cards in enumerate(recorded):
        for c in cards:
            group[c] = i
    return group


def redeal(start, game, unseen: set, rng: random.Random, groups: Optional[list] = None):
    """A new state: `start` with the identities of the `unseen` cards permuted among the places
    they occupy (a relabelling: zones, plays, stack entries and card variables follow), each
    within its group (see shuffle_groups; none: one group)."""
    sigma = permutation(start, unseen, rng, groups)
    if sigma is None:
        return None, {}
    return relabelled(start, game, sigma), sigma


def permutation(start, unseen: set, rng: random.Random, groups: Optional[list] = None) -> Optional[dict]:
    """A re-deal: each unseen card -> the card that takes its place (within its group), or None
    when it would change nothing."""
    places = [c for zone in start.zones for c in zone if c in unseen]
    by_group: dict = {}
    for c in places:
        by_group.setdefault(groups[c] if groups is not None else 0, []).append(c)
    sigma = {}
    for members in by_group.values():
        shuffled = list(members)
        rng.shuffle(shuffled)
        sigma.update(zip(members, shuffled))
    if not sigma or all(a == b for a, b in sigma.items()):
        return None
    return sigma


def dealt_again(start, game, players: int, seed: int, options: Optional[dict], sigma: dict, coverage=None):
    """The re-deal `sigma` made before the setup: a new game whose cards start in the order
    that makes the setup's shuffles deal, to every place, the card sigma puts there -- so
    what the setup works out from the cards it dealt (a public total, who starts, its log
    lines) is worked out from the re-dealt cards, and compared.  None when the setup does not
    deal that way (it moved cards by what they are, or drew another number of random
    numbers): the caller then relabels the dealt position instead (see relabelled)."""
    order = [sigma.get(c, c) for c in range(start.prog.card_count)]
    world = game.new_state(players=players, seed=seed, options=dict(options or {}), start_order=order,
                           coverage=coverage)
    if world.rng != start.rng or any(len(a) != len(b) or any(sigma.get(x, x) != y for x, y in zip(a, b))
                                     for a, b in zip(start.zones, world.zones)):
        return None
    return world


def relabelled(start, game, sigma: dict):
    """`start` with every card c replaced by sigma[c]: zones, plays, stack entries and card
    variables follow (a pending choice is asked again, of the new cards)."""
    d = json.loads(start.to_json())  # a deep copy through the public round trip

    def m(c):
        return sigma.get(c, c)
    d["zones"] = [[m(c) for c in zone] for zone in d["zones"]]
    for plays in d["plays"].values():
        for play in plays:
            play[1] = [m(c) for c in play[1]]
    for e in d.get("entries", []):  # stack entries: [id, effect, by, target, cards, against, cancelled]
        if isinstance(e, list) and len(e) > 4 and isinstance(e[4], list):
            e[4] = [m(c) for c in e[4]]
    d["vars"] = [_relabel(value, info.type, info.per_player, m)
                 for info, value in zip(game.model.vars.values(), d["vars"])]
    if "known" in d:  # what players know follows the cards' places
        d["known"] = sorted([m(c), seats] for c, seats in d["known"])
    world = State.from_json(d, game)  # from_json rebuilds `where` from the zones
    ask_again(world)  # (a pending choice offers the re-dealt world's own cards)
    return world


def _relabel(value, t, per_player: bool, m):
    if per_player:
        return [_relabel(x, t, False, m) for x in value]
    name = t.name
    if name == "card":
        return None if value is None else m(value)
    if name == "list":
        return [_relabel(x, t.elem, False, m) for x in value]
    if name == "play" and isinstance(value, list) and len(value) == 2:
        return [value[0], [m(c) for c in value[1]]]
    return value


# ---------------------------------------------------------------------- comparing views
def _who(current: Optional[int], window: bool) -> str:
    if current is None:
        return "nobody to act (the game is over)"
    return f"P{current + 1} " + (WINDOW_PHRASE if window else "to act")


def _describe(v: int, a: tuple, b: tuple) -> Optional[tuple[str, str, list]]:
    """(kind, message, scenario steps that state what v saw in W) for the first difference
    between v's views a (W) and b (W'), or None when they agree.  The steps are candidates,
    best first: each says something true of W that differs in W' (rulespec fuzz keeps the
    first one its scenario confirms)."""
    pv = f"P{v + 1}"
    (cur_a, win_a, obs_a, log_a), (cur_b, win_b, obs_b, log_b) = a, b
    la, lb = obs_a.get("legal_actions", []), obs_b.get("legal_actions", [])
    steps = []
    if cur_a != cur_b:
        steps.append({"expect": {"terminal": True} if cur_a is None else {"active": f"P{cur_a + 1}"}})
    if la != lb:
        steps.append({"legal_exactly": list(la)})
    for path in _diff_paths(obs_a, obs_b):
        step = _expect_obs(v, path, obs_a)
        if step is not None and step not in steps:
            steps.append(step)
    if log_a != log_b:
        for line in log_a:
            if line not in log_b:
                steps.append({"expect": {"viewer": pv, "log_contains": line.strip()}})
                break
        for line in log_b:
            if line not in log_a:
                steps.append({"expect": {"viewer": pv, "log_lacks": line.strip()}})
                break
    if cur_a != cur_b or win_a != win_b:
        kind = "window" if (win_a and cur_a != v) or (win_b and cur_b != v) else "turn"
        return kind, (f"{pv} sees {_who(cur_a, win_a)} as played, but {_who(cur_b, win_b)} "
                      f"when the cards {pv} never saw are re-dealt"), steps
    if la != lb:
        only_a = [t for t in la if t not in lb]
        only_b = [t for t in lb if t not in la]
        if only_a or only_b:
            what = "; ".join(x for x in (
                f"as played {pv} may also {_quote(only_a)}" if only_a else "",
                f"re-dealt {pv} may also {_quote(only_b)}" if only_b else "") if x)
        else:
            what = "the same actions in another order"
        return "legal actions", f"{pv}'s legal actions depend on cards {pv} never saw: {what}", steps
    if obs_a != obs_b:
        path, x, y = _first_diff(obs_a, obs_b)
        return "observation", (f"{pv}'s observation differs at {path}: {_short(x)} as played, {_short(y)} "
                               f"when the cards {pv} never saw are re-dealt"), steps
    if log_a != log_b:
        _, x, y = first_different_line(log_a, log_b)
        return "log", f"{pv}'s log differs: {x!r} as played, {y!r} when the cards {pv} never saw are re-dealt", steps
    return None


def _past_changed(w, v: int, views, k: int) -> Optional[str]:
    """The whole log v reads in W' after k decisions, past lines included, against the lines
    v read in W as each was written (views 0..k hold them): a line once written never changes
    (a later reveal must not show the faces of cards that moved while they were hidden), so
    the two must agree line for line.  None when they do, else what differs."""
    then = [line for i in range(k + 1) for line in (views[i][3].split("\n") if views[i][3] else [])]
    now = w.log_lines(v)
    if now == then:
        return None
    i, x, y = first_different_line(then, now)
    return (f"P{v + 1}'s log changes its past: line {i + 1} read {x!r} as played, but {y!r} later "
            f"when the cards P{v + 1} never saw are re-dealt")


def _diff_paths(a: dict, b: dict) -> list:
    """The paths of the first difference under each top-level key of two observations."""
    out = []
    for k in list(a) + [k for k in b if k not in a]:
        if k != "legal_actions" and a.get(k) != b.get(k):
            out.append(_first_diff(a.get(k), b.get(k), str(k))[0])
    return out


def _quote(texts: list) -> str:
    shown = ", ".join(f"'{t}'" for t in texts[:3])
    return shown + (f" (and {len(texts) - 3} more)" if len(texts) > 3 else "")


def _short(x) -> str:
    text = json.dumps(x, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def _first_diff(a, b, path: str = ""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return _first_diff(a.get(k), b.get(k), f"{path}.{k}" if path else str(k))
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_diff(x, y, f"{path}[{i}]")
    return path, a, b


def _expect_obs(v: int, path: str, obs: dict) -> Optional[dict]:
    """A scenario step for what v saw as played at `path`, if a scenario can say it."""
    pv = f"P{v + 1}"
    top = path.split(".", 1)[0].split("[", 1)[0]
    if top == "zones":
        name = path.split(".", 1)[1] if "." in path else ""
        name = next((z for z in obs["zones"] if name == z or name.startswith(z + ".")
                     or name.startswith(z + "[")), None) if name else None
        if name is not None:
            entry = obs["zones"][name]
            if "count" in entry:
                return {"expect": {"counts": {name: entry["count"]}}}
            return {"expect": {"viewer": pv, "sees": {name: entry["cards"]}}}
    if top == "vars":
        name = path.split(".", 2)[1].split("[", 1)[0] if "." in path else ""
        if name in obs["vars"]:
            value = obs["vars"][name]
            if not _mentions_hidden(value):
                return {"expect": {"vars": {name: value}}}
    if top == "active":
        return {"expect": {"active": obs["active"]} if obs["active"] is not None else {"terminal": True}}
    if top in ("phase", "terminal"):
        return {"expect": {top: obs[top]}}
    if top == "winners":
        return {"expect": {"winners": obs["winners"]}}
    return None  # the stack, say: no scenario step states it


def _mentions_hidden(value) -> bool:
    if isinstance(value, list):
        return any(_mentions_hidden(x) for x in value)
    return value == "hidden card"


# ---------------------------------------------------------------------- the check
class Trace:
    """The game as played (W), seen by one viewer: v's view at every decision, where every
    card lay (to keep re-deals in step), and the first decision at which v saw each card.
    ``record(state)`` is called at every decision and at the end (rulespec fuzz records it
    while it plays, so the check needs no second replay of W)."""

    def __init__(self, viewer: int):
        self.viewer = viewer
        self.start = None
        self.seen: list = []
        self.moved: list = []
        self.views: list = []
        self.layouts: list = []
        self.acts: list = []   # each recorded action as _shape gives it (see act; may be left empty)
        self._log_from = 0
        self._revealed = None  # the zones revealed at the last decision recorded (None: none recorded)

    def _revealed_changed(self, st) -> bool:
        """Is what is revealed other than at the last decision recorded (or is this the first)?
        Then every zone is looked at for cards v sees; else only those cards moved into."""
        now = (tuple(st.revealed), len(st.known))  # (a card known is marked by its look entry)
        changed, self._revealed = now != self._revealed, now
        return changed

    def record(self, st, observation: Optional[dict] = None) -> None:
        """Record the state now (a decision, or the end); `observation`: the viewer's, if it
        was built already."""
        if self.start is None:
            self.start = st.clone()
            self.seen = [-1] * st.prog.card_count
            self.moved = [-1] * st.prog.card_count
        k = len(self.views)
        _mark_seen(st, self.viewer, self._log_from, self.seen, self.moved, k, self._revealed_changed(st))
        self.views.append(_view(st, self.viewer, self._log_from, observation))
        self.layouts.append(tuple(tuple(z) for z in st.zones))  # tuples of ints: untracked by the GC
        self._log_from = len(st.log)

    def act(self, st, action) -> None:
        """Record the action about to be taken at this decision: which cards it names (to make
        the same choice with the re-dealt cards, see _same_choice)."""
        self.acts.append(_shape(st, action))

    def prefix(self, k: int) -> "Trace":
        """The trace of the first k decisions' game (cards first seen later are unseen there)."""
        t = Trace(self.viewer)
        t.start, t.views, t.layouts = self.start, self.views[:k + 1], self.layouts[:k + 1]
        t.acts = self.acts[:k]
        t.seen = [d if d <= k else -1 for d in self.seen]
        t.moved = [d if d <= k else -1 for d in self.moved]
        return t


def record_trace(game, players: int, seed: int, options: Optional[dict], actions: Sequence[str],
                 viewer: int) -> Trace:
    """Replay a recorded game, recording v's trace."""
    st = game.new_state(players=players, seed=seed, options=dict(options or {}))
    trace = Trace(viewer)
    for text in actions:
        trace.record(st)
        action = _legal_named(st, text)
        trace.act(st, action)
        st.apply(action)
    trace.record(st)
    return trace


def _legal_named(st, text: str):
    """The legal action whose text is `text` (the text itself when none is: applying it says why)."""
    return next((a for a in st.legal_actions() if a.text == text), text)


def recorded_acts(game, players: int, seed: int, options: Optional[dict], actions: Sequence[str]) -> list:
    """Each recorded action as _shape gives it, by replaying the game (for a trace that did not
    record them)."""
    st = game.new_state(players=players, seed=seed, options=dict(options or {}))
    acts = []
    for text in actions:
        action = _legal_named(st, text)
        acts.append(_shape(st, action))
        st.apply(action)
    return acts


def counterfactual_check(game, players: int, seed: int, options: Optional[dict], actions: Sequence[str],
                         viewer: int, cuts: Optional[Sequence[int]] = None, trace: Optional[Trace] = None) -> Verdict:
    """Compare v's view of the recorded game (seed, players, options, action texts) with v's
    view of re-deals of the cards v never saw; the first leak found (the earliest decision),
    or none.  Deterministic.  `trace`: v's trace of this very game if it was recorded while
    playing (else the game is replayed).  Raises EngineError if the recorded game itself
    cannot be replayed."""
    actions = list(actions)
    n = len(actions)
    verdict = Verdict(viewer)
    if not 0 <= viewer < players:
        raise ValueError(f"the viewer is a seat from 0 to {players - 1}, not {viewer}")
    if trace is None:
        trace = record_trace(game, players, seed, options, actions, viewer)
    if len(trace.views) != n + 1 or trace.viewer != viewer:
        raise ValueError(f"the trace has {len(trace.views)} decisions for P{trace.viewer + 1}, "
                         f"not {n + 1} for P{viewer + 1}")
    start, seen, views, layouts = trace.start, trace.seen, trace.views, trace.layouts
    playing = _in_play(start, trace.moved)
    st = start
    set_zones = [slot.kind == "set" for slot in st.prog.slots]
    # alike cards (same name and values: interchangeable copies), for putting re-deals in step
    names = getattr(st.prog, "card_kind", None) or st.prog.card_names
    worst = n + 1  # a leak must come before this decision to be the first one
    groups = shuffle_groups(game, players, seed, options, start)
    acts = None  # W's actions as _shape gives them (the trace's, or replayed when first needed)
    for cut in (cuts if cuts is not None else cuts_for(n)):
        cut = min(cut, n)
        unseen = {c for c, k in enumerate(seen) if (k == -1 or k > cut) and playing[c]}
        verdict.hidden = max(verdict.hidden, len(unseen))
        if len(unseen) < 2:
            continue
        sigma = permutation(start, unseen, random.Random(world_seed(seed, viewer, cut)), groups)
        if sigma is None:
            continue
        try:
            w = dealt_again(start, game, players, seed, options, sigma)
            derived = _setup_vars(start, w) if w is not None else {}
            if w is None:
                w = relabelled(start, game, sigma)
        except EngineError as e:  # a re-deal the engine refuses: no world to compare
            verdict.drop("the engine refused the re-deal", f"cut {cut}: the re-deal was refused: {e}")
            continue
        verdict.worlds += 1
        redealt = sum(1 for a, b in sigma.items() if a != b)
        sig = list(range(len(names)))  # W's card -> the card in its place in W'
        for a, b in sigma.items():
            sig[a] = b
        log_from = len(w.log)
        other = _OtherChoices()  # rivals' choices W' made otherwise, to try again should W' be dropped
        dropped = None  # (decision, kind, why): the furthest decision at which W' was found inconsistent
        k = compared = 0
        while k <= min(cut, worst - 1):
            mine = _view(w, viewer, log_from if k else 0)
            verdict.compared += 1
            compared += 1
            why = None
            if mine != views[k] and mine[4] != views[k][4]:
                # the rules announced something else here: W' contradicts the public record
                why = ("an announcement reads otherwise",
                       f"after {k} decisions the re-deal announces {mine[4]!r}, not {views[k][4]!r}")
            else:
                diff = None if mine == views[k] else _describe(viewer, _unpack(views[k]), _unpack(mine))
                if diff is not None:
                    kind, message, expect = diff
                    verdict.leak = Leak(viewer, k, kind, message + f" (re-deal of {redealt} cards unseen by "
                                        f"P{viewer + 1} up to decision {cut})", cut, redealt,
                                        _position(start, sigma, derived), expect, tuple(sorted(sigma.items())),
                                        _chosen(w, actions))
                    worst = k
                    break
                if k == cut:
                    changed = _past_changed(w, viewer, views, k)
                    if changed is not None:
                        verdict.leak = Leak(viewer, k, "log", changed + f" (re-deal of {redealt} cards unseen by "
                                            f"P{viewer + 1} up to decision {cut})", cut, redealt,
                                            _position(start, sigma, derived), [], tuple(sorted(sigma.items())),
                                            _chosen(w, actions))
                        worst = k
                    break
                log_from = len(w.log)
                text = actions[k]
                rival = w.current_player != viewer
                if text not in w.legal_action_strings():
                    if acts is None:
                        acts = trace.acts if len(trace.acts) >= n else recorded_acts(game, players, seed, options,
                                                                                    actions)
                    if rival:  # a rival's choice among cards v never saw: the same choice of the re-dealt cards
                        other.push(k, w, sig, log_from, acts[k], unseen, set_zones)
                    why = (f"not legal: {_what(w, acts[k])}",
                           f"after {k} decisions '{text}' is not legal in the re-deal")
                else:
                    w, sig, why = _play(w, text, k, rival, sig, layouts, views, viewer, log_from, names, set_zones,
                                        verdict)
                    if why is None:
                        k += 1
                        continue
            if dropped is None or k >= dropped[0]:
                dropped = (k,) + why
            # (a search that replays the world over and over is given up: a few times its length)
            found = None
            if compared <= MAX_REPLAYS * (cut + 1):
                found = other.next(layouts, views, viewer, names, set_zones)
            if found is None:
                kind = dropped[1]
                if dropped[0] in other.refused:  # the choices made with the re-dealt cards there: why not
                    kind = f"{kind}, and with the re-dealt cards {other.refused[dropped[0]]}"
                verdict.drop(kind, f"cut {cut}: {dropped[2]}")
                break
            w, sig, k, log_from = found
            verdict.realigned += 1
    return verdict


def _play(w, text: str, k: int, rival: bool, sig: list, layouts, views, viewer: int, log_from: int, names: list,
          set_zones: list, verdict: Verdict):
    """Apply the recorded action `text` (legal in W') to W' and put W' back in step with W:
    (W' state, sig, None) after it, or (W', sig, (kind, why)) when W' errs."""
    # kept to try the corresponding action or chance outcome, should W' fall out of step (below)
    before = (w.clone(), list(sig))
    picks = _Steer()
    try:
        with picks:
            w.apply(text)
    except EngineError as e:
        return w, sig, ("an error in the re-deal", f"after {k} decisions, applying '{text}': {e}")
    step = _realign(layouts[k + 1], w, sig, names, set_zones)
    if step == _OUT_OF_STEP:
        found = _back_in_step(before, text, rival, picks.sizes, layouts[k + 1], views[k + 1], viewer,
                              log_from, names, set_zones)
        if found is not None:
            w, sig = found[:2]
            step = 1
    if step == _OUT_OF_STEP:  # the worlds really differ here: follow the places from now on
        _follow_places(layouts[k + 1], w, sig)
        step = 1
    verdict.realigned += step
    return w, sig, None


class _Steer:
    """While in a `with`: every random pick of an item (rng.pick_steer) is counted (`sizes`: how
    many items each pick had; `picked`: (the rules' site of the pick, the item taken)) and,
    where `forced` says so, takes another index than the one drawn."""

    def __init__(self, forced: Optional[dict] = None):
        self.forced, self.sizes, self.picked = forced or {}, [], []

    def __call__(self, items, i: int, site=None) -> int:
        j = self.forced.get(len(self.sizes), i)
        j = j if j < len(items) else i
        self.sizes.append(len(items))
        self.picked.append((site, items[j]))
        return j

    def __enter__(self):
        rng_module.pick_steer = self
        return self

    def __exit__(self, *exc):
        rng_module.pick_steer = None


def _back_in_step(before: tuple, text: str, rival: bool, sizes: list, layout, view_after, viewer: int,
                  log_from: int, names: list, set_zones: list):
    """(W' state, sig, action text, forced picks) after an action of W' that does to W' what
    `text` did to W, when `text` itself left W' out of step; or None.  Tried: a rival's other
    filling of the same action (_corresponding_action), then the same action with one of its
    random picks (sizes: how many items each had) taking another item.  A pick of an item at
    random among cards v never saw -- "a random black card of P2's hand" -- takes the item at
    the same index of its list in both worlds, and where the list reads hidden cards (the black
    ones) that is another card in W': a chance outcome v sees, though in W' chance could as well
    have taken the card W took.  W' is a world v cannot tell from W only with that outcome."""
    if rival:
        found = _corresponding_action(before, text, layout, view_after, viewer, log_from, names, set_zones)
        if found is not None:
            return found + (found[0].history[-1], {})
    w0, sig0 = before
    for p, n in enumerate(sizes[:MAX_STEERED]):
        for j in range(n):
            c, s, forced = w0.clone(), list(sig0), {p: j}
            try:
                with _Steer(forced):
                    c.apply(text)
            except EngineError:
                continue
            if _realign(layout, c, s, names, set_zones) == _OUT_OF_STEP:
                continue
            if _view(c, viewer, log_from) != tuple(view_after):
                continue
            return c, s, text, forced
    return None


MAX_STEERED = 8  # the random picks of one action tried with another outcome (each on its own)


def _corresponding_action(before: tuple, text: str, layout, view_after, viewer: int, log_from: int,
                          names: list, set_zones: list):
    """(W' state, sig) after the rival's action in W' that does to W' what `text` did to W, or None.

    An action's text names cards by name.  Where the rival's choice names a card v never saw
    (a face-down discard), W' may hold that very card elsewhere in the rival's hand (the re-deal
    put it there) and `text` takes it from there: the same name, another place, and every card
    after it shifts -- a world in which later shuffles deal other cards than W's, though nothing
    v saw differs.  The rival could as well have made the choice that takes the card in W's
    place: that action is tried (same action, another filling) and kept when it leaves W' in
    step with W and v's view after it is W's."""
    w0, sig0 = before
    acts = w0.legal_actions()
    lit = next((a for a in acts if a.text == text), None)
    if lit is None:
        return None
    for a in acts:
        if a.name != lit.name or a.text == text:
            continue
        c = w0.clone()
        try:
            c.apply(a.text)
        except EngineError:
            continue
        s = list(sig0)
        if _realign(layout, c, s, names, set_zones) == _OUT_OF_STEP:
            continue
        if _view(c, viewer, log_from) != tuple(view_after):
            continue
        return c, s
    return None


# ---------------------------------------------------------------------- the same choice, re-dealt
def _shape(st, action) -> tuple:
    """An action as (name, parts): each of its parameters as (kind, value), kind "card", "cards"
    or "use" where the value names cards (a choice's answer is one parameter, of the kind it
    asks for; an answer of the engine's own choices names the cards it lists), None otherwise."""
    name = action.name
    if name == CHOICE:
        pend = st.pending or {}
        value = action.params[0][1]
        named = pend.get("named")
        if named is not None:
            return name, (("cards", named[pend["options"].index(value)]),)
        kind = pend.get("param")
        return name, ((kind if kind in ("card", "cards", "use") else None, value),)
    act = st.prog.actions.get(name)
    slots = dict(act.card_slots) if act is not None else {}
    return name, tuple((slots.get(p), v) for p, v in action.params)


def _as_chosen(shape: tuple, m) -> tuple:
    """A shape with every card c it names as m(c), sets of cards in no order: two actions with the
    same form make the same choice (m: a W card to the W' card in its place; identity for W')."""
    def part(kind, v):
        if kind is None or v is None:
            return v
        if kind == "card":
            return m(v)
        if kind == "cards":
            return sorted(map(m, v))
        return sorted(map(m, v["cards"])), sorted((k, x) for k, x in v.items() if k != "cards")
    return shape[0], [part(kind, v) for kind, v in shape[1]]


def _chosen(w, actions: Sequence[str]) -> tuple:
    """(decision, text) of each action W' took otherwise than W's text (a rival's same choice of
    the re-dealt cards)."""
    return tuple((i, t) for i, (t, a) in enumerate(zip(w.history, actions)) if t != a)


def _what(w, shape: tuple) -> str:
    """The kind of decision a recorded action answered, in a few words (for the tally of drops)."""
    if shape[0] == CHOICE:
        prompt = (w.pending or {}).get("prompt")
        return f"the answer to '{prompt}'" if prompt else "an answer to a choice"
    return f"'{shape[0]}'"


MAX_SAME_CHOICE = 5000  # a decision with more legal actions is not searched for the same choice
MAX_OTHER_CHOICES = 64   # the rivals' other choices tried in one world before it is dropped
MAX_REPLAYS = 4          # ... and the decisions compared in it, at most this many times its cut


def _same_choices(w, shape: tuple, sig: list, unseen: set, set_zones: list):
    """The rival's actions in W' that make W's choice (`shape`) with the re-dealt cards, each
    with the sig that follows from it (W's card -> the card in its place in W'): first the
    choice of the cards in the places of those W's action named (the other parameters as in W),
    then the choices of other cards v never saw in the same set zones (a set has no order: which
    of its hidden cards took which one's place is for the check to say, so the chosen ones are
    made to stand for W's chosen ones).

    The recorded text names cards by name: where a rival chose among cards v never saw (the
    generals offered to them face down), the re-deal put other cards there and the text is not
    legal in W'.  The rival could as well have chosen the cards there, and v sees no difference
    (v's log masks a choice of cards v cannot see); whether v sees the same after it is for
    the caller to compare (_OtherChoices: an announcement that follows from the choice, say,
    must read the same)."""
    if w.count_actions() > MAX_SAME_CHOICE:
        return
    n_cards = len(sig)
    want = _as_chosen(shape, lambda c: sig[c] if 0 <= c < n_cards else c)
    others = []
    for a in w.legal_actions():
        if a.name != shape[0]:
            continue
        mine = _shape(w, a)
        if _as_chosen(mine, _same) == want:
            yield a, list(sig)
        else:
            others.append((a, mine))
    for a, mine in others:
        s = _standing_for(shape, mine, sig, unseen, w.where, set_zones)
        if s is not None:
            yield a, s


def _same(c):
    return c


def _standing_for(shape: tuple, mine: tuple, sig: list, unseen: set, where: list, set_zones: list):
    """sig made so that the cards W' action `mine` names stand for those W's action (`shape`)
    named, by swapping, within one set zone, cards v never saw; None when they cannot (another
    count or zone, other parameters, a card v saw)."""
    if len(shape[1]) != len(mine[1]):
        return None
    n_cards = len(sig)
    pairs = {}  # zone -> ([W's cards], [W' cards]) still to pair
    for (kind, v), (kind2, v2) in zip(shape[1], mine[1]):
        if kind != kind2:
            return None
        if kind is None or v is None or v2 is None:
            if v != v2:
                return None
            continue
        if kind == "use":
            if {k: x for k, x in v.items() if k != "cards"} != {k: x for k, x in v2.items() if k != "cards"}:
                return None
            v, v2 = v["cards"], v2["cards"]
        xs, ys = ([v], [v2]) if kind == "card" else (list(v), list(v2))
        if len(xs) != len(ys) or any(not 0 <= c < n_cards for c in xs + ys):
            return None
        for x in xs:
            if sig[x] in ys:
                ys.remove(sig[x])
            else:
                pairs.setdefault(where[sig[x]], ([], []))[0].append(x)
        for y in ys:
            pairs.setdefault(where[y], ([], []))[1].append(y)
    s = list(sig)
    inv = [0] * n_cards
    for x, y in enumerate(s):
        inv[y] = x
    for zone, (xs, ys) in pairs.items():
        if len(xs) != len(ys) or not set_zones[zone]:
            return None
        for x, y in zip(xs, ys):
            x2 = inv[y]  # W's card in the place of y
            if x not in unseen or x2 not in unseen:
                return None
            y2 = s[x]
            s[x], s[x2], inv[y], inv[y2] = y, y2, x, x2
    return s


def _set_order(layout, w, sig: list, set_zones: list) -> None:
    """Put the cards of W's set zones in W's order in W' (as sig maps them), where W' holds the
    same cards there: a set has no order in the rules, but the engine keeps one, and moving a
    set onto a pile keeps it."""
    for zi, (a, b) in enumerate(zip(layout, w.zones)):
        if set_zones[zi] and len(a) == len(b):
            want = [sig[x] for x in a]
            if want != b and sorted(want) == sorted(b):
                w.edit_zone(zi)[:] = want


class _OtherChoices:
    """The rivals' choices W' made otherwise than W's text (see _same_choices), the latest last,
    each with the choices still untried: when the world is found inconsistent later, the
    latest choice is made otherwise (a search for a world v cannot tell from W, within
    MAX_OTHER_CHOICES tries)."""

    def __init__(self):
        self.stack: list = []
        self.tries = MAX_OTHER_CHOICES
        self.refused: dict = {}  # decision -> why the last choice tried there was not kept (for the tally)

    def push(self, k: int, w, sig: list, log_from: int, shape: tuple, unseen: set, set_zones: list) -> None:
        """W' at decision k, where the rival's recorded action (`shape`) is not legal."""
        w0, sig0 = w.clone(), list(sig)
        self.stack.append((k, w0, sig0, log_from, _same_choices(w0, shape, sig0, unseen, set_zones)))

    def next(self, layouts, views, viewer: int, names: list, set_zones: list):
        """(W' state, sig, the decision after the choice, log_from) after the next untried choice
        that leaves W' in step with W and shows v what W did, or None."""
        while self.stack and self.tries > 0:
            k, w0, sig0, log_from, choices = self.stack[-1]
            for a, s in choices:
                self.tries -= 1
                c = w0.clone()
                if s != sig0:  # W's order in the set zones whose hidden cards swapped roles (see _realign)
                    _set_order(layouts[k], c, s, set_zones)
                try:
                    c.apply(a)
                except EngineError:
                    self.refused[k] = "an error"
                    continue
                if _realign(layouts[k + 1], c, s, names, set_zones) == _OUT_OF_STEP:
                    self.refused[k] = "other cards move"
                    continue
                view = _view(c, viewer, log_from)
                if view == tuple(views[k + 1]):
                    return c, s, k + 1, log_from
                self.refused[k] = ("an announcement reads otherwise" if view[4] != views[k + 1][4]
                                   else "the viewer sees otherwise")
                if self.tries <= 0:
                    break
            else:
                self.stack.pop()
        return None


def _in_play(start, moved: list) -> list:
    """Which cards take part in the game: all but those that never move (from the start of the
    game to the end of the record, setup included) and lie, at the first decision, in their
    zone in the order the rules file declares them: set aside by the setup, never shuffled,
    never dealt (a deck of an option left in a box while the option is off).  A shuffled deck is
    in play even where none of its cards moved: the shuffle dealt them their places."""
    playing = [True] * len(moved)
    for zone in start.zones:
        still = [c for c in zone if moved[c] == -1]
        if still and still == sorted(still):
            for c in still:
                playing[c] = False
    return playing


def _realign(layout: list, w, sig: list, names: list, set_zones: list) -> int:
    """Keep W' in step with W after an action: W' must hold, in every place, the card that
    `sig` maps W's card there to.

    Two things can move them apart although nothing v sees differs.  (1) Copies: an action
    text names cards by name, so where W' holds two alike cards (same name and values; one of
    them re-dealt there) the engine may take the other copy.  Alike cards are interchangeable,
    so the two copies simply swap roles in `sig` (`names` holds what makes cards alike).  (2) Order in a set zone: taking a card from another place in
    a hand shifts the cards after it.  A set zone has no order in the rules, but the engine
    keeps one (moving the hand onto a pile later keeps it), so W's order is restored in W'.
    Anything else (the rules moved other cards: they read a card v has not seen, or a rival's
    action named a card v never saw that lies elsewhere in W') is left to the caller: 0 in
    step, 1 put back in step, _OUT_OF_STEP otherwise (see _corresponding_action, and
    _follow_places when nothing puts W' back in step)."""
    zones = w.zones
    if all(len(a) == len(b) and all(sig[x] == y for x, y in zip(a, b)) for a, b in zip(layout, zones)):
        return 0
    w_where = w.where
    # (1) cards in the wrong zone: pair each with a same-named card misplaced the other way
    misplaced: dict = {}
    for zi, zone in enumerate(layout):
        for x in zone:
            y = sig[x]
            if w_where[y] != zi:
                misplaced.setdefault((names[y], zi, w_where[y]), []).append(x)
    for (name, want, got), xs in list(misplaced.items()):
        others = misplaced.get((name, got, want), [])
        while xs and others:
            x1, x2 = xs.pop(), others.pop()
            sig[x1], sig[x2] = sig[x2], sig[x1]
    # (2) the right cards in a set zone, in another order: restore W's order
    apart = False
    for zi, (a, b) in enumerate(zip(layout, zones)):
        want = [sig[x] for x in a]
        if want == b:
            continue
        if set_zones[zi] and len(want) == len(b) and sorted(want) == sorted(b):
            w.edit_zone(zi)[:] = want  # (w's clones share its zones' lists until changed)
        else:
            apart = True
    return _OUT_OF_STEP if apart else 1


_OUT_OF_STEP = 2  # _realign: W' could not be put back in step


def _follow_places(layout: list, w, sig: list) -> None:
    """The worlds really differ: `sig` follows the places from here on."""
    for a, b in zip(layout, w.zones):
        if len(a) == len(b):
            for x, y in zip(a, b):
                sig[x] = y


def _setup_vars(start, world) -> dict:
    """The variables the setup worked out otherwise in a world dealt again before it (see
    dealt_again), as a scenario's position writes them: a position is set after the setup, so
    the re-dealt scenario gives them their re-dealt values."""
    if world.vars == start.vars:
        return {}
    shown = world.observation(None)["vars"]
    out = {}
    for (name, info), a, b in zip(world.game.model.vars.items(), start.vars, world.vars):
        if a != b:
            none = "nobody" if info.type.name == "player" else "none"
            out[name] = _none_as(shown[name], none)
    return out


def _none_as(value, none: str):
    if isinstance(value, list):
        return [_none_as(x, none) for x in value]
    return none if value is None else value


def _position(start, sigma: dict, derived: Optional[dict] = None) -> dict:
    """The re-dealt start position as a scenario writes it: every zone's cards by name (bottom
    to top), the plays of plays zones, and the variables the setup `derived` from the
    re-dealt cards."""
    slots = start.prog.slots
    # (by label where copies differ, "Strike ♥10": a name would place any copy)
    names = [start.prog.card_label(start, c) for c in range(start.prog.card_count)]
    zones, plays = {}, {}
    for zi, zone in enumerate(start.zones):
        slot = slots[zi]
        if slot.owner is not None and slot.owner >= start.n:
            continue
        if zi in start.prog.plays_slots:
            recorded = start.plays.get(zi, [])
            if recorded:
                plays[slot.name] = [[f"P{p + 1}", [names[sigma.get(c, c)] for c in cs]] for p, cs in recorded]
            continue
        zones[slot.name] = [names[sigma.get(c, c)] for c in zone]
    out = {"zones": zones}
    if plays:
        out["plays"] = plays
    if derived:
        out["vars"] = dict(derived)
    return out
