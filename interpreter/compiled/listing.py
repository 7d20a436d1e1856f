"""Legal actions listed by generated code: one function per action, specialised to its parameters.

The reference (actions.legal_actions) lists an action through generic layers: every candidate
filling is a dict, every condition a call of a compiled expression, every text a call of a
template.  Here each action becomes a function of the game's module (CompiledProgram.define)
with its choices as nested Python loops whose variables are the parameters: the 'where' of a
parameter, the requirements and the text template are the expressions' own inline source
(`g.expr`, `g.text` with the parameters as Python locals), ints, enums, yes/no and players are
plain loops, a card from one zone is read from the zone inline, and the other card, card-set,
'use' and player-set choices come from the engine's runtime (cardsets.card_choices and the rest:
kinds, 'same', wild cards, face-down picks), with a faster path for the usual card sets
(card_sets.py).  lister_writer.py writes the source; this module decides which actions get a
lister, makes them, and lists a decision with them.

What must stay the reference's, exactly: the order of the actions and of their candidates, the
" #2" suffix of equal texts, the limits on candidates and actions, the actions cards give
(one listing per copy that works), 'nothing_to_choose', nullable players, the phase's
requirements.  The generated code evaluates everything the reference evaluates (possibly in
another order; expressions have no side effects), so it can only fail where the reference also
fails or where a fast expression fails and its checked version would not.  Either way, on any
exception, or when a limit is passed, the decision is listed again by the reference (the random
generator and the memo of defs put back first), which then returns the same list or raises its
own error with its own message.

Left to the reference: an action whose listing draws random numbers (a drawing expression runs
only its checked version, and must run once), and an int choice over a range that the reference
may keep as one range (a bet's 'raise to x', action_ranges.py): a decision that offers one is
listed whole by actions.legal_actions.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..abilities import active_for
from ..action_value import Action
from ..actions import _formatter, _list_one, _param_values, ability_bases, legal_actions
from ..cardsets import _limit, hidden_zone_values, nothing_to_choose
from ..markers import marker_text
from .card_sets import card_sets, first_of_each_kind
from .lister_writer import _Writer

KIND = "lister"  # the kind of the generated functions in the code cache's record
_UNSET = object()  # a value a lister keeps, not worked out yet (lister_writer: L_U)


class _Over(Exception):
    """A limit passed: the reference lists the decision and raises its own error (L_Over)."""


def _reference_one(prog, st, act, actor: int, out: list, seen: dict, limit: int) -> None:
    """One action listed as actions.legal_actions lists it (an action left to the reference)."""
    if act.ability is not None:
        for base in ability_bases(st, act, actor):
            _list_one(prog, st, act, actor, base, out, seen, limit)
        return
    if act.params and nothing_to_choose(prog, act.params[0], st, {}, actor):
        return
    if act.ready is not None and not act.ready(st, {}):
        return
    _list_one(prog, st, act, actor, None, out, seen, limit)


# ---------------------------------------------------------------------- which actions are generated
def _listing_exprs(prog, act) -> list:
    """Every expression the listing of an action reads (not its effect)."""
    d = act.decl
    out = [r.cond for r in d.requires]
    for p in d.params:
        out += [x for x in (p.domain, p.cond, p.size) if x is not None]
        if p.wild is not None:
            out.append(p.wild[1])
        if p.sum_of is not None:
            out.append(p.sum_of[1])
    if d.text is not None:
        out += [x for x in prog.model.templates.get(d.text, [d.text.value]) if not isinstance(x, str)]
    return out


def reference_only(prog, act) -> Optional[str]:
    """Why an action is listed by the reference, or None when it gets a generated lister."""
    if act.int_range is not None:
        return "an int choice over a range: the reference may list it as one range (action_ranges.py)"
    if any(prog.exprs.draws(e) for e in _listing_exprs(prog, act)):
        return "its listing draws random numbers"
    if act.ability is not None and not act.ability.pure:
        return "whether its card works draws random numbers"
    return None


def _closure(prog, act) -> tuple:
    """The factory's argument R (names and order: lister_writer._COMMON)."""
    zones = prog.cache.get("lister zones")
    if zones is None:  # who sees a zone: (public?, the seat of an 'owner' zone or -2)
        zones = prog.cache["lister zones"] = (tuple(s.visibility == "public" for s in prog.slots),
                                              tuple(s.owner if s.visibility == "owner" else -2 for s in prog.slots))
    params = tuple(act.params)
    return (prog, params, tuple(_formatter(prog, p) for p in params), Action, tuple.__new__,
            prog.card_count, prog.card_names, prog.card_kind, zones[0], zones[1], first_of_each_kind,
            nothing_to_choose, _param_values, card_sets, _Over, active_for, act.ability,
            tuple(p.printed for p in params),
            tuple(p.domain(None, None) if p.kind == "enum" else None for p in params), _UNSET,
            hidden_zone_values, marker_text)


# ---------------------------------------------------------------------- the lister
def build_listers(prog) -> None:
    """Generate the lister of every action that gets one, in declaration order (the code cache
    replays them in the order they were asked for), and install the engine's lister."""
    if not prog.exprs.fast:  # the checked-only build is a reference for tests: list as the reference does
        return
    listers: dict = {}
    whole: set = set()  # actions that send the whole decision to the reference
    for name, act in prog.actions.items():
        why = reference_only(prog, act)
        if why is not None:
            if act.int_range is not None:
                whole.add(name)
            continue
        factory = prog.define(KIND, act.decl.span, "R", lambda g, act=act: _Writer(prog, act, g).body())
        listers[name] = factory(_closure(prog, act))
    prog.listers = listers
    prog.lister = make_lister(prog, listers, whole)


def make_lister(prog, listers: dict, whole: set) -> Callable:
    """The engine's lister (state.py calls it as actions.legal_actions): the generated function
    of each action, the reference's listing for the others; the reference's for the whole
    decision when anything goes wrong (it then raises its own error, or lists the same)."""
    acts = prog.actions
    fallbacks = prog.listing_fallbacks = [0]
    get = listers.get

    def lister(prog_, st, names: list, actor: int, phase_ready=None) -> list:
        if whole and not whole.isdisjoint(names):
            return legal_actions(prog_, st, names, actor, phase_ready)
        rng = st.rng
        try:
            out: list = []
            if phase_ready is not None and not phase_ready(st, {}):
                return out
            seen: dict = {}
            limit = _limit(st)
            for name in names:
                f = get(name)
                if f is not None:
                    f(st, actor, out, seen, limit)
                else:
                    _reference_one(prog_, st, acts[name], actor, out, seen, limit)
            return out
        except Exception:  # noqa: BLE001 -- the reference lists it again: the same list, or its error
            fallbacks[0] += 1
            st.rng, st._memo = rng, {}
            return legal_actions(prog_, st, names, actor, phase_ready)
    return lister
