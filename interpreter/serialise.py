"""A State as plain data and back: ``to_dict`` / ``from_dict``, with a validation that gives
one clear error for a saved state that cannot be right (a missing key, a card in two zones
or in none, an index out of range, an unknown phase, a wrong type, another rules file).

The engine's own states always pass; the checks are for files that were edited by hand,
truncated or written by another version.  Nothing here knows any game.
"""
from __future__ import annotations

import json
from typing import Optional, Union

from rulespec.lang import types as T

from .errors import EngineError
from .saved_frames import block_inputs, check_frames, event_params, resolve_type, trigger_mirrors
from .saved_log import check_log

STAGES = ("enter", "check", "await", "after", "exit", "next", "over")
MASK64 = (1 << 64) - 1


class StateFormatError(EngineError, ValueError):
    """A saved state that does not fit its rules (the message says what is wrong)."""


# What to_json writes: compact, keys sorted.  One encoder made once (json.dumps makes one per
# call), without the check for circular references (a state is plain data, a tree): a quarter
# faster on a large state.
_STATE_JSON = json.JSONEncoder(separators=(",", ":"), sort_keys=True, check_circular=False)


def state_json(d: dict) -> str:
    """A state's dict (state_to_dict) as to_json writes it."""
    return _STATE_JSON.encode(d)


def state_to_dict(st) -> dict:
    return {
        "rules": st.game.path, "rules_sha256": st.game.source_hash,
        "players": st.n, "seed": st.seed, "options": dict(st.opts),
        "phase": st.phase, "stage": st.stage, "active": st.active, "rng": st.rng,
        "vars": st.vars, "zones": st.zones,
        "plays": {str(k): v for k, v in sorted(st.plays.items())},
        "revealed": st.revealed, "shown": st.shown, "terminal": st.terminal, "winners": st.winners_,
        "history": st.history, "log": st.log,
        "stack": st.stack, "entries": st.entries, "next_entry": st.next_entry, "turn_active": st.turn_active,
        "frames": st.frames, "pending": st.pending,
        # what players know of cards they do not see ('look ... until moved'): only when some do
        **({"known": [[c, st.known[c]] for c in sorted(st.known)]} if st.known else {}),
    }


def json_loads(text: Union[str, bytes, bytearray]):
    """json.loads, where JSON nested too deeply for Python's parser (it recurses) is one more
    json.JSONDecodeError rather than a RecursionError: every reader of JSON from outside (a saved
    state, a replay, a play log, a web request) then reports it with its other decoding errors."""
    try:
        return json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("it nests too deeply", text if isinstance(text, str) else "", 0) from None


def parse_state_text(text: Union[str, bytes, dict]) -> dict:
    if isinstance(text, dict):
        return text
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateFormatError(f"a saved state is JSON text or a dict, not {type(text).__name__}")
    try:
        d = json_loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise StateFormatError(f"a saved state must be JSON: {e}") from None
    if not isinstance(d, dict):
        raise StateFormatError(f"a saved state is a JSON object, not {type(d).__name__}")
    return d


def validate_state_dict(d: dict, game) -> None:
    """Raise StateFormatError with the first problem of a saved state for `game`."""
    _Validator(d, game).run()


def log_entries_problem(entries: list, d: dict, game, start: int) -> Optional[str]:
    """The first of `entries` (the log from index `start` of the state saved as d, which fits
    `game`) that from_json would refuse, said as its message; None if all fit."""
    val = _Validator(d, game)
    val.n, val.next_entry = d["players"], d["next_entry"]
    try:
        check_log(entries, val, start)
    except StateFormatError as e:
        return str(e)
    return None


REQUIRED = ("rules_sha256", "players", "seed", "options", "phase", "stage", "active", "rng", "vars", "zones",
            "plays", "revealed", "shown", "terminal", "winners", "history", "log", "stack", "entries", "next_entry",
            "turn_active", "frames", "pending")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# The quick checks of whole lists below run in C (a set of the elements' types, min, max): a
# saved state holds thousands of values, and a generator expression per list cost more than the
# rest of from_json.
_INT_ONLY, _INT_OR_NONE = frozenset([int]), frozenset([int, type(None)])


