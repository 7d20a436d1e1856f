"""Scenario tests: fix a position, script the choices, assert the results.

This docstring is the reference of the format; the "Scenario files" section of
docs/language.md says the same in Markdown (tests/test_scenario_format.py checks
that both name every key).

A scenario file is YAML.  Each YAML document in the file (documents are
separated by ``---``) is one scenario.  The game is created with
``new_state(players, seed, options)``, which runs to its first decision; then
``position`` (if any) is set, then the steps run in order.

Top-level keys
    rules: ../../../games/mygame.rules   required; relative to this YAML file (or absolute)
    name: bidding example                the test's name; default: the file name (``FILE #2``
                                         for the second document of a file without names)
    doc: free text                       ignored
    players: 3                           default: the game's minimum
    seed: 1                              default: 0
    options: {bidding: true}             game options by name, as ``--option NAME=VALUE``
    check_invariants: false              default true: see "Invariants" below
    face_down_asks: decline              default ask: see "Face-down asks" below
    position: {...}                      optional; see "position"
    steps: [...]                         optional; see "steps"

Names
    Players are P1..Pn (seat 1..n; ``p1`` is accepted).  Where a player may be
    none (``active`` in an expect, variables of type player, ``winners``),
    write ``nobody`` -- as the engine prints it -- or ``none`` (or YAML's
    ``null`` / ``~``).  Zones are named as the engine names its zone instances:
    ``stock``, ``hand[P2]``.  Inside YAML flow collections ({ } and [ ])
    brackets are syntax, so quote zone names there: ``counts: {"hand[P1]": 2}``;
    block style needs no quotes.  Cards are named by their card name; in a list
    each name is one physical card (write a name twice for two copies).  Where
    copies differ, a copy's label as the engine prints it (``Strike ♥10``)
    names that very copy, in positions and in expectations.

position
    Writes the state directly.  Every key is optional.

    phase: bidding      the phase to put the game in (default: the current one)
    enter: false        false (default): the phase waits for a decision (its
                        ``end when`` and ``actor`` are evaluated, its ``enter``
                        block is not run); true: the phase is entered from the
                        start, so its ``enter`` block runs.  Use true for phases
                        without actions.
    active: P1          who is to act (an ``actor`` clause of the phase overrides it)
    zones:              zone -> card names, bottom to top (the last is the top
      open[P1]: [red 8, blue 8]    card, the first one dealt).  Each name takes
      stock: []                    a physical card of that name not placed yet
                                   and not in a kept zone.  Not for plays zones.
    plays:              plays zones (e.g. a trick in progress): a list of
      trick: [[P1, [red 5]], [P2, [red A]]]      [player, [card names]] in play
                                   order; every play has at least one card
    rest: aside         where every card not placed goes (default: the zone
                        cards start in); an ordinary zone, not kept.  Only used
                        if zones or plays are given.  'rest: stay': every card
                        not placed stays in its zone (below the cards placed
                        there), e.g. the draw pile keeps its other cards.
    keep: [box]         a zone or a list of zones left exactly as they are; their
                        cards are not available for placing.  Only with zones or plays.
    vars:               variables by name.  A per-player variable takes a list
      points: [10, 3, 4]           of n values, a mapping {P1: 10} that sets
      holder: P2                   only some players, or one plain value for
                                   every player.  Values by type: int, bool
                                   (true/false), player (P1..Pn or nobody),
                                   card (a name, or none), an enum member's name,
                                   text, a list of these ([] for none), a play
                                   ([player, [cards]]).
    revealed: [Cao Cao] cards shown to everyone wherever they lie (as the
                        statement 'reveal CARDS' shows them); replaces the list.
    stack:              the response stack, bottom entry first; each entry
      - {effect: bolt, by: P1, target: P2, cards: [Bolt], fields: {damage: 4}}
                        (cards by name, not moved; 'cancelled: true' marks it
                        cancelled).  The top entry's window opens at once.
    check_invariants: false        this position only; overrides the scenario's

    If neither zones nor plays is given, the cards stay where they are;
    ``zones: {}`` moves every card that is not kept to the rest zone.
    Setting a position clears the game-over flag and the winners, restarts the
    log that log_contains / log_lacks read, and runs the engine to its next
    decision.  After a position, ``check: replay`` is no longer possible (the
    history alone does not give the position).

Invariants
    After a position is set (and the engine has run to its next decision), the
    rules' ``invariant`` declarations that apply in that phase must hold, as
    they hold at every decision of a real game; one that does not fails the
    scenario: ``the position breaks invariant "..." (rules:line) ...``.  An
    impossible position is a bug in the scenario.  Give ``check_invariants:
    false`` (to the scenario or to one position), with a comment saying why,
    only for a position that is meant to be partial.

Face-down asks
    An optional trigger of a face-down card asks every player who could hold
    such a card, whether or not they do ("abilities of face-down cards ...",
    answered "no"), so that being asked gives nothing away.  With many such
    cards in a game these asks are everywhere.  ``face_down_asks: decline``
    answers "no" for the scenario wherever a player is asked and holds no card
    that fires (the only answer is "no"), before every step but ``position``
    and before each action of a ``play`` step: the steps never see such an
    ask.  Asks where the player does hold such a card are
    never answered for them.

steps
    A list; each step is a mapping with exactly one of these keys, plus
    ``note:`` (free text, in any step) and ``because:`` (with ``illegal``):

    - play: "bid 1 on group 2"      apply an action (or a list of actions, in
                                    order); each must be legal when its turn comes
    - illegal: "bid 0 on group 2"   the action (or each of a list) is not legal now,
                                    the engine refuses it and the state is unchanged
      because: "cannot bid more"    optional: text the engine's explanation must
                                    contain (ignoring case)
    - legal: ["bid 0 on group 1"]   each of these actions is legal now (none is applied)
    - legal_exactly: [...]          these are exactly the legal actions now
    - legal_count: 12               how many actions are legal now
    - position: {...}               set a new position (as above)
    - finish: 500                   take the first legal action at every decision until the
                                    game is over; fails if it is not over within 500 decisions
    - check: all                    run the checks fuzzing runs (rulespec/tools/fuzzing/checks.py)
                                    on the state now, by name or a list of names:
                                    cards (every card in exactly one zone), invariants
                                    (the rules' invariant declarations), legal (a running
                                    game has a legal action and a player to act, a
                                    finished one has none), round_trip (to_json /
                                    from_json is exact), secrecy (no player's view or
                                    legal actions reveal hidden cards), replay (the seed
                                    and the history give the same state; only without a
                                    position).  all: every one that applies.
    - expect: {...}                 check the state (every key is optional):
        active: P2                  who is to act; nobody once the game is over
        phase: trick
        terminal: true              is the game over?
        vars: {points: [10, 3, 4], holder: P2}   as in a position; {P2: 3} compares P2 only
        zones: {"open[P1]": [red 8]}   contents compared as multisets of names:
                                    order ignored, copies counted
        order: {draw: [a, b, c]}    contents compared in order, bottom to top (the
                                    last is the top card); for pile zones only
        plays: {trick: [[P1, [red 5]]]}   plays compared in order; the cards of a
                                    play in any order
        counts: {box: 8}            number of cards in zones
        scores: [1, 2, 3]           or {P1: 1}
        winners: [P1]               in any order; [] or nobody: no winner (a game
                                    not over has none)
        log_contains: "wins the trick"   text (or list of texts) in the log
        log_lacks: "Game over"           text (or list) not in the log
        viewer: P2                  read log_contains / log_lacks as P2's log, and
        sees: {"hand[P1]": [9]}     check P2's observation: the cards P2 sees in a zone
                                    (as a multiset)
        hidden: ["hand[P1]"]        zones P2 sees only as a count of cards

    The log checked by log_contains / log_lacks is everything written since
    the last position was set (from the start of the game if none was).

Action strings are the engine's texts, as ``rulespec play`` lists them.  Cards
joined with `` + `` at the end of an action may be given in any order:
``follow blue 6 (open) + red 6 (open)`` matches ``follow red 6 (open) + blue 6 (open)``.

Every problem -- YAML syntax, an unknown or repeated key, card, zone, phase,
variable or player, an illegal ``play``, a broken invariant, a failed
expectation -- raises ScenarioError whose message is one line:
``file:line: what went wrong`` (expected vs actual for a failed expectation).
"""
from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable, Optional, TextIO

