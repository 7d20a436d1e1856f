"""The counterfactual secrecy check (rulespec/tools/fuzzing/secrecy.py) and its place in rulespec fuzz.

1. It catches Chu Han's window leak on a fixed, recorded game: the engine asked a player in a
   response window only when they held a response, so the rival learned whether they held
   Lyu Zhi.  (The engine now asks everyone who could hold one -- commit 6a166fe -- and the
   test checks whichever engine it runs on: the leak caught before the fix, the same game
   clean after it.)  The same leak planted in a rules file (tests/rules/secrecy_window.rules:
   a window that asks only the holders) is caught on any engine.
2. It catches a leak planted in a small rules file (tests/rules/secrecy_planted.rules), which
   the per-decision checks cannot see.
3. No false alarms on the shipped games: the only failures are the known leaks.
4. A card named in an action's text is no leak (tests/rules/secrecy_guess.rules): the old
   name-based false alarm of the per-decision check is gone.
5. Its failures shrink, and the replay file and the scenario reproduce them.
Plus: determinism, the rate and viewer plan, the command line's report.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.fuzzing import fuzz as F
from rulespec.tools.fuzzing import secrecy as S
from rulespec.tools.fuzzing.checks import _hidden_names, check_secrecy
from rulespec.tools.scenario import ScenarioError, load_file, run_scenario

ROOT = Path(__file__).resolve().parent.parent
CHARUMA = str(ROOT / "games" / "charuma.rules")
CHUHAN = str(ROOT / "games" / "chuhan.rules")
EIGHTS = str(ROOT / "games" / "crazy_eights.rules")
PLANTED = str(ROOT / "tests" / "rules" / "secrecy_planted.rules")
WINDOW = str(ROOT / "tests" / "rules" / "secrecy_window.rules")
GUESS = str(ROOT / "tests" / "rules" / "secrecy_guess.rules")
ANNOUNCE = str(ROOT / "tests" / "rules" / "secrecy_announce.rules")
DISCARD = str(ROOT / "tests" / "rules" / "secrecy_discard.rules")
RANDOM = str(ROOT / "tests" / "rules" / "secrecy_random.rules")
SETUP_CHOICE = str(ROOT / "tests" / "rules" / "secrecy_setup_choice.rules")
OFFERED = str(ROOT / "tests" / "rules" / "secrecy_offered.rules")
CHECK = S.CHECK

# Found by `rulespec fuzz games/chuhan.rules --games 12` (game #6, seed 6, viewer P2), shrunk
# to two actions: P1 leads a 7, P2 plays Xiang Yu's power, and the window asks P1 -- who
# holds Lyu Zhi.  With Lyu Zhi elsewhere P1 would not be asked, and P2 sees the difference.
LEAK = {"players": 2, "seed": 6, "options": {}, "actions": ["play 7", "use Xiang Yu"], "viewer": 1}


@pytest.fixture(scope="module")
def chuhan():
    return interpreter.load(CHUHAN)


# ====================================================================== 1. Chu Han's window leak
def _engine_asks_only_holders(game) -> bool:
    """Today's engine asks a player in a response window only when they hold a response.  Tell
    by replaying LEAK with P1's Lyu Zhi swapped for a number card of the draw pile."""
    st = game.new_state(players=2, seed=LEAK["seed"])
    names, base = st.prog.card_names, st.prog.zone_base
    lyu_zhi = next(c for c in st.zones[base["hand"]] if names[c] == "Lyu Zhi")
    number = next(c for c in st.zones[base["draw"]] if names[c].isdigit() and names[c] != "7")

    class Swap:  # stands in for the random generator: exchanges the two cards
        @staticmethod
        def shuffle(items):
            items.reverse()
    world, sigma = S.redeal(st, game, {lyu_zhi, number}, Swap())
    assert sigma == {lyu_zhi: number, number: lyu_zhi}
    for text in LEAK["actions"]:
        world.apply(text)
    return not (world.in_window() and world.current_player == 0)


