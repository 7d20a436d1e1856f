"""The second pass: the body of every declaration, in a fixed order (the diagnostics' order
relies on it).  The small declarations are checked here -- variables and their initial values,
defs, rule values and their modifiers, phases, invariants, the game block; actions, effects and
triggers have their own modules.
"""
from __future__ import annotations

from .. import ast as A
from .. import types as T
from ..diagnostics import did_you_mean
from .vocabulary import COMBINE, LIMIT_UNIT

_children = A.children


class BodiesPass:
    """Mixin of the Checker: walks every declaration's body once the symbol table is full."""

    def check_bodies(self) -> None:
        for v in self.vars.values():
            if v.default is not None:
                t = self.expr(v.default, {})
                self.expect(v.default, t, v.type, f"the initial value of '{v.name}'")
        for d in self.defs.values():
            ptypes, rt = self.def_sigs[d.name]
            env = {p.name: t for p, t in zip(d.params, ptypes)}
            self.check_no_recursion(d)
            t = self.expr(d.body, env)
            self.expect(d.body, t, rt, f"the result of '{d.name}'")
        g = self.game
        if g is not None and g.score is not None:
            t = self.expr(g.score.expr, {g.score.var: T.PLAYER})
            self.expect(g.score.expr, t, T.INT, "a score")
        for a in self.actions.values():
            self.check_action(a)
        for p in self.phases.values():
            self.check_phase(p)
        self.check_init_order()
        for e in self.effects.values():
            self.check_effect(e)
        for t in self.triggers:
            self.check_trigger(t)
        for c in self.conversions.values():
            self.check_conversion(c)
        for r in self.rules_.values():
            ptypes, rt = self.rule_sigs[r.name]
            if r.combine.name not in COMBINE:
                self.error("unknown-name", r.combine.span, f"unknown way to combine '{r.combine.name}'",
                           "combine with sum, max or min (numbers), any or all (true/false)")
            elif not T.assignable(COMBINE[r.combine.name], rt) or rt == T.ANY:
                self.error("type-mismatch", r.combine.span, f"'{r.combine.name}' combines "
                                           f"{'numbers' if COMBINE[r.combine.name] == T.INT else 'true/false values'}, "
                                           f"not {rt}")
            self.expect(r.base, self.expr(r.base, {p.name: t for p, t in zip(r.params, ptypes)}), rt,
                        f"the base value of '{r.name}'")
        for m in self.modifies:
            self.check_modify(m)
        if g is not None and g.limit is not None:
            self.check_limit(g.limit)
        if g is not None and g.label is not None:
            if isinstance(g.label.expr, A.StrLit):  # a template: "{c.name} {c.number}"
                self.template(g.label.expr, {g.label.var: T.CARD})
            else:
                self.expect(g.label.expr, self.expr(g.label.expr, {g.label.var: T.CARD}), T.TEXT, "a card's label")
        for c in self.cards:
            for group in c.abilities:
                for z in group.zones:
                    info = self.use_zone(z.name, z.span)
                    if info is not None and not info.per_player:
                        self.error("per-player", z.span, f"zone '{z.name}' is shared: a card there has no owner to give abilities to",
                                   "name a per-player zone (while in equip, where equip is declared equip[player])")
                    elif info is not None and info.visibility == "others":
                        # its owner would use, or be asked about, a card whose face they cannot see
                        self.error("misuse", z.span, f"zone '{z.name}' is seen by every player but its owner, who cannot "
                                           f"use the abilities of cards they do not see",
                                   "give abilities in zones their owner sees (owner or public)")
                if group.when is not None:
                    self.expect(group.when, self.expr(group.when, {"owner": T.PLAYER, "self": T.CARD}), T.BOOL,
                                "when the abilities work")
        for inv in self.invariants:
            if inv.at is not None and inv.at.name not in self.phases:
                self.error("unknown-name", inv.at.span, f"unknown phase '{inv.at.name}'", did_you_mean(inv.at.name, self.phases))
            t = self.expr(inv.expr, {})
            self.expect(inv.expr, t, T.BOOL, "an invariant")

    def check_init_order(self) -> None:
        """A variable's initial value may use only the variables declared above it:
        they are set in order, when the game starts."""
        order = list(self.vars)
        for i, v in enumerate(self.vars.values()):
            if v.default is None:
                continue
            for name, span in self.vars_read(v.default, set()):
                if name in order and order.index(name) >= i:
                    what = "itself" if name == v.name else f"'{name}', which is declared after it"
                    self.error("type-mismatch", span, f"the initial value of '{v.name}' uses {what}",
                               "an initial value may only use the variables declared above it")
                    break

    def vars_read(self, e, seen_defs: set):
        """(name, span) of every variable an expression reads, also through the defs it calls."""
        stack = [e]
        while stack:
            n = stack.pop()
            ref = self.refs.get(n)
            if ref and ref[0] in ("var", "pvar"):
                yield ref[1].name, n.span
            if isinstance(n, A.Call) and n.func in self.defs and n.func not in seen_defs:
                seen_defs.add(n.func)
                for name, _ in self.vars_read(self.defs[n.func].body, seen_defs):
                    yield name, n.span
            stack.extend(_children(n))

    def check_no_recursion(self, d: A.DefDecl) -> None:
        # A def may call only defs declared before it: no recursion, so every evaluation ends.
        order = list(self.defs)
        mine = order.index(d.name)

        def visit(e):
            if isinstance(e, A.Call) and e.func in self.defs and order.index(e.func) >= mine:
                self.error("unknown-name", e.span, f"'{d.name}' calls '{e.func}', which is not declared before it",
                           "a function may only call functions declared above it (no recursion)")
            for child in _children(e):
                visit(child)
        visit(d.body)

    def check_modify(self, m: A.ModifyDecl) -> None:
        r = self.rules_.get(m.rule.name)
        if r is None:
            self.error("unknown-name", m.rule.span, f"unknown rule value '{m.rule.name}'", did_you_mean(m.rule.name, self.rules_))
            return
        ptypes, rt = self.rule_sigs[r.name]
        if len(m.args) != len(r.params):
            self.error("arity", m.span, f"'{r.name}' takes {len(r.params)} argument(s), not {len(m.args)}")
        env = {**self.ability_env(m), **{n: t for n, t in zip(m.args, ptypes)}}
        if m.when is not None:
            self.expect(m.when, self.expr(m.when, env), T.BOOL, "a condition")
        self.expect(m.value, self.expr(m.value, env), rt, f"a contribution to '{r.name}'")

    def check_phase(self, p: A.PhaseDecl) -> None:
        for blk in (p.enter, p.after, p.exit):
            if blk is not None:
                self.block(blk, {})
        for r in p.requires:
            self.expect(r.cond, self.expr(r.cond, {}), T.BOOL, "a requirement")
        if p.actor is not None:
            self.expect(p.actor, self.expr(p.actor, {}), T.PLAYER, "the actor")
        for a in p.actions:
            if a.name not in self.actions:
                self.error("unknown-name", a.span, f"unknown action '{a.name}'", did_you_mean(a.name, self.actions))
            elif self.actions[a.name].respond_to:
                self.error("misuse", a.span, f"'{a.name}' is a response: it is offered in response windows, not by a phase",
                           "remove it from the phase's actions")
        if p.end_when is not None:
            self.expect(p.end_when, self.expr(p.end_when, {}), T.BOOL, "an end condition")
        for n in p.nexts:
            if n.target.name not in self.phases:
                self.error("unknown-name", n.target.span, f"unknown phase '{n.target.name}'", did_you_mean(n.target.name, self.phases))
            if n.cond is not None:
                self.expect(n.cond, self.expr(n.cond, {}), T.BOOL, "a condition")
        if p.nexts and all(n.cond is not None and not _always(n.cond) for n in p.nexts):
            self.warning("unguarded-next", p.nexts[-1].span, f"every 'next' of phase '{p.name}' has a condition: when none holds "
                                           "as the phase ends, the game stops with an error",
                         "end the list with a 'next PHASE' without 'when', taken when no condition holds")
        if p.actions and p.after is None and p.end_when is None:
            self.warning("phase-no-exit", p.span, f"phase '{p.name}' has actions but no 'after' and no 'end when'",
                         "without them the same player acts forever")

    def check_limit(self, limit: A.Limit) -> None:
        """``limit N decisions [winners W]``: a count of at least 1, of decisions, and winners as
        ``end game`` takes them."""
        if limit.unit.name != LIMIT_UNIT:
            self.error("type-mismatch", limit.unit.span, f"a limit counts {LIMIT_UNIT}, not '{limit.unit.name}'",
                       f"write: limit {limit.count} {LIMIT_UNIT}; to stop after a number of hands or rounds, "
                       "count them in a variable and 'end game' when it is reached")
        if limit.count < 1:
            self.error("type-mismatch", limit.span, f"a game limited to {limit.count} {LIMIT_UNIT} could not start",
                       f"give at least 1 (limit 5000 {LIMIT_UNIT})")
        if limit.winners is not None:
            self.check_winners(limit.winners, {})

    def check_winners(self, winners: A.Expr, env: dict) -> None:
        t = self.expr(winners, env)
        if t != T.PLAYER and not T.assignable(T.PLAYERS, t):  # [] (nobody) is a list of players too
            self.error("type-mismatch", winners.span, f"winners must be a player or a list of players, not {t}")


def _always(cond: A.Expr) -> bool:
    """A condition written as plain 'true' (a 'next ... when true' is a fallback too)."""
    return isinstance(cond, A.BoolLit) and cond.value
