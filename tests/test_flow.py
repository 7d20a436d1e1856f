"""The static information-flow check (rulespec/lang/checker/flow.py): planted leaks of each kind
are reported at their line with their code, and their announced (or revealed) twins are clean;
the shipped games and the clean labs give no finding."""
from __future__ import annotations

import glob
from pathlib import Path

import pytest

from rulespec.lang.checker import check_file, check_text

ROOT = Path(__file__).resolve().parent.parent

HEAD = '''  start setup
  cards start in deck
}
property value: int
card "One" { value: 1  copies: 4 }
card "Five" { value: 5  copies: 4 }
zone deck: pile hidden
zone hand[player]: set owner
'''

# the setup of both test games: deal 3 cards each, then the first player is `first`
SETUP = '''phase setup {{
  enter {{
    shuffle deck
    for p in players {{ deal 3 from deck to hand[p] }}
    {first} = players[0]
  }}
  next {next}
}}
'''

BASE = '''
game "Flow" {
  players 2..3
''' + HEAD + '''zone table: pile public
var total: int = 0
var turns: int = 0
def holds_five(p: player): bool = any c in hand[p]: c.value == 5

effect hit { resolve { total += 1 } }

action put(c: card from hand[active]) {
  text "play {c}"
  effect { move c to table }
}

action probe(n: int in 1..5) {
  effect {
    let q = next_player(active)
    BODY
  }
}

''' + SETUP.format(first="active", next="turn") + '''phase turn {
  actions put, probe
  after { turns += 1  active = next_player(active) }
  end when turns >= 6
  next done
}
phase done { enter { end game } }
'''


def findings(body: str, game: str = BASE) -> list:
    """(line in the body, code) of each secrecy finding of the game (BASE) with BODY put in."""
    text = game.replace("BODY", body)
    start = text.count("\n", 0, text.index(body)) + 1
    out = []
    for d in check_text(text, "t.rules").warnings:
        if d.code.startswith("secrecy-"):
            out.append((d.span.line - start + 1, d.code))
    return sorted(out)


