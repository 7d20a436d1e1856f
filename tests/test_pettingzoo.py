"""rulespec.tools.ai.pettingzoo: any rules file as a PettingZoo AEC environment (docs/ai.md)."""
import json
import random
import re
import traceback
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="rulespec.tools.ai.pettingzoo needs the pettingzoo extra: "
                                         "pip install 'rulespec[pettingzoo]' (make test installs it)")
import numpy as np  # noqa: E402  (after the skip: numpy comes with the extra)
from pettingzoo.test import api_test, seed_test  # noqa: E402

from interpreter import State, load  # noqa: E402
from rulespec.tools.ai.pettingzoo import env, raw_env  # noqa: E402
from rulespec.tools.ai.token_env import TokenState  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# (file, players, API test cycles: enough to finish a game but San Guo Sha's, ~300 us a decision,
# and Gin Rummy's, whose random players seldom knock)
GAMES = [("games/blackjack.rules", 4, 100), ("games/charuma.rules", 4, 150), ("games/chuhan.rules", 2, 250),
         ("games/crazy_eights.rules", 4, 150), ("games/cribbage.rules", 2, 400), ("games/durak.rules", 4, 300),
         ("games/euchre.rules", 4, 300), ("games/gin_rummy.rules", 2, 200), ("games/hearts.rules", 4, 700),
         ("games/holdem.rules", 4, 200), ("games/president.rules", 4, 700), ("games/sanguosha.rules", 6, 20),
         ("games/scopa.rules", 2, 400), ("games/skat.rules", 3, 300), ("games/spades.rules", 4, 400),
         ("games/uno.rules", 4, 150)]
IDS = [Path(p).stem for p, _, _ in GAMES]


def _api_test(e, cycles):
    with warnings.catch_warnings():
        # the two warnings every classic game with {"observation", "action_mask"} observations gets
        # (the API test lists PettingZoo's own such games by name)
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        api_test(e, num_cycles=cycles, verbose_progress=False)


@pytest.mark.parametrize("path,players,cycles", GAMES, ids=IDS)
def test_the_api_test_and_the_seed_test_pass(path, players, cycles, capsys):
    _api_test(env(path, players=players), cycles)
    seed_test(lambda: env(path, players=players), num_cycles=10 if players == 6 else 40)
    assert "Passed API test" in capsys.readouterr().out


def test_the_raw_env_passes_the_api_test_too_and_a_truncated_game_too(capsys):
    _api_test(raw_env("games/chuhan.rules", players=2), 250)
    _api_test(env("games/sanguosha.rules", players=6, max_decisions=25), 20)  # its ending: truncated
    assert capsys.readouterr().out.count("Passed API test") == 2


@pytest.mark.parametrize("path,players,cycles", GAMES, ids=IDS)
def test_spaces(path, players, cycles):
    e = env(path, players=players)
    tg = e.unwrapped.tg
    assert e.possible_agents == [f"player_{i}" for i in range(players)]
    for a in e.possible_agents:
        assert e.action_space(a).n == tg.num_actions
        obs_space = e.observation_space(a)
        assert obs_space["observation"].shape == (tg.encoder.size,)
        assert obs_space["observation"].dtype == np.float32
        assert obs_space["action_mask"].shape == (tg.num_actions,) and obs_space["action_mask"].dtype == np.int8
    e.reset(seed=0)
    obs, *_ = e.last()
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].sum() >= 1
    assert np.flatnonzero(obs["action_mask"]).tolist() == e.unwrapped.token_state.legal_tokens()
    others = [a for a in e.possible_agents if a != e.agent_selection]
    assert all(e.observe(a)["action_mask"].sum() == 0 for a in others)


def test_the_docs_give_every_games_shapes_the_render_shown_is_true_and_the_example_runs():
    text = (ROOT / "docs" / "ai.md").read_text(encoding="utf-8").split("\n## PettingZoo\n", 1)[1]
    for path, players, _ in GAMES:
        tg = raw_env(path, players=players).tg
        row = f"| `{path}` | {players} | Discrete({tg.num_actions}) | ({tg.encoder.size},) |"
        assert row in text, row
    shown = re.search(r"```text\n(Crazy Eights, 4 players, seed 3.*?)```", text, re.S).group(1)
    e = env("games/crazy_eights.rules", players=4, render_mode="ansi")
    e.reset(seed=3)
    assert e.render() == shown
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(code, "docs/ai.md", "exec"), {"__name__": "docs_example"})


