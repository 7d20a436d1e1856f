"""The expression compiler (interpreter/expressions.py): the fast and the checked version of an
expression agree, runtime errors name the node that failed with a clear message in both, random()
is never drawn twice, quantifiers nest and shadow like the language says, pure defs are memoised
while legal actions are listed, and no nesting the parser accepts is too deep to compile."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter import RuleRuntimeError
from interpreter.compiler import Program
from interpreter.rng import Rng
from rulespec.lang import ast as A
from rulespec.lang import types as T

ROOT = Path(__file__).resolve().parent.parent

RULES = '''
game "Probe" { players 2..3 start setup cards start in deck }
enum Colour { red, blue }
property value: int
property colour: Colour
card "A" { value: 1 colour: red copies: 2 }
card "B" { value: 2 colour: blue copies: 2 }
zone deck: pile hidden
zone bin: pile hidden
zone hand[player]: set owner
zone table: plays public
var pts[player]: int = 0
var out: int = 0
var big: int = 20000
var flag: bool = false
var word: text = ""
var who: player = none
var c: card = none
var got: list[int]
var held: list[card]
effect boost(n: int = 2) { resolve { } }
DEFS
action go() { effect { end game } }
phase setup {
  enter { SETUP }
  actions go
  next setup
}
'''


def load(setup: str, defs: str = "", checked_only: bool = False):
    g = interpreter.load_text(RULES.replace("SETUP", setup).replace("DEFS", defs), "probe.rules")
    return interpreter.Game(g.model, g.path, fused=False) if checked_only else g


def run(setup: str, defs: str = "", checked_only: bool = False):
    g = load(setup, defs, checked_only)
    st = g.new_state(players=2, seed=0)
    return lambda name: st.vars[g.prog.var_index[name]]


# ====================================================================== powers, scaling, enums in order
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_powers_scaling_and_enum_order(checked_only):
    read = run("""out = 2 ^ 3 ^ 2 - -2 ^ 2 + (-2) ^ 2 + 0 ^ 0
    big *= 3
    big /= 7
    pts[active] += 5
    pts[active] *= 4
    pts[active] /= 3
    flag = red < blue and blue >= red and not (blue <= red) and max(red, blue) == blue and min(blue, red) == red
    got = collect x in sorted([blue, red, blue]): if x == red then 0 else 1
    c = argmax x in cards(deck): x.colour
    word = if (max x in cards(deck): x.colour) == blue and (min x in cards(deck): x.colour) == red then "ok" else "no"
    """, checked_only=checked_only)
    assert read("out") == 512 + 4 + 4 + 1
    assert read("big") == 60000 // 7 and read("pts")[0] == 20 // 3
    assert read("flag") is True and read("got") == [0, 1, 1] and read("word") == "ok"
    assert read("c") == 2  # the first blue card (B's copies follow A's)


# ====================================================================== subsets
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_subsets_and_combinations_list_every_subset_in_the_list_order(checked_only):
    read = run("""got = collect s in subsets([3, 1, 2]): sum x in s: x
    out = count s in subsets([5, 5, 10, 1, 4]) where (sum x in s: x) == 15
    held = first s in combinations(cards(deck), 2) where s[0].value != s[1].value
    big = count(combinations(cards(deck), 0)) * 100 + count(combinations(cards(deck), 5))""", checked_only=checked_only)
    assert read("got") == [0, 3, 1, 2, 4, 5, 3, 6]  # [], [3], [1], [2], [3,1], [3,2], [1,2], [3,1,2]
    assert read("out") == 4  # 5+10 twice, 10+1+4, 5+5+1+4
    assert len(read("held")) == 2
    assert read("big") == 100  # one empty combination; none of 5 from 4 cards


def test_subsets_are_checked_and_said_in_the_rulebook():
    from rulespec.lang.checker import check_text
    from rulespec.lang.english import English
    from rulespec.lang.errors import RulesError
    for stmt, message in [("out = count(subsets(3))", "'subsets' needs a list, not int"),
                          ("out = count(combinations([1, 2]))", "'combinations' takes 2 argument(s), not 1"),
                          ("out = count(combinations([1], flag))", "the size of the combinations")]:
        with pytest.raises(RulesError) as e:
            check_text(RULES.replace("SETUP", stmt).replace("DEFS", ""), "probe.rules")
        assert any(message in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]
    model = check_text(RULES.replace("SETUP", "got = collect s in combinations([1, 2, 3], 2): count(s)")
                       .replace("DEFS", ""), "probe.rules")
    from rulespec.tools.docs import to_markdown
    assert "every set of 2 of" in to_markdown(model)


# ====================================================================== let
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_let_names_a_value_once_and_shadows_like_a_quantifier(checked_only):
    read = run("""move deck to hand[active]
    out = let x = 3: let y = x * 2: x + y
    big = twice(4) + (let x = 10: sum x in [1, 2]: x) + 100 * (let x = 10: x)
    got = collect x in [1, 2]: let y = x * 10: y + x
    held = let cs = hand[active]: collect c in cs where c.value == 1: c""",
               defs="def twice(n: int): int = let m = n * 2: m + m", checked_only=checked_only)
    assert read("out") == 9
    assert read("big") == 16 + 3 + 1000  # the quantifier's x shadows the let's
    assert read("got") == [11, 22]
    assert len(read("held")) == 2  # the two A cards


@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_plus_joins_texts(checked_only):
    read = run("""word = "a" + (if flag then "b" else "c") + name_of(1)""",
               defs='def name_of(n: int): text = if n == 1 then " one" else " more"', checked_only=checked_only)
    assert read("word") == "ac one"


@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_a_string_with_holes_is_a_template_wherever_an_expression_is(checked_only):
    read = run("""move deck to hand[active]
    word = label(count(hand[active])) + " {who}; {cards(hand[active])[0]}"
    got = collect x in [1, 2]: count(distinct([" {x}", "{x} ", "{x}"]))""",
               defs='def label(n: int): text = "holds {n} cards, {if n > 3 then \\"many\\" else \\"few\\"}"',
               checked_only=checked_only)
    assert read("word") == "holds 4 cards, many nobody; A"
    assert read("got") == [3, 3]


def test_a_hole_that_does_not_parse_or_check_is_reported_at_its_place():
    from rulespec.lang.checker import check_text
    from rulespec.lang.errors import RulesError
    for setup, message in [('word = "a {1 +}"', "in template"), ('word = "a {nobody_here}"', "unknown name 'nobody_here'")]:
        text = RULES.replace("SETUP", setup).replace("DEFS", "")
        with pytest.raises(RulesError) as e:
            check_text(text, "probe.rules")
        d = e.value.diagnostics[0]
        assert message in d.message, d.message
        assert d.span.line == text[:text.index(setup)].count("\n") + 1 and d.span.col > text.splitlines()[d.span.line - 1].index("{")


ZONES = """game "Z" { players 2..2 start p cards start in deck }
card "A" { copies: 4 }
zone deck: pile hidden
zone hand[player]: set owner
zone spare[player]: set owner
var second: bool = false
var n: int = 0
var same: bool = false
def where_to(p: player): zone = if second then spare[p] else hand[p]
def its_cards(p: player): list[card] = if second then spare[p] else hand[p]
phase p {
  enter {
    deal 1 from deck to where_to(active)
    second = true
    deal 2 from deck to where_to(active)
    move top(deck, 1) to where_to(next_player(active))
    n = count(where_to(active)) * 10 + count(its_cards(active))
    same = where_to(active) == spare[active]
    n = n * 10 + (sum z in [hand[active], spare[active]]: count(z))
    end game
  }
  next p
}
"""


def test_a_def_may_give_a_zone_to_move_cards_into():
    g = interpreter.load_text(ZONES, "zones.rules")
    st = g.new_state(players=2, seed=1)
    base = st.prog.zone_base
    assert [len(st.zones[base["hand"]]), len(st.zones[base["spare"]]), len(st.zones[base["spare"] + 1])] == [1, 2, 1]
    assert st.vars[g.prog.var_index["n"]] == 223 and st.vars[g.prog.var_index["same"]] is True
    # (a list of zones is a list of zones: it was typed a list of card lists and failed at run time)


def test_a_def_of_type_zone_must_give_a_zone():
    from rulespec.lang.checker import check_text
    from rulespec.lang.errors import RulesError
    with pytest.raises(RulesError) as e:
        check_text(ZONES.replace("if second then spare[p] else hand[p]\ndef its", "cards(hand[p])\ndef its"), "z.rules")
    assert any("the result of 'where_to' must be zone, not list[card]" in d.message for d in e.value.diagnostics)


def test_plus_on_a_text_and_a_number_is_an_error():
    from rulespec.lang.checker import check_text
    from rulespec.lang.errors import RulesError
    with pytest.raises(RulesError) as e:
        check_text(RULES.replace("SETUP", 'word = "a" + 3').replace("DEFS", ""), "probe.rules")
    assert any("'+' joining texts" in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]


def test_let_is_checked_said_in_the_rulebook_and_its_name_stays_inside():
    from rulespec.lang.checker import check_text
    from rulespec.tools.docs import to_markdown
    from rulespec.lang.errors import RulesError
    with pytest.raises(RulesError) as e:
        check_text(RULES.replace("SETUP", "out = (let x = 3: x) + x").replace("DEFS", ""), "probe.rules")
    assert any("unknown name 'x'" in d.message for d in e.value.diagnostics), [d.message for d in e.value.diagnostics]
    with pytest.raises(RulesError) as e:
        check_text(RULES.replace("SETUP", "out = let x = 3: x == 3").replace("DEFS", ""), "probe.rules")
    assert e.value.diagnostics
    model = check_text(RULES.replace("SETUP", "out = let x = count(deck): x * 2").replace("DEFS", ""), "probe.rules")
    assert "x times 2, where x is the number of cards in the deck" in to_markdown(model)


# ====================================================================== runtime errors
NONE_INT = "(first x in [1, 2] where x > 5)"      # an int that is none
NOBODY = "(first x in players where x == next_player(x))"

ERRORS = [
    # (statement, message, the text the error points at)
    ("out = cards(bin)[0].value", "index 0 is outside a list of 0", "cards(bin)[0]"),
    ("out = 3 / count(bin)", "division by zero", "3 / count"),
    ("out = 3 % count(bin)", "division by zero", "3 % count"),
    ("c = first x in cards(deck) where x.value == 9\n    out = c.value", "no card to read 'value' from", "c.value"),
    ("word = (first x in cards(deck) where x.value == 9).name", "no card to read 'name' from", "(first"),
    (f"flag = {NONE_INT} < 3", "'<' compares with none", "first x"),
    (f"out = {NONE_INT} * 2", "'*' with none instead of a number", "first x"),
    (f"out = -{NONE_INT}", "'-' of none instead of a number", "-(first"),
    ("out = count(0..big)", "the range 0..20000 has more than 10000 numbers", "0..big"),
    ("out = max x in cards(bin): x.value", "'max' over an empty list", "max x"),
    ("out = min x in [1, 2]: " + NONE_INT, "'min' compares with none", "min x"),
    ("c = argmin x in cards(bin): x.value", "'argmin' over an empty list", "argmin"),
    ("c = argmax x in cards(deck): " + NONE_INT, "'argmax' compares with none", "argmax"),
    ("move random(cards(bin)) to deck", "random() of an empty list", "random("),
    (f"out = pts[{NOBODY}]", "indexed with 'none' instead of a player", "pts["),
    (f"out = count(hand[{NOBODY}])", "indexed with 'none' instead of a player", "hand["),
    ("flag = revealed(first x in cards(bin))", "'revealed' of none instead of a card", "revealed("),
    ("who = stack_top.by", "no stack entry to read 'by' from", "stack_top.by"),
    ("out = stack_top.n", "no stack entry to read 'n' from", "stack_top.n"),
    ("who = (first x in plays(table)).player", "no play to read 'player' from", "(first"),
    ("out = sum x in players: sum y in [0]: cards(bin)[y].value", "index 0 is outside a list of 0", "cards(bin)[y]"),
    ('log "top: {cards(bin)[1]}"', "index 1 is outside a list of 0", "cards(bin)[1]"),
    ("got = collect x in [0, 1, 2]: [4, 5][x]", "index 2 is outside a list of 2", "[4, 5][x]"),
    ("out = count(subsets(1..17))", "subsets() of 17 items would list 131,072 subsets (at most 65,536: 16 items)",
     "subsets("),
    ("out = count(combinations(1..40, 20))", "combinations() of 40 items, 20 at a time: 137,846,528,820 lists "
     "(at most 65,536)", "combinations("),
    ("out = count(combinations([1, 2], out - 1))", "combinations() of 2 items, -1 at a time: a size cannot be "
     "negative", "combinations("),
    ("out = 2 ^ (out - 1)", "a negative power (2 ^ -1) is not a whole number", "2 ^"),
    ("out = 2 ^ big", "the power 2 ^ 20000 is too large (an exponent is at most 10,000)", "2 ^"),
    (f"out = {NONE_INT} ^ 2", "'^' with none instead of a number", "(first"),
    ("flag = (first x in [red, blue] where x == blue and out > 0) < red", "'<' compares with none",
     "first x in [red"),
    ("got = [0] + collect x in sorted([blue, first y in [red] where out > 0]): 1", "sorted() of a list holding none",
     "sorted("),
    ("out /= out", "division by zero", "out /="),
    (f"out *= {NONE_INT}", "'*=' with none instead of a number", "out *="),
]


@pytest.mark.parametrize("setup,message,at", ERRORS, ids=[m for _, m, _ in ERRORS])
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_a_runtime_error_names_the_node_that_failed(setup, message, at, checked_only):
    text = RULES.replace("SETUP", setup).replace("DEFS", "")
    g = load(setup, checked_only=checked_only)
    with pytest.raises(RuleRuntimeError) as err:
        g.new_state(players=2, seed=0)
    start = text.index("enter {")  # the statement, not the declarations above it
    line = text.count("\n", 0, text.index(at, start)) + 1
    col = text.splitlines()[line - 1].index(at) + 1
    assert str(err.value) == f"probe.rules:{line}:{col}: runtime error: {message}"


def test_an_error_inside_a_def_points_into_the_def():
    defs = "def second(xs: list[int]): int = xs[1] * 2\ndef twice(xs: list[int]): int = second(xs) + second(xs)\n"
    text = RULES.replace("DEFS", defs)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("def second"))
    for checked_only in (False, True):
        with pytest.raises(RuleRuntimeError) as err:
            load("out = twice([7])", defs, checked_only).new_state(players=2, seed=0)
        assert str(err.value) == f"probe.rules:{line}:34: runtime error: index 1 is outside a list of 1"


def test_random_is_never_drawn_twice(monkeypatch):
    draws = []
    below = Rng.below

    def counted(st, n):
        draws.append(n)
        return below(st, n)
    monkeypatch.setattr(Rng, "below", staticmethod(counted))
    defs = "def pick(): player = random(players)\nrule luck(): int = 0 combine sum\nmodify luck() = random([1, 2])\n"
    for setup in ("out = seat(random(players)) + 3 / count(bin)", "out = seat(pick()) + 3 / count(bin)",
                  "out = luck() + 3 / count(bin)"):
        for checked_only in (False, True):
            draws.clear()
            with pytest.raises(RuleRuntimeError, match="division by zero"):
                load(setup, defs, checked_only).new_state(players=2, seed=0)
            assert draws == [2], setup


# ====================================================================== values
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_quantifiers_nest_and_shadow(checked_only):
    var = run("let s = 5\n"
              "    out = count s in [1, 2, 3] where s >= 2\n"
              "    pts[players[0]] = out * 10 + s\n"
              "    got = collect x in [1, 2]: sum y in [x, 10]: y * 100 + x + s\n"
              "    flag = all p in players: any q in players where q != p: next_player(q) == p\n"
              "    who = argmax p in players: 0 ties last\n"
              "    c = first k in cards(deck) where k.colour == blue and not any j in cards(bin): j == k\n"
              "    word = if any x in [1] where x == 2 then \"yes\" else \"no\"",
              checked_only=checked_only)
    assert var("out") == 2
    assert var("pts") == [25, 0]
    assert var("got") == [(100 + 1 + 5) + (1000 + 1 + 5), (200 + 2 + 5) + (1000 + 2 + 5)]
    assert var("flag") is True
    assert var("who") == 1
    assert var("c") == 2
    assert var("word") == "no"


@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_zones_are_copied_where_a_value_is_kept(checked_only):
    var = run("deal 2 from deck to hand[active]\n"
              "    held = collect x in cards(hand[active]): x\n"
              "    let kept = if true then hand[active] else bin\n"
              "    move hand[active] to bin\n"
              "    out = count(kept) * 10 + count(hand[active])",
              checked_only=checked_only)
    assert var("out") == 20
    assert len(var("held")) == 2


def test_pure_defs_are_memoised_while_actions_are_listed(monkeypatch):
    import interpreter.expressions as X
    calls = []
    original = X.ExpressionCompiler.def_body

    def counting(self, name, checked):
        body = original(self, name, checked)

        def counted(st, *args):
            calls.append((name, args))
            return body(st, *args)
        return counted
    monkeypatch.setattr(X.ExpressionCompiler, "def_body", counting)
    text = RULES.replace("DEFS", "def small(x: int): bool = x < 3\ndef lucky(): int = random([1, 2])\n") \
        .replace("SETUP", "deal 4 from deck to hand[active]") \
        .replace("actions go", "actions go, pick") \
        .replace("action go() {", "action pick(k: card from hand[active] where small(1) and small(k.value)\n"
                 "  and lucky() > 0) { effect { } }\naction go() {")
    st = interpreter.load_text(text, "probe.rules").new_state(players=2, seed=0)
    calls.clear()
    assert len(st.legal_actions()) == 3  # go, pick A, pick B
    # small(1) is asked for both kinds of card, small(k.value) for each: once per argument
    assert sorted(a for n, a in calls if n == "small") == [(1,), (2,)]
    assert len([1 for n, _ in calls if n == "lucky"]) == 2  # a def that draws is never memoised


def test_a_def_of_a_list_made_of_a_choice_is_read_each_time_not_memoised(monkeypatch):
    """Freezing a candidate's list for the memo costs more than the call saves: a list argument
    that reads a local name is not memoised; one made of the state alone still is."""
    import interpreter.expressions as X
    calls = []
    original = X.ExpressionCompiler.def_body

    def counting(self, name, checked):
        body = original(self, name, checked)

        def counted(st, *args):
            calls.append(name)
            return body(st, *args)
        return counted
    monkeypatch.setattr(X.ExpressionCompiler, "def_body", counting)
    text = RULES.replace("DEFS", "def few(xs: list[card]): bool = count(xs) < 9\n"
                                 "def some(xs: list[card]): bool = count(xs) < 9\n") \
        .replace("SETUP", "deal 4 from deck to hand[active]") \
        .replace("actions go", "actions go, pick") \
        .replace("action go() {", "action pick(k: card from hand[active] where few([k]) and some(cards(hand[active]))) "
                 "{ effect { } }\naction go() {")
    st = interpreter.load_text(text, "probe.rules").new_state(players=2, seed=0)
    calls.clear()
    assert len(st.legal_actions()) == 3
    assert calls.count("few") == 2   # once per kind of card: [k] differs
    assert calls.count("some") == 1  # the hand, the same for every candidate: memoised


# ====================================================================== deep nesting
DEEP = [
    ("out = " + "(1 + " * 95 + "1" + ")" * 95, "out", 96),
    ("out = " + "sum x in [2]: " * 45 + "1", "out", 1),
    ("flag = " + "".join(f"any x{i} in [{i}] where x{i} >= 0: " for i in range(45)) + "x0 + x44 == 44", "flag", True),
    ("out = " + "if true then " * 95 + "7" + " else 2" * 95, "out", 7),
    ("out = " + "[" * 45 + "3" + "]" * 45 + "[0]" * 45, "out", 3),
    ("out = " + "max(1, " * 95 + "4" + ")" * 95, "out", 4),
]


@pytest.mark.parametrize("setup,name,value", DEEP, ids=["arithmetic", "sum", "any", "if", "index", "call"])
@pytest.mark.parametrize("checked_only", [False, True], ids=["fast", "checked"])
def test_the_deepest_nesting_the_parser_accepts_compiles(setup, name, value, checked_only):
    assert run(setup, checked_only=checked_only)(name) == value


def test_an_error_deep_inside_a_nested_expression_is_still_reported():
    for checked_only in (False, True):
        g = load("out = " + "(1 + " * 90 + "cards(bin)[0].value" + ")" * 90, checked_only=checked_only)
        with pytest.raises(RuleRuntimeError, match=r":\d+:\d+: runtime error: index 0 is outside a list of 0$"):
            g.new_state(players=2, seed=0)


# ====================================================================== fast == checked on every expression
def _free_locals(e, bound=frozenset()):
    """The Name nodes of locals that e reads from its environment."""
    if isinstance(e, A.Name):
        return [e] if e.name not in bound else []
    out = []
    for f in ("obj", "index", "operand", "left", "right", "lo", "hi", "cond", "then", "else_", "domain"):
        v = getattr(e, f, None)
        if isinstance(v, A.Expr):
            out += _free_locals(v, bound)
    if isinstance(e, A.Quant):
        for v in (e.where, e.body):
            if v is not None:
                out += _free_locals(v, bound | {e.var})
    for v in getattr(e, "args", ()) + getattr(e, "items", ()):
        out += _free_locals(v, bound)
    return out


def _value_of(t: T.Type, st, rng: random.Random, enums: dict):
    """A random value of type t for a local (sometimes none where that can happen), or KeyError."""
    cards = st.prog.card_count
    if t == T.PLAYER:
        return None if rng.random() < 0.1 else rng.randrange(st.n)
    if t == T.CARD:
        return None if rng.random() < 0.1 else rng.randrange(cards)
    if t == T.INT:
        return rng.randint(-1, 6)
    if t == T.BOOL:
        return rng.random() < 0.5
    if t.name == "enum":
        return rng.choice(enums[t.enum])
    if t == T.list_of(T.INT):
        return [rng.randint(-1, 6) for _ in range(rng.randint(0, 4))]
    if t in (T.CARDS, T.PLAYERS):
        k = cards if t == T.CARDS else st.n
        return rng.sample(range(k), rng.randint(0, min(k, 4)))
    raise KeyError(t)


def _outcome(f, st, env):
    try:
        return "value", f(st, dict(env))
    except RuleRuntimeError as e:
        return "error", str(e)
    except Exception as e:  # noqa: BLE001 -- both versions must fail alike
        return "python", type(e).__name__


LABS = ["ability_lab", "choice_lab", "counters", "event_lab", "gaps_lab", "selector_lab", "setup_lab", "stack_lab",
        "trigger_copies_lab", "trigger_lab"]


@pytest.mark.parametrize("path,players,options", [("games/charuma.rules", 4, {}),
                                                  ("games/chuhan.rules", 2, {"events": True}),
                                                  ("games/crazy_eights.rules", 3, {})] +
                         [(f"tests/rules/{lab}.rules", None, {}) for lab in LABS])
def test_fast_and_checked_versions_agree_on_every_expression(path, players, options):
    """Every expression of the game (random values for the locals it reads) at states of a random
    game: where the fast version gives a value the checked one gives the same; where it fails the
    checked one reports an error; and what the engine runs (fast, explained by checked) gives the
    same outcome as a program compiled with checked versions only."""
    game = interpreter.load(ROOT / path)
    model, exprs = game.model, game.prog.exprs
    players = players or model.min_players
    reference = Program(model, fused=False).exprs
    enums = {n: list(e.members) for n, e in model.enums.items()}
    rng = random.Random(path)
    probes = []
    for e in model.types:
        if not isinstance(e, A.Expr) or exprs.draws(e):
            continue
        free = [n for n in _free_locals(e) if model.refs.get(n, ("",))[0] == "local"]
        if all(model.types.get(n, T.ANY) in SUPPORTED or model.types[n].name == "enum" for n in free):
            probes.append((e, free, exprs.value(e), exprs.version(e, False), exprs.version(e, True),
                           reference.value(e)))
    assert probes
    st = game.new_state(players=players, seed=3, options=options)
    seen = {"value": 0, "error": 0, "python": 0}
    for step in range(400):
        if st.is_terminal():
            break
        if step < 4 or step % 25 == 0:
            for memo in (None, {}):  # {}: as while actions are listed, when pure defs are memoised
                st._memo = memo
                try:
                    for e, free, engine, fast, checked, ref in probes:
                        env = {n.name: _value_of(model.types[n], st, rng, enums) for n in free}
                        want = _outcome(ref, st, env)
                        got = _outcome(fast, st, env)
                        seen[got[0]] += 1
                        assert _outcome(checked, st, env) == want, (e, env)
                        assert _outcome(engine, st, env) == want, (e, env)
                        assert got == want if got[0] == "value" else want[0] != "value", (e, env)
                finally:
                    st._memo = None
        st.apply(rng.choice(st.legal_actions()))
    assert seen["value"] >= len(probes), seen
    if path.startswith("games/"):  # the random locals make some expressions fail: both versions alike
        assert seen["python"] > 0, seen


SUPPORTED = (T.PLAYER, T.CARD, T.INT, T.BOOL, T.list_of(T.INT), T.CARDS, T.PLAYERS)