import attrs
import yaml
from yaml.constructor import SafeConstructor

from rulespec.lang.diagnostics import RulesError, did_you_mean

from interpreter.compiler import player_name
from interpreter.errors import EngineError, IllegalActionError
from interpreter.explain import match_action
from interpreter.machine import idle_secret_ask
from interpreter.state import CHECK, ENTER

__all__ = ["Scenario", "ScenarioError", "collect_files", "load_file", "run_file", "run_paths", "run_scenario"]

TOP_KEYS = ("rules", "name", "doc", "players", "seed", "options", "check_invariants", "face_down_asks", "position",
            "steps")
REST_STAYS = "stay"  # 'rest: stay': the cards not placed stay where they are
POSITION_KEYS = ("phase", "enter", "active", "zones", "plays", "rest", "keep", "vars", "revealed", "stack",
                 "check_invariants")
STACK_ENTRY_KEYS = ("effect", "by", "target", "cards", "fields", "cancelled")
STEP_KEYS = ("play", "illegal", "legal", "legal_exactly", "legal_count", "position", "expect", "check", "finish")
STEP_EXTRA_KEYS = ("because", "note")  # allowed next to the step's one key
CHECKS = ("cards", "invariants", "legal", "round_trip", "secrecy", "replay")  # for `check:`
EXPECT_KEYS = ("active", "phase", "terminal", "vars", "zones", "order", "plays", "counts", "scores", "winners",
               "log_contains", "log_lacks", "viewer", "sees", "hidden")
NOBODY = ("nobody", "none")  # how a scenario writes "no player" (the engine prints "nobody")


class ScenarioError(Exception):
    """A bad scenario file or a failed scenario; the message is ``file:line: problem``."""

    def __init__(self, path: str, line: Optional[int], message: str):
        self.path, self.line, self.message = path, line, message
        super().__init__(f"{path}:{line}: {message}" if line else f"{path}: {message}")


@attrs.define
class Scenario:
    path: str        # the file as shown in messages
    name: str
    line: int        # where its YAML document starts
    node: yaml.Node = attrs.field(repr=False)
    file: str = ""   # the file's absolute path


# ---------------------------------------------------------------------- YAML nodes with lines
_constructor = SafeConstructor()


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _display_path(path) -> str:
    p = str(path)
    try:
        rel = os.path.relpath(p)
    except ValueError:
        return p
    return rel if not rel.startswith(".." + os.sep + ".." + os.sep) else p


def _show(v) -> str:
    """A value as it would be written in the scenario (YAML flow style)."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}"
    return str(v)


def load_file(path) -> list[Scenario]:
    """Parse a scenario file into its scenarios (one per YAML document); checks only the YAML."""
    shown = _display_path(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ScenarioError(shown, None, f"cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ScenarioError(shown, None, "not a UTF-8 text file") from None
    try:
        docs = [d for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        context = getattr(e, "context", None)
        msg = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
        if problem == "mapping values are not allowed here":
            msg += "; put text that contains ': ' in quotes"
        if mark is not None and "flow" in str(context or ""):
            lines = text.splitlines()
            if mark.line < len(lines) and re.search(r"\w\[\w+\]", lines[mark.line]):
                msg += "; inside { } or [ ] write zone names in quotes: {\"hand[P1]\": ...}"
        raise ScenarioError(shown, mark.line + 1 if mark else None, msg) from None
    except RecursionError:
        raise ScenarioError(shown, None, "the YAML nests too deeply") from None
    if not docs:
        raise ScenarioError(shown, None, "the file holds no scenario")
    out: list[Scenario] = []
    seen: Counter = Counter()
    stem = Path(path).stem
    for i, doc in enumerate(docs):
        if not isinstance(doc, yaml.MappingNode):
            raise ScenarioError(shown, _line(doc), "a scenario is a mapping of keys (rules:, steps:, ...)")
        name = None
        for k, v in doc.value:
            if isinstance(k, yaml.ScalarNode) and k.value == "name" and isinstance(v, yaml.ScalarNode):
                name = str(v.value).strip()
        if not name:
            name = stem if len(docs) == 1 else f"{stem} #{i + 1}"
        seen[name] += 1
        if seen[name] > 1:
            name = f"{name} #{seen[name]}"
        out.append(Scenario(shown, name, _line(doc), doc, os.path.abspath(path)))
    return out


# ---------------------------------------------------------------------- running
# A scenario runs in five small pieces that share one _Session:
#   _Reader        plain values out of YAML nodes (text, numbers, mappings), failing at the node's line
#   _Terms         the game's names in those values: players, zones, cards, variables, typed values
#   _Positions     'position:' writes the state, then checks the rules' invariants
#   _Steps         one step: play, illegal, legal..., check, finish (expect goes to _Expectations)
#   _Expectations  'expect:', one method per key
# _Runner reads the top-level keys, starts the game and drives the others.

@attrs.define
class _Session:
    """What the pieces of one running scenario share."""
    sc: Scenario
    game: object = None
    st: object = None                 # the State under test (set once the game starts)
    log_mark: int = 0                 # log_contains / log_lacks read the log from here
    positioned: bool = False          # a position was set: the history alone no longer replays the game
    check_invariants: bool = True     # the scenario's default for its positions
    decline_idle_asks: bool = False   # 'face_down_asks: decline'


class _Reader:
    """Plain values out of YAML nodes; every problem is a ScenarioError at the node's line."""

    def __init__(self, sc: Scenario):
        self.path, self.default_line = sc.path, sc.line

    def fail(self, node: Optional[yaml.Node], msg: str):
        raise ScenarioError(self.path, _line(node) if node is not None else self.default_line, msg)

    def scalar(self, node: yaml.Node, what: str):
        if isinstance(node, yaml.SequenceNode):
            self.fail(node, f"{what} should be a single value, not a list")
        if isinstance(node, yaml.MappingNode):
            hint = "; put text that contains ': ' in quotes" if len(node.value) == 1 else ""
            self.fail(node, f"{what} should be a single value, not a mapping{hint}")
        try:
            return _constructor.construct_object(node)
        except yaml.YAMLError as e:
            self.fail(node, f"{what}: {getattr(e, 'problem', e)}")

    def is_null(self, node: yaml.Node, what: str) -> bool:
        """Is node YAML's null (an empty value, ~ or null)?"""
        return isinstance(node, yaml.ScalarNode) and self.scalar(node, what) is None

    def is_nobody(self, node: yaml.Node, what: str) -> bool:
        """Is node null, 'nobody' or 'none' (how a scenario writes 'no player')?"""
        if not isinstance(node, yaml.ScalarNode):
            return False
        v = self.scalar(node, what)
        return v is None or (isinstance(v, str) and v.strip().lower() in NOBODY)

    def text(self, node: yaml.Node, what: str) -> str:
        v = self.scalar(node, what)
        if not isinstance(v, str) or not v.strip():
            self.fail(node, f"{what} should be text, not {_show(v)}")
        return v.strip()

    def integer(self, node: yaml.Node, what: str) -> int:
        v = self.scalar(node, what)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(node, f"{what} should be a whole number, not {_show(v)}")
        return v

    def boolean(self, node: yaml.Node, what: str) -> bool:
        v = self.scalar(node, what)
        if not isinstance(v, bool):
            self.fail(node, f"{what} should be true or false, not {_show(v)}")
        return v

    def mapping(self, node: yaml.Node, what: str, allowed: Optional[Iterable[str]] = None) -> list:
        """[(key, key node, value node)] of a mapping node; unknown or repeated keys are errors."""
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{what} should be a mapping (key: value)")
        allowed = list(allowed) if allowed is not None else None
        out, seen = [], set()
        for k, v in node.value:
            key = self.scalar(k, f"a key in {what}")
            key = str(key) if key is not None else "null"
            if key in seen:
                self.fail(k, f"'{key}' is given twice in {what}")
            seen.add(key)
            if allowed is not None and key not in allowed:
                hint = did_you_mean(key, allowed)
                self.fail(k, f"unknown key '{key}' in {what}" + (f"; {hint}" if hint else f" (known: {', '.join(allowed)})"))
            out.append((key, k, v))
        return out

    def keyed(self, node: yaml.Node, what: str, allowed: Iterable[str]) -> dict:
        """{key: (key node, value node)} of a mapping with known keys."""
        return {k: (kn, v) for k, kn, v in self.mapping(node, what, allowed)}

    def seq(self, node: yaml.Node, what: str, scalar_ok: bool = False) -> list:
        if isinstance(node, yaml.SequenceNode):
            return list(node.value)
        if scalar_ok and isinstance(node, yaml.ScalarNode):
            return [node]
        self.fail(node, f"{what} should be a list")


