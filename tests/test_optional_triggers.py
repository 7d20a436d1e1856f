"""Optional triggers (``trigger ... optional "prompt" { ... }``) and their secrecy
(tests/rules/optional_lab.rules).

A visible optional trigger asks its yes/no prompt.  One of a face-down card never does: every
player who could hold such a card with the trigger firing now is asked the same generic
question, with "no" always an option, so that being asked -- and answering no -- tells the
others nothing about the card.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import interpreter
from interpreter import State
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from rulespec.tools.fuzzing.checks import play_checked
from rulespec.lang.checker import check_text
from rulespec.lang.diagnostics import RulesError

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "tests" / "rules" / "optional_lab.rules")
SECRET_PROMPT = "abilities of face-down cards (after hurt)"
HEROES = ("Avenger", "Healer", "Twin", "Peasant")


@pytest.fixture(scope="module")
def lab():
    return interpreter.load(LAB)


# ---------------------------------------------------------------------- helpers
def zone(st, name):
    return st.prog.zone_base[name.split("[")[0]] + (int(name[-2]) - 1 if "[" in name else 0)


def var(st, name):
    return st.vars[st.prog.var_index[name]]


def new(lab, heroes: dict, players: int = 3, options=None, banner: bool = True) -> State:
    """A game at P1's first turn with the heroes given ({"P2": "Twin"}; the others' zones empty)
    and the Banner face up before the last player (or aside)."""
    st = lab.new_state(players=players, seed=1, options=options or {})
    names, pool = st.prog.card_names, zone(st, "pool")
    for p in range(players):
        st.move_cards(list(st.zones[zone(st, f"hero[P{p + 1}]")]), pool, False)
    for who, name in heroes.items():
        card = next(c for c in st.zones[pool] if names[c] == name)
        st.move_cards([card], zone(st, f"hero[{who}]"), False)
    if not banner:
        st.move_cards(list(st.zones[zone(st, f"banner[P{players}]")]), pool, False)
    st.log = []
    st._legal = None
    return st


def decision(st):
    return st.observation(0)["decision"]


# ---------------------------------------------------------------------- the visible case
def test_a_visible_optional_trigger_asks_its_prompt_and_no_skips_the_body(lab):
    for answer, life in (("yes", 6), ("no", 5)):
        st = new(lab, {})  # no hero anywhere: only the Banner before P3 triggers
        st.apply("hit P3")
        assert decision(st) == {"kind": "choice", "who": "P3", "prompt": "P3: rally?"}
        assert st.legal_action_strings() == ["yes", "no"]
        st.apply(answer)
        assert var(st, "life")[2] == life
        assert st.current_player == 1 and st.pending is None  # P2's turn
        assert f"P3 chooses {answer} (P3: rally?)" in st.log_lines(0)


def test_an_optional_trigger_of_the_rules_asks_the_player_of_its_for(lab):
    st = new(lab, {}, options={"cheer": True})
    st.apply("hit P2")
    assert decision(st) == {"kind": "choice", "who": "P1", "prompt": "P1: cheer for hurting P2?"}
    st.apply("yes")
    assert var(st, "cheers") == [1, 0, 0]


def test_visible_triggers_of_one_player_are_still_ordered(lab):
    st = new(lab, {"P2": "Twin"})
    twin = st.zones[zone(st, "hero[P2]")][0]
    st.shown.append(twin)  # the Twin lies face up: its two triggers ask their own prompts
    st.apply("hit P2")
    assert decision(st)["prompt"] == "several of your abilities trigger at once: which goes first?"
    assert st.legal_action_strings() == ["guard of Twin first", "parry of Twin first"]
    st.apply("parry of Twin first")
    assert decision(st)["prompt"] == "P2: parry?"
    st.apply("yes")
    assert decision(st)["prompt"] == "P2: guard?"
    st.apply("no")
    assert var(st, "life") == [5, 5, 6] and var(st, "guards") == [0, 0, 0]


# ---------------------------------------------------------------------- the secret case
def _views(st, viewers=(0, 2)):
    return [(st.current_player, st.observation(v), st.log_lines(v)) for v in viewers]


@pytest.mark.parametrize("decoy", ["Peasant", "Avenger"])
def test_the_hurt_player_is_asked_whether_or_not_they_hold_a_triggering_hero(lab, decoy):
    """P2 holds the Twin (two optional triggers) or a card whose trigger does not fire (a
    Peasant has none; the Avenger's needs another source): P1 and P3 cannot tell."""
    real = new(lab, {"P1": "Healer", "P2": "Twin", "P3": "Peasant"}, banner=False)
    fake = new(lab, {"P1": "Healer", "P2": decoy, "P3": "Peasant"}, banner=False)
    for st in (real, fake):
        st.apply("hit P2")
        assert decision(st) == {"kind": "choice", "who": "P2", "prompt": SECRET_PROMPT}
    assert real.legal_action_strings() == ["use guard of Twin", "use parry of Twin", "no"]
    assert fake.legal_action_strings() == (["no"] if decoy == "Peasant" else ["use avenge of Avenger", "no"])
    assert _views(real) == _views(fake)
    for st in (real, fake):
        st.apply("no")
        assert st.current_player == 1 and st.pending is None
    assert _views(real) == _views(fake)
    assert "P2 chooses no (" + SECRET_PROMPT + ")" in real.log_lines(0)


def test_using_a_secret_trigger_runs_its_body_and_asks_again(lab):
    st = new(lab, {"P2": "Twin"}, banner=False)
    st.apply("hit P2")
    st.apply("use guard of Twin")  # its body does not reveal the Twin: the log hides the answer
    assert var(st, "guards") == [0, 1, 0]
    assert decision(st) == {"kind": "choice", "who": "P2", "prompt": SECRET_PROMPT}
    assert st.legal_action_strings() == ["use parry of Twin", "no"]
    assert st.log_lines(0)[-1] == "P2: (a choice you cannot see)"
    assert st.log_lines(1)[-1] == f"P2 chooses use guard of Twin ({SECRET_PROMPT})"
    st.apply("use parry of Twin")  # reveals the Twin: the log may say so
    assert var(st, "life") == [5, 5, 6]
    assert st.is_revealed(st.zones[zone(st, "hero[P2]")][0])
    assert st.current_player == 1 and st.pending is None  # none left to ask about
    assert f"P2 chooses use parry of Twin ({SECRET_PROMPT})" in st.log_lines(0)


def test_two_heroes_of_one_player_are_offered_together_then_the_rest(lab):
    st = new(lab, {"P2": "Twin", "P3": "Avenger"}, banner=False)
    avenger = st.zones[zone(st, "hero[P3]")][0]
    st.move_cards([avenger], zone(st, "hero[P2]"), False)  # P2 holds two face-down heroes
    st.apply("hit P2")
    assert st.legal_action_strings() == ["use avenge of Avenger", "use guard of Twin", "use parry of Twin", "no"]
    st.apply("use parry of Twin")
    assert st.legal_action_strings() == ["use avenge of Avenger", "use guard of Twin", "no"]
    st.apply("no")  # no ends the questions, whatever is left
    assert st.current_player == 1 and st.pending is None
    assert var(st, "life") == [5, 5, 6] and var(st, "guards") == [0, 0, 0]


def test_players_for_whom_no_optional_trigger_could_fire_are_not_asked(lab):
    st = new(lab, {"P1": "Twin", "P2": "Peasant", "P3": "Healer"}, banner=False)
    st.apply("hit P2")  # P1 and P3 hold face-down heroes too, but they were not hurt
    assert decision(st)["who"] == "P2"
    st.apply("no")
    assert st.pending is None and st.current_player == 1
    st = new(lab, {"P1": "Twin"}, banner=False)
    st.apply("hit P2")  # P2 holds no card at all: nothing to hide, nobody asked
    assert st.pending is None and st.current_player == 1


def test_a_real_trigger_is_offered_only_when_its_condition_holds(lab):
    """The Healer fires when its owner falls to 3 life or less; its owner is asked all the same
    before that (the Twin could fire for them), with nothing to use."""
    st = new(lab, {"P2": "Healer"}, banner=False)
    st.apply("hit P2")  # down to 5
    assert st.legal_action_strings() == ["no"]
    st.apply("no")
    st.apply("pass")  # P2's turn; then P3's
    var(st, "life")[1] = 4
    st.apply("hit P2")  # down to 3
    assert decision(st) == {"kind": "choice", "who": "P2", "prompt": SECRET_PROMPT}
    assert st.legal_action_strings() == ["use mend of Healer", "no"]
    st.apply("use mend of Healer")
    assert var(st, "life")[1] == 4 and st.pending is None and st.current_player == 0


def test_a_revealed_hero_asks_its_own_prompt_and_its_owner_is_no_longer_a_candidate(lab):
    st = new(lab, {"P2": "Twin", "P1": "Avenger"}, banner=False)
    st.apply("hit P2")
    st.apply("use parry of Twin")  # revealed now
    st.apply("no")
    assert st.current_player == 1
    st.apply("hit P1")  # P1 asked in secret about the Avenger (hit by P2)
    assert st.legal_action_strings() == ["use avenge of Avenger", "no"]
    st.apply("use avenge of Avenger")  # reveals it and hurts P2 back: a nested event
    assert decision(st)["prompt"] == "several of your abilities trigger at once: which goes first?"
    assert decision(st)["who"] == "P2"
    st.apply("guard of Twin first")
    assert decision(st)["prompt"] == "P2: guard?"
    st.apply("no")
    assert decision(st)["prompt"] == "P2: parry?"
    st.apply("no")  # and no secret question: P2 holds no face-down card any more
    assert st.pending is None and st.current_player == 2


# ---------------------------------------------------------------------- plain data
def _nested(lab) -> State:
    """A secret choice pending inside a trigger inside an event inside a window's resolution."""
    st = new(lab, {"P1": "Twin", "P2": "Avenger"}, banner=False)
    st.apply("shoot P2")  # the arrow resolves: hurt(P1, P2)
    assert st.legal_action_strings() == ["use avenge of Avenger", "no"]
    st.apply("use avenge of Avenger")  # hurt(P2, P1), nested in the Avenger's body
    assert decision(st) == {"kind": "choice", "who": "P1", "prompt": SECRET_PROMPT}
    assert st.legal_action_strings() == ["use guard of Twin", "use parry of Twin", "no"]
    return st


def test_json_round_trip_and_clone_with_a_secret_choice_pending(lab):
    st = _nested(lab)
    text = st.to_json()
    back = State.from_json(text, lab)
    assert back.to_json() == text
    twin = st.clone()
    for s in (st, back, twin):
        s.apply("use parry of Twin")
        assert s.legal_action_strings() == ["use guard of Twin", "no"]
        s.apply("no")
    assert back.to_json() == st.to_json() == twin.to_json()
    assert var(st, "life") == [5, 4, 6]


def test_json_round_trip_with_a_visible_choice_pending(lab):
    st = new(lab, {}, options={"cheer": True})
    st.apply("hit P3")
    back = State.from_json(st.to_json(), lab)
    assert back.legal_action_strings() == st.legal_action_strings() == ["yes", "no"]
    back.apply("yes")
    st.apply("yes")
    assert back.to_json() == st.to_json()


@pytest.mark.parametrize("options", [{}, {"cheer": True}])
def test_whole_games_round_trip_replay_and_keep_secrets(lab, options):
    for seed in range(8):
        report = play_checked(lab, 3 + seed % 2, seed, options, agent_seed=seed)
        assert report.ok, report.describe()


# ---------------------------------------------------------------------- the checker
def test_an_optional_trigger_with_nobody_to_ask_is_an_error():
    text = Path(LAB).read_text().replace('trigger wound on hurt {', 'trigger wound on hurt optional "ouch?" {')
    with pytest.raises(RulesError) as info:
        check_text(text, "lab.rules")
    d = info.value.diagnostics[0]
    line = text[:text.index('optional "ouch?"')].count("\n") + 1
    col = text.split("\n")[line - 1].index('"ouch?"') + 1
    assert d.location() == f"lab.rules:{line}:{col}"
    assert "optional trigger 'wound' has nobody to ask" in d.message
    assert "for p in players" in d.hint


def test_the_checker_warns_when_a_hidden_card_s_optional_condition_reads_where_it_is():
    text = Path(LAB).read_text().replace("when target == owner and life[owner] <= 3",
                                         "when target == owner and self in hero[owner]")
    warnings = [d for d in check_text(text, "lab.rules").warnings if "reads where its card is" in d.message]
    assert len(warnings) == 1 and "optional trigger 'mend'" in warnings[0].message
    # ... also through a def the card is passed to
    text = Path(LAB).read_text().replace("when target == owner and life[owner] <= 3",
                                         "when target == owner and kept(self, owner)") \
        + "\ndef kept(c: card, p: player): bool = c in hero[p]\n"
    warnings = [d for d in check_text(text, "lab.rules").warnings if "reads where its card is" in d.message]
    assert len(warnings) == 1 and "optional trigger 'mend'" in warnings[0].message


@pytest.mark.parametrize("cond, extra", [
    ("not revealed(self)", ""),                                   # whether a card is face up is public
    ("not (self in banned)", "var banned: list[card] = []\n"),     # so is a variable's list
    ("usable(self, owner)", "var banned: list[card] = []\n"
     "def usable(c: card, p: player): bool = if revealed(c) then not (c in banned) else life[p] > 1\n"),
])
def test_public_facts_about_a_hidden_card_do_not_warn(cond, extra):
    text = Path(LAB).read_text().replace("when target == owner and life[owner] <= 3",
                                         f"when target == owner and {cond}") + "\n" + extra
    result = check_text(text, "lab.rules")
    assert not [d for d in result.warnings if "reads where its card is" in d.message]


def test_the_rulebook_says_may():
    from rulespec.tools.docs import to_markdown
    text = to_markdown(interpreter.load(LAB).model)
    assert "its owner may (asked “[its owner]: heal?”)" in text  # holes as words in brackets
    assert "p may (asked “[p]: cheer for hurting [target]?”)" in text


# ---------------------------------------------------------------------- the counterfactual check
def test_the_counterfactual_secrecy_check_passes_on_the_lab(lab):
    for options in ({}, {"cheer": True}):
        found = F.fuzz(lab, 16, options=options)
        assert found.ok, [f.message for f in found.failures()]
        assert found.totals.cf_games == 16 and found.totals.cf_worlds > 0


def test_asking_inside_a_plain_trigger_of_a_hidden_card_is_caught(lab):
    found = F.fuzz(lab, 16, options={"leak": True})
    assert set(found.totals.failures) == {S.CHECK}, found.totals.failures


def test_the_planted_leak_is_who_is_asked(lab):
    """P2 holds the Avenger and is asked inside its plain trigger; with another hero there P2
    would not be: P1 sees the difference."""
    for seed in range(40):  # a deal where P2 holds the Avenger
        st = lab.new_state(players=3, seed=seed, options={"leak": True})
        if [st.prog.card_names[c] for c in st.zones[zone(st, "hero[P2]")]] == ["Avenger"]:
            break
    st.apply("hit P2")
    assert st.current_player == 1 and decision(st)["prompt"] == "strike back at P1?"
    verdict = S.counterfactual_check(lab, 3, seed, {"leak": True}, ["hit P2", "no"], 0)
    assert verdict.leak is not None and verdict.leak.kind in ("turn", "observation"), verdict
    fair = S.counterfactual_check(lab, 3, seed, {}, ["hit P2", "no"], 0)
    assert fair.leak is None and fair.worlds > 0, fair


# ---------------------------------------------------------------------- scenarios
SCENARIO = """\
rules: {rules}
name: the hurt player is asked about face-down heroes, holding one or not
players: 3
position:
  zones:
    hero[P1]: [Healer]
    hero[P2]: [{hero}]
    hero[P3]: [Peasant]
    banner[P3]: [Banner]
  rest: pool
steps:
  - play: hit P2
  - expect: {{active: P2}}
  - legal_exactly: {legal}
  - play: "no"          # quoted: YAML reads a bare no as false
  - expect:
      active: P2
      viewer: P1
      log_contains: "P2 chooses no (abilities of face-down cards (after hurt))"
      hidden: ["hero[P2]"]
  - check: all
"""


@pytest.mark.parametrize("hero, legal", [("Twin", '["use guard of Twin", "use parry of Twin", "no"]'),
                                         ("Peasant", '["no"]')])
def test_a_scenario_answers_the_secret_question(tmp_path, hero, legal):
    from rulespec.tools.scenario import load_file, run_scenario
    path = tmp_path / "optional.yaml"
    path.write_text(SCENARIO.format(rules=LAB, hero=hero, legal=legal))
    for sc in load_file(path):
        run_scenario(sc)


DECLINING = """\
rules: {rules}
name: face_down_asks decline answers the idle asks only
players: 3
face_down_asks: {mode}
position:
  zones:
    hero[P1]: [Healer]
    hero[P2]: [{hero}]
    hero[P3]: [Peasant]
  rest: pool
steps:
  - play: hit P2
  - expect: {{active: {active}}}
"""


@pytest.mark.parametrize("hero, mode, active", [
    ("Peasant", "decline", "P2"),   # P2 holds nothing that fires: answered "no"; P2 acts in the play phase
    ("Twin", "decline", "P2"),      # P2 holds the Twin: the ask stays, for the scenario to answer
    ("Peasant", "ask", "P2"),       # by default the scenario sees every ask
])
def test_face_down_asks_decline_answers_only_asks_with_nothing_to_use(tmp_path, hero, mode, active):
    from rulespec.tools.scenario import load_file, run_scenario
    path = tmp_path / "decline.yaml"
    path.write_text(DECLINING.format(rules=LAB, hero=hero, mode=mode, active=active))
    st = run_scenario(load_file(path)[0])
    asked = st.pending is not None and "abilities of face-down cards" in st.pending.get("prompt", "")
    assert asked == (mode == "ask" or hero == "Twin")


def test_face_down_asks_takes_ask_or_decline(tmp_path):
    from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
    path = tmp_path / "bad.yaml"
    path.write_text(DECLINING.format(rules=LAB, hero="Peasant", mode="sometimes", active="P2"))
    with pytest.raises(ScenarioError, match="face_down_asks is 'ask' .* or 'decline', not 'sometimes'"):
        run_scenario(load_file(path)[0])


def test_a_player_whose_face_down_cards_were_revealed_meanwhile_is_not_asked():
    """Secret jobs are listed as the timing starts; when an earlier trigger of the same timing
    reveals the player's face-down cards (as a death reveals a dead player's generals), nothing
    face down is left to ask about: the player is not asked."""
    from interpreter.game import load_text
    text = Path(LAB).read_text() + '''
card "Herald" {
  while in banner {
    trigger unmask after hurt when target == owner { reveal hero[owner] }
  }
} "Face up: when you are hurt, your hero is shown to everyone."
'''
    game = load_text(text, "herald.rules")
    for heralded in (False, True):
        st = new(game, {"P2": "Twin"}, banner=False)
        if heralded:
            pool, names = zone(st, "pool"), st.prog.card_names
            herald = next(c for c in st.zones[pool] if names[c] == "Herald")
            st.move_cards([herald], zone(st, "banner[P2]"), False)
        st.apply("hit P2")
        asked = st.pending is not None and st.pending.get("prompt") == SECRET_PROMPT
        assert asked == (not heralded)
        if heralded:
            assert st.is_revealed(next(c for c in st.zones[zone(st, "hero[P2]")])) and st.current_player == 1


# ---------------------------------------------------------------------- two face-down cards each
PAIR = str(ROOT / "tests" / "rules" / "secret_pair_lab.rules")


@pytest.fixture(scope="module", params=["compiled", "interpreted"])
def pair_lab(request):
    return interpreter.load(PAIR, engine=request.param)


def _pair(game, heroes: dict) -> State:
    """A game at P1's first turn, each player holding the two face-down heroes given
    ({"P2": ("Scout", "Peasant")}; players not named hold two Peasants)."""
    st = game.new_state(players=3, seed=1)
    names, pool = st.prog.card_names, zone(st, "pool")
    for p in range(3):
        st.move_cards(list(st.zones[zone(st, f"hero[P{p + 1}]")]), pool, False)
    for p in range(3):
        for name in heroes.get(f"P{p + 1}", ("Peasant", "Peasant")):
            card = next(c for c in st.zones[pool] if names[c] == name)
            st.move_cards([card], zone(st, f"hero[P{p + 1}]"), False)
    st.log = []
    st._legal = None
    return st


@pytest.mark.parametrize("other", ["Peasant", "Scout"])
def test_being_asked_again_after_a_use_does_not_tell_what_the_other_card_is(pair_lab, other):
    """P2 uses the Scout's trigger; their other face-down hero has an optional trigger too (the
    Medic) or not: P1 and P3 see the same questions either way (P2 is asked again while they
    hold a face-down hero they could not have used yet, with only "no" if it has none)."""
    real = _pair(pair_lab, {"P2": ("Scout", "Medic")})
    fake = _pair(pair_lab, {"P2": ("Scout", other)})
    for st in (real, fake):
        st.apply("hit P2")
        st.apply("use spy of Scout")
        assert decision(st) == {"kind": "choice", "who": "P2", "prompt": "abilities of face-down cards (after hurt)"}
    assert real.legal_action_strings() == ["use mend of Medic", "no"]
    assert fake.legal_action_strings() == (["no"] if other == "Peasant" else ["use spy of Scout", "no"])
    assert _views(real) == _views(fake)
    for st in (real, fake):
        st.apply("no")
        assert st.current_player == 1 and st.pending is None
    assert _views(real) == _views(fake)
    assert var(real, "spies") == var(fake, "spies") == [0, 1, 0]


def test_no_more_questions_once_every_face_down_card_could_have_been_used(pair_lab):
    st = _pair(pair_lab, {"P2": ("Scout", "Medic")})
    st.apply("hit P2")
    st.apply("use mend of Medic")
    st.apply("use spy of Scout")  # two uses, two face-down heroes: nothing can be left
    assert st.current_player == 1 and st.pending is None
    assert var(st, "life") == [6, 6, 6] and var(st, "spies") == [0, 1, 0]


def test_a_card_revealed_by_its_use_no_longer_counts(pair_lab):
    """The Herald reveals itself: one face-down hero is left, asked about once more."""
    for other, legal in (("Medic", ["use mend of Medic", "no"]), ("Peasant", ["no"])):
        st = _pair(pair_lab, {"P2": ("Herald", other)})
        st.apply("hit P2")
        st.apply("use shout of Herald")
        assert st.legal_action_strings() == legal
        st.apply(legal[0])
        assert st.current_player == 1 and st.pending is None


def test_the_counterfactual_secrecy_check_passes_on_the_pair_lab(pair_lab):
    """Whole games, re-dealing the heroes a player never saw (the check that found the leak)."""
    found = F.fuzz(pair_lab, 24)
    assert found.ok, [f.message for f in found.failures()]
    assert found.totals.cf_games == 24 and found.totals.cf_worlds > 0
