"""What a player may see: visibility of zones and cards, observations, and the log as each
player reads it.  A mixin of State (state.py): every method reads the state, none changes it.

Secrecy is about what a player can infer, not only which names they see: an observation
shows hidden zones as counts, variables holding hidden cards as "hidden card", the stack with
only the cards the player can see, who is deciding and about what; the log shows a decision's
text only to the players who could see every card it names once it was carried out.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Optional

from .compiler import player_name
from .errors import SeatError


class Observation:
    __slots__ = ()

    # ------------------------------------------------------------------ visibility
    # Who sees which card: these four methods are the engine's one answer (choices, windows,
    # triggers, observations, the log and the secrecy checks all ask them).  A zone's faces are
    # seen by everyone (public), its owner (owner), every player but its owner (others) or
    # nobody (hidden) -- unless it is revealed; a card may also be seen on its own: shown to
    # everyone (reveal CARDS), the top card of a `top public` pile, or known to a player from a
    # 'look ... until moved' (self.known: card -> the seats that know it, until it moves).
    def can_see(self, zi: int, viewer: Optional[int]) -> bool:
        """May `viewer` (None = an omniscient observer) see the faces of every card in zone zi?
        (Cards seen on their own in a zone seen only as a count: can_see_card.)"""
        if viewer is None:
            return True
        slot = self.prog.slots[zi]
        vis = slot.visibility
        if vis == "public" or zi in self.revealed:
            return True
        if vis == "owner":
            return slot.owner == viewer
        return vis == "others" and slot.owner != viewer

    def could_see(self, zi: int, viewer: Optional[int], revealed_then) -> bool:
        """Could `viewer` see the faces of zone zi's cards when a log entry was written, the
        zones revealed then being `revealed_then` (a move entry records them: see move_cards)?"""
        if viewer is None:
            return True
        slot = self.prog.slots[zi]
        vis = slot.visibility
        if vis == "public" or zi in revealed_then:
            return True
        if vis == "owner":
            return slot.owner == viewer
        return vis == "others" and slot.owner != viewer

    def can_see_card(self, c: int, viewer: Optional[int]) -> bool:
        """May `viewer` see card c's face now (its zone, or the card on its own)?"""
        return c in self.shown or self.can_see(self.where[c], viewer) or self._glimpsed(c, viewer)

    def _glimpsed(self, c: int, viewer: Optional[int]) -> bool:
        """Is c, in a zone `viewer` does not see, seen on its own: known to them, or a top card?"""
        known = self.known
        if known and viewer in known.get(c, ()):
            return True
        zi = self.where[c]
        return zi in self.prog.top_slots and self.zones[zi][-1] == c

    def is_revealed(self, c: int) -> bool:
        """Is card c's face shown to every player: its zone public or revealed, the card shown on
        its own or the top of a `top public` pile, or every player sees it (its zone, or
        knowledge)?  A card in an `others` zone is not: its owner does not see it."""
        if c in self.shown:
            return True
        zi = self.where[c]
        vis = self.prog.slots[zi].visibility
        if vis == "public" or zi in self.revealed:
            return True
        if vis == "top" and self.zones[zi][-1] == c:
            return True
        knowing = self.known.get(c) if self.known else None
        return bool(knowing) and all(p in knowing or self.can_see(zi, p) for p in range(self.n))

    def glimpsed_in(self, zi: int, viewer: Optional[int]) -> list:
        """The cards of zone zi that `viewer`, who does not see the zone, sees on their own (shown
        to everyone, its top card, cards they know), bottom to top."""
        zone = self.zones[zi]
        if not zone:
            return []
        shown, known = self.shown, self.known
        top = zone[-1] if zi in self.prog.top_slots else None
        if not shown and not known:
            return [top] if top is not None else []
        return [c for c in zone if c in shown or c == top or (known and viewer in known.get(c, ()))]

    def saw_moved(self, e: list, viewer: Optional[int]) -> list:
        """For each card of a move entry (in order): could `viewer` see it when it moved?  From
        or into a zone they could see then, or seen on its own then (the entry's glimpses: the
        top of a `top public` pile, a card they knew)."""
        dest, then = e[1], (e[3] if len(e) > 3 else ())
        glimpses = e[4] if len(e) > 4 else ()
        if self.could_see(dest, viewer, then):
            return [True] * len(e[2])
        out = []
        for c, src in e[2]:
            out.append(self.could_see(src, viewer, then) or any(g[0] == c and viewer in g[1] for g in glimpses))
        return out

    def _expect_seat(self, player, method: str) -> None:
        if player is not None and (not isinstance(player, int) or isinstance(player, bool)
                                   or not 0 <= player < self.n):
            raise SeatError(f"{method}() takes a seat index from 0 to {self.n - 1} (or None for the "
                            f"omniscient view), not {player!r}")

    def observation(self, player: Optional[int]) -> dict:
        """What `player` (a seat index from 0) may know: public and own cards by name, other
        zones as counts.  ``None`` is the omniscient view (every card by name: for tools,
        debugging and logs, never for a player)."""
        self._expect_seat(player, "observation")
        prog = self.prog
        labels = prog.card_labels
        shown_set = set(self.shown)
        revealed, n, all_zones, all_plays = self.revealed, self.n, self.zones, self.plays
        where = self.where
        shown_in = {where[c] for c in shown_set}  # the zones holding cards shown on their own
        glimpses, tops = prog.glimpses, prog.top_slots  # (a game may show a player some cards of a zone)
        known_in = {where[c] for c, ps in self.known.items() if player in ps} if glimpses and self.known else ()
        zones = {}
        for zi, name, seen, plays in _zones_seen_by(prog, n, player):
            cards = all_zones[zi]
            if seen or zi in revealed:
                entry = {"cards": labels(self, cards)}
                if plays and zi in all_plays:
                    entry["plays"] = [[player_name(p), labels(self, cs)] for p, cs in all_plays[zi]]
            else:
                entry = {"count": len(cards)}
                if zi in shown_in or (glimpses and cards and (zi in tops or zi in known_in)):
                    self._glimpses_entry(entry, zi, player)
            zones[name] = entry
        return {
            "player": player_name(player),
            "phase": self.phase,
            "active": player_name(self.current_player) if not self.terminal else None,
            "decision": self._decision_view(),
            "vars": self._vars_dict(player),
            "zones": zones,
            "terminal": self.terminal,
            "winners": [player_name(p) for p in self.winners()],
            "legal_actions": self.legal_action_strings() if self.current_player == player else [],
            "stack": [self._entry_view(eid, player) for eid in self.stack],
        }

    def _glimpses_entry(self, entry: dict, zi: int, viewer: Optional[int]) -> None:
        """A zone seen as a count: the cards the viewer sees in it on their own ("shown", bottom to
        top), and among them the top card of a `top public` pile ("top") and the cards the viewer
        knows ("known")."""
        glimpsed = self.glimpsed_in(zi, viewer)
        if not glimpsed:
            return
        labels = self.prog.card_labels
        entry["shown"] = labels(self, glimpsed)
        if zi in self.prog.top_slots:
            entry["top"] = self.prog.card_label(self, self.zones[zi][-1])
        known = self.known
        if known:
            mine = [c for c in glimpsed if viewer in known.get(c, ())]
            if mine:
                entry["known"] = labels(self, mine)

    def _decision_view(self) -> Optional[dict]:
        """Who decides now and about what (the same for every viewer)."""
        if self.terminal:
            return None
        pend = self.pending
        if pend is None:
            return {"kind": "turn", "who": player_name(self.active), "phase": self.phase}
        if pend["kind"] == "window":
            return {"kind": "response", "who": player_name(pend["who"]), "to": self.entry(pend["eid"])[1]}
        return {"kind": "choice", "who": player_name(pend["who"]), "prompt": pend.get("prompt", "")}

    def _entry_view(self, eid: int, viewer: Optional[int]) -> dict:
        """A stack entry as a player sees it: its cards by name where the player can see them."""
        e = self.entry(eid)
        label = self.prog.card_label
        view = {"effect": e[1], "by": player_name(e[2]),
                "target": player_name(e[3]) if e[3] is not None else None,
                "cards": [label(self, c) if self.can_see_card(c, viewer) else "hidden card" for c in e[4]],
                "cancelled": e[6]}
        if len(e) > 7 and e[7]:
            view["fields"] = {k: self._show_any(v, viewer) for k, v in e[7].items()}
        return view

    def _show_any(self, v, viewer):
        return v  # entry fields are numbers, texts, players as indexes

    def _vars_dict(self, viewer: Optional[int]) -> dict:
        """Variables as the viewer may know them: players as P1.., cards by name only where the
        viewer can see the card's zone (a variable must not leak a hidden card)."""
        names, as_is, rows, others, order = _vars_by_kind(self.prog)
        values = self.vars
        shown = []  # the values of `others`, in their order
        showers: dict = {}  # a type's id -> how the viewer sees its values (made once per call)
        for i, per_player, kind, depth, show in others:
            value = values[i]
            if kind is None:  # plain data, shown as it is (copied: the caller may keep it)
                shown.append(_copy(value, depth))
            else:
                if show is None:  # a type holding cards: shown as this viewer sees them
                    show = showers.get(id(kind))  # (by id: hashing a type costs more than a shower)
                    if show is None:
                        show = showers[id(kind)] = self._shower(kind, viewer)
                shown.append([show(v) for v in value] if per_player else show(value))
        return dict(zip(names, order(as_is(values) + tuple(map(list, rows(values))) + tuple(shown))))

    def _shower(self, t, viewer: Optional[int]):
        """How the viewer sees a value of type t (one holding players or cards)."""
        if t.name == "player":
            return lambda v: None if v is None else player_name(v)
        if t.name == "card":
            label = self.prog.card_label
            return lambda v: None if v is None else (label(self, v) if self.can_see_card(v, viewer) else "hidden card")
        if t.name == "list":
            inner = self._shower(t.elem, viewer)
            return lambda v: [inner(x) for x in v]
        return lambda v: v

    # ------------------------------------------------------------------ the log
    def log_lines(self, viewer: Optional[int] = None, start: int = 0) -> list[str]:
        """The log as readable lines, masked for `viewer` (None shows everything); with
        `start`, only the lines of the log entries from that index on (len(state.log) is
        where the next new entry will be: printing as a game goes stays linear in time)."""
        self._expect_seat(viewer, "log_lines")
        if not isinstance(start, int) or isinstance(start, bool):
            raise TypeError(f"log_lines() takes a log index as start (a whole number), not {start!r}")
        log = self.log if start <= 0 else self.log[start:]
        return [line for e in log for line in [self._render(e, viewer)] if line]

    def log_lines_for(self, viewers: list, start: int = 0) -> list[list[str]]:
        """[log_lines(v, start) for v in viewers], in one pass over the log: a line that reads
        the same to every viewer (all but moves, looks and masked decisions: see _render) is
        rendered once."""
        for v in viewers:
            self._expect_seat(v, "log_lines_for")
        if not isinstance(start, int) or isinstance(start, bool):
            raise TypeError(f"log_lines_for() takes a log index as start (a whole number), not {start!r}")
        log = self.log if start <= 0 else self.log[start:]
        outs: list = [[] for _ in viewers]
        if not viewers:
            return outs
        render, first, pairs = self._render, viewers[0], list(zip(viewers, outs))
        for e in log:
            kind = e[0]
            if kind in _SAME_FOR_ALL or (kind == "action" and (len(e) <= 3 or e[3] is None)):
                line = render(e, first)
                if line:
                    for out in outs:
                        out.append(line)
            else:
                for v, out in pairs:
                    line = render(e, v)
                    if line:
                        out.append(line)
        return outs

    def _render(self, e: list, viewer: Optional[int]) -> str:
        prog = self.prog
        slots = prog.slots
        label = prog.card_label
        kind = e[0]
        if kind == "text" or kind == "announce":
            return e[1]
        if kind == "phase":
            return f"-- {e[1]} --"
        if kind == "action":
            if len(e) > 3 and e[3] is not None and viewer is not None and viewer not in e[3]:
                return f"{player_name(e[1])}: (a choice you cannot see)"
            sep = " " if e[2].startswith("chooses ") else ": "
            return f"{player_name(e[1])}{sep}{e[2]}"
        if kind == "move":
            dest, moved = e[1], e[2]
            if len(e) > 4:  # some cards were seen on their own (see saw_moved)
                return self._render_glimpsed_move(e, viewer)
            then = e[3] if len(e) > 3 else ()  # the zones revealed when the cards moved
            if len(moved) == 1:  # one card (most moves): the lines below, without grouping
                c, src = moved[0]
                what = label(self, c) if self.could_see(dest, viewer, then) or self.could_see(src, viewer, then) \
                    else "1 card"
                return f"   moved {what} from {slots[src].name} to {slots[dest].name}"
            by_src: dict = {}
            for c, src in moved:
                by_src.setdefault(src, []).append(c)
            parts = []
            dest_seen = self.could_see(dest, viewer, then)
            for src, cs in by_src.items():
                if dest_seen or self.could_see(src, viewer, then):
                    what = " + ".join(label(self, c) for c in cs)
                else:
                    what = f"{len(cs)} card{'s' if len(cs) != 1 else ''}"
                parts.append(f"{what} from {slots[src].name}")
            return f"   moved {', '.join(parts)} to {slots[dest].name}"
        if kind == "reveal":
            return f"   {slots[e[1]].name} is revealed: " + (" + ".join(label(self, c) for c in e[2]) or "nothing")
        if kind == "reveal_card":
            return f"   {label(self, e[1])} is revealed"
        if kind == "look":
            who = player_name(e[1])
            if viewer is None or viewer == e[1]:
                return f"   {who} looks at " + (" + ".join(label(self, c) for c in e[2]) or "nothing")
            return f"   {who} looks at {len(e[2])} card{'s' if len(e[2]) != 1 else ''}"
        if kind == "stack":
            return f"   {e[2]} goes on the stack (by {player_name(e[3])})"
        if kind == "resolve":
            return f"   {e[2]} " + ("is cancelled and has no effect" if e[3] else "resolves")
        if kind == "limit":
            return f"The game stops: it has reached the rules' limit of {e[1]:,} decisions."
        if kind == "end":
            return "Game over. Winner" + ("s" if len(e[1]) != 1 else "") + ": " + \
                (", ".join(player_name(p) for p in e[1]) or "nobody")
        return ""

    def _render_glimpsed_move(self, e: list, viewer: Optional[int]) -> str:
        """A move some of whose cards were seen on their own: each source's cards the viewer saw
        by name, the others as a count ("red 3 + 2 cards from discard")."""
        slots, label = self.prog.slots, self.prog.card_label
        by_src: dict = {}
        for (c, src), seen in zip(e[2], self.saw_moved(e, viewer)):
            by_src.setdefault(src, []).append((c, seen))
        parts = []
        for src, cs in by_src.items():
            named = [label(self, c) for c, seen in cs if seen]
            unseen = len(cs) - len(named)
            if unseen:
                named.append(f"{unseen} card{'s' if unseen != 1 else ''}")
            parts.append(f"{' + '.join(named)} from {slots[src].name}")
        return f"   moved {', '.join(parts)} to {slots[e[1]].name}"