class _Terms:
    """The game's names inside YAML values: players, zones, cards, variables, typed values."""

    def __init__(self, read: _Reader, session: _Session):
        self.read, self.session = read, session
        self.fail = read.fail
        self._labels = None

    @property
    def st(self):
        return self.session.st

    def player(self, node: yaml.Node, what: str, nullable: bool = False) -> Optional[int]:
        """A seat index from P1..Pn; None for nobody/none/null when nullable."""
        if nullable and self.read.is_nobody(node, what):
            return None
        v = self.read.scalar(node, what)
        s = str(v).strip() if v is not None else ""
        if len(s) >= 2 and s[0] in "Pp" and s[1:].isdigit():
            k = int(s[1:])
            if 1 <= k <= self.st.n:
                return k - 1
            self.fail(node, f"{what}: there is no {s.upper()} in a {self.st.n}-player game")
        self.fail(node, f"{what}: expected a player P1..P{self.st.n}{' or nobody' if nullable else ''}, not {_show(v)}")

    def slot(self, key: str, knode: yaml.Node, what: str = "zone") -> int:
        """The zone instance named key ('stock', 'hand[P2]')."""
        prog = self.st.prog
        for s in prog.slots:
            if s.name == key:
                if s.owner is not None and s.owner >= self.st.n:
                    self.fail(knode, f"{what} '{key}': there is no {player_name(s.owner)} in a {self.st.n}-player game")
                return s.index
        names = [s.name for s in prog.slots if s.owner is None or s.owner < self.st.n]
        hint = did_you_mean(key, names) if key not in prog.zone_base else None
        if key in prog.zone_base:
            hint = f"'{key}' is a per-player zone: write e.g. '{key}[P1]'"
        self.fail(knode, f"unknown {what} '{key}'" + (f"; {hint}" if hint else f" (zones: {', '.join(names)})"))

    def card_name(self, node: yaml.Node) -> str:
        """A card's name ("Strike": any copy), or one copy's label as the engine prints it
        ("Strike ♥10": that copy, for games whose copies differ)."""
        v = self.read.scalar(node, "a card")
        name = str(v).strip() if v is not None else ""
        names = self.st.prog.card_names
        if name not in names and name not in self.labels():
            hint = did_you_mean(name, names) or did_you_mean(name, list(self.labels()))
            self.fail(node, f"unknown card '{name}'" + (f"; {hint}" if hint else ""))
        return name

    def labels(self) -> dict:
        """label -> the ids of the cards shown so (only labels that differ from the card's name)."""
        if self._labels is None:
            st = self.st
            prog = st.prog
            self._labels = {}
            for c in range(prog.card_count):
                label = prog.card_label(st, c)
                if label != prog.card_names[c]:
                    self._labels.setdefault(label, []).append(c)
        return self._labels

    def matches(self, want: str, c: int) -> bool:
        """Does card c answer to `want`, a card name or a label?"""
        return self.st.prog.card_names[c] == want or c in self.labels().get(want, ())

    def unmatched(self, want: list, cards: list) -> tuple[list, list]:
        """Compare wanted names or labels with cards as multisets: (missing, unexpected names).
        Labels are matched first: they fit fewer cards than names do."""
        left = list(cards)
        missing = []
        for w in sorted(want, key=lambda w: w in self.st.prog.card_names):
            c = next((c for c in left if self.matches(w, c)), None)
            if c is None:
                missing.append(w)
            else:
                left.remove(c)
        return missing, [self.shown(c) for c in left]

    def shown(self, c: int) -> str:
        """How a failure message names card c: its label where copies differ, else its name."""
        st = self.st
        return st.prog.card_label(st, c) if self.labels() else st.prog.card_names[c]

    def card_id(self, name: str, taken=()) -> int:
        """A card answering to a name or a label (not one of `taken`)."""
        for c in range(self.st.prog.card_count):
            if c not in taken and self.matches(name, c):
                return c
        raise KeyError(name)

    def card_list(self, node: yaml.Node, what: str) -> list:
        """[(name, node)] of a list of card names (a single name is allowed)."""
        if self.read.is_null(node, what):
            return []
        return [(self.card_name(n), n) for n in self.read.seq(node, what, scalar_ok=True)]

    def card_names(self, node: yaml.Node, what: str) -> list[str]:
        return [name for name, _ in self.card_list(node, what)]

    def value(self, node: yaml.Node, t, what: str):
        """A YAML value converted to the engine's representation of type t."""
        name = t.name
        if name == "list":
            if self.read.is_null(node, what):
                return []
            return [self.value(n, t.elem, what) for n in self.read.seq(node, what)]
        if name == "int":
            return self.read.integer(node, what)
        if name == "bool":
            return self.read.boolean(node, what)
        if name == "player":
            return self.player(node, what, nullable=True)
        if name == "card":
            v = self.read.scalar(node, what)
            if v is None or v == "none":
                return None
            return self.card_id(self.card_name(node))
        if name == "enum":
            members = self.st.game.model.enums[t.enum].members
            v = self.read.scalar(node, what)
            if v not in members:
                self.fail(node, f"{what}: expected one of {', '.join(members)}, not {_show(v)}")
            return v
        if name == "text":
            v = self.read.scalar(node, what)
            return "" if v is None else str(v)
        if name == "play":
            items = self.read.seq(node, what)
            if len(items) != 2:
                self.fail(node, f"{what}: a play is written [player, [cards]]")
            chosen: list = []
            for n, _ in self.card_list(items[1], what):
                chosen.append(self.card_id(n, chosen))
            return [self.player(items[0], what), chosen]
        self.fail(node, f"{what}: values of type {t} cannot be written in a scenario")

    def display(self, v, t):
        """An engine value as it is written in a scenario (players as P1 or nobody, cards by name)."""
        if v is None:
            return "nobody" if t.name == "player" else None
        if t.name == "list":
            return [self.display(x, t.elem) for x in v]
        if t.name == "player":
            return player_name(v)
        if t.name == "card":
            return self.st.prog.card_names[v]
        if t.name == "play":
            return [player_name(v[0]), [self.st.prog.card_names[c] for c in v[1]]]
        return v

    def var(self, key: str, knode: yaml.Node):
        """(the variable's VarInfo, its index in st.vars)."""
        model = self.st.game.model
        info = model.vars.get(key)
        if info is None:
            hint = did_you_mean(key, model.vars)
            self.fail(knode, f"unknown variable '{key}'" + (f"; {hint}" if hint else f" (variables: {', '.join(model.vars) or 'none'})"))
        return info, self.st.prog.var_index[key]

    def per_player(self, node: yaml.Node, what: str, convert: Callable) -> dict:
        """{player: convert(value node, player)} from a list of n values, a mapping {P1: value},
        or one plain value for every player."""
        n = self.st.n
        if isinstance(node, yaml.ScalarNode) and not self.read.is_null(node, what):
            return {p: convert(node, p) for p in range(n)}
        if isinstance(node, yaml.SequenceNode):
            if len(node.value) != n:
                self.fail(node, f"{what}: a list needs one value per player ({n}), not {len(node.value)}")
            return {p: convert(v, p) for p, v in enumerate(node.value)}
        if isinstance(node, yaml.MappingNode):
            out = {}
            for key, knode, v in self.read.mapping(node, what):
                p = self.player(knode, f"a key in {what}")
                out[p] = convert(v, p)
            return out
        self.fail(node, f"{what}: give a list of {n} values, a mapping like {{P1: ...}} or one value for all")