# (what is planted, the leaking body, where and what is reported, the clean twin)
PLANTED = [
    ("a logged property of a hidden card",
     'log "{q} holds {count c in hand[q] where c.value == 5} Fives"',
     [(1, "secrecy-log")],
     'announce "{q} holds {count c in hand[q] where c.value == 5} Fives"'),
    ("a public variable set from a sum over a hidden hand",
     'total = sum c in hand[q]: c.value',
     [(1, "secrecy-var")],
     'total = sum c in hand[q]: c.value\n    announce "{q}\'s hand is worth {total}"'),
    ("a branch on a hidden hand that changes who is targeted",
     'if holds_five(q) {\n      stack hit by active target q\n    } else {\n      stack hit by active target active\n    }',
     [(2, "secrecy-target"), (4, "secrecy-target")],
     'if holds_five(q) {\n      announce "{q} holds a Five"\n      stack hit by active target q\n'
     '    } else {\n      announce "{q} holds no Five"\n      stack hit by active target active\n    }'),
    ("a guess whose outcome ends the game without an announce",
     'if any c in hand[q]: c.value == n {\n      end game winners [active]\n    }',
     [(2, "secrecy-end")],
     'if any c in hand[q]: c.value == n {\n      announce "{active} guessed right"\n      end game winners [active]\n    }'),
    ("a loop over hidden cards whose count is visible",
     'for c in collect x in hand[q] where x.value == 5 {\n      log "{q} shows a Five"\n    }',
     [(2, "secrecy-log")],
     'for c in cards(hand[q]) {\n      log "{q} holds a card"\n    }'),
    ("a hidden card's property read before it is shown",
     'let c = top(deck, 1)[0]\n    move c to hand[q]\n    if c.value == 5 { turns += 1 }',
     [(3, "secrecy-var")],
     'let c = top(deck, 1)[0]\n    move c to hand[q]\n    reveal hand[q]\n    if c.value == 5 { turns += 1 }'),
    ("a hand read when the condition it is revealed under fails",
     'if turns == 0 { reveal hand[q] }\n    if turns != 0 { total = sum c in hand[q]: c.value }',
     [(2, "secrecy-var")],
     'if turns == 0 { reveal hand[q] }\n    if turns == 0 { total = sum c in hand[q]: c.value }'),
    ("a hand read in the arm of an if-expression where it is not revealed",
     'if turns != 0 { reveal hand[q] }\n    total = if turns == 0 then sum c in hand[q]: c.value else 0',
     [(2, "secrecy-var")],
     'if turns != 0 { reveal hand[q] }\n    total = if turns == 0 then 0 else sum c in hand[q]: c.value'),
    ("a property of cards picked from a hidden hand by a test that lets face-down ones pass",
     'total = sum c in (collect x in hand[q] where x.value > 0): c.value',
     [(1, "secrecy-var")],
     'total = sum c in (collect x in hand[q] where revealed(x) and x.value > 0): c.value'),
    ("a hidden card taken out of a hidden list it was not chosen from",
     'let cs = cards(hand[q])\n    let c = first x in cards(hand[active]) where x.value == 5\n'
     '    total = count(collect x in cs where x != c)',
     [(3, "secrecy-var")],
     'let cs = cards(hand[q])\n    let c = choose q "pick": card from cs\n    total = count(collect x in cs where x != c)'),
    ("a question put only when a hidden hand holds a card, shown only once answered",
     'let fives = collect c in cards(hand[q]) where c.value == 5\n    if count(fives) > 0 {\n'
     '      if ask active "take a Five of {q}\'s hand?" { move random(fives) to table }\n    }',
     [(3, "secrecy-target")],
     'let fives = collect c in cards(hand[q]) where c.value == 5\n'
     '    if ask active "take a Five of {q}\'s hand, if they hold one?" {\n'
     '      if count(fives) > 0 { move random(fives) to table }\n    }'),
    ("a log line seen while a question is put, before the card is shown",
     'let c = top(deck, 1)[0]\n    log "the top card is worth {c.value}"\n    let go = ask active "go on?"\n'
     '    move c to table',
     [(2, "secrecy-log")],
     'let c = top(deck, 1)[0]\n    log "the top card is worth {c.value}"\n    move c to table\n'
     '    let go = ask active "go on?"'),
    ("a variable seen while a question is put, before the hand is revealed",
     'total = sum c in hand[q]: c.value\n    let go = ask active "go on?"\n    reveal hand[q]',
     [(1, "secrecy-var")],
     'total = sum c in hand[q]: c.value\n    reveal hand[q]\n    let go = ask active "go on?"'),
    ("a look at the cards a hidden property picks (the others see how many)",
     'look collect c in cards(hand[q]) where c.value == 5 by active',
     [(1, "secrecy-move")],
     'look collect c in cards(hand[q]) where c.value == 5 by active\n'
     '    announce "{active} looks at the {count(collect c in cards(hand[q]) where c.value == 5)} Fives of {q}"'),
    ("a look in a branch on a hidden hand",
     'if holds_five(q) { look cards(hand[q]) by active }',
     [(1, "secrecy-move")],
     'if holds_five(q) {\n      announce "{q} holds a Five"\n      look cards(hand[q]) by active\n    }'),
]


# the game with BODY in the place of the action probe: what decides whether it is legal
LEGAL = BASE.replace(BASE[BASE.index("action probe("):BASE.index("phase setup")], "BODY\n\n")

