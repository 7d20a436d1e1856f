"""One step of 'steps:' (play, illegal, fails, legal, legal_exactly, legal_count, check, finish); a
'position:' step goes to _Positions and an 'expect:' step to _Expectations."""
from __future__ import annotations

from typing import Optional

import yaml

from rulespec.lang.diagnostics import did_you_mean
from rulespec.tools.scenario.expectations import _Expectations
from rulespec.tools.scenario.positions import _Positions
from rulespec.tools.scenario.reading import CHECKS, STEP_EXTRA_KEYS, STEP_KEYS
from rulespec.tools.scenario.terms import _Terms

from interpreter.compiler import player_name
from interpreter.errors import EngineError, IllegalActionError, RuleRuntimeError
from interpreter.explain import match_action
from interpreter.machine import idle_secret_ask


class _Steps:
    """One step of 'steps:': its key decides what it does."""

    def __init__(self, terms: _Terms, positions: _Positions, expectations: _Expectations):
        self.terms, self.read, self.session = terms, terms.read, terms.session
        self.positions, self.expectations = positions, expectations
        self.fail = terms.fail
        self.stopped = False  # a 'fails' step met the rules error it expected: the game stops there

    @property
    def st(self):
        return self.session.st

    def run(self, node: yaml.Node):
        items = self.read.mapping(node, "a step", STEP_KEYS + STEP_EXTRA_KEYS)
        main = [(k, kn, v) for k, kn, v in items if k in STEP_KEYS]
        extra = {k: (kn, v) for k, kn, v in items if k not in STEP_KEYS}
        if len(main) != 1:
            self.fail(node, "a step needs exactly one of: " + ", ".join(STEP_KEYS)
                      + (f" (this one has {', '.join(k for k, _, _ in main)})" if main else ""))
        key, knode, v = main[0]
        if "because" in extra and key not in ("illegal", "fails"):
            self.fail(extra["because"][0], "'because' goes with an 'illegal' or a 'fails' step")
        if self.stopped:
            self.fail(knode, "a 'fails' step is the last: the game stopped at the rules error it expected")
        try:
            self.dispatch(key, v, extra)
        except EngineError as e:  # (the engine failed where the step did not expect it: say where)
            self.fail(knode, f"{key}: {e}")

    def dispatch(self, key: str, v: yaml.Node, extra: dict):
        if key not in ("position", "play"):
            self.decline_idle_asks()
        if key == "play":
            for an in self.read.seq(v, "play", scalar_ok=True):
                self.play(an)
        elif key == "illegal":
            because = self.read.text(extra["because"][1], "because") if "because" in extra else None
            for an in self.read.seq(v, "illegal", scalar_ok=True):
                self.illegal(an, because)
        elif key == "fails":
            because = self.read.text(extra["because"][1], "because") if "because" in extra else None
            self.fails(v, because)
        elif key == "legal":
            for an in self.read.seq(v, "legal", scalar_ok=True):
                self.resolve(an)
        elif key == "legal_exactly":
            self.legal_exactly(v)
        elif key == "legal_count":
            self.legal_count(v)
        elif key == "position":
            self.positions.set(v)
        elif key == "check":
            self.check(v)
        elif key == "finish":
            self.finish(v)
        else:
            self.expectations.check(v)

    # ------------------------------------------------------------ actions
    def legal_now(self, node: yaml.Node) -> list:
        try:
            return self.st.legal_action_strings()
        except EngineError as e:
            self.fail(node, f"listing the legal actions failed: {e}")

    def action_text(self, node: yaml.Node) -> str:
        return " ".join(self.read.text(node, "an action").split())

    def resolve(self, node: yaml.Node) -> str:
        """The legal action text written at node (cards after ' + ' in any order), or a failure."""
        text = self.action_text(node)
        found = match_action(text, self.legal_now(node))
        if found is None:
            self.fail(node, self.st.explain_illegal(text))
        return found

    def play(self, node: yaml.Node):
        self.decline_idle_asks()
        action = self.resolve(node)
        try:
            self.st.apply(action)
        except EngineError as e:
            self.fail(node, f"'{action}': {e}")

    def fails(self, node: yaml.Node, because: Optional[str]):
        """A legal action whose effect meets an error of the rules (a bug of the rules file the
        scenario pins down: a move beyond a zone's capacity, ...), its message mentioning because."""
        self.decline_idle_asks()
        action = self.resolve(node)
        reason = self.refusal(node, action, RuleRuntimeError, "meet an error of the rules")
        self.stopped = True
        self.mentions(node, because, reason, "error")

    def refusal(self, node: yaml.Node, text: str, expected: type, what: str) -> str:
        """The message of the error of kind `expected` that applying text meets (else a failure)."""
        try:
            self.st.apply(text)
        except expected as e:
            return str(e)
        except EngineError as e:
            self.fail(node, f"'{text}': {e}")
        self.fail(node, f"expected '{text}' to {what}, but the engine applied it")

    def mentions(self, node: yaml.Node, because: Optional[str], reason: str, what: str):
        if because is not None and because.lower() not in reason.lower():
            self.fail(node, f"expected the {what} to mention '{because}', got: {reason}")

    def decline_idle_asks(self):
        """'face_down_asks: decline': answer "no" for every player asked about abilities of
        face-down cards they do not hold."""
        if self.session.decline_idle_asks:
            while idle_secret_ask(self.st):
                self.st.apply("no")

    def illegal(self, node: yaml.Node, because: Optional[str]):
        text = self.action_text(node)
        st = self.st
        found = match_action(text, self.legal_now(node))
        if found is not None:
            self.fail(node, f"expected '{text}' to be illegal, but it is legal for {player_name(st.active)} in phase '{st.phase}'")
        before = st.to_json()
        reason = self.refusal(node, text, IllegalActionError, "be illegal")
        if st.to_json() != before:
            self.fail(node, f"the illegal action '{text}' changed the state")
        self.mentions(node, because, reason, "reason")

    def legal_exactly(self, node: yaml.Node):
        want = [self.resolve(an) for an in self.read.seq(node, "legal_exactly", scalar_ok=True)]
        got = self.legal_now(node)
        extra = [a for a in got if a not in want]
        if extra:
            shown = ", ".join(f"'{a}'" for a in extra[:6]) + (", ..." if len(extra) > 6 else "")
            self.fail(node, f"legal_exactly: {len(extra)} more action{'s are' if len(extra) != 1 else ' is'} legal: {shown}")

    def legal_count(self, node: yaml.Node):
        want = self.read.integer(node, "legal_count")
        got = self.st.legal_action_strings()
        if len(got) != want:
            shown = ", ".join(f"'{a}'" for a in got[:6]) + (", ..." if len(got) > 6 else "")
            self.fail(node, f"legal_count: expected {want}, got {len(got)} ({shown or 'none'})")

    # ------------------------------------------------------------ whole-game checks
    def check(self, node: yaml.Node):
        """The whole-game checks of rulespec/tools/fuzzing/checks.py on the state now (what fuzzing checks)."""
        from rulespec.tools.fuzzing.checks import _first_difference, replay, state_problems
        wanted = set()
        for n in self.read.seq(node, "check", scalar_ok=True):
            name = self.read.text(n, "check")
            if name == "all":
                wanted.update(c for c in CHECKS if c != "replay" or not self.session.positioned)
            elif name in CHECKS:
                if name == "replay" and self.session.positioned:
                    self.fail(n, "check: replay needs a game played from the start (this scenario set a position)")
                wanted.add(name)
            else:
                hint = did_you_mean(name, CHECKS)
                self.fail(n, f"unknown check '{name}'" + (f"; {hint}" if hint else f" (checks: all, {', '.join(CHECKS)})"))
        # state_problems names its checks a little differently from the scenario keys
        group = {"cards": "cards", "stuck": "legal", "turn": "legal", "round trip": "round_trip", "secrecy": "secrecy"}
        try:
            problems = [msg for kind, msg in state_problems(self.st, round_trip="round_trip" in wanted,
                                                            secrecy="secrecy" in wanted)
                        if group.get(kind, "invariants" if kind.startswith("invariant") else kind) in wanted]
            if not problems and "replay" in wanted:
                again = replay(self.session.game, self.st)
                a, b = self.st.to_json(), again.to_json()
                if a != b:
                    problems.append("replaying the seed and the history gives a different state ("
                                    + _first_difference(a, b) + ")")
        except EngineError as e:
            self.fail(node, f"check: {e}")
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            self.fail(node, f"check: {problems[0]}{more}")

    def finish(self, node: yaml.Node):
        """Take the first legal action at every decision until the game is over; fail if it
        is not over within the given number of decisions."""
        limit = self.read.integer(node, "finish")
        if limit < 1:
            self.fail(node, "finish: give the most decisions to play, at least 1")
        st = self.st
        for _ in range(limit):
            if st.is_terminal():
                return
            legal = self.legal_now(node)
            if not legal:
                self.fail(node, f"finish: no legal action in phase '{st.phase}' and the game is not over")
            try:
                st.apply(legal[0])
            except EngineError as e:
                self.fail(node, f"finish: '{legal[0]}': {e}")
        if not st.is_terminal():
            self.fail(node, f"finish: the game did not end within {limit} decisions (taking the first legal action)")
