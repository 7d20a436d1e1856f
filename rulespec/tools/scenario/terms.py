"""The game's names in a scenario's values: players, zones, cards, variables and typed values
(_Terms), and the _Session that the pieces of one running scenario share."""
from __future__ import annotations

from typing import Callable, Optional

import attrs
import yaml

from rulespec.lang.diagnostics import did_you_mean
from rulespec.tools.scenario.reading import Scenario, _Reader, _show

from interpreter.compiler import player_name


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
        out = self.st.out_of_game()  # (copies this game's setup leaves out answer to no name)
        for c in range(self.st.prog.card_count):
            if c not in taken and c not in out and self.matches(name, c):
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