# the log entries whose line _render writes the same for every viewer (an "action" too, unless
# it names the players who may read it)
_SAME_FOR_ALL = frozenset(["text", "announce", "phase", "reveal", "reveal_card", "stack", "resolve", "limit", "end"])


def _zone_plan(prog) -> list:
    """(index, name, owner, visibility, records plays) for each zone: computed once per rules."""
    plan = getattr(prog, "_observation_zones", None)
    if plan is None:
        plan = prog._observation_zones = [(slot.index, slot.name, slot.owner, slot.visibility,
                                           slot.index in prog.plays_slots) for slot in prog.slots]
    return plan


def _zones_seen_by(prog, n: int, player: Optional[int]) -> list:
    """(index, name, seen, records plays) for each zone of a seat in an n-player game, seen
    telling whether `player` sees its cards whatever is revealed: computed once per rules,
    player count and viewer."""
    plans = getattr(prog, "_observation_seen", None)
    if plans is None:
        plans = prog._observation_seen = {}
    plan = plans.get((n, player))
    if plan is None:
        plan = plans[(n, player)] = [
            (zi, name, player is None or visibility == "public" or (visibility == "owner" and owner == player)
             or (visibility == "others" and owner != player), plays)
            for zi, name, owner, visibility, plays in _zone_plan(prog) if owner is None or owner < n]
    return plan


