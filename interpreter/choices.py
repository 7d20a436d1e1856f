"""Choices: what a player may pick, as values and readable texts.

One machinery serves action parameters (actions.py), ``choose`` / ``ask`` inside blocks
(``compile_choice``) and the cards of conversions:

  * ``param_values(prog, p, st, env, who)``: every value of one choice, before its ``where``;
  * ``choice_options(...)``: the values that pass ``where``, with unique texts.

Cards the chooser cannot see are offered face down: all the cards of one hidden zone are alike
to the chooser, so they form one class, and a pick from it is a *marker* (markers.py) that stands
for "a face-down card of that zone".  The real card is drawn at random when the choice is made
(``resolve_hidden``), so neither the options nor their texts depend on what the hidden cards are.
With ``by position`` each place of the zone is its own option ("face-down card 3 of hand[P1]"),
and the pick is the card lying there.  A card of such a zone shown to the chooser all the same
(``reveal CARDS``) is offered by name.  A ``where`` or a requirement that reads a face-down pick
does not apply to it (the chooser could not check it).

A ``use "Name"`` choice offers the cards of that name and every conversion to that name the
chooser may use; its value is a record ``{"name", "cards", "via", <properties>}``.
"""
from __future__ import annotations

from itertools import combinations, permutations
from typing import Optional

from .abilities import active_for
from .cardsets import card_choices
from .errors import RuleRuntimeError
from .frames import SUSPEND
from .markers import marker_index, marker_text, marker_zone
from .names import player_name, unique  # noqa: F401 (unique re-exported)
from .rng import Rng

DECLINE = "decline"
NOTHING = "nothing to choose"  # a forced choice where no card qualifies, among cards others cannot see


def is_marker(prog, c) -> bool:
    return isinstance(c, int) and c >= prog.card_count


def has_marker(prog, kind: str, v) -> bool:
    if kind == "card":
        return is_marker(prog, v)
    if kind == "cards":
        return any(is_marker(prog, c) for c in v)
    return False


# ---------------------------------------------------------------------- values of one choice
def param_values(prog, p, st, env, who: int):
    """Every value of choice p (its 'where' not yet applied)."""
    kind = p.kind
    if kind in ("int", "enum"):
        return p.domain(st, env)
    if kind == "player":
        return range(st.n)
    if kind == "bool":
        return [True, False]
    if kind == "players":
        return player_sets(p, st, env)
    if kind == "use":
        return use_values(prog, p, st, env, who)
    return card_choices(prog, p, st, env, who)


def player_sets(p, st, env) -> list:
    pool = list(dict.fromkeys(p.domain(st, env)))
    sizes = p.size(st, env) if p.size is not None else list(range(1, len(pool) + 1))
    if not isinstance(sizes, list):
        sizes = [sizes]
    out = []
    for k in sizes:
        if 0 <= k <= len(pool):
            out.extend(list(c) for c in (permutations(pool, k) if p.ordered else combinations(pool, k)))
    return out


def use_values(prog, p, st, env, who: int) -> list:
    """Cards named p.role in p's zones used as themselves, then every conversion to p.role
    that `who` may use (top-level ones, and those of cards `who` owns that work now)."""
    out = []
    role = p.role
    for c in card_choices(prog, p, st, env, who, name=role):
        out.append(use_record(prog, role, [c], "", c))
    for conv in prog.conversions_to.get(role, ()):
        for card in active_for(st, conv.ability, who):
            cenv = {"owner": who}
            if card is not None:
                cenv["self"] = card
            if conv.source is None:
                picks = [None]
            else:
                src = conv.source
                # a conversion uses cards its user sees: a face-down pick could not be shown as
                # what it is used as (nor its values read), so it is not offered
                picks = [v for v in card_choices(prog, src, st, cenv, who) if not _face_down(prog, v)
                         and (src.cond is None or src.cond(st, {**cenv, src.name: v}))]
            for v in picks:
                e = dict(cenv)
                if conv.source is not None:
                    e[conv.source.name] = v
                if any(not f(st, e) for f, _, _ in conv.requires):
                    continue
                cards = [] if v is None else ([v] if conv.source.kind == "card" else list(v))
                rec = use_record(prog, role, cards, conv.name, cards[0] if len(cards) == 1 else None, card)
                for pname, f in conv.props:
                    rec[pname] = f(st, e)
                if conv.text is not None:
                    rec["$text"] = conv.text(st, e)
                out.append(rec)
    return out