def test_the_chu_han_window_leak_is_caught(chuhan):
    st = chuhan.new_state(players=2, seed=LEAK["seed"])
    names = st.prog.card_names
    assert "Lyu Zhi" in [names[c] for c in st.zones[st.prog.zone_base["hand"]]]  # P1 holds it
    for text in LEAK["actions"]:
        st.apply(text)
    assert st.in_window() and st.current_player == 0  # P1 is asked
    assert "cancel it with Lyu Zhi" in st.legal_action_strings()

    verdict = S.counterfactual_check(chuhan, LEAK["players"], LEAK["seed"], LEAK["options"], LEAK["actions"],
                                     LEAK["viewer"])
    if _engine_asks_only_holders(chuhan):  # the engine as it is today: the leak must be caught
        leak = verdict.leak
        assert leak is not None and leak.kind == "window" and leak.decision == 2, verdict
        assert leak.message.startswith("P2 sees P1 asked in a response window as played, but P1 to act")
        assert S.WINDOW_PHRASE in leak.message
    else:  # once every player who could hold a response is asked, the same game is clean
        assert verdict.leak is None or verdict.leak.kind != "window", verdict
    # deterministic: the same game, viewer and actions give the same verdict
    again = S.counterfactual_check(chuhan, LEAK["players"], LEAK["seed"], LEAK["options"], LEAK["actions"],
                                   LEAK["viewer"])
    assert again == verdict
    # the other player sees nothing wrong: P1's own cards decide whether P1 is asked
    assert S.counterfactual_check(chuhan, 2, LEAK["seed"], {}, LEAK["actions"], 0).leak is None


def test_a_window_that_asks_only_the_holders_is_caught():
    game = interpreter.load(WINDOW)
    found = F.fuzz(game, 16)
    assert set(found.totals.failures) == {CHECK} and found.totals.failures[CHECK] >= 2
    first = found.failures()[0]
    assert first.detail["kind"] == "window" and S.WINDOW_PHRASE in first.message, first.message
    fair = F.fuzz(game, 16, options={"leak": False})  # the window asks everyone after the caster
    assert fair.ok, [f.message for f in fair.failures()]
    assert fair.totals.cf_games == 16 and fair.totals.cf_worlds > 0


# ====================================================================== 2. a planted leak
def test_a_planted_leak_is_caught_where_the_per_decision_checks_see_nothing():
    game = interpreter.load(PLANTED)
    blind = F.fuzz(game, 6, counterfactual_rate=0)
    assert blind.ok and blind.totals.cf_games == 0  # every state on its own looks fine
    found = F.fuzz(game, 6)
    assert set(found.totals.failures) == {CHECK} and found.totals.failures[CHECK] >= 5
    first = found.failures()[0]
    assert "observation differs at vars.hint" in first.message and first.detail["kind"] == "observation"
    off = F.fuzz(game, 6, options={"leak": False})
    assert off.ok and off.totals.cf_games == 6 and off.totals.cf_worlds >= 6


def test_seen_cards_stay_and_unseen_cards_are_re_dealt():
    game = interpreter.load(PLANTED)
    trace = S.record_trace(game, 3, 4, {"leak": False}, ["pass"], viewer=0)
    st = trace.start
    base = st.prog.zone_base["hand"]
    mine = set(st.zones[base])
    assert all(trace.seen[c] == 0 for c in mine)                       # P1 sees their hand at once
    assert all(trace.seen[c] == -1 for c in st.zones[base + 1])        # not P2's
    assert all(trace.moved[c] == 0 for c in range(9))                  # all dealt (moved) in setup
    import random
    unseen = {c for c in range(9) if trace.seen[c] == -1}
    world, sigma = S.redeal(st, game, unseen, random.Random(1))
    assert set(sigma) == unseen and sorted(sigma.values()) == sorted(unseen)
    assert world.zones[base] == st.zones[base]                          # P1's hand as it was
    assert sorted(c for z in world.zones for c in z) == list(range(9))
    assert all(world.where[c] == zi for zi, z in enumerate(world.zones) for c in z)


