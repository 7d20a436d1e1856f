"""Scenario tests: fix a position, script the choices, assert the results.

A scenario file is YAML.  Each YAML document in the file (documents are
separated by ``---``) is one scenario::

    rules: ../../../games/mygame.rules   # required; relative to this YAML file
    name: bidding example                # optional; defaults to the file name
    doc: free text, ignored              # optional
    players: 3                           # optional; defaults to the game's minimum
    seed: 1                              # optional; defaults to 0
    options: {bidding: true}             # optional; game options by name
    position: {...}                      # optional; see below
    steps: [...]                         # optional; see below

The game is created with ``new_state(players, seed, options)``, which runs to
its first decision; then ``position`` (if any) is set, then the steps run in
order.  Players are written P1..Pn (seat 1..n).  Zones are named as the engine
names its zone instances: ``stock``, ``hand[P2]``.

position
    Writes the state directly.  Every key is optional.

    phase: bidding      the phase to put the game in (default: the current one)
    enter: false        false: the phase waits for a decision (its ``end when``
                        and ``actor`` are evaluated, its ``enter`` block is not
                        run); true: the phase is entered from the start, so its
                        ``enter`` block runs.  Use true for phases without actions.
    active: P1          who is to act (an ``actor`` clause of the phase overrides it)
    zones:              zone -> card names, bottom to top (the last is the top
      open[P1]: [red 8, blue 8]    card, the first one dealt).  Each name takes
      stock: []                    a physical card of that name not placed yet.
    plays:              plays zones (e.g. a trick in progress): a list of
      trick: [[P1, [red 5]], [P2, [red A]]]      [player, [card names]] in play order
    rest: aside         where every card not placed goes (default: the zone
                        cards start in).  Only used if zones or plays are given.
    keep: [box]         zones left exactly as they are; their cards are not
                        available for placing.
    vars:               variables by name.  A per-player variable takes a list
      points: [10, 3, 4]           of n values or a mapping {P1: 10} that sets
      holder: P2                   only some players.  Players as P1..Pn or
                                   none; cards by name.

    If neither zones nor plays is given, the cards stay where they are;
    ``zones: {}`` moves every card that is not kept to the rest zone.
    Inside YAML flow collections ({ } and [ ]) brackets are syntax, so quote
    zone names there: ``counts: {"hand[P1]": 2}``; block style needs no quotes.

steps
    A list; each step is a mapping with one of these keys (plus ``note:``,
    free text, in any step):

    - play: "bid 1 on group 2"      apply an action (or a list of actions, in
                                    order); each must be legal
    - illegal: "bid 0 on group 2"   the action (or each of a list) is not legal
      because: "cannot bid more"    optional: text the engine's explanation must contain
    - legal: ["bid 0 on group 1"]   each of these actions is legal now
    - legal_exactly: [...]          these are exactly the legal actions
    - legal_count: 12               how many actions are legal now
    - position: {...}               set a new position (as above)
    - finish: 500                   take the first legal action at every decision until the
                                    game is over; fails if it is not over within 500 decisions
    - check: all                    run the checks fuzzing runs (interpreter/checks.py)
                                    on the state now: cards, invariants, legal,
                                    round_trip, secrecy, replay (or a list of these;
                                    replay only without a position)
    - expect: {...}                 check the state:
        active: P2                  who is to act (none once the game is over)
        phase: trick
        terminal: true
        vars: {points: [10, 3, 4], holder: P2}   per-player: a list, or {P2: 3}
        zones: {"open[P1]": [red 8]}   contents, compared as multisets of names
        plays: {trick: [[P1, [red 5]]]}
        counts: {box: 8}            number of cards in zones
        scores: [1, 2, 3]           or {P1: 1}
        winners: [P1]               in any order
        log_contains: "wins the trick"   text (or list of texts) in the log
        log_lacks: "Game over"           text (or list) not in the log
        viewer: P2                  read log_contains / log_lacks as P2's log, and
        sees: {"hand[P1]": [9]}     check P2's observation: zones P2 sees, by name
        hidden: ["hand[P1]"]        zones P2 sees only as a count of cards

    The log checked by log_contains / log_lacks is everything written since
    the last position was set (from the start of the game if none was).

Action strings are the engine's texts, as ``rulespec play`` lists them.  Cards
joined with `` + `` at the end of an action may be given in any order:
``follow blue 6 (open) + red 6 (open)`` matches ``follow red 6 (open) + blue 6 (open)``.

Every problem -- YAML syntax, an unknown key, card, zone, phase, variable or
player, an illegal ``play``, a failed expectation -- raises ScenarioError whose
message is one line: ``file:line: what went wrong`` (expected vs actual for a
failed expectation).
"""
from __future__ import annotations