# ---------------------------------------------------------------------- seeds and options
def test_a_seed_is_the_engine_game_of_that_seed_and_reset_without_one_follows_it():
    e = env("games/crazy_eights.rules", players=4)
    e.reset(seed=11)
    assert e.unwrapped.game_seed == 11
    assert e.unwrapped.token_state.state.to_json() == load("games/crazy_eights.rules").new_state(4, seed=11).to_json()
    first = e.observe("player_0")["observation"]
    e.reset()
    follow = e.unwrapped.game_seed
    e.reset(seed=np.int64(11))  # numpy's whole numbers are seeds too
    assert np.array_equal(e.observe("player_0")["observation"], first)
    e.reset()
    assert e.unwrapped.game_seed == follow
    e.reset(seed=12)
    assert not np.array_equal(e.observe("player_0")["observation"], first)
    with pytest.raises(TypeError, match="seed is a whole number"):
        e.reset(seed=1.5)


def test_rules_options_reach_the_engine():
    e = env("games/chuhan.rules", players=2, events=True)
    e.reset(seed=1)
    assert e.unwrapped.token_state.state.opts["events"] is True
    e = env("games/chuhan.rules", players=2, rules_options={"events": "true"})
    e.reset(seed=1)
    assert e.unwrapped.token_state.state.opts["events"] is True
    e = env("games/chuhan.rules", players=2)
    e.reset(seed=1, options={"anything": 1})  # reset's options are not rules options (the API test passes some)
    assert e.unwrapped.token_state.state.opts["events"] is False


@pytest.mark.parametrize("kwargs,error,message", [
    (dict(path="games/nope.rules"), "RulesError", "games/nope.rules:1:1: error: no such file"),
    (dict(path="games/charuma.rules", players=9), "OptionError", "Charuma is for 2-5 players, not 9"),
    (dict(path="games/charuma.rules", players=4, biding=False), "OptionError",
     "unknown option 'biding' for Charuma; did you mean 'bidding'?"),
    (dict(path="games/charuma.rules", render_mode="human"), "ValueError", "render_mode is None or one of 'ansi'"),
    (dict(path="games/charuma.rules", returns="money"), "ValueError", "returns is one of zero_sum, win, score, common"),
    (dict(path="games/charuma.rules", max_decisions=0), "ValueError", "max_decisions is a whole number"),
    (dict(path="tests/rules/secrecy_discard.rules", returns="common"), "ValueError",
     "returns='common' gives every player the rules' shared score, and Discard and reshuffle has no score clause"),
], ids=["file", "players", "option", "render_mode", "returns", "max_decisions", "common_without_score"])
def test_bad_input_is_a_clear_error_without_engine_frames(kwargs, error, message):
    with pytest.raises(Exception) as info:
        env(**kwargs)
    assert type(info.value).__name__ == error and str(info.value).startswith(message), str(info.value)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert len(frames) <= 4 and all("interpreter" not in f.filename for f in frames), frames


# ---------------------------------------------------------------------- actions
def test_an_illegal_action_is_an_error_or_the_wrappers_standard_handling_never_a_changed_state(caplog):
    raw = raw_env("games/crazy_eights.rules", players=4)
    raw.reset(seed=0)
    before = raw.token_state.state.to_json()
    agent = raw.agent_selection
    mask = raw.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[-1])
    with pytest.raises(ValueError, match=rf"{agent} \(P\d\): token {bad} .* is not legal here; legal:"):
        raw.step(bad)
    assert raw.token_state.state.to_json() == before and raw.agent_selection == agent
    for what in (1.5, "draw", True):
        with pytest.raises(TypeError, match="an action is a whole number"):
            raw.step(what)
    with pytest.raises(ValueError, match="not in Discrete"):
        raw.step(10 ** 6)
    assert raw.token_state.state.to_json() == before
    raw.step(np.int32(np.flatnonzero(mask)[0]))  # numpy's whole numbers are actions too
    assert raw.token_state.decisions == 1 or raw.token_state.prefix

    strict = env("games/crazy_eights.rules", players=4, illegal_reward=None)
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="is not legal here"):
        strict.step(bad)
    assert strict.unwrapped.token_state.state.to_json() == before

    e = env("games/crazy_eights.rules", players=4)  # PettingZoo's classic handling: the game ends
    e.reset(seed=0)
    e.step(bad)
    assert "Illegal move made, game terminating" in caplog.text  # PettingZoo logs it
    assert all(e.terminations.values())
    assert e.unwrapped.token_state.state.to_json() == before
    final = {}
    for a in e.agent_iter():
        final[a] = e.last()[1]
        e.step(None)
    assert final[agent] == -1.0 and all(r == 0 for a, r in final.items() if a != agent)
    with pytest.raises(AssertionError, match="not in action space"):
        e.reset(seed=0)
        e.step(e.action_space(agent).n)