def _face_down(prog, v) -> bool:
    """Is v (a card, or a list of cards) or a part of it a face-down marker?"""
    return is_marker(prog, v) if isinstance(v, int) else any(is_marker(prog, c) for c in v)


def use_record(prog, role: str, cards: list, via: str, like: Optional[int], giver: Optional[int] = None) -> dict:
    """A card as used: its properties are those of `like` (the one physical card), else zero;
    `giver`: the card whose ability made the conversion (none for a top-level one)."""
    rec = {"name": role, "cards": list(cards), "via": via, "giver": giver}
    rows = prog.cache.get("use rows")
    if rows is None:
        rows = prog.cache["use rows"] = {}
    row = rows.get(like)
    if row is None:  # a card's properties, worked out once (they are printed on it)
        row = rows[like] = {pname: vals[like] if like is not None else prog.prop_zero[pname]
                            for pname, vals in prog.card_props.items()}
    rec.update(row)
    return rec


# ---------------------------------------------------------------------- texts
def value_text(prog, p, st, v) -> str:
    kind = p.kind
    if v is None:
        return "nobody" if kind == "player" else "none"
    if kind == "bool":
        return "yes" if v else "no"
    if kind == "int":
        return str(v)
    if kind == "enum":
        return str(v).replace("_", " ")
    if kind == "player":
        return player_name(v)
    if kind == "players":
        return (" then " if p.ordered else ", ").join(player_name(x) for x in v)
    if kind == "use":
        if not v["via"] and "$text" not in v:
            return " + ".join(card_text(prog, st, c, p.multi_zone) for c in v["cards"])
        return prog.use_text(st, v)
    if kind == "card":
        return card_text(prog, st, v, p.multi_zone)
    return " + ".join(card_text(prog, st, c, p.multi_zone) for c in v) or "nothing"


def card_text(prog, st, c: int, with_zone: bool) -> str:
    if is_marker(prog, c):
        return marker_text(prog, c)
    text = prog.card_label(st, c)
    return f"{text} ({prog.slot_zone[st.where[c]]})" if with_zone else text


# ---------------------------------------------------------------------- choose / ask in a block
def choice_options(prog, p, st, env, who: int) -> list:
    """The values of choice p that pass its 'where' (face-down picks always pass)."""
    values = param_values(prog, p, st, env, who)
    cond = p.cond
    if cond is None:
        return list(values)
    out = []
    for v in values:
        if has_marker(prog, p.kind, v):
            out.append(v)
            continue
        e = dict(env)
        e[p.name] = v
        if cond(st, e):
            out.append(v)
    return out


def hidden_pool(prog, p, st, env, who: int) -> bool:
    """Could `who` hold a card for choice p that another player cannot see?  (Then an optional
    choice with nothing to pick is still asked, so that being asked tells nothing.)"""
    if p.kind not in ("card", "cards", "use") or p.domain is None:
        return False
    if prog.glimpses:  # cards seen on their own (a top card, cards a player knows): card by card
        see = st.can_see_card
        return any(see(c, who) and any(not see(c, q) for q in range(st.n) if q != who) for c, _ in p.domain(st, env))
    for c, zi in p.domain(st, env):
        if st.can_see(zi, who) and any(not st.can_see(zi, q) for q in range(st.n) if q != who):
            return True
    return False


