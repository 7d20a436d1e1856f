"""The English of an expression keeps the grouping of its source (rulespec/lang/english.py).

The parser drops parentheses, so the English must put them back wherever the words alone
could be grouped another way.  Besides worked examples, a property test reads the English
back with a strict reader (parentheses group; 'and' and 'or' never mix without them, nor
'plus'/'minus' with 'times') and checks that it means what the source means.
"""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulespec.lang.checker import check_text
from rulespec.lang.english import English

GAME = '''\
game "Tiny" {
  players 2..2
  start play
  cards start in deck
}
property value: int
card "one" { value: 1 copies: 4 }
zone deck: pile hidden
zone hand[player]: set owner
option wide: bool = false
var n: int = 0
action pass() { effect { n += 1 } }
phase play { actions pass  end when n > 3  next over }
phase over { enter { end game } }
'''


def english_of(body: str, result: str = "bool") -> str:
    """The English of `body` as the body of a def taking a, b, c (int) and x, y, z (bool)."""
    model = check_text(GAME + f"def f(a: int, b: int, c: int, x: bool, y: bool, z: bool): {result} = {body}\n",
                       "tiny.rules")
    return English(model).expr(model.defs["f"].body)


@pytest.mark.parametrize("source, english", [
    ("x and (y or z)", "x and (y or z)"),
    ("(x and y) or z", "(x and y) or z"),
    ("x or y and z", "x or (y and z)"),          # 'and' binds tighter: the English says so
    ("x and y and z", "x and y and z"),
    ("not (x and y)", "not (x and y)"),
    ("not x and y", "not x and y"),
    ("a + 1 > b and x", "a plus 1 is more than b and x"),
    ("not (a == b)", "a is not b"),
    ("not wide", "the wide option is off"),
])
def test_boolean_grouping(source, english):
    assert english_of(source) == english


@pytest.mark.parametrize("source, english", [
    ("(a + 1) * 2", "(a plus 1) times 2"),
    ("a + 1 * 2", "a plus (1 times 2)"),
    ("a - (b - c)", "a minus (b minus c)"),
    ("a - b - c", "a minus b minus c"),
    ("a + (b + c)", "a plus b plus c"),           # the same either way
    ("a - (b + c)", "a minus (b plus c)"),
    ("-(a + b)", "minus (a plus b)"),
    ("(if x then a else b) + 1", "(a if x, otherwise b) plus 1"),
    # a compound value before "if" is bracketed: "a plus 1 if x" could be "a plus (1 if x, ...)"
    ("if x then a + 1 else b", "(a plus 1) if x, otherwise b"),
    ("100 * a * (if x then 2 else 1)", "100 times a times (2 if x, otherwise 1)"),
    ("if x then 100 * a * 2 else b", "(100 times a times 2) if x, otherwise b"),
    ("(if x then 10 * a else 5) * 3", "((10 times a) if x, otherwise 5) times 3"),
    ("if x then a else if y then b + 1 else c", "a if x, otherwise (b plus 1) if y, otherwise c"),
    ("count(deck) + 1", "the number of cards in the deck plus 1"),
    ("top(deck, a - 1)", "the top (a minus 1) cards of the deck"),
    ("(count p in players where a > 0) + 1", "(the number of p in the players such that a is more than 0) plus 1"),
])
def test_arithmetic_grouping(source, english):
    assert english_of(source, "int" if not source.startswith("top") else "list[card]") == english


def test_a_condition_and_a_body_are_both_kept_whole():
    assert english_of("any p in players where x or y: a > 0") == \
        "some p in the players meets: (x or y) and a is more than 0"


# ---------------------------------------------------------------------- reading the English back
_CMP = {"is more than": ">", "is less than": "<", "is at least": ">=", "is at most": "<=",
        "is not": "!=", "is": "=="}
_TOKEN = re.compile(r"\(|\)|is more than|is less than|is at least|is at most|is not|is|plus|minus|times"
                    r"|and|or|not|[abcxyz]|\d+")


