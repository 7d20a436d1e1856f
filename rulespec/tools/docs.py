"""The generated rulebook: Model -> Markdown or one self-contained HTML page.

Prose comes from the doc strings in the rules file where the author wrote them, and
otherwise from the English every construct gives of itself (english.py).  The
readings an author marked with "# Reading:" comments are repeated.
"""
from __future__ import annotations

import os
import html
import re
from pathlib import Path

from rulespec.lang import ast as A
from rulespec.lang.checker.face_down import face_down_reads
from rulespec.lang.display import layout
from rulespec.lang.english import English, by_position, words
from rulespec.lang.graph import to_mermaid
from rulespec.lang.model import Model
from rulespec.lang.setup_values import copies_by_players, copies_in

MERMAID_JS = Path(__file__).with_name("vendor") / "mermaid.min.js"


# ---------------------------------------------------------------------- building blocks
def _h(level, text):
    return ("h", level, text)


def _p(text):
    return ("p", text)


def _ul(items):
    return ("ul", items)


def _table(header, rows):
    return ("table", header, rows)


def _mermaid(text):
    return ("mermaid", text)


def _vis(v: str) -> str:
    return {"public": "everyone", "owner": "its owner only", "others": "every player but its owner",
            "hidden": "nobody", "top": "everyone sees the top card, nobody the cards below it"}[v]


def _kind(k: str) -> str:
    return {"pile": "an ordered pile", "set": "a set (order does not matter)",
            "plays": "a record of plays (who played which cards)"}[k]


def _cards(n: int) -> str:
    return f"{n} card{'' if n == 1 else 's'}"


def _players(a: int, b: int) -> str:
    """'3 players', '5 or 6 players', '2 to 4 players'."""
    return f"{a} player{'s' if a != 1 else ''}" if a == b else f"{a} or {b} players" if b == a + 1 \
        else f"{a} to {b} players"


def readings(source: str) -> list[str]:
    """The '# Reading: ...' comments of a rules file (with their continuation lines)."""
    out: list[str] = []
    lines = source.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"\s*#\s*Reading(?: \(([^)]*)\))?:\s*(.*)", lines[i])
        if m:
            text = ((m.group(1) + ": ") if m.group(1) else "") + m.group(2).strip()
            i += 1
            while i < len(lines) and re.match(r"\s*#\s+\S", lines[i]) and "Reading" not in lines[i]:
                text += " " + lines[i].strip().lstrip("#").strip()
                i += 1
            out.append(text)
        else:
            i += 1
    return out


