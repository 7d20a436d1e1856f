"""Legal-move generation: every way to fill an action's parameters, checked against its requirements.

Card choices are enumerated by kind, not by subset: cards that are alike (same
name, same zone) are interchangeable, so a hand is grouped into classes and we
pick how many of each class to take.  With ``same <property>`` only classes that
share the property's value are combined.  A 15-card hand never costs 2^15.
"""
from __future__ import annotations

from .abilities import active_for
from .action_ranges import LazyActions, RangeSegment, range_actions, segment
from .action_value import Action, new_action as _new_action  # (Action is imported from here too)
from .card_index import OwnedIndex
from .cardsets import TooManyChoices, _limit, card_choices, nothing_to_choose
from .choices import card_text, param_values, value_text
from .compiler import CAction, CParam, Program, player_name
from .errors import RuleRuntimeError
from .markers import face_down

_YES_NO = (True, False)


def _param_values(prog: Program, p: CParam, st, env, who: int):
    if p.kind in ("int", "enum"):
        return p.domain(st, env)
    if p.kind == "bool":
        return _YES_NO
    if p.kind == "player":
        return range(st.n)
    if p.kind in ("card", "cards"):
        return card_choices(prog, p, st, env, who)
    return param_values(prog, p, st, env, who)


def _formatter(prog: Program, p: CParam):
    """A function (state, value) -> the value's text in an action's default text."""
    if p.kind not in ("int", "enum", "player", "card", "cards", "bool") or prog.has_labels or \
            (p.kind == "player" and p.nullable):
        return lambda st, v: value_text(prog, p, st, v)
    if p.kind == "int":
        return lambda st, v: str(v)
    if p.kind == "bool":
        return lambda st, v: "yes" if v else "no"
    if p.kind == "enum":
        return lambda st, v: str(v).replace("_", " ")
    if p.kind == "player":
        return lambda st, v: player_name(v)
    names = prog.card_names
    n_cards = prog.card_count
    if p.multi_zone:
        zone_of = prog.slot_zone
        labels: dict = {}

        def label(c, zi):  # "red 5 (hand)": which zone a card comes from matters when there are several
            key = (c, zi)
            t = labels.get(key)
            if t is None:
                t = labels[key] = f"{names[c]} ({zone_of[zi]})"
            return t
        if p.kind == "card":
            return lambda st, v: label(v, st.where[v]) if v < n_cards else card_text(prog, st, v, True)
        return lambda st, v: " + ".join([label(c, st.where[c]) if c < n_cards else card_text(prog, st, c, True)
                                         for c in v]) or "nothing"  # the empty set of `size 0..N`
    if p.kind == "card":
        return lambda st, v: names[v] if v < n_cards else card_text(prog, st, v, False)
    return lambda st, v: " + ".join([names[c] if c < n_cards else card_text(prog, st, c, False)
                                     for c in v]) or "nothing"  # the empty set of `size 0..N`


def _format(prog: Program, p: CParam, st, v) -> str:
    return _formatter(prog, p)(st, v)


def candidates(prog: Program, act: CAction, st, actor: int, base: dict = None) -> list[dict]:
    """Every filling of the action's parameters (before requirements), as the env it binds,
    in order: the first parameter varies slowest.  `base`: names every filling starts with
    (owner and self for an action a card gives)."""
    params = act.params
    if not params:
        return [dict(base) if base else {}]
    try:
        return _candidates(prog, params, st, _limit(st), actor, base or {})
    except TooManyChoices:
        raise _too_many_ways(prog, act, st) from None


def _too_many_ways(prog: Program, act: CAction, st) -> RuleRuntimeError:
    return RuleRuntimeError(
        f"action '{act.name}' has more than {_limit(st):,} ways to fill its choices at this decision "
        f"(bound them in the rules: a 'size' for a cards choice, a smaller range; or raise the limit "
        f"with --max-choices)", prog.path, act.decl.span)


def _too_many_actions(prog: Program, act: CAction, limit: int) -> RuleRuntimeError:
    return RuleRuntimeError(f"more than {limit:,} legal actions at this decision (action '{act.name}' "
                            f"and those before it); raise the limit with --max-choices", prog.path, act.decl.span)


def unfiltered_candidates(prog: Program, act: CAction, st, actor: int, base: dict = None) -> list[dict]:
    """Every filling of the parameters, the 'where' conditions ignored (to explain an illegal move)."""
    envs = [dict(base or {})]
    for p in act.params:
        envs = [{**env, p.name: v} for env in envs for v in
                (card_choices(prog, p, st, env, actor, prefilter=False) if p.kind in ("card", "cards")
                 else _param_values(prog, p, st, env, actor))]
        if len(envs) > _limit(st):
            return []
    return envs