def _play(e, rng):
    """A random game with the masks: each agent's reward when it is done."""
    final = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            final[agent] = reward
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


@pytest.mark.parametrize("path,players", [("games/charuma.rules", 4), ("games/chuhan.rules", 2),
                                          ("games/crazy_eights.rules", 4)], ids=["charuma", "chuhan", "crazy_eights"])
def test_a_random_game_with_the_masks_ends_with_the_rules_winners_rewarded(path, players):
    rng = np.random.default_rng(3)
    e = env(path, players=players)
    e.reset(seed=3)
    final = _play(e, rng)
    ts = e.unwrapped.token_state
    st = ts.state
    assert st.is_terminal() and not ts.truncated and not e.agents
    winners = {f"player_{p}" for p in st.winners()}
    assert winners and len(final) == players
    assert final == {f"player_{i}": r for i, r in enumerate(ts.returns())}
    assert abs(sum(final.values())) < 1e-9  # zero_sum
    if len(winners) < players:  # the winners share what the others lose
        assert all(final[a] > 0 if a in winners else final[a] < 0 for a in final)


def test_win_and_score_returns():
    e = env("games/charuma.rules", players=4, returns="win")
    e.reset(seed=5)
    final = _play(e, np.random.default_rng(5))
    st = e.unwrapped.token_state.state
    assert final == {f"player_{p}": (1.0 if p in st.winners() else 0.0) for p in range(4)}
    e = env("games/charuma.rules", players=4, returns="score")
    e.reset(seed=5)
    final = _play(e, np.random.default_rng(5))
    st = e.unwrapped.token_state.state
    assert final == {f"player_{p}": float(s) for p, s in enumerate(st.scores())}


def test_a_cooperative_game_rewards_everyone_the_shared_score_and_partners_share_a_win(capsys):
    # viewer_lab (score p: count(fireworks)): common by default, everyone the fireworks built
    e = env("tests/rules/viewer_lab.rules", players=3)
    assert e.unwrapped.tg.returns_kind == "common"
    e.reset(seed=4)
    final = _play(e, np.random.default_rng(4))
    st = e.unwrapped.token_state.state
    assert final == {f"player_{p}": float(st.scores()[0]) for p in range(3)}
    _api_test(env("tests/rules/viewer_lab.rules", players=3), 300)
    # Spades: partners win together and share +1, the other partnership -1
    e = env("games/spades.rules", players=4)
    assert e.unwrapped.tg.returns_kind == "zero_sum"
    e.reset(seed=2)
    final = _play(e, np.random.default_rng(2))
    won = e.unwrapped.token_state.state.winners()
    assert len(won) == 2 and final == {f"player_{p}": (0.5 if p in won else -0.5) for p in range(4)}
    e = env("games/spades.rules", players=4, returns="common")
    e.reset(seed=2)
    final = _play(e, np.random.default_rng(2))
    scores = e.unwrapped.token_state.state.scores()
    assert set(final.values()) == {sum(scores) / 4}
    assert "Passed API test" in capsys.readouterr().out


def test_a_game_past_max_decisions_ends_truncated_without_rewards():
    e = env("games/crazy_eights.rules", players=4, max_decisions=10)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = set()
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if truncated:
            assert not terminated and reward == 0.0
            seen.add(agent)
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    ts = e.unwrapped.token_state
    assert ts.truncated and ts.decisions == 10 and seen == set(e.possible_agents)


