"""Warnings about legal rules that are likely wrong: declarations never used, actions with too
many choices to list, optional triggers whose condition tells where a face-down card is.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from .expressions import const_int
from .vocabulary import MAX_CHOICES


class LintsPass:
    """Mixin of the Checker: the warnings that need the whole file (or a whole declaration) known."""

    def check_choice_count(self, a: A.ActionDecl) -> None:
        """Warn where the number of ways to fill an action's choices is plainly too large for
        one decision to list (the engine stops at MAX_CHOICES with an error naming the action)."""
        total = 1
        for p in a.params:
            if p.kind == "int" and isinstance(p.domain, A.Range):
                lo, hi = const_int(p.domain.lo), const_int(p.domain.hi)
                if lo is not None and hi is not None:
                    total *= max(0, hi - lo + 1)
            if p.kind == "cards" and p.size is None and p.same is None and p.distinct is None:
                self.warning("choice-explosion", p.span, f"'{p.name}' may be any subset of its cards (2^n choices for n cards: "
                                     f"a million for 20)", "bound it with 'size', e.g. size 1..3")
        if total > MAX_CHOICES:
            self.warning("choice-explosion", a.span, f"action '{a.name}' has {total:,} combinations of its number choices: more than "
                                 f"the {MAX_CHOICES:,} one decision may list",
                         "use smaller ranges, or split the choice into steps")

    def warn_optional_reads_self(self, t: A.TriggerDecl) -> None:
        """The engine asks everyone who could hold a face-down card with an optional trigger,
        reading its conditions for a copy of the card: where that copy is tells nothing."""
        ab = self.abilities.get(t)
        if ab is None or all(self.zones.get(z.name) is None or self.zones[z.name].visibility == "public"
                             for z in ab.group.zones):
            return  # its card is always face up: asking its owner tells nobody anything
        for cond in (ab.group.when, t.when):
            where = _self_beyond_properties(cond, self.defs, set(self.vars)) if cond is not None else None
            if where is not None:
                self.warning("optional-reads-place", where.span, f"the condition of optional trigger '{t.name}' reads where its card is: "
                                         f"while the card is face down, every player who could hold it is asked, "
                                         f"by reading this condition for a copy of the card",
                             "make it depend on 'owner', the event and public facts ('self.PROPERTY' is fine)")
                return

    def check_unused(self) -> None:
        if self.game is not None and self.game.score is not None:
            self.used.add(self.game.score.var)
        for z in self.zones.values():
            if z.name not in self.used:
                self.warning("unused-zone", z.decl.span, f"zone '{z.name}' is never used")
        for v in self.vars.values():
            if v.name not in self.used:
                self.warning("unused-variable", v.decl.span, f"variable '{v.name}' is never used")
        listed = {a.name for p in self.phases.values() for a in p.actions} | \
            {a.name for a in self.actions.values() if a.offered_in}
        for a in self.actions.values():
            if a.respond_to:
                continue  # responses are offered in response windows, not by phases
            if a.name not in listed:
                self.warning("unused-action", a.span, f"action '{a.name}' can never be taken: no phase lists it")


def _self_beyond_properties(e: A.Expr, defs: dict, var_names: set, me: str = "self",
                            seen: frozenset = frozenset()) -> Optional[A.Expr]:
    """The first place expression e uses the card 'self' (or, inside a def, the parameter it was
    passed to) other than in a public way: reading one of its properties, whether it is face up
    (`revealed(self)`), or whether a variable's list holds it (`self in banned`).  Where the card
    is differs between its copies and is hidden."""
    if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.name == me:
        return None
    if isinstance(e, A.Name) and e.name == me:
        return e
    if isinstance(e, A.Call) and e.func == "revealed" and len(e.args) == 1 \
            and isinstance(e.args[0], A.Name) and e.args[0].name == me:
        return None
    if isinstance(e, A.BinOp) and e.op == "in" and isinstance(e.left, A.Name) and e.left.name == me \
            and isinstance(e.right, A.Name) and e.right.name in var_names:
        return None
    if isinstance(e, A.Call) and e.func in defs and e.func not in seen:
        d = defs[e.func]
        for arg, param in zip(e.args, d.params):
            if isinstance(arg, A.Name) and arg.name == me:
                if _self_beyond_properties(d.body, defs, var_names, param.name, seen | {e.func}) is not None:
                    return arg
            else:
                found = _self_beyond_properties(arg, defs, var_names, me, seen)
                if found is not None:
                    return found
        return None
    for ch in A.children(e):
        found = _self_beyond_properties(ch, defs, var_names, me, seen)
        if found is not None:
            return found
    return None