def _ints_below(v: list, hi: int) -> bool:
    """Does v hold only None and ints (not bools) from 0 to hi - 1?"""
    types = set(map(type, v))
    if types <= _INT_ONLY:
        return not v or (min(v) >= 0 and max(v) < hi)
    if types <= _INT_OR_NONE:
        xs = [x for x in v if x is not None]
        return not xs or (min(xs) >= 0 and max(xs) < hi)
    return False


def _all_of(kind: type):
    only = frozenset([kind])
    return lambda v, _: set(map(type, v)) <= only


def _all_cards(v, validator) -> bool:
    return _ints_below(v, validator.prog.card_count) and not (validator.out and validator.out.intersection(v))


def _all_players(v, validator) -> bool:
    return _ints_below(v, validator.n)


# element type -> a check of a whole list of such values that never errs towards "valid"
# (False sends the list through the value-by-value check, which names the bad value)
_FAST_ELEMENTS = {
    "int": _all_of(int),
    "bool": _all_of(bool),
    "text": _all_of(str),
    "card": _all_cards,
    "player": _all_players,
}


def _plain_ok(v, t, validator) -> bool:
    """A quick yes for a value of a plain type (no then means: check it value by value)."""
    ok = _FAST_ELEMENTS.get(t.name)
    return ok is not None and ok((v,), validator)


