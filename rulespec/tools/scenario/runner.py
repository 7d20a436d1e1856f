"""Running scenarios: _Runner reads a scenario's top-level keys, starts the game and drives the
pieces; run_scenario, run_file and run_paths are what pytest and `rulespec test` call."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterable, Optional, TextIO

import yaml

from rulespec.lang.diagnostics import RulesError
from rulespec.tools.scenario.expectations import _Expectations
from rulespec.tools.scenario.positions import _Positions
from rulespec.tools.scenario.reading import TOP_KEYS, Scenario, ScenarioError, _display_path, _Reader, load_file
from rulespec.tools.scenario.steps import _Steps
from rulespec.tools.scenario.terms import _Session, _Terms

from interpreter.errors import EngineError


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
            st = game.new_state(players, seed, options)
            if "start_order" in items:  # (the cards are named in the game as dealt: its labels)
                self.session.st = st
                st = game.new_state(players, seed, options, start_order=self.start_order(items["start_order"][1]))
            return st
        except EngineError as e:
            read.fail(self.sc.node, f"cannot start the game: {e}")

    def start_order(self, node) -> list:
        """'start_order:': every card of the game by name (or a copy's label), each once, in the
        order they start in, bottom to top: the card ids, for new_state(start_order=...)."""
        st, terms = self.session.st, self.terms
        count = st.prog.card_count
        names = terms.card_list(node, "start_order")
        order: list = []
        taken: set = set()
        for name, cnode in names:
            c = next((c for c in range(count) if c not in taken and terms.matches(name, c)), None)
            if c is None:
                self.read.fail(cnode, f"start_order names more '{name}' cards than the game has")
            taken.add(c)
            order.append(c)
        if len(order) != count:
            missing = [st.prog.card_label(st, c) for c in range(count) if c not in taken]
            self.read.fail(node, f"start_order names {len(order)} cards; the game has {count}: it lacks "
                                 + ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else ""))
        return order


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
