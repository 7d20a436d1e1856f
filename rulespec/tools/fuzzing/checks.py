"""Whole-game property checks: play a game and verify, at every decision, what must always hold.

Used by the property tests (tests/test_properties.py) and meant for a fuzz command: every
check returns a list of problems (readable strings, empty when all is well) instead of
asserting, and ``play_checked`` stops at the first decision that shows a problem.

What is checked (any game, any rules file):
  * cards are conserved: every card is in exactly one zone, ``where`` agrees, plays zones
    record only cards they hold;
  * a running game always has a legal action, and the game ends within a step bound;
  * ``to_json`` / ``from_json`` is an exact round trip;
  * replaying the seed and the history of action strings gives the same state;
  * secrecy: an observation shows only counts for zones the player cannot see, and the
    player's own legal actions never pick another player's hidden cards (whether texts,
    logs or the turn order give hidden cards away is the counterfactual check's business:
    rulespec/tools/fuzzing/secrecy.py);
  * the rules' own ``invariant`` declarations hold;
  * the log's past never changes: every player's log, read again, starts with the lines that
    player read before (``LogMemory``: a later reveal must not show the faces of cards that
    moved while they were hidden).
"""
from __future__ import annotations

import json
import random
from typing import Callable, Iterable, Optional

import attrs

from interpreter.errors import EngineError
from interpreter.serialise import StateFormatError, log_entries_problem, state_json
from interpreter.state import State

Chooser = Callable[[State, random.Random], object]


def choose_random(st: State, rng: random.Random):
    return rng.choice(st.legal_actions())


def choose_mixed(st: State, rng: random.Random):
    """Mostly random, sometimes the first or the last legal action (reaches odd corners)."""
    legal = st.legal_actions()
    r = rng.random()
    if r < 0.1:
        return legal[0]
    if r < 0.2:
        return legal[-1]
    return rng.choice(legal)


CHOOSERS = {"random": choose_random, "mixed": choose_mixed}


# ---------------------------------------------------------------------- single checks
def _cards_fine(st: State) -> bool:
    """The quick yes of check_cards: each card once in some zone, where[] agreeing, no cards
    in absent seats' zones, plays only of present cards.  On a no, check_cards looks again
    slowly to say what is wrong."""
    prog, where, n = st.prog, st.where, st.n
    count = prog.card_count
    if len(where) != count:
        return False
    every: set = set()
    for zi, zone in enumerate(st.zones):
        if not zone:
            continue
        owner = prog.slots[zi].owner
        if owner is not None and owner >= n:
            return False
        every.update(zone)
        if not _cards_here(zone, zi, where, count):
            return False
    out = st.out_of_game()  # copies the setup does not use: in no zone, where[] says so
    if len(every) != count - len(out) or sum(map(len, st.zones)) != count - len(out):  # each card once
        return False
    if out and (not every.isdisjoint(out) or any(where[c] != prog.out_slot for c in out)):
        return False
    for zi, plays in st.plays.items():
        if zi not in prog.plays_slots:
            return False
        in_plays = [c for _, cs in plays for c in cs]
        if any(not cs for _, cs in plays) or len(in_plays) != len(set(in_plays)) \
                or any(not 0 <= c < count or where[c] != zi for c in in_plays):
            return False
    return True


_INT_ONLY = frozenset([int])


def _cards_here(zone: list, zi: int, where: list, count: int) -> bool:
    """Is every item of zone zi (not empty) a card id (an int, not a bool, from 0 to count - 1)
    whose where[] names zi?  In C (types, min, max, a map over where): a draw pile of a
    hundred cards is looked at after every draw."""
    return set(map(type, zone)) <= _INT_ONLY and min(zone) >= 0 and max(zone) < count \
        and len(where) == count and set(map(where.__getitem__, zone)) == {zi}


