"""The static information-flow check: warnings where a publicly observable effect of the rules
depends on a card some player may not see, with nothing in between that makes it public.

Each value gets two labels, each the set of the reads (spans) it comes from (empty: public):
``secret`` -- the value itself tells something about hidden cards (a property of a face-down card,
whether a hidden hand holds a red card, how many cards of it are red); ``hidden`` -- the value
*is* cards some player may not see (a hidden hand, a card drawn from the stock).  Hidden cards
are no leak by themselves (observations and logs show them as "hidden card" or a count, and
the count of a whole zone is public); what is read *from* them is secret.  Control flow carries
a label too (``pc``): an `if`, a loop or a choice on a secret value labels every effect inside it.

What makes a value public again: `announce` (an arm of an `if` whose first statement is an
`announce` states the outcome, so it is no secret branch), `reveal`, a move of the cards into a
zone everyone sees, the player's own choice (a choice's non-card answer), the end of the game.
The analysis runs to a fixpoint over what flows between declarations (card variables, stack
entry fields, event fields, events emitted in a secret branch), then reports once.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from ..diagnostics import Related
from .flow_capacity import face_up_zones
from .flow_cond import assigned, cond_key, cond_vars, nested
from .flow_announce import announced_later, counted, reads_var
from .flow_decisions import Showings, prefix_ends, start
from .flow_events import event_shown_after
from .flow_phases import family, canon, lets_of, moved_into, names, phase_entry_shown
from .flow_labels import NONE, PUBLIC, FlowLabels, Val, either, face_up, zone_key
from .flow_legal import FlowLegal

# choices of cards: a `where` about a card picked face down need not hold (see face_down.py)
_PICKS = ("card", "cards", "use")
_HINT = "'announce' the outcome (an arm that holds an 'announce' is public), or 'reveal' the cards"
_HINTS = {"secrecy-legal": "read only cards the player sees (their own 'owner' zone, public or revealed cards), "
                           "or let them try it and test the hidden cards in the effect"}


class FlowPass(FlowLabels, FlowLegal):
    """Mixin of the Checker: the information-flow check (run after the bodies are checked)."""

    def check_flow(self) -> None:
        self._fl_known: set = set()     # hidden zones that only ever receive cards everyone saw
        self._fl_zreads: dict = {}      # read of an owner zone indexed by a local -> that local's Val
        self._fl_upcache: dict = {}     # (condition, holds) -> the zones it proves face up
        self._fl_entry = phase_entry_shown(self)  # phase -> zones shown on entering it
        self._fl_pshown: frozenset = NONE  # those of the phase whose enter block is being read
        self._fl_after = event_shown_after(self)  # event -> zones its `on` triggers leave face up
        shuffled = self._fl_shuffled()
        for _ in range(3):  # first with every hidden zone unknown, then with those found known
            self._fl_fixpoint()
            known = {z.name for z in self.zones.values() if z.visibility != "public"
                     and not (self._fl_into.get(z.name, NONE) - self._fl_revealed)}
            if self.game is not None and self.game.cards_start is not None:
                known.discard(self.game.cards_start.name)
            # a shuffled one: which cards it holds is known, not which is on top (nor what a deal takes)
            known = set() if "*" in shuffled else known - shuffled
            if known == self._fl_known:
                break
            self._fl_known = known
        for (span, code), (msg, reads) in sorted(self._fl_found.items()):
            decl, pos = self._fl_found_at[(span, code)]
            # an action's options are seen before it is taken: what it shows once taken is too late
            before = code == "secrecy-legal" and decl is None
            left = set(reads) if before else {r for r in reads if not self._fl_showings.shown_before(r, decl, pos)}
            if left:
                read = min(left)  # the first read in the file that nothing made public
                self.warning(code, span, msg, _HINTS.get(code, _HINT),
                             related=Related(read, "the hidden cards are read here"))

    def _fl_fixpoint(self) -> None:
        """Run over every declaration until what flows between them stops growing."""
        self._fl_cardvars: dict = {}   # card variable -> the reads of hidden cards it may hold
        self._fl_fields: dict = {}     # stack entry / event field -> Val of what it may hold
        self._fl_events: dict = {}     # event -> the reads of a secret branch that emits it
        self._fl_revealed: set = set()  # reads whose cards some statement shows to everyone
        self._fl_showings = Showings()  # where they are shown, and where questions are put
        self._fl_into: dict = {}        # zone -> the reads of hidden cards moved into it
        for _ in range(6):
            before = self._fl_state()
            self._fl_found: dict = {}
            self._fl_found_at: dict = {}  # (span, code) -> (declaration, position) of the effect
            self._fl_defs: dict = {}
            self._fl_shown: frozenset = NONE  # zones (name, index as written or "*") shown in this decision
            self._fl_cshown: frozenset = NONE  # (condition shape, holds, zones) shown when it holds
            self._fl_ending = False           # inside a block that ends the game
            self._fl_decl = None              # the declaration being read (the id of its block)
            self._fl_all_decls()
            if self._fl_state() == before:
                break

    def _fl_state(self):
        return (len(self._fl_revealed), {k: len(v) for k, v in self._fl_into.items()},
                {k: len(v) for k, v in self._fl_cardvars.items()},
                {k: (len(v.secret), len(v.hidden)) for k, v in self._fl_fields.items()},
                {k: len(v) for k, v in self._fl_events.items()})

    # ------------------------------------------------------------------ declarations
    def _fl_all_decls(self) -> None:
        g = self.game
        self._fl_legal_all()
        for a in self.actions.values():
            env = {}
            for p in a.params:
                env[p.name] = self._fl_param(p, env)
            if a.effect is not None:  # a player's, number's or kind's `where` holds in the effect
                guards = [(p.cond, True) for p in a.params if p.cond is not None and p.kind not in _PICKS]
                self._fl_decl = id(a.effect)
                self._fl_under(guards, lambda: self._fl_block(a.effect, env, NONE), a.effect)
        for p in self.phases.values():
            self._fl_decl = None
            if p.actor is not None:
                self._fl_sink(self._fl_expr(p.actor, {}).secret, p.actor.span, "secrecy-target",
                              "who acts in this phase depends on hidden cards")
            for blk in (p.enter, p.after, p.exit):
                if blk is not None:
                    # the start's enter, before any shuffle or deal: the deck is as everyone knows it
                    known = blk is p.enter and g is not None and g.start is not None and g.start.name == p.name
                    if blk is p.enter:  # what earlier phases showed, unless this block changes it
                        moved, changed = moved_into(blk.stmts, set()), assigned(blk.stmts)
                        self._fl_pshown = frozenset(
                            f for f in self._fl_entry.get(p.name, NONE) if f[0] not in moved and "*" not in moved
                            and (f[1] is None or not names(f[1]) & changed))
                    self._fl_decl = id(blk)
                    try:
                        self._fl_block(blk, {"$known": set(self._fl_start_triggers()[1])} if known else {}, NONE)
                    finally:
                        self._fl_pshown = NONE
            self._fl_decl = None
            if p.end_when is not None:
                self._fl_sink(self._fl_expr(p.end_when, {}).secret, p.end_when.span, "secrecy-phase",
                              "when this phase ends depends on hidden cards")
            for n in p.nexts:
                if n.cond is not None:
                    self._fl_sink(self._fl_expr(n.cond, {}).secret, n.cond.span, "secrecy-phase",
                                  "which phase comes next depends on hidden cards")
        for e in self.effects.values():
            self._fl_decl = None
            if e.ask is not None:
                self._fl_sink(self._fl_expr(e.ask, {}).secret, e.ask.span, "secrecy-target",
                              "who this effect's window asks depends on hidden cards")
            for blk in (e.resolve, e.cancelled):
                if blk is not None:
                    self._fl_decl = id(blk)
                    self._fl_block(blk, {}, NONE)
        starts, gone = self._fl_start_triggers()
        for t in self.triggers:
            env = {"$known": set(gone)} if t in starts else {}
            for name, _ in self.event_params(t.event.name):
                env[name] = self._fl_fields.get(("event", t.event.name, name), PUBLIC)
            if t.timing == "after":
                self._fl_after_shown(t, env)
            pc = self._fl_events.get(t.event.name, NONE)
            self._fl_decl = id(t.body)
            if t.optional is not None:  # its question is put only when the event happens
                self._fl_sink(NONE, t.span, "secrecy-target",
                              "whether this optional trigger asks depends on hidden cards (its event is raised on them)", pc)
            if t.when is not None:
                when = self._fl_expr(t.when, env).secret
                # an optional trigger runs on its player's yes: the engine asks everyone who could
                # hold such a card the same question, so whether its condition held stays hidden
                pc = pc if t.optional is not None else either(pc, when)
            self._fl_block(t.body, env, pc)

    def _fl_after_shown(self, t: A.TriggerDecl, env: dict) -> None:
        """In an `after` trigger, the zones the event's `on` triggers left face up (flow_events) are
        public: zone[field] while the field's name still means the field (a fresh Val, which a
        loop, a quantifier or a `let` of the same name replaces)."""
        fresh: dict = {}
        for zone, field in self._fl_after.get(t.event.name, ()):
            if field is None:
                env[("$zone", zone, None)] = True
            elif field != t.for_var and field in env:
                if field not in fresh:
                    fresh[field] = env[field] = Val(env[field].secret, env[field].hidden)
                env[("$zone", zone, field)] = fresh[field]

    def _fl_shuffled(self) -> set:
        """The zones any block shuffles (their order is unknown, whatever cards they hold)."""
        blocks = [t.body for t in self.triggers] + [a.effect for a in self.actions.values() if a.effect is not None]
        blocks += [b for p in self.phases.values() for b in (p.enter, p.after, p.exit) if b is not None]
        blocks += [b for e in self.effects.values() for b in (e.resolve, e.cancelled) if b is not None]
        out: set = set()
        for b in blocks:
            _shuffles(b.stmts, out)
        return out

    def _fl_param(self, p: A.ActionParam, env: dict) -> Val:
        """A choice: the chooser's answer is theirs to give; cards chosen may be hidden from others."""
        if p.kind in ("card", "cards", "use") and p.domain is not None:
            return Val(NONE, either(self._fl_expr(p.domain, env).hidden, self._fl_picked(p.domain, env)))
        return PUBLIC


    # ------------------------------------------------------------------ statements
    def _fl_block(self, b: A.Block, env: dict, pc: frozenset) -> None:
        """A block runs within one decision, up to the next question it puts to a player: what it
        reveals at its top level (or in a loop there) by then is shown when that decision is over,
        so reads of those zones before tell nothing; a block that ends the game by then shows
        everything (only whether it runs may leak)."""
        env = dict(env)
        stmts = b.stmts
        ends = prefix_ends(stmts)
        saved = self._fl_shown, self._fl_ending, self._fl_cshown
        seen = None
        try:
            for i, s in enumerate(stmts):
                if ends[i] != seen:  # a new stretch up to a question: what it shows by then
                    seen = ends[i]
                    self._fl_decision(stmts, seen, saved)
                if isinstance(s, A.Assign) and not s.target.path and s.target.name not in env \
                        and announced_later(stmts[i + 1:seen], reads_var(s.target.name), self.templates):
                    self._fl_expr(s.value, env)  # an announce that follows states what it was set to
                    continue
                if isinstance(s, A.Look) and announced_later(stmts[i + 1:seen], counted(s.cards), self.templates):
                    self._fl_look(s, env, pc, stated=True)  # an announce that follows states how many
                    continue
                self._fl_stmt(s, env, pc)
        finally:
            self._fl_shown, self._fl_ending, self._fl_cshown = saved

    def _fl_decision(self, stmts, end: int, outer: tuple) -> None:
        """The zones shown, and whether the game ends, by the time stmts[:end] have run (on top of
        the outer blocks' outer)."""
        shown, cshown = _shown_zones(stmts[:end]), self._fl_cond_shown(stmts[:end], stmts)
        self._fl_shown = outer[0] | shown if shown else outer[0]
        self._fl_ending = outer[1] or any(isinstance(s, A.EndGame) for s in stmts[:end])
        self._fl_cshown = outer[2] | cshown if cshown else outer[2]

    def _fl_cond_shown(self, stmts, block) -> frozenset:
        """The zones an `if C { reveal Z }` at the top level of stmts shows when C holds (or an
        `else` when C fails), as (shape of C, holds, zones); none if the block (its statements
        block) changes what C reads."""
        out, changed = set(), None
        for s in stmts:
            if not isinstance(s, A.If):
                continue
            key = cond_key(s.branches[0][0], self.refs)
            if key is None:
                continue
            arms = [(key[1], s.branches[0][1])]
            if len(s.branches) == 1 and s.else_ is not None:
                arms.append((not key[1], s.else_))
            for holds, blk in arms:
                zones = _shown_zones(blk.stmts)
                if zones:
                    changed = assigned(block) if changed is None else changed
                    if not cond_vars(key[0]) & changed:
                        out.add((key[0], holds, zones))
        return frozenset(out)

    def _fl_assume(self, conds) -> frozenset:
        """The zones shown where each (cond, holds) of conds is known to hold so: revealed under
        that condition, or proved face up by it (zones with a capacity: flow_cond.face_up_zones)."""
        out = NONE
        for cond, holds in conds:
            up = self._fl_upcache.get((cond, holds))
            if up is None:
                up = self._fl_upcache[(cond, holds)] = face_up_zones(cond, holds, self.refs, self.zones)
            out = out | up if up else out
        if not self._fl_cshown:
            return out
        for cond, holds in conds:
            key = cond_key(cond, self.refs)
            if key is not None:
                for shape, h, zones in self._fl_cshown:
                    if shape == key[0] and h == (key[1] == holds):
                        out = out | zones
        return out

    def _fl_under(self, conds, run, block: Optional[A.Block] = None) -> None:
        """run() with the zones shown under conds added to the shown ones (but those block moves
        cards into: a card moved in may be face down)."""
        extra = self._fl_assume(conds)
        if extra and block is not None:
            moved = moved_into(block.stmts, set())
            extra = NONE if "*" in moved else frozenset(z for z in extra if z[0] not in moved)
        if not extra:
            return run()
        saved = self._fl_shown
        self._fl_shown = self._fl_shown | extra
        try:
            return run()
        finally:
            self._fl_shown = saved

    def _fl_arm(self, b: A.Block, env: dict, pc: frozenset, outer: frozenset) -> None:
        """An arm of a branch: one that announces states its outcome publicly."""
        if _announces(b):
            pc = outer
        self._fl_block(b, env, pc)

    def _fl_show(self, cards: Val, dest, span: A.Span) -> None:
        """Cards moved to dest (by the statement at span): everyone sees them there if its zone is
        public (or its top); else the zone holds them (a hidden zone that only gets seen cards is no secret)."""
        z = self.zone_of(dest)
        if z is not None and z.visibility in ("public", "top"):
            self._fl_reveal(cards.hidden, span)
        elif z is not None and cards.hidden:
            self._fl_into[z.name] = either(self._fl_into.get(z.name, NONE), cards.hidden)

    def _fl_reveal(self, reads: frozenset, span: A.Span) -> None:
        """The cards of reads are shown to everyone by the statement at span."""
        if reads:
            self._fl_revealed |= reads
            self._fl_showings.show(reads, self._fl_decl, start(span))

    def _fl_stmt(self, s, env: dict, pc: frozenset) -> None:
        ex = self._fl_expr
        if isinstance(s, A.Let):
            v = ex(s.value, env)
            env[s.name] = Val() if v is PUBLIC else v  # its own binding (flow_legal tells them apart)
            if self._fl_pshown:  # what it names, to know a zone indexed by it (flow_phases)
                env[("$let", s.name)] = canon(s.value, lets_of(env), self.refs)
        elif isinstance(s, A.Assign):
            self._fl_assign(s, env, pc)
        elif isinstance(s, (A.Move, A.Play, A.Deal)):
            if isinstance(s, A.Deal):
                self._fl_unknown(None, env, True)
                cards = Val(ex(s.count, env).secret, ex(s.source, env).hidden)
            else:
                cards = ex(s.cards, env)
            dest = ex(s.dest, env)
            self._fl_sink(either(cards.secret, dest.secret), s.span, "secrecy-move",
                          "which or how many cards move here depends on hidden cards", pc)
            if isinstance(s, A.Play) and s.by is not None:
                self._fl_sink(ex(s.by, env).secret, s.by.span, "secrecy-target", "who plays depends on hidden cards")
            self._fl_show(cards, s.dest, s.span)
            self._fl_unknown(s.dest, env, cards.hidden)
            key = zone_key(s.dest)
            if key is not None and cards.hidden:  # a later 'reveal' of that zone shows them
                env[("$into",) + key[1:]] = either(env.get(("$into",) + key[1:], NONE), cards.hidden)
        elif isinstance(s, A.Shuffle):
            self._fl_unknown(s.zone, env, True)
            ex(s.zone, env)
        elif isinstance(s, A.Reveal):
            v = ex(s.zone, env)
            if s.reveal:
                self._fl_sink(NONE, s.span, "secrecy-move", "what is revealed depends on hidden cards", pc)
                self._fl_reveal(v.hidden, s.span)
                key = zone_key(s.zone)
                if key is not None:
                    env[key] = True
                    self._fl_reveal(env.get(("$into",) + key[1:], NONE), s.span)
        elif isinstance(s, A.If):
            # a later arm runs only when the earlier conditions failed: that is public when the
            # earlier arm would have announced (no announcement tells it), else it is secret too
            outer = pc
            failed = []
            for cond, blk in s.branches:
                here = either(pc, ex(cond, env).secret)
                self._fl_under([(cond, True)] + failed,
                               lambda: self._fl_arm(blk, face_up(cond, True, env), here, outer), blk)
                failed.append((cond, False))
                if not _announces(blk):
                    pc = here
            if s.else_ is not None:
                self._fl_under(failed, lambda: self._fl_arm(s.else_, env, pc, outer), s.else_)
        elif isinstance(s, A.For):
            it = ex(s.iterable, env)
            inner = dict(env)
            inner[s.var] = Val(it.secret, it.hidden)
            known = env.get("$known")
            before = None if known is None else known.copy()
            self._fl_block(s.body, inner, either(pc, it.secret))
            if before is not None and known != before:  # a later round reads what this one changed
                self._fl_block(s.body, dict(inner), either(pc, it.secret))
        elif isinstance(s, A.EndGame):
            w = ex(s.winners, env).secret if s.winners is not None else NONE
            self._fl_sink(w, s.span, "secrecy-end", "the game ends here on hidden cards", pc)
        elif isinstance(s, A.Log):
            self._fl_sink(self._fl_template(s.template, env), s.span, "secrecy-log",
                          "this log line depends on hidden cards", pc)
        elif isinstance(s, A.StackStmt):
            for who in (s.by, s.target):
                if who is not None:
                    self._fl_sink(ex(who, env).secret, who.span, "secrecy-target",
                                  "who this effect is by or targets depends on hidden cards")
            self._fl_sink(NONE, s.span, "secrecy-target", "whether this effect is stacked depends on hidden cards", pc)
            for name, value in s.fields:
                self._fl_field(("entry", name), ex(value, env))
            for x in (s.with_, s.against):
                if x is not None:
                    ex(x, env)
        elif isinstance(s, A.Choose):
            who = ex(s.chooser, env)
            # everyone sees the question put, before the cards the rest of the block shows
            self._fl_showings.ask(self._fl_decl, start(s.span))
            self._fl_sink(who.secret, s.chooser.span, "secrecy-target",
                          "who is asked here, or whether, depends on hidden cards", pc, at=s.span)
            self._fl_choose_legal(s, env)
            v = self._fl_param(s.param, env)
            env[s.name] = Val() if v is PUBLIC else v  # its own binding, as a let's
            src = _chosen_from(s.name, s.param, env)
            if src is not None:
                env[("$in", s.name)] = src
        elif isinstance(s, A.Emit):
            params = [n for n, _ in self.event_params(s.event.name)]
            for name, arg in zip(params, s.args):
                arg = arg[1] if isinstance(arg, tuple) else arg
                self._fl_field(("event", s.event.name, name), ex(arg, env))
            if pc:
                self._fl_events[s.event.name] = either(self._fl_events.get(s.event.name, NONE), pc)
            if s.target is not None:
                env[s.target] = Val(pc, NONE)
        elif isinstance(s, A.Look):
            self._fl_look(s, env, pc)
        elif isinstance(s, A.Cancel):
            ex(s.entry, env)
            self._fl_sink(NONE, s.span, "secrecy-target",
                          "whether this effect is cancelled depends on hidden cards", pc)

    def _fl_look(self, s: A.Look, env: dict, pc: frozenset, stated: bool = False) -> None:
        """The others see that the player looks, and at how many cards (unless stated: announced)."""
        n = self._fl_expr(s.cards, env).secret
        self._fl_sink(NONE if stated else n, s.span, "secrecy-move",
                      "which or how many cards are looked at here depends on hidden cards", pc)
        if s.by is not None:
            self._fl_sink(self._fl_expr(s.by, env).secret, s.by.span, "secrecy-target", "who looks depends on hidden cards")

    def _fl_assign(self, s: A.Assign, env: dict, pc: frozenset) -> None:
        v = self._fl_expr(s.value, env)
        lv = s.target
        if lv.index is not None:
            v = Val(either(v.secret, self._fl_expr(lv.index, env).secret), v.hidden)
        if lv.path:  # a field of a stack entry or an event record: what it holds flows on
            w = Val(either(pc, v.secret), v.hidden)
            self._fl_field(("entry", lv.path[-1]), w)
            self._fl_field(("record", lv.path[-1]), w)
            return
        if lv.name in env:  # a local
            for k in [k for k, n in env.items() if isinstance(k, tuple) and k[0] == "$in" and n == lv.name]:
                del env[k]  # the card was chosen from the list as it was
            old = env[lv.name]
            env[lv.name] = Val(either(pc, v.secret, old.secret), either(v.hidden, old.hidden))
            return
        var = self.vars.get(lv.name)
        if var is not None and v.hidden and not v.hidden <= self._fl_cardvars.get(lv.name, NONE):
            self._fl_cardvars[lv.name] = either(self._fl_cardvars.get(lv.name, NONE), v.hidden)
        what = "who is active" if lv.name == "active" else f"'{lv.name}'"
        self._fl_sink(v.secret, s.span, "secrecy-target" if lv.name == "active" else "secrecy-var",
                      f"{what} is set here from hidden cards", pc)

    def _fl_field(self, key, v: Val) -> None:
        old = self._fl_fields.get(key, PUBLIC)
        if not (v.secret <= old.secret and v.hidden <= old.hidden):
            self._fl_fields[key] = Val(either(old.secret, v.secret), either(old.hidden, v.hidden))

    def _fl_start_triggers(self) -> tuple:
        """The phase_start triggers of the start phase (when `phase == "start"`), which run before
        its enter, when nothing is dealt yet; and the zones they (or `moved` triggers) may change,
        which the enter does not know either.
        None when a phase leads back to the start: it would start again on a dealt game."""
        g = self.game
        if g is None or g.start is None or any(n.target.name == g.start.name
                                               for p in self.phases.values() for n in p.nexts):
            return [], set()
        starts = [t for t in self.triggers if t.event.name == "phase_start" and _pins_phase(t.when, g.start.name)]
        gone: set = set()
        for t in self.triggers:
            if t in starts or t.event.name == "moved":
                gone |= {z or "*" for z in moved_into(t.body.stmts, set())}
                if _shuffles(t.body.stmts):
                    gone.add("*")
        return starts, gone

    def _fl_unknown(self, zone, env: dict, hidden) -> None:
        """Before the first deal of the start, a zone is as everyone knows it until it is shuffled
        or receives cards some player did not see (a deal forgets all).  env["$known"] is one set
        shared by the nested blocks' copies of env: what they change holds after them too."""
        known = env.get("$known")
        if known is not None and hidden:
            z = None if zone is None else self.zone_of(zone)
            known.add("*" if z is None else z.name)

    def _fl_sink(self, reads: frozenset, span: A.Span, code: str, msg: str, pc: frozenset = NONE,
                 at: Optional[A.Span] = None) -> None:
        """A public effect at span (of the statement at `at`, if not its own): reads are what its
        values read, pc what decides it runs."""
        reads = pc if self._fl_ending else either(pc, reads)
        if reads:
            old = self._fl_found.get((span, code))
            self._fl_found[(span, code)] = (msg, reads if old is None else old[1] | reads)
            self._fl_found_at[(span, code)] = (self._fl_decl, start(at or span))

    def _fl_template(self, lit: A.StrLit, env: dict) -> frozenset:
        """The secret a text's holes read (a hole naming a hidden card shows it as hidden)."""
        return either(*(self._fl_expr(p, env).secret for p in self.templates.get(lit, ()) if isinstance(p, A.Expr)))