# (what is planted, the leaking action, where and what is reported, the clean twin): legality may
# read what its decider sees -- their own hand, a public zone -- and nothing else
PLANTED_LEGAL = [
    ("a requirement on the next player's hand",
     'action probe() {\n  require any c in hand[next_player(active)]: c.value == 5\n  effect { turns += 0 }\n}',
     [(2, "secrecy-legal")],
     'action probe() {\n  require any c in hand[active]: c.value == 5\n  effect { turns += 0 }\n}'),
    ("a requirement through a def, on another player's hand",
     'action probe() {\n  require not holds_five(next_player(active))\n  effect { turns += 0 }\n}',
     [(2, "secrecy-legal")],
     'action probe() {\n  require not holds_five(active)\n  effect { turns += 0 }\n}'),
    ("a player choice filtered on that player's hand",
     'action probe(p: player where p != active and holds_five(p)) {\n  effect { turns += 0 }\n}',
     [(1, "secrecy-legal")],
     'action probe(p: player where p != active and count(hand[p]) > 0) {\n  effect { turns += 0 }\n}'),
    ("a card choice whose domain picks hidden cards by a property (a where on the pick itself is fine)",
     'action probe(c: card from collect x in hand[next_player(active)] where x.value == 5) {\n'
     '  effect { move c to table }\n}',
     [(1, "secrecy-legal")],
     'action probe(c: card from hand[next_player(active)] where c.value == 5) {\n  effect { move c to table }\n}'),
    ("a response whose requirement reads the hand of the entry's target (the responder is active)",
     'action probe() {\n  effect { stack hit target next_player(active) }\n}\naction answer() {\n  respond to hit\n'
     '  require any c in hand[stack_top.target]: c.value == 5\n  effect { turns += 0 }\n}',
     [(6, "secrecy-legal")],
     'action probe() {\n  effect { stack hit target next_player(active) }\n}\naction answer() {\n  respond to hit\n'
     '  require any c in hand[active]: c.value == 5\n  effect { turns += 0 }\n}'),
    ("an action a card gives, whose requirement reads another player's hand (its decider is owner)",
     'card "Seer" { value: 0  copies: 1\n  while in hand {\n    action probe() {\n'
     '      require any c in hand[next_player(owner)]: c.value == 5\n      effect { turns += 0 }\n    }\n  }\n}',
     [(4, "secrecy-legal")],
     'card "Seer" { value: 0  copies: 1\n  while in hand {\n    action probe() {\n'
     '      require any c in hand[owner]: c.value == 5\n      effect { turns += 0 }\n    }\n  }\n}'),
    ("a conversion whose requirement reads another player's hand (its user is owner)",
     'conversion wild as "Five" {\n  from c: card from hand[owner]\n'
     '  require any d in hand[next_player(owner)]: d.value == 5\n}\n'
     'action probe(u: use "Five" from hand[active]) {\n  effect { move u.cards to table }\n}',
     [(3, "secrecy-legal")],
     'conversion wild as "Five" {\n  from c: card from hand[owner]\n'
     '  require any d in hand[owner]: d.value == 5\n}\n'
     'action probe(u: use "Five" from hand[active]) {\n  effect { move u.cards to table }\n}'),
]


@pytest.mark.parametrize("what,leak,where,twin", PLANTED_LEGAL, ids=[p[0] for p in PLANTED_LEGAL])
def test_planted_legality_leak_reported_at_its_line(what, leak, where, twin):
    assert findings(leak, LEGAL) == where
    assert findings(twin, LEGAL) == []


def test_an_others_zone_of_a_player_choice_that_excludes_the_decider_is_seen():
    game = LEGAL.replace("zone table: pile public", "zone table: pile public\nzone shown[player]: set others") \
        .replace("deal 3 from deck to hand[p]", "deal 3 from deck to hand[p]  deal 1 from deck to shown[p]")
    body = 'action probe(p: player{}) {{\n  require any c in shown[p]: c.value == 5\n  effect {{ turns += 0 }}\n}}'
    assert findings(body.format(""), game) == [(2, "secrecy-legal")]  # p may be the decider
    assert findings(body.format(" where p != active"), game) == []


def test_a_phase_requirement_is_read_for_each_action_it_offers():
    game = LEGAL.replace("  actions put, probe\n", "  actions put, probe\n  require not holds_five(next_player(active))\n")
    body = 'action probe() {\n  effect { turns += 0 }\n}'
    text = game.replace("BODY", body)
    found = [d for d in check_text(text, "t.rules").warnings if d.code == "secrecy-legal"]
    assert [d.span.line for d in found] == [text[:text.index("require not holds_five")].count("\n") + 1]
    assert findings(body, game.replace("next_player(active)", "active")) == []


# a `choose` in a block: the values it offers are its chooser's to see (q is the next player)
PLANTED_CHOOSE = [
    ("a player choice of q filtered on the active player's hand",
     'let x = choose q "whom": player where any c in hand[active]: c.value == 5',
     [(1, "secrecy-legal")],
     'let x = choose q "whom": player where any c in hand[q]: c.value == 5'),
    ("a card choice of the active player filtered on cards q chose from q's hand",
     'let pair = choose q "two": cards from hand[q] size 2\n'
     '    let c = choose active "one": card from pair where any x in pair: x.value == 5',
     [(2, "secrecy-legal")],
     'let pair = choose q "two": cards from hand[q] size 2\n'
     '    let c = choose q "one": card from pair where any x in pair: x.value == 5'),
]


@pytest.mark.parametrize("what,leak,where,twin", PLANTED_CHOOSE, ids=[p[0] for p in PLANTED_CHOOSE])
def test_planted_choice_leak_reported_at_its_line(what, leak, where, twin):
    assert [f for f in findings(leak) if f[1] == "secrecy-legal"] == where
    assert [f for f in findings(twin) if f[1] == "secrecy-legal"] == []


