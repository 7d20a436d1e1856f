"""The game state and the engine that walks the phase graph.

A State is plain data (ints, strings, lists, dicts) plus a reference to its compiled Game,
so ``to_json`` / ``from_json`` is an exact round trip, at any decision.

Decisions come from three places only:
  * a phase waiting for its actor (stage AWAIT, no frame running);
  * a response window (``pending`` of kind "window", asked by the stack's frame);
  * a choice inside a block (``pending`` of kind "choice": ``choose``, ``ask``, or the
    order of one player's simultaneous triggers).
``legal_actions()`` serves whichever it is.  Blocks run as frames (machine.py, blocks.py);
the phase machine (``_advance``) starts them: enter -> check -> await a decision ->
(action, after) -> check -> ... -> exit -> next phase.

Split by job: observation.py (what a player sees, the log), windows.py (who is asked),
choices.py (what a choice offers), events.py (which triggers run), explain.py (why an action
is illegal), serialise.py (plain data and back).
"""
from __future__ import annotations

import hashlib
from typing import Optional, Union

from .actions import Action, legal_actions
from .compiler import Program, player_name
from .copy_on_write import CopyOnWrite, deep_copy as _deep, shared_lists_class
from .errors import ActionTypeError, GameOver, IllegalActionError, RuleRuntimeError
from .events import emit_now
from .frames import AFTER_RESPONSE_BLOCK, WINDOWS_BLOCK
from .machine import run
from .observation import Observation
from .rng import Rng, seed_state
from .static_conditions import options_for
from .serialise import StateFormatError, parse_state_text, state_json, state_to_dict, validate_state_dict
from .choices import resolve_hidden
from .windows import NO_RESPONSE, responses_for

ENTER, CHECK, AWAIT, AFTER, EXIT, OVER = "enter", "check", "await", "after", "exit", "over"
MAX_AUTOMATIC_STEPS = 100_000  # phases handed over without a decision before we call it a loop
CHOICE = "(choice)"  # the name of the actions that answer a choice (no declared action has a parenthesis)
_PY_ERRORS = (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError, AttributeError)

# State.from_json without a game loads the rules file the saved state names.  Loading rules is
# game.py's job, and game.py makes States: it hands its `load` over when it is imported (see
# use_rules_loader), so that this module never imports it back.  interpreter.State is handed
# out through game.py, so a State the package gave has it.
_rules_loader = None


def use_rules_loader(load) -> None:
    """How from_json loads the rules a saved state names when it is given no game (game.py)."""
    global _rules_loader
    _rules_loader = load