class _Positions:
    """'position:': writes zones, plays, variables, phase and turn directly into the state."""

    def __init__(self, terms: _Terms):
        self.terms, self.read, self.session = terms, terms.read, terms.session
        self.fail = terms.fail

    def set(self, node: yaml.Node):
        session = self.session
        st, prog = session.st, session.st.prog
        items = self.read.keyed(node, "position", POSITION_KEYS)
        phase = st.phase
        if "phase" in items:
            pnode = items["phase"][1]
            phase = self.read.text(pnode, "phase")
            if phase not in prog.phases:
                hint = did_you_mean(phase, prog.phases)
                self.fail(pnode, f"unknown phase '{phase}'" + (f"; {hint}" if hint else f" (phases: {', '.join(prog.phases)})"))
        enter = self.read.boolean(items["enter"][1], "enter") if "enter" in items else False
        check = session.check_invariants
        if "check_invariants" in items:
            check = self.read.boolean(items["check_invariants"][1], "check_invariants")
        if "zones" in items or "plays" in items:
            self.place_cards(items)
        elif "rest" in items or "keep" in items:
            key = "rest" if "rest" in items else "keep"
            self.fail(items[key][0], f"'{key}' only applies when the position gives zones or plays")
        if "vars" in items:
            self.set_vars(items["vars"][1])
        if "revealed" in items:
            self.set_revealed(items["revealed"][1])
        if "active" in items:
            st.active = self.terms.player(items["active"][1], "active")
        st.frames, st.pending = [], None  # a position starts afresh: no block is half run
        st.stack, st.entries, st.turn_active = [], [], None
        if "stack" in items:
            self.set_stack(items["stack"][1])
        st.terminal = False
        st.winners_ = None
        st.phase = phase
        st.stage = ENTER if enter else CHECK
        st._legal = st._legal_map = None
        st.log.append(["text", f"-- scenario position: phase {phase} --"])
        session.positioned = True
        session.log_mark = len(st.log) - 1
        try:
            st._run_guarded(st._advance)
        except EngineError as e:
            self.fail(node, f"after setting the position: {e}")
        if check:
            self.check_invariants(node)

    def set_vars(self, node: yaml.Node):
        st, terms = self.session.st, self.terms
        for key, knode, v in self.read.mapping(node, "vars"):
            info, i = terms.var(key, knode)
            what = f"variable '{key}'"
            if info.per_player:
                for p, x in terms.per_player(v, what, lambda vn, p: terms.value(vn, info.type, what)).items():
                    st.vars[i][p] = x
            else:
                st.vars[i] = terms.value(v, info.type, what)

    def set_revealed(self, node: yaml.Node):
        """revealed: the cards shown to everyone wherever they lie (as 'reveal CARDS' shows them),
        by name or label; the list replaces the cards shown before."""
        st, terms = self.session.st, self.terms
        shown: list = []
        for name, cn in terms.card_list(node, "revealed"):
            try:
                shown.append(terms.card_id(name, shown))
            except KeyError:
                self.fail(cn, f"revealed: no other '{name}' card to show")
        st.shown = shown

    def set_stack(self, node: yaml.Node):
        """stack: entries bottom first, each {effect, by, target, cards, fields, cancelled}; the
        window of the top entry opens when the position is set."""
        st, terms, read = self.session.st, self.terms, self.read
        model = st.game.model
        used: set = set()
        for entry in read.seq(node, "stack"):
            items = read.keyed(entry, "a stack entry", STACK_ENTRY_KEYS)
            if "effect" not in items:
                self.fail(entry, "a stack entry needs 'effect: NAME'")
            enode = items["effect"][1]
            effect = read.text(enode, "effect")
            if effect not in model.effects:
                hint = did_you_mean(effect, model.effects)
                self.fail(enode, f"unknown effect '{effect}'" + (f"; {hint}" if hint else ""))
            by = terms.player(items["by"][1], "by") if "by" in items else st.active
            target = terms.player(items["target"][1], "target", nullable=True) if "target" in items else None
            cards = []
            for name, cn in (terms.card_list(items["cards"][1], "cards") if "cards" in items else []):
                c = next((c for c in range(st.prog.card_count)
                          if st.prog.card_names[c] == name and c not in used), None)
                if c is None:
                    self.fail(cn, f"no card '{name}' is left for this stack")
                used.add(c)
                cards.append(c)
            types = {f.name: f for f in model.effects[effect].fields}
            data = {fname: default(st, {}) for fname, default in st.prog.effects[effect].fields}
            if "fields" in items:
                for key, knode, v in read.mapping(items["fields"][1], "fields"):
                    if key not in types:
                        self.fail(knode, f"effect '{effect}' has no field '{key}'"
                                         + (f" (fields: {', '.join(types)})" if types else ""))
                    data[key] = terms.value(v, _field_type(types[key]), f"field '{key}'")
            st.push_entry(effect, by, target, cards, None, data)
            if "cancelled" in items and read.boolean(items["cancelled"][1], "cancelled"):
                st.entries[-1][6] = True

    def check_invariants(self, node: yaml.Node):
        """A position must be one the game can reach: the rules' invariants hold at every decision
        of a real game, so a position that breaks one tests rules in a state that never happens."""
        from rulespec.tools.fuzzing.checks import invariant_problems
        problems = invariant_problems(self.session.st)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.fail(node, f"impossible position: {problems[0][1]}{more}; fix the position, or give it "
                            f"'check_invariants: false' if it is meant to be partial")

    def place_cards(self, items: dict):
        """Put the named cards in the zones and plays given, every other card not kept in the rest zone."""
        st, prog = self.session.st, self.session.st.prog
        n_cards = prog.card_count
        names = prog.card_names
        keep: set = set()
        if "keep" in items:
            for zn in self.read.seq(items["keep"][1], "keep", scalar_ok=True):
                keep.add(self.terms.slot(self.read.text(zn, "a zone in keep"), zn))
        rest = self.rest_zone(items, keep)
        free: dict = {}   # card name -> the ids of its cards still to place
        for c in range(n_cards):
            if st.where[c] not in keep:
                free.setdefault(names[c], []).append(c)
        total = Counter(names)

        def take(name: str, node: yaml.Node) -> int:
            if name not in total:  # a label: that very copy, if it is still free
                for c in self.terms.labels().get(name, ()):
                    pool = free.get(names[c], [])
                    if c in pool:
                        pool.remove(c)
                        return c
                self.fail(node, f"no '{name}' card is left to place (each label names one copy; "
                                f"it may be kept or placed already)")
            pool = free.get(name)
            if not pool:
                kept = total[name] - sum(1 for c in range(n_cards) if names[c] == name and st.where[c] not in keep)
                extra = f" ({kept} kept in {', '.join(prog.slots[k].name for k in sorted(keep))})" if kept else ""
                self.fail(node, f"too many '{name}' cards: the game has {total[name]}{extra}")
            return pool.pop(0)

        new_zones: dict = {}
        new_plays: dict = {}
        if "zones" in items:
            for key, knode, v in self.read.mapping(items["zones"][1], "zones"):
                zi = self.terms.slot(key, knode)
                if zi in keep:
                    self.fail(knode, f"zone '{key}' is listed in keep, so it cannot be given cards")
                if zi in prog.plays_slots:
                    self.fail(knode, f"'{key}' is a plays zone: set it under 'plays:' as [[P1, [cards]], ...]")
                new_zones[zi] = [take(name, cn) for name, cn in self.terms.card_list(v, f"zone '{key}'")]
        if "plays" in items:
            for key, knode, v in self.read.mapping(items["plays"][1], "plays"):
                zi = self.terms.slot(key, knode)
                if zi not in prog.plays_slots:
                    self.fail(knode, f"'{key}' is not a plays zone: give its cards under 'zones:'")
                if zi in keep:
                    self.fail(knode, f"zone '{key}' is listed in keep, so it cannot be given plays")
                plays, cards = [], []
                for entry in self.read.seq(v, f"plays in '{key}'"):
                    parts = self.read.seq(entry, f"a play in '{key}'")
                    if len(parts) != 2:
                        self.fail(entry, f"a play is written [player, [cards]], e.g. [P1, [{names[0]}]]")
                    p = self.terms.player(parts[0], f"a play in '{key}'")
                    cs = [take(name, cn) for name, cn in self.terms.card_list(parts[1], f"a play in '{key}'")]
                    if not cs:
                        self.fail(entry, "a play needs at least one card")
                    plays.append([p, cs])
                    cards.extend(cs)
                new_zones[zi] = cards
                new_plays[zi] = plays
        placed = {c for cs in new_zones.values() for c in cs}
        zones = [list(z) if zi in keep else [] for zi, z in enumerate(st.zones)]
        for zi, cs in new_zones.items():
            zones[zi] = cs
        if rest is None:  # 'rest: stay': every card not placed stays in its zone, below the cards placed there
            for zi, z in enumerate(st.zones):
                if zi not in keep:
                    zones[zi] = [c for c in z if c not in placed] + zones[zi]
        else:
            zones[rest] = zones[rest] + [c for c in range(n_cards) if c not in placed and st.where[c] not in keep]
        st.zones = zones
        st.where = [0] * n_cards
        for zi, z in enumerate(zones):
            for c in z:
                st.where[c] = zi
        st.plays = {zi: v for zi, v in st.plays.items() if zi in keep}
        st.plays.update(new_plays)
        assert sum(len(z) for z in zones) == n_cards

    def rest_zone(self, items: dict, keep: set) -> Optional[int]:
        """Where the cards not placed go: 'rest:', or the zone the game's cards start in; None
        for 'rest: stay' (they stay where they are)."""
        prog = self.session.st.prog
        if "rest" in items:
            rnode = items["rest"][1]
            if self.read.text(rnode, "rest") == REST_STAYS and REST_STAYS not in prog.zone_base:
                return None
            rest = self.terms.slot(self.read.text(rnode, "rest"), rnode)
        else:
            start = self.session.st.game.model.cards_start
            if start is None or prog.slots[prog.zone_base[start]].name != start:
                self.fail(items.get("zones", items.get("plays"))[0],
                          "say where the cards not placed go with 'rest: ZONE'")
            rest = prog.zone_base[start]
        if rest in keep:
            self.fail(items["rest"][1], f"'{prog.slots[rest].name}' cannot be both kept and the rest zone")
        if rest in prog.plays_slots:
            self.fail(items["rest"][1], f"'{prog.slots[rest].name}' is a plays zone; the rest must go to an ordinary zone")
        return rest