# ====================================================================== 2b. announcements
def test_an_announced_fact_about_hidden_cards_is_no_leak_but_the_same_line_logged_is():
    game = interpreter.load(ANNOUNCE)
    told = F.fuzz(game, 12, counterfactual_rate=1)
    assert told.ok, [f.message for f in told.failures()]
    assert told.totals.cf_games == 12 and told.totals.cf_worlds > 0
    logged = F.fuzz(game, 12, counterfactual_rate=1, options={"announce": False})
    assert set(logged.totals.failures) == {CHECK}
    assert "holds" in logged.failures()[0].message or "table" in logged.failures()[0].message


def test_an_announcement_covers_only_what_it_says():
    game = interpreter.load(ANNOUNCE)
    leaky = F.fuzz(game, 12, counterfactual_rate=1, options={"leak": True})
    assert set(leaky.totals.failures) == {CHECK}
    assert "vars.total" in leaky.failures()[0].message


def test_a_world_that_announces_otherwise_is_dropped_with_the_reason():
    game = interpreter.load(ANNOUNCE)
    st = game.new_state(players=2, seed=1)
    st.apply("ask P2 for a Five")
    assert st.log[-2] == ["announce", "P2 holds a Five"]  # a log entry of its own kind
    assert "P2 holds a Five" in st.log_lines(0) and "P2 holds a Five" in st.log_lines(1)
    actions = ["ask P2 for a Five", "ask P1 for a Five", "ask P2 for a Five", "ask P1 for a Five"]
    dropped = compared = 0
    for seed in range(30):
        v = S.counterfactual_check(game, 2, seed, {}, actions, viewer=0, cuts=[4])
        assert v.ok, v.leak
        dropped += v.dropped
        compared += v.worlds - v.dropped
        assert all("announces" in r for r in v.reasons)  # the only reason a world is dropped here
    assert dropped > 0 and compared > 0  # some re-deals contradict an answer, others agree with all


def test_the_rulebook_says_what_everyone_is_told():
    from rulespec.tools.docs import to_markdown
    text = to_markdown(interpreter.load(ANNOUNCE).model)
    assert "Everyone is told “[q] holds a Five”" in text, text  # a hole as words in brackets


# ====================================================================== 2c. a rival's hidden choice
def _offered_game(game, seed: int, options: dict) -> list:
    """A game of the offered lab: each player keeps the first two cards offered, then 4 passes."""
    st = game.new_state(players=2, seed=seed, options=options)
    actions = []
    while not st.terminal:
        actions.append(st.legal_actions()[0].text)
        st.apply(actions[-1])
    return actions


def test_a_rivals_choice_among_cards_offered_face_down_is_made_with_the_re_dealt_cards():
    """P2 keeps two of three cards only P2 sees; a re-deal offers P2 other cards, so the recorded
    choice (naming the cards kept) is not legal there.  The check makes the same choice with the
    re-dealt cards: the re-deals are compared, not dropped (they all were), and a leak of the
    kept cards (`leak`: the first pass logs their total) is found through them."""
    game = interpreter.load(OFFERED)
    worlds = dropped = leaks = 0
    for seed in range(12):
        actions = _offered_game(game, seed, {})
        v = S.counterfactual_check(game, 2, seed, {}, actions, viewer=0)
        assert v.ok, (seed, v.leak)
        worlds, dropped = worlds + v.worlds, dropped + v.dropped
        leaky = S.counterfactual_check(game, 2, seed, {"leak": True}, _offered_game(game, seed, {"leak": True}),
                                       viewer=0)
        leaks += not leaky.ok
        if not leaky.ok:
            assert "P1's log differs: 'P2 kept" in leaky.leak.message and leaky.leak.chosen, leaky.leak
    assert worlds > 12 and dropped == 0, (worlds, dropped)
    assert leaks >= 6, leaks


