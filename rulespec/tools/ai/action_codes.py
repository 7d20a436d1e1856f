"""Stable integer ids for any game's actions, for AI libraries (OpenSpiel, PettingZoo).

An action of a rules file is a name and filled-in parameters: a card, a set of cards, a player,
a number, a card used as another... The set of all possible actions of a game is far too large
to number one by one (every set of cards of a hand), so an action is *spelt* as a short sequence
of tokens from a fixed vocabulary, and an agent picks one token at a time:

    play_set  card "5"  card "5"  card "Wild"  end        ("play 5 + 5 + Wild")

The vocabulary depends on the rules file only (its actions, cards, zones, enum members,
conversions; players up to the game's maximum; numbers), so a token's id is the same in every
state of every game of that file. At a decision the legal tokens are the next tokens of the
legal actions' spellings that agree with what was picked so far; a token no alternative
competes with is taken at once, and an action is carried out as soon as only one legal action
agrees with the tokens picked (see TokenState in token_env.py).

The spelling of a value, by the kind of choice it answers:
  player      "P1".."Pn", or "nobody"
  bool        "yes" / "no"
  number      "number V" for -32 <= V < 256; other numbers as "number ..." then a sign and
              decimal digits and "end"
  enum        the member's name
  card        the card's label ("Fire Strike ♦5"), followed by "in ZONE" where the choice may
              come from several zones; a face-down card as "face-down card of ZONE" (picked
              `by position`: followed by its place, "number K")
  cards       the cards in vocabulary order, then "end" (a set: the order does not matter);
              no cards: "nothing"
  players     the players (in their order when it matters), then "end"
  use         "as itself" or "via CONVERSION", the cards, "end", then the card whose ability
              made the conversion (or "nobody")
  options     answers listed by index (which trigger first, which face-down ability): "number I"
Values that no kind above fits, and actions whose spellings would be the same, get
"variant K" tokens, so that every legal action has its own spelling.
"""
from __future__ import annotations

from typing import Optional

from interpreter.markers import marker_index, marker_zone

NUMBER_LOW, NUMBER_HIGH = -32, 256  # numbers with a token of their own
VARIANTS = 256                      # "variant K" tokens: legal actions whose spellings coincide
CHOICE = "(choice)"                 # the engine's name for answers to a choice inside an effect
NO_RESPONSE = "no response"


