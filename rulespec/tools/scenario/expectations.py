"""'expect:': each key compares one part of the state (turn, phase, variables, scores, winners,
zones, plays, what a player sees, the log) with what the scenario says."""
from __future__ import annotations

from collections import Counter
from typing import Optional

import yaml

from rulespec.lang.diagnostics import did_you_mean
from rulespec.tools.scenario.reading import EXPECT_KEYS, _show
from rulespec.tools.scenario.terms import _Terms

from interpreter.compiler import player_name


class _Expectations:
    """'expect:': each key compares one part of the state with what the scenario says."""

    def __init__(self, terms: _Terms):
        self.terms, self.read, self.session = terms, terms.read, terms.session
        self.fail = terms.fail
        self.viewer: Optional[int] = None   # the 'viewer:' of the expect being checked
        self.by_key = {"active": self.active, "phase": self.phase, "terminal": self.terminal, "vars": self.vars,
                       "zones": self.zones, "order": self.order, "plays": self.plays, "counts": self.counts,
                       "scores": self.scores, "winners": self.winners, "log_contains": self.log,
                       "log_lacks": self.log, "sees": self.sees, "hidden": self.hidden, "shown": self.shown}

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
            if key in ("sees", "hidden", "shown") and self.viewer is None:
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

    def shown(self, key: str, v: yaml.Node):
        """shown: the cards the viewer sees inside a zone they otherwise see only as a count (cards
        revealed on their own), compared as a multiset."""
        viewer, st = self.viewer, self.st
        obs = st.observation(viewer)["zones"]
        for zk, zkn, zv in self.read.mapping(v, "shown"):
            zi = self.terms.slot(zk, zkn)
            if "cards" in obs.get(st.prog.slots[zi].name, {}):
                self.fail(zkn, f"{player_name(viewer)} sees every card of {zk}, not only some shown: "
                               f"compare them with 'sees'")
            want = self.terms.card_names(zv, f"zone '{zk}'")
            seen = [c for c in st.zones[zi] if st.can_see_card(c, viewer)]
            missing, extra = self.terms.unmatched(want, seen)
            if missing or extra:
                detail = "".join([f"; not shown {_show(missing)}" if missing else "",
                                  f"; shown too {_show(extra)}" if extra else ""])
                self.mismatch(zv, f"cards of {zk} shown to {player_name(viewer)}", want,
                              [self.terms.shown(c) for c in seen], detail)

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


def entries_node(node: yaml.Node, p: int) -> yaml.Node:
    """The value node for player p in a {P1: ...} mapping (the mapping itself if not found)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value.strip().upper() == player_name(p):
                return v
    return node