class Rulebook:
    def __init__(self, model: Model):
        self.m = model
        self.en = English(model)

    # ------------------------------------------------------------------ sections
    def blocks(self) -> list:
        m = self.m
        out = [_h(1, m.name)]
        if m.doc:
            out.append(_p(m.doc))
        n = f"{m.min_players}" if m.min_players == m.max_players else f"{m.min_players} to {m.max_players}"
        out.append(_p(f"For {n} players."))
        out += self.options()
        out += self.components()
        out += self.setup()
        out += self.flow()
        out += self.actions()
        out += self.responses()
        out += self.triggers()
        out += self.card_abilities()
        out += self.conversions()
        out += self.rule_values()
        out += self.definitions()
        out += self.scoring()
        out += self.ending()
        out += self.invariants()
        rs = readings(m.source)
        if rs:
            out += [_h(2, "Readings"), _p("Where the printed rules are ambiguous, these rules take this reading:"),
                    _ul(rs)]
        return out

    def options(self) -> list:
        if not self.m.options:
            return [_h(2, "Options and variants"), _p("The game has no options.")]
        rows = []
        for o in self.m.options.values():
            default = {True: "on", False: "off"}.get(o.default, str(o.default)) if isinstance(o.default, bool) \
                else str(o.default)
            what = o.doc or f"the {words(o.name)} setting"
            if o.values is not None:  # 'int in lo..hi'
                what += f" ({o.values[0]} to {o.values[1]})"
            rows.append([f"`{o.name}`", default, what])
        return [_h(2, "Options and variants"), _table(["option", "default", "what it does"], rows),
                _p("Set an option with `--option NAME=VALUE`.")]

    def copies(self, c) -> str:
        """How many copies of card c the deck holds: a number, or how it depends on the setup
        ("1 with 2 to 4 players, 2 with 5 or 6 players")."""
        if c.copies_expr is None:
            return str(c.copies)
        runs = copies_by_players(self.m, c)
        if runs is None:  # it reads options too: the expression in words
            return self.en.expr(c.copies_expr)
        return ", ".join(f"{k} with {_players(a, b)}" for a, b, k in runs)

    def deck_size(self) -> str:
        """'52 cards'; where copies depend on the player count, the size for each count ('40 cards
        with 2 to 4 players, 52 with 5 or 6 players'); where they depend on options, the most."""
        m = self.m
        if all(c.copies_expr is None for c in m.cards):
            return _cards(sum(c.copies for c in m.cards))
        if any(c.copies_expr is not None and copies_by_players(m, c) is None for c in m.cards):
            return f"Up to {sum(c.copies for c in m.cards)} cards (how many depends on the options)"
        runs: list = []
        for n in range(m.min_players, m.max_players + 1):
            size = sum(copies_in(m, c, n, {}) for c in m.cards)
            if runs and runs[-1][2] == size:
                runs[-1][1] = n
            else:
                runs.append([n, n, size])
        if len(runs) == 1:
            return _cards(runs[0][2])
        return ", ".join(f"{_cards(k) if i == 0 else k} with {_players(a, b)}" for i, (a, b, k) in enumerate(runs))

    def components(self) -> list:
        m = self.m
        props = list(m.properties)
        rows = []
        def shown(v):
            return "" if v is None else ("yes" if v is True else "no" if v is False else words(str(v)))
        for c in m.cards:
            if c.copy_props:  # every copy its own values: one row per copy
                for own in c.copy_props:
                    rows.append([c.name, "1"] + [shown(own.get(p)) for p in props] + [c.doc or ""])
                continue
            rows.append([c.name, self.copies(c)] + [shown(c.props.get(p)) for p in props] + [c.doc or ""])
        header = ["card", "count"] + [words(p) for p in props] + ["what it does"]
        if not any(c.doc for c in m.cards):  # no card says what it does: no empty column
            header, rows = header[:-1], [r[:-1] for r in rows]
        out = [_h(2, "Components"), _p(f"{self.deck_size()}:"), _table(header, rows)]
        pdocs = [f"**{words(p.name)}**: {p.doc}" for p in m.properties.values() if p.doc]
        if pdocs:
            out.append(_ul(pdocs))
        zrows = [[words(z.name), "each player" if z.per_player else "shared",
                  _kind(z.kind) + (f", holding at most {_cards(z.capacity)}" if z.capacity is not None else ""),
                  _vis(z.visibility), z.doc or ""] for z in m.zones.values()]
        out += [_h(3, "Where cards can be"), _table(["zone", "whose", "kind", "who sees the cards", "notes"], zrows)]
        vrows = []
        for v in m.vars.values():
            start = self.en.expr(v.default) if v.default is not None else "nothing"
            vrows.append([words(v.name), "each player" if v.per_player else "the game", start, v.doc or ""])
        if vrows:
            out += [_h(3, "What the game keeps track of"), _table(["name", "kept for", "starts at", "notes"], vrows)]
        if m.display is not None:  # the rules say how their table is drawn: say it too (it changes no rule)
            table = self.en.display(layout(m))
            if table:
                out += [_h(3, "At the table"), _p(table)]
        return out

    def _phase_order(self) -> list:
        return list(self.m.phases.values())

    def setup(self) -> list:
        """The automatic phases from the start until the first phase where a player decides."""
        m = self.m
        out = [_h(2, "Setup")]
        if m.cards_start:
            out.append(_p(f"All the cards start in the {words(m.cards_start)}."))
        seen, name = set(), m.start_phase
        while name in m.phases and name not in seen:
            ph = m.phases[name]
            if ph.actions:
                break
            seen.add(name)
            if ph.doc:
                out.append(_p(ph.doc))
            steps = self.en.block(ph.enter) + self.en.block(ph.exit)
            if steps:
                out.append(_ul(steps))
            name = ph.nexts[0].target.name if len(ph.nexts) == 1 else None
        return out

    def flow(self) -> list:
        out = [_h(2, "Flow of play"),
               _p("Each box is a phase where players decide; each rounded box a phase that runs by itself. "
                  "Arrows show which phase follows, and when."), _mermaid(to_mermaid(self.m))]
        for ph in self._phase_order():
            out.append(_h(3, f"Phase: {words(ph.name)}"))
            if ph.doc:
                out.append(_p(ph.doc))
            items: list = []
            if ph.enter is not None and ph.enter.stmts:
                items += ["When the phase starts:", self.en.body(ph.enter)]
            if ph.actions:
                who = self.en.subject(ph.actor) if ph.actor is not None else "The active player"
                items.append(f"{who} decides, choosing one of: "
                             + ", ".join(words(a.name) for a in ph.actions) + ".")
            if ph.after is not None and ph.after.stmts:
                items += ["After each action:", self.en.block(ph.after)]
            if ph.end_when is not None:
                items.append(f"The phase ends when {self.en.expr(ph.end_when)}.")
            elif ph.actions:
                items.append("The phase goes on until the game ends.")
            if ph.exit is not None and ph.exit.stmts:
                items += ["When the phase ends:", self.en.block(ph.exit)]
            for i, n in enumerate(ph.nexts):
                if n.cond is not None:
                    items.append(f"Then, if {self.en.expr(n.cond)}, go to {words(n.target.name)}.")
                else:
                    items.append(f"{'Otherwise' if i else 'Then'} go to {words(n.target.name)}.")
            out.append(_ul(items))
        return out

    def _param(self, p: A.ActionParam) -> str:
        e = self.en
        if p.kind == "int":
            return f"**{words(p.name)}**: a number from {e.expr(p.domain)}"
        if p.kind == "enum":
            members = self.m.enums[p.same.name].members
            return f"**{words(p.name)}**: one of " + ", ".join(words(x) for x in members) + \
                (f", such that {e.expr(p.cond)}" if p.cond else "")
        if p.kind == "player":
            return f"**{words(p.name)}**: a player" + (f" such that {e.expr(p.cond)}" if p.cond else "") + \
                (" (nobody if no player qualifies)" if p.nullable else "")
        if p.kind in ("players", "use", "bool"):
            return f"**{words(p.name)}**: " + ("yes or no" if p.kind == "bool" else e.choice(p))
        if p.kind == "card":
            return f"**{words(p.name)}**: a card from {e.expr(p.domain)}" + \
                (f" such that {e.expr(p.cond)}" if p.cond else "") + by_position(p)
        text = f"**{words(p.name)}**: cards from {e.expr(p.domain)}"
        if p.size is not None:
            text += f", {e.expr(p.size)} of them"
        if p.same is not None:
            text += f", all of the same {words(p.same.name)}"
        if p.distinct is not None:
            text += f", each of a different {words(p.distinct.name)}"
        if p.sum_of is not None:
            text += f", whose {words(p.sum_of[0].name)} adds up to {e.expr(p.sum_of[1])}"
        if p.wild is not None:
            text += f"; cards such that {e.expr(p.wild[1])} are wild and may join them"
        return text + by_position(p)

    def _action(self, a: A.ActionDecl) -> list:
        e = self.en
        out = [_h(3, f"{words(a.name)}")]
        out.append(_p(a.doc or f"The action “{words(a.name)}”."))
        items: list = []
        if a.params:
            items += ["You choose:", [self._param(p) for p in a.params]]
        if a.offered_in:
            items.append("It may be taken in: " + ", ".join(words(ph.name) for ph in a.offered_in) + ".")
        if a.requires:
            blind = {id(cond): read.name for cond, _, read, _ in
                     face_down_reads(a, a in self.m.abilities, self._zone_of)}  # (docs/language.md, Face down)
            items += ["It is allowed only when:",
                      [f"{e.expr(r.cond)}" + (f" (otherwise: “{r.message}”)" if r.message else "")
                       + (f", not checked when {words(blind[id(r.cond)])} is picked face down"
                          if id(r.cond) in blind else "")
                       for r in a.requires]]
        if a.effect is not None:
            items += ["Effect:", e.body(a.effect)]
        out.append(_ul(items))
        return out

    def _zone_of(self, e):
        """The zone an expression names (its ZoneInfo), or None."""
        ref = self.m.refs.get(e)
        return ref[1] if ref and ref[0] in ("zone", "pzone") else None

    def actions(self) -> list:
        acts = [a for a in self.m.actions.values() if not a.respond_to]
        out = [_h(2, "Actions")]
        for a in acts:
            out += self._action(a)
        return out

    def responses(self) -> list:
        m = self.m
        resp = [a for a in m.actions.values() if a.respond_to]
        if not m.effects and not resp:
            return []
        out = [_h(2, "Responses and the stack"),
               _p("Some effects go on a stack before they happen. Each time one does, the other players "
                  "(clockwise from the player who played it, that player last) may answer it, out of turn, "
                  "with a response; a response may itself be answered. When nobody answers any more, the "
                  "last effect put on the stack happens first. A cancelled effect does not happen.")]
        for eff in m.effects.values():
            out.append(_h(3, f"Effect: {words(eff.name)}"))
            out.append(_p(eff.doc or f"The effect “{words(eff.name)}”."))
            items: list = []
            if eff.tags:
                items.append("It counts as: " + ", ".join(words(t.name) for t in eff.tags) + ".")
            if eff.fields:
                items.append("It carries: " + ", ".join(
                    f"{words(f.name)} ({self.en.expr(f.default)} unless said otherwise)" if f.default is not None
                    else words(f.name) for f in eff.fields) + ".")
            if eff.ask is not None:
                items.append(f"The players asked, in order: {self.en.expr(eff.ask)}.")
            if eff.mandatory:
                items.append("A player asked who can answer it must answer.")
            if eff.resolve is not None:
                items += ["When it happens:", self.en.body(eff.resolve)]
            if eff.cancelled is not None:
                items += ["If it was cancelled:", self.en.body(eff.cancelled)]
            out.append(_ul(items))
        for a in resp:
            out += self._action(a)
            out.append(_p("Played out of turn, in answer to: " + ", ".join(words(t.name) for t in a.respond_to) + "."))
        return out

    def triggers(self) -> list:
        m = self.m
        if not m.triggers:
            return []
        out = [_h(2, "Triggers"),
               _p("These happen by themselves when something happens. When several happen at once, those "
                  "not tied to a player come first, then each player's, starting with the active player "
                  "and going clockwise.")]
        for t in m.triggers:
            head = self._trigger_when(t, with_doc=True)
            ab = m.abilities.get(t)
            if ab is not None:
                head += f", while {ab.card} is in its owner's {', '.join(words(z.name) for z in ab.group.zones)}"
            if t.for_var is not None:
                head += f", for each {words(t.for_var)} in {self.en.expr(t.for_expr)}"
            if t.when is not None:
                head += f", if {self.en.expr(t.when)}"
            if t.optional is not None:  # the player asked may say no
                who = "its owner" if ab is not None else words(t.for_var)
                head += f", {who} may (asked {self.en.quote(t.optional)})"
            out += [_h(3, words(t.name)), _ul([head + ":", self.en.body(t.body)])]
        return out

    def _trigger_when(self, t, with_doc: bool) -> str:
        """'When “finish” happens', 'Before “damage” (its doc)', 'After a phase starts'."""
        engine = {"phase_start": "a phase starts", "phase_end": "a phase ends",
                  "action_taken": "a player has taken an action", "moved": "cards move"}
        ev = self.m.events.get(t.event.name)
        when = engine.get(t.event.name) or f"“{words(t.event.name)}” happens" + \
            (f" ({ev.doc})" if with_doc and ev is not None and ev.doc else "")
        return {"before": "Before ", "after": "After "}.get(t.timing, "When ") + \
            (when if t.timing == "on" else when.replace(" happens", "", 1))

    def card_abilities(self) -> list:
        """What cards give the player who owns the zone they are in."""
        m = self.m
        items = []
        for c in m.cards:
            for g in c.abilities:
                where = ", ".join(words(z.name) for z in g.zones)
                head = f"**{c.name}**, while it is in its owner's {where}" + \
                    (f" and {self.en.expr(g.when)}" if g.when is not None else "") + ", gives its owner:"
                parts = []
                for item in g.items:
                    if isinstance(item, A.ActionDecl):
                        kind = "the response" if item.respond_to else "the action"
                        parts.append(f"{kind} “{words(item.name)}” (see above)")
                    elif isinstance(item, A.TriggerDecl):
                        parts.append(f"the trigger “{words(item.name)}” (see above)")
                    elif isinstance(item, A.ConversionDecl):
                        parts.append(f"the conversion “{words(item.name)}” (see below)")
                    elif isinstance(item, A.ModifyDecl):
                        parts.append(self._modify(item))
                items += [head, parts]
        if not items:
            return []
        return [_h(2, "What cards give their owners"), _ul(items)]

    def _modify(self, mo: A.ModifyDecl) -> str:
        args = ", ".join(words(a) for a in mo.args)
        cond = f" when {self.en.expr(mo.when)}" if mo.when is not None else ""
        return f"{words(mo.rule.name)} ({args}) counts {self.en.expr(mo.value)}{cond}"

    def conversions(self) -> list:
        m = self.m
        if not m.conversions:
            return []
        items = []
        for c in m.conversions.values():
            made = f"from {self.en.choice(c.source)}" if c.source is not None else "without any card"
            head = f"**{words(c.name)}**: use a “{c.role}” {made}." + (f" {c.doc}" if c.doc else "")
            sub = []
            if c.requires:
                sub.append("Only when: " + "; ".join(self.en.expr(r.cond) for r in c.requires) + ".")
            for name, e in c.props:
                sub.append(f"Its {words(name)} is {self.en.expr(e)}.")
            ab = m.abilities.get(c)
            if ab is not None:
                sub.append(f"Only for the owner of {ab.card}.")
            items += [head, sub] if sub else [head]
        return [_h(2, "Cards used as other cards"),
                _p("A card used as another keeps its own values (suit, number, ...) unless the conversion says "
                   "otherwise; one made of several cards, or of none, has none unless it says."), _ul(items)]

    def rule_values(self) -> list:
        m = self.m
        if not m.rules:
            return []
        how = {"sum": "added up", "max": "the largest counts", "min": "the smallest counts",
               "any": "true if any says so", "all": "true only if all agree"}
        items = []
        for r in m.rules.values():
            params = ", ".join(words(p.name) for p in r.params)
            mods = [self._modify(mo) for mo in m.modifies if mo.rule.name == r.name and mo not in m.abilities]
            head = f"**{words(r.name)}** ({params}): {self.en.expr(r.base)}, with every contribution " \
                   f"({how.get(r.combine.name, r.combine.name)})." + (f" {r.doc}" if r.doc else "")
            items += [head, mods] if mods else [head]
        return [_h(2, "Values that cards change"), _ul(items)]

    def definitions(self) -> list:
        if not self.m.defs:
            return []
        items = []
        for d in self.m.defs.values():
            params = ", ".join(words(p.name) for p in d.params)
            name = f"**{words(d.name)}**" + (f" ({params})" if params else "")
            items.append(f"{name}: {d.doc + ' — ' if d.doc else ''}{self.en.expr(d.body)}.")
        return [_h(2, "Terms used above"), _ul(items)]

    def scoring(self) -> list:
        s = self.m.score
        if s is None:
            return []
        return [_h(2, "Scoring"), _p(f"A player's score ({words(s.var)}) is {self.en.expr(s.expr)}.")]

    def ending(self) -> list:
        found: list = []

        def walk(block, where, conds):
            if block is None:
                return
            for st in block.stmts:
                if isinstance(st, A.EndGame):
                    text = self.en.stmt(st)[0]
                    found.append(f"{where}: " + (f"if {' and '.join(conds)}, " if conds else "") + text[0].lower() + text[1:])
                elif isinstance(st, A.If):
                    for c, b in st.branches:
                        walk(b, where, conds + [self.en.expr(c)])
                    walk(st.else_, where, conds + ["none of the conditions above holds"])
                elif isinstance(st, A.For):
                    walk(st.body, where, conds + [f"for some {words(st.var)} in {self.en.expr(st.iterable)}"])
        m = self.m
        for ph in m.phases.values():
            before = len(found)
            for b in (ph.enter, ph.after, ph.exit):
                walk(b, f"In phase {words(ph.name)}", [])
            ways = self._reached(ph) if len(found) > before else []
            if any(conditional for _, conditional in ways):  # the condition that leads there is part of the end
                found[-1] += f" Phase {words(ph.name)} comes " + "; or ".join(w for w, _ in ways) + "."
        for a in m.actions.values():
            walk(a.effect, f"Taking {words(a.name)}", [])
        for e in m.effects.values():
            walk(e.resolve, f"When {words(e.name)} happens", [])
        for t in m.triggers:
            when = self._trigger_when(t, with_doc=False)
            if t.when is not None:
                when += f", if {self._condition(t.when)}"
            walk(t.body, f"Trigger {words(t.name)} ({when[0].lower() + when[1:]})", [])
        if m.limit is not None:
            found.append(self.en.limit(m.limit))
        return [_h(2, "End of the game"), _ul(found or ["The game has no end condition."])]

    def _reached(self, ph) -> list:
        """How the phase machine comes to phase ph: ('after phase check when game over, that is
        when ...', whether a condition says when), one for each phase that leads there."""
        ways = []
        for q in self.m.phases.values():
            if q is ph:
                continue  # a phase that follows itself is not how the game comes to it
            passed = []  # the conditions of the earlier 'next' lines, none of which held
            for n in q.nexts:
                if n.target.name == ph.name:
                    after = f"after phase {words(q.name)}"
                    if n.cond is not None:
                        ways.append((f"{after} when {self._condition(n.cond)}", True))
                    elif passed:
                        unless = " or ".join(self.en.operand(c, "or") for c in passed) if len(passed) > 1 \
                            else self.en.expr(passed[0])
                        ways.append((f"{after} unless {unless}", True))
                    elif q.end_when is not None:
                        ways.append((f"{after}, which ends when {self.en.expr(q.end_when)}", True))
                    else:
                        ways.append((after, False))
                    break
                if n.cond is not None:
                    passed.append(n.cond)
        return ways

    def _condition(self, c) -> str:
        """A condition, with the meaning of a def it names: 'game over, that is when ...'."""
        text = self.en.expr(c)
        if isinstance(c, A.Call) and not c.args and c.func in self.m.defs:
            text += f", that is when {self.en.expr(self.m.defs[c.func].body)}"
        return text

    def invariants(self) -> list:
        if not self.m.invariants:
            return []
        items = [f"{inv.text}" + (f" (during {words(inv.at.name)})" if inv.at else "") for inv in self.m.invariants]
        return [_h(2, "Always true"), _p("These properties hold in every reachable position (checked by fuzzing):"),
                _ul(items)]