class State(Observation, CopyOnWrite):
    __slots__ = ("game", "prog", "n", "seed", "opts", "vars", "zones", "where", "plays", "active",
                 "phase", "stage", "rng", "terminal", "winners_", "revealed", "shown", "known", "log", "history",
                 "stack", "entries", "next_entry", "turn_active", "frames", "pending",
                 "_legal", "_legal_map", "_memo", "cov",
                 "_log_n", "_history_n", "_own", "_fshared")  # what a clone shares (copy_on_write.py)

    # ------------------------------------------------------------------ creation
    @classmethod
    def new(cls, game, players: int, seed: int, options: dict, coverage=None, start_order=None,
            count_branches: bool = True) -> "State":
        """coverage: an optional collections.Counter that counts the rules exercised
        ("action:NAME", "phase:NAME", "effect:NAME", "cancelled:NAME", "event:NAME",
        "trigger:NAME") and the branches taken ("branch:LINE:COL:ARM", rulespec/lang/branches.py:
        the state then runs on the program that counts them, unless count_branches is false); it is
        not part of the state (not copied, not saved)."""
        prog: Program = game.prog if coverage is None or not count_branches else game.program(branches=True)
        st = cls.__new__(cls)
        st.game, st.prog = game, prog
        st.n = players
        st.seed = seed
        st.opts = options_for(prog, options)
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
        st.shown = []
        st.known = {}
        st.log = []
        st.history = []
        st._legal = None
        st._legal_map = None
        st._memo = None
        st.cov = coverage
        st.stack, st.entries, st.next_entry, st.turn_active = [], [], 0, None
        st.frames, st.pending = [], None
        st._log_n = st._history_n = st._own = st._fshared = None
        start = prog.zone_base.get(game.model.cards_start) if game.model.cards_start else None
        if start is not None:
            st.zones[start] = list(range(prog.card_count)) if start_order is None else list(start_order)
            st.where = [start] * prog.card_count
            out = prog.out_of_game(players, st.opts)
            if out:  # copies this setup does not use: in no zone at all
                st.zones[start] = [c for c in st.zones[start] if c not in out]
                for c in out:
                    st.where[c] = prog.out_slot
        st.vars = []
        for info, f in prog.var_defaults:
            value = f(st, {}) if f is not None else _zero(info.type.name)
            if info.per_player:  # every player gets their own copy of a list value
                st.vars.append([list(value) if isinstance(value, list) else value for _ in range(players)])
            else:
                st.vars.append(value)
        st._run_guarded(st._advance)
        return st

    def out_of_game(self) -> frozenset:
        """The cards this game leaves out: copies its setup (player count, options) does not use."""
        return self.prog.out_of_game(self.n, self.opts)

    # ------------------------------------------------------------------ primitives used by rules
    def move_cards(self, cards: list, dest: int, bottom: bool, site=None) -> None:
        """Move cards to the zone instance dest (its top, or its bottom); site: (path, span) of the
        statement, where a move that would overfill a zone with a capacity is reported."""
        if not cards:
            return
        caps = self.prog.capacities
        if caps and dest in caps:
            self._check_room(cards, dest, caps[dest], site)
        zones, where, plays_slots, own = self.zones, self.where, self.prog.plays_slots, self._own
        tops = self._tops_of(cards) if self.prog.top_slots else None
        moved = []
        for c in cards:
            src = where[c]
            (zones[src] if own is None or src in own else self.edit_zone(src)).remove(c)
            if src in plays_slots:
                self._unrecord_play(src, c)
            moved.append([c, src])
            where[c] = dest
        to = zones[dest] if own is None or dest in own else self.edit_zone(dest)
        if bottom:
            to[0:0] = list(cards)
        else:
            to.extend(cards)
        # A log line shows what its viewers could see when it happened, never what they see
        # later: the zones of this move that are revealed now go into the entry (a later
        # reveal or conceal changes only later lines).  Usually none is: the entry stays short.
        # So do the cards seen on their own (glimpses): a top card, a card a player knew.
        glimpses = self._glimpses(cards, dest, tops) if tops is not None or self.known else None
        revealed = self.revealed
        then = [zi for zi in revealed if zi == dest or any(src == zi for _, src in moved)] if revealed else []
        if glimpses:
            self.log.append(["move", dest, moved, then, glimpses])
        elif then:
            self.log.append(["move", dest, moved, then])
        else:
            self.log.append(["move", dest, moved])

    def _check_room(self, cards: list, dest: int, cap: int, site) -> None:
        """Refuse, before any card moves, a move that would put more than cap cards in dest."""
        where = self.where
        after = len(self.zones[dest]) + len({c for c in cards if where[c] != dest})
        if after > cap:
            path, span = site if site is not None else (self.prog.path, None)
            raise RuleRuntimeError(f"zone '{self.prog.slots[dest].name}' holds at most {cap} card{'s' if cap != 1 else ''}; "
                                   f"this move would put {after} in it", path, span)

    def _tops_of(self, cards: list) -> dict:
        """The top card, before a move, of each `top public` pile the cards leave."""
        zones, where, tops = self.zones, self.where, self.prog.top_slots
        return {zi: zones[zi][-1] for zi in {where[c] for c in cards} if zi in tops}

    def _glimpses(self, cards: list, dest: int, tops: Optional[dict]) -> list:
        """[[card, seats who saw it], ...] of a move's cards seen on their own: a card taken from the
        top of a `top public` pile or left on top of one (by everyone), a card a player knew (by
        them).  Moving ends what players knew of the cards: they know them "until moved"."""
        seen: dict = {}
        everyone = tuple(range(self.n))
        if tops:
            for c in tops.values():
                if c in cards:
                    seen[c] = everyone
        to = self.zones[dest]
        if dest in self.prog.top_slots and to[-1] in cards:
            seen[to[-1]] = everyone
        known = self.known
        if known:
            for c in cards:
                knowing = known.pop(c, None)
                if knowing:
                    seen[c] = tuple(sorted(set(seen.get(c, ())) | set(knowing)))
        return [[c, list(seen[c])] for c in cards if c in seen]

    def shuffle_zone(self, zi: int) -> None:
        """Shuffle a zone: whoever knew one of its cards can no longer tell where it is."""
        Rng.shuffle(self, self.edit_zone(zi))
        known = self.known
        if known:
            for c in self.zones[zi]:
                known.pop(c, None)

    def look_at(self, cards: list, who: Optional[int], lasting: bool) -> None:
        """`who` sees the faces of the cards (the log shows the others how many); lasting: and
        knows each of them until it next moves ('look ... until moved')."""
        self.log.append(["look", who, cards])
        if lasting and who is not None:
            known = self.known
            for c in cards:
                knowing = known.get(c, [])
                if c is not None and who not in knowing:
                    known[c] = sorted([*knowing, who])  # a new list: clones share the old one

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
    # Entries live in `entries` until the stack is empty again (and no block is running);
    # `stack` holds their ids.  machine.py runs the windows; windows.py says who is asked.
    def push_entry(self, kind: str, by, target, cards: list, against, data: Optional[dict] = None) -> None:
        eid = self.next_entry
        self.next_entry += 1
        self.entries.append([eid, kind, by, target, list(cards), against, False, data or {}])
        self.stack.append(eid)
        self.log.append(["stack", eid, kind, by])

    def entry(self, eid: int) -> list:
        entries = self.entries
        if entries:
            i = eid - entries[0][0]
            if 0 <= i < len(entries) and entries[i][0] == eid:
                return entries[i]
        raise RuleRuntimeError(f"stack entry {eid} is gone (entries last until the stack is empty)", self.prog.path)

    def finish(self, winners: Optional[list]) -> None:
        self.terminal = True
        self.stage = OVER
        self.frames, self._fshared = [], None
        self.pending = None
        if winners is None:
            scores = self.scores()
            best = max(scores)
            winners = [p for p in range(self.n) if scores[p] == best]
        self.winners_ = winners
        self.log.append(["end", list(winners)])

    def _stop_at_limit(self) -> None:
        """The rules' 'limit N decisions' is reached (the history holds one entry a decision):
        the game ends where it stands, even mid-phase or with a choice pending, as 'end game'
        does; its winners are the limit's, or the highest score."""
        count, winners = self.prog.limit
        self.log.append(["limit", count])
        self.finish(winners(self, {}) if winners is not None else None)

    def ended_by_limit(self) -> bool:
        """Did the game end because the rules' limit of decisions was reached?"""
        return self.terminal and len(self.log) >= 2 and self.log[-2][0] == "limit"

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
        where = f"phase '{self.phase}'"
        if self.frames:
            where += ", in " + self.prog.blocks[self.frames[-1][0]].name
        return RuleRuntimeError(f"{type(e).__name__}: {e} (in {where})", self.prog.path)

    def _push(self, block: Optional[int], env: dict) -> None:
        """Run a block: at once when nothing in it can stop and nothing is waiting to run before
        it; otherwise as a frame (machine.py)."""
        if block is None:
            return
        blk = self.prog.blocks[block]
        if blk.plain and not self.frames:
            blk.steps[0](self, env)
        else:
            self.frames.append([block, 0, env])

    def _advance(self) -> None:
        """Run blocks and automatic steps until a player must decide or the game is over."""
        phases = self.prog.phases
        triggers = self.prog.triggers
        code = self.prog.phase_code  # the compiled engine's: phase -> one turn of this loop in it, as code
        for _ in range(MAX_AUTOMATIC_STEPS):
            if self.terminal:
                return
            if self.frames:
                run(self)
                if self.pending is not None or self.terminal:
                    return
                continue
            if self.stack:  # something was stacked: its windows run before anything else
                self.frames.append([WINDOWS_BLOCK, 0, {"depth": 0}])
                continue
            if self.entries:  # the stack is empty and no block runs: its entries are done with
                self.entries = []
                self.turn_active = None
            if code is not None:
                if code[self.phase](self):
                    return
                continue
            ph = phases[self.phase]
            stage = self.stage
            if stage == ENTER:
                self.log.append(["phase", self.phase])
                if self.cov is not None:
                    self.cov["phase:" + self.phase] += 1
                self.stage = CHECK
                if "phase_start" in triggers:  # the triggers first, then 'enter'
                    if ph.enter is not None:
                        self.frames.append([ph.enter, 0, {}])
                    emit_now(self, "phase_start", {"phase": self.phase}, runs_next=True)
                else:
                    self._push(ph.enter, {})
            elif stage == AFTER:
                self.stage = CHECK
                self._push(ph.after, {})
            elif stage == CHECK:
                if ph.actions and not (ph.end_when is not None and ph.end_when(self, {})):
                    if ph.actor is not None:
                        self.active = ph.actor(self, {})
                    self.stage = AWAIT
                    return
                self.stage = EXIT
            elif stage == EXIT:
                self.stage = "next"
                if "phase_end" in triggers:  # the triggers first, then 'exit'
                    if ph.exit is not None:
                        self.frames.append([ph.exit, 0, {}])
                    emit_now(self, "phase_end", {"phase": self.phase}, runs_next=True)
                else:
                    self._push(ph.exit, {})
            elif stage == "next":
                nxt = None
                for target, cond in ph.nexts:
                    if cond is None or cond(self, {}):
                        nxt = target
                        break
                if nxt is None:
                    raise RuleRuntimeError(f"phase '{self.phase}' ended but none of its 'next' conditions holds",
                                           self.prog.path, ph.decl.span)
                if self.cov is not None and ph.next_keys is not None:  # a program that counts branches
                    self.cov[ph.next_keys[ph.nexts.index((target, cond))]] += 1
                self.phase, self.stage = nxt, ENTER
            else:
                return
        raise RuleRuntimeError(f"{MAX_AUTOMATIC_STEPS} phases went by without a player decision (an endless loop?)",
                               self.prog.path)

    # ------------------------------------------------------------------ the runtime contract
    @property
    def current_player(self) -> Optional[int]:
        if self.terminal:
            return None
        pend = self.pending
        return pend["who"] if pend is not None else self.active

    def is_terminal(self) -> bool:
        return self.terminal

    def in_window(self) -> bool:
        """Is a response window waiting for a player (rather than a phase's actor or a choice)?"""
        return self.pending is not None and self.pending["kind"] == "window"

    def in_choice(self) -> bool:
        """Is a choice inside a block waiting for a player?"""
        return self.pending is not None and self.pending["kind"] == "choice"

    def legal_actions(self) -> list[Action]:
        """Every legal action now, in the rules' order (empty when the game is over)."""
        legal = self._legal if self._legal is not None else self._listed()
        if type(legal) is not list:  # a LazyActions (an int choice kept as a range): made whole, once
            legal = self._legal = list(legal)
            self._legal_map = None
        return list(legal)  # the caller's own list: changing it cannot change the state

    def count_actions(self) -> int:
        """len(legal_actions()), without making the actions of a range (a bet's 'raise to x')."""
        return len(self._legal if self._legal is not None else self._listed())

    def action_at(self, i: int) -> Action:
        """legal_actions()[i] (IndexError out of range), without making the others."""
        if not isinstance(i, int):
            raise TypeError(f"action_at() takes the index of a legal action (an int), not {type(i).__name__}")
        return (self._legal if self._legal is not None else self._listed())[i]

    def sample_action(self, rng) -> Action:
        """legal_actions()[rng.randrange(count_actions())]: the same draw from `rng` (a
        random.Random, or anything with randrange) and the same action as that idiom, or as
        rng.choice(legal_actions()), without listing every action.  IllegalActionError when
        there is none (the game is over)."""
        legal = self._legal if self._legal is not None else self._listed()
        n = len(legal)
        if not n:
            raise IllegalActionError("sample_action(): there is no legal action now"
                                     + (" (the game is over)" if self.terminal else ""))
        return legal[rng.randrange(n)]

    def _listed(self):
        """The legal actions as the state keeps them (a list, or a LazyActions: action_ranges.py)."""
        pend = self.pending
        if self.terminal:
            self._legal = []
        elif pend is None:
            if self.stage == AWAIT:
                ph = self.prog.phases[self.phase]
                self._list_actions(ph.actions, ph.ready)
            else:
                self._legal = []
        elif pend["kind"] == "window":
            self._list_actions(responses_for(self, pend["eid"]))
        else:
            self._legal = [Action(CHOICE, (("value", v),), t) for v, t in zip(pend["options"], pend["texts"])]
        self._legal_map = None  # built when first needed
        return self._legal

    def _list_actions(self, names: list, phase_ready=None):
        """List the actions `names` for the active player into the state (a list, or a
        LazyActions when a range is kept whole) and return them."""
        self._memo = {}  # nothing changes the state while actions are listed: defs may be memoised
        try:
            prog = self.prog
            actions = (prog.lister or legal_actions)(prog, self, names, self.active, phase_ready)
        except RuleRuntimeError:
            raise
        except _PY_ERRORS as e:
            raise RuleRuntimeError(f"{type(e).__name__}: {e} (listing actions in phase '{self.phase}')",
                                   self.prog.path) from None
        finally:
            self._memo = None
        pend = self.pending
        if pend is not None and pend["kind"] == "window":
            self.with_no_response(actions)
        self._legal, self._legal_map = actions, None
        return actions

    def with_no_response(self, actions: list) -> list:
        """A window's actions: the responses listed, then "no response" (unless the effect is
        mandatory and there is a response)."""
        if not (actions and self.prog.effects[self.entry(self.pending["eid"])[1]].mandatory):
            actions.append(Action(NO_RESPONSE, (), NO_RESPONSE))
        return actions

    def legal_action_strings(self) -> list[str]:
        """The texts of legal_actions(), in order."""
        legal = self._legal if self._legal is not None else self._listed()
        if type(legal) is not list:
            return legal.texts()
        return [a.text for a in legal]

    def apply(self, action: Union[Action, str]) -> None:
        """Take a legal action (one of legal_actions(), or its text).  An illegal one raises
        IllegalActionError, anything that is not an action ActionTypeError (one of them); the
        state is then unchanged."""
        _expect_action(action, "apply")
        legal = self._legal if self._legal is not None else self._listed()
        chosen = None
        if type(legal) is not list:  # a LazyActions: a range's action is found from its text
            text = action.text if isinstance(action, Action) else str(action).strip()
            chosen = legal.find(text)
            if chosen is None:
                raise IllegalActionError(self.explain_illegal(text))
        elif isinstance(action, Action):
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
        pend = self.pending
        who = pend["who"] if pend is not None else self.active
        name = chosen.name
        act = None if name == CHOICE or name == NO_RESPONSE else self.prog.actions[name]
        named = self._named_cards(chosen, act) if act is None or act.card_slots else None
        self.history.append(text)
        mark = len(self.log)
        if name == CHOICE:  # the log says what was chosen for what
            prompt = pend.get("prompt")
            self.log.append(["action", who, f"chooses {text}" + (f" ({prompt})" if prompt else "")])
        else:
            self.log.append(["action", who, text])
        if self.cov is not None:
            self.cov["action:" + chosen.name] += 1
        self._legal = self._legal_map = None
        try:
            self._take(chosen, act)
            self._advance()
            if self.prog.limit is not None and not self.terminal and len(self.history) >= self.prog.limit[0]:
                self._stop_at_limit()
        except GameOver:
            pass
        except RuleRuntimeError:
            raise
        except _PY_ERRORS as e:
            raise self._runtime_error(e) from None
        except RecursionError:
            raise RuleRuntimeError("the rules recurse without end") from None
        if named:
            self._mask_decision(mark, named)

    def _take(self, chosen: Action, act) -> None:
        """Carry out a decision: answer a choice, decline or respond in a window, or take a
        phase's action.  Blocks are pushed as frames; _advance runs them."""
        pend = self.pending
        if chosen.name == CHOICE:
            self.pending = None
            value = resolve_hidden(self, chosen.params[0][1], pend.get("param", ""), pend["who"])
            (self.frame_env(-1) if self._fshared else self.frames[-1][2])[pend["target"]] = value
            return
        if chosen.name == NO_RESPONSE:
            self.pending = None
            (self.frame_env(-1) if self._fshared else self.frames[-1][2])["idx"] += 1  # the window asks the next
            return
        env = dict(chosen.params)
        if act.card_slots:
            n_cards = self.prog.card_count
            for name, kind in act.card_slots:  # face-down picks become real cards now
                v = env[name]
                if (kind == "card" and v is not None and v >= n_cards) or \
                        (kind == "cards" and v and max(v) >= n_cards):
                    env[name] = resolve_hidden(self, v, kind, pend["who"] if pend is not None else self.active)
        frames = self.frames
        if pend is not None:  # a response: afterwards the window asks on (or opens anew)
            self.pending = None
            frames.append([AFTER_RESPONSE_BLOCK, 0, {"wf": len(frames) - 1, "top": self.stack[-1],
                                                     "depth": len(self.stack)}])
        else:
            self.stage = AFTER  # 'after' runs once the action's effect and the stack have resolved
        if "action_taken" in self.prog.triggers:  # the effect first, then the triggers
            emit_now(self, "action_taken", {"player": self.active, "action": chosen.name})
            if act.effect is not None:
                frames.append([act.effect, 0, env])
        else:
            self._push(act.effect, env)

    def action_cards(self, action: Action) -> list:
        """The cards a legal action (one of legal_actions() now) uses: those its text names (its
        card choices; a face-down pick names none) and, for an action or conversion a card gives,
        that card.  For tools that draw a table: which cards to click for which actions.  Some may
        be cards a player cannot see (ask can_see_card); nothing here changes the state."""
        name = action.name
        act = None if name == CHOICE or name == NO_RESPONSE else self.prog.actions[name]
        cards = self._named_cards(action, act) if act is None or act.card_slots else []
        givers = [v.get("giver") for _, v in action.params if type(v) is dict]  # a card used by a conversion
        if act is not None and act.ability is not None:
            givers.append(dict(action.params).get("self"))
        return cards + [c for c in givers if c is not None and c not in cards]

    def _named_cards(self, chosen: Action, act) -> list:
        """The cards a decision's text names: the values of its card choices (face-down picks
        name no card)."""
        name = chosen.name
        if name == CHOICE:
            named = self.pending.get("named")  # the engine's own choices say which cards each answer names
            if named is not None:
                return named[self.pending["options"].index(chosen.params[0][1])]
            kind = self.pending.get("param")
            slots = (("value", kind),) if kind in ("card", "cards", "use") else ()
        elif name == NO_RESPONSE:
            return []
        else:
            slots = act.card_slots
        if not slots:
            return []
        params = dict(chosen.params)
        out = []
        for pname, kind in slots:
            v = params[pname]
            if v is None:
                continue
            if kind == "card":
                out.append(v)
            elif kind == "cards":
                out.extend(v)
            else:
                out.extend(v["cards"])
        n_cards = self.prog.card_count
        return [c for c in out if c < n_cards]  # face-down picks name no card

    def _mask_decision(self, mark: int, cards: list) -> None:
        """A decision's text names cards: once it is carried out, only the players who can see
        all of them may read it in the log (the others read that a choice was made)."""
        if all(map(self.is_revealed, cards)):
            return  # the usual case: they went to a public zone
        entry = self.log[mark]
        who = entry[1]
        readers = {p for p in range(self.n) if all(self.can_see_card(c, p) for c in cards)}
        if len(readers) < self.n:
            if who is not None:
                readers.add(who)
            self.log[mark] = ["action", who, entry[2], sorted(readers)]

    def explain_illegal(self, text: Union[Action, str]) -> str:
        """Why an action's text (or an Action) is not legal now, in one sentence; ActionTypeError
        for anything else."""
        from .explain import explain_illegal
        _expect_action(text, "explain_illegal")
        if isinstance(text, Action):
            text = text.text
        self._memo = {}
        try:
            return explain_illegal(self, text)
        finally:
            self._memo = None

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

    # ------------------------------------------------------------------ copies and JSON
    def clone(self) -> "State":
        """An independent copy: applying actions to one never changes the other.  The two share
        their log, history, zones, variables and frames until one changes them (see
        copy_on_write.py); the rest is copied here."""
        st = _SharedState.__new__(_SharedState)
        st.game, st.prog, st.n, st.seed, st.opts = self.game, self.prog, self.n, self.seed, self.opts
        log, history = _LOG.__get__(self), _HISTORY.__get__(self)  # (the slots: self may be a clone too)
        _LOG.__set__(st, log)
        _HISTORY.__set__(st, history)
        self.share_with(st, log, history)
        st.where = self.where[:]
        plays = self.plays
        st.plays = {k: [[p, list(cs)] for p, cs in v] for k, v in plays.items()} if plays else {}
        st.active, st.phase, st.stage, st.rng = self.active, self.phase, self.stage, self.rng
        st.terminal = self.terminal
        st.winners_ = list(self.winners_) if self.winners_ is not None else None
        st.revealed = self.revealed[:]
        st.shown = self.shown[:]
        st.known = dict(self.known) if self.known else {}  # (its lists are never changed in place)
        st.stack = self.stack[:]
        entries = self.entries
        st.entries = [[e[0], e[1], e[2], e[3], list(e[4]), e[5], e[6], _deep(e[7])] for e in entries] if entries else []
        st.next_entry, st.turn_active = self.next_entry, self.turn_active
        st.pending = self.pending  # never changed in place: a new decision is a new dict
        st._legal = self._legal
        st._legal_map = self._legal_map
        st._memo = None
        st.cov = None
        return st

    def to_dict(self) -> dict:
        return state_to_dict(self)

    def to_json(self) -> str:
        return state_json(state_to_dict(self))

    @classmethod
    def from_json(cls, text: Union[str, dict], game=None) -> "State":
        """A state from to_json's text (or its dict).  Without `game` the rules file the state
        names is loaded.  A state that does not fit its rules raises StateFormatError."""
        d = parse_state_text(text)
        owned = not isinstance(text, dict)  # parsed here: the state may keep its lists as they are
        if game is not None and not isinstance(getattr(game, "prog", None), Program):
            raise TypeError(f"from_json() takes the Game the state belongs to (rulespec.load(path)) or None, "
                            f"not {type(game).__name__}")
        if game is None:
            rules = d.get("rules")
            if not isinstance(rules, str):
                raise StateFormatError("this saved state does not say which rules file it belongs to ('rules')")
            if _rules_loader is None:
                raise StateFormatError("no game given and none loaded: pass the Game (interpreter.load(path))")
            game = _rules_loader(rules)
        validate_state_dict(d, game)
        if not owned:  # the caller's dict: the state gets copies of what it may change
            d = _copy_of_state_dict(d)
        st = cls.__new__(cls)
        st.game, st.prog = game, game.prog
        st.n, st.seed, st.opts = d["players"], d["seed"], options_for(game.prog, d["options"])
        st.phase, st.stage, st.active, st.rng = d["phase"], d["stage"], d["active"], d["rng"]
        st.vars = d["vars"]
        st.zones = zones = d["zones"]
        st.where = where = [0] * game.prog.card_count
        for zi, z in enumerate(zones):
            for c in z:
                where[c] = zi
        for c in st.out_of_game():
            where[c] = game.prog.out_slot
        st.plays = {int(k): v for k, v in d["plays"].items()}
        st.revealed, st.shown, st.terminal = d["revealed"], d["shown"], d["terminal"]
        st.known = {c: seats for c, seats in d.get("known", ())}
        st.winners_ = d["winners"]
        st.history, st.log = d["history"], d["log"]
        st.stack, st.entries = d["stack"], d["entries"]
        st.next_entry, st.turn_active = d["next_entry"], d["turn_active"]
        st.frames = d["frames"]
        st.pending = d["pending"]
        st._log_n = st._history_n = st._own = st._fshared = None
        st._legal = st._legal_map = None
        st._memo = None
        st.cov = None
        return st

    def __repr__(self) -> str:
        return f"<State {self.game.model.name} phase={self.phase} active={player_name(self.active)} terminal={self.terminal}>"