class _Steps:
    """One step of 'steps:': its key decides what it does."""

    def __init__(self, terms: _Terms, positions: _Positions, expectations: "_Expectations"):
        self.terms, self.read, self.session = terms, terms.read, terms.session
        self.positions, self.expectations = positions, expectations
        self.fail = terms.fail

    @property
    def st(self):
        return self.session.st

    def run(self, node: yaml.Node):
        items = self.read.mapping(node, "a step", STEP_KEYS + STEP_EXTRA_KEYS)
        main = [(k, kn, v) for k, kn, v in items if k in STEP_KEYS]
        extra = {k: (kn, v) for k, kn, v in items if k not in STEP_KEYS}
        if len(main) != 1:
            self.fail(node, "a step needs exactly one of: " + ", ".join(STEP_KEYS)
                      + (f" (this one has {', '.join(k for k, _, _ in main)})" if main else ""))
        key, knode, v = main[0]
        if key not in ("position", "play"):
            self.decline_idle_asks()
        if "because" in extra and key != "illegal":
            self.fail(extra["because"][0], "'because' goes with an 'illegal' step")
        if key == "play":
            for an in self.read.seq(v, "play", scalar_ok=True):
                self.play(an)
        elif key == "illegal":
            because = self.read.text(extra["because"][1], "because") if "because" in extra else None
            for an in self.read.seq(v, "illegal", scalar_ok=True):
                self.illegal(an, because)
        elif key == "legal":
            for an in self.read.seq(v, "legal", scalar_ok=True):
                self.resolve(an)
        elif key == "legal_exactly":
            self.legal_exactly(v)
        elif key == "legal_count":
            self.legal_count(v)
        elif key == "position":
            self.positions.set(v)
        elif key == "check":
            self.check(v)
        elif key == "finish":
            self.finish(v)
        else:
            self.expectations.check(v)

    # ------------------------------------------------------------ actions
    def legal_now(self, node: yaml.Node) -> list:
        try:
            return self.st.legal_action_strings()
        except EngineError as e:
            self.fail(node, f"listing the legal actions failed: {e}")

    def action_text(self, node: yaml.Node) -> str:
        return " ".join(self.read.text(node, "an action").split())

    def resolve(self, node: yaml.Node) -> str:
        """The legal action text written at node (cards after ' + ' in any order), or a failure."""
        text = self.action_text(node)
        found = match_action(text, self.legal_now(node))
        if found is None:
            self.fail(node, self.st.explain_illegal(text))
        return found

    def play(self, node: yaml.Node):
        self.decline_idle_asks()
        action = self.resolve(node)
        try:
            self.st.apply(action)
        except EngineError as e:
            self.fail(node, f"'{action}': {e}")

    def decline_idle_asks(self):
        """'face_down_asks: decline': answer "no" for every player asked about abilities of
        face-down cards they do not hold."""
        if self.session.decline_idle_asks:
            while idle_secret_ask(self.st):
                self.st.apply("no")

    def illegal(self, node: yaml.Node, because: Optional[str]):
        text = self.action_text(node)
        st = self.st
        found = match_action(text, self.legal_now(node))
        if found is not None:
            self.fail(node, f"expected '{text}' to be illegal, but it is legal for {player_name(st.active)} in phase '{st.phase}'")
        before = st.to_json()
        try:
            st.apply(text)
        except IllegalActionError as e:
            reason = str(e)
        except EngineError as e:
            self.fail(node, f"'{text}': {e}")
        else:
            self.fail(node, f"expected '{text}' to be illegal, but the engine applied it")
        if st.to_json() != before:
            self.fail(node, f"the illegal action '{text}' changed the state")
        if because is not None and because.lower() not in reason.lower():
            self.fail(node, f"expected the reason to mention '{because}', got: {reason}")

    def legal_exactly(self, node: yaml.Node):
        want = [self.resolve(an) for an in self.read.seq(node, "legal_exactly", scalar_ok=True)]
        got = self.legal_now(node)
        extra = [a for a in got if a not in want]
        if extra:
            shown = ", ".join(f"'{a}'" for a in extra[:6]) + (", ..." if len(extra) > 6 else "")
            self.fail(node, f"legal_exactly: {len(extra)} more action{'s are' if len(extra) != 1 else ' is'} legal: {shown}")

    def legal_count(self, node: yaml.Node):
        want = self.read.integer(node, "legal_count")
        got = self.st.legal_action_strings()
        if len(got) != want:
            shown = ", ".join(f"'{a}'" for a in got[:6]) + (", ..." if len(got) > 6 else "")
            self.fail(node, f"legal_count: expected {want}, got {len(got)} ({shown or 'none'})")

    # ------------------------------------------------------------ whole-game checks
    def check(self, node: yaml.Node):
        """The whole-game checks of rulespec/tools/fuzzing/checks.py on the state now (what fuzzing checks)."""
        from rulespec.tools.fuzzing.checks import _first_difference, replay, state_problems
        wanted = set()
        for n in self.read.seq(node, "check", scalar_ok=True):
            name = self.read.text(n, "check")
            if name == "all":
                wanted.update(c for c in CHECKS if c != "replay" or not self.session.positioned)
            elif name in CHECKS:
                if name == "replay" and self.session.positioned:
                    self.fail(n, "check: replay needs a game played from the start (this scenario set a position)")
                wanted.add(name)
            else:
                hint = did_you_mean(name, CHECKS)
                self.fail(n, f"unknown check '{name}'" + (f"; {hint}" if hint else f" (checks: all, {', '.join(CHECKS)})"))
        # state_problems names its checks a little differently from the scenario keys
        group = {"cards": "cards", "stuck": "legal", "turn": "legal", "round trip": "round_trip", "secrecy": "secrecy"}
        try:
            problems = [msg for kind, msg in state_problems(self.st, round_trip="round_trip" in wanted,
                                                            secrecy="secrecy" in wanted)
                        if group.get(kind, "invariants" if kind.startswith("invariant") else kind) in wanted]
            if not problems and "replay" in wanted:
                again = replay(self.session.game, self.st)
                a, b = self.st.to_json(), again.to_json()
                if a != b:
                    problems.append("replaying the seed and the history gives a different state ("
                                    + _first_difference(a, b) + ")")
        except EngineError as e:
            self.fail(node, f"check: {e}")
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.fail(node, f"check: {problems[0]}{more}")

    def finish(self, node: yaml.Node):
        """Take the first legal action at every decision until the game is over; fail if it
        is not over within the given number of decisions."""
        limit = self.read.integer(node, "finish")
        if limit < 1:
            self.fail(node, "finish: give the most decisions to play, at least 1")
        st = self.st
        for _ in range(limit):
            if st.is_terminal():
                return
            legal = self.legal_now(node)
            if not legal:
                self.fail(node, f"finish: no legal action in phase '{st.phase}' and the game is not over")
            try:
                st.apply(legal[0])
            except EngineError as e:
                self.fail(node, f"finish: '{legal[0]}': {e}")
        if not st.is_terminal():
            self.fail(node, f"finish: the game did not end within {limit} decisions (taking the first legal action)")