import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional, TextIO

import attrs
import yaml
from yaml.constructor import SafeConstructor

from rulespec.diagnostics import RulesError, did_you_mean

from .compiler import player_name
from .errors import EngineError, IllegalActionError
from .state import CHECK, ENTER

__all__ = ["Scenario", "ScenarioError", "collect_files", "load_file", "run_file", "run_paths", "run_scenario"]

TOP_KEYS = ("rules", "name", "doc", "players", "seed", "options", "position", "steps")
POSITION_KEYS = ("phase", "enter", "active", "zones", "plays", "rest", "keep", "vars")
STEP_KEYS = ("play", "illegal", "legal", "legal_exactly", "legal_count", "position", "expect", "check", "finish")
CHECKS = ("cards", "invariants", "legal", "round_trip", "secrecy", "replay")  # for `check:`
EXPECT_KEYS = ("active", "phase", "terminal", "vars", "zones", "plays", "counts", "scores", "winners",
               "log_contains", "log_lacks", "viewer", "sees", "hidden")


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
class _Runner:
    def __init__(self, sc: Scenario):
        self.sc = sc
        self.path = sc.path
        self.game = None
        self.st = None
        self.log_mark = 0
        self.positioned = False  # a position was set: the history alone no longer replays the game

    # ------------------------------------------------------------ node helpers
    def fail(self, node: Optional[yaml.Node], msg: str):
        raise ScenarioError(self.path, _line(node) if node is not None else self.sc.line, msg)

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

    def seq(self, node: yaml.Node, what: str, scalar_ok: bool = False) -> list:
        if isinstance(node, yaml.SequenceNode):
            return list(node.value)
        if scalar_ok and isinstance(node, yaml.ScalarNode):
            return [node]
        self.fail(node, f"{what} should be a list")

    # ------------------------------------------------------------ game-level values
    def player(self, node: yaml.Node, what: str, nullable: bool = False) -> Optional[int]:
        v = self.scalar(node, what)
        if nullable and (v is None or v == "none"):
            return None
        s = str(v).strip() if v is not None else ""
        if len(s) >= 2 and s[0] in "Pp" and s[1:].isdigit():
            k = int(s[1:])
            if 1 <= k <= self.st.n:
                return k - 1
            self.fail(node, f"{what}: there is no {s.upper()} in a {self.st.n}-player game")
        self.fail(node, f"{what}: expected a player P1..P{self.st.n}{' or none' if nullable else ''}, not {_show(v)}")

    def slot(self, key: str, knode: yaml.Node, what: str = "zone") -> int:
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
        v = self.scalar(node, "a card")
        name = str(v).strip() if v is not None else ""
        names = self.st.prog.card_names
        if name not in names:
            hint = did_you_mean(name, names)
            self.fail(node, f"unknown card '{name}'" + (f"; {hint}" if hint else ""))
        return name

    def card_list(self, node: yaml.Node, what: str) -> list:
        """[(name, node)] of a list of card names (a single name is allowed)."""
        if isinstance(node, yaml.ScalarNode) and self.scalar(node, what) is None:
            return []
        return [(self.card_name(n), n) for n in self.seq(node, what, scalar_ok=True)]

    def value(self, node: yaml.Node, t, what: str):
        """A YAML value converted to the engine's representation of type t."""
        name = t.name
        if name == "list":
            if isinstance(node, yaml.ScalarNode) and self.scalar(node, what) is None:
                return []
            return [self.value(n, t.elem, what) for n in self.seq(node, what)]
        if name == "int":
            return self.integer(node, what)
        if name == "bool":
            return self.boolean(node, what)
        if name == "player":
            return self.player(node, what, nullable=True)
        if name == "card":
            v = self.scalar(node, what)
            if v is None or v == "none":
                return None
            return self.st.prog.card_names.index(self.card_name(node))
        if name == "enum":
            members = self.st.game.model.enums[t.enum].members
            v = self.scalar(node, what)
            if v not in members:
                self.fail(node, f"{what}: expected one of {', '.join(members)}, not {_show(v)}")
            return v
        if name == "text":
            v = self.scalar(node, what)
            return "" if v is None else str(v)
        if name == "play":
            items = self.seq(node, what)
            if len(items) != 2:
                self.fail(node, f"{what}: a play is written [player, [cards]]")
            names = self.st.prog.card_names
            return [self.player(items[0], what), [names.index(n) for n, _ in self.card_list(items[1], what)]]
        self.fail(node, f"{what}: values of type {t} cannot be written in a scenario")

    def display(self, v, t):
        """An engine value as it is written in a scenario (players as P1, cards by name)."""
        if v is None:
            return None
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
        model = self.st.game.model
        info = model.vars.get(key)
        if info is None:
            hint = did_you_mean(key, model.vars)
            self.fail(knode, f"unknown variable '{key}'" + (f"; {hint}" if hint else f" (variables: {', '.join(model.vars) or 'none'})"))
        return info, self.st.prog.var_index[key]

    def per_player(self, node: yaml.Node, what: str, convert) -> dict:
        """{player: value} from a list of n values or a mapping {P1: value}."""
        n = self.st.n
        if isinstance(node, yaml.SequenceNode):
            if len(node.value) != n:
                self.fail(node, f"{what}: a list needs one value per player ({n}), not {len(node.value)}")
            return {p: convert(v, p) for p, v in enumerate(node.value)}
        if isinstance(node, yaml.MappingNode):
            out = {}
            for key, knode, v in self.mapping(node, what):
                p = self.player(knode, f"a key in {what}")
                out[p] = convert(v, p)
            return out
        self.fail(node, f"{what}: give a list of {n} values or a mapping like {{P1: ...}}")

    # ------------------------------------------------------------ the scenario
    def run(self):
        sc = self.sc
        items = {k: (kn, v) for k, kn, v in self.mapping(sc.node, "a scenario", TOP_KEYS)}
        if "rules" not in items:
            self.fail(sc.node, "the scenario needs 'rules: PATH' (the rules file, relative to this file)")
        rnode = items["rules"][1]
        rules = Path(self.text(rnode, "rules"))
        if not rules.is_absolute():
            rules = Path(sc.file or sc.path).parent / rules
        rules = Path(os.path.normpath(rules))
        try:
            found = rules.is_file()
            if rules.is_dir():
                self.fail(rnode, f"the rules path {_display_path(rules)} is a directory, not a rules file")
        except (OSError, ValueError) as e:  # a name too long, a NUL byte
            self.fail(rnode, f"no rules file at {_display_path(rules)[:200]!r}: {getattr(e, 'strerror', None) or e}")
        if not found:
            self.fail(rnode, f"no rules file at {_display_path(rules)}")
        from .game import load
        try:
            self.game = load(str(rules))
        except RulesError as e:
            self.fail(rnode, f"the rules file has errors: {e}")
        model = self.game.model
        players = model.min_players
        if "players" in items:
            pnode = items["players"][1]
            players = self.integer(pnode, "players")
            if not model.min_players <= players <= model.max_players:
                self.fail(pnode, f"{model.name} is for {model.min_players}-{model.max_players} players, not {players}")
        seed = self.integer(items["seed"][1], "seed") if "seed" in items else 0
        options = {}
        if "options" in items:
            for key, knode, v in self.mapping(items["options"][1], "options"):
                try:
                    options[key] = self.game.parse_option(key, self.scalar(v, f"option '{key}'"))
                except EngineError as e:
                    self.fail(knode if key not in model.options else v, str(e))
        try:
            self.st = self.game.new_state(players, seed, options)
        except EngineError as e:
            self.fail(sc.node, f"cannot start the game: {e}")
        if "position" in items:
            self.set_position(items["position"][1])
        if "steps" in items:
            snode = items["steps"][1]
            if not (isinstance(snode, yaml.ScalarNode) and snode.value in ("", "~", "null")):
                for step in self.seq(snode, "steps"):
                    self.step(step)
        return self.st

    # ------------------------------------------------------------ positions
    def set_position(self, node: yaml.Node):
        st, prog = self.st, self.st.prog
        items = {k: (kn, v) for k, kn, v in self.mapping(node, "position", POSITION_KEYS)}
        phase = st.phase
        if "phase" in items:
            pnode = items["phase"][1]
            phase = self.text(pnode, "phase")
            if phase not in prog.phases:
                hint = did_you_mean(phase, prog.phases)
                self.fail(pnode, f"unknown phase '{phase}'" + (f"; {hint}" if hint else f" (phases: {', '.join(prog.phases)})"))
        enter = self.boolean(items["enter"][1], "enter") if "enter" in items else False
        if "zones" in items or "plays" in items:
            self.place_cards(items)
        elif "rest" in items or "keep" in items:
            key = "rest" if "rest" in items else "keep"
            self.fail(items[key][0], f"'{key}' only applies when the position gives zones or plays")
        if "vars" in items:
            for key, knode, v in self.mapping(items["vars"][1], "vars"):
                info, i = self.var(key, knode)
                if info.per_player:
                    values = self.per_player(v, f"variable '{key}'", lambda vn, p: self.value(vn, info.type, f"variable '{key}'"))
                    for p, x in values.items():
                        st.vars[i][p] = x
                else:
                    st.vars[i] = self.value(v, info.type, f"variable '{key}'")
        if "active" in items:
            st.active = self.player(items["active"][1], "active")
        st.terminal = False
        st.winners_ = None
        st.phase = phase
        st.stage = ENTER if enter else CHECK
        st._legal = st._legal_map = None
        st.log.append(["text", f"-- scenario position: phase {phase} --"])
        self.positioned = True
        self.log_mark = len(st.log) - 1
        try:
            st._run_guarded(st._advance)
        except EngineError as e:
            self.fail(node, f"after setting the position: {e}")

    def place_cards(self, items: dict):
        st, prog = self.st, self.st.prog
        n_cards = prog.card_count
        names = prog.card_names
        keep: set = set()
        if "keep" in items:
            for zn in self.seq(items["keep"][1], "keep", scalar_ok=True):
                keep.add(self.slot(self.text(zn, "a zone in keep"), zn))
        if "rest" in items:
            rnode = items["rest"][1]
            rest = self.slot(self.text(rnode, "rest"), rnode)
        else:
            start = st.game.model.cards_start
            if start is None or prog.slots[prog.zone_base[start]].name != start:
                self.fail(items.get("zones", items.get("plays"))[0],
                          "say where the cards not placed go with 'rest: ZONE'")
            rest = prog.zone_base[start]
        if rest in keep:
            self.fail(items["rest"][1], f"'{prog.slots[rest].name}' cannot be both kept and the rest zone")
        if rest in prog.plays_slots:
            self.fail(items["rest"][1], f"'{prog.slots[rest].name}' is a plays zone; the rest must go to an ordinary zone")
        free: dict = {}
        for c in range(n_cards):
            if st.where[c] not in keep:
                free.setdefault(names[c], []).append(c)
        total = Counter(names)

        def take(name: str, node: yaml.Node) -> int:
            pool = free.get(name)
            if not pool:
                kept = total[name] - sum(1 for c in range(n_cards) if names[c] == name and st.where[c] not in keep)
                extra = f" ({kept} kept in {', '.join(prog.slots[k].name for k in sorted(keep))})" if kept else ""
                self.fail(node, f"too many '{name}' cards: the game has {total[name]}{extra}")
            return pool.pop(0)

        new_zones: dict = {}
        new_plays: dict = {}
        if "zones" in items:
            for key, knode, v in self.mapping(items["zones"][1], "zones"):
                zi = self.slot(key, knode)
                if zi in keep:
                    self.fail(knode, f"zone '{key}' is listed in keep, so it cannot be given cards")
                if zi in prog.plays_slots:
                    self.fail(knode, f"'{key}' is a plays zone: set it under 'plays:' as [[P1, [cards]], ...]")
                new_zones[zi] = [take(name, cn) for name, cn in self.card_list(v, f"zone '{key}'")]
        if "plays" in items:
            for key, knode, v in self.mapping(items["plays"][1], "plays"):
                zi = self.slot(key, knode)
                if zi not in prog.plays_slots:
                    self.fail(knode, f"'{key}' is not a plays zone: give its cards under 'zones:'")
                if zi in keep:
                    self.fail(knode, f"zone '{key}' is listed in keep, so it cannot be given plays")
                plays, cards = [], []
                for entry in self.seq(v, f"plays in '{key}'"):
                    parts = self.seq(entry, f"a play in '{key}'")
                    if len(parts) != 2:
                        self.fail(entry, f"a play is written [player, [cards]], e.g. [P1, [{names[0]}]]")
                    p = self.player(parts[0], f"a play in '{key}'")
                    cs = [take(name, cn) for name, cn in self.card_list(parts[1], f"a play in '{key}'")]
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
        zones[rest] = zones[rest] + [c for c in range(n_cards) if c not in placed and st.where[c] not in keep]
        st.zones = zones
        st.where = [0] * n_cards
        for zi, z in enumerate(zones):
            for c in z:
                st.where[c] = zi
        st.plays = {zi: v for zi, v in st.plays.items() if zi in keep}
        st.plays.update(new_plays)
        assert sum(len(z) for z in zones) == n_cards

    # ------------------------------------------------------------ steps
    def step(self, node: yaml.Node):
        items = self.mapping(node, "a step", STEP_KEYS + ("because", "note"))
        main = [(k, kn, v) for k, kn, v in items if k in STEP_KEYS]
        extra = {k: (kn, v) for k, kn, v in items if k not in STEP_KEYS}
        if len(main) != 1:
            self.fail(node, "a step needs exactly one of: " + ", ".join(STEP_KEYS)
                      + (f" (this one has {', '.join(k for k, _, _ in main)})" if main else ""))
        key, knode, v = main[0]
        if "because" in extra and key != "illegal":
            self.fail(extra["because"][0], "'because' goes with an 'illegal' step")
        if key == "play":
            for an in self.seq(v, "play", scalar_ok=True):
                self.play(an)
        elif key == "illegal":
            because = self.text(extra["because"][1], "because") if "because" in extra else None
            for an in self.seq(v, "illegal", scalar_ok=True):
                self.illegal(an, because)
        elif key == "legal":
            for an in self.seq(v, "legal", scalar_ok=True):
                self.resolve(an)
        elif key == "legal_exactly":
            self.legal_exactly(v)
        elif key == "legal_count":
            want = self.integer(v, "legal_count")
            got = self.st.legal_action_strings()
            if len(got) != want:
                shown = ", ".join(f"'{a}'" for a in got[:6]) + (", ..." if len(got) > 6 else "")
                self.fail(v, f"legal_count: expected {want}, got {len(got)} ({shown or 'none'})")
        elif key == "position":
            self.set_position(v)
        elif key == "check":
            self.check(v)
        elif key == "finish":
            self.finish(v)
        else:
            self.expect(v)

    def check(self, node: yaml.Node):
        """The whole-game checks of interpreter/checks.py on the state now (what fuzzing checks)."""
        from .checks import _first_difference, replay, state_problems
        names = self.seq(node, "check", scalar_ok=True)
        wanted = set()
        for n in names:
            name = self.text(n, "check")
            if name == "all":
                wanted.update(c for c in CHECKS if c != "replay" or not self.positioned)
            elif name in CHECKS:
                if name == "replay" and self.positioned:
                    self.fail(n, "check: replay needs a game played from the start (this scenario set a position)")
                wanted.add(name)
            else:
                hint = did_you_mean(name, CHECKS)
                self.fail(n, f"unknown check '{name}'" + (f"; {hint}" if hint else f" (checks: all, {', '.join(CHECKS)})"))
        group = {"cards": "cards", "stuck": "legal", "turn": "legal", "round trip": "round_trip", "secrecy": "secrecy"}
        try:
            problems = [msg for kind, msg in state_problems(self.st, round_trip="round_trip" in wanted,
                                                            secrecy="secrecy" in wanted)
                        if group.get(kind, "invariants" if kind.startswith("invariant") else kind) in wanted]
            if not problems and "replay" in wanted:
                again = replay(self.game, self.st)
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
        limit = self.integer(node, "finish")
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

    def legal_now(self, node: yaml.Node) -> list:
        try:
            return self.st.legal_action_strings()
        except EngineError as e:
            self.fail(node, f"listing the legal actions failed: {e}")

    def resolve(self, node: yaml.Node) -> str:
        """The legal action text written at node (cards after ' + ' in any order), or a failure."""
        text = " ".join(self.text(node, "an action").split())
        found = _match_action(text, self.legal_now(node))
        if found is None:
            self.fail(node, self.st.explain_illegal(text))
        return found

    def play(self, node: yaml.Node):
        action = self.resolve(node)
        try:
            self.st.apply(action)
        except EngineError as e:
            self.fail(node, f"'{action}': {e}")

    def illegal(self, node: yaml.Node, because: Optional[str]):
        text = " ".join(self.text(node, "an action").split())
        st = self.st
        found = _match_action(text, self.legal_now(node))
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
        want = []
        for an in self.seq(node, "legal_exactly", scalar_ok=True):
            want.append(self.resolve(an))
        got = self.legal_now(node)
        extra = [a for a in got if a not in want]
        if extra:
            shown = ", ".join(f"'{a}'" for a in extra[:6]) + (", ..." if len(extra) > 6 else "")
            self.fail(node, f"legal_exactly: {len(extra)} more action{'s are' if len(extra) != 1 else ' is'} legal: {shown}")

    # ------------------------------------------------------------ expectations
    def mismatch(self, node: yaml.Node, what: str, expected, actual, detail: str = ""):
        self.fail(node, f"{what}: expected {_show(expected)}, got {_show(actual)}{detail}")

    def expect(self, node: yaml.Node):
        st, prog = self.st, self.st.prog
        names = prog.card_names
        viewer = None
        for key, knode, v in self.mapping(node, "expect", EXPECT_KEYS):
            if key == "viewer":
                viewer = self.player(v, "viewer")
        for key, knode, v in self.mapping(node, "expect", EXPECT_KEYS):
            if key == "viewer":
                continue
            if key in ("sees", "hidden") and viewer is None:
                self.fail(knode, f"'{key}' needs a 'viewer: Pn' in the same expect")
            if key == "sees":
                obs = st.observation(viewer)["zones"]
                for zk, zkn, zv in self.mapping(v, "sees"):
                    zi = self.slot(zk, zkn)
                    entry = obs.get(prog.slots[zi].name, {})
                    if "cards" not in entry:
                        self.fail(zkn, f"{player_name(viewer)} does not see the cards of {zk} (only their count)")
                    want = [name for name, _ in self.card_list(zv, f"zone '{zk}'")]
                    if Counter(want) != Counter(entry["cards"]):
                        self.mismatch(zv, f"{player_name(viewer)}'s view of {zk}", want, entry["cards"])
                continue
            if key == "hidden":
                obs = st.observation(viewer)["zones"]
                for zn in self.seq(v, "hidden", scalar_ok=True):
                    zk = self.text(zn, "hidden")
                    zi = self.slot(zk, zn)
                    if "cards" in obs.get(prog.slots[zi].name, {}):
                        self.fail(zn, f"{player_name(viewer)} sees the cards of {zk}, expected only a count")
                continue
            if key == "active":
                want = self.player(v, "active", nullable=True)
                if want != st.current_player:
                    self.mismatch(v, "active", player_name(want), player_name(st.current_player))
            elif key == "phase":
                want = self.text(v, "phase")
                if want not in prog.phases:
                    hint = did_you_mean(want, prog.phases)
                    self.fail(v, f"unknown phase '{want}'" + (f"; {hint}" if hint else ""))
                if want != st.phase:
                    self.mismatch(v, "phase", want, st.phase + (" (the game is over)" if st.terminal else ""))
            elif key == "terminal":
                want = self.boolean(v, "terminal")
                if want != st.terminal:
                    self.mismatch(v, "terminal", want, st.terminal, f" (phase '{st.phase}')")
            elif key == "vars":
                for vk, vkn, vv in self.mapping(v, "vars"):
                    info, i = self.var(vk, vkn)
                    t = info.type
                    if info.per_player:
                        entries = self.per_player(vv, f"variable '{vk}'", lambda n_, p: n_)
                        want = {p: self.display(self.value(n_, t, f"variable '{vk}'"), t) for p, n_ in entries.items()}
                        got = {p: self.display(st.vars[i][p], t) for p in want}
                        if want != got:
                            if isinstance(vv, yaml.SequenceNode):
                                self.mismatch(vv, f"vars.{vk}", list(want.values()), list(got.values()))
                            bad = next(p for p in want if want[p] != got[p])
                            self.mismatch(entries_node(vv, bad), f"vars.{vk}[{player_name(bad)}]", want[bad], got[bad])
                    else:
                        want = self.display(self.value(vv, t, f"variable '{vk}'"), t)
                        got = self.display(st.vars[i], t)
                        if want != got:
                            self.mismatch(vv, f"vars.{vk}", want, got)
            elif key == "zones":
                for zk, zkn, zv in self.mapping(v, "zones"):
                    zi = self.slot(zk, zkn)
                    want = [name for name, _ in self.card_list(zv, f"zone '{zk}'")]
                    got = [names[c] for c in st.zones[zi]]
                    if Counter(want) != Counter(got):
                        missing = list((Counter(want) - Counter(got)).elements())
                        extra = list((Counter(got) - Counter(want)).elements())
                        detail = "".join([f"; missing {_show(missing)}" if missing else "",
                                          f"; not expected {_show(extra)}" if extra else ""])
                        self.mismatch(zv, f"zone {zk}", want, got, detail)
            elif key == "plays":
                for zk, zkn, zv in self.mapping(v, "plays"):
                    zi = self.slot(zk, zkn)
                    want = []
                    for entry in self.seq(zv, f"plays in '{zk}'"):
                        parts = self.seq(entry, f"a play in '{zk}'")
                        if len(parts) != 2:
                            self.fail(entry, "a play is written [player, [cards]]")
                        want.append([player_name(self.player(parts[0], f"a play in '{zk}'")),
                                     sorted(n for n, _ in self.card_list(parts[1], f"a play in '{zk}'"))])
                    got = [[player_name(p), sorted(names[c] for c in cs)] for p, cs in st.plays.get(zi, [])]
                    if want != got:
                        self.mismatch(zv, f"plays in {zk}", want, got)
            elif key == "counts":
                for zk, zkn, zv in self.mapping(v, "counts"):
                    zi = self.slot(zk, zkn)
                    want = self.integer(zv, f"count of '{zk}'")
                    if len(st.zones[zi]) != want:
                        self.mismatch(zv, f"count of {zk}", want, len(st.zones[zi]))
            elif key == "scores":
                scores = st.scores()
                entries = self.per_player(v, "scores", lambda n_, p: n_)
                want = {p: self.integer(n_, "a score") for p, n_ in entries.items()}
                if any(scores[p] != s for p, s in want.items()):
                    if isinstance(v, yaml.SequenceNode):
                        self.mismatch(v, "scores", list(want.values()), scores)
                    bad = next(p for p in want if want[p] != scores[p])
                    self.mismatch(entries_node(v, bad), f"score of {player_name(bad)}", want[bad], scores[bad])
            elif key == "winners":
                want = sorted(self.player(n_, "a winner") for n_ in self.seq(v, "winners", scalar_ok=True)
                              if not (isinstance(n_, yaml.ScalarNode) and self.scalar(n_, "winners") is None))
                got = sorted(st.winners())
                if want != got:
                    extra = "" if st.terminal else " (the game is not over)"
                    self.mismatch(v, "winners", [player_name(p) for p in want], [player_name(p) for p in got], extra)
            elif key in ("log_contains", "log_lacks"):
                lines = [line for e in st.log[self.log_mark:] for line in [st._render(e, viewer)] if line]
                log = "\n".join(lines)
                for tn in self.seq(v, key, scalar_ok=True):
                    want = self.text(tn, key)
                    present = want in log
                    if key == "log_contains" and not present:
                        tail = " | ".join(l.strip() for l in lines[-4:])
                        self.fail(tn, f"log_contains: no log line contains '{want}' (the log ends: {tail or 'nothing'})")
                    if key == "log_lacks" and present:
                        line = next(l for l in lines if want in l)
                        self.fail(tn, f"log_lacks: the log contains '{want}': {line.strip()}")


def entries_node(node: yaml.Node, p: int) -> yaml.Node:
    """The value node for player p in a {P1: ...} mapping (the mapping itself if not found)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value.strip().upper() == player_name(p):
                return v
    return node


def _match_action(text: str, legal: list) -> Optional[str]:
    """The legal action `text` names: the exact text, or the same cards after ' + ' in another order."""
    if text in legal:
        return text
    parts = text.split(" + ")
    if len(parts) < 2:
        return None
    found = [a for a in legal if _same_cards(a.split(" + "), parts)]
    return found[0] if len(found) == 1 else None


def _same_cards(a: list, u: list) -> bool:
    if len(a) != len(u):
        return False
    first = a[0]
    for i, ch in enumerate(first):
        if ch == " ":
            prefix = first[:i + 1]
            if u[0].startswith(prefix) and \
                    Counter([first[i + 1:]] + a[1:]) == Counter([u[0][len(prefix):]] + u[1:]):
                return True
    return False


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