_LOG, _HISTORY = State.__dict__["log"], State.__dict__["history"]
_SharedState = shared_lists_class(State)  # a clone, until it reads its log or history


def _copy_of_state_dict(d: dict) -> dict:
    """A saved state's dict with copies of every list and mapping a State changes (log entries
    are never changed once written: shared)."""
    return {**d, "vars": [_deep(v) for v in d["vars"]], "zones": [list(z) for z in d["zones"]],
            "plays": {k: [[p, list(cs)] for p, cs in v] for k, v in d["plays"].items()},
            "revealed": list(d["revealed"]), "shown": list(d["shown"]),
            **({"known": [[c, list(seats)] for c, seats in d["known"]]} if "known" in d else {}),
            "winners": list(d["winners"]) if d["winners"] is not None else None,
            "history": list(d["history"]), "log": list(d["log"]), "stack": list(d["stack"]),
            "entries": [_deep(e) for e in d["entries"]], "frames": [[f[0], f[1], _deep(f[2])] for f in d["frames"]],
            "pending": _deep(d["pending"])}


def _zero(type_name: str):
    if type_name == "list":
        return []
    return {"int": 0, "bool": False, "text": ""}.get(type_name)


def stable_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _expect_action(action, method: str) -> None:
    if not isinstance(action, (Action, str)):
        shown = repr(action)
        raise ActionTypeError(f"{method}() takes an action from legal_actions() or its text, not "
                              f"{shown if len(shown) <= 60 else shown[:57] + '...'}")