class _Expectations:
    """'expect:': each key compares one part of the state with what the scenario says."""

    def __init__(self, terms: _Terms):
        self.terms, self.read, self.session = terms, terms.read, terms.session
        self.fail = terms.fail
        self.viewer: Optional[int] = None   # the 'viewer:' of the expect being checked
        self.by_key = {"active": self.active, "phase": self.phase, "terminal": self.terminal, "vars": self.vars,
                       "zones": self.zones, "order": self.order, "plays": self.plays, "counts": self.counts,
                       "scores": self.scores, "winners": self.winners, "log_contains": self.log,
                       "log_lacks": self.log, "sees": self.sees, "hidden": self.hidden}

    @property
    def st(self):
        return self.session.st

    def mismatch(self, node: yaml.Node, what: str, expected, actual, detail: str = ""):
        self.fail(node, f"{what}: expected {_show(expected)}, got {_show(actual)}{detail}")

    def check(self, node: yaml.Node):
        items = self.read.mapping(node, "expect", EXPECT_KEYS)
        # the viewer applies to the whole expect, wherever it is written in it
        self.viewer = None
        for key, knode, v in items:
            if key == "viewer":
                self.viewer = self.terms.player(v, "viewer")
        for key, knode, v in items:
            if key == "viewer":
                continue
            if key in ("sees", "hidden") and self.viewer is None:
                self.fail(knode, f"'{key}' needs a 'viewer: Pn' in the same expect")
            self.by_key[key](key, v)

    # ------------------------------------------------------------ whose turn, which phase
    def active(self, key: str, v: yaml.Node):
        want = self.terms.player(v, "active", nullable=True)
        if want != self.st.current_player:
            self.mismatch(v, "active", player_name(want), player_name(self.st.current_player))

    def phase(self, key: str, v: yaml.Node):
        st, prog = self.st, self.st.prog
        want = self.read.text(v, "phase")
        if want not in prog.phases:
            hint = did_you_mean(want, prog.phases)
            self.fail(v, f"unknown phase '{want}'" + (f"; {hint}" if hint else ""))
        if want != st.phase:
            self.mismatch(v, "phase", want, st.phase + (" (the game is over)" if st.terminal else ""))

    def terminal(self, key: str, v: yaml.Node):
        want = self.read.boolean(v, "terminal")
        if want != self.st.terminal:
            self.mismatch(v, "terminal", want, self.st.terminal, f" (phase '{self.st.phase}')")

    # ------------------------------------------------------------ variables and scores
    def vars(self, key: str, node: yaml.Node):
        st, terms = self.st, self.terms
        for vk, vkn, vv in self.read.mapping(node, "vars"):
            info, i = terms.var(vk, vkn)
            t, what = info.type, f"variable '{vk}'"
            if info.per_player:
                entries = terms.per_player(vv, what, lambda n_, p: n_)
                want = {p: terms.display(terms.value(n_, t, what), t) for p, n_ in entries.items()}
                got = {p: terms.display(st.vars[i][p], t) for p in want}
                if want != got:
                    if isinstance(vv, yaml.SequenceNode):
                        self.mismatch(vv, f"vars.{vk}", list(want.values()), list(got.values()))
                    bad = next(p for p in want if want[p] != got[p])
                    self.mismatch(entries_node(vv, bad), f"vars.{vk}[{player_name(bad)}]", want[bad], got[bad])
            else:
                want = terms.display(terms.value(vv, t, what), t)
                got = terms.display(st.vars[i], t)
                if want != got:
                    self.mismatch(vv, f"vars.{vk}", want, got)

    def scores(self, key: str, v: yaml.Node):
        scores = self.st.scores()
        entries = self.terms.per_player(v, "scores", lambda n_, p: n_)
        want = {p: self.read.integer(n_, "a score") for p, n_ in entries.items()}
        if any(scores[p] != s for p, s in want.items()):
            if isinstance(v, yaml.SequenceNode):
                self.mismatch(v, "scores", list(want.values()), scores)
            bad = next(p for p in want if want[p] != scores[p])
            self.mismatch(entries_node(v, bad), f"score of {player_name(bad)}", want[bad], scores[bad])

    def winners(self, key: str, v: yaml.Node):
        st = self.st
        if self.read.is_nobody(v, "winners"):   # winners: nobody (or none, or ~)
            nodes = []
        else:   # null entries of a list were always skipped: [~] is no winner
            nodes = [n_ for n_ in self.read.seq(v, "winners", scalar_ok=True) if not self.read.is_null(n_, "winners")]
        want = sorted(self.terms.player(n_, "a winner") for n_ in nodes)
        got = sorted(st.winners())
        if want != got:
            extra = "" if st.terminal else " (the game is not over)"
            self.mismatch(v, "winners", [player_name(p) for p in want], [player_name(p) for p in got], extra)

    # ------------------------------------------------------------ cards
    def zones(self, key: str, v: yaml.Node):
        names = self.st.prog.card_names
        for zk, zkn, zv in self.read.mapping(v, "zones"):
            zi = self.terms.slot(zk, zkn)
            want = self.terms.card_names(zv, f"zone '{zk}'")
            got = [self.terms.shown(c) for c in self.st.zones[zi]]
            missing, extra = self.terms.unmatched(want, self.st.zones[zi])
            if missing or extra:   # a multiset: order ignored, copies counted
                detail = "".join([f"; missing {_show(missing)}" if missing else "",
                                  f"; not expected {_show(extra)}" if extra else ""])
                self.mismatch(zv, f"zone {zk}", want, got, detail)

    def order(self, key: str, v: yaml.Node):
        prog = self.st.prog
        names = prog.card_names
        for zk, zkn, zv in self.read.mapping(v, "order"):
            zi = self.terms.slot(zk, zkn)
            kind = prog.slots[zi].kind
            if kind != "pile":  # a set has no order to speak of; plays are compared with 'plays:'
                use = "plays" if kind == "plays" else "zones"
                self.fail(zkn, f"order: '{zk}' is a {kind} zone, which has no order; compare it with '{use}:'")
            want = self.terms.card_names(zv, f"zone '{zk}'")
            got = [names[c] for c in self.st.zones[zi]]
            if len(want) != len(got) or not all(self.terms.matches(w, c) for w, c in zip(want, self.st.zones[zi])):
                same = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
                detail = (f" (bottom to top; they differ at card {same + 1} from the bottom)"
                          if Counter(want) == Counter(got) or same < min(len(want), len(got))
                          else f" (bottom to top; {len(want)} cards expected, {len(got)} there)")
                self.mismatch(zv, f"order of {zk}", want, got, detail)

    def plays(self, key: str, v: yaml.Node):
        st, names = self.st, self.st.prog.card_names
        for zk, zkn, zv in self.read.mapping(v, "plays"):
            zi = self.terms.slot(zk, zkn)
            want = []
            for entry in self.read.seq(zv, f"plays in '{zk}'"):
                parts = self.read.seq(entry, f"a play in '{zk}'")
                if len(parts) != 2:
                    self.fail(entry, "a play is written [player, [cards]]")
                want.append([player_name(self.terms.player(parts[0], f"a play in '{zk}'")),
                             sorted(self.terms.card_names(parts[1], f"a play in '{zk}'"))])
            got = [[player_name(p), sorted(names[c] for c in cs)] for p, cs in st.plays.get(zi, [])]
            if want != got:
                self.mismatch(zv, f"plays in {zk}", want, got)

    def counts(self, key: str, v: yaml.Node):
        for zk, zkn, zv in self.read.mapping(v, "counts"):
            zi = self.terms.slot(zk, zkn)
            want = self.read.integer(zv, f"count of '{zk}'")
            if len(self.st.zones[zi]) != want:
                self.mismatch(zv, f"count of {zk}", want, len(self.st.zones[zi]))

    # ------------------------------------------------------------ what a player sees
    def sees(self, key: str, v: yaml.Node):
        viewer, prog = self.viewer, self.st.prog
        obs = self.st.observation(viewer)["zones"]
        for zk, zkn, zv in self.read.mapping(v, "sees"):
            zi = self.terms.slot(zk, zkn)
            entry = obs.get(prog.slots[zi].name, {})
            if "cards" not in entry:
                self.fail(zkn, f"{player_name(viewer)} does not see the cards of {zk} (only their count)")
            want = self.terms.card_names(zv, f"zone '{zk}'")
            if any(self.terms.unmatched(want, self.st.zones[zi])):  # the viewer sees these very cards
                self.mismatch(zv, f"{player_name(viewer)}'s view of {zk}", want, entry["cards"])

    def hidden(self, key: str, v: yaml.Node):
        viewer, prog = self.viewer, self.st.prog
        obs = self.st.observation(viewer)["zones"]
        for zn in self.read.seq(v, "hidden", scalar_ok=True):
            zk = self.read.text(zn, "hidden")
            zi = self.terms.slot(zk, zn)
            if "cards" in obs.get(prog.slots[zi].name, {}):
                self.fail(zn, f"{player_name(viewer)} sees the cards of {zk}, expected only a count")

    def log(self, key: str, v: yaml.Node):
        """log_contains / log_lacks: the log since the last position, as the viewer (if any) reads it."""
        lines = self.st.log_lines(self.viewer, self.session.log_mark)
        log = "\n".join(lines)
        for tn in self.read.seq(v, key, scalar_ok=True):
            want = self.read.text(tn, key)
            present = want in log
            if key == "log_contains" and not present:
                tail = " | ".join(l.strip() for l in lines[-4:])
                self.fail(tn, f"log_contains: no log line contains '{want}' (the log ends: {tail or 'nothing'})")
            if key == "log_lacks" and present:
                line = next(l for l in lines if want in l)
                self.fail(tn, f"log_lacks: the log contains '{want}': {line.strip()}")