def _candidates(prog: Program, params: list, st, limit: int, who: int, base: dict) -> list[dict]:
    p = params[0]
    name, cond = p.name, p.cond
    values = _param_values(prog, p, st, base, who)
    if len(values) > limit:
        raise TooManyChoices()
    if base:
        envs = [{**base, name: v} for v in values]
    else:
        envs = [{name: v} for v in values]
    if cond is not None:
        off = _where_off_test(prog, p)
        envs = [env for env in envs if cond(st, env)] if off is None else \
            [env for env in envs if off(env) or cond(st, env)]
    if p.kind == "player" and p.nullable and not envs:
        envs = [{**base, name: None}]  # 'player or none': none only when no player qualifies
    for p in params[1:]:
        name, cond = p.name, p.cond
        off = _where_off_test(prog, p) if cond is not None else None
        nxt = []
        for env in envs:
            found = False
            for v in _param_values(prog, p, st, env, who):
                env2 = dict(env)
                env2[name] = v
                if cond is None or (off is not None and off(env2)) or cond(st, env2):
                    nxt.append(env2)
                    found = True
            if not found and p.kind == "player" and p.nullable:
                env2 = dict(env)
                env2[name] = None
                nxt.append(env2)
            if len(nxt) > limit:
                raise TooManyChoices()
        envs = nxt
    return envs


def failing_precondition(act: CAction, st, base: dict = None):
    base = base or {}
    if act.ready is not None and act.ready(st, base):
        return None
    for f, msg, r in act.preconditions:
        if not f(st, base):
            return msg, r
    return None


def failing_requirement(act: CAction, st, env):
    """The first requirement the filled-in action breaks, or None."""
    marked = _face_down_picks(st.prog, act, env)
    for i, (f, msg, r) in enumerate(act.requires):
        if marked and act.face_down_reads[i] & marked:
            continue
        if not f(st, env):
            return msg, r
    return None


# ---------------------------------------------------------------------- face-down picks
# A condition (a choice's 'where', a requirement) that reads a card picked face down does not
# apply to it: the chooser could not check it (docs/language.md, "Face down").
def where_off(prog: Program, p: CParam, env: dict) -> bool:
    """Is choice p's 'where' off for this filling: its own card, or a card it reads, face down?"""
    return (p.kind in ("card", "cards") and face_down(prog, env[p.name])) or \
        any(face_down(prog, env[n]) for n in p.face_down_reads)


def _where_off_test(prog: Program, p: CParam):
    """where_off for choice p as a function of the filling, or None when it is never off."""
    if p.kind == "card" and not p.face_down_reads:
        name, n = p.name, prog.card_count
        return lambda env: env[name] >= n
    if p.kind == "cards" or p.face_down_reads:
        return lambda env: where_off(prog, p, env)
    return None


def _face_down_picks(prog: Program, act: CAction, env: dict) -> frozenset:
    """The card choices of a filling that its requirements read and that hold face-down picks."""
    if not act.face_down_reads:
        return frozenset()
    return frozenset(n for n, kind in act.card_slots if kind != "use" and face_down(prog, env.get(n)))


def requirements_hold(prog: Program, act: CAction, st, env: dict) -> bool:
    """act.holds for a filling, leaving out the requirements that read a face-down pick."""
    marked = _face_down_picks(prog, act, env)
    if not marked:
        return act.holds is None or act.holds(st, env)
    return all(f(st, env) for (f, _, _), reads in zip(act.requires, act.face_down_reads) if not reads & marked)


class _Plan:
    """What listing an action needs, worked out once per action."""
    __slots__ = ("pnames", "formatters", "face_down")

    def __init__(self, prog: Program, act: CAction):
        self.pnames = [p.name for p in act.params]
        self.formatters = [_formatter(prog, p) for p in act.params]
        # does a filling hold a face-down pick some requirement reads?  (None: none can)
        read = set().union(*act.face_down_reads)
        tests = [(n, kind) for n, kind in act.card_slots if n in read]
        one = [_face_down_test(prog.card_count, n, kind) for n, kind in tests]
        self.face_down = None if not one else one[0] if len(one) == 1 else lambda env: any(f(env) for f in one)


def _face_down_test(n_cards: int, name: str, kind: str):
    """A test of a filling: does card (or cards) choice `name` hold a face-down pick?"""
    if kind == "card":
        return lambda env: env[name] >= n_cards
    return lambda env: bool(env[name]) and max(env[name]) >= n_cards


def _plan(prog: Program, act: CAction) -> _Plan:
    plan = act.plan
    if plan is None:
        plan = act.plan = _Plan(prog, act)
    return plan


def action_text(prog: Program, act: CAction, st, env) -> str:
    if act.text is not None:
        return act.text(st, env)
    plan = _plan(prog, act)
    return " ".join([act.name] + [fmt(st, env[n]) for n, fmt in zip(plan.pnames, plan.formatters)])


def ability_bases(st, act: CAction, actor: int) -> list:
    """The starting names of each way `actor` may take the action: {} for a rules action;
    {owner, self} for each copy of the card that gives it and works for the actor now."""
    if act.ability is None:
        return [{}]
    return [{"owner": actor, "self": c} for c in active_for(st, act.ability, actor)]