class StrictReader:
    """Reads the English the way a careful reader would, with no precedence between words
    that look alike: 'x or y and z' and 'a plus b times c' are refused, not guessed."""

    def __init__(self, text: str):
        self.toks = _TOKEN.findall(text)
        assert "".join(self.toks).replace(" ", "") == text.replace(" ", ""), f"unexpected words in {text!r}"
        self.i = 0

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want=None):
        t = self.peek()
        if want is not None and t != want:
            raise SyntaxError(f"expected {want!r} at {self.i} in {' '.join(self.toks)}")
        self.i += 1
        return t

    def read(self):
        v = self.boolean()
        if self.peek() is not None:
            raise SyntaxError(f"left over: {self.toks[self.i:]}")
        return v

    def boolean(self):
        first = self.clause()
        op = self.peek() if self.peek() in ("and", "or") else None
        if op is None:
            return first
        parts = [first]
        while self.peek() in ("and", "or"):
            if self.take() != op:
                raise SyntaxError("'and' and 'or' mixed without parentheses")
            parts.append(self.clause())
        return all(parts) if op == "and" else any(parts)

    def clause(self):
        if self.peek() == "not":
            self.take()
            if self.peek() == "(":
                self.take()
                v = self.boolean()
                self.take(")")
                return not v
            return not self.bool_atom()
        if self.peek() == "(" and self._bool_group():
            self.take()
            v = self.boolean()
            self.take(")")
            return v
        if self.peek() in ("x", "y", "z"):
            return self.bool_atom()
        left = self.term()
        op = self.take()
        if op not in _CMP:
            raise SyntaxError(f"expected a comparison, got {op!r}")
        right = self.term()
        return {"==": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                ">": left > right, ">=": left >= right}[_CMP[op]]

    def _bool_group(self) -> bool:
        """Does the '(' here open a condition (rather than a number)?"""
        depth, j = 0, self.i
        while j < len(self.toks):
            t = self.toks[j]
            depth += t == "("
            depth -= t == ")"
            if depth == 1 and (t in ("and", "or", "not", "x", "y", "z") or t in _CMP):
                return True
            if depth == 0:
                break
            j += 1
        return False

    def bool_atom(self):
        return self.env[self.take()]

    def term(self):
        first = self.factor()
        ops = ("plus", "minus", "times")
        if self.peek() not in ops:
            return first
        family = "times" if self.peek() == "times" else "sum"
        v = first
        while self.peek() in ops:
            op = self.take()
            if ("times" if op == "times" else "sum") != family:
                raise SyntaxError("'plus'/'minus' and 'times' mixed without parentheses")
            w = self.factor()
            v = v + w if op == "plus" else v - w if op == "minus" else v * w
        return v

    def factor(self):
        t = self.take()
        if t == "minus":
            return -self.factor()
        if t == "(":
            v = self.term()
            self.take(")")
            return v
        if t in ("a", "b", "c"):
            return self.env[t]
        if t.isdigit():
            return int(t)
        raise SyntaxError(f"expected a number, got {t!r}")


INTS = st.recursive(
    st.sampled_from(["a", "b", "c", "1", "2"]),
    lambda sub: st.one_of(
        st.tuples(sub, st.sampled_from(["+", "-", "*"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda s: f"(-{s})")),
    max_leaves=5)
BOOLS = st.recursive(
    st.one_of(st.sampled_from(["x", "y", "z"]),
              st.tuples(INTS, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), INTS)
              .map(lambda t: f"({t[0]} {t[1]} {t[2]})")),
    lambda sub: st.one_of(
        st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda s: f"(not {s})")),
    max_leaves=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BOOLS, st.tuples(*[st.integers(-3, 3)] * 3), st.tuples(*[st.booleans()] * 3))
def test_the_english_means_what_the_source_means(source, ints, bools):
    english = english_of(source)
    env = dict(zip("abc", ints)) | dict(zip("xyz", bools))
    reader = StrictReader(english)
    reader.env = env
    want = eval(source, {}, env)  # fully parenthesised: Python's precedence does not matter
    assert reader.read() == want, f"{source!r} reads {english!r}"


def test_a_quantifier_over_nothing_reads_as_what_it_gives():
    assert english_of("(count p in players where false) + a", "int") == "0 plus a"
    assert english_of("(any p in players where false) or x") == "false or x"


def test_not_sees_and_not_revealed_read_as_negated_verbs():
    """`not sees(p, c)` is "p does not see the face of c", `not revealed(c)` "c is not face up"."""
    from rulespec.lang.checker import check_text
    from rulespec.tools.docs import to_markdown
    model = check_text("""game "N" { players 2..2  cards start in stock }
zone stock: pile hidden
zone hand[player]: pile others
card "a" { copies: 2 }
action peek(c: card from stock where not revealed(c)) {
  require not sees(active, c) else "seen"
  effect { end game }
}
phase go { actions peek  end when false  next go }
""", "n.rules")
    text = to_markdown(model)
    assert "c is not face up for everyone" in text and "the active player does not see the face of c" in text
    assert "not c is" not in text and "not the active player sees" not in text
