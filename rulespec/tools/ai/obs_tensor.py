"""A fixed-size vector of numbers for what a player may know: any game's observation tensor.

Built from the player's observation (State.observation), never from the state itself, so the
tensor can show nothing the observation hides (the engine's secrecy checks hold it to that).
Its pieces, in order (name, size), for a game of n players, K distinct card labels and a
vocabulary of V tokens:

  player     n          one-hot: whose view this is
  current    n + 1      one-hot: who is to act (the last: nobody, the game is over)
  decision   4          one-hot: a turn's action, a response window, a choice inside an effect, over
  phase      phases     one-hot: the current phase, in the rules file's order
  zones      Z x (K+2)  per zone instance (shared zones, then each player's, as the rules
                        declare them): how many cards of each label the player sees there,
                        how many they do not see, and 1 when they see the zone's faces
  tops       T x K      only in a game with `top public` piles (T instances): one-hot, the
                        label of each such pile's top card (none when it is empty)
  stack      1 + S x (E + 2n + 4)
                        how many entries are on the stack, then the top S = 4 entries:
                        effect one-hot (E effects), by whom, against whom (one-hot, n + 1
                        each), cancelled, and how many cards the entry holds
  vars       sum of the variables' widths (var_tensor.py): a number or yes/no is 1 value;
                        a player n + 1 (one-hot, last: nobody); a card K + 1 (one-hot, last:
                        a card the player cannot see); an enum member count + 1; a text 1 +
                        16 (set, hash bucket); a list its length and its contents: a list of
                        cards as a count per label and a count of the cards the player cannot
                        see, any other list as its first 8 items in order; per-player
                        variables n times that
  prefix     V          the tokens the player has picked toward the action they are choosing
                        (only when they are the one to act)
The information state tensor adds one piece:
  history    V          how many times this player picked each token so far in the game
"""
from __future__ import annotations

from typing import Optional

from interpreter.observation import _var_plan, _zone_plan
from .var_tensor import seat, var_encoder

STACK_TOP = 4
DECISIONS = ("turn", "response", "choice")


class ObservationEncoder:
    def __init__(self, game, players: int, codec):
        prog = game.prog
        model = game.model
        self.n = n = players
        self.codec = codec
        labels = [codec.words[t][len("card "):] for t in dict.fromkeys(codec.card_token)]
        self.label_index = {t: i for i, t in enumerate(labels)}
        self.k = k = len(labels)
        self.phases = {name: i for i, name in enumerate(prog.phases)}
        self.effects = {name: i for i, name in enumerate(prog.effects)}
        self.zone_names = [name for zi, name, owner, vis, plays in _zone_plan(prog) if owner is None or owner < n]
        self.top_names = [name for zi, name, owner, vis, plays in _zone_plan(prog)
                          if vis == "top" and (owner is None or owner < n)]
        self.vars = []  # (name, per player, width of one value, encoder)
        for name, i, per_player, _kind, _depth in _var_plan(prog):
            t = prog.var_defaults[i][0].type
            width, enc = var_encoder(t, n, self.label_index, model)
            self.vars.append((name, per_player, width, enc))
        e = len(self.effects)
        var_width = sum(w * (n if pp else 1) for _, pp, w, _ in self.vars)
        v = len(codec)
        self.pieces = [("player", n), ("current", n + 1), ("decision", 4), ("phase", len(self.phases)),
                       ("zones", len(self.zone_names) * (k + 2)), ("stack", 1 + STACK_TOP * (e + 2 * n + 4)),
                       ("vars", var_width), ("prefix", v)]
        if self.top_names:  # (a piece of its own: the games without such piles keep their layout)
            self.pieces.insert(5, ("tops", len(self.top_names) * k))
        self.shapes = {"zones": (len(self.zone_names), k + 2), "tops": (len(self.top_names), k)}
        self.size = sum(s for _, s in self.pieces)
        self.info_size = self.size + v

    def describe(self) -> list[tuple[str, int]]:
        """(piece, size) in order: the tensor's layout."""
        return list(self.pieces)

    # ------------------------------------------------------------------ encoding
    def encode(self, tstate, player: int, info_state: bool = False, out: Optional[list] = None) -> list:
        """The tensor as a list of floats (into `out` when given: a list or array of the size)."""
        st = tstate.state
        obs = st.observation(player)
        n, k = self.n, self.k
        size = self.info_size if info_state else self.size
        vec = out if out is not None else [0.0] * size
        if out is not None:
            for i in range(size):
                vec[i] = 0.0
        at = 0
        vec[at + player] = 1.0
        at += n
        cur = tstate.current_player()
        vec[at + (n if cur is None else cur)] = 1.0
        at += n + 1
        d = obs["decision"]
        vec[at + (3 if d is None else DECISIONS.index(d["kind"]))] = 1.0
        at += 4
        ph = self.phases.get(obs["phase"])
        if ph is not None:
            vec[at + ph] = 1.0
        at += len(self.phases)
        for name in self.zone_names:
            z = obs["zones"].get(name)
            if z is not None:
                seen = z.get("cards")
                if seen is not None:
                    for label in seen:
                        i = self.label_index.get(label)
                        if i is not None:
                            vec[at + i] += 1.0
                    vec[at + k + 1] = 1.0
                else:
                    shown = z.get("shown", ())
                    for label in shown:
                        i = self.label_index.get(label)
                        if i is not None:
                            vec[at + i] += 1.0
                    vec[at + k] = float(z["count"] - len(shown))
            at += k + 2
        for name in self.top_names:
            z = obs["zones"].get(name) or {}
            top = z.get("top") if "cards" not in z else (z["cards"][-1] if z["cards"] else None)
            i = self.label_index.get(top) if top is not None else None
            if i is not None:
                vec[at + i] = 1.0
            at += k
        stack = obs["stack"]
        vec[at] = float(len(stack))
        at += 1
        e = len(self.effects)
        for entry in reversed(stack[-STACK_TOP:]):
            ei = self.effects.get(entry["effect"])
            if ei is not None:
                vec[at + ei] = 1.0
            vec[at + e + seat(entry["by"], n)] = 1.0
            vec[at + e + n + 1 + seat(entry["target"], n)] = 1.0
            vec[at + e + 2 * n + 2] = 1.0 if entry["cancelled"] else 0.0
            vec[at + e + 2 * n + 3] = float(len(entry["cards"]))
            at += e + 2 * n + 4
        at += (STACK_TOP - min(len(stack), STACK_TOP)) * (e + 2 * n + 4)
        values = obs["vars"]
        for name, per_player, width, enc in self.vars:
            value = values.get(name)
            if per_player:
                for p in range(n):
                    enc(value[p] if isinstance(value, list) and p < len(value) else None, vec, at)
                    at += width
            else:
                enc(value, vec, at)
                at += width
        if cur == player:
            for t in tstate.prefix:
                vec[at + t] += 1.0
        at += len(self.codec)
        if info_state:
            for t, c in tstate.chosen[player].items():
                vec[at + t] = float(c)
        return vec


def shown_text(z: dict) -> str:
    """How the text views write the cards of a zone seen as a count that the player sees on their
    own: " (shown: a, b; top: b; known: a)", or "" for none."""
    if not z.get("shown"):
        return ""
    parts = [("shown", z["shown"]), ("top", [z["top"]] if z.get("top") else []), ("known", z.get("known", []))]
    return " (" + "; ".join(f"{what}: {', '.join(cs)}" for what, cs in parts if cs) + ")"
