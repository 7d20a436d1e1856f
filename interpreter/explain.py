"""Why an action is illegal: one readable sentence for a text that is not among the legal actions.

The explanation names the action the text belongs to.  A text could come from several actions
(``play {c}`` and ``play {c} on {t}`` both start with "play "): the action whose template fits
the text with the most fixed words is the one meant.  If that action cannot be taken now
(a requirement that reads none of its choices fails), its reason is given; if the text is one of
its fillings that breaks a requirement, that requirement is given; otherwise the text is simply
not a legal action, and the legal ones are listed.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Optional

from .actions import (ability_bases, action_text, candidates, failing_precondition, failing_requirement,
                      unfiltered_candidates, where_off)
from .compiler import player_name
from .windows import NO_RESPONSE, responses_for


def explain_illegal(st, text: str) -> str:
    if st.terminal:
        return f"'{text}' is illegal: the game is over"
    pend = st.pending
    who = player_name(st.current_player)
    if pend is not None and pend["kind"] == "choice":
        return _not_legal(st, text, who, f"while choosing ({pend.get('prompt') or 'a choice'})")
    prog = st.prog
    ph = prog.phases[st.phase]
    name = text.split(" ", 1)[0]
    if pend is not None:  # only the responses to the top entry may be played
        kind = st.entry(pend["eid"])[1]
        allowed, where = responses_for(st, pend["eid"]), f"in the response window of '{kind}'"
        listed = allowed + [NO_RESPONSE]
    else:
        allowed, where, listed = ph.actions, f"in phase '{st.phase}'", list(ph.actions)
        responses = [n for n, a in prog.actions.items() if a.respond_to and n not in allowed]
        if text == NO_RESPONSE or (name in responses and not _fits_any(st, allowed, text)) \
                or (_fits_any(st, responses, text) and not _fits_any(st, allowed, text)):
            return f"'{text}' is illegal: no response window is open (it is {who}'s turn in phase '{st.phase}')"
        if ph.ready is not None and not ph.ready(st, {}):
            for f, msg, r in _phase_requires(st, ph):
                if not f(st, {}):
                    why = msg or f"it needs 'require {_source(st, r.cond.span)}'"
                    return f"'{text}' is illegal for {who} now: {why} ({prog.path}:{r.span.line})"
    if name in prog.actions and name not in allowed and not _fits_any(st, allowed, text):
        return (f"'{text}' is illegal: '{name}' cannot be taken {where} "
                f"(allowed here: {', '.join(listed)})")
    act = _meant(st, allowed, text)
    if act is not None:
        for base in ability_bases(st, act, st.active) or [None]:
            if base is None:
                return f"'{text}' is illegal for {who}: no card of theirs gives '{act.name}' now"
            pre = failing_precondition(act, st, base)
            if pre is not None:
                msg, r = pre
                why = msg or f"it needs 'require {_source(st, r.cond.span)}'"
                return f"'{text}' is illegal for {who} now: {why} ({prog.path}:{r.span.line})"
            for env in candidates(prog, act, st, st.active, base) if act.requires else ():  # (else none can fail)
                written = action_text(prog, act, st, env)
                if written == text or (" + " in text and same_cards(written.split(" + "), text.split(" + "))):
                    failed = failing_requirement(act, st, env)
                    if failed is not None:
                        msg, r = failed
                        why = msg or f"it breaks the rule 'require {_source(st, r.cond.span)}'"
                        return f"'{text}' is illegal for {who}: {why} ({prog.path}:{r.span.line})"
            failed_where = _failing_where(st, act, text, base) if any(p.cond is not None for p in act.params) else None
            if failed_where is not None:
                return _not_legal(st, text, who, where, failed_where)
    return _not_legal(st, text, who, where)


def _failing_where(st, act, text: str, base) -> Optional[str]:
    """The 'where' condition of a choice that the text's filling breaks, said with its source."""
    prog = st.prog
    for env in unfiltered_candidates(prog, act, st, st.active, base):
        if action_text(prog, act, st, env) != text:
            continue
        for p in act.params:
            if p.cond is not None and not where_off(prog, p, env) and not p.cond(st, env):
                decl = next(d for d in act.decl.params if d.name == p.name)
                return (f"{p.name} = {_shown(st, p, env[p.name])} breaks 'where {_source(st, decl.cond.span)}' "
                        f"({prog.path}:{decl.cond.span.line})")
    return None


def _shown(st, p, v) -> str:
    if p.kind == "player":
        return player_name(v)
    if p.kind == "card" and isinstance(v, int):
        return st.prog.card_label(st, v)
    return str(v)


def _not_legal(st, text: str, who: str, where: str, why: str = "") -> str:
    n = st.count_actions()  # (the first few only: a range's actions are not all made)
    shown = ", ".join(f"'{st.action_at(i).text}'" for i in range(min(n, 8))) + (", ..." if n > 8 else "")
    return f"'{text}' is not a legal action for {who} {where}{': ' + why if why else ''}; legal now: {shown}"


def _phase_requires(st, ph):
    return [(st.prog.expr(r.cond), r.message, r) for r in ph.decl.requires]


def _template(act) -> str:
    if act.decl.text is not None:
        return act.decl.text.value
    return act.name + "".join(" {" + p.name + "}" for p in act.params)


def _pattern(template: str):
    """A regular expression for the texts a template can produce, and its number of fixed characters."""
    parts = re.split(r"\{[^{}]*\}", template)
    fixed = sum(len(p) for p in parts)
    # a hole may write nothing ("declare null{if o then \" ouvert\" else \"\"}")
    return re.compile("^" + "(.*?)".join(re.escape(p) for p in parts) + r"( #\d+)?$", re.S), fixed


def _fits_any(st, names: list, text: str) -> bool:
    return any(_pattern(_template(st.prog.actions[n]))[0].match(text) for n in names)


def _meant(st, names: list, text: str) -> Optional[object]:
    """The action among `names` whose template fits `text` with the most fixed characters."""
    best, best_fixed = None, -1
    for n in names:
        act = st.prog.actions[n]
        pattern, fixed = _pattern(_template(act))
        if pattern.match(text) and fixed > best_fixed:
            best, best_fixed = act, fixed
    return best


def _source(st, span) -> str:
    from rulespec.lang.graph import source_text
    return source_text(st.game.model.source, span)


# ---------------------------------------------------------------------- texts written by hand
def match_action(text: str, legal: list) -> Optional[str]:
    """The legal action `text` names: the exact text, or the same cards after ' + ' in another order."""
    if text in legal:
        return text
    parts = text.split(" + ")
    if len(parts) < 2:
        return None
    found = [a for a in legal if same_cards(a.split(" + "), parts)]
    return found[0] if len(found) == 1 else None


def same_cards(a: list, u: list) -> bool:
    """Two action texts split at ' + ': the same words before the first card (none, for a choice
    of cards only, like 'Wine ♠9 + Strike ♠7'), and the same cards in any order."""
    if len(a) != len(u):
        return False
    if Counter(a) == Counter(u):  # no words before the cards: every part is a card
        return True
    first = a[0]
    for i, ch in enumerate(first):
        if ch == " ":
            prefix = first[:i + 1]
            if u[0].startswith(prefix) and \
                    Counter([first[i + 1:]] + a[1:]) == Counter([u[0][len(prefix):]] + u[1:]):
                return True
    return False
