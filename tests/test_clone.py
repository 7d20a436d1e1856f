"""State.clone() is an independent copy, though it shares its log, history, zones, variables and
frames with its original until one of them changes them (interpreter/copy_on_write.py).

Whole games of San Guo Sha (frames, the response stack, face-down cards), Chu Han and Hearts
(whose passed cards mask their decisions' log lines) are played by several states at once, each
a clone of another made at some decision, their actions taken in turn: every state's JSON must
stay what its own decisions made it, and equal that of a fresh replay of its history.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

import interpreter
from interpreter.state import State

ROOT = Path(__file__).resolve().parent.parent
GAMES = {name: ROOT / "games" / f"{name}.rules" for name in ("sanguosha", "chuhan", "hearts", "crazy_eights")}


@pytest.fixture(scope="module")
def games():
    return {name: interpreter.load(path) for name, path in GAMES.items()}


def replayed(game, st) -> str:
    """The JSON of a fresh state that took the same decisions as st."""
    again = game.new_state(players=st.n, seed=st.seed, options=dict(st.opts))
    for text in st.history:
        again.apply(text)
    return again.to_json()


def step(st, rng: random.Random) -> None:
    legal = st.legal_actions()
    st.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("name, players, seeds", [("sanguosha", 6, (0,)), ("chuhan", 2, (0, 1)),
                                                  ("hearts", 4, (1,))])
def test_a_clone_and_its_original_taking_turns(games, name, players, seeds):
    """A clone made at an early, a middle and a late decision; then the clone and the original
    take a random action each in turn to the end of their games."""
    game = games[name]
    for seed in seeds:
        length = 0
        st = game.new_state(players=players, seed=seed)
        rng = random.Random(seed)
        while not st.is_terminal():
            step(st, rng)
            length += 1
        for at in (1, length // 2, max(1, length - 3)):
            rng = random.Random(seed)  # the game played above, to decision `at`
            st = game.new_state(players=players, seed=seed)
            for _ in range(at):
                step(st, rng)
            rng = random.Random(seed * 100 + at)
            before = st.to_json()
            twin = st.clone()
            if at % 2:
                assert twin.to_json() == before
                step(twin, rng)  # the clone first: the original must not notice
                assert st.to_json() == before
            else:
                step(st, rng)  # the original first: the clone, not read yet, must not notice
                assert twin.to_json() == before
            turn = 0
            while not (st.is_terminal() and twin.is_terminal()):
                one = (st, twin)[turn % 2]
                if not one.is_terminal():
                    step(one, rng)
                turn += 1
            assert st.to_json() == replayed(game, st), (seed, at)
            assert twin.to_json() == replayed(game, twin), (seed, at)


EVERY_FILE = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "rules").glob("*.rules"))


@pytest.mark.parametrize("path", EVERY_FILE, ids=lambda p: p.stem)
def test_a_clone_at_every_decision_leaves_the_original_alone(path):
    """At every decision of a game (every shipped game and every tests/rules file, the most
    players they allow, options as they come), a clone takes one to three random actions:
    whatever it runs (a trigger preventing its event, a response stacking nothing, a shuffle, a
    field of a record set), the original's JSON stays as it was."""
    game = interpreter.load(path)
    options = {"target": 1} if path.stem in ("gin_rummy", "uno") else {}
    st = game.new_state(players=game.model.max_players, seed=1, options=options)
    rng = random.Random(1)
    decisions = 0
    while not st.is_terminal() and decisions < 250:
        before = st.to_json()
        twin = st.clone()
        for _ in range(rng.randint(1, 3)):
            if twin.is_terminal():
                break
            step(twin, rng)
        assert st.to_json() == before, f"decision {decisions}: the clone's actions changed the original"
        if decisions % 50 == 0:
            assert twin.to_json() == replayed(game, twin)
        step(st, rng)
        decisions += 1


@pytest.mark.parametrize("name, players, seed", [("sanguosha", 6, 3), ("sanguosha", 4, 4), ("chuhan", 2, 5),
                                                 ("hearts", 4, 6), ("crazy_eights", 4, 7)])
def test_many_clones_of_clones(games, name, players, seed):
    """Up to four states play at once; now and then one is cloned (the copy replaces another):
    clones of clones of clones, each sharing some of its lists with several others.  After each
    action the JSON of another state is still what its own last action left."""
    game = games[name]
    rng = random.Random(seed)
    first = game.new_state(players=players, seed=seed)
    pool = [first]
    known = [first.to_json()]
    for _ in range(600):
        live = [i for i, s in enumerate(pool) if not s.is_terminal()]
        if not live:
            break
        i = rng.choice(live)
        if rng.random() < 0.15:
            copy = pool[i].clone()  # (not read now: the others act first, then it is compared below)
            if len(pool) < 4:
                pool.append(copy)
                known.append(known[i])
            else:
                j = rng.choice([j for j in range(len(pool)) if j != i])
                pool[j], known[j] = copy, known[i]
            continue
        step(pool[i], rng)
        known[i] = pool[i].to_json()
        j = rng.randrange(len(pool))
        assert pool[j].to_json() == known[j], "a state changed by another's action"
    for s, text in zip(pool, known):
        assert s.to_json() == text == replayed(game, s)


