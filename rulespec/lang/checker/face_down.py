"""Choices of cards the chooser may not see: `by position` (a face-down card picked by its place
in an ordered zone), and the warning about conditions that read a pick which may be face down
(such a condition does not apply to it: the chooser could not check it).
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A

_NOT_WITH_POSITION = ("same", "distinct", "wild", "sum_of")


class FaceDownPass:
    """Mixin of the Checker: `by position`, and conditions that read a face-down pick."""

    def check_by_position(self, p: A.ActionParam) -> None:
        """`by position` needs zones whose order means something (pile, plays), named directly."""
        for sel in _NOT_WITH_POSITION:
            if getattr(p, sel) is not None:
                word = "sum" if sel == "sum_of" else sel
                self.error("by-position", p.span, f"'by position' does not go with '{word}' (a '{word}' set leaves face-down "
                                   f"cards out, so there is no position to pick)")
                return
        for term in _terms(p.domain):
            z = self.zone_of(term)
            if z is None:
                self.error("by-position", term.span, "'by position' picks a card by its place in a zone: name the zones "
                                      "here directly (a pile or plays zone, e.g. hand[active])")
            elif z.kind == "set":
                self.error("by-position", term.span, f"'by position' needs an ordered zone, but '{z.name}' is a set "
                                      f"(the order of its cards means nothing)",
                           f"declare it 'zone {z.name}{'[player]' if z.per_player else ''}: pile ...' "
                           f"if its cards keep their places")

    def warn_face_down_reads(self, a: A.ActionDecl) -> None:
        """Warn at each requirement (and each choice's 'where') that reads a card choice which
        may be picked face down: that condition does not apply to a face-down pick."""
        for cond, what, read, zone in face_down_reads(a, a in self.abilities, self.zone_of):
            self.warning("face-down-read", read.span, f"{what} reads '{read.name}', which may be a face-down card of {zone} (a "
                                    f"zone the chooser may not see): it does not apply to a face-down pick",
                         f"test the card in the effect once it is drawn (if {read.name} ... {{ }}), "
                         f"or choose from cards the chooser sees")


def face_down_reads(a: A.ActionDecl, carried: bool, zone_of) -> list:
    """The conditions of an action that read a card choice which may be picked face down, as
    (condition, what it is, the name read, the zone as written): a later choice's 'where' ("the
    'where' of 't'") and the requirements ("this requirement").  carried: a card gives the action
    (its chooser is then 'owner'); zone_of: expression -> its ZoneInfo, or None."""
    chooser = {"owner"} if carried else {"active"}
    hidden: dict = {}  # choice name -> the first zone it may pick from face down
    out = []
    for p in a.params:
        if p.cond is not None and hidden:
            read = _first_read(p.cond, set(hidden))
            if read is not None:
                out.append((p.cond, f"the 'where' of '{p.name}'", read, hidden[read.name]))
        if p.kind in ("card", "cards"):
            zone = face_down_zone(p, chooser, zone_of)
            if zone is not None:
                hidden[p.name] = zone
    for r in a.requires if hidden else ():
        read = _first_read(r.cond, set(hidden))
        if read is not None:
            out.append((r.cond, "this requirement", read, hidden[read.name]))
    return out


def face_down_zone(p: A.ActionParam, chooser: set, zone_of) -> Optional[str]:
    """A zone of choice p's domain (as written) whose cards the chooser may not see, or None.
    Lists of cards (a def's result) are taken as seen: only zones named directly count."""
    for term in _terms(p.domain):
        z = zone_of(term)
        if z is None or z.visibility == "public":
            continue
        if z.visibility == "owner" and isinstance(term, A.Index) and isinstance(term.index, A.Name) \
                and term.index.name in chooser:
            continue
        return _source(term)
    return None


def _terms(e: A.Expr) -> list:
    """The parts of a card domain joined with '+' (a zone, a list, ...)."""
    if isinstance(e, A.Chain) and all(op == "+" for op in e.ops):
        return list(e.operands)
    return [e]


def _first_read(e: A.Expr, names: set) -> Optional[A.Name]:
    if isinstance(e, A.Name):
        return e if e.name in names else None
    for x in A.children(e):
        found = _first_read(x, names)
        if found is not None:
            return found
    return None


def _source(term: A.Expr) -> str:
    """A zone term as written: hand[t], stock."""
    if isinstance(term, A.Index) and isinstance(term.obj, A.Name) and isinstance(term.index, A.Name):
        return f"{term.obj.name}[{term.index.name}]"
    if isinstance(term, A.Index) and isinstance(term.obj, A.Name):
        return f"{term.obj.name}[...]"
    return term.name if isinstance(term, A.Name) else "a zone"