class _Given:
    """The actions of a list (a phase's, a window's) that cards give, indexed by the cards that
    give them (card_index.py), when their cards' conditions draw no random number; made once
    per list and set of options."""
    __slots__ = ("indexed", "index")

    def __init__(self, prog: Program, st, names: list):
        items = [(pos, prog.actions[name]) for pos, name in enumerate(names)]
        items = [(pos, act) for pos, act in items if act.ability is not None and act.ability.pure]
        self.indexed = frozenset(pos for pos, _ in items)
        self.index = OwnedIndex(st, items) if items else None

    def cards(self, st, actor: int) -> dict:
        """position -> the copies of the card giving that action that work for actor now."""
        out: dict = {}
        for pos, c, act in self.index.placed(st, actor):
            when = act.ability.when
            if when is None or when(st, {"owner": actor, "self": c}):
                out.setdefault(pos, []).append(c)
        return out


def _given(prog: Program, st, names: list) -> _Given:
    live = st.opts.live
    key = ("given", tuple(names))
    got = live.get(key)
    if got is None:
        got = live[key] = _Given(prog, st, names)
    return got


def legal_actions(prog: Program, st, phase_actions: list, actor: int, phase_ready=None):
    """The legal actions among `phase_actions` for `actor`; phase_ready: the phase's own
    requirements, which every one of its actions needs.  A list of Actions, or a LazyActions
    when an int choice over a range is kept whole (action_ranges.py)."""
    out: list = []
    seen: dict[str, int] = {}
    limit = _limit(st)
    if phase_ready is not None and not phase_ready(st, {}):
        return out
    ranges = None  # the actions listed as ranges here: worked out when one that may be is met
    extra = 0      # how many more actions than entries `out` holds (a range is one entry)
    lazy = False
    given = _given(prog, st, phase_actions)
    cards = given.cards(st, actor) if given.index is not None else None
    for pos, name in enumerate(phase_actions):
        act = prog.actions[name]
        if act.ability is not None:
            if pos in given.indexed:
                for c in cards.get(pos, ()):
                    _list_one(prog, st, act, actor, {"owner": actor, "self": c}, out, seen, limit, extra)
                continue
            for base in ability_bases(st, act, actor):
                _list_one(prog, st, act, actor, base, out, seen, limit, extra)
            continue
        if act.params and nothing_to_choose(prog, act.params[0], st, {}, actor):
            continue  # (sure without reading its requirements: none of its cards is at hand)
        if act.ready is not None and not act.ready(st, {}):  # checked before any choice is enumerated
            continue
        if act.int_range is not None:
            if ranges is None:
                ranges = range_actions(prog, phase_actions)
            if name in ranges:
                seg = segment(act, st, act.params[0].name)
                if seg is not False:
                    if seg is not None:
                        k = len(seg) if type(seg) is RangeSegment else 1
                        if k > limit:
                            raise _too_many_ways(prog, act, st)
                        if len(out) + extra + k > limit:
                            raise _too_many_actions(prog, act, limit)
                        out.append(seg)
                        extra += k - 1
                        lazy = lazy or k > 1
                    continue
        _list_one(prog, st, act, actor, None, out, seen, limit, extra)
    return LazyActions(out, len(out) + extra) if lazy else out


def _list_one(prog: Program, st, act: CAction, actor: int, base, out: list, seen: dict, limit: int,
              extra: int = 0) -> None:
    """List one action's fillings into `out` (which holds `extra` actions more than its entries)."""
    name = act.name
    if base is not None:
        if act.params and nothing_to_choose(prog, act.params[0], st, base, actor):
            return
        if act.ready is not None and not act.ready(st, base):
            return
    plan = _plan(prog, act)
    holds, pnames = act.holds, plan.pnames
    template = act.text
    single = len(pnames) == 1 and template is None and base is None
    if single:
        fmt, prefix = plan.formatters[0], name + " "
    room = limit - extra
    marked = plan.face_down
    for env in candidates(prog, act, st, actor, base):
        if holds is None or (holds(st, env) if marked is None or not marked(env)
                             else requirements_hold(prog, act, st, env)):
            if single:
                v = env[pnames[0]]
                text = prefix + fmt(st, v)
                params = ((pnames[0], v),)
            else:
                text = template(st, env) if template is not None else action_text(prog, act, st, env)
                params = tuple([(n, env[n]) for n in pnames])
                if base is not None:
                    params += (("owner", actor), ("self", base["self"]))
            if len(out) >= room:
                raise _too_many_actions(prog, act, limit)
            if text in seen:  # the rules' text template does not tell two choices apart
                seen[text] += 1
                text = f"{text} #{seen[text]}"
            else:
                seen[text] = 1
            out.append(_new_action(name, params, text))