def test_a_face_down_choice_is_replayed_as_the_choice_that_takes_the_card_in_its_place():
    """A re-deal can put the card P1 discarded elsewhere in P1's hand; the recorded text would
    then take it from there, shift the hand, and the reshuffle would turn up another card -- a
    false leak.  The check replays the choice that takes the card in W's place instead."""
    game = interpreter.load(DISCARD)
    corresponded = 0
    for seed in range(40):
        st = game.new_state(players=2, seed=seed)
        names = st.prog.card_names
        hand = list(st.zones[st.prog.zone_base["hand"]])
        for c in hand:  # each of P1's three choices
            v = S.counterfactual_check(game, 2, seed, {}, [f"discard {names[c]}"], viewer=1, cuts=[1])
            assert v.ok, (seed, names[c], v.leak)
            corresponded += v.realigned
    assert corresponded > 0  # some worlds needed the corresponding choice


# ====================================================================== 2d. a random pick among hidden cards
@pytest.mark.parametrize("engine", ["compiled", "interpreted"])
def test_a_random_pick_among_hidden_cards_is_replayed_with_the_outcome_as_played(engine):
    """P1 takes a random red card of P2's hidden hand and lays it face up.  A re-deal changes the
    other red cards of that hand, so the same random number picks another card of the list, and
    another card is laid up: no leak (chance could as well have taken the card it took), and the
    check replays the pick with that outcome.  (Found by `rulespec fuzz games/sanguosha.rules
    --option formations=true --games 400 --seed 11 --counterfactual-rate 1`, game #78: Jiang
    Qin's Tửu Sắc discards a random black card of a hand.)"""
    from interpreter import rng
    game = interpreter.load(RANDOM, engine=engine)
    steered = 0
    for seed in range(40):
        v = S.counterfactual_check(game, 2, seed, {}, ["take a random red card of the next hand"], viewer=0,
                                   cuts=[1])
        assert v.ok, (seed, v.leak)
        steered += v.realigned
        assert rng.pick_steer is None  # the engine's picks are its own again
    assert steered > 0  # some worlds needed the outcome as played


# ====================================================================== 3. no false alarms
def _known_leak(path: str, out) -> bool:
    """The leaks the shipped games have today."""
    if out.failure[0] != CHECK:
        return False
    kind = out.detail["kind"]
    if kind == "window":
        # Chu Han: the engine asks only players who hold a response (see test 1)
        return S.WINDOW_PHRASE in out.failure[1]
    # Crazy Eights: after drawing, the turn ends at once when the card cannot be played, and
    # goes on (play it, or keep it and pass) when it can: so the others learn whether the card
    # drawn was playable.  A leak of the rules file, found by this check (see docs/fuzzing.md).
    k = out.detail["decision"]
    return path == EIGHTS and kind == "turn" and k > 0 and out.actions[k - 1] == "draw"


@pytest.mark.parametrize("path, games, seed, options", [
    (CHARUMA, 2, 3, {}),
    (CHUHAN, 4, 3, {}),
    (CHUHAN, 4, 3, {"events": True}),
    (EIGHTS, 3, 3, {}),
])
def test_no_false_alarms_in_the_shipped_games(path, games, seed, options):
    game = interpreter.load(path)
    worlds = 0
    for job in F.plan(game, games, seed=seed):
        assert job.viewer is not None
        out = F.run_job(game, job, options, F.DEFAULT_MAX_STEPS)
        if out.failure is not None:
            assert _known_leak(path, out), f"game {job.index}: {out.failure}"
        assert out.counterfactual is not None  # every game passed the other checks and was compared
        worlds += out.counterfactual.worlds
    assert worlds > 0


