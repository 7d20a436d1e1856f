"""A State as plain data and back: ``to_dict`` / ``from_dict``, with a validation that gives
one clear error for a saved state that cannot be right (a missing key, a card in two zones
or in none, an index out of range, an unknown phase, a wrong type, another rules file).

The engine's own states always pass; the checks are for files that were edited by hand,
truncated or written by another version.  Nothing here knows any game.
"""
from __future__ import annotations

import json
from typing import Union

from .errors import EngineError

STAGES = ("enter", "check", "await", "after", "exit", "next", "over")
MASK64 = (1 << 64) - 1


class StateFormatError(EngineError, ValueError):
    """A saved state that does not fit its rules (the message says what is wrong)."""


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


REQUIRED = ("rules_sha256", "players", "seed", "options", "phase", "stage", "active", "rng", "vars", "zones",
            "plays", "revealed", "shown", "terminal", "winners", "history", "log", "stack", "entries", "next_entry",
            "turn_active", "frames", "pending")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _all_ints(v, _) -> bool:
    return all(type(x) is int for x in v)


def _all_cards(v, validator) -> bool:
    count = validator.prog.card_count
    return all(x is None or (type(x) is int and 0 <= x < count) for x in v)


def _all_players(v, validator) -> bool:
    n = validator.n
    return all(x is None or (type(x) is int and 0 <= x < n) for x in v)


# element type -> a check of a whole list of such values that never errs towards "valid"
# (False sends the list through the value-by-value check, which names the bad value)
_FAST_ELEMENTS = {
    "int": _all_ints,
    "bool": lambda v, _: all(type(x) is bool for x in v),
    "text": lambda v, _: all(type(x) is str for x in v),
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
        self.need(d["phase"] in prog.phases, f"unknown phase {d['phase']!r}")
        self.need(d["stage"] in STAGES, f"unknown stage {d['stage']!r}")
        self.player(d["active"], "'active'")
        self.need(isinstance(d["terminal"], bool), "'terminal' must be true or false")
        w = d["winners"]
        self.need(w is None or isinstance(w, list), "'winners' must be a list of players or null")
        for p in w or []:
            self.player(p, "a winner", nullable=False)
        self.zones(d["zones"])
        self.vars(d["vars"])
        self.plays(d["plays"])
        rv = d["revealed"]
        self.need(isinstance(rv, list), "'revealed' must be a list of zones")
        for zi in rv:
            self.int_in(zi, 0, len(prog.slots), "a revealed zone")
        self.need(isinstance(d["history"], list) and all(isinstance(h, str) for h in d["history"]),
                  "'history' must be a list of action texts")
        self.need(isinstance(d["log"], list) and all(isinstance(e, list) and e and isinstance(e[0], str)
                                                      for e in d["log"]), "'log' must be a list of log entries")
        sh = d["shown"]
        self.need(isinstance(sh, list) and all(_is_int(c) and 0 <= c < prog.card_count for c in sh),
                  "'shown' must be a list of cards")
        self.stack()
        self.player(d["turn_active"], "'turn_active'")
        self.frames()

    def options(self, opts) -> None:
        model = self.game.model
        self.need(isinstance(opts, dict), "'options' must be a mapping")
        for k, v in opts.items():
            info = model.options.get(k)
            self.need(info is not None, f"unknown option {k!r}")
            t = info.type.name
            ok = {"bool": isinstance(v, bool), "int": _is_int(v), "text": isinstance(v, str),
                  "enum": isinstance(v, str) and v in model.enums.get(info.type.enum, ()).members
                  if t == "enum" else False}.get(t, True)
            self.need(ok, f"option '{k}' has the value {v!r}, which is not a {info.type}")
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
            if all(type(c) is int and 0 <= c < count for c in z):
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
        self.need(len(seen) == prog.card_count,
                  f"{prog.card_count - len(seen)} card(s) are in no zone "
                  f"(e.g. #{min(set(range(prog.card_count)) - set(seen), default=0)})")
        self.where = seen

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
        elif name == "entry":
            if not (v is None or _is_int(v)):
                self.fail(f"{what} must be a stack entry, not {v!r}")
        elif name == "play":
            if not (isinstance(v, list) and len(v) == 2 and isinstance(v[1], list)):
                self.fail(f"{what} must be a play")

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
                    self.need(self.where.get(c) == zi, f"a play in {prog.slots[zi].name} records card {c!r}, "
                                                       f"which is not there")

    def stack(self) -> None:
        d, prog = self.d, self.prog
        entries, stack, nxt = d["entries"], d["stack"], d["next_entry"]
        self.need(_is_int(nxt) and nxt >= 0, "'next_entry' must be a whole number")
        self.need(isinstance(entries, list), "'entries' must be a list")
        ids = []
        count = prog.card_count
        for e in entries:
            if not (isinstance(e, list) and len(e) == 8):
                self.fail("a stack entry must be [id, effect, by, target, cards, against, cancelled, fields]")
            eid, kind, by, target, cards, against, cancelled, data = e
            if not isinstance(data, dict):
                self.fail(f"the fields of stack entry {eid!r} must be a mapping")
            if not (_is_int(eid) and 0 <= eid < nxt):
                self.fail(f"a stack entry has the id {eid!r}")
            if kind not in prog.effects:
                self.fail(f"a stack entry names the unknown effect {kind!r}")
            self.player(by, "the player of a stack entry")
            self.player(target, "the target of a stack entry")
            if not (isinstance(cards, list) and all(_is_int(c) and 0 <= c < count for c in cards)):
                self.fail(f"the cards of stack entry {eid}")
            if not (against is None or _is_int(against)):
                self.fail(f"what stack entry {eid} answers")
            if not isinstance(cancelled, bool):
                self.fail(f"whether stack entry {eid} is cancelled")
            ids.append(eid)
        self.need(ids == sorted(set(ids)) and (not ids or ids == list(range(ids[0], ids[0] + len(ids)))),
                  "the stack entries' ids must be consecutive")
        self.need(isinstance(stack, list) and all(s in ids for s in stack), "'stack' must list ids of its entries")

    def frames(self) -> None:
        """Running blocks: [block, next step, locals]; a pending decision belongs to the top one."""
        d, prog = self.d, self.prog
        frames, pending = d["frames"], d["pending"]
        self.need(isinstance(frames, list), "'frames' must be a list")
        for f in frames:
            if not (isinstance(f, list) and len(f) == 3 and _is_int(f[0]) and 0 <= f[0] < len(prog.blocks)
                    and _is_int(f[1]) and 0 <= f[1] <= len(prog.blocks[f[0]].steps) and isinstance(f[2], dict)):
                self.fail(f"a running block must be [block, step, locals] of this rules file, not {str(f)[:80]}")
        if pending is None:
            return
        self.need(isinstance(pending, dict) and pending.get("kind") in ("choice", "window"),
                  "'pending' must be a choice or a response window")
        self.need(bool(frames), "a decision is pending but no block is running")
        self.player(pending.get("who"), "the player deciding", nullable=False)
        if pending["kind"] == "window":
            self.need(pending.get("eid") in d["stack"], "the pending response window is for an entry not on the stack")
        else:
            opts, texts = pending.get("options"), pending.get("texts")
            self.need(isinstance(opts, list) and isinstance(texts, list) and len(opts) == len(texts) and opts
                      and all(isinstance(t, str) for t in texts), "a pending choice needs options and their texts")
            self.need(isinstance(pending.get("target"), str), "a pending choice must say where its answer goes")