class _Validator:
    def __init__(self, d: dict, game):
        self.d, self.game, self.prog = d, game, game.prog
        self.card_count, self.zone_count = game.prog.card_count, len(game.prog.slots)
        self.out: frozenset = frozenset()  # the cards out of this game (set once the options are read)
        self.next_entry, self.entry_ids = 0, set()  # (set by stack())

    def fail(self, msg: str):
        raise StateFormatError(f"this saved state does not fit {self.game.path}: {msg}")

    def need(self, ok: bool, msg: str) -> None:
        if not ok:
            self.fail(msg)

    def int_in(self, v, lo: int, hi: int, what: str) -> None:
        if not (_is_int(v) and lo <= v < hi):  # (messages are built only on failure: this runs per value)
            self.fail(f"{what} must be a whole number from {lo} to {hi - 1}, not {v!r}")

    def player(self, v, what: str, nullable: bool = True) -> None:
        if v is None and nullable:
            return
        self.int_in(v, 0, self.n, what)

    def run(self) -> None:
        d, prog, model = self.d, self.prog, self.game.model
        missing = [k for k in REQUIRED if k not in d]
        self.need(not missing, "missing " + ", ".join(f"'{k}'" for k in missing))
        self.need(isinstance(d["rules_sha256"], str), "'rules_sha256' must be text")
        if d["rules_sha256"] != self.game.source_hash:
            raise StateFormatError(f"this state was saved with a different version of {d.get('rules', 'its rules')}")
        self.int_in(d["players"], model.min_players, model.max_players + 1, "'players'")
        self.n = d["players"]
        self.need(_is_int(d["seed"]), f"'seed' must be a whole number, not {d['seed']!r}")
        self.int_in(d["rng"], 0, MASK64 + 1, "'rng'")
        self.options(d["options"])
        self.out = prog.out_of_game(self.n, d["options"])
        self.need(isinstance(d["phase"], str) and d["phase"] in prog.phases, f"unknown phase {d['phase']!r}")
        self.need(d["stage"] in STAGES, f"unknown stage {d['stage']!r}")
        self.player(d["active"], "'active'")
        self.need(isinstance(d["terminal"], bool), "'terminal' must be true or false")
        w = d["winners"]
        self.need(w is None or isinstance(w, list), "'winners' must be a list of players or null")
        for p in w or []:
            self.player(p, "a winner", nullable=False)
        self.zones(d["zones"])
        self.stack()  # (before the variables: they may hold ids of stack entries)
        self.vars(d["vars"])
        self.plays(d["plays"])
        rv = d["revealed"]
        self.need(isinstance(rv, list) and len(set(map(repr, rv))) == len(rv), "'revealed' must be a list of zones, "
                                                                               "each once")
        for zi in rv:
            self.int_in(zi, 0, len(prog.slots), "a revealed zone")
        self.need(isinstance(d["history"], list) and all(isinstance(h, str) for h in d["history"]),
                  "'history' must be a list of action texts")
        sh = d["shown"]
        self.need(isinstance(sh, list) and all(_is_int(c) and 0 <= c < prog.card_count for c in sh)
                  and len(set(sh)) == len(sh), "'shown' must be a list of cards, each once")
        if "known" in d:
            self.known(d["known"])
        self.not_out(sh, "is shown")
        check_log(d["log"], self)
        self.player(d["turn_active"], "'turn_active'")
        check_frames(self)

    def known(self, known) -> None:
        """'known': [[card, [seat, ...]], ...], each card once, its seats distinct and in order."""
        shape = "'known' must be a list of [card, [player, ...]] pairs, each card once, its players in seat order"
        self.need(isinstance(known, list) and known, shape)
        cards = set()
        for pair in known:
            self.need(isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], list) and pair[1], shape)
            c, seats = pair
            self.int_in(c, 0, self.card_count, "a known card")
            self.need(c not in cards and seats == sorted(set(seats)) and all(map(_is_int, seats)), shape)
            for p in seats:
                self.player(p, "a player who knows a card", nullable=False)
            cards.add(c)

    def options(self, opts) -> None:
        model = self.game.model
        self.need(isinstance(opts, dict), "'options' must be a mapping")
        for k, v in opts.items():
            info = model.options.get(k)
            self.need(info is not None, f"unknown option {k!r}")
            t = info.type.name
            if t == "bool":
                ok = isinstance(v, bool)
            elif t == "int":
                ok = _is_int(v) and (info.values is None or info.values[0] <= v <= info.values[1])
            elif t == "text":
                ok = isinstance(v, str)
            elif t == "enum":
                ok = isinstance(v, str) and v in model.enums.get(info.type.enum, ()).members
            else:
                ok = True
            if not ok:
                within = f" in {info.values[0]}..{info.values[1]}" if info.values is not None else ""
                self.fail(f"option '{k}' has the value {v!r}, which is not a {info.type}{within}")
        absent = [k for k in model.options if k not in opts]
        self.need(not absent, "options missing: " + ", ".join(absent))

    def zones(self, zones) -> None:
        prog = self.prog
        self.need(isinstance(zones, list) and len(zones) == len(prog.slots),
                  f"'zones' must be a list of {len(prog.slots)} zones")
        seen: dict = {}
        count = prog.card_count
        for zi, z in enumerate(zones):
            name = prog.slots[zi].name
            if not isinstance(z, list):
                self.fail(f"zone {name} must be a list of cards")
            owner = prog.slots[zi].owner
            if owner is not None and owner >= self.n and z:
                self.fail(f"zone {name} belongs to a seat not in a {self.n}-player game but holds cards")
            before = len(seen)
            # the fast path checks the whole zone at once; the slow one finds the card to name
            if not z or (set(map(type, z)) <= _INT_ONLY and min(z) >= 0 and max(z) < count):
                seen.update(dict.fromkeys(z, zi))
                if len(seen) == before + len(z):
                    continue
                for c in z:  # a card twice: rebuild this zone's entries card by card to name it
                    seen.pop(c, None)
                seen.update({c: k for k, zc in enumerate(zones[:zi]) for c in zc})
            for c in z:
                self.int_in(c, 0, count, f"a card in {name}")
                self.need(c not in seen, f"card #{c} ({prog.card_names[c]}) is in {prog.slots[seen.get(c, 0)].name} "
                                         f"and in {name}")
                seen[c] = zi
        out = self.out
        if out:
            self.not_out(seen, "is in a zone")
        self.need(len(seen) == prog.card_count - len(out),
                  f"{prog.card_count - len(out) - len(seen)} card(s) are in no zone "
                  f"(e.g. #{min(set(range(prog.card_count)) - set(seen) - out, default=0)})")
        self.where = seen

    def not_out(self, cards, what: str) -> None:
        """None of cards is out of this game (a copy its setup does not use)."""
        bad = next((c for c in cards if c in self.out), None)
        if bad is not None:
            self.fail(f"card #{bad} ({self.prog.card_names[bad]}) {what}, but a game of {self.n} players with "
                      f"these options leaves it out")

    def vars(self, values) -> None:
        prog = self.prog
        self.need(isinstance(values, list) and len(values) == len(prog.var_defaults),
                  f"'vars' must be a list of {len(prog.var_defaults)} values")
        for (info, _), v in zip(prog.var_defaults, values):
            if info.per_player:
                if not (isinstance(v, list) and len(v) == self.n):
                    self.fail(f"variable '{info.name}' is per player: a list of {self.n} values")
                ok = _FAST_ELEMENTS.get(info.type.name)
                if ok is not None and ok(v, self):
                    continue
                for x in v:
                    self.value(x, info.type, f"variable '{info.name}'")
            elif not _plain_ok(v, info.type, self):
                self.value(v, info.type, f"variable '{info.name}'")

    def value(self, v, t, what: str) -> None:
        name = t.name
        if name == "list":
            if not isinstance(v, list):
                self.fail(f"{what} must be a list")
            ok = _FAST_ELEMENTS.get(t.elem.name)  # whole lists of plain values at once
            if ok is not None and ok(v, self):
                return
            for x in v:
                self.value(x, t.elem, what)
        elif name == "int":
            if not _is_int(v):
                self.fail(f"{what} must be a whole number, not {v!r}")
        elif name == "bool":
            if not isinstance(v, bool):
                self.fail(f"{what} must be true or false, not {v!r}")
        elif name == "text":
            if not isinstance(v, str):
                self.fail(f"{what} must be text, not {v!r}")
        elif name == "enum":
            members = self.game.model.enums[t.enum].members
            if not (v is None or v in members):
                self.fail(f"{what} must be one of {', '.join(members)}, not {v!r}")
        elif name == "player":
            self.player(v, what)
        elif name == "card":
            if not (v is None or (_is_int(v) and 0 <= v < self.prog.card_count)):
                self.fail(f"{what}: no card {v!r}")
            self.not_out([v], f"is held by {what}")
        elif name == "entry":  # (a variable may keep the id of an entry that has resolved since)
            if not (v is None or (_is_int(v) and 0 <= v < self.next_entry)):
                self.fail(f"{what} must be a stack entry, not {v!r}")
        elif name == "play":
            if not (v is None or (isinstance(v, list) and len(v) == 2 and isinstance(v[1], list))):
                self.fail(f"{what} must be a play [player, [card, ...]], not {v!r}")
            if v is not None:
                self.player(v[0], f"the player of {what}", nullable=False)
                self.value(v[1], T.CARDS, what)
        elif name == "zone":
            self.int_in(v, 0, self.zone_count, f"{what} (a zone)")
        elif name == "record":
            self.record(v, t.enum, what)
        elif name == "use":
            self.use(v, what)

    def record(self, v, event: str, what: str) -> None:
        """The record of an emitted event: its fields and 'prevented' (events.py)."""
        if v is None:
            return
        params = self.event_params(event)
        if not (isinstance(v, dict) and set(v) == set(params) | {"prevented"} and isinstance(v["prevented"], bool)):
            self.fail(f"{what} must be the record of event '{event}': its fields ({', '.join(params)}) and "
                      f"'prevented', not {str(v)[:80]}")
        for name, t in params.items():
            if t is not None:
                self.value(v[name], t, f"the field '{name}' of {what}")

    def use(self, v, what: str) -> None:
        """A card as used: {name, cards, via, giver, every card property, maybe $text} (choices.py)."""
        if v is None:
            return
        props = self.game.model.properties
        keys = {"name", "cards", "via", "giver"} | set(props)
        if not (isinstance(v, dict) and keys <= set(v) <= keys | {"$text"} and isinstance(v["name"], str)
                and isinstance(v["via"], str) and isinstance(v.get("$text", ""), str)):
            self.fail(f"{what} must be a card as used ({', '.join(sorted(keys))}), not {str(v)[:80]}")
        self.value(v["cards"], T.CARDS, f"the cards of {what}")
        self.need(len(set(v["cards"])) == len(v["cards"]), f"the cards of {what} must be different cards")
        self.value(v["giver"], T.CARD, f"the card giving {what}")
        for name, info in props.items():
            if v[name] is not None:
                self.value(v[name], info.type, f"the property '{name}' of {what}")

    def _once(self, key, make):
        """What make() gives, worked out once for the rules (kept in prog.cache under key)."""
        cache = self.prog.cache
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def event_params(self, event) -> Optional[dict]:
        """{field: type or None} of an event; None for no event."""
        return self._once(("saved event params", event), lambda: event_params(self.game.model, event))

    def entry_fields(self, effect: str) -> dict:
        """{field: type or None} an effect declares."""
        model = self.game.model
        return self._once(("saved entry fields", effect),
                          lambda: {f.name: resolve_type(f.type, model) for f in model.effects[effect].fields})

    def trigger_mirrors(self) -> dict:
        return self._once("saved trigger mirrors", lambda: trigger_mirrors(self.prog, self.game.model))

    def block_inputs(self) -> dict:
        return self._once("saved block inputs", lambda: block_inputs(self.prog, self.game.model))

    def plays(self, plays) -> None:
        prog = self.prog
        self.need(isinstance(plays, dict), "'plays' must be a mapping from zone to plays")
        for k, lst in plays.items():
            self.need(isinstance(k, str) and k.isdigit() and int(k) in prog.plays_slots,
                      f"plays recorded for {k!r}, which is not a plays zone")
            zi = int(k)
            self.need(isinstance(lst, list) and lst, f"the plays of zone {prog.slots[zi].name} must be a non-empty list")
            for play in lst:
                self.need(isinstance(play, list) and len(play) == 2 and isinstance(play[1], list) and play[1],
                          f"a play in {prog.slots[zi].name} must be [player, [cards]] with at least one card")
                self.player(play[0], f"the player of a play in {prog.slots[zi].name}", nullable=False)
                for c in play[1]:
                    self.need(_is_int(c) and self.where.get(c) == zi, f"a play in {prog.slots[zi].name} records card {c!r}, "
                                                       f"which is not there")

    def stack(self) -> None:
        """Entries [id, effect, by, target, cards, against, cancelled, fields] with consecutive ids;
        the stack: ids of entries, oldest first (each pushed entry has a new, higher id)."""
        d = self.d
        entries, stack, nxt = d["entries"], d["stack"], d["next_entry"]
        self.need(_is_int(nxt) and nxt >= 0, "'next_entry' must be a whole number")
        self.next_entry = nxt
        self.need(isinstance(entries, list), "'entries' must be a list")
        ids = []
        for e in entries:
            if not (isinstance(e, list) and len(e) == 8):
                self.fail("a stack entry must be [id, effect, by, target, cards, against, cancelled, fields]")
            if not (_is_int(e[0]) and 0 <= e[0] < nxt):
                self.fail(f"a stack entry has the id {e[0]!r} (ids are whole numbers below 'next_entry', {nxt})")
            ids.append(e[0])
        self.need(not ids or ids == list(range(ids[0], nxt)),
                  f"the stack entries' ids must be consecutive, the last one below 'next_entry' ({nxt}), not {ids}")
        self.entry_ids = set(ids)
        for e in entries:
            self.entry(e)
        self.need(isinstance(stack, list) and all(_is_int(s) and s in self.entry_ids for s in stack),
                  "'stack' must list ids of its entries")
        self.need(all(a < b for a, b in zip(stack, stack[1:])),
                  f"'stack' must list each entry once, oldest first (as they were stacked), not {stack}")

    def entry(self, e: list) -> None:
        eid, kind, by, target, cards, against, cancelled, data = e
        where = f"stack entry {eid}"
        if not (isinstance(kind, str) and kind in self.prog.effects):
            self.fail(f"{where} names the unknown effect {kind!r}")
        self.player(by, f"the player of {where}")
        self.player(target, f"the target of {where}")
        if not (isinstance(cards, list) and all(_is_int(c) and 0 <= c < self.card_count for c in cards)
                and len(set(cards)) == len(cards)):
            self.fail(f"the cards of {where} must be a list of different cards, not {str(cards)[:80]}")
        self.not_out(cards, f"is a card of {where}")
        if not (against is None or (_is_int(against) and against in self.entry_ids and against < eid)):
            self.fail(f"{where} answers {against!r}, which is not an earlier entry")
        if not isinstance(cancelled, bool):
            self.fail(f"whether {where} is cancelled must be true or false")
        fields = self.entry_fields(kind)
        if not (isinstance(data, dict) and set(data) == set(fields)):
            self.fail(f"the fields of {where} must be those of effect '{kind}' "
                      f"({', '.join(fields) or 'none'}), not {str(data)[:80]}")
        for name, t in fields.items():
            if t is not None:
                self.value(data[name], t, f"the field '{name}' of {where}")