# ---------------------------------------------------------------------- rendering
def _md_inline(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_list(items, depth=0) -> list[str]:
    out = []
    for it in items:
        if isinstance(it, list):
            out += _md_list(it, depth + 1)
        else:
            out.append("  " * depth + "- " + it)
    return out


def _as_typed(path: str) -> str:
    """The rules file as a user would type it: a shipped game loaded from outside the checkout (an
    absolute path into the installed package) by its name, any other path as it was given."""
    from .shipped_games import games_folder
    folder = games_folder()
    if folder is not None and os.path.isabs(path) and os.path.dirname(path) == str(folder):
        return os.path.splitext(os.path.basename(path))[0]
    return path


def to_markdown(model: Model) -> str:
    lines: list[str] = [f"<!-- generated by `rulespec doc {_as_typed(model.path)}`: do not edit by hand -->", ""]
    for b in Rulebook(model).blocks():
        if b[0] == "h":
            lines += ["#" * b[1] + " " + b[2], ""]
        elif b[0] == "p":
            lines += [b[1], ""]
        elif b[0] == "ul":
            lines += _md_list(b[1]) + [""]
        elif b[0] == "table":
            lines.append("| " + " | ".join(b[1]) + " |")
            lines.append("|" + "---|" * len(b[1]))
            for row in b[2]:
                lines.append("| " + " | ".join(_md_inline(c) for c in row) + " |")
            lines.append("")
        elif b[0] == "mermaid":
            lines += ["```mermaid", b[1].rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def _html_inline(text: str) -> str:
    t = html.escape(text)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", t)


def _html_list(items) -> str:
    out = ["<ul>"]
    for it in items:
        if isinstance(it, list):
            out.append(_html_list(it))
        else:
            out.append(f"<li>{_html_inline(it)}</li>")
    out.append("</ul>")
    return "".join(out)


def to_html(model: Model) -> str:
    body = []
    for b in Rulebook(model).blocks():
        if b[0] == "h":
            body.append(f"<h{b[1]}>{_html_inline(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            body.append(f"<p>{_html_inline(b[1])}</p>")
        elif b[0] == "ul":
            body.append(_html_list(b[1]))
        elif b[0] == "table":
            head = "".join(f"<th>{_html_inline(h)}</th>" for h in b[1])
            rows = "".join("<tr>" + "".join(f"<td>{_html_inline(c)}</td>" for c in r) + "</tr>" for r in b[2])
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif b[0] == "mermaid":
            body.append(f'<pre class="mermaid">{html.escape(b[1])}</pre>')
    script = MERMAID_JS.read_text(encoding="utf-8") if MERMAID_JS.exists() else ""
    mermaid = (f"<script>{script}</script>\n<script>mermaid.initialize({{startOnLoad: true}});</script>"
               if script else "<!-- mermaid script not vendored: the diagram shows as text -->")
    style = ("body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.45}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:.25em .5em;"
             "vertical-align:top}th{background:#eee}code{background:#f4f4f4;padding:0 .2em}")
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(model.name)}: rules</title><style>{style}</style></head>\n<body>\n"
            + "\n".join(body) + f"\n{mermaid}\n</body></html>\n")