def test_the_read_of_a_legality_leak_is_the_related_place():
    body = 'action probe() {\n  require turns >= 0 and n_fives(next_player(active)) > 0\n  effect { turns += 0 }\n}'
    text = LEGAL.replace("BODY", body).replace(
        "def holds_five", "def n_fives(p: player): int = count c in hand[p] where c.value == 5\ndef holds_five")
    (d,) = [d for d in check_text(text, "t.rules").warnings if d.code == "secrecy-legal"]
    line = text.splitlines()[d.span.line - 1]
    assert d.related.span.line == d.span.line and d.related.span.col == line.index("n_fives") + 1
    assert "cannot see" in d.message and "effect" in d.hint


def test_a_condition_changed_in_the_block_does_not_reveal():
    # turns == 0 after `turns += 1` is not the turns == 0 the reveal was made under
    body = 'if turns == 0 { reveal hand[q] }\n    turns += 1\n    if turns == 0 { total = sum c in hand[q]: c.value }'
    assert findings(body) == [(3, "secrecy-var")]


@pytest.mark.parametrize("what,leak,where,twin", PLANTED, ids=[p[0] for p in PLANTED])
def test_planted_leak_reported_at_its_line(what, leak, where, twin):
    assert findings(leak) == where
    assert findings(twin) == []


def test_count_of_a_hidden_zone_is_public():
    assert findings('total = count(hand[q])\n    log "{q} holds {count(hand[q])} cards"') == []


def test_a_card_moved_face_up_is_public_after():
    assert findings('let c = top(deck, 1)[0]\n    move c to table\n    if c.value == 5 { total += 1 }') == []


def test_the_read_is_the_related_place():
    text = BASE.replace("BODY", 'total = sum c in hand[q]: c.value')
    [d] = [d for d in check_text(text, "t.rules").warnings if d.code == "secrecy-var"]
    line = text.count("\n", 0, text.index("sum c in hand[q]")) + 1
    assert d.span.line == line and d.related is not None and d.related.span.line == line
    assert d.related.span.col == text.split("\n")[line - 1].index("hand[q]") + 1  # the hidden zone read
    assert "read" in d.related.message and d.hint and "announce" in d.hint
    assert "[secrecy-var]" in d.render() and "note:" in d.render()


def test_a_read_on_another_line_is_the_related_place():
    text = BASE.replace("BODY", 'let s = sum c in hand[q]: c.value\n    total = s')
    [d] = [d for d in check_text(text, "t.rules").warnings if d.code == "secrecy-var"]
    assert d.related.span.line == d.span.line - 1


def test_an_allow_comment_silences_a_finding_and_is_counted():
    body = 'total = sum c in hand[q]: c.value  # rulespec: allow secrecy-var -- a test of silencing'
    m = check_text(BASE.replace("BODY", body), "t.rules")
    assert [d for d in m.warnings if d.code.startswith("secrecy-") or d.code == "unused-allow"] == []
    assert [d.code for d in m.silenced] == ["secrecy-var"]


def _secrecy(path: str) -> list:
    return [d for d in check_file(path).warnings if d.code.startswith("secrecy-")]


LEAKY_LABS = {"secrecy_announce.rules", "secrecy_cause.rules", "secrecy_offered.rules", "secrecy_planted.rules", "secrecy_setup.rules", "secrecy_window.rules"}


@pytest.mark.parametrize("path", sorted(glob.glob(str(ROOT / "games" / "*.rules")))
                         + sorted(glob.glob(str(ROOT / "tests" / "rules" / "*.rules"))),
                         ids=lambda p: Path(p).name)
def test_clean_files_have_no_finding(path):
    name = Path(path).name
    if name in LEAKY_LABS:
        pytest.skip("a known finding")
    try:
        found = _secrecy(path)
    except Exception:  # a lab that does not check on purpose
        pytest.skip("does not check")
    assert found == []


def test_the_example_of_the_docs():
    """docs/language.md (Secrecy): a log and a move in a branch on a hidden hand; announced, clean."""
    leak = ('if holds_five(q) {\n      log "{q} holds a Five"\n'
            '      move first c in hand[q] where c.value == 5 to table\n    }')
    assert findings(leak) == [(2, "secrecy-log"), (3, "secrecy-move")]
    assert findings(leak.replace("log", "announce")) == []


