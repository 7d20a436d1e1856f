"""The checker: every kind of diagnostic it emits, its warnings, and its type rules."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rulespec.lang import types as T
from rulespec.lang.checker import check_file, check_text
from rulespec.lang.diagnostics import Diagnostic, RulesError, did_you_mean

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = ROOT / "games" / "charuma.rules"

# A small game that checks clean: no error and no warning.  Each case below
# breaks it in one way.
BASE = '''\
game "Tiny" {
  players 2..4
  start play
  cards start in deck
  score p: points[p]
}
enum Suit { hearts, spades }
property value: int
property suit: Suit
card "h1" { value: 1 suit: hearts copies: 3 }
card "s2" { value: 2 suit: spades copies: 3 }
zone deck: pile hidden
zone discard: pile public
zone hand[player]: set owner
zone table: plays public
var points[player]: int = 0
var turns: int = 0
def best(): int = max p in players: points[p]
action draw() {
  require count(deck) > 0 else "the deck is empty"
  effect { deal 1 from deck to hand[active] }
}
action lay(c: card from hand[active]) {
  text "lay {c.name}"
  effect {
    play c to table
    points[active] += c.value
    move cards(table) to discard
  }
}
phase play {
  enter { shuffle deck }
  actions draw, lay
  after { turns += 1 active = next_player(active) }
  end when best() >= 5 or turns >= 20
  next over
}
phase over { enter { end game winners collect p in players where points[p] == best() } }
'''

# Appended to BASE: a phase that runs a statement, for snippets to test.
PROBE = '''
phase probe {{
  enter {{
    {0}
  }}
  next over
}}
'''


def diagnostics(text: str, path: str = "t.rules") -> list[Diagnostic]:
    try:
        return check_text(text, path).warnings
    except RulesError as e:
        return e.diagnostics


def errors(text: str) -> list[Diagnostic]:
    return [d for d in diagnostics(text) if d.severity == "error"]


def warnings(text: str) -> list[Diagnostic]:
    return [d for d in diagnostics(text) if d.severity == "warning"]


def edit(*pairs, append: str = "", base: str = BASE) -> str:
    text = base
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text + append


def probe(stmt: str) -> str:
    # the probe phase is unreachable, which only adds a warning
    return BASE + PROBE.format(stmt)


def pos(text: str, needle: str, nth: int = 0) -> tuple:
    if nth < 0:
        i = text.rindex(needle)
    else:
        i = -1
        for _ in range(nth + 1):
            i = text.index(needle, i + 1)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def test_base_is_clean():
    model = check_text(BASE, "t.rules")
    assert model.warnings == []
    assert model.name == "Tiny" and model.start_phase == "play"


def test_charuma_checks_clean():
    model = check_file(CHARUMA)
    assert [d for d in model.warnings if d.severity == "error"] == []
    assert model.name == "Charuma"


# ---------------------------------------------------------------- one case per diagnostic kind
# (id, text, severity, message, hint, where): `where` is the text the diagnostic points at
# (its first occurrence, or (text, n) for the n-th), or None for the start of the file.
CASES = [
    # -------- names
    ("builtin-name-declared", edit(append="var players: int = 0\n"), "error",
     "'players' is a built-in name and cannot be declared", None, "var players"),
    ("quantifier-name-declared", edit(append="def count(): int = 1\n"), "error",
     "'count' is a built-in name and cannot be declared", None, "def count"),
    ("duplicate-global", edit(append="zone deck: set public\n"), "error",
     "'deck' is already declared (as a zone, line 12)", None, ("zone deck", 1)),
    ("duplicate-global-kinds", edit(append="var best: int = 0\n"), "error",
     "'best' is already declared (as a function, line 18)", None, "var best"),
    ("enum-member-reserved-word", edit(("{ hearts, spades }", "{ hearts, spades, none }")), "error",
     "'none' is a reserved word of the language and cannot name a member of an enum",
     "in an expression 'none' is always the language's own word: pick another name", "none"),
    ("zone-named-by-a-reserved-word", edit(append="zone true: pile public\n"), "error",
     "'true' is a reserved word of the language and cannot name a zone",
     "in an expression 'true' is always the language's own word: pick another name", "zone true"),
    ("local-named-by-a-reserved-word", probe("let not = 1"), "error",
     "'not' is a reserved word of the language and cannot name a local",
     "in an expression 'not' is always the language's own word: pick another name", "let not"),
    ("enum-member-twice", edit(("{ hearts, spades }", "{ hearts, spades, hearts }")), "error",
     "enum member 'hearts' is already declared", None, ("hearts", 1)),
    ("enum-member-in-two-enums", edit(append="enum Colour { red, spades }\n"), "error",
     "enum member 'spades' is already declared", None, ("spades", -1)),
    ("unknown-type", edit(("var turns: int", "var turns: itn")), "error",
     "unknown type 'itn'", "did you mean 'int'?", "itn"),
    ("unknown-type-enum", edit(("property suit: Suit", "property suit: Siut")), "error",
     "unknown type 'Siut'", "did you mean 'Suit'?", "Siut"),
    ("unknown-type-in-list", edit(append="var seen: list[crad] = []\n"), "error",
     "unknown type 'crad'", "did you mean 'card'?", "crad"),
    ("second-game-block", edit(append='game "Again" { players 2..3 }\n'), "error",
     "a rules file has exactly one 'game' block; this is the second", None, 'game "Again"'),
    ("bad-player-range", edit(("players 2..4", "players 4..2")), "error",
     "players 4..2 is not a valid range", None, 'game "Tiny"'),
    ("zero-players", edit(("players 2..4", "players 0..2")), "error",
     "players 0..2 is not a valid range", None, 'game "Tiny"'),
    ("property-twice", edit(append="property value: text\n"), "error",
     "property 'value' is already declared", None, ("property value", 1)),
    ("property-built-in", edit(append="property copies: int\n"), "error",
     "'copies' is built into every card and cannot be declared", None, "property copies"),
    ("builtin-function-redefined", edit(append="def sorted(x: int): int = x\n"), "error",
     "'sorted' is a built-in function and cannot be redefined", None, "def sorted"),
    ("def-parameter-twice", edit(append="def f(a: int, a: int): int = a\n"), "error",
     "parameter 'a' is declared twice", None, ("a: int", 1)),
    ("action-twice", edit(append="action draw() { }\n"), "error",
     "action 'draw' is already declared (line 19)", None, ("action draw", 1)),
    ("phase-twice", edit(append="phase over { }\n"), "error",
     "phase 'over' is already declared (line 38)", None, ("phase over", 1)),
    # -------- the game block
    ("no-game-block", edit(('game "Tiny" {\n  players 2..4\n  start play\n  cards start in deck\n'
                            '  score p: points[p]\n}\n', "")), "error",
     "there is no 'game' block", 'start the file with: game "Name" { players 2..4 }', None),
    ("no-phase", 'game "Empty" { players 2..2 }\n', "error",
     "the game declares no phase", "add: phase play { ... }", 'game "Empty"'),
    ("no-card", 'game "NoCards" { players 2..2 }\nphase p { enter { end game } }\n', "warning",
     "the game declares no card", None, None),
    ("unknown-start-phase", edit(("start play", "start plya")), "error",
     "unknown phase 'plya'", "did you mean 'play'?", "plya"),
    ("no-cards-start", edit(("  cards start in deck\n", "")), "error",
     "the game does not say where the cards start", "add to the game block: cards start in <zone>", 'game "Tiny"'),
    ("cards-start-unknown-zone", edit(("cards start in deck", "cards start in dekc")), "error",
     "unknown zone 'dekc'", "did you mean 'deck'?", "dekc"),
    ("cards-start-per-player-zone", edit(("cards start in deck", "cards start in hand")), "error",
     "zone 'hand' is per player; the cards must start in a shared zone", None, "hand\n"),
    # -------- zones
    ("zone-two-kinds", edit(("zone discard: pile public", "zone discard: pile set public")), "error",
     "zone 'discard' has two kinds ('pile' and 'set')", None, "set public"),
    ("zone-two-visibilities", edit(("zone discard: pile public", "zone discard: pile public hidden")), "error",
     "zone 'discard' has two visibilities ('public' and 'hidden')", None, "hidden\nzone hand"),
    ("zone-unknown-attribute", edit(("zone discard: pile public", "zone discard: pile pubic")), "error",
     "unknown zone attribute 'pubic'", "did you mean 'public'?", "pubic"),
    ("zone-unknown-attribute-no-match", edit(("zone discard: pile public", "zone discard: pile xyzzy")), "error",
     "unknown zone attribute 'xyzzy'", "a zone is pile, set or plays, and public, owner, others, hidden or top public",
     "xyzzy"),
    ("shared-zone-with-owner", edit(("zone discard: pile public", "zone discard: pile owner")), "error",
     "zone 'discard' is shared, so it has no owner to see it",
     "declare it per player (zone name[player]: ...) or make it public or hidden", "zone discard"),
    ("shared-zone-with-others", edit(("zone discard: pile public", "zone discard: pile others")), "error",
     "zone 'discard' is shared, so it has no owner to hide it from",
     "declare it per player (zone name[player]: ...) or make it public or hidden", "zone discard"),
    ("set-zone-top-public", edit(("zone discard: pile public", "zone discard: set top public")), "error",
     "zone 'discard' is a set, which has no top card to show", "make it a pile (or plays), whose top is its last card",
     "top public"),
    ("zone-top-without-public", edit(("zone discard: pile public", "zone discard: pile top")), "error",
     "unknown zone attribute 'top'", "a pile whose top card everyone sees and the rest nobody is written 'top public'",
     "top\nzone hand"),
    ("zone-top-public-and-hidden", edit(("zone discard: pile public", "zone discard: pile top public hidden")), "error",
     "zone 'discard' has two visibilities ('top public' and 'hidden')", None, "hidden\nzone hand"),
    ("zone-attribute-twice", edit(("zone discard: pile public", "zone discard: pile pile public")), "error",
     "zone 'discard' says 'pile' twice", None, "pile public\nzone hand"),
    # -------- variables
    ("var-initial-value-type", edit(("var turns: int = 0", "var turns: int = active")), "error",
     "the initial value of 'turns' must be int, not player", None, "active\n"),
    ("var-initial-value-uses-later-var", edit(("var points[player]: int = 0", "var points[player]: int = turns")),
     "error", "the initial value of 'points' uses 'turns', which is declared after it",
     "an initial value may only use the variables declared above it", "turns\n"),
    ("var-initial-value-uses-itself", edit(("var turns: int = 0", "var turns: int = turns + 1")), "error",
     "the initial value of 'turns' uses itself", "an initial value may only use the variables declared above it",
     "turns + 1"),
    ("var-initial-value-uses-later-var-through-def",
     edit(("var turns: int = 0", "var turns: int = later()\ndef later(): int = extra\nvar extra: int = 1")),
     "error", "the initial value of 'turns' uses 'extra', which is declared after it",
     "an initial value may only use the variables declared above it", "later()"),
    # -------- cards and constants
    ("card-not-enum-member", edit(("suit: hearts copies: 3", "suit: hart copies: 3")), "error",
     "'hart' is not a member of Suit", "did you mean 'hearts'?", "hart"),
    ("card-not-constant", edit(("value: 1 suit", "value: 1 + 1 suit")), "error",
     "expected a constant of type int", None, "1 + 1"),
    ("card-wrong-type", edit(("value: 1 suit", 'value: "one" suit')), "error",
     "expected a constant of type int", None, '"one"'),
    ("option-wrong-type", edit(append="option rounds: int = true\n"), "error",
     "expected a constant of type int", None, "true\n"),
    ("copies-twice", edit(("copies: 3 }", "copies: 3 copies: 4 }")), "error",
     "'copies' is given twice", None, "copies: 4"),
    ("copies-zero", edit(("suit: spades copies: 3", "suit: spades copies: 0")), "error",
     "a card needs at least 1 copy", None, "0 }"),
    ("unknown-card-property", edit(("card \"h1\" { value: 1", "card \"h1\" { valeu: 1")), "error",
     "unknown card property 'valeu'", "did you mean 'value'?", "valeu"),
    ("card-property-twice", edit(("value: 1 suit: hearts", "value: 1 value: 2 suit: hearts")), "error",
     "property 'value' is given twice", None, "value: 2"),
    ("card-twice", edit(append='card "h1" { value: 3 }\n'), "error",
     "card 'h1' is already declared", "give it more copies instead", ('card "h1"', 1)),
    # -------- defs
    ("def-calls-later-def", edit(append="def a(): int = b()\ndef b(): int = 1\n"), "error",
     "'a' calls 'b', which is not declared before it",
     "a function may only call functions declared above it (no recursion)", "b()"),
    ("def-recursion", edit(append="def fact(n: int): int = if n <= 1 then 1 else n * fact(n - 1)\n"), "error",
     "'fact' calls 'fact', which is not declared before it",
     "a function may only call functions declared above it (no recursion)", "fact(n - 1)"),
    ("def-result-type", edit(append="def half(): bool = 1\n"), "error",
     "the result of 'half' must be bool, not int", None, "1\n"),
    # -------- actions
    ("action-parameter-twice", edit(("action draw()", "action draw(n: int in 1..2, n: player)")), "error",
     "parameter 'n' is declared twice", None, "n: player"),
    ("int-choice-needs-range", edit(("action draw()", "action draw(n: int in 5)")), "error",
     "an int choice needs a range, like 0..5", None, "5)"),
    ("size-not-a-number", edit(("action draw()", "action draw(cs: cards from deck size true)")), "error",
     "size must be a number, a range or a list of numbers, not bool", None, "true)"),
    ("same-unknown-property", edit(("action draw()", "action draw(cs: cards from deck same valeu)")), "error",
     "unknown card property 'valeu'", "did you mean 'value'?", "valeu"),
    ("card-choice-from-non-cards", edit(("action draw()", "action draw(c: card from turns)")), "error",
     "expected cards (a zone or a list of cards), not int", None, "turns)"),
    ("requirement-not-bool", edit(('require count(deck) > 0 else', 'require count(deck) else')), "error",
     "a requirement must be bool, not int", None, "count(deck) else"),
    ("require-false", edit(('require count(deck) > 0 else "the deck is empty"', "require false")), "warning",
     "action 'draw' can never be legal: it requires false", None, "require false"),
    # -------- phases
    ("unknown-action-in-phase", edit(("actions draw, lay", "actions draw, lya")), "error",
     "unknown action 'lya'", "did you mean 'lay'?", "lya"),
    ("unknown-next-phase", edit(("next over", "next ovr")), "error",
     "unknown phase 'ovr'", "did you mean 'over'?", "ovr"),
    ("unknown-invariant-phase", edit(append='invariant "fine" at plya: true\n'), "error",
     "unknown phase 'plya'", "did you mean 'play'?", "plya"),
    ("invariant-not-bool", edit(append='invariant "fine": 3\n'), "error",
     "an invariant must be bool, not int", None, "3\n"),
    ("actor-not-player", edit(("  actions draw, lay", "  actor 3\n  actions draw, lay")), "error",
     "the actor must be player, not int", None, "3\n"),
    ("end-when-not-bool", edit(("end when best() >= 5 or turns >= 20", "end when turns")), "error",
     "an end condition must be bool, not int", None, "turns\n"),
    ("next-condition-not-bool", edit(("next over", "next over when turns")), "error",
     "a condition must be bool, not int", None, "turns\n"),
    ("actions-without-after-or-end", edit(("  after { turns += 1 active = next_player(active) }\n"
                                           "  end when best() >= 5 or turns >= 20\n", "")), "warning",
     "phase 'play' has actions but no 'after' and no 'end when'", "without them the same player acts forever",
     "phase play"),
    # -------- statements
    ("let-from-none", probe("let x = none"), "error", "cannot tell the type of 'x' from none", None, "let x"),
    ("let-hides-global", probe("let turns = 1"), "error",
     "'turns' would hide the global name 'turns'", "pick another name", "let turns"),
    ("plus-assign-non-number", probe("active += 1"), "error",
     "'+=' needs a number, but 'active' is player", None, "active += 1"),
    ("plus-assign-value-not-number", probe("turns += true"), "error",
     "'+=' must be int, not bool", None, "true\n"),
    ("play-to-non-plays-zone", probe("play hand[active] to discard"), "error",
     "'play ... to' needs a plays zone; 'discard' is a pile", "declare it as: zone discard: plays public",
     ("discard", 2)),
    ("loop-over-non-list", probe("for i in turns { }"), "error",
     "cannot loop over int; expected a list", None, ("turns {", 0)),
    ("winners-wrong-type", probe("end game winners 3"), "error",
     "winners must be a player or a list of players, not int", None, "3\n"),
    ("assign-unknown-variable", probe("trns = 2"), "error",
     "unknown variable 'trns'", "did you mean 'turns'?", "trns"),
    ("assign-zone", probe("deck = 2"), "error",
     "'deck' is a zone, not a variable: zones change with move, deal and play", None, "deck = 2"),
    ("assign-option", edit(append="option rounds: int = 3\n" + PROBE.format("rounds = 2")), "error",
     "'rounds' is an option: options are fixed for the whole game", None, "rounds = 2"),
    ("assign-enum-member", probe("hearts = 2"), "error",
     "'hearts' is a member of enum Suit, not a variable", None, "hearts = 2"),
    ("assign-index-local", probe("let xs = [1] xs[0] = 2"), "error",
     "'xs' cannot be indexed: only a per-player variable can be assigned with [...]", None, "xs[0]"),
    ("assign-builtin", probe("players = []"), "error", "'players' cannot be assigned", None, "players = []"),
    ("assign-per-player-without-index", probe("points = 3"), "error",
     "'points' is per player: say whose, like points[active]", None, "points = 3"),
    ("assign-index-shared-var", probe("turns[active] = 3"), "error",
     "'turns' is not per player and cannot be indexed", "declare it per player: var turns[player]: ...",
     "turns[active]"),
    ("assign-wrong-type", probe("turns = active"), "error", "'turns' must be int, not player", None,
     ("active\n", 0)),
    ("assign-index-not-player", probe("points[1] = 3"), "error",
     "the index of a per-player variable must be player, not int", None, "1] = 3"),
    ("move-to-non-zone", probe("move deck to turns"), "error", "expected a zone, not int", None, "turns\n"),
    ("move-non-cards", probe("move turns to deck"), "error",
     "expected cards (a zone or a list of cards), not int", None, "turns to"),
    ("deal-count-not-int", probe("deal true from deck to discard"), "error",
     "the number of cards must be int, not bool", None, "true from"),
    ("shuffle-unknown-zone", probe("shuffle dekc"), "error", "unknown zone 'dekc'", "did you mean 'deck'?", "dekc"),
    ("move-unknown-zone", probe("move deck to discrad"), "error",
     "unknown zone 'discrad'", "did you mean 'discard'?", "discrad"),
    ("deal-unknown-per-player-zone", probe("deal 1 from deck to hnad[active]"), "error",
     "unknown zone 'hnad'", "did you mean 'hand'?", "hnad"),
    ("cards-of-unknown-zone", probe("let n = count(cards(tabel))"), "error",
     "unknown zone 'tabel'", "did you mean 'table'?", "tabel"),
    ("if-condition-not-bool", probe("if turns { }"), "error", "a condition must be bool, not int", None,
     ("turns {", 0)),
    ("log-template-syntax", probe('log "score: {points[active] +}"'), "error",
     "in template: unexpected end of expression",
     "expected a name, a number, a quantifier, a string, '(', '-', '[', 'false', ...", ("}\"", -1)),
    ("log-template-unknown-name", probe('log "score: {ponits[active]}"'), "error",
     "unknown name 'ponits'", "did you mean 'points'?", "ponits"),
    # -------- expressions
    ("unknown-name", probe("let x = trns + 1"), "error", "unknown name 'trns'", "did you mean 'turns'?", "trns"),
    ("function-as-value", probe("let x = best + 1"), "error",
     "'best' is a function: call it, like best(...)", None, "best + 1"),
    ("card-choice-from-unknown-zone", edit(("action draw()", "action draw(c: card from hnad[active])")), "error",
     "unknown zone 'hnad'", "did you mean 'hand'?", "hnad"),
    ("per-player-var-without-index", probe("let x = points + 1"), "error",
     "'points' is per player: say whose, like points[active]", None, "points + 1"),
    ("per-player-zone-without-index", probe("let x = count(hand)"), "error",
     "zone 'hand' is per player: say whose, like hand[active]", None, "hand)"),
    ("shared-zone-indexed-by-player", probe("let x = count(discard[active])"), "error",
     "zone 'discard' is shared, not per player, so it cannot be indexed by a player",
     "declare it per player: discard[player]", "discard[active]"),
    ("not-indexable", probe("let x = turns[0]"), "error", "int cannot be indexed", None, "turns[0]"),
    ("list-index-not-int", probe("let x = players[true]"), "error",
     "a list index must be int, not bool", None, "true]"),
    ("no-card-property", probe("let x = first c in deck: c.valeu"), "error",
     "cards have no property 'valeu'", "did you mean 'value'?", "c.valeu"),
    ("no-play-field", probe("let x = collect q in plays(table): q.playr"), "error",
     "a play has no field 'playr'", "did you mean 'player'?", "q.playr"),
    ("no-field", probe("let x = turns.size"), "error", "int has no field 'size'", None, "turns.size"),
    ("list-mixes-types", probe("let x = [1, true]"), "error", "a list mixes int and bool", None, "true]"),
    ("if-branches-differ", probe("let x = if true then 1 else active"), "error",
     "the two branches have different types (int and player)", None, "if true"),
    ("def-wrong-arity", probe("let x = best(1)"), "error", "'best' takes 0 argument(s), not 1", None, "best(1)"),
    ("def-wrong-argument-type", edit(append="def twice(n: int): int = n * 2\n" + PROBE.format("let x = twice(none)")),
     "error", "argument 'n' of 'twice' must be int, not none", None, "none)"),
    ("unknown-function", probe("let x = besst()"), "error", "unknown function 'besst'", "did you mean 'best'?",
     "besst()"),
    ("builtin-wrong-arity", probe("let x = next_player()"), "error",
     "'next_player' takes 1 argument(s), not 0", None, "next_player()"),
    ("builtin-needs-list", probe("let x = count(turns)"), "error", "'count' needs a list, not int", None, "turns)"),
    ("builtin-wrong-argument-type", probe("let x = seat(3)"), "error",
     "the argument of 'seat' must be player, not int", None, "3)"),
    ("builtin-needs-zone", probe("let x = top(players, 2)"), "error", "expected a zone, not list[player]", None,
     "players, 2"),
    ("plays-of-non-plays-zone", probe("let x = plays(discard)"), "error",
     "zone 'discard' is a pile, not a plays zone", None, "discard)"),
    ("cannot-add", probe("let x = players + 1"), "error", "cannot add list[player] and int", None, "players + 1"),
    ("cannot-add-lists", probe("let x = players + [1]"), "error",
     "cannot add list[player] and list[int]", None, "players + [1]"),
    ("arith-on-non-number", probe("let x = turns * true"), "error", "'*' must be int, not bool", None, "true\n"),
    ("negate-non-number", probe("let x = -active"), "error", "'-' must be int, not player", None, "active\n"),
    ("not-non-bool", probe("let x = not turns"), "error", "'not' must be bool, not int", None, "turns\n"),
    ("and-non-bool", probe("let x = true and 1"), "error", "'and' must be bool, not int", None, "1\n"),
    ("order-non-number", probe("let x = active < 3"), "error", "'<' must be int, not player", None, "active <"),
    ("cannot-compare", probe("let x = turns == active"), "error", "cannot compare int with player", None,
     "turns == active"),
    ("cannot-compare-enums", edit(append="enum Colour { red }\n" + PROBE.format("let x = red == hearts")),
     "error", "cannot compare Colour with Suit", None, "red == hearts"),
    ("in-needs-list", probe("let x = 1 in turns"), "error", "'in' needs a list on its right, not int", None, "turns\n"),
    ("never-in", probe("let x = 1 in players"), "error", "a int can never be in a list[player]", None, "1 in"),
    ("range-bound-not-int", probe("let x = 1..true"), "error", "a range bound must be int, not bool", None, "true\n"),
    ("quantifier-needs-list", probe("let x = any i in turns"), "error",
     "'any' needs a list to range over, not int", None, ("turns\n", 0)),
    ("quantifier-where-not-bool", probe("let x = count p in players where 1"), "error",
     "a 'where' condition must be bool, not int", None, "1\n"),
    ("quantifier-condition-not-bool", probe("let x = all p in players: points[p]"), "error",
     "the condition of 'all' must be bool, not int", None, ("points[p]\n", -1)),
    ("sum-needs-value", probe("let x = sum p in players"), "error",
     "'sum' needs ': <number>' after its list", None, "sum p"),
    ("sum-value-not-int", probe("let x = sum p in players: p"), "error",
     "the value of 'sum' must be int, not player", None, "p\n"),
    ("ties-last-misuse", probe("let x = max p in players: points[p] ties last"), "error",
     "'ties last' only goes with argmax and argmin", None, ("max p", -1)),
    # -------- cards the chooser may not see
    ("by-position-needs-order", edit(append="action peek(c: card from hand[active] by position) { }\n"), "error",
     "'by position' needs an ordered zone, but 'hand' is a set (the order of its cards means nothing)",
     "declare it 'zone hand[player]: pile ...' if its cards keep their places", ("hand[active] by", -1)),
    ("by-position-needs-zones", edit(append="action peek(c: card from cards(deck) by position) { }\n"), "error",
     "'by position' picks a card by its place in a zone: name the zones here directly (a pile or plays zone, "
     "e.g. hand[active])", None, "cards(deck) by"),
    ("by-position-not-with-same", edit(append="action peek(cs: cards from deck size 2 same value by position) { }\n"),
     "error", "'by position' does not go with 'same' (a 'same' set leaves face-down cards out, so there is no "
     "position to pick)", None, "cs: cards"),
    ("by-position-not-for-players", edit(append="action peek(ts: players from players by position) { }\n"), "error",
     "'by position' goes with cards, not with a players choice", None, "ts: players"),
    ("require-reads-face-down", edit(append="action steal(t: player where t != active, c: card from hand[t]) {\n"
                                            "  require c.value > 1\n}\n"), "warning",
     "this requirement reads 'c', which may be a face-down card of hand[t] (a zone the chooser may not see): it "
     "does not apply to a face-down pick",
     "test the card in the effect once it is drawn (if c ... { }), or choose from cards the chooser sees",
     "c.value > 1"),
    ("where-reads-face-down", edit(append="action bet(c: card from deck, t: player where t != active and "
                                          "c.value > 1) { }\n"), "warning",
     "the 'where' of 't' reads 'c', which may be a face-down card of deck (a zone the chooser may not see): it "
     "does not apply to a face-down pick",
     "test the card in the effect once it is drawn (if c ... { }), or choose from cards the chooser sees",
     "c.value > 1"),
    # -------- never used / never taken
    ("zone-never-used", edit(append="zone spare: pile public\n"), "warning",
     "zone 'spare' is never used", None, "zone spare"),
    ("variable-never-used", edit(append="var spare: int = 0\n"), "warning",
     "variable 'spare' is never used", None, "var spare"),
    ("action-never-listed", edit(append="action idle() { }\n"), "warning",
     "action 'idle' can never be taken: no phase lists it", None, "action idle"),
    # -------- the phase graph
    ("phase-no-next-no-end", edit(("phase over { enter { end game winners collect p in players where "
                                   "points[p] == best() } }", "phase over { }")), "error",
     "phase 'over' has no 'next' and never ends the game", "add: next <phase>, or an 'end game' statement",
     "phase over"),
    ("phase-unreachable", probe("log \"never\""), "warning",
     "phase 'probe' is unreachable from the start phase 'play'", "add a 'next' to it from another phase, or remove it",
     "phase probe"),
    ("game-never-ends", edit(("  next over\n}\nphase over", "  next play\n}\nphase over")), "error",
     "the game can never end: no path from the start reaches 'end game'",
     "some phase needs an 'end game' statement, reachable through 'next' clauses", "phase play"),
    ("phase-cannot-reach-end", edit(("  next over\n}", "  next over\n  next stuck\n}"),
                                    append="phase stuck { actions draw end when true next stuck }\n"), "error",
     "once in phase 'stuck' the game can never end",
     "every phase needs a path of 'next' clauses to a phase that ends the game", "phase stuck"),
    ("next-without-fallback", edit(("  next over\n}", "  next over when turns >= 20\n}")), "warning",
     "every 'next' of phase 'play' has a condition: when none holds as the phase ends, the game stops with an error",
     "end the list with a 'next PHASE' without 'when', taken when no condition holds", "next over when"),
    # -------- enums in order, powers, scaling, ranged options
    ("enum-compared-with-a-number", probe("let z = hearts < 3"), "error",
     "'<' compares two members of one enum, not Suit with int", None, "hearts < 3"),
    ("enum-compared-with-another-enum", edit(append="enum Colour { red }\n" + PROBE.format("let z = red >= hearts")),
     "error", "'>=' compares two members of one enum, not Colour with Suit", None, "red >= hearts"),
    ("negative-power", probe("let z = 2 ^ -1"), "error", "a negative power (-1) is not a whole number",
     "a power's exponent is 0 or more", "-1"),
    ("power-of-a-bool", probe("let z = true ^ 2"), "error", "'^' must be int, not bool", None, "true ^"),
    ("scaled-player", edit(append="var holder: player = none\n" + PROBE.format("holder *= 2")), "error",
     "'*=' needs a number, but 'holder' is player", None, "holder *="),
    ("option-range-of-a-bool", edit(append="option fast: bool in 1..2 = true\n"), "error",
     "only an int option takes a range of values ('fast' is bool)", None, "1..2"),
    ("option-range-not-a-range", edit(append="option seat: int in 3 = 3\n"), "error",
     "an option's values are a range of two whole numbers, like 1..4", None, "3 ="),
    ("option-range-empty", edit(append="option seat: int in 4..1 = 3\n"), "error",
     "the range 4..1 holds no number", None, "4..1"),
    ("option-default-outside-its-range", edit(append="option seat: int in 1..4 = 7\n"), "error",
     "the default 7 of option 'seat' is not in 1..4", None, "7"),
    # -------- copies that depend on the setup
    ("copies-read-a-variable", edit(("copies: 3 }", "copies: turns }")), "error",
     "a card's copies may read only the setup: player_count, the options and constants",
     "for example: copies: if player_count <= 4 then 1 else 2", "turns }"),
    ("copies-read-an-int-option-without-range", edit(("copies: 3 }", "copies: extra }"),
                                                     append="option extra: int = 1\n"), "error",
     "copies read option 'extra', whose values cannot all be tried", "give it a range: option extra: int in 1..4 = ...",
     "extra }"),
    ("copies-negative-in-a-setup", edit(("copies: 3 }", "copies: player_count - 3 }")), "error",
     "card 'h1' would have -1 copies with 2 players: at least 0", None, "player_count - 3"),
    ("copies-divide-by-zero", edit(("copies: 3 }", "copies: 8 / (player_count - extra) }"),
                                   append="option extra: int in 1..2 = 1\n"), "error",
     "the copies of card 'h1' divide by zero with 2 players and extra = 2", None, "8 /"),
    ("copies-in-no-game", edit(("copies: 3 }", "copies: if player_count > 4 then 1 else 0 }")), "error",
     "card 'h1' has no copy in any game: its copies are 0 with every setup", None, "if player_count"),
    ("idle-loop", edit(("  next over\n}", "  next over\n  next spin\n}"),
                       append="phase spin { next spun }\nphase spun { next spin next over }\n"), "error",
     "the phases spin -> spun -> spin can loop forever without a player decision or a change of state",
     "give one of them an action, a statement, or a way out", "phase spin"),
    ("idle-self-loop", edit(("  next over\n}", "  next over\n  next spin\n}"),
                            append="phase spin { next spin when turns > 3 next over }\n"), "error",
     "the phases spin -> spin can loop forever without a player decision or a change of state",
     "give one of them an action, a statement, or a way out", "phase spin"),
]


@pytest.mark.parametrize("text, severity, message, hint, where", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_diagnostic(text, severity, message, hint, where):
    found = [d for d in diagnostics(text) if d.message == message]
    assert found, f"no {message!r} in:\n" + "\n".join(d.headline() for d in diagnostics(text))
    d = found[0]
    assert d.severity == severity
    assert d.hint == hint
    if where is None:
        assert (d.span.line, d.span.col) == (1, 1)
    else:
        needle, nth = where if isinstance(where, tuple) else (where, 0)
        assert (d.span.line, d.span.col) == pos(text, needle, nth)
    if severity == "warning":
        # warnings alone never fail a check
        if not [x for x in diagnostics(text) if x.severity == "error"]:
            check_text(text, "t.rules")


def test_every_case_id_is_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- rendering
def test_rendered_diagnostic_reads_like_a_compiler():
    text = probe("move deck to discrad")
    with pytest.raises(RulesError) as info:
        check_text(text, "games/tiny.rules")
    rendered = info.value.render().split("\n")
    line, col = pos(text, "discrad")
    i = rendered.index(f"games/tiny.rules:{line}:{col}: error: unknown zone 'discrad' [unknown-name]")
    assert rendered[i + 1] == "    " + "    move deck to discrad"
    assert rendered[i + 2] == "    " + " " * (col - 1) + "^~~~~~~"
    assert rendered[i + 3] == "  hint: did you mean 'discard'?"


def test_errors_come_first_then_warnings_each_in_file_order():
    text = edit(("var turns: int = 0", "var turns: int = 0\nvar spare: int = 0")) + \
        PROBE.format("let a = trns let b = besst()") + "zone spare2: pile public\n"
    ds = diagnostics(text)
    kinds = [d.severity for d in ds]
    assert kinds == sorted(kinds)  # "error" < "warning"
    assert kinds.count("error") == 2 and kinds.count("warning") >= 2
    for sev in ("error", "warning"):
        spans = [(d.span.line, d.span.col) for d in ds if d.severity == sev]
        assert spans == sorted(spans)
    # a warning early in the file still comes after the errors
    assert ds[0].severity == "error" and ds[-1].severity == "warning"
    assert min(d.span.line for d in ds if d.severity == "warning") < ds[0].span.line


def test_three_independent_errors_give_three_diagnostics():
    text = edit(("var turns: int", "var turns: itn"), ("next over", "next ovr"), ("start play", "start plya"))
    errs = errors(text)
    assert [d.message for d in errs] == ["unknown phase 'plya'", "unknown type 'itn'", "unknown phase 'ovr'"]
    with pytest.raises(RulesError) as info:
        check_text(text)
    assert len([d for d in info.value.diagnostics if d.severity == "error"]) == 3


def test_many_errors_are_all_reported():
    stmts = " ".join(["let a = trns", "move deck to discrad", "turns = active", "let b = bset()",
                      "let c = 1 in turns", "end game winners 3"])
    errs = errors(probe(stmts))
    assert len(errs) == 6


def test_an_unknown_name_does_not_cascade():
    # the unknown name has type 'any', so using it further adds no error
    errs = errors(probe("let x = trns let y = x * 2 let z = x.value let w = x[0] + count(x)"))
    assert [d.message for d in errs] == ["unknown name 'trns'"]


def test_an_unknown_type_is_reported_once():
    text = edit(append="def f(n: Nope): Nope = n\n" + PROBE.format("let a = f(1) let b = f(2) let c = f(3)"))
    assert [d.message for d in errors(text)] == ["unknown type 'Nope'", "unknown type 'Nope'"]


def test_warnings_do_not_fail_the_check():
    text = edit(append="zone spare: pile public\nvar unused: int = 0\naction idle() { }\n")
    model = check_text(text)
    assert sorted(d.message for d in model.warnings) == [
        "action 'idle' can never be taken: no phase lists it", "variable 'unused' is never used",
        "zone 'spare' is never used"]


# ---------------------------------------------------------------- type rules that hold
@pytest.mark.parametrize("stmt", [
    "let a = count(deck) + count(hand[active])",       # zone where a list is expected
    "let b = deck + hand[active]",                      # zone + zone is a list of cards
    "let c = cards(deck) == deck",                      # list[card] vs zone compare
    "let d = first c in deck where c.suit == hearts",   # a quantifier ranges over a zone
    "let e = if true then deck else cards(discard)",    # zone and list[card] unify
    "let f = if true then [] else players",             # the empty list fits any list
    "let g = sorted(collect c in deck: c.value)",
    "let h = active in players and not (active == none)",
    "let i = argmax p in players: points[p] ties last",
    "move first c in deck to discard",                  # a single card moves too
    "move top(deck, 2) to hand[active] bottom",
    "for c in deck { log \"{c.name} is {c.value}\" }",
    "holder = none",
    "turns -= 1 points[active] += 2",
    "let j = max(1, abs(-3)) + min(2, seat(active))",
    "let k = random(players) == next_player(active)",
    "let l = [1, 2] + [3]",
    "let m = 1..3",
    "let n = count p in players_after(active) where p != active",
    "let o = distinct(players_from(active))",
    "reveal hand[active] conceal hand[active]",
    "let q = sum c in cards(table): c.value",
    "let r = count(plays(table)) + plays(table)[0].size",
    "let s = 2 ^ 3 ^ 2 - -2 ^ 2 + turns ^ 2",
    "turns *= 2 turns /= 3 points[active] *= 2 points[active] /= 2",
    "let u = hearts < spades and hearts <= hearts and max(hearts, spades) == spades and min(spades, hearts) > hearts",
    "let w = (argmax s in [hearts, spades]: s) == hearts and (max s in [spades]: s) >= (min s in [spades]: s)",
    "let x = sorted([spades, hearts]) == [hearts, spades]",
    "end game winners []",
    "let y = [] == players and (first c in deck where c.suit >= spades) == none",
])
def test_well_typed_statements_are_accepted(stmt):
    text = edit(append="var holder: player = none\n" + PROBE.format(stmt + "\n    holder = active"))
    assert errors(text) == []


def test_a_def_taking_a_list_of_cards_accepts_a_zone():
    text = edit(append="def total(cs: list[card]): int = sum c in cs: c.value\n"
                + PROBE.format("let t = total(deck) + total(hand[active]) + total(cards(table))"))
    assert errors(text) == []


def test_assignable_and_comparable_rules():
    assert T.assignable(T.CARDS, T.ZONE)
    assert not T.assignable(T.ZONE, T.CARDS)
    assert not T.assignable(T.PLAYERS, T.ZONE)
    assert T.assignable(T.PLAYER, T.NONE) and T.assignable(T.CARD, T.NONE) and not T.assignable(T.INT, T.NONE)
    assert T.assignable(T.list_of(T.INT), T.list_of(T.ANY))
    assert not T.assignable(T.list_of(T.INT), T.list_of(T.PLAYER))
    assert T.comparable(T.ZONE, T.CARDS) and T.comparable(T.CARDS, T.ZONE)
    assert not T.comparable(T.enum_type("A"), T.enum_type("B"))
    assert T.unify(T.ZONE, T.ZONE) == T.ZONE  # either of two zones is a zone (a def may give one)
    assert T.unify(T.ZONE, T.CARDS) == T.CARDS and T.unify(T.CARDS, T.ZONE) == T.CARDS
    assert T.unify(T.NONE, T.PLAYER) == T.PLAYER
    assert T.elem_of(T.ZONE) == T.CARD and T.elem_of(T.INT) == T.ANY
    assert str(T.list_of(T.enum_type("Suit"))) == "list[Suit]"


def test_did_you_mean():
    assert did_you_mean("discrad", ["deck", "discard"]) == "did you mean 'discard'?"
    assert did_you_mean("zzz", ["deck", "discard"]) is None
    assert did_you_mean("x", []) is None


# ---------------------------------------------------------------- odd but parseable input never crashes
ODD = [
    "def f(): int = g()\n",                                    # a def calling an undeclared function
    "def f(): int = f\n",                                      # a def naming itself as a value
    "def f(x: Nope): Nope = x.y\n",
    "card \"weird\" { value: hearts suit: 3 copies: none }\n",  # card fields of the wrong type
    "card \"weird2\" { value: [1] suit: [hearts] copies: -1 }\n",
    "enum Dup { a, a, b, b, }\n",
    "enum Suit { x }\n",                                       # an enum with the name of another
    "enum hearts { y }\n",                                     # an enum named like a member
    "phase self { next self }\n",                              # next to itself
    "phase self2 { actions draw next self2 }\n",
    "option o: Suit = spades\noption p: list[int] = [1]\noption q: player = none\n",
    "var v: list[list[Suit]] = [[hearts]]\n",
    "property value: int\n",
    "invariant \"x\" at nowhere: nothing\n",
    "action a(x: int in players, y: player where y, z: cards from players size deck same suit) { }\n",
    "action b(c: card from c) { effect { play c to c by c } }\n",
    "zone z[player]: plays plays owner owner\n",
    "def g(a: int): int = a\ndef h(): int = g(g(g(g(1))), 2)\n",
    "var w: player = players\nvar u: int = u\n",
    "game \"Other\" { players 1..1 start nowhere cards start in hand score p: p }\n",
    "phase q { enter { let x = x } actor none end when none next q when none }\n",
    "action c() { text \"{}\" }\naction d() { text \"{{x}}\" }\naction e() { text \"{ 1 + }\" }\n",
    "phase r { exit { for p in players { for p in p { let p = p } } } next r }\n",
    "def k(): list[card] = deck\ndef l(): int = count(k()) + k()[0].value + k().value\n",
]


@pytest.mark.parametrize("snippet", ODD)
def test_odd_input_gives_diagnostics_not_exceptions(snippet):
    ds = diagnostics(BASE + snippet)
    for d in ds:
        assert re.match(r"^t\.rules:\d+:\d+: (error|warning): \S", d.headline())
        d.render(BASE + snippet)


@pytest.mark.parametrize("snippet", ODD)
def test_odd_input_alone_gives_diagnostics_not_exceptions(snippet):
    diagnostics(snippet)


# ---------------------------------------------------------------- safety nets
def test_recursion_error_while_checking_becomes_a_diagnostic():
    import inspect
    import sys

    text = edit(append="var deep: int = " + "(1 + " * 90 + "1" + ")" * 90 + "\n")
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 150)
    try:
        with pytest.raises(RulesError) as info:
            check_text(text, "t.rules")
    finally:
        sys.setrecursionlimit(old)
    assert [d.message for d in info.value.diagnostics] == ["the rules nest too deeply to check"]


def test_recursion_error_while_parsing_becomes_a_diagnostic(monkeypatch):
    from rulespec.lang import parser

    class Boom:
        def parse(self, *a, **k):
            raise RecursionError

    monkeypatch.setattr(parser, "_lark", lambda: Boom())
    with pytest.raises(RulesError) as info:
        parser.parse_text("game \"x\" { }", "t.rules")
    assert info.value.diagnostics[0].message == "the file nests too deeply to parse"


@pytest.mark.parametrize("exc, message", [(PermissionError(13, "Permission denied"), "permission denied"),
                                          (OSError(5, "Input/output error"), "cannot read the file: Input/output error")])
def test_unreadable_file(monkeypatch, tmp_path, exc, message):
    f = tmp_path / "x.rules"
    f.write_text("game \"x\" { }", encoding="utf-8")

    def fail(self):
        raise exc

    monkeypatch.setattr(Path, "read_bytes", fail)
    with pytest.raises(RulesError) as info:
        check_file(f)
    assert info.value.render() == f"{f}:1:1: error: {message} [unreadable-file]"


def test_a_requirement_on_cards_the_chooser_sees_is_not_warned():
    """Only a pick that may be face down is warned about: the chooser's own 'owner' zone, a public
    zone and a list of cards are seen."""
    text = edit(append="action take(c: card from hand[active] + discard, d: card from cards(deck)) {\n"
                       "  require c.value > d.value\n}\n")
    assert not [d for d in diagnostics(text) if "face-down" in d.message or d.severity == "error"]
