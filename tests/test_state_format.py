"""State.from_json refuses a saved state that is not consistent (issue P12), with a message that
says what is wrong and where, and a state it accepts can be played on.

The mutation fuzz takes states from real games in mid-play (San Guo Sha with 6 players and its
response stack, Chu Han with its events, Charuma), changes one thing at random (deletes a key, puts
a value of another type, an out-of-range number, duplicates, drops or shuffles a list's elements)
and asserts that from_json either refuses it (StateFormatError) or gives a state on which
legal_actions, apply, observation, log_lines and to_json work, raising at most the engine's own
clear errors.  benchmarks/state_format.py runs more of them (--mutations N).
"""
from __future__ import annotations

import copy
import functools
import json
import random
import re
from pathlib import Path

import pytest

from interpreter import IllegalActionError, RuleRuntimeError, State, load
from interpreter.saved_log import ENTRY_KINDS, _all_fit
from interpreter.serialise import StateFormatError, _Validator

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"

# ---------------------------------------------------------------------- states from real games
# (rules file, players, options, seed, the decisions after which a state is taken)
SOURCES = [
    ("sanguosha.rules", 6, {}, 0, (60, 120, 200, 260, 330, 375)),
    ("sanguosha.rules", 6, {"formations": True, "momentum": True, "bi_thien": True}, 2, (80, 160, 240)),
    ("chuhan.rules", 2, {"events": True}, 1, (20, 45, 70)),
    ("charuma.rules", 4, {}, 1, (15, 40)),
]


@functools.lru_cache(maxsize=None)
def game(name: str):
    return load(str(GAMES / name))


@functools.lru_cache(maxsize=None)
def sample_states() -> tuple:
    """(rules file name, a state's JSON) taken in random games (seeded): the states at the listed
    decisions, and every state where a block waits for a choice or a response window with two
    entries or more on the stack (at most a few per game)."""
    out = []
    for name, players, options, seed, marks in SOURCES:
        st = game(name).new_state(players=players, seed=seed, options=options)
        rng = random.Random(seed)
        deep = 0
        for k in range(max(marks) + 1):
            if st.is_terminal():
                break
            interesting = k > 40 and (len(st.stack) >= 2 or (st.in_choice() and st.frames[-1][0] > 2))
            if k in marks or (interesting and deep < 3):
                deep += k not in marks
                out.append((name, st.to_json()))
            st.apply(rng.choice(st.legal_actions()))
    return tuple(out)


# ---------------------------------------------------------------------- mutations
ODD_VALUES = ["x", 1.5, None, [], {}, True, -1, 10**9, [0], {"a": 1}]
SKIPPED = {"rules", "rules_sha256"}  # (a changed hash is refused before anything else is read)
WEIGHTS = {"frames": 4, "pending": 3, "entries": 3, "stack": 2, "log": 3, "vars": 2}  # the rest: 1


