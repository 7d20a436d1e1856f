"""The keys of a scenario position that say who sees what: `revealed` (cards shown on their own),
`revealed_zones` (zones shown whole) and `known` (cards a player knows from a lasting look).
A mixin of _Positions (positions.py), which places the cards first."""
from __future__ import annotations

import yaml

from interpreter.compiler import player_name


class _SightKeys:
    """Needs self.session, self.terms, self.read and self.fail (from _Positions)."""

    def set_revealed(self, node: yaml.Node):
        """revealed: the cards shown to everyone wherever they lie (as 'reveal CARDS' shows them),
        by name or label; the list replaces the cards shown before."""
        st, terms = self.session.st, self.terms
        shown: list = []
        for name, cn in terms.card_list(node, "revealed"):
            try:
                shown.append(terms.card_id(name, shown))
            except KeyError:
                self.fail(cn, f"revealed: no other '{name}' card to show")
        st.shown = shown

    def set_revealed_zones(self, node: yaml.Node):
        """revealed_zones: the zones whose cards everyone sees (as 'reveal ZONE' shows them, until
        'conceal ZONE'); the list replaces the zones revealed before."""
        zones: list = []
        for zn in self.read.seq(node, "revealed_zones", scalar_ok=True):
            zi = self.terms.slot(self.read.text(zn, "a zone in revealed_zones"), zn)
            if zi not in zones:
                zones.append(zi)
        self.session.st.revealed = zones

    def set_known(self, node: yaml.Node):
        """known: player -> zone -> the cards of that zone the player knows (as 'look ... until
        moved' leaves them), by name or label; replaces what every player knew."""
        st, terms, read = self.session.st, self.terms, self.read
        known: dict = {}
        for key, knode, zones in read.mapping(node, "known"):
            p = terms.player(knode, "a player in known")
            for zk, zkn, cards in read.mapping(zones, f"known: {key}"):
                zi = terms.slot(zk, zkn)
                for name, cn in terms.card_list(cards, f"known: {key}: {zk}"):
                    c = next((c for c in st.zones[zi] if terms.matches(name, c) and p not in known.get(c, ())), None)
                    if c is None:
                        self.fail(cn, f"known: no other '{name}' in {zk} for {player_name(p)} to know")
                    known[c] = sorted([*known.get(c, []), p])
        st.known = known