def test_copies_and_hand_order_are_kept_in_step(chuhan):
    """Re-dealt hands may hold two copies of a card where the game as played had one; the
    engine may then play the other copy, and a hand's order shifts.  The check puts the
    re-deal back in step instead of reporting a difference the viewer never saw (found as
    false alarms 'P2's observation differs at zones.hand[P2].cards[3]' in Chu Han)."""
    realigned = 0
    for job in F.plan(chuhan, 12, seed=0)[::3]:
        out = F.run_job(chuhan, F.GameJob(job.index, job.players, job.seed, job.agent, job.agent_seed),
                        {}, F.DEFAULT_MAX_STEPS)
        n = len(out.actions)
        verdict = S.counterfactual_check(chuhan, 2, job.seed, {}, out.actions, 1, cuts=[n // 4, n // 2])
        assert verdict.leak is None or verdict.leak.kind == "window", verdict.leak
        realigned += verdict.realigned
        if realigned:
            break
    assert realigned > 0


# ====================================================================== 4. naming a card is no leak
def test_naming_a_hidden_card_in_an_action_text_is_no_leak():
    game = interpreter.load(GUESS)
    # the per-decision check used to report such texts: find one
    for seed in range(20):
        st = game.new_state(players=2, seed=seed)
        hidden = _hidden_names(st, st.current_player)
        named = [a.text for a in st.legal_actions() if any(a.text.endswith(" " + h) for h in hidden)]
        if named:
            break
    assert named, "no position where a guess names a flower hidden from the guesser"
    assert check_secrecy(st) == []
    result = F.fuzz(game, 8, players="all")
    assert result.ok, [f.message for f in result.failures()]
    assert result.totals.cf_games == 8
    # a re-deal that contradicts an answer ("hold no such flower" with a Rose in hand) is
    # dropped as inconsistent with the public history, not reported
    assert result.totals.cf_dropped > 0


# ====================================================================== 5. shrinking, replay, scenario
def test_a_counterfactual_failure_shrinks_replays_and_becomes_a_scenario(tmp_path):
    game = interpreter.load(PLANTED)
    first = F.fuzz(game, 4, players=3).failures()[0]
    assert first.check == CHECK and first.viewer is not None
    shrunk, used = F.shrink(game, first, {})
    assert shrunk.check == CHECK and shrunk.steps <= first.steps and used >= 1
    assert shrunk.detail["decision"] <= shrunk.steps and f"after {shrunk.detail['decision']} decisions" in shrunk.message
    # the shrunk choices fail the same way, with the same viewer
    again = F.replay_choices(game, shrunk, {}, shrunk.choices, texts=shrunk.actions)
    assert again.failure == (CHECK, shrunk.message)
    rj, sy = F.write_failure(game, shrunk, {}, F.DEFAULT_MAX_STEPS, tmp_path)
    d = F.read_replay(rj)
    assert d["counterfactual"] == {"viewer": shrunk.viewer} and d["failure"]["check"] == CHECK
    assert F.run_replay(game, d).failure == (CHECK, shrunk.message)
    as_played, redealt = load_file(sy)
    run_scenario(as_played)  # what the viewer saw
    with pytest.raises(ScenarioError, match="hint"):
        run_scenario(redealt)  # the re-deal shows them something else
    # a replay file naming a seat that is not in the game is refused
    bad = dict(json.loads(rj.read_text()), counterfactual={"viewer": 7})
    rj.write_text(json.dumps(bad))
    with pytest.raises(F.FuzzError, match="'counterfactual' must give a 'viewer'"):
        F.read_replay(rj)


@pytest.mark.parametrize("dealt", [True, False], ids=["dealt by the setup", "relabelled"])
def test_the_re_dealt_scenario_replays_from_a_setup_that_asks(tmp_path, monkeypatch, dealt):
    """The re-dealt scenario replays every action and fails only at its last step, what the viewer
    sees, where the setup's first decision is a question inside its block.  Dealt by the setup,
    it gives the order the cards start in (start_order) and the setup runs on it; relabelled, its
    position resumes the setup's question (`resume: true`), of the cards it places, by their
    labels.  (A position used to restart the rules after the setup instead, and San Guo Sha's
    scenario stopped at its first action: "'Tian Feng + Lü Bu' is not a legal action ... in
    phase 'play'".)"""
    if not dealt:
        monkeypatch.setattr(S, "dealt_again", lambda *a, **k: None)
    game = interpreter.load(SETUP_CHOICE)
    failure = next(f for f in F.fuzz(game, 16).failures() if f.check == CHECK)
    _, sy = F.write_failure(game, failure, {}, F.DEFAULT_MAX_STEPS, tmp_path)
    text = sy.read_text(encoding="utf-8")
    assert ("start_order:" in text) == dealt and ("resume: true" in text) != dealt
    assert "NOTE" not in text  # a step was confirmed to fail re-dealt
    as_played, redealt = load_file(sy)
    run_scenario(as_played)
    last = redealt.node.value[-1][1].value[-1]  # (the steps, the last one)
    assert "expect" in str(last.value[0][0].value)
    with pytest.raises(ScenarioError) as e:
        run_scenario(redealt)
    assert last.start_mark.line < e.value.line <= last.end_mark.line + 1, e.value  # at what the viewer sees


def test_a_window_leak_through_the_command_line(tmp_path):
    """rulespec replay and rulespec test on the files written for a window leak."""
    game = interpreter.load(WINDOW)
    first = next(f for f in F.fuzz(game, 16).failures() if f.check == CHECK)
    shrunk, _ = F.shrink(game, first, {})
    assert shrunk.detail["kind"] == "window"
    rj, sy = F.write_failure(game, shrunk, {}, F.DEFAULT_MAX_STEPS, tmp_path)
    from rulespec.tools.cli import main
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["replay", str(rj)]) == 1
        assert main(["test", str(sy)]) == 1
    text = buf.getvalue()
    assert f"with the counterfactual secrecy check for P{shrunk.viewer + 1}" in text
    assert "the recorded failure reproduces" in text
    assert "ok   fuzz: secrecy (counterfactual)" in text and "1 passed, 1 failed" in text, text


# ====================================================================== the plan, the rate, the report
def test_viewers_cycle_and_the_rate_samples_the_same_games_every_time():
    game = interpreter.load(PLANTED)
    jobs = F.plan(game, 8, players=2)
    assert [j.viewer for j in jobs] == [0, 0, 1, 1, 0, 0, 1, 1]  # with two agents: each agent, each viewer
    half = [j.viewer is not None for j in F.plan(game, 200, counterfactual_rate=0.5)]
    assert 70 < sum(half) < 130
    assert half == [j.viewer is not None for j in F.plan(game, 200, counterfactual_rate=0.5)]
    assert all(j.viewer is None for j in F.plan(game, 5, counterfactual_rate=0))
    with pytest.raises(F.FuzzError, match="from 0 to 1"):
        F.plan(game, 5, counterfactual_rate=1.5)
    one = F.fuzz(game, 10, counterfactual_rate=0.5, backend=F.LocalBackend(1))
    two = F.fuzz(game, 10, counterfactual_rate=0.5, backend=F.LocalBackend(2))
    assert one.summary() == two.summary()
    assert one.summary()["counterfactual"]["rate"] == 0.5 and 0 < one.totals.cf_games < 10


def _fuzz_args(*argv, rate=None):
    """`rulespec fuzz` arguments as the command line parses them, with --counterfactual-rate
    (declared by rulespec.tools.fuzz_cli.add_fuzz_arguments) set."""
    from rulespec.tools.cli import build_parser
    args = build_parser().parse_args(["fuzz", *argv])
    if rate is not None:
        args.counterfactual_rate = rate
    return args


def test_the_report_says_which_rate_was_used(tmp_path, capsys):
    args = _fuzz_args(PLANTED, "--games", "4", "--out", str(tmp_path / "out"), "--json", str(tmp_path / "s.json"),
                      "-q", "--shrink-budget", "0", rate=0.5)
    assert args.func(args) == 1
    out = capsys.readouterr().out
    assert "counterfactual secrecy" in out and "rate 0.5:" in out and "FAIL secrecy (counterfactual)" in out
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["counterfactual"]["rate"] == 0.5 and s["counterfactual"]["games"] >= 1
    assert "cpu_seconds" in s["counterfactual"]
    args = _fuzz_args(PLANTED, "--games", "4", "--out", str(tmp_path / "out2"), "-q", rate=0.0)
    assert args.func(args) == 0
    assert "off (--counterfactual-rate 0)" in capsys.readouterr().out
    from rulespec.tools.cli import UsageError
    with pytest.raises(UsageError, match="from 0 to 1"):
        bad = _fuzz_args(PLANTED, "--games", "1", "--out", str(tmp_path / "out3"), rate=2.0)
        bad.func(bad)


def test_the_flag_can_be_declared_on_a_parser():
    import argparse
    from rulespec.tools.fuzz_cli import DEFAULT_COUNTERFACTUAL_RATE, add_fuzz_arguments
    p = argparse.ArgumentParser()
    add_fuzz_arguments(p)
    assert p.parse_args([]).counterfactual_rate == DEFAULT_COUNTERFACTUAL_RATE == 0.2
    assert p.parse_args(["--counterfactual-rate", "0.25"]).counterfactual_rate == 0.25


def test_the_chu_han_leak_is_caught_when_the_old_asking_is_planted_back(chuhan, monkeypatch):
    """Put back the engine's old window policy -- ask a player only when they hold a legal
    response -- and the counterfactual check must catch Chu Han's Lyu Zhi leak again (on the
    engine as it is, the same game is clean: see the test above)."""
    import interpreter.machine as machine

    def old_should_ask(st, eid, p):
        from interpreter.windows import responses_for
        names = responses_for(st, eid)
        return bool(names) and bool(st._list_actions(names))
    monkeypatch.setattr(machine, "should_ask", old_should_ask)
    verdict = S.counterfactual_check(chuhan, LEAK["players"], LEAK["seed"], LEAK["options"], LEAK["actions"],
                                     LEAK["viewer"])
    assert verdict.leak is not None and verdict.leak.kind == "window", verdict
    assert verdict.leak.message.startswith("P2 sees P1 asked in a response window as played, but P1 to act")
    monkeypatch.undo()
    clean = S.counterfactual_check(chuhan, LEAK["players"], LEAK["seed"], LEAK["options"], LEAK["actions"],
                                   LEAK["viewer"])
    assert clean.leak is None or clean.leak.kind != "window"


# ====================================================================== re-deals keep decks apart
def test_a_redeal_never_trades_cards_of_decks_shuffled_apart():
    """Heroes and cards are shuffled in two piles: the re-deal permutes each pile's cards among
    themselves (a hero in the draw pile is a position the setup cannot make)."""
    game = interpreter.load(str(ROOT / "tests" / "rules" / "secrecy_two_decks.rules"))
    st = game.new_state(players=3, seed=4)
    groups = S.shuffle_groups(game, 3, 4, {}, st)
    heroes = [c for c in range(st.prog.card_count) if st.prog.card_names[c] in ("Knight", "Mage")]
    others = [c for c in range(st.prog.card_count) if c not in heroes]
    assert len({groups[c] for c in heroes}) == 1 and len({groups[c] for c in others}) == 1
    assert groups[heroes[0]] != groups[others[0]]
    import random
    for k in range(20):
        world, sigma = S.redeal(st, game, set(range(st.prog.card_count)), random.Random(k), groups)
        assert all((a in heroes) == (b in heroes) for a, b in sigma.items())
    # without the groups, some re-deal would put a hero among the cards
    mixed = False
    for k in range(20):
        _, sigma = S.redeal(st, game, set(range(st.prog.card_count)), random.Random(k))
        mixed = mixed or any((a in heroes) != (b in heroes) for a, b in sigma.items())
    assert mixed
    # the first decision is P1's choice of a hero: in a re-deal it offers the heroes dealt there
    world, sigma = S.redeal(st, game, set(heroes), random.Random(1), groups)
    offered = [st.prog.card_names[c] for c in world.zones[world.prog.zone_base["offered"]]]
    assert sorted(world.legal_action_strings()) == sorted(set(offered))
    actions = []
    st2 = game.new_state(players=3, seed=4)
    while not st2.terminal:
        a = st2.legal_action_strings()[0]
        actions.append(a)
        st2.apply(a)
    for viewer in range(3):
        assert S.counterfactual_check(game, 3, 4, {}, actions, viewer).ok