def _var_plan(prog) -> list:
    """(name, index, per player, type holding players or cards or None, list depth) for each
    variable: computed once per rules, so an observation does not re-read the types."""
    plan = getattr(prog, "_observation_vars", None)
    if plan is None:
        plan = []
        for i, (info, _) in enumerate(prog.var_defaults):
            depth, t = int(bool(info.per_player)), info.type
            while t.name == "list":
                depth, t = depth + 1, t.elem
            kind = info.type if t.name in ("player", "card") else None
            plan.append((info.name, i, info.per_player, kind, depth))
        prog._observation_vars = plan
    return plan


def _vars_by_kind(prog) -> tuple:
    """_var_plan grouped so that an observation copies most variables in C: (names in plan
    order, a getter of the values shown as they are, a getter of the lists copied one level
    (rows of a per-player variable, lists of numbers or texts), the others as (index, per
    player, type, depth, how every viewer sees it: for a type holding players but no cards), a
    getter putting as_is + rows + others back in plan order)."""
    plan = getattr(prog, "_observation_vars_by_kind", None)
    if plan is None:
        names, as_is, rows, others, where = [], [], [], [], []
        for name, i, per_player, kind, depth in _var_plan(prog):
            names.append(name)
            group = as_is if kind is None and depth == 0 else rows if kind is None and depth == 1 else others
            where.append((group, len(group)))
            group.append(i if group is not others else
                         (i, per_player, kind, depth, _player_shower(kind) if kind is not None else None))
        base = {id(as_is): 0, id(rows): len(as_is), id(others): len(as_is) + len(rows)}
        plan = prog._observation_vars_by_kind = (names, _getter(as_is), _getter(rows), others,
                                                 _getter([base[id(g)] + k for g, k in where]))
    return plan


def _show_player(v):
    return None if v is None else player_name(v)


def _player_shower(t):
    """How every viewer sees a value of type t holding players (what Observation._shower makes
    for it), or None when t holds cards (their faces depend on the viewer)."""
    if t.name == "player":
        return _show_player
    if t.name == "list":
        inner = _player_shower(t.elem)
        return None if inner is None else (lambda v: [inner(x) for x in v])
    return None


def _getter(indexes: list):
    """itemgetter(*indexes), always giving a tuple (also of one or no index)."""
    if len(indexes) > 1:
        return itemgetter(*indexes)
    if indexes:
        k = indexes[0]
        return lambda seq: (seq[k],)
    return lambda seq: ()


def _copy(v, depth: int):
    if depth == 0:
        return v
    if depth == 1:
        return list(v)
    if depth == 2:
        return [list(x) for x in v]
    return [_copy(x, depth - 1) for x in v]
