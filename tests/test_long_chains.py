"""Long chains of operators at one level (a + b + ... , a and b and ...) are flat, not nested:
no nesting limit for them, and every pass (parser, checker, English, generated code) handles
thousands of terms without a RecursionError and in linear time.  True nesting keeps its limit."""
from __future__ import annotations

import pytest

from interpreter import Game, load_text
from measure import benchmark_module, python_calls
from rulespec.lang import ast as A
from rulespec.lang.checker import check_text
from rulespec.lang.diagnostics import RulesError
from rulespec.tools.docs import to_markdown
from rulespec.lang.english import English
from rulespec.lang.parser import MAX_DEPTH, parse_expr

LARGE_FILES = benchmark_module("large_files")  # the benchmark's game, whose score is the value of a def


def game_text(expr: str) -> str:
    """A game whose score is the value of expr (an int; the var x is 1, the zone deck holds a card)."""
    return LARGE_FILES.game_text("Chains", f'card "A" {{}}\ndef big(): int = {expr}', "big()")


DEF_LINE = game_text("").split("\n").index("def big(): int = ") + 1


def play_out(expr: str, fast: bool = True) -> int:
    """The value of expr (an int), as the game's score once it has been played."""
    game = load_text(game_text(expr), "chains.rules")
    if not fast:  # the checked versions only: each operator through its checking helper
        game = Game(game.model, game.path, fused=False)
    st = game.new_state(players=2, seed=1)
    st.apply("stop")
    assert st.is_terminal()
    return st.scores()[0]


@pytest.mark.parametrize("n", [MAX_DEPTH + 1, 10_000])
def test_a_long_sum_checks_and_adds_up(n):
    assert play_out(" + ".join(["x"] * n)) == n


def test_a_long_chain_of_each_level_evaluates_from_the_left():
    n = 500
    assert play_out(" - ".join(["x"] * n)) == 1 - (n - 1)
    assert play_out("100" + " * 3 / 3" * n + " % 7 + " + " * ".join(["x"] * n)) == 100 % 7 + 1
    assert play_out("if " + " and ".join(["x == 1"] * n) + " then 1 else 0") == 1
    assert play_out("if " + " or ".join(["x == 2"] * n) + " then 1 else 0") == 0


def test_and_stops_at_the_first_false_however_long_the_chain():
    # 1 / (x - 1) would divide by zero: 'and' never gets there (the chain runs past a segment)
    conds = ["x == 2"] + ["1 / (x - 1) == 0"] * 100
    assert play_out("if " + " and ".join(conds) + " then 1 else 0") == 0


@pytest.mark.parametrize("fast", [True, False])
def test_a_runtime_error_deep_in_a_long_chain_points_at_its_operator(fast):
    from interpreter import RuleRuntimeError
    terms = ["x"] * 60 + ["x / (x - 1)"] + ["x"] * 60
    with pytest.raises(RuleRuntimeError, match="division by zero") as info:
        play_out(" + ".join(terms), fast=fast)
    assert info.value.span.line == DEF_LINE
    assert info.value.span.col == len("def big(): int = ") + 1 + 60 * len("x + ")  # where 'x / (x - 1)' starts


def test_a_long_chain_of_lists_joins_them():
    model = check_text(game_text("count(" + " + ".join(["deck"] * 300) + ")"), "chains.rules")
    assert English(model).expr(model.defs["big"].body) == \
        "the number of cards in (" + " together with ".join(["the deck"] * 300) + ")"
    assert play_out("count(" + " + ".join(["deck"] * 300) + ")") == 300


def test_parentheses_around_a_left_operand_do_not_nest():
    e = parse_expr("(" * 1000 + "x" + " + x)" * 1000)
    assert isinstance(e, A.Chain) and len(e.operands) == 1001


def test_true_nesting_beyond_the_limit_is_still_an_error():
    deep = "(x + " * (MAX_DEPTH + 5) + "x" + ")" * (MAX_DEPTH + 5)
    with pytest.raises(RulesError) as info:
        check_text(game_text(deep), "chains.rules")
    d = info.value.diagnostics[0]
    assert d.message == f"this nests more than {MAX_DEPTH} levels deep"
    assert d.span.line == DEF_LINE and d.hint


def test_mixed_levels_are_real_nesting():
    e = parse_expr("a + b * c - d")
    assert e.ops == ("+", "-") and isinstance(e.operands[1], A.Chain) and e.operands[1].ops == ("*",)
    model = check_text(game_text("(x - x) - (x - x) + x * (x + x)"), "chains.rules")
    assert English(model).expr(model.defs["big"].body) == \
        "the x minus the x minus (the x minus the x) plus (the x times (the x plus the x))"


def test_type_errors_in_a_chain_point_at_the_operand():
    with pytest.raises(RulesError) as info:
        check_text(game_text('x + x + "a" + x'), "chains.rules")
    messages = [(d.message, d.span.col) for d in info.value.diagnostics]
    start = len("def big(): int = ") + 1
    assert ("'+' joining texts must be text, not int", start) in messages  # x + x, the left of + "a"
    assert ("'+' joining texts must be text, not int", start + len('x + x + "a" + ')) in messages


def test_the_work_grows_linearly_with_the_length_of_a_chain(monkeypatch):
    monkeypatch.setenv("RULESPEC_CACHE", "0")  # every step done, none read back

    def build(n):
        def run():
            model = check_text(game_text(" + ".join(["x"] * n)), f"chains{n}.rules")
            to_markdown(model)
            game = load_text(game_text(" + ".join(["x"] * n)), f"chains{n}.rules")
            st = game.new_state(players=2, seed=1)
            st.apply("stop")
        return run

    build(1)()  # the parser's tables are made once: not part of either count
    small, large = (python_calls(build(n)) for n in (300, 1_200))
    assert large < 6 * small, (small, large)  # linear: about 4 times; quadratic: 16