@pytest.mark.parametrize("name,where", [
    ("secrecy_planted.rules", [(43, "secrecy-var"), (53, "secrecy-var")]),  # hint = next_hand_value()
    ("secrecy_window.rules", [(33, "secrecy-target")]),   # the window asks only Counter holders
    ("secrecy_offered.rules", [(35, "secrecy-log")]),     # the total of the rival's kept cards (leak=true)
    ("secrecy_setup.rules", [(38, "secrecy-var")]),       # the published total (option leak)
    ("secrecy_announce.rules", [(37, "secrecy-log"), (38, "secrecy-move"), (40, "secrecy-log"),
                                (42, "secrecy-var")]),    # the answers as log lines (announce=false)
])
def test_leaky_labs_reported_where_they_leak(name, where):
    found = [(d.span.line, d.code) for d in _secrecy(str(ROOT / "tests" / "rules" / name))]
    assert sorted(found) == where


def test_the_language_server_shows_it_as_you_type():
    from rulespec.tools.editor.lsp_analysis import Analysis
    text = BASE.replace("BODY", 'total = sum c in hand[q]: c.value')
    assert any(d.code == "secrecy-var" and d.related is not None for d in Analysis(text, "t.rules").diagnostics)


def test_an_announcing_arm_makes_the_other_arms_public_but_not_their_own_conditions():
    assert findings('if holds_five(q) {\n      announce "{q} holds a Five"\n    } else {\n'
                    '      log "{q} holds no Five"\n    }') == []
    assert findings('if holds_five(q) {\n      announce "{q} holds a Five"\n'
                    '    } elif any c in hand[q]: c.value == 1 {\n      log "{q} holds a One"\n    }') \
        == [(4, "secrecy-log")]


PHASES = '''
game "Phases" {
  players 2..2
''' + HEAD + '''var shower: player = none
var shown: bool = false
var total: int = 0

action show_hand() {
  effect { shown = true  reveal hand[active] }
}
action skip() {
  effect { total += 0 }
}

''' + SETUP.format(first="shower", next="show") + '''phase show {
  enter { shown = false  active = shower }
  actions SHOW_ACTIONS
  end when shown
  next score
}
phase score {
  enter {
    let s = shower
    total = sum c in hand[s]: c.value
  }
  next finish
}
phase finish { enter { end game } }
'''


