"""Visibility per viewer (P15): zones seen by every player but their owner (`others`), piles
whose top card only is face up (`top public`), and lasting knowledge (`look ... until moved`).

Who sees which card is one predicate (State.can_see / can_see_card / is_revealed); these tests
hold the engine's answers to it, the checker's refusals, what a saved state keeps, the log as
each player reads it (also later), the choices a player is offered, the face-down draws, and the
secrecy checks that guard all of it (each shown to catch a planted leak).
The game is tests/rules/viewer_lab.rules (its scenarios: tests/scenarios/viewer_lab/).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import interpreter
from interpreter.serialise import StateFormatError
from rulespec.lang.checker import check_text
from rulespec.lang.diagnostics import RulesError
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from rulespec.tools.fuzzing.checks import LogMemory, check_secrecy

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "viewer_lab.rules")

# a small game of each visibility: `hand` held facing away, `pile` with its top face up
SMALL = """game "Small" { players 2..3 start p cards start in deck }
card "a" { copies: 3 }
card "b" { copies: 3 }
zone deck: pile hidden
zone hand[player]: pile others
zone pile: pile top public
zone mine[player]: set owner
var n: int = 0
action take(c: card from pile) { effect { move c to mine[active] } }
action pick(c: card from hand[active]) { effect { move c to pile } }
phase p { actions take, pick  end when n > 0  next q }
phase q { enter { end game } }
"""


@pytest.fixture(scope="module")
def lab():
    return interpreter.load(LAB)


def _small(tmp_path, text: str = SMALL):
    path = tmp_path / "small.rules"
    path.write_text(text, encoding="utf-8")
    return interpreter.load(str(path))


def _position(game, zones: dict, players: int = 2, known: dict = None):
    """A fresh state with these zones (name -> card names, bottom to top); the rest in the deck."""
    st = game.new_state(players=players, seed=0)
    d = json.loads(st.to_json())
    names = st.prog.card_names
    free = list(range(st.prog.card_count))
    slot = {s.name: s.index for s in st.prog.slots}
    d["zones"] = [[] for _ in st.prog.slots]
    for zone, cards in zones.items():
        for name in cards:
            c = next(c for c in free if names[c] == name)
            free.remove(c)
            d["zones"][slot[zone]].append(c)
    d["zones"][slot["deck"]] = free + d["zones"][slot["deck"]]
    if known:
        d["known"] = sorted([[d["zones"][slot[z]][i], seats] for (z, i), seats in known.items()])
    return interpreter.State.from_json(d, game), slot


# ====================================================================== the checker
@pytest.mark.parametrize("zone, message, where", [
    ("zone hand: pile others", "zone 'hand' is shared, so it has no owner to hide it from", "zone hand"),
    ("zone hand[player]: set top public", "zone 'hand' is a set, which has no top card to show", "top public"),
    ("zone hand[player]: pile top", "unknown zone attribute 'top'", "top\n"),
    ("zone hand[player]: pile owner top public", "zone 'hand' has two visibilities ('owner' and 'top public')",
     "top public"),
])
def test_the_checker_refuses_visibilities_that_cannot_hold(zone, message, where):
    text = 'game "G" { players 2..2 cards start in deck }\ncard "a" { copies: 2 }\nzone deck: pile hidden\n' \
           + zone + "\nphase p { enter { move deck to hand[active]  end game } }\n"
    with pytest.raises(RulesError) as err:
        check_text(text, "g.rules")
    line = text.index(where)
    col = line - text.rindex("\n", 0, line)
    assert f"g.rules:4:{col}: error: {message}" in str(err.value)


def test_a_card_in_an_others_zone_works_no_ability():
    text = SMALL.replace('card "b" { copies: 3 }', 'card "b" { copies: 3  while in hand { modify r() = 1 } }') \
        + "rule r(): int = 0 combine sum\n"
    with pytest.raises(RulesError) as err:
        check_text(text, "g.rules")
    assert "g.rules:3:32: error: zone 'hand' is seen by every player but its owner, who cannot use the " \
           "abilities of cards they do not see" in str(err.value)


def test_until_moved_is_read_and_told_in_english():
    model = check_text(SMALL.replace("effect { move c to mine[active] }",
                                     "effect { move c to mine[active]  look c by active until moved }"))
    assert model.lasting_looks and not check_text(SMALL).lasting_looks
    from rulespec.tools.docs import to_markdown
    text = to_markdown(model)
    assert "The active player looks at c (nobody else sees it), and keeps knowing it until it next moves" in text
    assert "| hand | each player | an ordered pile | every player but its owner |" in text
    assert "| pile | shared | an ordered pile | everyone sees the top card, nobody the cards below it |" in text


# ====================================================================== who sees which card
def test_an_others_zone_is_seen_by_every_player_but_its_owner(tmp_path):
    st, slot = _position(_small(tmp_path), {"hand[P1]": ["a", "b"]}, players=3)
    hand = slot["hand[P1]"]
    c = st.zones[hand][0]
    assert [st.can_see(hand, p) for p in range(3)] == [False, True, True]
    assert [st.can_see_card(c, p) for p in range(3)] == [False, True, True]
    assert not st.is_revealed(c)  # its owner does not see it
    assert st.observation(0)["zones"]["hand[P1]"] == {"count": 2}
    assert st.observation(1)["zones"]["hand[P1]"] == {"cards": ["a", "b"]}


def test_a_top_public_pile_shows_its_top_card_to_everyone_and_nothing_below(tmp_path):
    st, slot = _position(_small(tmp_path), {"pile": ["a", "a", "b"]})
    pile = slot["pile"]
    below, top = st.zones[pile][0], st.zones[pile][-1]
    assert not st.can_see(pile, 0) and st.can_see_card(top, 0) and st.can_see_card(top, 1)
    assert not st.can_see_card(below, 0) and st.is_revealed(top) and not st.is_revealed(below)
    assert st.observation(1)["zones"]["pile"] == {"count": 3, "shown": ["b"], "top": "b"}
    st.move_cards([top], slot["mine[P1]"], False)
    assert st.observation(1)["zones"]["pile"] == {"count": 2, "shown": ["a"], "top": "a"}


def test_knowledge_lasts_until_the_card_moves_or_its_zone_is_shuffled(tmp_path):
    st, slot = _position(_small(tmp_path), {"hand[P1]": ["a", "b", "a"]})
    hand = slot["hand[P1]"]
    first, second, third = st.zones[hand]
    st.look_at([first, second], 0, lasting=True)
    assert st.can_see_card(first, 0) and st.can_see_card(second, 0) and not st.can_see_card(third, 0)
    assert st.observation(0)["zones"]["hand[P1]"] == {"count": 3, "shown": ["a", "b"], "known": ["a", "b"]}
    assert st.is_revealed(first)  # P2 sees P1's hand, P1 knows it: every player sees it
    st.move_cards([third], slot["pile"], False)  # another card moves: still known
    assert st.can_see_card(first, 0)
    st.move_cards([first], slot["pile"], False)  # it moves: known no more
    assert st.known == {second: [0]}
    st.move_cards([first], hand, False)
    assert not st.can_see_card(first, 0)
    st.shuffle_zone(hand)  # its zone shuffled: where it is is lost
    assert st.known == {} and not st.can_see_card(second, 0)
    st.look_at([first], 0, lasting=False)  # a plain look is a glimpse
    assert st.known == {}


def test_revealed_reads_each_visibility(tmp_path):
    text = SMALL.replace("var n: int = 0", "var n: int = 0\nvar tally: list[int] = []") \
        .replace("action take(c: card from pile) { effect { move c to mine[active] } }",
                 "action take(c: card from pile) { effect { move c to mine[active] } }\n"
                 "action tell() { effect { tally = [count c in pile where revealed(c), "
                 "count c in hand[active] where revealed(c)]  n = 1 } }") \
        .replace("actions take, pick", "actions take, pick, tell")
    st, slot = _position(_small(tmp_path, text), {"pile": ["a", "b"], "hand[P1]": ["a", "b"]})
    st.look_at([st.zones[slot["hand[P1]"]][0]], 0, lasting=True)
    st.apply("tell")
    assert st.vars[st.prog.var_index["tally"]] == [1, 1]  # the top; the card P1 knows


def test_sees_asks_the_engine_who_sees_a_card(tmp_path):
    with pytest.raises(RulesError, match="who sees, in 'sees' must be player, not int"):
        check_text(SMALL + "def bad(c: card): bool = sees(1, c)\n")
    game = _small(tmp_path, SMALL + "def seen(p: player, c: card): bool = sees(p, c)\n")
    st, slot = _position(game, {"pile": ["a", "b"], "hand[P1]": ["a"]})
    below, top = st.zones[slot["pile"]]
    held = st.zones[slot["hand[P1]"]][0]
    seen = [[st.can_see_card(c, p) for p in range(2)] for c in (below, top, held)]
    assert seen == [[False, False], [True, True], [False, True]]
    for engine in ("compiled", "interpreted"):
        g = interpreter.load(str(tmp_path / "small.rules"), engine=engine)
        f = g.prog.expr(next(d for d in g.model.defs.values() if d.name == "seen").body)
        w = interpreter.State.from_json(st.to_json(), g)
        assert [[f(w, {"p": p, "c": c}) for p in range(2)] for c in (below, top, held)] == seen


# ====================================================================== choices
def test_a_choice_offers_the_top_card_and_known_cards_by_name_the_rest_face_down(tmp_path):
    st, slot = _position(_small(tmp_path), {"pile": ["a", "a", "b"], "hand[P1]": ["a", "b", "b"]})
    # cards seen on their own come first, then the zone's face-down cards
    assert st.legal_action_strings() == ["take b", "take a face-down card of pile",
                                         "pick a face-down card of hand[P1]"]
    st.look_at([st.zones[slot["hand[P1]"]][1]], 0, lasting=True)
    st._legal = None
    assert st.legal_action_strings() == ["take b", "take a face-down card of pile",
                                         "pick b", "pick a face-down card of hand[P1]"]


def test_a_face_down_pick_is_drawn_among_the_cards_the_chooser_does_not_see(lab):
    drawn = set()
    for seed in range(40):
        st = lab.new_state(players=2, seed=seed)
        hand = st.prog.zone_base["hand"] + st.active
        known = st.zones[hand][0]
        st.look_at([known], st.active, lasting=True)
        st._legal = None
        st.apply("play_card a face-down card of hand[P1]")
        assert st.where[known] == hand, f"seed {seed}: the card P1 knows was drawn face down"
        drawn.add(len(st.zones[hand]))
    assert drawn == {3}


# ====================================================================== saved states
def test_knowledge_is_saved_only_when_someone_knows_a_card(lab):
    st = lab.new_state(players=2, seed=1)
    assert '"known"' not in st.to_json()
    st.apply(next(a for a in st.legal_action_strings() if a.startswith("hint")))
    d = json.loads(st.to_json())
    assert d["known"] and all(seats == [1] for _, seats in d["known"])
    again = interpreter.State.from_json(st.to_json(), lab)
    assert again.to_json() == st.to_json() and again.known == st.known
    clone = st.clone()
    clone.known.clear()
    assert st.known  # a clone's knowledge is its own


@pytest.mark.parametrize("known, message", [
    ([], "'known' must be a list of [card, [player, ...]] pairs"),
    ([[0, [1, 0]]], "its players in seat order"),
    ([[0, [0]], [0, [1]]], "each card once"),
    ([[99, [0]]], "a known card must be a whole number from 0 to 17"),
    ([[0, [5]]], "a player who knows a card must be a whole number from 0 to 1"),
])
def test_a_saved_state_with_bad_knowledge_is_refused(lab, known, message):
    d = json.loads(lab.new_state(players=2, seed=1).to_json())
    d["known"] = known
    with pytest.raises(StateFormatError, match=message.replace("[", r"\[").replace("]", r"\]")):
        interpreter.State.from_json(d, lab)


def test_a_move_entry_with_bad_glimpses_is_refused(lab):
    st = lab.new_state(players=2, seed=1)
    d = json.loads(st.to_json())
    card, src = d["log"][1][2][0]
    for bad in ([], [[card, []]], [[card, [1, 0]]], [[(card + 1) % 18, [0]]]):
        d["log"][1] = ["move", d["log"][1][1], [[card, src]], [], bad]
        with pytest.raises(StateFormatError, match="a move entry needs"):
            interpreter.State.from_json(d, lab)
    d["log"][1] = ["move", d["log"][1][1], [[card, src]], [], [[card, [0, 1]]]]
    interpreter.State.from_json(d, lab)


# ====================================================================== the log
def test_a_draw_into_your_own_others_hand_is_a_count_to_you_and_a_card_to_the_others(lab):
    st = lab.new_state(players=3, seed=2)
    deal = [line for line in st.log_lines(0) if "to hand[P1]" in line]
    assert deal == ["   moved 3 cards from deck to hand[P1]"]
    assert "cards" not in st.log_lines(1)[1] and "hand[P1]" in st.log_lines(1)[1]


def test_lines_of_top_cards_and_known_cards_keep_what_was_seen_when_written(tmp_path):
    st, slot = _position(_small(tmp_path), {"pile": ["a"], "hand[P1]": ["b", "a"]})
    pile, hand, mine = slot["pile"], slot["hand[P1]"], slot["mine[P1]"]
    b, a = st.zones[hand]
    st.log = []
    st.move_cards([b], pile, True)   # under the top: nobody sees it go there
    st.look_at([a], 0, lasting=True)
    st.move_cards([a], pile, False)  # onto the top: everyone sees it; P1 knew it anyway
    st.move_cards([a], mine, False)  # taken from the top: everyone sees it
    st.move_cards([b], mine, False)  # from the bottom, into P1's own zone: P2 does not see it
    first = [st.log_lines(p) for p in range(2)]
    assert first[0] == ["   moved 1 card from hand[P1] to pile", "   P1 looks at a", "   moved a from hand[P1] to pile",
                        "   moved a from pile to mine[P1]", "   moved b from pile to mine[P1]"]
    assert first[1] == ["   moved b from hand[P1] to pile", "   P1 looks at 1 card", "   moved a from hand[P1] to pile",
                        "   moved a from pile to mine[P1]", "   moved 1 card from pile to mine[P1]"]
    assert st.log[2][4] == [[a, [0, 1]]]
    st.move_cards(list(st.zones[mine]), pile, False)  # back to the pile: P2 sees the one left on top
    assert st.log_lines(1)[-1] == "   moved b + 1 card from mine[P1] to pile"
    assert [st.log_lines(p)[:5] for p in range(2)] == first  # written lines never change


def test_the_log_memory_check_catches_a_line_that_forgets_what_was_seen(tmp_path, monkeypatch):
    """A log rendered with what is seen now instead of what the entry says was seen then changes
    past lines (a card left on top of the pile is covered later): LogMemory sees it."""
    st, slot = _position(_small(tmp_path), {"hand[P1]": ["b", "a"]})
    b, a = st.zones[slot["hand[P1]"]]
    memory = LogMemory(2)
    assert memory.problems(st) == []
    st.move_cards([a], slot["pile"], False)  # P1 sees it land on top
    assert memory.problems(st) == [] and st.log_lines(0)[-1] == "   moved a from hand[P1] to pile"
    st.move_cards([b], slot["pile"], False)  # and covered
    assert memory.problems(st, whole=True) == []
    from interpreter.observation import Observation
    monkeypatch.setattr(Observation, "saw_moved", lambda self, e, v: [self.can_see_card(c, v) for c, _ in e[2]])
    assert any("changed a past line" in p for p in memory.problems(st, whole=True))


# ====================================================================== the secrecy checks
def test_the_per_decision_check_accepts_glimpses_and_refuses_more(lab, monkeypatch):
    st = lab.new_state(players=2, seed=1)
    st.apply(next(a for a in st.legal_action_strings() if a.startswith("hint")))
    assert check_secrecy(st) == []
    from interpreter.observation import Observation
    real = Observation._glimpses_entry

    def more(self, entry, zi, viewer):  # one card too many shown
        real(self, entry, zi, viewer)
        if self.zones[zi]:
            entry["shown"] = entry.get("shown", []) + [self.prog.card_label(self, self.zones[zi][0])]
    monkeypatch.setattr(Observation, "_glimpses_entry", more)
    assert any("shows more than a count" in p for p in check_secrecy(st))


def test_the_lab_has_no_leak_and_the_counterfactual_check_compares_it(lab):
    found = F.fuzz(lab, 24, counterfactual_rate=1, players="all")
    assert found.ok, [f.message for f in found.failures()]
    assert found.totals.cf_games == 24 and found.totals.cf_worlds > 24


def test_an_owner_shown_their_own_others_hand_is_caught(monkeypatch):
    """Were observations to show the owner of an `others` zone its cards, the per-decision check
    says so, and so does the counterfactual check on its own (it re-deals the owner's own hand,
    which the owner never saw)."""
    lab = interpreter.load(LAB)
    start = lab.new_state(players=2, seed=1)
    trace = S.record_trace(lab, 2, 1, {}, [], viewer=0)
    assert all(trace.seen[c] == -1 for c in start.zones[start.prog.zone_base["hand"]])
    import interpreter.observation as O
    real = O._zones_seen_by

    def owner_too(prog, n, player):
        return [(zi, name, seen or prog.slots[zi].visibility == "others", plays)
                for zi, name, seen, plays in real(prog, n, player)]
    monkeypatch.setattr(O, "_zones_seen_by", owner_too)
    per_decision = F.fuzz(lab, 4, counterfactual_rate=0)
    assert set(per_decision.totals.failures) == {"secrecy"}
    assert "shows" in per_decision.failures()[0].message and "hand[P" in per_decision.failures()[0].message
    st, rng, actions = lab.new_state(players=2, seed=1), random.Random(1), []
    while not st.is_terminal():
        actions.append(rng.choice(st.legal_action_strings()))
        st.apply(actions[-1])
    verdict = S.counterfactual_check(lab, 2, 1, {}, actions, viewer=0)
    assert not verdict.ok and verdict.leak.decision == 0 and "hand[P1]" in verdict.leak.message


def test_a_hint_that_does_not_say_how_many_is_a_leak(tmp_path):
    """A lasting look shows the hinted player cards chosen by what their hidden hand holds: the
    rules must announce what the table learns (the lab says how many), else the re-deals differ."""
    text = Path(LAB).read_text(encoding="utf-8")
    old = 'announce "{active} tells {p} which of their cards are {col} ({count(of_colour(p, col))} of them)"'
    assert old in text
    leaky = _small(tmp_path, text.replace(old, 'announce "{active} tells {p} which of their cards are {col}"'))
    found = F.fuzz(leaky, 24, counterfactual_rate=1)
    assert S.CHECK in found.totals.failures


def test_a_re_deal_keeps_knowledge_with_the_cards_place(lab):
    st = lab.new_state(players=2, seed=1)
    st.apply(next(a for a in st.legal_action_strings() if a.startswith("hint")))
    c = next(iter(st.known))
    other = next(x for x in range(st.prog.card_count) if x != c and st.where[x] == st.prog.zone_base["deck"])
    world = S.relabelled(st, lab, {c: other, other: c})
    assert world.known == {other: st.known[c]} and world.where[other] == st.where[c]


def test_random_worlds_of_the_lab_agree_on_both_engines():
    compiled = interpreter.load(LAB)
    reference = interpreter.load(LAB, engine="interpreted")
    for seed in range(6):
        rng = random.Random(seed)
        a, b = compiled.new_state(players=3, seed=seed), reference.new_state(players=3, seed=seed)
        while not a.is_terminal():
            assert a.legal_action_strings() == b.legal_action_strings()
            assert [a.observation(p) for p in range(3)] == [b.observation(p) for p in range(3)]
            text = rng.choice(a.legal_action_strings())
            a.apply(text)
            b.apply(text)
        assert a.to_json() == b.to_json()


# ====================================================================== by position, facing away
@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_hand_held_facing_away_is_played_by_position(tmp_path, engine):
    """The fireworks case: the holder cannot see their `others` hand, so `by position` offers a
    place for each card (the pick is the card lying there, nothing random) and names the card
    they know; the other player sees the faces but not the options."""
    path = tmp_path / "small.rules"
    path.write_text(SMALL.replace("action pick(c: card from hand[active])",
                                  "action pick(c: card from hand[active] by position)"), encoding="utf-8")
    game = interpreter.load(str(path), engine=engine)
    st, slot = _position(game, {"pile": [], "hand[P1]": ["a", "b", "b"]})
    hand = slot["hand[P1]"]
    assert st.legal_action_strings() == [f"pick face-down card {k} of hand[P1]" for k in (1, 2, 3)]
    st.look_at([st.zones[hand][0]], 0, lasting=True)
    st._legal = None
    assert st.legal_action_strings() == ["pick a", "pick face-down card 2 of hand[P1]",
                                         "pick face-down card 3 of hand[P1]"]
    third = st.zones[hand][2]
    st.apply("pick face-down card 3 of hand[P1]")
    assert st.zones[slot["pile"]] == [third]
    assert st.observation(1)["zones"]["hand[P1]"] == {"cards": ["a", "b"]}
