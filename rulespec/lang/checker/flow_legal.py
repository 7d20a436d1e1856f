"""Which actions are legal, for the flow check (flow.py): a player's legal actions may depend only
on what that player sees.

The flow labels are not per viewer ("hidden from some player"), so this sink reads legality with
the decider's own zones taken as seen: an `owner` zone indexed by the decider (`hand[active]` in
an action or a response -- the responder is `active` there --, `hand[owner]` in what a card gives
or in a conversion), besides every zone and card everyone sees.  What decides legality: an
action's (and its phase's) `require`s, its choices' domains and `where`s, a conversion's, and a
`choose`'s offered values.  A card choice itself is no leak: the cards the chooser cannot see are
offered face down, and neither a `where` nor a `require` applies to a face-down pick (face_down.py).
"""
from __future__ import annotations

from .. import ast as A
from .flow_labels import NONE, PUBLIC, Val

_MSG = "which actions are legal depends on cards the player cannot see"


class FlowLegal:
    """Mixin of the Checker: the `secrecy-legal` sink (state set up by flow.FlowPass)."""

    _fl_viewer: frozenset = frozenset()  # names of the decider: their `owner` zones are seen
    _fl_seen: frozenset = frozenset()    # reads of zones the decider sees (made before the choice)
    _fl_notme: frozenset = frozenset()   # names of players other than the decider: their `others` zones are seen

    def _fl_legal_all(self) -> None:
        by_phase: dict = {}  # action -> the requirements of the phases that offer it
        for p in self.phases.values():
            for a in p.actions:
                by_phase.setdefault(a.name, []).extend(p.requires)
        for a in self.actions.values():
            viewer = {"active", "owner"} if a in self.abilities else {"active"}
            reqs = list(a.requires) + by_phase.get(a.name, [])
            for ph in a.offered_in:  # `in PHASE`: offered there too, under that phase's requirements
                reqs += [r for r in getattr(self.phases.get(ph.name), "requires", ()) if r not in reqs]
            self._fl_legal(a.params, reqs, viewer)
        for c in self.conversions.values():
            self._fl_legal([c.source] if c.source is not None else [], list(c.requires), {"owner"})

    def _fl_legal(self, params, requires, viewer: set, env: dict = None) -> None:
        """The conditions of choices params and requirements requires, read by the decider viewer."""
        env = dict(env or {})
        saved, self._fl_viewer = self._fl_viewer, frozenset(viewer)
        self._fl_decl = None
        try:
            for p in params:
                self._fl_legal_param(p, env)
                env[p.name] = PUBLIC  # the chooser's own answer (a face-down pick: no condition reads it)
                if p.kind == "player" and _not_one_of(p.cond, p.name, viewer):
                    self._fl_notme = self._fl_notme | {p.name}
            for r in requires:
                self._fl_legal_sink(self._fl_expr(r.cond, env).secret, r.cond)
        finally:
            self._fl_viewer, self._fl_notme = saved, NONE

    def _fl_legal_param(self, p: A.ActionParam, env: dict) -> None:
        """Which values choice p offers: its domain (cards of it are offered face down: only a
        secret that picks them leaks) and its `where` (on its own card: applied to seen cards only)."""
        inner = {**env, p.name: PUBLIC}
        for e in (p.domain, p.size):
            if e is not None:
                self._fl_legal_sink(self._fl_expr(e, env).secret, e)
        if p.cond is not None:
            self._fl_legal_sink(self._fl_expr(p.cond, inner).secret, p.cond)
        if p.wild is not None and p.wild[1] is not None:
            w = {**inner, p.wild[0]: PUBLIC}
            self._fl_legal_sink(self._fl_expr(p.wild[1], w).secret, p.wild[1])

    def _fl_choose_legal(self, s: A.Choose, env: dict) -> None:
        """A `choose` in a block: the values it offers its chooser (named by a plain name)."""
        saved = self._fl_viewer
        self._fl_viewer = frozenset((s.chooser.name,)) if isinstance(s.chooser, A.Name) else NONE
        name = s.chooser.name if isinstance(s.chooser, A.Name) else None
        who = env.get(name)
        # a local's zone read earlier in this declaration (let pair = choose p ...: cards from
        # offered[p]) is the chooser's while the name still holds the same value (the same Val)
        self._fl_seen = frozenset() if who is None else frozenset(
            r for r, (d, n, v) in self._fl_zreads.items() if d == self._fl_decl and n == name and v is who)
        try:
            self._fl_legal_param(s.param, env)
        finally:
            self._fl_viewer, self._fl_seen = saved, NONE

    def _fl_legal_sink(self, reads: frozenset, e) -> None:
        self._fl_sink(reads - self._fl_seen if self._fl_seen else reads, e.span, "secrecy-legal", _MSG)

    def _fl_picked_is(self, e: A.BinOp, env: dict):
        """`c == x` with c a card the decider picks (a choice: seen, or face down where no condition
        applies): true only where x is that card, which tells where x is -- public, as `in` is."""
        for mine, other in ((e.left, e.right), (e.right, e.left)):
            if isinstance(mine, A.Name) and env.get(mine.name) is PUBLIC \
                    and getattr(self.types.get(mine), "name", None) == "card":
                return Val(self._fl_expr(other, env).secret, NONE)
        return None

    def _fl_viewer_sees(self, z, e) -> bool:
        """Does the decider see zone z as read by e: an `owner` zone indexed by the decider's name?"""
        if not (isinstance(e, A.Index) and isinstance(e.index, A.Name)):
            return False
        return e.index.name in (self._fl_viewer if z.visibility == "owner"
                                else self._fl_notme if z.visibility == "others" else ())

    def _fl_renamed(self, d, call: A.Call, names: frozenset) -> frozenset:
        """names as a def called by call names them (its parameters given those names; `active`)."""
        return frozenset([p.name for p, a in zip(d.params, call.args) if isinstance(a, A.Name) and a.name in names]
                         + [n for n in names if n == "active"])


def _not_one_of(cond, name: str, viewer: set) -> bool:
    """Does cond hold only for a player `name` other than the decider (`p != active`, alone or
    one of `and`s)?"""
    ops = cond.operands if isinstance(cond, A.Chain) and set(cond.ops) == {"and"} else (cond,)
    return any(isinstance(c, A.BinOp) and c.op == "!=" and all(isinstance(x, A.Name) for x in (c.left, c.right))
               and {c.left.name, c.right.name} & {name} and {c.left.name, c.right.name} - {name} <= viewer
               and c.left.name != c.right.name for c in ops if c is not None)