def test_the_original_keeps_its_log_and_history_lists(games):
    """A tool may hold state.log and watch it grow: cloning never swaps the original's lists."""
    st = games["hearts"].new_state(players=4, seed=1)
    rng = random.Random(1)
    log, history = st.log, st.history
    for _ in range(20):
        twin = st.clone()
        before = st.to_json()
        step(st, rng)
        step(st, rng)
        assert twin.to_json() == before  # read only now: the lines it saw, not those added since
        assert st.log is log and st.history is history
        assert twin.log == log[:len(twin.log)] and twin.history == history[:-2]
        step(twin, rng)
        step(twin, rng)
        assert twin.log is not log and st.log is log and len(st.history) == len(twin.history)


def test_edits_in_place_go_to_the_state_edited(games):
    """edit_zone / edit_var hand out lists a state may change in place: the clone's changes never
    reach the original, and the other way round."""
    game = games["chuhan"]
    st = game.new_state(players=2, seed=2)
    twin = st.clone()
    zi = next(i for i, z in enumerate(st.zones) if len(z) > 1)
    row = next(i for i, v in enumerate(st.vars) if isinstance(v, list) and len(v) == 2)
    before = st.to_json()
    twin.edit_zone(zi).reverse()
    twin.edit_var(row)[0] = "changed"
    assert st.to_json() == before and twin.to_json() != before
    st.edit_zone(zi).pop()
    assert twin.zones[zi] == list(reversed(st.zones[zi] + [twin.zones[zi][0]]))


def test_a_clone_copies_only_what_changes(games):
    """What clone() copies at once does not grow with the game: the log, the history, the zones'
    lists, the variables' rows and the running frames are shared until one side changes them
    (San Guo Sha, late in a game: thousands of log lines, several frames running)."""
    st = games["sanguosha"].new_state(players=6, seed=0)
    rng = random.Random(2)  # a game that runs past 1500 log lines (seed 0's random play ends before)
    while len(st.log) < 1500 or not st.frames:
        step(st, rng)
    twin = st.clone()
    log, history = State.__dict__["log"], State.__dict__["history"]  # the slots (twin.log would copy)
    assert log.__get__(twin) is st.log and history.__get__(twin) is st.history and type(twin) is not State
    assert all(a is b for a, b in zip(twin.zones, st.zones)) and all(a is b for a, b in zip(twin.vars, st.vars))
    assert all(a is b for a, b in zip(twin.frames, st.frames))
    step(twin, rng)
    assert type(twin) is State and twin.log is not st.log  # its own lists now: a plain State
    mine = [zi for zi, (a, b) in enumerate(zip(twin.zones, st.zones)) if a is not b]
    assert len(mine) < len(st.zones) // 4 and all(twin.zones[zi] != st.zones[zi] or zi in twin._own for zi in mine)
    assert twin.to_json() == replayed(games["sanguosha"], twin) and st.to_json() == replayed(games["sanguosha"], st)


LAB = """
game "Clone lab" {
  players 2..2
  start setup
  cards start in deck
}
card "Token" { copies: 6 }
zone deck: pile hidden
zone hand[player]: set owner
zone pile: pile public
var life[player]: int = 3
var turns: int = 0
event damage(target: player, amount: int)

trigger shield before damage {
  let n = choose target: int in 0..1
  if n == 1 { prevent } else { amount += 1 }
}
trigger hurt on damage { life[target] -= amount }

action hit() { effect { emit damage(next_player(active), 1) } }
action stir() { effect { shuffle deck } }
action pass() { effect { turns += 1 } }

phase setup {
  enter { deal 2 from deck to hand[players[0]] }
  next turn
}
phase turn {
  actions hit, stir, pass
  after { active = next_player(active) }
  end when turns >= 3
  next over
}
phase over { enter { end game } }
"""


@pytest.mark.parametrize("answer", ["0", "1"])
def test_a_trigger_answered_in_a_clone_writes_only_the_clones_event(answer):
    """A trigger that asks, then prevents its event or changes its amount: the clone made while
    it asks gets the answer, and the record it writes (in the event's frame below) is its own."""
    game = interpreter.load_text(LAB)
    st = game.new_state(players=2, seed=0)
    st.apply("hit")
    assert st.in_choice()
    before = st.to_json()
    twin = st.clone()
    twin.apply(answer)
    assert st.to_json() == before
    st.apply("1" if answer == "0" else "0")
    assert twin.to_json() != st.to_json()
    for s in (st, twin):
        assert s.to_json() == replayed(game, s)


def test_a_shuffle_in_a_clone_leaves_the_originals_zone():
    game = interpreter.load_text(LAB)
    st = game.new_state(players=2, seed=0)
    before = st.to_json()
    twin = st.clone()
    twin.apply("stir")
    assert st.to_json() == before and twin.zones != st.zones
    st.apply("stir")
    assert twin.to_json() == replayed(game, twin) and st.to_json() == replayed(game, st)
