"""Legal-move generation: every way to fill an action's parameters, checked against its requirements.

Card choices are enumerated by kind, not by subset: cards that are alike (same
name, same zone) are interchangeable, so a hand is grouped into classes and we
pick how many of each class to take.  With ``same <property>`` only classes that
share the property's value are combined.  A 15-card hand never costs 2^15.
"""
from __future__ import annotations

from typing import Iterator

import attrs

from .compiler import CAction, CParam, Program, player_name


@attrs.frozen
class Action:
    """One legal action: its name, its filled-in parameters and its readable, unique text."""
    name: str
    params: tuple  # ((param name, value), ...)
    text: str

    def __str__(self) -> str:
        return self.text


def _multiset_combos(classes: list, k: int, start: int = 0) -> Iterator[list]:
    """Every way to take k cards from classes [(key, [cards])], as lists of card ids."""
    if k == 0:
        yield []
        return
    for i in range(start, len(classes)):
        cards = classes[i][1]
        for take in range(min(k, len(cards)), 0, -1):
            for rest in _multiset_combos(classes, k - take, i + 1):
                yield cards[:take] + rest


def _sizes(prog: Program, p: CParam, st, env) -> list:
    if p.size is None:
        return []
    v = p.size(st, env)
    return list(v) if isinstance(v, list) else [v]


def card_choices(prog: Program, p: CParam, st, env) -> Iterator[list]:
    pairs = p.domain(st, env)
    by_class: dict = {}
    names = prog.card_names
    for c, zi in pairs:
        by_class.setdefault((names[c], zi), []).append(c)
    classes = list(by_class.items())
    if p.kind == "card":
        for _, cards in classes:
            yield cards[0]
        return
    sizes = _sizes(prog, p, st, env)
    if not sizes:
        sizes = list(range(1, len(pairs) + 1))
    if p.same is not None:
        prop = prog.card_names if p.same == "name" else prog.card_props[p.same]
        groups: dict = {}
        for key, cards in classes:
            groups.setdefault(prop[cards[0]], []).append((key, cards))
        class_groups = list(groups.values())
    else:
        class_groups = [classes]
    for k in sizes:
        if k <= 0:
            continue
        for group in class_groups:
            yield from _multiset_combos(group, k)


def _param_values(prog: Program, p: CParam, st, env) -> Iterator:
    if p.kind == "int":
        yield from p.domain(st, env)
    elif p.kind == "player":
        yield from range(st.n)
    else:
        yield from card_choices(prog, p, st, env)


def _format(prog: Program, p: CParam, st, v) -> str:
    if p.kind == "int":
        return str(v)
    if p.kind == "player":
        return player_name(v)
    names = prog.card_names
    cards = [v] if p.kind == "card" else v
    if p.multi_zone:
        return " + ".join(f"{names[c]} ({prog.slots[st.where[c]].zone})" for c in cards)
    return " + ".join(names[c] for c in cards)


def candidates(prog: Program, act: CAction, st, actor: int) -> Iterator[tuple[dict, str | None]]:
    """Every filling of the action's parameters (before requirements), with the env it binds."""
    params = act.params

    def rec(i: int, env: dict):
        if i == len(params):
            yield env
            return
        p = params[i]
        for v in _param_values(prog, p, st, env):
            env2 = dict(env)
            env2[p.name] = v
            if p.cond is not None and not p.cond(st, env2):
                continue
            yield from rec(i + 1, env2)
    yield from rec(0, {})


def failing_precondition(act: CAction, st):
    for f, msg, r in act.preconditions:
        if not f(st, {}):
            return msg, r
    return None


def failing_requirement(act: CAction, st, env):
    """The first requirement the filled-in action breaks, or None."""
    for f, msg, r in act.requires:
        if not f(st, env):
            return msg, r
    return None


def action_text(prog: Program, act: CAction, st, env) -> str:
    if act.text is not None:
        return act.text(st, env)
    parts = [act.name] + [_format(prog, p, st, env[p.name]) for p in act.params]
    return " ".join(parts)


def legal_actions(prog: Program, st, phase_actions: list, actor: int) -> list[Action]:
    out: list[Action] = []
    seen: dict[str, int] = {}
    for name in phase_actions:
        act = prog.actions[name]
        if failing_precondition(act, st) is not None:
            continue
        for env in candidates(prog, act, st, actor):
            if failing_requirement(act, st, env) is not None:
                continue
            text = action_text(prog, act, st, env)
            if text in seen:  # the rules' text template does not tell two choices apart
                seen[text] += 1
                text = f"{text} #{seen[text]}"
            else:
                seen[text] = 1
            out.append(Action(name, tuple((p.name, env[p.name]) for p in act.params), text))
    return out
