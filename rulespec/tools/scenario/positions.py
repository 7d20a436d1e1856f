"""'position:': writes zones, plays, variables, the stack, phase and turn directly into the state,
then checks the rules' invariants."""
from __future__ import annotations

from collections import Counter
from typing import Optional

import yaml

from rulespec.lang.diagnostics import did_you_mean
from rulespec.lang.setup_values import card_setup_words
from rulespec.tools.scenario.reading import POSITION_KEYS, REST_STAYS, STACK_ENTRY_KEYS
from rulespec.tools.scenario.position_sight import _SightKeys
from rulespec.tools.scenario.terms import _Terms

from interpreter.choices import ask_again
from interpreter.compiler import player_name
from interpreter.errors import EngineError
from interpreter.state import CHECK, ENTER


class _Positions(_SightKeys):
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
        resume = self.read.boolean(items["resume"][1], "resume") if "resume" in items else False
        if resume:
            clash = next((k for k in ("phase", "enter", "stack") if k in items), None)
            if clash is not None:
                self.fail(items[clash][0], f"'{clash}' restarts the rules, and 'resume: true' keeps them where "
                                           f"they stopped: give one of them")
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
        if "revealed_zones" in items:
            self.set_revealed_zones(items["revealed_zones"][1])
        if "known" in items:
            self.set_known(items["known"][1])
        if "active" in items:
            st.active = self.terms.player(items["active"][1], "active")
        if not resume:
            st.frames, st.pending = [], None  # a position starts afresh: no block is half run
            st.stack, st.entries, st.turn_active = [], [], None
        if "stack" in items:
            self.set_stack(items["stack"][1])
        st.terminal = False
        st.winners_ = None
        if not resume:
            st.phase = phase
            st.stage = ENTER if enter else CHECK
        st._legal = st._legal_map = None
        st.log.append(["text", f"-- scenario position: phase {phase} --"])
        session.positioned = True
        session.log_mark = len(st.log) - 1
        try:
            if resume:  # the block that was asking asks again, of the cards now in place
                ask_again(st)
            else:
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
                    st.edit_var(i)[p] = x  # (a clone's row is shared until changed)
            else:
                st.vars[i] = terms.value(v, info.type, what)

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
            out = st.out_of_game()
            for name, cn in (terms.card_list(items["cards"][1], "cards") if "cards" in items else []):
                c = next((c for c in range(st.prog.card_count)
                          if st.prog.card_names[c] == name and c not in used and c not in out), None)
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
        out = st.out_of_game()  # copies this game's setup leaves out: never placed
        free: dict = {}   # card name -> the ids of its cards still to place
        for c in range(n_cards):
            if st.where[c] not in keep and c not in out:
                free.setdefault(names[c], []).append(c)
        total = Counter(names[c] for c in range(n_cards) if c not in out)

        def take(name: str, node: yaml.Node) -> int:
            if name in names and name not in total:
                self.fail(node, f"card '{name}' has no copy in this game "
                                f"({card_setup_words(st.game.model, name, st.n, st.opts)})")
            if name not in total:  # a label: that very copy, if it is still free
                for c in self.terms.labels().get(name, ()):
                    pool = free.get(names[c], [])
                    if c in pool:
                        pool.remove(c)
                        return c
                if all(c in out for c in self.terms.labels().get(name, ())):
                    c = self.terms.labels()[name][0]
                    self.fail(node, f"copy '{name}' is not in this game "
                                    f"({card_setup_words(st.game.model, names[c], st.n, st.opts)})")
                self.fail(node, f"no '{name}' card is left to place (each label names one copy; "
                                f"it may be kept or placed already)")
            pool = free.get(name)
            if not pool:
                kept = total[name] - sum(1 for c in range(n_cards) if names[c] == name and st.where[c] not in keep
                                         and c not in out)
                extra = f" ({kept} kept in {', '.join(prog.slots[k].name for k in sorted(keep))})" if kept else ""
                fewer = f" ({card_setup_words(st.game.model, name, st.n, st.opts)})" \
                    if any(names[c] == name for c in out) else ""
                self.fail(node, f"too many '{name}' cards: the game has {total[name]}{fewer}{extra}")
            return pool.pop(0)

        new_zones: dict = {}
        new_plays: dict = {}
        knodes: dict = {}  # zone instance -> where the position names it
        if "zones" in items:
            for key, knode, v in self.read.mapping(items["zones"][1], "zones"):
                zi = self.terms.slot(key, knode)
                if zi in keep:
                    self.fail(knode, f"zone '{key}' is listed in keep, so it cannot be given cards")
                if zi in prog.plays_slots:
                    self.fail(knode, f"'{key}' is a plays zone: set it under 'plays:' as [[P1, [cards]], ...]")
                new_zones[zi] = [take(name, cn) for name, cn in self.terms.card_list(v, f"zone '{key}'")]
                knodes[zi] = knode
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
            zones[rest] = zones[rest] + [c for c in range(n_cards)
                                         if c not in placed and st.where[c] not in keep and c not in out]
        for zi, cap in prog.capacities.items():  # no game reaches a zone fuller than its capacity
            if len(zones[zi]) > cap:
                where = knodes.get(zi) or (items["zones"] if "zones" in items else items["plays"])[0]
                self.fail(where, f"impossible position: zone '{prog.slots[zi].name}' holds at most {cap} "
                                 f"card{'s' if cap != 1 else ''}, the position puts {len(zones[zi])} there")
        st.zones = zones
        st.where = [0] * n_cards
        for zi, z in enumerate(zones):
            for c in z:
                st.where[c] = zi
        for c in out:
            st.where[c] = prog.out_slot
        st.plays = {zi: v for zi, v in st.plays.items() if zi in keep}
        st.known = {c: seats for c, seats in st.known.items() if st.where[c] in keep}  # (placed cards moved)
        st.plays.update(new_plays)
        assert sum(len(z) for z in zones) == n_cards - len(out)

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


def _field_type(field):
    """The type of an effect's declared field (for reading it from YAML)."""
    from rulespec.lang import types as T
    name = field.type.name
    if name == "list":
        return T.list_of(T.SIMPLE.get(field.type.elem.name) or T.enum_type(field.type.elem.name))
    return T.SIMPLE.get(name) or T.enum_type(name)
