"""The response stack and events: effects (their fields and blocks), the events a file declares
and the triggers that listen to them.
"""
from __future__ import annotations

from .. import ast as A
from .. import types as T
from ..diagnostics import did_you_mean
from .vocabulary import BUILTIN_EVENTS, ENTRY_FIELDS


class EffectsPass:
    """Mixin of the Checker: checks effects, events' parameters and triggers."""

    def effect_or_tag(self, ident: A.Ident) -> None:
        if ident.name not in self.effects and ident.name not in self.effect_tags:
            self.error("unknown-name", ident.span, f"unknown effect or effect tag '{ident.name}'",
                       did_you_mean(ident.name, list(self.effects) + list(self.effect_tags)))

    def check_effect(self, e: A.EffectDecl) -> None:
        env = {"this": T.ENTRY}
        fields: dict = {}
        for f in e.fields:
            if f.name in fields or f.name in ENTRY_FIELDS:
                self.error("duplicate", f.span, f"effect '{e.name}' already has a field '{f.name}'")
                continue
            t = self.resolve_type(f.type)
            fields[f.name] = t
            if f.default is not None:
                self.expect(f.default, self.expr(f.default, {}), t, f"the default of field '{f.name}'")
            elif t.name not in T.NULLABLE and t.name not in ("int", "bool", "text", "list", "enum"):
                self.error("misuse", f.span, f"field '{f.name}' needs a default value")
        if e.ask is not None:
            self.expect(e.ask, self.expr(e.ask, env), T.PLAYERS, "the players a window asks")
        for blk in (e.resolve, e.cancelled):
            if blk is not None:
                self.block(blk, env)

    def event_params(self, name: str) -> list:
        if name in BUILTIN_EVENTS:
            return list(BUILTIN_EVENTS[name])
        d = self.events[name]
        return [(p.name, self.resolve_type(p.type)) for p in d.params]

    def check_trigger(self, t: A.TriggerDecl) -> None:
        if t.event.name not in self.events and t.event.name not in BUILTIN_EVENTS:
            self.error("unknown-name", t.event.span, f"unknown event '{t.event.name}'",
                       did_you_mean(t.event.name, list(self.events) + list(BUILTIN_EVENTS)))
            return
        if t.timing == "before" and t.event.name in BUILTIN_EVENTS:
            self.error("misuse", t.span, f"'{t.event.name}' is raised by the engine after it happens: a trigger can run "
                               f"'on' or 'after' it, not 'before'")
        env = {**self.ability_env(t), **dict(self.event_params(t.event.name)), "$trigger": t.timing}
        if t.for_expr is not None:
            self.expect(t.for_expr, self.expr(t.for_expr, env), T.PLAYERS, "the players of a trigger")
            env[t.for_var] = T.PLAYER
        if t.when is not None:
            self.expect(t.when, self.expr(t.when, env), T.BOOL, "a trigger condition")
        if t.optional is not None:
            self.check_optional_trigger(t, env)
        self.block(t.body, env)

    def check_optional_trigger(self, t: A.TriggerDecl, env: dict) -> None:
        """'optional "prompt"' asks someone: the card's owner, or the player of a 'for'."""
        if t not in self.abilities and t.for_var is None:
            self.error("misuse", t.optional.span, f"optional trigger '{t.name}' has nobody to ask: it is neither carried by a "
                                        f"card (whose owner is asked) nor run 'for' a player",
                       "write it inside a card's 'while in' group, or add 'for p in players' to it")
            return
        self.template(t.optional, env)
        self.warn_optional_reads_self(t)