def _moved_cards_fine(st: State, zones: Iterable[int]) -> bool:
    """_cards_fine for the given zones only, and the number of cards in all zones (see
    check_cards).  Each card once: each of these zones holds distinct card ids whose where[]
    names it (so none of them is also in another zone), and as many cards lie in all the
    zones as there are ids."""
    prog, where, n, all_zones = st.prog, st.where, st.n, st.zones
    count = prog.card_count
    if len(where) != count or sum(map(len, all_zones)) != count - len(st.out_of_game()):
        return False
    slots, plays = prog.slots, st.plays
    for zi in zones:
        if type(zi) is not int or not 0 <= zi < len(all_zones):
            return False
        zone = all_zones[zi]
        if zone:
            owner = slots[zi].owner
            if owner is not None and owner >= n:
                return False
            if not _cards_here(zone, zi, where, count):
                return False
            if len(zone) > 1 and len(set(zone)) != len(zone):
                return False
        recorded = plays.get(zi)
        if recorded is not None:
            if zi not in prog.plays_slots:
                return False
            in_plays = [c for _, cs in recorded for c in cs]
            if any(not cs for _, cs in recorded) or len(in_plays) != len(set(in_plays)) \
                    or any(not 0 <= c < count or where[c] != zi for c in in_plays):
                return False
    return True


def zones_moved_since(st: State, log_from: int) -> Optional[set]:
    """The zones that cards moved into or out of since log entry `log_from`: every change of
    what a zone holds is a move, and every move is logged (State.move_cards; a shuffle only
    reorders a zone).  None when a log entry is not what the engine writes (the round trip
    check says what is wrong with it; the cards are then checked whole)."""
    touched: set = set()
    try:
        for e in st.log[log_from:]:
            if e[0] == "move":
                touched.add(e[1])
                touched.update(src for _, src in e[2])
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return touched


def check_cards(st: State, log_from: Optional[int] = None) -> list[str]:
    """Every card in exactly one zone, st.where consistent, plays only of cards present.

    With `log_from`, only the zones cards moved into or out of since that log entry are
    looked at (and the total number of cards): a check at every decision that costs what
    the decision moved, not what the game holds.  Any problem found is then described by
    the whole check."""
    prog = st.prog
    problems = []
    moved = zones_moved_since(st, log_from) if log_from is not None else None
    if _cards_fine(st) if moved is None else _moved_cards_fine(st, moved):
        return problems
    seen: dict[int, int] = {}
    for zi, zone in enumerate(st.zones):
        slot = prog.slots[zi]
        if slot.owner is not None and slot.owner >= st.n and zone:
            problems.append(f"zone {slot.name} of a seat not in the game holds {len(zone)} cards")
        for c in zone:
            if c in seen:
                problems.append(f"card #{c} ({prog.card_names[c]}) is in {prog.slots[seen[c]].name} "
                                f"and in {slot.name}")
            seen[c] = zi
    out = st.out_of_game()
    in_game = set(range(prog.card_count)) - out
    if set(seen) != in_game:
        missing = sorted(in_game - set(seen))
        problems.append(f"{len(seen)} cards in zones, expected {len(in_game)}; missing ids {missing[:10]}")
    for c in sorted(out & set(seen)):
        problems.append(f"card #{c} ({prog.card_names[c]}) is in {prog.slots[seen[c]].name}, but this game "
                        f"leaves it out (its setup uses fewer copies)")
    if len(st.where) != prog.card_count:
        problems.append(f"'where' has {len(st.where)} entries for {prog.card_count} cards")
    for c in sorted(out - set(seen)):
        if c < len(st.where) and st.where[c] != prog.out_slot:
            problems.append(f"where[{c}] names a zone, but card #{c} ({prog.card_names[c]}) is out of this game")
    for c, zi in seen.items():
        if c < len(st.where) and st.where[c] != zi:
            said = prog.slots[st.where[c]].name if 0 <= st.where[c] < len(prog.slots) else "no zone"
            problems.append(f"where[{c}] says {said} but the card is in {prog.slots[zi].name}")
    for zi, plays in st.plays.items():
        if zi not in prog.plays_slots:
            problems.append(f"plays recorded for {prog.slots[zi].name}, which is not a plays zone")
        in_plays = [c for _, cs in plays for c in cs]
        if len(in_plays) != len(set(in_plays)):
            problems.append(f"a card is in two plays of {prog.slots[zi].name}")
        for c in in_plays:
            if c not in st.zones[zi]:
                problems.append(f"a play in {prog.slots[zi].name} records card #{c}, which is not there")
        if any(not cs for _, cs in plays):
            problems.append(f"an empty play is recorded in {prog.slots[zi].name}")
    if not problems:  # what the quick check refused and the description above does not cover
        odd = [c for zone in st.zones for c in zone if type(c) is not int or not 0 <= c < prog.card_count]
        problems.append(f"a zone holds {odd[0]!r}, which is not a card" if odd else
                        "the zones and the index of where each card is disagree")
    return problems