def _shown_zones(stmts) -> frozenset:
    """The zones a block reveals at its top level, or in a loop there: (name, index as written),
    the index "*" for a loop over players revealing each one's zone."""
    out = set()
    for s in stmts:
        if isinstance(s, A.Reveal) and s.reveal:
            key = zone_key(s.zone)
            if key is not None:
                out.add((key[1], key[2]))
        elif isinstance(s, A.For):
            for x in _shown_zones(s.body.stmts):
                out.add((x[0], "*" if x[1] == s.var else x[1]))
    return frozenset(out)


def _announces(b: A.Block) -> bool:
    """Does the block announce at its top level (its outcome is then public)?"""
    return any(isinstance(s, A.Announce) for s in b.stmts)


def _chosen_from(name: str, p: A.ActionParam, env: dict) -> Optional[str]:
    """The local list a chosen card is known to be in: `card from L`, or `... where name in L`."""
    if p.kind != "card":
        return None
    if isinstance(p.domain, A.Name) and p.domain.name in env:
        return p.domain.name
    c = p.cond
    if isinstance(c, A.BinOp) and c.op == "in" and isinstance(c.left, A.Name) and c.left.name == name \
            and isinstance(c.right, A.Name) and c.right.name in env:
        return c.right.name
    return None


def _pins_phase(when, name: str) -> bool:
    """Does a trigger condition hold only when `phase == "name"` (alone or one of `and`s)?"""
    if when is None:
        return False
    ops = when.operands if isinstance(when, A.Chain) and set(when.ops) == {"and"} else (when,)
    return any(isinstance(c, A.BinOp) and c.op == "==" and {type(c.left), type(c.right)} == {A.Name, A.StrLit}
               and any(isinstance(x, A.Name) and x.name == "phase" for x in (c.left, c.right))
               and any(isinstance(x, A.StrLit) and x.value == name for x in (c.left, c.right)) for c in ops)


def _shuffles(stmts, zones: Optional[set] = None) -> bool:
    """Do stmts (nested blocks too) shuffle or deal?  The zone families shuffled go to zones."""
    found = False
    for s in stmts:
        if isinstance(s, (A.Shuffle, A.Deal)):
            found = True
            if zones is None:
                return True
            if isinstance(s, A.Shuffle):
                zones.add(family(s.zone))
        for b in nested(s):
            if _shuffles(b.stmts, zones):
                found = True
                if zones is None:
                    return True
    return found