class _Runner:
    """Runs one scenario: reads its top-level keys, starts the game, sets the position, runs the steps."""

    def __init__(self, sc: Scenario):
        self.sc = sc
        self.session = _Session(sc)
        self.read = _Reader(sc)
        self.terms = _Terms(self.read, self.session)
        self.positions = _Positions(self.terms)
        self.steps = _Steps(self.terms, self.positions, _Expectations(self.terms))

    def run(self):
        sc, read, session = self.sc, self.read, self.session
        items = read.keyed(sc.node, "a scenario", TOP_KEYS)
        if "rules" not in items:
            read.fail(sc.node, "the scenario needs 'rules: PATH' (the rules file, relative to this file)")
        session.game = self.load_rules(items["rules"][1])
        if "check_invariants" in items:
            session.check_invariants = read.boolean(items["check_invariants"][1], "check_invariants")
        if "face_down_asks" in items:
            fnode = items["face_down_asks"][1]
            mode = read.text(fnode, "face_down_asks")
            if mode not in ("ask", "decline"):
                read.fail(fnode, f"face_down_asks is 'ask' (the default) or 'decline', not '{mode}'")
            session.decline_idle_asks = mode == "decline"
        session.st = self.start_game(items)
        if "position" in items:
            self.positions.set(items["position"][1])
        if "steps" in items:
            snode = items["steps"][1]
            if not (isinstance(snode, yaml.ScalarNode) and snode.value in ("", "~", "null")):
                for step in read.seq(snode, "steps"):
                    self.steps.run(step)
        return session.st

    def load_rules(self, rnode: yaml.Node):
        """The Game of 'rules:' (a path relative to the scenario file)."""
        sc, read = self.sc, self.read
        rules = Path(read.text(rnode, "rules"))
        if not rules.is_absolute():
            rules = Path(sc.file or sc.path).parent / rules
        rules = Path(os.path.normpath(rules))
        try:
            found = rules.is_file()
            if rules.is_dir():
                read.fail(rnode, f"the rules path {_display_path(rules)} is a directory, not a rules file")
        except (OSError, ValueError) as e:  # a name too long, a NUL byte
            read.fail(rnode, f"no rules file at {_display_path(rules)[:200]!r}: {getattr(e, 'strerror', None) or e}")
        if not found:
            read.fail(rnode, f"no rules file at {_display_path(rules)}")
        from interpreter.game import load
        try:
            return load(str(rules))
        except RulesError as e:
            read.fail(rnode, f"the rules file has errors: {e}")

    def start_game(self, items: dict):
        """new_state(players, seed, options) from the top-level keys."""
        read, game = self.read, self.session.game
        model = game.model
        players = model.min_players
        if "players" in items:
            pnode = items["players"][1]
            players = read.integer(pnode, "players")
            if not model.min_players <= players <= model.max_players:
                read.fail(pnode, f"{model.name} is for {model.min_players}-{model.max_players} players, not {players}")
        seed = read.integer(items["seed"][1], "seed") if "seed" in items else 0
        options = {}
        if "options" in items:
            for key, knode, v in read.mapping(items["options"][1], "options"):
                try:
                    options[key] = game.parse_option(key, read.scalar(v, f"option '{key}'"))
                except EngineError as e:
                    read.fail(knode if key not in model.options else v, str(e))
        try:
            return game.new_state(players, seed, options)
        except EngineError as e:
            read.fail(self.sc.node, f"cannot start the game: {e}")


