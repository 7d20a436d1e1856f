"""Actions and conversions: the choices they offer (a player, a number, a card, a set of cards),
their requirements and texts.
"""
from __future__ import annotations

from .. import ast as A
from .. import types as T
from ..diagnostics import did_you_mean


class ChoicesPass:
    """Mixin of the Checker: checks actions, conversions and every choice (also a 'choose')."""

    def check_param(self, p: A.ActionParam, env: dict) -> T.Type:
        """Check one choice (an action parameter, a 'choose', a conversion's cards) in env, which
        holds the choices before it; returns the type of the chosen value."""
        if p.kind == "int":
            t = self.expr(p.domain, env)
            if not (isinstance(p.domain, A.Range) or t == T.list_of(T.INT) or t == T.ANY):
                self.error("out-of-range", p.domain.span, "an int choice needs a range, like 0..5")
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.INT}), T.BOOL, "a condition")
            return T.INT
        if p.kind == "bool":
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.BOOL}), T.BOOL, "a condition")
            return T.BOOL
        if p.kind == "enum":
            if p.same.name not in self.enums:
                self.error("unknown-name", p.same.span, f"unknown type '{p.same.name}' for a choice",
                           did_you_mean(p.same.name, list(self.enums) + ["int", "player", "players", "card",
                                                                         "cards", "use"]))
                return T.ANY
            t = T.enum_type(p.same.name)
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: t}), T.BOOL, "a condition")
            return t
        if p.kind == "player":
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: T.PLAYER}), T.BOOL, "a condition")
            return T.PLAYER
        if p.kind == "players":
            self.expect(p.domain, self.expr(p.domain, env), T.PLAYERS, "the players to choose from")
            self.check_size(p, env)
            return T.PLAYERS
        if p.kind in ("card", "use"):
            self.expect_cards(p.domain, self.zexpr(p.domain, env, False))
            if p.by_position:
                self.check_by_position(p)
            t = T.CARD if p.kind == "card" else T.USE
            if p.kind == "use" and p.role not in self.card_names and \
                    p.role not in {c.role for c in self.conversions.values()}:
                self.error("unknown-name", p.span, f"no card and no conversion is called '{p.role}'",
                           did_you_mean(p.role, [c.name for c in self.cards]))
            if p.cond is not None:
                self.expect(p.cond, self.expr(p.cond, {**env, p.name: t}), T.BOOL, "a condition")
            return t
        self.expect_cards(p.domain, self.zexpr(p.domain, env, False))
        self.check_size(p, env)
        if p.by_position:
            self.check_by_position(p)
        for sel in (p.same, p.distinct):
            if sel is not None and sel.name not in self.properties and sel.name != "name":
                self.error("unknown-name", sel.span, f"unknown card property '{sel.name}'",
                           did_you_mean(sel.name, self.properties))
        if p.same is not None and p.distinct is not None:
            self.error("misuse", p.span, "a set cannot be both 'same' and 'distinct'")
        if p.sum_of is not None:
            prop, target = p.sum_of
            if prop.name not in self.properties:
                self.error("unknown-name", prop.span, f"unknown card property '{prop.name}'", did_you_mean(prop.name, self.properties))
            elif self.properties[prop.name].type != T.INT:
                self.error("misuse", prop.span, f"'sum {prop.name} == ...' adds up a number property; "
                                      f"'{prop.name}' is {self.properties[prop.name].type}")
            self.expect(target, self.expr(target, env), T.INT, "the total a set's values must add up to")
            if p.same is not None or p.distinct is not None:
                self.error("misuse", p.span, "a set with 'sum' cannot also be 'same' or 'distinct'",
                           "add the condition as a 'require' on the action")
        if p.wild is not None:
            var, cond = p.wild
            self.expect(cond, self.expr(cond, {**env, var: T.CARD}), T.BOOL, "a wild-card condition")
            if p.same is None:
                self.error("misuse", p.span, "'wild' only goes with 'same' (wild cards join a group of alike cards)")
        return T.CARDS

    def check_size(self, p: A.ActionParam, env: dict) -> None:
        if p.size is not None:
            st = self.expr(p.size, env)
            if st not in (T.INT, T.ANY, T.list_of(T.INT)) and not isinstance(p.size, A.Range):
                self.error("out-of-range", p.size.span, f"size must be a number, a range or a list of numbers, not {st}")

    def check_action(self, a: A.ActionDecl) -> None:
        env = self.ability_env(a)
        for p in a.params:
            if p.name in env:
                self.error("duplicate", p.span, f"parameter '{p.name}' is declared twice")
            env[p.name] = self.check_param(p, env)
        for ph in a.offered_in:
            if ph.name not in self.phases:
                self.error("unknown-name", ph.span, f"unknown phase '{ph.name}'", did_you_mean(ph.name, self.phases))
            elif a.respond_to:
                self.error("misuse", ph.span, f"'{a.name}' is a response: it is offered in response windows, not by a phase")
        self.check_choice_count(a)
        for r in a.requires:
            self.expect(r.cond, self.expr(r.cond, env), T.BOOL, "a requirement")
            if isinstance(r.cond, A.BoolLit) and r.cond.value is False:
                self.warning("never-legal", r.span, f"action '{a.name}' can never be legal: it requires false")
        self.warn_face_down_reads(a)
        for ident in a.respond_to:
            self.effect_or_tag(ident)
        if a.text is not None:
            self.template(a.text, env)
        if a.effect is not None:
            self.block(a.effect, dict(env))

    def check_conversion(self, c: A.ConversionDecl) -> None:
        env = {"owner": T.PLAYER, **self.ability_env(c)}
        if c.role not in {card.name for card in self.cards}:
            self.warning("conversion-only-card", c.span, f"no card is called '{c.role}': only this conversion makes one",
                         did_you_mean(c.role, [card.name for card in self.cards]))
        if c.source is not None:
            if c.source.kind not in ("card", "cards"):
                self.error("misuse", c.source.span, "a conversion is made 'from' a card or cards")
            env[c.source.name] = self.check_param(c.source, env)
        for r in c.requires:
            self.expect(r.cond, self.expr(r.cond, env), T.BOOL, "a requirement")
        seen = set()
        for name, e in c.props:
            info = self.properties.get(name)
            if info is None:
                self.error("unknown-name", e.span, f"unknown card property '{name}'", did_you_mean(name, self.properties))
                continue
            if name in seen:
                self.error("duplicate", e.span, f"property '{name}' is given twice")
            seen.add(name)
            self.expect(e, self.expr(e, env), info.type, f"property '{name}'")
        if c.text is not None:
            self.template(c.text, env)