def check_round_trip(st: State, log_from: Optional[int] = None, history_from: Optional[int] = None,
                     texts: Optional[dict] = None) -> list[str]:
    """to_json -> from_json -> to_json gives the same text (and from_json accepts it).

    With ``log_from`` the log and the history (append-only, and the bulk of a long game's
    JSON) are left out of the whole-state round trip; the log entries from that index on
    are checked on their own (each survives JSON and is an entry from_json accepts: one of
    the kinds the engine writes, of its shape), and so are the history entries from ``history_from``
    on (default: the newest one), each of which must be an action's text.  Log entries are
    never changed once written, so checking each new entry once, at the next check, and the
    whole state now and then (see full_round_trip_due) covers what checking the whole
    state every time would, at a cost that does not grow with the game.  ``texts``, if
    given, receives the whole state's JSON as "state" when the whole state was checked (a
    caller about to compare it with a replay needs it too)."""
    if log_from is None:
        text = st.to_json()
        if texts is not None:
            texts["state"] = text
        return _reloads(text, st.game)
    d = st.to_dict()
    entries = d["log"][log_from:]
    d["log"] = []
    newest = d["history"][-1:] if history_from is None else d["history"][history_from:]
    d["history"] = []
    problems = _reloads(state_json(d), st.game)
    # the new log and history entries as from_json would read them (State.from_json takes both
    # as they are, once its validator has seen that every entry fits)
    entries_text = json.dumps(entries, separators=(",", ":"))
    read = json.loads(entries_text)
    if json.dumps(read, separators=(",", ":")) != entries_text:
        problems.append("a log entry does not survive JSON: " + entries_text[:200])
    bad = log_entries_problem(read, d, st.game, log_from) if not problems else None
    if bad is not None:
        problems.append(f"the log holds what is not a log entry the engine writes: {bad}")
    bad = next((h for h in newest if not isinstance(h, str)), None)
    if bad is not None:
        problems.append(f"the history holds {bad!r}, which is not an action's text")
    return problems


def _reloads(text: str, game) -> list[str]:
    """The problems of reading `text` (a state's JSON) back: from_json refuses it, or writes
    another text."""
    try:
        again = State.from_json(text, game).to_json()
    except StateFormatError as e:
        return [f"from_json refuses what to_json wrote: {e}"]
    if again != text:
        return [f"to_json/from_json is not a round trip ({_first_difference(text, again)})"]
    return []


def full_round_trip_due(step: int) -> bool:
    """Check the whole state (log and history included) at decisions 0, 1, 2, 4, 8, ...: the
    cost of those full checks, spread over a game, stays constant per decision however long
    the game runs (the other decisions check the state without its log and history).
    rulespec fuzz checks the whole state at those of them that its sampling draws."""
    return step & (step - 1) == 0


def _first_difference(a: str, b: str) -> str:
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"first difference at character {i}: ...{a[max(0, i - 30):i + 30]!r} vs ...{b[max(0, i - 30):i + 30]!r}"


def _hidden_names(st: State, player: int) -> set[str]:
    """Names of cards `player` cannot see anywhere (no visible card shares the name).  (No
    check uses it any more -- see check_secrecy -- but tools and tests may.)"""
    names = st.prog.card_names
    visible, hidden = set(), set()
    for zi, zone in enumerate(st.zones):
        target = visible if st.can_see(zi, player) else hidden
        target.update(names[c] for c in zone)
    return hidden - visible