class ActionCodec:
    """The token vocabulary of one rules file for a game of `players` players, and the spelling
    of actions in it."""

    def __init__(self, game, players: int):
        prog = game.prog
        model = game.model
        self.prog = prog
        self.players = players
        words: list[str] = []
        index: dict[str, int] = {}

        def add(word: str) -> int:
            i = index.get(word)
            if i is None:
                i = index[word] = len(words)
                words.append(word)
            return i

        # actions first (their ids are the first a client sees), then values
        self.action_token = {name: add(f"do {name}") for name in prog.actions}
        self.action_token[NO_RESPONSE] = add(NO_RESPONSE)
        self.action_token[CHOICE] = add("answer")
        self.player_token = [add(f"P{p + 1}") for p in range(players)]
        self.nobody = add("nobody")
        self.yes, self.no = add("yes"), add("no")
        self.number_token = {v: add(f"number {v}") for v in range(NUMBER_LOW, NUMBER_HIGH)}
        self.number_escape = add("number ...")
        self.minus = add("-")
        self.digit = [add(f"digit {d}") for d in range(10)]
        self.enum_token = {m: add(m) for e in model.enums.values() for m in e.members}
        label = _card_labels(game, players)
        self.card_token = [add(f"card {t}") for t in label]
        self.marker_token = [add(f"face-down card of {s.name}") for s in prog.slots]
        self.zone_token = {z: add(f"in {z}") for z in dict.fromkeys(prog.slot_zone)}
        self.itself = add("as itself")
        self.via_token = {name: add(f"via {name}") for convs in prog.conversions_to.values()
                          for name in [c.name for c in convs]}
        self.end = add("end")
        self.nothing = add("nothing")
        self.none = add("none")
        self.variant = [add(f"variant {k}") for k in range(VARIANTS)]
        self.words = words
        self.index = index
        self._kinds: dict = {}

    # ------------------------------------------------------------------ spelling
    def __len__(self) -> int:
        return len(self.words)

    def spell_all(self, st, actions: list) -> list[tuple]:
        """The spellings of a decision's legal actions, each its own (variants added to repeats)."""
        out = [self.spell(st, a) for a in actions]
        seen: dict = {}
        for i, s in enumerate(out):
            seen.setdefault(s, []).append(i)
        for s, where in seen.items():
            if len(where) > 1:
                if len(where) > VARIANTS:
                    raise ValueError(f"{len(where)} legal actions are spelt {self.text(s)!r}: more than the "
                                     f"{VARIANTS} variants the vocabulary has")
                for k, i in enumerate(where):
                    out[i] = s + (self.variant[k],)
        return out

    def spell(self, st, action) -> tuple:
        name = action.name
        out = [self.action_token[name]]
        kinds = self._param_kinds(st, name)
        for pname, value in action.params:
            kind, multi_zone = kinds.get(pname, (None, False))
            self._value(st, kind, multi_zone, value, out)
        return tuple(out)

    def text(self, tokens) -> str:
        return " ".join(self.words[t] for t in tokens)

    def _param_kinds(self, st, name: str) -> dict:
        """{parameter: (kind, multi_zone)} of an action (of a choice: of the pending question)."""
        if name == CHOICE:
            pend = st.pending
            kind = pend.get("param")
            if kind is None:
                kind = "bool" if pend.get("target") == "answer" else "option"
            return {"value": (kind, False)}
        kinds = self._kinds.get(name)
        if kinds is None:
            act = self.prog.actions.get(name)
            kinds = {"owner": ("player", False), "self": ("card", False)}
            if act is not None:
                kinds.update({p.name: (p.kind, p.multi_zone) for p in act.params})
            self._kinds[name] = kinds
        return kinds

    def _value(self, st, kind: Optional[str], multi_zone: bool, v, out: list) -> None:
        if kind == "player":
            out.append(self.nobody if v is None else self.player_token[v])
        elif kind == "bool":
            out.append(self.yes if v else self.no)
        elif kind in ("int", "option"):
            self._number(v, out)
        elif kind == "enum":
            out.append(self.enum_token[v] if v in self.enum_token else self.none)
        elif kind == "card":
            self._card(st, v, multi_zone, out)
        elif kind == "cards":
            if not v:
                out.append(self.nothing)
                return
            spelt = sorted(self._card_tokens(st, c, multi_zone) for c in v)
            for t in spelt:
                out.extend(t)
            out.append(self.end)
        elif kind == "players":
            if not v:
                out.append(self.nothing)
                return
            out.extend(self.player_token[p] for p in v)
            out.append(self.end)
        elif kind == "use" and isinstance(v, dict):
            via = v.get("via")
            out.append(self.via_token.get(via, self.itself) if via else self.itself)
            for t in sorted(self._card_tokens(st, c, multi_zone) for c in v.get("cards", ())):
                out.extend(t)
            out.append(self.end)
            giver = v.get("giver")
            if giver is None:
                out.append(self.nobody)
            else:
                self._card(st, giver, False, out)
        elif v is None:
            out.append(self.none)
        # anything else is told apart by the variants spell_all adds

    def _number(self, v, out: list) -> None:
        if not isinstance(v, int):
            out.append(self.none)
        elif NUMBER_LOW <= v < NUMBER_HIGH:
            out.append(self.number_token[v])
        else:
            out.append(self.number_escape)
            if v < 0:
                out.append(self.minus)
            out.extend(self.digit[int(d)] for d in str(abs(v)))
            out.append(self.end)

    def _card(self, st, c, multi_zone: bool, out: list) -> None:
        if c is None:
            out.append(self.none)
        else:
            out.extend(self._card_tokens(st, c, multi_zone))

    def _card_tokens(self, st, c: int, multi_zone: bool) -> tuple:
        prog = self.prog
        if c >= prog.card_count:  # a face-down marker: some card of that zone, or the one at a place
            i = marker_index(prog, c)
            token = self.marker_token[marker_zone(prog, c)]
            if i < 0:
                return (token,)
            place: list = []
            self._number(i + 1, place)
            return (token, *place)
        if multi_zone:
            return (self.card_token[c], self.zone_token[prog.slot_zone[st.where[c]]])
        return (self.card_token[c],)


def _card_labels(game, players: int) -> list[str]:
    """Every card's label (labels are about the card, not the moment)."""
    prog = game.prog
    if getattr(prog, "_label", None) is None:
        return list(prog.card_names)
    st = game.new_state(players=players, seed=0)
    return [prog.card_label(st, c) for c in range(prog.card_count)]