# ---------------------------------------------------------------------- secrecy
def _swap_hidden_card(e):
    """The same position but a card of P2's hand swapped with a stock card of another name."""
    ts = e.token_state
    game = e.tg.game
    d = json.loads(ts.state.to_json())
    names = game.prog.card_names
    hand, stock = d["zones"][3], d["zones"][0]  # crazy eights: stock, discard, hand[P1], hand[P2], ...
    j = next(j for j, c in enumerate(stock) if names[c] != names[hand[0]])
    hand[0], stock[j] = stock[j], hand[0]
    return TokenState(e.tg, State.from_json(d, game), ts.prefix, ts.decisions, ts.truncated,
                      [dict(c) for c in ts.chosen])


def test_observations_and_views_do_not_change_with_cards_the_agent_cannot_see():
    e = raw_env("games/crazy_eights.rules", players=4, render_mode="ansi")
    e.reset(seed=1)
    rng = random.Random(1)
    checked = 0
    for step in range(40):
        if step % 8 == 0 and len(e.token_state.state.zones[3]) and e.token_state.state.zones[0]:
            original = e.token_state
            before = {a: (e.observe(a), e.view_text(a)) for a in e.possible_agents}
            e.token_state = _swap_hidden_card(e)
            for a, (obs, view) in before.items():
                now = e.observe(a)
                same = np.array_equal(now["observation"], obs["observation"]) and \
                    np.array_equal(now["action_mask"], obs["action_mask"]) and e.view_text(a) == view
                assert same == (a != "player_1"), (step, a)  # P2 sees their hand change; nobody else does
            e.token_state = original
            checked += 1
        legal = e.token_state.legal_tokens()
        e.step(legal[rng.randrange(len(legal))])
    assert checked >= 3


@pytest.mark.parametrize("path,players,every,steps", [("games/crazy_eights.rules", 4, 5, 60),
                                                       ("games/charuma.rules", 4, 5, 60),
                                                       ("games/sanguosha.rules", 6, 15, 120),
                                                       ("tests/rules/viewer_lab.rules", 3, 1, 40)],
                         ids=["crazy_eights", "charuma", "sanguosha", "viewer_lab"])
def test_render_shows_the_agent_to_act_what_they_see_and_no_hidden_card(path, players, every, steps):
    e = env(path, players=players, render_mode="ansi")
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    raw = e.unwrapped
    checked = 0
    for step, agent in enumerate(e.agent_iter(steps)):
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            break
        if step % every == 0:
            st = raw.token_state.state
            seat = raw.possible_agents.index(agent)
            text = e.render()
            assert text.startswith(f"{raw.tg.game.name}, {players} players, seed 2") and f"as {agent}" in text
            view, everything = st.observation(seat), st.observation(None)
            visible = json.dumps(view, ensure_ascii=False) + "\n".join(st.legal_action_strings())
            hidden = {label for name, z in view["zones"].items() if "count" in z
                      for label in everything["zones"][name]["cards"]}
            hidden = {label for label in hidden if label not in visible}
            for label in hidden:
                assert label not in text, (step, label)
            for name, z in view["zones"].items():  # what they see is shown
                if z.get("cards"):
                    assert f"  {name}: {', '.join(z['cards'])}" in text
                elif "count" in z:
                    assert f"  {name}: {z['count']} card" in text
            for t in raw.token_state.legal_tokens()[:60]:
                assert f"  {t}: {raw.token_state.token_text(t)}" in text
            checked += bool(hidden)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked >= 3


def test_render_without_a_render_mode_warns_and_returns_none():
    e = env("games/charuma.rules", players=3)
    e.reset(seed=0)
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert e.render() is None
    e = env("games/charuma.rules", players=3, render_mode="ansi")
    e.reset(seed=0)
    _play(e, np.random.default_rng(0))
    assert "Game over, winners: " in e.render()


def test_a_shipped_game_makes_an_env_by_name():
    """env() takes a shipped game's name, as every command and rulespec.load do."""
    e = env("chuhan")
    e.reset(seed=1)
    assert len(e.possible_agents) == 2