def check_secrecy(st: State, observations: Optional[dict] = None) -> list[str]:
    """No observation shows the faces of cards its player cannot see; the active player's
    legal actions never choose (as a card parameter) cards hidden from them.

    A card's *name* in an action's text is no leak by itself: "guess that P2 holds a Rose"
    names a card the player chose to name, not where a card is.  (This check used to flag
    every text naming a card hidden from its player, and so reported games that let players
    guess or claim cards.)  Whether texts, logs or who is asked give hidden cards away is
    checked by comparing the game with re-deals of the cards a player never saw: the
    counterfactual check of rulespec/tools/fuzzing/secrecy.py, which rulespec fuzz runs after each game.

    `observations`, if given, receives every player's observation (seat -> dict), so that a
    caller who needs one of them does not build it again."""
    prog = st.prog
    problems = []
    label = getattr(prog, "card_label", None)
    names = prog.card_names
    shown_set = set(getattr(st, "shown", ()))
    n, st_zones = st.n, st.zones

    def face_of(c: int) -> str:  # how an observation shows a card: its label, or its name
        return label(st, c) if label is not None else names[c]
    absent = []  # the zones of seats not in the game: no observation shows them
    plan = []  # (name, index, who can see it) of every other zone, worked out once for all players
    for slot in prog.slots:
        if slot.owner is not None and slot.owner >= n:
            absent.append(slot.name)
        else:
            plan.append((slot.name, slot.index, [st.can_see(slot.index, p) for p in range(n)]))
    glimpses = getattr(prog, "glimpses", False)
    faces: dict = {}  # zone index -> its cards' faces, computed once for all players
    hidden: dict = {}  # zone index -> how an observation shows it to those who cannot see it
    for p in range(n):
        obs = st.observation(p)
        if observations is not None:
            observations[p] = obs
        zones = obs["zones"]
        for name in absent:
            if name in zones:
                problems.append(f"P{p + 1}'s observation shows {name}, a seat not in the game")
        for name, zi, seen_by in plan:
            entry = zones.get(name)
            if entry is None:
                problems.append(f"P{p + 1}'s observation lacks zone {name}")
            elif not seen_by[p]:
                # a count, and the cards of the zone the player sees on their own: revealed on
                # their own (shown to everyone), the top of a `top public` pile, cards they know
                expected = hidden.get(zi) if not glimpses else None  # (glimpses differ by player)
                if expected is None:
                    expected = _count_view(st, zi, p, shown_set, face_of)
                    if not glimpses:
                        hidden[zi] = expected
                if entry != expected:  # (an empty "shown" list may be there or not)
                    shown = expected.get("shown", [])
                    if entry.get("count") != expected["count"] or entry.get("shown", []) != shown \
                            or {k: v for k, v in entry.items() if k != "shown"} != \
                            {k: v for k, v in expected.items() if k != "shown"}:
                        problems.append(f"P{p + 1}'s observation shows more than a count for {name}: {entry}")
            else:
                face = faces.get(zi)
                if face is None:
                    face = faces[zi] = [face_of(c) for c in st_zones[zi]]
                if entry.get("cards") != face:
                    problems.append(f"P{p + 1}'s observation of {name} is wrong: {entry}")
        if p != st.current_player and obs["legal_actions"]:
            problems.append(f"P{p + 1}'s observation lists legal actions out of turn")
    p = st.current_player
    if p is not None:
        kinds_of: dict = {}  # action name -> {parameter: kind}
        for a in st.legal_actions():
            kinds = kinds_of.get(a.name)
            if kinds is None:
                act = prog.actions.get(a.name)  # "no response" in a window is not a declared action
                kinds = kinds_of[a.name] = {q.name: q.kind for q in act.params} if act is not None else {}
            for name, value in a.params:
                kind = kinds.get(name)
                if value is None:
                    continue
                cards = [value] if kind == "card" else list(value) if kind == "cards" else \
                    list(value.get("cards", [])) if kind == "use" and isinstance(value, dict) else []
                for c in cards:
                    if c >= prog.card_count:
                        continue  # a face-down pick: the player takes an unseen card blind, naming none
                    if not st.can_see_card(c, p):
                        problems.append(f"P{p + 1} may choose '{a.text}', which picks a card hidden from them "
                                        f"({prog.card_names[c]} in {prog.slots[st.where[c]].name})")
    return problems


def _count_view(st: State, zi: int, p: int, shown_set: set, face_of) -> dict:
    """How player p's observation must show a zone p does not see: its count, and the cards p sees
    on their own (asked card by card: shown to all, a top card, known to p), the top card of a
    `top public` pile and the cards p knows among them."""
    zone = st.zones[zi]
    view: dict = {"count": len(zone)}
    glimpses = getattr(st.prog, "glimpses", False)
    seen = [c for c in zone if st.can_see_card(c, p)] if glimpses else [c for c in zone if c in shown_set]
    if seen:
        view["shown"] = [face_of(c) for c in seen]
        if zi in st.prog.top_slots:
            view["top"] = face_of(zone[-1])
        known = [c for c in seen if p in st.known.get(c, ())]
        if known:
            view["known"] = [face_of(c) for c in known]
    return view