def _phase_findings(actions: str, score_extra: str = "") -> list:
    text = PHASES.replace("SHOW_ACTIONS", actions)
    return [(d.span.line, d.code) for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")]


def test_a_zone_shown_in_a_phase_every_path_passes_through_stays_public():
    # the show phase can only end by show_hand, which reveals the shower's hand: score reads it
    assert _phase_findings("show_hand") == []


def test_a_phase_that_may_end_without_the_reveal_shows_nothing():
    # skip never sets the flag, but show_skip sets it without revealing: no reveal is certain
    text = PHASES.replace("SHOW_ACTIONS", "show_hand, show_skip").replace(
        "action skip()", "action show_skip() {\n  effect { shown = true }\n}\naction skip()")
    found = [(d.code) for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")]
    assert found == ["secrecy-var"]


def test_cards_moved_into_the_zone_after_the_reveal_are_hidden_again():
    text = PHASES.replace("SHOW_ACTIONS", "show_hand").replace(
        "  next score\n}", "  exit { deal 1 from deck to hand[shower] }\n  next score\n}")
    found = [(d.code) for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")]
    assert found == ["secrecy-var"]


def test_a_path_that_skips_the_revealing_phase_shows_nothing():
    text = PHASES.replace("SHOW_ACTIONS", "show_hand").replace("  next show\n", "  next score when total == 0\n  next show\n", 1)
    found = [(d.code) for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")]
    assert found == ["secrecy-var"]


START = '''game "Start" {
  players 2..3
  start setup
  cards start in box
}
property value: int
card "One" { value: 1  copies: 4 }
card "Five" { value: 5  copies: 4 }
zone box: pile hidden
zone deck: pile hidden
zone hand[player]: set owner
var total: int = 0
phase setup {
  enter {
    move collect c in box where c.value == 5 to deck
    BODY
    active = players[0]
  }
  next done
}
phase done { enter { end game } }
'''


def _start_findings(body: str) -> list:
    text = START.replace("BODY", body)
    start = text.count("\n", 0, text.index(body)) + 1
    return sorted((d.span.line - start + 1, d.code) for d in check_text(text, "t.rules").warnings
                  if d.code.startswith("secrecy-"))


def test_shuffling_one_zone_of_the_start_leaves_the_others_as_everyone_knows_them():
    assert _start_findings('shuffle deck\n    total = sum c in box: c.value') == []


def test_a_shuffled_zone_of_the_start_is_hidden():
    assert _start_findings('shuffle box\n    total = sum c in box: c.value') == [(2, "secrecy-var")]


def test_a_deal_in_a_loop_of_the_start_forgets_every_zone_after_it():
    body = 'for p in players { deal 1 from deck to hand[p] }\n    total = sum c in box: c.value'
    assert _start_findings(body) == [(2, "secrecy-var")]


def test_a_trigger_on_the_start_phase_sees_the_cards_as_everyone_knows_them():
    trig = 'trigger count_box on phase_start when phase == "setup" {\n  total = sum c in box: c.value\n}\n'
    text = START.replace("BODY", "").replace("phase setup {", trig + "phase setup {")
    assert [d for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")] == []
    shuffled = text.replace("  total = sum", "  shuffle box\n  total = sum")
    # the trigger's read, and the enter's after it (the enter runs after the trigger shuffled box)
    assert sorted(d.code for d in check_text(shuffled, "t.rules").warnings if d.code.startswith("secrecy-")) \
        == ["secrecy-move", "secrecy-var"]


EVENTS = '''game "Events" {
  players 2..3
''' + HEAD + '''zone stash[player]: set owner
var total: int = 0
var turns: int = 0

event out(p: player) "A player goes out: their hand is turned face up."
event show_card(p: player, c: card) "A card of a player's is turned face up."
trigger turn_card on show_card when not revealed(c) { reveal c }
trigger go_out on out {
  ON_BODY
}
EXTRA
trigger score_out after out {
  total = sum c in hand[p]: c.value
}

action quit() {
  effect { emit out(active) }
}
action keep(c: card from hand[active]) {
  effect { move c to stash[active] }
}

''' + SETUP.format(first="active", next="turn") + '''phase turn {
  actions quit, keep
  after { turns += 1  active = next_player(active) }
  end when turns >= 6
  next done
}
phase done { enter { end game } }
'''

# every card of the hand through the event that turns one face up (a card face up already is not
# turned again: `when not revealed(c)`)
SHOW_EACH = 'for c in cards(hand[p]) {\n    if not revealed(c) { emit show_card(p, c) }\n  }'


def _event_findings(on_body: str, extra: str = "") -> list:
    text = EVENTS.replace("ON_BODY", on_body).replace("EXTRA", extra)
    line = text.count("\n", 0, text.index("total = sum c in hand[p]")) + 1
    return sorted((d.span.line - line, d.code) for d in check_text(text, "t.rules").warnings
                  if d.code.startswith("secrecy-"))


# (what, the `on` handler and more rules that leave the hand hidden (the after-trigger's read is
# reported), the clean twin, whose `on` handler leaves it face up)
EVENT_REVEALS = [
    ("the on handler reveals the hand only when a condition holds",
     ('if turns > 2 { reveal hand[p] }', ''), ('reveal hand[p]', '')),
    ("the on handler reveals another zone",
     ('reveal stash[p]', ''), ('reveal hand[p]', '')),
    ("the event turning each card face up is not emitted for every card",
     (SHOW_EACH.replace("not revealed(c)", "not revealed(c) and c.value == 5"), ''), (SHOW_EACH, '')),
    ("a trigger of the emitted event may prevent it",
     (SHOW_EACH, 'trigger ward before show_card when turns > 3 { prevent }'), (SHOW_EACH, '')),
    ("the handler of the emitted event turns it face up only under a condition",
     (SHOW_EACH.replace("show_card", "show_card2"),
      'event show_card2(p: player, c: card) "doc"\ntrigger turn2 on show_card2 when turns > 0 { reveal c }'),
     (SHOW_EACH.replace("show_card", "show_card2"),
      'event show_card2(p: player, c: card) "doc"\ntrigger turn2 on show_card2 when not revealed(c) { reveal c }')),
    ("a trigger of the event deals a face-down card into the hand before the read",
     (SHOW_EACH, 'trigger refill after out { deal 1 from deck to hand[p] }'),
     (SHOW_EACH, 'trigger refill after out { deal 1 from deck to hand[p]\n  reveal hand[p] }')),
    ("a trigger conceals a card that may be in the hand",
     (SHOW_EACH, 'trigger hide_one after out {\n  let c = first x in cards(hand[p]) where true\n  conceal c\n}'),
     (SHOW_EACH, 'trigger hide_one after out {\n  let c = choose p "hide": card from stash[p]\n  conceal c\n}')),
    ("a trigger moves a card into the hand and does not reveal it",
     (SHOW_EACH, 'trigger take after out {\n  let c = choose p "take": card from stash[p]\n  move c to hand[p]\n}'),
     (SHOW_EACH, 'trigger take after out {\n  let c = choose p "take": card from stash[p]\n  move c to hand[p]\n  reveal c\n}')),
    ("a trigger of the event sets the player field to another player",
     ('reveal hand[p]', 'trigger pass_on on out { p = next_player(p) }'), ('reveal hand[p]', '')),
]


@pytest.mark.parametrize("what,leak,twin", EVENT_REVEALS, ids=[e[0] for e in EVENT_REVEALS])
def test_an_on_handler_reveal_is_public_in_the_after_triggers(what, leak, twin):
    assert _event_findings(*twin) == []
    assert _event_findings(*leak) == [(0, "secrecy-var")]


def test_a_loop_variable_of_the_field_name_is_another_player():
    text = EVENTS.replace("ON_BODY", "reveal hand[p]").replace("EXTRA", "").replace(
        "  total = sum c in hand[p]: c.value\n", "  total = sum c in hand[p]: c.value\n"
        "  for p in players { turns += sum c in hand[p]: c.value }\n"
        "  turns += count p in players where any c in hand[p]: c.value == 5\n")
    found = [(d.span.line, d.code) for d in check_text(text, "t.rules").warnings if d.code.startswith("secrecy-")]
    line = text.count("\n", 0, text.index("for p in players { turns")) + 1
    assert found == [(line, "secrecy-var"), (line + 1, "secrecy-var")]



# spent: a hidden pile that only gets the face-up cards of the table; kept: one dealt from it
ORDER = BASE.replace("zone table: pile public\n", "zone table: pile public\nzone spent: pile hidden\nzone kept: pile hidden\n")


def _order_findings(body: str) -> list:
    return findings('move cards(table) to spent\n    ' + body, ORDER)


def test_a_hidden_pile_of_cards_everyone_saw_is_public_until_shuffled():
    # spent only ever gets the face-up cards of the table: everyone knows it, in order too
    assert _order_findings('if top(spent, 1)[0].value == 5 { total += 1 }') == []
    # shuffled, everyone still knows which cards it holds, but not which is on top
    assert _order_findings('shuffle spent\n    if top(spent, 1)[0].value == 5 { total += 1 }') == [(3, "secrecy-var")]
    # (a read of its contents is reported too: the check does not tell contents from order)
    assert _order_findings('shuffle spent\n    total = count c in spent where c.value == 5') == [(3, "secrecy-var")]


def test_a_deal_from_a_shuffled_pile_of_cards_everyone_saw_is_hidden():
    # kept only gets cards dealt from spent: as public as the order of spent
    deal = 'deal 1 from spent to kept\n    total = sum c in kept: c.value'
    assert _order_findings(deal) == []
    assert _order_findings('shuffle spent\n    ' + deal) == [(4, "secrecy-var")]


def test_a_card_picked_from_a_hidden_pile_of_cards_everyone_saw_is_hidden():
    # everyone knows which cards spent holds, not which one a choice (face down) or random() takes
    for pick in ('choose active "pick": card from spent', 'random(cards(spent))'):
        assert _order_findings(f'let c = {pick}\n    if c.value == 5 {{ total += 1 }}') == [(3, "secrecy-var")]
        # from the face-up table, everyone sees which card it is
        assert _order_findings(f'let c = {pick.replace("spent", "table")}\n    move c to spent\n'
                               '    if c.value == 5 { total += 1 }') == []


# Zone capacities: lord and deputy hold one card each (CAP), so a condition can prove them face up.
SLOTS = '''game "Slots" {
  players 2..2
''' + HEAD + '''zone lord[player]: set owner CAP
zone deputy[player]: set owner CAP
var total: int = 0
def generals_of(p: player): list[card] = cards(lord[p]) + cards(deputy[p])
def shown(p: player): list[card] = collect g in generals_of(p) where revealed(g) and g.value > 0
def both_shown(p: player): bool = count(shown(p)) == 2
def lord_value(p: player): int =
  if any g in cards(lord[p]) where revealed(g) then (first g in cards(lord[p]) where true).value else 0

action show(g: card from lord[active] + deputy[active]) {
  effect { reveal g }
}
action probe(t: player where GUARD) {
  effect {
    let q = t
    BODY
  }
}

phase setup {
  enter {
    shuffle deck
    for p in players {
      deal 1 from deck to lord[p]
      deal 1 from deck to deputy[p]
    }
    active = players[0]
  }
  next turn
}
phase turn {
  actions show, probe
  end when total > 10
  next done
}
phase done { enter { end game } }
'''
ONE = ", at most 1 card"


def _slot_findings(body: str, cap: str = ONE, guard: str = "t != active") -> list:
    text = SLOTS.replace("CAP", cap).replace("GUARD", guard).replace("BODY", body)
    start = text.count("\n", 0, text.index(body)) + 1
    return sorted((d.span.line - start + 1, d.code) for d in check_text(text, "t.rules").warnings
                  if d.code.startswith("secrecy-"))


READ_BOTH = "total = sum g in generals_of(q): g.value"


@pytest.mark.parametrize("cond", ["count(shown(q)) == 2", "both_shown(q)", "count(shown(q)) >= 2",
                                  "2 == count(shown(q)) and total >= 0", "not (count(shown(q)) < 2)",
                                  "(count g in generals_of(q) where revealed(g)) == 2"])
def test_a_count_of_face_up_cards_that_fills_the_zones_shows_them(cond):
    # both one-card slots hold a face-up card where the count reaches their capacities' sum
    body = f"if {cond} {{\n      {READ_BOTH}\n    }}"
    assert _slot_findings(body) == []
    assert _slot_findings(body, cap="") == [(2, "secrecy-var")]  # no capacity: a slot may hold more


def test_a_count_below_the_capacities_or_not_of_face_up_cards_shows_nothing():
    assert _slot_findings(f"if count(shown(q)) == 1 {{\n      {READ_BOTH}\n    }}") == [(2, "secrecy-var")]
    assert _slot_findings(f"if count(generals_of(q)) == 2 {{\n      {READ_BOTH}\n    }}") == [(2, "secrecy-var")]
    # the else of the full count: some card may be face down
    assert _slot_findings(f"if both_shown(q) {{\n      total += 1\n    }} else {{\n      {READ_BOTH}\n    }}") \
        == [(4, "secrecy-var")]


def test_a_face_up_card_in_a_one_card_zone_shows_the_zone():
    body = "if any g in cards(lord[q]) where revealed(g) {\n      total = sum g in cards(lord[q]): g.value\n    }"
    assert _slot_findings(body) == []
    assert _slot_findings(body, cap=", at most 2 cards") == [(2, "secrecy-var")]  # the other may be face down
    # unfolded in a def's if-expression (the condition's zone as the def names it)
    assert _slot_findings("total = lord_value(q)") == []
    assert _slot_findings("total = lord_value(q)", cap="") == [(1, "secrecy-var")]


def test_a_card_moved_into_the_zone_under_the_condition_is_hidden_again():
    body = ("if both_shown(q) {\n      move cards(lord[q]) to deck\n      deal 1 from deck to lord[q]\n"
            f"      {READ_BOTH}\n    }}")
    assert _slot_findings(body) == [(4, "secrecy-var")]


def test_an_action_parameters_guard_holds_in_its_effect():
    read = READ_BOTH.replace("(q)", "(t)")  # (the zones as the guard names them)
    assert _slot_findings(read, guard="both_shown(t)") == []
    assert _slot_findings(read, guard="both_shown(t)", cap="") == [(1, "secrecy-var")]
    assert _slot_findings(read, guard="count(shown(t)) == 1") == [(1, "secrecy-var")]


def test_an_optional_trigger_of_an_event_raised_under_a_secret_is_asked_under_it():
    # the trigger's player is asked only when the event happens: raised only when q holds a Five
    game = BASE + 'event poked(who: player)\ntrigger answer after poked for p in players when p == who ' \
                  'optional "{p}: answer?" { }\n'
    leak = [d.message for d in check_text(game.replace("BODY", "if holds_five(q) { emit poked(q) }"), "t.rules").warnings
            if d.code == "secrecy-target"]
    assert leak == ["whether this optional trigger asks depends on hidden cards (its event is raised on them)"]
    assert findings("emit poked(q)", game) == []
