"""The game state and the engine that walks the phase graph.

A State is plain data (ints, strings, lists) plus a reference to its compiled
Game, so ``to_json`` / ``from_json`` is an exact round trip.  The engine is a
small state machine over the current phase: enter -> check -> await a decision
-> (action, after) -> check -> ... -> exit -> next phase.

Fields read and written by compiled rules (compiler.py):
  n, opts, vars, zones, where, plays, active, rng, log, revealed, move_cards(), finish()
"""
from __future__ import annotations

import hashlib
import json
from typing import Optional, Union

from .actions import Action, action_text, candidates, failing_precondition, failing_requirement, legal_actions
from .compiler import Program, player_name
from .errors import GameOver, IllegalActionError, RuleRuntimeError
from .rng import Rng, seed_state
from .serialise import StateFormatError, parse_state_text, state_to_dict, validate_state_dict

ENTER, CHECK, AWAIT, AFTER, EXIT, OVER = "enter", "check", "await", "after", "exit", "over"
NO_RESPONSE = "no response"  # the text of declining to respond in a response window
MAX_AUTOMATIC_STEPS = 100_000
_PY_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)  # phases handed over without a decision before we call it a loop


class State:
    __slots__ = ("game", "prog", "n", "seed", "opts", "vars", "zones", "where", "plays", "active",
                 "phase", "stage", "rng", "terminal", "winners_", "revealed", "log", "history",
                 "stack", "entries", "next_entry", "window", "turn_active",
                 "_legal", "_legal_map", "_memo", "cov")

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, game, players: int, seed: int, options: dict, coverage=None) -> "State":
        """coverage: an optional collections.Counter that counts the rules exercised
        ("action:NAME", "phase:NAME", "effect:NAME", "cancelled:NAME", "event:NAME",
        "trigger:NAME"); it is not part of the state (not copied, not saved)."""
        prog: Program = game.prog
        st = cls.__new__(cls)
        st.game, st.prog = game, prog
        st.n = players
        st.seed = seed
        st.opts = options
        st.zones = [[] for _ in prog.slots]
        st.where = [0] * prog.card_count
        st.plays = {}
        st.active = 0
        st.phase = game.model.start_phase
        st.stage = ENTER
        st.rng = seed_state(seed)
        st.terminal = False
        st.winners_ = None
        st.revealed = []
        st.log = []
        st.history = []
        st._legal = None
        st._legal_map = None
        st._memo = None
        st.cov = coverage
        st.stack, st.entries, st.next_entry, st.window, st.turn_active = [], [], 0, None, None
        start = prog.zone_base.get(game.model.cards_start) if game.model.cards_start else None
        if start is not None:
            st.zones[start] = list(range(prog.card_count))
            st.where = [start] * prog.card_count
        st.vars = []
        for info, f in prog.var_defaults:
            value = f(st, {}) if f is not None else _zero(info.type.name)
            if info.per_player:  # every player gets their own copy of a list value
                st.vars.append([list(value) if isinstance(value, list) else value for _ in range(players)])
            else:
                st.vars.append(value)
        st._run_guarded(st._advance)
        return st

    # ------------------------------------------------------------------ primitives used by rules
    def move_cards(self, cards: list, dest: int, bottom: bool) -> None:
        if not cards:
            return
        zones, where, plays_slots = self.zones, self.where, self.prog.plays_slots
        moved = []
        for c in cards:
            src = where[c]
            zones[src].remove(c)
            if src in plays_slots:
                self._unrecord_play(src, c)
            moved.append([c, src])
            where[c] = dest
        if bottom:
            zones[dest][0:0] = list(cards)
        else:
            zones[dest].extend(cards)
        self.log.append(["move", dest, moved])

    def _unrecord_play(self, zi: int, c: int) -> None:
        plays = self.plays.get(zi, [])
        for play in plays:
            if c in play[1]:
                # a new list, never an edit: rules may still hold the old one (let p = plays(z)[0])
                play[1] = [x for x in play[1] if x != c]
                if not play[1]:
                    plays.remove(play)
                break
        if not plays:
            self.plays.pop(zi, None)

    # ------------------------------------------------------------------ the response stack
    # An effect put on the stack waits while a response window asks players, in order, whether
    # they respond; a response usually stacks an effect of its own, which opens a new window.
    # When everyone asked has declined, the top effect resolves (last in, first out) and the
    # window reopens for the effect below.  Players with no legal response are not asked.
    # Entries live in `entries` until the stack is empty again; `stack` holds their ids.
    def push_entry(self, kind: str, by, target, cards: list, against) -> None:
        eid = self.next_entry
        self.next_entry += 1
        self.entries.append([eid, kind, by, target, list(cards), against, False])
        self.stack.append(eid)
        self.window = None  # a new top: a new window
        self.log.append(["stack", eid, kind, by])

    def entry(self, eid: int) -> list:
        entries = self.entries
        if entries:
            i = eid - entries[0][0]
            if 0 <= i < len(entries) and entries[i][0] == eid:
                return entries[i]
        raise RuleRuntimeError(f"stack entry {eid} is gone (entries last until the stack is empty)", self.prog.path)

    def _responses_for(self, eid: int) -> list:
        tags = self.prog.effects[self.entry(eid)[1]].tags
        return [a.name for a in self.prog.responses if a.respond_to & tags]

    def _window(self) -> bool:
        """Run the response window of the top effect: True when a player must decide."""
        top = self.stack[-1]
        if self.turn_active is None:
            self.turn_active = self.active
        if self.window is None:
            e = self.entry(top)
            eff = self.prog.effects[e[1]]
            if eff.ask is not None:
                self.active = self.turn_active
                order = list(eff.ask(self, {"this": top}))
                if any(not isinstance(p, int) or not 0 <= p < self.n for p in order):
                    raise RuleRuntimeError(f"the window of '{e[1]}' asks {order}, which is not a list of players",
                                           self.prog.path, eff.decl.span)
            else:
                by = e[2] if e[2] is not None else self.turn_active
                order = [(by + k) % self.n for k in range(1, self.n + 1)]
            self.window = [order, 0]
        names = self._responses_for(top)
        order, idx = self.window
        if names:
            while idx < len(order):
                self.active = order[idx]
                self._legal = None
                if self._list_actions(names):
                    self.window[1] = idx
                    return True
                idx += 1
        # everyone asked declined: the top effect resolves
        self._legal = self._legal_map = None
        self.stack.pop()
        self.window = None
        e = self.entry(top)
        self.active = self.turn_active
        eff = self.prog.effects[e[1]]
        self.log.append(["resolve", top, e[1], e[6]])
        if self.cov is not None:
            self.cov[("cancelled:" if e[6] else "effect:") + e[1]] += 1
        block = eff.cancelled if e[6] else eff.resolve
        if block is not None:
            block(self, {"this": top})
        self.turn_active = self.active
        if not self.stack:
            self.entries = []
            self.turn_active = None
        return False

    def emit(self, event: str, env: dict) -> None:
        """Run the triggers of an event.  Order: triggers without 'for' first, in declaration
        order; then each player's, the acting player first and then clockwise, each player's
        triggers in declaration order.  Conditions are read before any trigger runs."""
        if self.cov is not None:
            self.cov["event:" + event] += 1
        trigs = self.prog.triggers.get(event)
        if not trigs:
            return
        first = self.active if self.active is not None else 0
        jobs = []
        for t in trigs:
            if t.for_players is None:
                if t.when is None or t.when(self, env):
                    jobs.append((-1, t.index, dict(env), t))
                continue
            for p in t.for_players(self, env):
                e2 = dict(env)
                e2[t.for_var] = p
                if t.when is None or t.when(self, e2):
                    jobs.append(((p - first) % self.n, t.index, e2, t))
        jobs.sort(key=lambda j: (j[0], j[1]))
        for _, _, e2, t in jobs:
            if self.cov is not None:
                self.cov["trigger:" + t.name] += 1
            t.body(self, e2)

    def finish(self, winners: Optional[list]) -> None:
        self.terminal = True
        self.stage = OVER
        if winners is None:
            scores = self.scores()
            best = max(scores)
            winners = [p for p in range(self.n) if scores[p] == best]
        self.winners_ = winners
        self.log.append(["end", list(winners)])

    # ------------------------------------------------------------------ the engine
    def _run_guarded(self, fn, *args):
        try:
            fn(*args)
        except GameOver:
            pass
        except RuleRuntimeError:
            raise
        except RecursionError:
            raise RuleRuntimeError("the rules recurse without end") from None
        except _PY_ERRORS as e:
            raise self._runtime_error(e) from None

    def _runtime_error(self, e: Exception) -> RuleRuntimeError:
        return RuleRuntimeError(f"{type(e).__name__}: {e} (in phase '{self.phase}')", self.prog.path)

    def _advance(self) -> None:
        """Run automatic steps until a player must decide or the game is over."""
        phases = self.prog.phases
        triggers = self.prog.triggers
        for _ in range(MAX_AUTOMATIC_STEPS):
            if self.terminal:
                return
            if self.stack:
                if self._window():
                    return
                continue
            ph = phases[self.phase]
            stage = self.stage
            if stage == ENTER:
                self.log.append(["phase", self.phase])
                if self.cov is not None:
                    self.cov["phase:" + self.phase] += 1
                self.stage = CHECK
                if triggers and "phase_start" in triggers:
                    self.emit("phase_start", {"phase": self.phase})
                if ph.enter is not None:
                    ph.enter(self, {})
            elif stage == AFTER:
                self.stage = CHECK
                if ph.after is not None:
                    ph.after(self, {})
            elif stage == CHECK:
                if ph.actions and not (ph.end_when is not None and ph.end_when(self, {})):
                    if ph.actor is not None:
                        self.active = ph.actor(self, {})
                    self.stage = AWAIT
                    return
                self.stage = EXIT
            elif stage == EXIT:
                self.stage = "next"
                if triggers and "phase_end" in triggers:
                    self.emit("phase_end", {"phase": self.phase})
                if ph.exit is not None:
                    ph.exit(self, {})
            elif stage == "next":
                nxt = None
                for target, cond in ph.nexts:
                    if cond is None or cond(self, {}):
                        nxt = target
                        break
                if nxt is None:
                    raise RuleRuntimeError(f"phase '{self.phase}' ended but none of its 'next' conditions holds",
                                           self.prog.path, ph.decl.span)
                self.phase, self.stage = nxt, ENTER
            else:
                return
        raise RuleRuntimeError(f"{MAX_AUTOMATIC_STEPS} phases went by without a player decision (an endless loop?)",
                               self.prog.path)

    # ------------------------------------------------------------------ the runtime contract
    @property
    def current_player(self) -> Optional[int]:
        return None if self.terminal else self.active

    def is_terminal(self) -> bool:
        return self.terminal

    def in_window(self) -> bool:
        """Is a response window waiting for a player (rather than the phase's actor)?"""
        return bool(self.stack) and self.window is not None

    def legal_actions(self) -> list[Action]:
        if self._legal is None:
            if self.terminal:
                self._legal = []
            elif self.in_window():
                self._list_actions(self._responses_for(self.stack[-1]))
            elif self.stage == AWAIT:
                self._list_actions(self.prog.phases[self.phase].actions)
            else:
                self._legal = []
            self._legal_map = None  # built when first needed
        return list(self._legal)  # the caller's own list: changing it cannot change the state

    def _list_actions(self, names: list) -> list:
        self._memo = {}  # nothing changes the state while actions are listed: defs may be memoised
        try:
            actions = legal_actions(self.prog, self, names, self.active)
        except RuleRuntimeError:
            raise
        except _PY_ERRORS as e:
            raise RuleRuntimeError(f"{type(e).__name__}: {e} (listing actions in phase '{self.phase}')",
                                   self.prog.path) from None
        finally:
            self._memo = None
        if actions and self.in_window():
            actions.append(Action(NO_RESPONSE, (), NO_RESPONSE))
        self._legal, self._legal_map = actions, None
        return actions

    def legal_action_strings(self) -> list[str]:
        if self._legal is None:
            self.legal_actions()
        return [a.text for a in self._legal]

    def apply(self, action: Union[Action, str]) -> None:
        legal = self._legal if self._legal is not None else self.legal_actions()
        chosen = None
        if isinstance(action, Action):
            text = action.text
            for a in legal:  # usually one of these very objects (an agent picked it)
                if a is action:
                    chosen = a
                    break
        else:
            text = str(action).strip()
        if chosen is None:
            if self._legal_map is None:
                self._legal_map = {a.text: a for a in legal}
            chosen = self._legal_map.get(text)
            if chosen is None:
                raise IllegalActionError(self.explain_illegal(text))
        self.history.append(text)
        self.log.append(["action", self.active, text])
        if self.cov is not None:
            self.cov["action:" + chosen.name] += 1
        self._legal = self._legal_map = None
        try:
            if chosen.name == NO_RESPONSE:
                self.window[1] += 1  # the next player in the window is asked
                self._advance()
                return
            act = self.prog.actions[chosen.name]
            env = dict(chosen.params)
            responding = self.in_window()
            top, depth = (self.stack[-1], len(self.stack)) if responding else (None, 0)
            if act.effect is not None:
                act.effect(self, env)
            if "action_taken" in self.prog.triggers:
                self.emit("action_taken", {"player": self.active, "action": chosen.name})
            if not responding:
                self.stage = AFTER  # 'after' runs once the stack (if any) has resolved
            elif self.stack and self.window is not None and self.stack[-1] == top and len(self.stack) == depth:
                self.window[1] += 1  # the response stacked nothing: ask the next player
            self._advance()
        except GameOver:
            pass
        except RuleRuntimeError:
            raise
        except _PY_ERRORS as e:
            raise self._runtime_error(e) from None
        except RecursionError:
            raise RuleRuntimeError("the rules recurse without end") from None

    def explain_illegal(self, text: str) -> str:
        self._memo = {}
        try:
            return self._explain_illegal(text)
        finally:
            self._memo = None

    def _explain_illegal(self, text: str) -> str:
        if self.terminal:
            return f"'{text}' is illegal: the game is over"
        ph = self.prog.phases[self.phase]
        who = player_name(self.active)
        name = text.split(" ", 1)[0]
        allowed, where, listed = ph.actions, f"in phase '{self.phase}'", list(ph.actions)
        if self.in_window():  # only the responses to the top effect may be played
            kind = self.entry(self.stack[-1])[1]
            allowed, where = self._responses_for(self.stack[-1]), f"in the response window of '{kind}'"
            listed = allowed + [NO_RESPONSE]
        if name in self.prog.actions and name not in allowed:
            return (f"'{text}' is illegal: '{name}' cannot be taken {where} "
                    f"(allowed here: {', '.join(listed)})")
        for aname in allowed:
            act = self.prog.actions[aname]
            pre = failing_precondition(act, self)
            if pre is not None:
                if _could_be(act, text):
                    msg, r = pre
                    why = msg or f"it needs 'require {self._source(r.cond.span)}'"
                    return f"'{text}' is illegal for {who} now: {why} ({self.prog.path}:{r.span.line})"
                continue
            for env in candidates(self.prog, act, self, self.active):
                if action_text(self.prog, act, self, env) == text:
                    failed = failing_requirement(act, self, env)
                    if failed is not None:
                        msg, r = failed
                        why = msg or f"it breaks the rule 'require {self._source(r.cond.span)}'"
                        return f"'{text}' is illegal for {who}: {why} ({self.prog.path}:{r.span.line})"
        legal = self.legal_action_strings()
        shown = ", ".join(f"'{a}'" for a in legal[:8]) + (", ..." if len(legal) > 8 else "")
        return f"'{text}' is not a legal action for {who} {where}; legal now: {shown}"

    def _source(self, span) -> str:
        from rulespec.graph import source_text
        return source_text(self.game.model.source, span)

    def scores(self) -> list[int]:
        if self.prog.score is None:
            return [0] * self.n
        return [self.prog.score(self, p) for p in range(self.n)]

    def winners(self) -> list[int]:
        return list(self.winners_) if self.terminal and self.winners_ is not None else []

    def returns(self) -> list[float]:
        if not self.terminal:
            return [0.0] * self.n
        w = set(self.winners_ or [])
        return [1.0 if p in w else 0.0 for p in range(self.n)]

    # ------------------------------------------------------------------ visibility
    def can_see(self, zi: int, viewer: Optional[int]) -> bool:
        """May `viewer` (None = an omniscient observer) see the faces of the cards in zone zi?"""
        if viewer is None:
            return True
        slot = self.prog.slots[zi]
        if slot.visibility == "public" or zi in self.revealed:
            return True
        return slot.visibility == "owner" and slot.owner == viewer

    def observation(self, player: Optional[int]) -> dict:
        """What `player` (a seat index from 0) may know: public and own cards by name, other
        zones as counts.  ``None`` is the omniscient view (every card by name: for tools,
        debugging and logs, never for a player)."""
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)
                                   or not 0 <= player < self.n):
            raise ValueError(f"observation() takes a seat index from 0 to {self.n - 1} (or None for the "
                             f"omniscient view), not {player!r}")
        prog, names = self.prog, self.prog.card_names
        zones = {}
        for slot in prog.slots:
            if slot.owner is not None and slot.owner >= self.n:
                continue
            cards = self.zones[slot.index]
            if self.can_see(slot.index, player):
                entry = {"cards": [names[c] for c in cards]}
                if slot.index in self.plays:
                    entry["plays"] = [[player_name(p), [names[c] for c in cs]] for p, cs in self.plays[slot.index]]
            else:
                entry = {"count": len(cards)}
            zones[slot.name] = entry
        return {
            "player": player_name(player),
            "phase": self.phase,
            "active": player_name(self.current_player) if not self.terminal else None,
            "vars": self._vars_dict(player),
            "zones": zones,
            "terminal": self.terminal,
            "winners": [player_name(p) for p in self.winners()],
            "legal_actions": self.legal_action_strings() if self.current_player == player else [],
            "stack": [self._entry_view(eid, player) for eid in self.stack],
        }

    def _entry_view(self, eid: int, viewer: Optional[int]) -> dict:
        """A stack entry as a player sees it: its cards by name where the player can see them."""
        e = self.entry(eid)
        names = self.prog.card_names
        return {"effect": e[1], "by": player_name(e[2]),
                "target": player_name(e[3]) if e[3] is not None else None,
                "cards": [names[c] if self.can_see(self.where[c], viewer) else "hidden card" for c in e[4]],
                "cancelled": e[6]}

    def _vars_dict(self, viewer: Optional[int]) -> dict:
        """Variables as the viewer may know them: players as P1.., cards by name only where the
        viewer can see the card's zone (a variable must not leak a hidden card)."""
        out = {}
        for (info, _), value in zip(self.prog.var_defaults, self.vars):
            show = self._shower(info.type, viewer)
            out[info.name] = [show(v) for v in value] if info.per_player else show(value)
        return out

    def _shower(self, t, viewer: Optional[int]):
        if t.name == "player":
            return lambda v: None if v is None else player_name(v)
        if t.name == "card":
            names = self.prog.card_names
            return lambda v: None if v is None else (names[v] if self.can_see(self.where[v], viewer) else "hidden card")
        if t.name == "list":
            inner = self._shower(t.elem, viewer)
            return lambda v: [inner(x) for x in v]
        return lambda v: v

    # ------------------------------------------------------------------ the log
    def log_lines(self, viewer: Optional[int] = None, start: int = 0) -> list[str]:
        """The log as readable lines, masked for `viewer` (None shows everything); with
        `start`, only the lines of the log entries from that index on (len(state.log) is
        where the next new entry will be: printing as a game goes stays linear in time)."""
        log = self.log if start <= 0 else self.log[start:]
        return [line for e in log for line in [self._render(e, viewer)] if line]

    def _render(self, e: list, viewer: Optional[int]) -> str:
        names, slots = self.prog.card_names, self.prog.slots
        kind = e[0]
        if kind == "text":
            return e[1]
        if kind == "phase":
            return f"-- {e[1]} --"
        if kind == "action":
            return f"{player_name(e[1])}: {e[2]}"
        if kind == "move":
            dest, moved = e[1], e[2]
            by_src: dict = {}
            for c, src in moved:
                by_src.setdefault(src, []).append(c)
            parts = []
            for src, cs in by_src.items():
                if self.can_see(dest, viewer) or self.can_see(src, viewer):
                    what = " + ".join(names[c] for c in cs)
                else:
                    what = f"{len(cs)} card{'s' if len(cs) != 1 else ''}"
                parts.append(f"{what} from {slots[src].name}")
            return f"   moved {', '.join(parts)} to {slots[dest].name}"
        if kind == "reveal":
            return f"   {slots[e[1]].name} is revealed: " + (" + ".join(names[c] for c in e[2]) or "nothing")
        if kind == "look":
            who = player_name(e[1])
            if viewer is None or viewer == e[1]:
                return f"   {who} looks at " + (" + ".join(names[c] for c in e[2]) or "nothing")
            return f"   {who} looks at {len(e[2])} card{'s' if len(e[2]) != 1 else ''}"
        if kind == "stack":
            return f"   {e[2]} goes on the stack (by {player_name(e[3])})"
        if kind == "resolve":
            return f"   {e[2]} " + ("is cancelled and has no effect" if e[3] else "resolves")
        if kind == "end":
            return "Game over. Winner" + ("s" if len(e[1]) != 1 else "") + ": " + \
                (", ".join(player_name(p) for p in e[1]) or "nobody")
        return ""

    # ------------------------------------------------------------------ copies and JSON
    def clone(self) -> "State":
        st = State.__new__(State)
        st.game, st.prog, st.n, st.seed, st.opts = self.game, self.prog, self.n, self.seed, self.opts
        st.vars = [list(v) if isinstance(v, list) else v for v in self.vars]
        st.zones = [list(z) for z in self.zones]
        st.where = list(self.where)
        st.plays = {k: [[p, list(cs)] for p, cs in v] for k, v in self.plays.items()}
        st.active, st.phase, st.stage, st.rng = self.active, self.phase, self.stage, self.rng
        st.terminal = self.terminal
        st.winners_ = list(self.winners_) if self.winners_ is not None else None
        st.revealed = list(self.revealed)
        st.log = list(self.log)  # entries are never mutated once written
        st.history = list(self.history)
        st.stack = list(self.stack)
        st.entries = [[e[0], e[1], e[2], e[3], list(e[4]), e[5], e[6]] for e in self.entries]
        st.next_entry, st.turn_active = self.next_entry, self.turn_active
        st.window = [list(self.window[0]), self.window[1]] if self.window is not None else None
        st._legal = self._legal
        st._legal_map = self._legal_map
        st._memo = None
        st.cov = None
        return st

    def to_dict(self) -> dict:
        return state_to_dict(self)

    def to_json(self) -> str:
        return json.dumps(state_to_dict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: Union[str, dict], game=None) -> "State":
        """A state from to_json's text (or its dict).  Without `game` the rules file the state
        names is loaded.  A state that does not fit its rules raises StateFormatError."""
        d = parse_state_text(text)
        if game is None:
            from .game import load
            rules = d.get("rules")
            if not isinstance(rules, str):
                raise StateFormatError("this saved state does not say which rules file it belongs to ('rules')")
            game = load(rules)
        validate_state_dict(d, game)
        st = cls.__new__(cls)
        st.game, st.prog = game, game.prog
        st.n, st.seed, st.opts = d["players"], d["seed"], dict(d["options"])
        st.phase, st.stage, st.active, st.rng = d["phase"], d["stage"], d["active"], d["rng"]
        st.vars = [list(v) if isinstance(v, list) else v for v in d["vars"]]
        st.zones = [list(z) for z in d["zones"]]
        st.where = [0] * game.prog.card_count
        for zi, z in enumerate(st.zones):
            for c in z:
                st.where[c] = zi
        st.plays = {int(k): [[p, list(cs)] for p, cs in v] for k, v in d["plays"].items()}
        st.revealed, st.terminal = list(d["revealed"]), d["terminal"]
        st.winners_ = list(d["winners"]) if d["winners"] is not None else None
        st.history, st.log = list(d["history"]), list(d["log"])
        st.stack, st.entries = list(d["stack"]), [list(e) for e in d["entries"]]
        st.next_entry, st.turn_active = d["next_entry"], d["turn_active"]
        st.window = [list(d["window"][0]), d["window"][1]] if d["window"] is not None else None
        st._legal = st._legal_map = None
        st._memo = None
        st.cov = None
        return st

    def __repr__(self) -> str:
        return f"<State {self.game.model.name} phase={self.phase} active={player_name(self.active)} terminal={self.terminal}>"


def _could_be(act, text: str) -> bool:
    """Could `text` name this action?  Compares with the fixed start of its text (its template
    up to the first hole, or its name), so a failed precondition can be explained."""
    template = act.decl.text.value if act.decl.text is not None else None
    if template is None:
        return text == act.name or text.startswith(act.name + " ")
    prefix = template.split("{", 1)[0]
    if "{" not in template:
        return text == template
    return bool(prefix.strip()) and text.startswith(prefix)


def _zero(type_name: str):
    if type_name == "list":
        return []
    return {"int": 0, "bool": False, "text": ""}.get(type_name)


def stable_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