def check_invariants(st: State) -> list[str]:
    return [msg for _, msg in invariant_problems(st)]


def invariant_problems(st: State) -> list[tuple[str, str]]:
    """(the invariant's text, the problem) for each declared invariant that fails now."""
    problems = []
    for inv, f in st.prog.invariants:
        if inv.at is not None and inv.at.name != st.phase:
            continue
        try:
            ok = f(st, {})
        except EngineError as e:
            problems.append((inv.text, f"invariant \"{inv.text}\" could not be evaluated: {e}"))
            continue
        except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError) as e:
            problems.append((inv.text, f"invariant \"{inv.text}\" could not be evaluated: {type(e).__name__}: {e}"))
            continue
        if not ok:
            problems.append((inv.text, f"invariant \"{inv.text}\" ({st.prog.path}:{inv.span.line}) does not hold "
                                       f"in phase '{st.phase}'"))
    return problems


def check_state(st: State, round_trip: bool = True, secrecy: bool = True, log_from: Optional[int] = None) -> list[str]:
    return [msg for _, msg in state_problems(st, round_trip, secrecy, log_from)]


def state_problems(st: State, round_trip: bool = True, secrecy: bool = True,
                   log_from: Optional[int] = None, observations: Optional[dict] = None,
                   history_from: Optional[int] = None, cards_from: Optional[int] = None,
                   texts: Optional[dict] = None) -> list[tuple[str, str]]:
    """Every problem with the state now, as (check name, message) pairs.  The check names
    ("cards", "invariant: TEXT", "stuck", "turn", "round trip", "secrecy") let a fuzzer tell
    one kind of failure from another.  `observations`: see check_secrecy; `log_from`,
    `history_from`, `texts`: see check_round_trip; `cards_from`: check only the zones cards
    moved into or out of since that log entry (see check_cards)."""
    problems = [("cards", p) for p in check_cards(st, cards_from)]
    problems += [("invariant: " + text, msg) for text, msg in invariant_problems(st)]
    if not st.is_terminal():
        if not st.legal_actions():
            problems.append(("stuck", f"no legal action in phase '{st.phase}' for P{st.active + 1}, "
                                      f"and the game is not over"))
        if st.current_player is None or not 0 <= st.current_player < st.n:
            problems.append(("turn", f"the player to act is {st.current_player}"))
    elif st.current_player is not None or st.legal_actions():
        problems.append(("turn", "the game is over but someone may still act"))
    if round_trip:
        problems += [("round trip", p) for p in check_round_trip(st, log_from, history_from, texts)]
    if secrecy:
        problems += [("secrecy", p) for p in check_secrecy(st, observations)]
    return problems


def replay(game, st: State) -> State:
    """A new game with st's seed and options, replaying st's history of action strings."""
    other = game.new_state(players=st.n, seed=st.seed, options=dict(st.opts))
    for text in st.history:
        other.apply(text)
    return other


# ---------------------------------------------------------------------- the log's past
LOG_CHECK = "secrecy (log)"


class LogMemory:
    """What every player read in the log so far, line by line.

    A log line shows what its viewer could see when it was written; a later reveal or
    conceal changes only later lines (docs/language.md, Secrecy).  So the whole log a player
    reads now must start with the lines they read before.  ``problems(st, whole)`` renders the
    entries written since its last call for every viewer and remembers them; when `whole`,
    or when what is revealed changed since its last call (the moment a re-rendering log would
    show old lines otherwise), it reads every viewer's whole log again and compares.  Called at
    every decision, it is exact; called at a sample of decisions, the entries written between
    two calls are read at the second one (so a line rendered from the state of a later
    decision goes unseen there)."""
    __slots__ = ("lines", "entries", "shown")

    def __init__(self, players: int):
        self.lines: dict = {v: [] for v in range(players)}
        self.entries = 0  # the log entries read so far
        self.shown = None  # what was revealed at the last call: zones, and how many cards on their own

    def problems(self, st: State, whole: bool = False) -> list[str]:
        shown = (tuple(st.revealed), len(st.shown), len(st.known))
        changed = self.shown is not None and shown != self.shown
        self.shown = shown
        out = []
        viewers = list(self.lines)
        if whole or changed:
            for v, now in zip(viewers, st.log_lines_for(viewers)):
                before = self.lines[v]
                if now[:len(before)] != before:
                    out.append(_past_line_changed(v, before, now))
                    break
        if len(st.log) > self.entries:
            for v, new in zip(viewers, st.log_lines_for(viewers, self.entries)):
                self.lines[v].extend(new)
            self.entries = len(st.log)
        return out


