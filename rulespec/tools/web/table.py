"""What the table page knows of the rules, and of the seat's legal actions.

``rules_meta(game)``: facts of the rules, the same for every seat and every game of them (no
state): the layout (rulespec/lang/display.py: which variables a seat shows, which zones are held
in the hand or left aside), every variable, zone, phase, effect and action in the rulebook's
words with its doc, and each card face by its label (name, printed properties, suit symbol,
rank, ink, doc).  It goes into the page as its data block; the rulebook prints all of it too.

``action_cards(state, viewer, obs)``: for each legal action of the viewer now, its name and the
cards it uses that the viewer sees, each by the zone the observation shows it in and its label
(State.action_cards, kept only where the viewer's observation shows that card in that zone):
which cards to click for which actions.  A card the viewer cannot see is never in it.
"""
from __future__ import annotations

import weakref
from typing import Optional

from rulespec.lang.display import COLOURS, RED_SUITS, SUIT_SYMBOLS, layout
from rulespec.lang.english_words import noun_phrase, words

_META: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # game -> its meta (made once)


def rules_meta(game) -> dict:
    meta = _META.get(game)
    if meta is None:
        meta = _META[game] = _rules_meta(game)
    return meta


def _said(name: str, doc: Optional[str]) -> dict:
    return {"words": words(name), "doc": doc or ""}


def _rules_meta(game) -> dict:
    m = game.model
    lay = layout(m)
    return {
        "per_player_vars": [n for n, v in m.vars.items() if v.per_player],
        "zone_docs": {n: z.doc for n, z in m.zones.items() if z.doc},
        "layout": {"seat": [list(x) for x in lay.seat], "table": [list(x) for x in lay.table],
                   "hand": list(lay.hand), "aside": list(lay.aside)},
        "vars": {n: {"words": noun_phrase(n, v.type), "doc": v.doc or "", "per_player": v.per_player,
                     "type": _item_type(v.type)} for n, v in m.vars.items()},
        "zones": {n: dict(_said(n, z.doc), kind=z.kind, visibility=z.visibility, per_player=z.per_player)
                  for n, z in m.zones.items()},
        "phases": {n: _said(n, p.doc) for n, p in m.phases.items()},
        "effects": {n: _said(n, e.doc) for n, e in m.effects.items()},
        "actions": {n: _said(n, a.doc) for n, a in m.actions.items()},
        "cards": card_faces(game, lay),
    }


def _item_type(t) -> str:
    """The type of a variable's values, or of the items of its lists ("enum": said in words)."""
    while t.name == "list" and t.elem is not None:
        t = t.elem
    return t.name


def card_faces(game, lay) -> dict:
    """label -> how its face is drawn: {name, corner (the rank), suit (a symbol or a word), ink
    (a colour name or ""), band (the colour of a card coloured by its own colour property, not by
    a suit), props ([words, value] of the other printed properties), doc}.  Copies that share a
    label but differ in a property show only what they share."""
    m, prog = game.model, game.prog
    st = game.new_state(players=m.min_players, seed=0)  # a label describes the card, not the moment
    docs = {c.name: c.doc or "" for c in m.cards}
    faces: dict = {}
    for c in range(prog.card_count):
        label = prog.card_label(st, c)
        face = _face(m, lay, prog.card_names[c], {p: prog.card_props[p][c] for p in m.properties}, docs)
        old = faces.get(label)
        faces[label] = face if old is None else _common(old, face)
    return faces


def _face(m, lay, name: str, values: dict, docs: dict) -> dict:
    suit = values.get(lay.suit) if lay.suit else None
    colour = values.get(lay.colour) if lay.colour else None
    rank = values.get(lay.rank) if lay.rank else None
    ink = colour if colour in COLOURS else ("red" if suit in RED_SUITS else "black" if suit in SUIT_SYMBOLS else "")
    props = []
    for p, v in values.items():
        if p in (lay.suit, lay.colour, lay.rank) or v is None or v is False or v == "" or v == 0:
            continue
        props.append([words(p), "" if v is True else words(v) if isinstance(v, str) else str(v)])
    return {"name": name, "corner": "" if rank in (None, "") else words(str(rank)),
            "suit": "" if suit is None else SUIT_SYMBOLS.get(suit, words(suit)), "ink": ink or "",
            "band": colour if colour in COLOURS and suit is None else "",  # a colour of its own, not a suit's
            "props": props, "doc": docs.get(name, "")}


def _common(a: dict, b: dict) -> dict:
    out = {k: (v if b.get(k) == v else "") for k, v in a.items() if k != "props"}
    out["props"] = [p for p in a["props"] if p in b["props"]]
    return out


def action_cards(st, viewer: Optional[int], obs: dict) -> list:
    """[{text, name, cards: [[zone, label], ...]}] for the legal actions in `obs` (the viewer's
    observation, which holds them only when the viewer decides; a replay's omniscient view:
    viewer None).  A card is named by the zone the observation shows it in and its label: two
    alike cards of one zone are one to the player, a card of the same name elsewhere is not."""
    texts = obs.get("legal_actions") or []
    if not texts:
        return []
    seen = _cards_in(obs)
    label, slots, where = st.prog.card_label, st.prog.slots, st.where
    out = []
    for a in st.legal_actions():
        cards = [(slots[where[c]].name, label(st, c)) for c in st.action_cards(a) if st.can_see_card(c, viewer)]
        out.append({"text": a.text, "name": a.name, "cards": [list(x) for x in dict.fromkeys(cards) if x in seen]})
    if [a["text"] for a in out] != texts:  # a guard: the observation's own list is the one shown
        return [{"text": t, "name": "", "cards": []} for t in texts]
    return out


def _cards_in(obs: dict) -> set:
    """(zone, label) of every card the observation shows in a zone."""
    seen = set()
    for name, z in obs["zones"].items():
        seen.update((name, x) for x in z.get("cards", ()))
        seen.update((name, x) for x in z.get("shown", ()))
    return seen