def paths(value, prefix=()) -> list:
    """Every place in a JSON value: (path, value), containers and leaves."""
    out = [(prefix, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths(v, prefix + (k,)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(paths(v, prefix + (i,)))
    return out


def mutate(d: dict, rng: random.Random) -> str:
    """Change one thing in d (in place); returns what was done."""
    keys = [k for k in d if k not in SKIPPED]
    key = rng.choices(keys, [WEIGHTS.get(k, 1) for k in keys])[0]
    places = paths(d[key], (key,))
    path, value = rng.choice(places)
    parent = d
    for p in path[:-1]:
        parent = parent[p]
    last = path[-1]
    ops = ["type"]
    if isinstance(parent, dict) and len(path) > 1:
        ops.append("delete")
    if type(value) is int:
        ops += ["number", "number"]
    if isinstance(value, list) and value:
        ops += ["duplicate", "drop", "shuffle"]
    op = rng.choice(ops)
    if op == "delete":
        del parent[last]
    elif op == "type":
        parent[last] = copy.deepcopy(rng.choice([v for v in ODD_VALUES if type(v) is not type(value)]))
    elif op == "number":
        parent[last] = rng.choice([-1, value + 1, value - 1, 2 * value + 7, 10**6])
    elif op == "duplicate":
        i = rng.randrange(len(value))
        value.insert(rng.randrange(len(value) + 1), copy.deepcopy(value[i]))
    elif op == "drop":
        value.pop(rng.randrange(len(value)))
    else:
        rng.shuffle(value)
    return f"{op} at {'/'.join(map(str, path))}"


# a wrapped Python error, or a stack entry gone: a broken state blamed on the rules
BLAMES_THE_RULES = re.compile(r"(TypeError|IndexError|KeyError|AttributeError|ValueError|ZeroDivisionError|"
                              r"RecursionError)|stack entry \d+ is gone")


def exercise(st: State, rng: random.Random) -> None:
    """What a tool does with a state it read: raises if anything breaks."""
    for p in [None] + list(range(st.n)):
        st.observation(p)
        st.log_lines(p)
    st.to_json()
    legal = st.legal_actions()
    for action in rng.sample(legal, min(3, len(legal))):
        nxt = st.clone()
        try:
            nxt.apply(action)
        except IllegalActionError:
            continue
        nxt.legal_actions()
        nxt.observation(0)
        nxt.log_lines(0)
        nxt.to_json()


def try_mutation(name: str, text: str, rng: random.Random) -> tuple:
    """(outcome, what was done, the problem or None): the outcome is "refused", "accepted" or
    "broken" (from_json accepted a state that then failed)."""
    d = json.loads(text)
    what = mutate(d, rng)
    try:
        st = State.from_json(json.dumps(d), game(name))
    except StateFormatError:
        return "refused", what, None
    except Exception as e:  # noqa: BLE001
        return "broken", what, f"from_json: {type(e).__name__}: {e}"
    try:
        exercise(st, rng)
    except RuleRuntimeError as e:
        if BLAMES_THE_RULES.search(str(e)):
            return "broken", what, f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 -- any other exception is what this test looks for
        return "broken", what, f"{type(e).__name__}: {e}"
    return "accepted", what, None


def run_mutations(count: int, seed: int = 0) -> dict:
    """Run `count` mutations (seeded); raise AssertionError naming every broken one."""
    rng = random.Random(seed)
    states = sample_states()
    outcome = {"refused": 0, "accepted": 0, "broken": 0}
    broken = []
    for k in range(count):
        name, text = states[k % len(states)]
        result, what, problem = try_mutation(name, text, rng)
        outcome[result] += 1
        if problem is not None:
            broken.append(f"{name}, state {k % len(states)}, {what}: {problem[:300]}")
    assert not broken, f"{len(broken)} accepted state(s) broke:\n" + "\n".join(broken)
    return outcome


def test_mutated_states_are_refused_or_work():
    outcome = run_mutations(300, seed=1)
    assert outcome["refused"] > 100  # (most single changes make a state inconsistent)


def test_the_sample_has_deep_stacks_and_pending_choices():
    states = [json.loads(t) for _, t in sample_states()]
    assert max(len(d["stack"]) for d in states) >= 2
    assert any(d["pending"] and d["pending"]["kind"] == "choice" and len(d["frames"]) >= 2 for d in states)
    assert any(d["pending"] and d["pending"]["kind"] == "window" for d in states)


# ---------------------------------------------------------------------- each kind of inconsistency
@functools.lru_cache(maxsize=None)
def played(name: str, players: int, seed: int, decisions: int, options: tuple = ()) -> str:
    """The JSON of a state after `decisions` random decisions (seeded)."""
    st = game(name).new_state(players=players, seed=seed, options=dict(options))
    rng = random.Random(seed)
    for _ in range(decisions):
        st.apply(rng.choice(st.legal_actions()))
    return st.to_json()


def sgs(decisions: int) -> dict:
    """San Guo Sha, 6 players, seed 0: at 0 a choice inside a 'for' over the players; at 36 a
    Dodge asked inside a trigger inside an event inside an effect resolving; at 104 a response
    window with two entries on the stack."""
    return json.loads(played("sanguosha.rules", 6, 0, decisions))


def chuhan() -> dict:
    return json.loads(played("chuhan.rules", 2, 1, 30, (("events", True),)))


def refusal(d: dict, name: str = "sanguosha.rules") -> str:
    """from_json's message for d, or "accepted"."""
    try:
        State.from_json(json.dumps(d), game(name))
    except StateFormatError as e:
        return str(e)
    return "accepted"


def test_the_states_used_below_are_what_they_say():
    assert sgs(0)["pending"]["target"] == "pair" and any(k.startswith("$for") for k in sgs(0)["frames"][0][2])
    frames = sgs(36)["frames"]
    assert [f[0] for f in frames[:2]] == [1, 2] and frames[3][0] == 0 and frames[3][2]["ret"] == "r"
    assert sgs(104)["pending"]["kind"] == "window" and len(sgs(104)["stack"]) == 2


@pytest.mark.parametrize("entry,message", [
    (7, "log entry N: a log entry is a list that starts with its kind, not 7"),
    (["dance", 1], "log entry N: unknown kind 'dance'"),
    (["text", 5], "a text entry needs"),
    (["announce"], "an announce entry needs"),
    (["phase", "nowhere"], "a phase entry needs [\"phase\", phase] naming a phase"),
    (["action", 9, "x"], "an action entry needs"),
    (["action", 0, "x", [1, 0]], "an action entry needs"),
    (["action", 0, 5], "an action entry needs"),
    (["move", 1], "a move entry needs [\"move\", zone, [[card, zone], ...]]"),
    (["move", 0, []], "a move entry needs"),
    (["move", 0, [[0]]], "a move entry needs"),
    (["move", 0, [[9999, 0]]], "a move entry needs"),
    (["move", 0, [[0, 1.5]]], "a move entry needs"),
    (["move", 0, [[0, 1]], [5]], "a move entry needs"),
    (["move", 0, [[0, 1]], [1, 1]], "a move entry needs"),
    (["move", 0, [[0, 1]], []], "a move entry needs"),
    (["reveal", 0, ["x"]], "a reveal entry needs"),
    (["reveal_card", -1], "a reveal_card entry needs"),
    (["look", 0, "cards"], "a look entry needs"),
    (["stack", 10**6, "pass_writ", 0], "a stack entry needs"),
    (["stack", 0, "no_such_effect", 0], "a stack entry needs"),
    (["resolve", 0, "pass_writ", "no"], "a resolve entry needs"),
    (["end", [0, 0]], "an end entry needs"),
    (["limit", "many"], "a limit entry needs"),
])
def test_every_kind_of_log_entry_is_checked(entry, message):
    d = chuhan()
    d["log"].insert(3, entry)
    assert message.replace("N", "3") in refusal(d, "chuhan.rules")


@pytest.mark.parametrize("entry", [
    ["move", 0, [[0, 1], [1, 1]]],
    ["move", 0, [[0, 1], [1, 2]], [0, 2]],  # with the zones that were revealed as the cards moved
    ["move", 3, [[4, 3]], [3]],
    ["action", None, "x"],
    ["action", 1, "a choice", [1]],
    ["look", 1, []],
    ["end", []],
    ["limit", 100000],
])
def test_the_entries_the_engine_writes_are_accepted(entry):
    d = chuhan()
    d["log"].append(entry)
    assert refusal(d, "chuhan.rules") == "accepted"
    State.from_json(json.dumps(d), game("chuhan.rules")).log_lines(0)


def test_the_quick_pass_over_the_log_agrees_with_the_entry_by_entry_check():
    rng = random.Random(3)
    for name, text in sample_states():
        d = json.loads(text)
        val = _Validator(d, game(name))
        val.run()
        log = d["log"]
        for _ in range(15):
            bad = copy.deepcopy(log)
            mutate({"log": bad}, rng)
            fits = all(type(e) is list and e and type(e[0]) is str and e[0] in ENTRY_KINDS
                       and ENTRY_KINDS[e[0]][0](e, val) for e in bad)
            assert _all_fit(bad, val) == fits


def test_a_stack_id_twice_is_refused():
    d = sgs(104)
    d["stack"].append(d["stack"][-1])
    assert "'stack' must list each entry once, oldest first" in refusal(d)


def test_a_stack_out_of_order_is_refused():
    d = sgs(104)
    d["stack"].reverse()
    assert "'stack' must list each entry once, oldest first" in refusal(d)


def test_an_entry_answering_a_missing_entry_is_refused():
    d = sgs(104)
    d["entries"][-1][5] = 99
    assert "stack entry 3 answers 99, which is not an earlier entry" in refusal(d)


@pytest.mark.parametrize("change,message", [
    (lambda data: data.clear(), "the fields of stack entry 3 must be those of effect"),
    (lambda data: data.update(extra=1), "the fields of stack entry 3 must be those of effect"),
    (lambda data: data.update({next(iter(data)): [1]}), "the field 'card_name' of stack entry 3 must be text"),
])
def test_an_entry_with_wrong_fields_is_refused(change, message):
    d = sgs(104)
    change(d["entries"][-1][7])
    assert message in refusal(d)


def test_a_dropped_response_window_frame_is_refused():
    d = sgs(104)
    d["frames"].pop()  # the response stack's frame, which asks the pending window
    assert "the pending response window must be the window of the response stack's frame on top" in refusal(d)


def test_dropped_frames_and_decision_while_entries_wait_are_refused():
    d = sgs(104)
    d["frames"], d["pending"] = [], None
    assert "nothing is pending, so the state must await a phase's actor" in refusal(d)
    assert "the stack holds entries" in refusal(d)


def test_a_window_asking_another_player_is_refused():
    d = sgs(104)
    d["pending"]["who"] = (d["pending"]["who"] + 1) % 6
    assert "asking the player its order gives" in refusal(d)


def test_a_choice_no_block_asked_is_refused():
    d = sgs(36)
    d["pending"]["target"] = "elsewhere"  # (then 'd', the answer awaited, is missing)
    assert "frame 4 (trigger 'ask_for_dodges'): the locals ['d'] are missing" in refusal(d)
    d = sgs(36)
    d["pending"]["param"] = "card"
    assert "the pending choice (for 'd') is not the one trigger 'ask_for_dodges' asks where it stopped" in refusal(d)
    d = sgs(36)
    d["frames"][-1][1] -= 1  # the frame resumes at a step where it cannot have stopped
    assert "where it cannot have stopped" in refusal(d)


@pytest.mark.parametrize("change,message", [
    (lambda f: f[-1][2].update(got="many"), "frame 4 (trigger"),
    (lambda f: f[-1][2].update(got="many"), "the local 'got' must be a whole number, not 'many'"),
    (lambda f: f[-1][2].update(stranger=1), "'stranger' is not a name this block holds"),
    (lambda f: f[-1][2].pop("got"), "the locals ['got'] are missing"),
    (lambda f: f[-1][2].pop("p"), "the locals ['p'] are missing"),
    (lambda f: f[-1][2].update({"$rf": 0}), "'$rf' must be the event's frame just below"),
    (lambda f: f[2][2].update(this=7), "frame 2 (the resolution of effect 'strike'): the local 'this' must be a "
                                       "stack entry, not 7"),
    (lambda f: f[2][2]["te"].pop("user"), "must be the record of event 'takes_effect'"),
    (lambda f: f[3][2]["rec"].update(needed="one"), "the field 'needed' of the event must be a whole number"),
    (lambda f: f[3][2].update(ret="nowhere"), "the record goes back to 'nowhere' of frame 2"),
    (lambda f: f[3][2]["jobs"][0].__setitem__(1, 0), "is not a trigger of this event"),
    (lambda f: f[1][2].update(resolved=40), "'resolved' must be the id of a stack entry"),
    (lambda f: f[4][2]["$for27"].__setitem__(1, 5), "the loop '$for27' must be [items, next index, saved names]"),
])
def test_garbage_in_frames_is_refused(change, message):
    d = sgs(36)
    change(d["frames"])
    assert message in refusal(d)


def test_a_loop_over_the_wrong_items_is_refused():
    d = sgs(0)
    key = next(k for k in d["frames"][0][2] if k.startswith("$for"))
    d["frames"][0][2][key][0] = ["P1"]
    assert f"the loop '{key}': an item" in refusal(d)


def test_a_choice_offering_values_of_another_kind_is_refused():
    d = sgs(0)
    d["pending"]["options"][0] = 5  # a 'cards' choice offers lists of cards
    assert "offers 5, which is not a cards choice" in refusal(d)
    d = sgs(36)
    d["pending"]["options"][0]["cards"] = ["Dodge"]
    assert "the cards of an option of the pending choice for 'd'" in refusal(d)


def test_a_game_over_with_a_decision_pending_is_refused():
    d = sgs(36)
    d["terminal"], d["winners"], d["stage"] = True, [0], "over"
    assert "a game that is over has the stage 'over'" in refusal(d)


def test_a_trigger_whose_event_fields_differ_from_the_record_is_refused():
    d = sgs(36)
    d["frames"][4][2]["p"] = (d["frames"][4][2]["p"] + 1) % 6  # a field 'ask_for_dodges' never changes
    assert "frame 4 (trigger 'ask_for_dodges'): the event fields ['p'] differ from its event's record" in refusal(d)


def test_the_same_card_twice_where_cards_are_different_is_refused():
    d = sgs(104)
    d["frames"][0][2]["u"]["cards"] *= 2  # the cards of a card as used
    assert "the cards of frame 0 (the effect of action 'await_exhausted'): the local 'u' must be different cards" in refusal(d)
    d = sgs(0)
    d["pending"]["options"][0] = [163, 163]  # an option of a 'cards' choice
    assert "offers [163, 163], which is not a cards choice" in refusal(d)


def test_the_fuzzers_round_trip_check_finds_a_wrongly_shaped_new_log_entry():
    from rulespec.tools.fuzzing.checks import check_round_trip
    st = State.from_json(played("chuhan.rules", 2, 1, 30, (("events", True),)), game("chuhan.rules"))
    mark = len(st.log)
    assert check_round_trip(st, mark, len(st.history)) == []
    st.log.append(["move", 1])  # a list that starts with a text, but no move the engine writes
    problems = check_round_trip(st, mark, len(st.history))
    assert any(f"log entry {mark}: a move entry needs" in p for p in problems), problems


def test_next_entry_past_the_entries_is_refused():
    d = sgs(104)
    d["next_entry"] += 1  # the next entry stacked would not follow the others
    assert "the stack entries' ids must be consecutive, the last one below 'next_entry'" in refusal(d)


def test_an_entry_with_a_card_twice_is_refused():
    d = sgs(104)
    d["entries"][-1][4] *= 2
    assert "the cards of stack entry 3 must be a list of different cards" in refusal(d)


def test_copies_a_setup_leaves_out_are_in_no_zone_of_a_saved_state():
    """'copies: EXPR' (tests/rules/setup_lab.rules): a saved 2-player game holds 4 of its 10 cards;
    from_json refuses one of the others in a zone, or a card of the game missing from every zone."""
    lab = load(str(ROOT / "tests" / "rules" / "setup_lab.rules"))
    st = lab.new_state(players=2, seed=1)
    assert sum(map(len, st.zones)) == 4 and State.from_json(st.to_json(), lab).to_json() == st.to_json()
    out = sorted(st.out_of_game())
    d = json.loads(st.to_json())
    d["zones"][0].append(out[0])
    with pytest.raises(StateFormatError, match=r"card #3 \(King\) is in a zone, but a game of 2 players with "
                                               r"these options leaves it out"):
        State.from_json(json.dumps(d), lab)
    d = json.loads(st.to_json())
    next(z for z in d["zones"] if z).pop()  # a card of the game in no zone
    with pytest.raises(StateFormatError, match=r"card\(s\) are in no zone"):
        State.from_json(json.dumps(d), lab)


def test_an_int_option_with_a_range_is_refused_outside_it():
    text = ('game "R" { players 2..2 start p cards start in deck }\ncard "A" { copies: 1 }\nzone deck: pile hidden\n'
            'option seat: int in 1..4 = 1\naction go() { effect { end game } }\n'
            'phase p { actions go  after { active = next_player(active) } next p }\n')
    from interpreter.game import OptionError, load_text
    g = load_text(text, "ranged.rules")
    assert g.new_state(options={"seat": "4"}).opts["seat"] == 4
    with pytest.raises(OptionError, match="option 'seat' is a whole number from 1 to 4, not 5"):
        g.new_state(options={"seat": 5})
    d = json.loads(g.new_state().to_json())
    d["options"]["seat"] = 7
    with pytest.raises(StateFormatError, match="option 'seat' has the value 7, which is not a int in 1..4"):
        State.from_json(json.dumps(d), g)