def _field_type(field):
    """The type of an effect's declared field (for reading it from YAML)."""
    from rulespec.lang import types as T
    name = field.type.name
    if name == "list":
        return T.list_of(T.SIMPLE.get(field.type.elem.name) or T.enum_type(field.type.elem.name))
    return T.SIMPLE.get(name) or T.enum_type(name)


def entries_node(node: yaml.Node, p: int) -> yaml.Node:
    """The value node for player p in a {P1: ...} mapping (the mapping itself if not found)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value.strip().upper() == player_name(p):
                return v
    return node


# ---------------------------------------------------------------------- entry points
def run_scenario(sc: Scenario):
    """Run one scenario; returns the final State or raises ScenarioError."""
    try:
        return _Runner(sc).run()
    except ScenarioError:
        raise
    except RecursionError:
        raise ScenarioError(sc.path, sc.line, "the rules recurse without end") from None
    except EngineError as e:
        raise ScenarioError(sc.path, sc.line, str(e)) from None


def run_file(path) -> list[tuple[str, Optional[ScenarioError]]]:
    """[(scenario name, None if it passed else its error)] for every scenario in a file."""
    try:
        scenarios = load_file(path)
    except ScenarioError as e:
        return [(_display_path(path), e)]
    out = []
    for sc in scenarios:
        try:
            run_scenario(sc)
        except ScenarioError as e:
            out.append((sc.name, e))
        except Exception as e:  # a bug in the engine or the runner: still one line, and go on
            out.append((sc.name, ScenarioError(sc.path, sc.line, f"internal error: {type(e).__name__}: {e}")))
        else:
            out.append((sc.name, None))
    return out


def collect_files(paths: Iterable) -> list[Path]:
    """Scenario files: the files given, and every *.yaml / *.yml under the directories given."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.suffix in (".yaml", ".yml") and f.is_file()))
        else:
            out.append(p)
    return out


def run_paths(paths: Iterable, out: TextIO = None) -> int:
    """Run scenario files and directories, print one line per scenario and a summary; the exit code."""
    out = out or sys.stdout
    passed = failed = 0
    files = collect_files(paths)
    for f in files:
        if not f.exists():
            print(f"FAIL {_display_path(f)}: no such file or directory", file=out)
            failed += 1
            continue
        for name, err in run_file(f):
            if err is None:
                passed += 1
                print(f"ok   {name} ({_display_path(f)})", file=out)
            else:
                failed += 1
                print(f"FAIL {name}: {err}", file=out)
    if not files:
        print("no scenario files found", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return 0 if failed == 0 and passed > 0 else 1
