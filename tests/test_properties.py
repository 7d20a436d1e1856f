"""Property tests: random Charuma games, for every player count, checked at every decision.

Hypothesis draws the deal's seed, the agents' seed and how they choose; the checks
themselves live in rulespec/tools/fuzzing/checks.py (shared with fuzzing):
  * the game ends within a step bound;
  * cards are conserved (every card in exactly one zone, st.where consistent, 40 in all);
  * a running game always has a legal action;
  * to_json/from_json is an exact round trip at every step;
  * replaying the seed and the history of action strings gives an identical to_json;
  * no observation of player p names cards in another player's owner-only zone or in a
    hidden zone, and p's legal actions never pick or name another player's hidden cards.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import interpreter
from rulespec.tools.fuzzing.checks import CHOOSERS, check_secrecy, play_checked, replay

CHARUMA = Path(__file__).resolve().parent.parent / "games" / "charuma.rules"
MAX_STEPS = 20_000  # random 5-player games can run to a few thousand decisions
EXAMPLES = 5        # per player count and option setting: keeps the file well under a minute

GAME = interpreter.load(CHARUMA)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
PROPERTY_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                             suppress_health_check=[HealthCheck.too_slow])


def run(players: int, seed: int, agent_seed: int, chooser: str, bidding: bool):
    report = play_checked(GAME, players, seed, {"bidding": bidding}, agent_seed=agent_seed,
                          chooser=CHOOSERS[chooser], max_steps=MAX_STEPS)
    assert report.ok, report.describe()
    assert report.terminal
    final = report.state
    assert final.is_terminal() and final.current_player is None
    assert len(final.winners()) >= 1
    assert sum(len(z) for z in final.zones) == 40
    return report


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@PROPERTY_SETTINGS
@given(seed=seeds, agent_seed=seeds, chooser=st.sampled_from(sorted(CHOOSERS)))
def test_random_games_keep_every_property(players, seed, agent_seed, chooser):
    run(players, seed, agent_seed, chooser, bidding=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@PROPERTY_SETTINGS
@given(seed=seeds, agent_seed=seeds, chooser=st.sampled_from(sorted(CHOOSERS)))
def test_family_variant_keeps_every_property(players, seed, agent_seed, chooser):
    report = run(players, seed, agent_seed, chooser, bidding=False)
    assert not any(t.startswith("bid ") for t in report.history)


# ---------------------------------------------------------------------- the checks catch what they should
def _state_mid_trick(players=3, seed=5):
    s = GAME.new_state(players=players, seed=seed)
    rng = random.Random(seed)
    while s.phase != "trick" or not s.plays:
        s.apply(rng.choice(s.legal_actions()))
    return s


def test_secrecy_check_accepts_revealed_zones():
    s = _state_mid_trick()
    assert check_secrecy(s) == []
    hand = GAME.prog.zone_base["hand"] + (s.active + 1) % s.n
    s.revealed.append(hand)  # as if the rules had revealed another player's hand
    assert "cards" in s.observation(s.active)["zones"][GAME.prog.slots[hand].name]
    assert check_secrecy(s) == []


def test_secrecy_check_catches_a_leaking_observation(monkeypatch):
    s = _state_mid_trick()
    honest = interpreter.State.observation

    def leaky(self, player):
        obs = honest(self, player)
        for slot in self.prog.slots:
            if slot.name in obs["zones"]:
                obs["zones"][slot.name] = {"cards": [self.prog.card_names[c] for c in self.zones[slot.index]]}
        return obs
    monkeypatch.setattr(interpreter.State, "observation", leaky)
    problems = check_secrecy(s)
    assert any("shows more than a count for hand[P" in p for p in problems), problems


def test_secrecy_check_catches_actions_on_hidden_cards():
    s = _state_mid_trick()
    other = (s.active + 1) % s.n
    hidden = GAME.prog.zone_base["hand"] + other
    card = s.zones[hidden][0] if s.zones[hidden] else None
    if card is None:
        pytest.skip("the other player has no hidden card left")
    fake = interpreter.Action("follow", (("cs", [card]),), "follow " + GAME.prog.card_names[card])
    s.legal_actions()
    s._legal = [fake]
    problems = check_secrecy(s)
    assert any("picks a card hidden from them" in p for p in problems), problems


def test_replay_and_round_trip_helpers_agree_with_the_engine():
    s = _state_mid_trick(players=4, seed=9)
    again = replay(GAME, s)
    assert again.to_json() == s.to_json()
    d = json.loads(s.to_json())
    assert interpreter.State.from_json(d, GAME).to_json() == s.to_json()


def test_a_report_names_the_problem():
    from rulespec.tools.fuzzing.checks import check_cards
    s = _state_mid_trick()
    assert check_cards(s) == []
    s.zones[0].append(s.zones[1][0] if s.zones[1] else 0)  # one card in two zones
    problems = check_cards(s)
    assert problems and any("is in" in p for p in problems)