def compile_choice(prog, s):
    """The step of ``let NAME = choose WHO ...`` / ``ask``: registers the pending choice."""
    cp = prog.compile_param(s.param)
    chooser = prog.expr(s.chooser)
    prompt = prog.template(s.prompt) if s.prompt is not None else None
    name, optional, span = s.name, s.optional, s.span
    nothing = [] if cp.kind in ("cards", "players") else None  # a declined or empty choice

    def choose(st, env):
        who = chooser(st, env)
        if not isinstance(who, int) or isinstance(who, bool) or not 0 <= who < st.n:
            raise RuleRuntimeError(f"'choose' asks {player_name(who) if who is None else who!r}, who is not a player "
                                   f"in the game", prog.path, span)
        options = choice_options(prog, cp, st, env, who)
        if not options or (cp.kind == "cards" and len(options) == 1 and not options[0]):
            # no card to choose (`size 0..N` of an empty zone offers only the empty set)
            if not hidden_pool(prog, cp, st, env, who):
                env[name] = nothing  # nothing to choose, as everyone can see
                return None
            # nothing qualifies among cards the others cannot see: ask anyway, so that being
            # asked tells them nothing about those cards
            options, texts = [nothing], [DECLINE if optional else NOTHING]
        else:
            texts = [value_text(prog, cp, st, v) for v in options]
            if optional:
                options.append(nothing)
                texts.append(DECLINE)
        st.pending = {"kind": "choice", "who": who, "target": name, "options": options, "texts": unique(texts),
                      "prompt": prompt(st, env) if prompt is not None else "", "optional": optional,
                      "param": cp.kind}
        return SUSPEND
    # what the choice's answer is (serialise.py checks a saved pending choice against them)
    choose.choice_target, choose.choice_kind, choose.choice_type = name, cp.kind, cp.type
    return choose


def resolve_hidden(st, value, kind: str, who: Optional[int] = None):
    """Replace face-down markers in a value `who` chose by the cards they stand for: the card at
    that place (`by position`), or one drawn at random among the zone's cards `who` cannot see."""
    prog = st.prog
    if kind == "card":
        return _draw_hidden(st, [value], [], who)[0] if is_marker(prog, value) else value
    if kind == "cards" and any(is_marker(prog, c) for c in value):
        return _draw_hidden(st, list(value), [c for c in value if not is_marker(prog, c)], who)
    return value


def _draw_hidden(st, cards: list, taken: list, who: Optional[int]) -> list:
    prog = st.prog
    out = []
    taken = list(taken)
    for c in cards:
        if not is_marker(prog, c):
            out.append(c)
            continue
        zi, i = marker_zone(prog, c), marker_index(prog, c)
        zone = st.zones[zi]
        if i >= 0:  # by position: the card lying there
            if i >= len(zone) or st.can_see_card(zone[i], who):
                raise RuleRuntimeError(f"{marker_text(prog, c)} was chosen, but there is no such card "
                                       f"there now", prog.path)
            pick = zone[i]
        else:
            zone = [x for x in zone if x not in taken and (who is None or not st.can_see_card(x, who))]
            if not zone:
                raise RuleRuntimeError(f"{marker_text(prog, c)} was chosen, but none is left there", prog.path)
            pick = Rng.pick(st, zone)
        taken.append(pick)
        out.append(pick)
    return out


def ask_again(st) -> None:
    """A choice pending inside a block lists the cards it offers by identity; after the cards
    were put elsewhere (a position written over the state, a re-deal) those may be other cards.
    Run the choice again (its step only reads the state and registers the question), so that it
    offers the cards now in place.  Any other decision is left as it is."""
    pend = st.pending
    if pend is None or pend.get("kind") != "choice" or "param" not in pend or not st.frames:
        return
    st.pending = None
    st.frames[-1][1] -= 1  # back to the step that asked
    st._legal = st._legal_map = None
    st._run_guarded(st._advance)