def first_different_line(a: list, b: list) -> tuple[int, str, str]:
    """(index, a's line, b's line) of the first line where two logs differ ("(nothing)" past
    the end of the shorter one), for a message."""
    i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return i, a[i].strip() if i < len(a) else "(nothing)", b[i].strip() if i < len(b) else "(nothing)"


def _past_line_changed(v: int, before: list, now: list) -> str:
    i, x, y = first_different_line(before, now)
    return f"P{v + 1}'s log changed a past line: line {i + 1} read {x!r} when it was written, and reads {y!r} now"


# ---------------------------------------------------------------------- a whole game
@attrs.define
class GameReport:
    players: int
    seed: int
    options: dict
    agent_seed: int
    steps: int = 0
    terminal: bool = False
    problems: list = attrs.field(factory=list)
    history: list = attrs.field(factory=list)
    state: Optional[State] = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def describe(self) -> str:
        head = (f"{self.players} players, seed {self.seed}, options {self.options}, agent seed {self.agent_seed}: "
                f"{self.steps} decisions")
        if self.ok:
            return head + (", game over" if self.terminal else "")
        return head + "\n  " + "\n  ".join(self.problems[:10])


def play_checked(game, players: int, seed: int, options: Optional[dict] = None, agent_seed: int = 0,
                 chooser: Chooser = choose_random, max_steps: int = 20_000, round_trip: bool = True,
                 secrecy: bool = True, check_replay: bool = True,
                 full_round_trip_every: Optional[int] = None) -> GameReport:
    """Play one game with `chooser`, checking the state before every decision and at the end.

    The JSON round trip is checked at every step: the whole state (log included) at the
    end and every `full_round_trip_every` steps (default: at steps 0, 1, 2, 4, 8, ...), the
    state without the log plus the new log entries at the other steps.  Stops at the first problem (a rules runtime error is
    reported as a problem too)."""
    report = GameReport(players, seed, dict(options or {}), agent_seed)
    rng = random.Random(agent_seed)
    try:
        st = game.new_state(players=players, seed=seed, options=options)
    except EngineError as e:
        report.problems.append(f"the game could not start: {e}")
        return report
    report.state = st
    log_checked = 0
    memory = LogMemory(players) if secrecy else None
    try:
        while True:
            full = st.is_terminal() or (full_round_trip_due(report.steps) if full_round_trip_every is None
                                        else report.steps % max(1, full_round_trip_every) == 0)
            problems = check_state(st, round_trip=round_trip, secrecy=secrecy,
                                   log_from=None if full else log_checked)
            if memory is not None and not problems:  # (a log entry the round trip refuses is not read)
                problems = memory.problems(st, whole=full)
            log_checked = len(st.log)
            if problems:
                report.problems += [f"after {report.steps} decisions: {p}" for p in problems]
                break
            if st.is_terminal():
                report.terminal = True
                break
            if report.steps >= max_steps:
                report.problems.append(f"the game did not end within {max_steps} decisions")
                break
            st.apply(chooser(st, rng))
            report.steps += 1
    except EngineError as e:
        report.problems.append(f"after {report.steps} decisions: {type(e).__name__}: {e}")
    report.history = list(st.history)
    if report.ok and check_replay:
        try:
            again = replay(game, st)
        except EngineError as e:
            report.problems.append(f"replaying the history failed: {e}")
        else:
            if again.to_json() != st.to_json():
                report.problems.append("replaying the seed and the history gives a different state ("
                                       + _first_difference(st.to_json(), again.to_json()) + ")")
    return report


def state_summary(st: State) -> str:
    """A short JSON summary of a state for problem reports."""
    return json.dumps({"phase": st.phase, "active": st.active, "zones": st.zones, "vars": st.vars})
