"""The ``display`` block: how a table of the game is drawn.  Its clause words are checked here
(they are names to the grammar, so that they stay free to name zones, variables and properties);
every name a clause lists must be a declared thing of the right kind.  Nothing here changes play.
"""
from __future__ import annotations

from typing import Optional

from .. import ast as A
from ..diagnostics import did_you_mean
from ..model import DisplayInfo

# clause word -> what it lists
CLAUSES = {
    "seat": "per-player variables shown on every seat",
    "table": "shared variables shown in the centre of the table",
    "hand": "per-player zones held in the hand",
    "aside": "zones left off the table",
    "suit": "the enum property drawn as a card's suit symbol",
    "rank": "the property printed in a card's corner",
    "colour": "the enum property whose member colours a card",
}
_ONE_PROPERTY = ("suit", "rank", "colour")


class DisplayPass:
    """Mixin of the Checker: the display block (after every declaration is collected)."""

    def check_display(self, decls: list) -> Optional[DisplayInfo]:
        if not decls:
            return None
        for extra in decls[1:]:
            self.error("duplicate", extra.span, "a rules file has at most one 'display' block; this is the second",
                       f"merge it into the first (line {decls[0].span.line})")
        info = DisplayInfo()
        seen: dict = {}
        for clause in decls[0].clauses:
            word = clause.word.name
            if word not in CLAUSES:
                self.error("unknown-name", clause.word.span, f"unknown display clause '{word}'",
                           did_you_mean(word, CLAUSES) or "one of: " + ", ".join(CLAUSES))
                continue
            if word in seen:
                self.error("duplicate", clause.word.span, f"the display block has a second '{word}' clause (line {seen[word]})",
                           "give it once, with every name in it")
                continue
            seen[word] = clause.span.line
            value = self._display_clause(word, clause.entries)
            if value is not None:
                setattr(info, word, value)
        for z in set(info.hand or ()) & set(info.aside or ()):
            self.error("misuse", decls[0].span, f"zone '{z}' is both held in the hand and left aside",
                       "a zone is drawn in one place: list it under 'hand' or 'aside'")
        return info

    def _display_clause(self, word: str, entries: tuple):
        names = set()
        for e in entries:
            if e.name in names:
                self.error("duplicate", e.span, f"'{e.name}' is listed twice in the display clause '{word}'")
            names.add(e.name)
            if e.caption is not None and word not in ("seat", "table"):
                self.error("misuse", e.span, f"only the variables of 'seat' and 'table' take a caption, not a name of '{word}'")
        if word in _ONE_PROPERTY:
            if len(entries) != 1:
                self.error("misuse", entries[1].span, f"'{word}' names one property, not {len(entries)}")
            return self._display_property(word, entries[0])
        ok = [self._display_var(word, e) if word in ("seat", "table") else self._display_zone(word, e)
              for e in entries]
        if not all(ok):
            return None
        if word in ("seat", "table"):
            return tuple((e.name, e.caption) for e in entries)
        return tuple(e.name for e in entries)

    def _known(self, e: A.DisplayEntry, table: dict, what: str):
        """The declaration `e` names in `table`, or None (said where it is)."""
        found = table.get(e.name)
        if found is None:
            self.error("unknown-name", e.span, f"unknown {what} '{e.name}'", did_you_mean(e.name, table))
        return found

    def _display_var(self, word: str, e: A.DisplayEntry) -> bool:
        v = self._known(e, self.vars, "variable")
        if v is not None and word == "seat" and not v.per_player:
            self.error("per-player", e.span, f"'{e.name}' is a variable of the whole game, not one per player",
                       "a seat shows per-player variables; list it under 'table'")
        elif v is not None and word == "table" and v.per_player:
            self.error("per-player", e.span, f"'{e.name}' is a variable per player", "list it under 'seat' to show it on every seat")
        else:
            return v is not None
        return False

    def _display_zone(self, word: str, e: A.DisplayEntry) -> bool:
        z = self._known(e, self.zones, "zone")
        if z is not None and word == "hand" and not z.per_player:
            self.error("per-player", e.span, f"'{e.name}' is a shared zone: only a zone per player is held in a hand")
            return False
        return z is not None

    def _display_property(self, word: str, e: A.DisplayEntry) -> Optional[str]:
        p = self._known(e, self.properties, "property")
        if p is None:
            return None
        if word in ("suit", "colour") and p.type.name != "enum":
            self.error("misuse", e.span, f"'{word}' names a property whose values are an enum's members; "
                               f"'{e.name}' is {p.type}")
            return None
        return e.name
