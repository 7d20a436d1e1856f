"""rulespec stats: balance figures from many games, the MCTS agent, the SVG charts, the command."""
from __future__ import annotations

import json
import math
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

import interpreter
from rulespec.tools.ai.agents import MCTSAgent, RandomAgent
from interpreter.state import CHOICE
from rulespec.tools.stats import GameRecord, StatsError, collect, histogram, wilson
from rulespec.tools.stats_kinds import detect_cooperative, detect_sides, score_summary
from rulespec.tools.stats_text import report
from rulespec.tools.stats_html import page
from rulespec.tools import svg
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
CRAZY = str(ROOT / "games" / "crazy_eights.rules")
CHUHAN = str(ROOT / "games" / "chuhan.rules")
VIEWER = str(ROOT / "tests" / "rules" / "viewer_lab.rules")  # cooperative: one shared score
CREDIT = str(ROOT / "tests" / "rules" / "credit_lab.rules")  # players use each other's cards


@pytest.fixture(scope="module")
def crazy():
    return interpreter.load(CRAZY)


@pytest.fixture(scope="module")
def chuhan():
    return interpreter.load(CHUHAN)


@pytest.fixture(scope="module")
def crazy_runs(crazy):
    """The same 16 games of 3-player Crazy Eights, on one worker and on two."""
    one = collect(crazy, 16, 3, seed=5, workers=1).figures()
    two = collect(crazy, 16, 3, seed=5, workers=2).figures()
    return one, two


@pytest.fixture(scope="module")
def chuhan_runs(chuhan):
    one = collect(chuhan, 8, 2, seed=3, options={"events": True}, workers=1).figures()
    two = collect(chuhan, 8, 2, seed=3, options={"events": True}, workers=2).figures()
    return one, two


def replay_counts(game, players: int, games: int, seed: int, options=None):
    """Count, independently of rulespec.tools.stats, what random players do in the same games:
    winners per seat, action names, cards chosen in actions and in choices."""
    wins, actions, cards, chosen, firsts = Counter(), Counter(), Counter(), Counter(), Counter()
    prog = game.prog
    lengths = []
    for i in range(games):
        s = seed + i
        st = game.new_state(players=players, seed=s, options=options)
        firsts[st.current_player] += 1
        agents = [RandomAgent(s * 1000 + p) for p in range(players)]
        while not st.terminal:
            p = st.current_player
            a = agents[p].choose(st, p)
            actions[a.name] += 1
            if a.name == CHOICE:
                value = a.params[0][1]
                kind = st.pending.get("param")
                named = st.pending.get("named")
                if named is not None:
                    ids = named[st.pending["options"].index(value)]
                else:
                    ids = [value] if kind == "card" else list(value) if kind == "cards" else \
                        list(value["cards"]) if kind == "use" else []
                chosen.update(prog.card_names[c] for c in ids if c < prog.card_count)
            elif a.name in prog.actions:
                params = dict(a.params)
                for name, kind in prog.actions[a.name].card_slots:
                    v = params[name]
                    ids = [] if v is None else [v] if kind == "card" else list(v) if kind == "cards" else list(v["cards"])
                    cards.update(prog.card_names[c] for c in ids if c < prog.card_count)
            st.apply(a)
        lengths.append(len(st.history))
        wins.update(st.winners())
    return wins, actions, cards, chosen, firsts, lengths


def without_run(f: dict) -> dict:
    return {k: v for k, v in f.items() if k != "run"}


# ====================================================================== figures
def test_same_figures_with_one_and_two_workers(crazy_runs, chuhan_runs):
    for one, two in (crazy_runs, chuhan_runs):
        assert without_run(one) == without_run(two)
        assert one["run"]["workers"] == 1 and two["run"]["workers"] == 2


@pytest.mark.parametrize("which", ["crazy", "chuhan"])
def test_counts_add_up(which, crazy_runs, chuhan_runs):
    f = (crazy_runs if which == "crazy" else chuhan_runs)[0]
    games, n = f["games"], f["players"]
    o = f["outcomes"]
    assert sum(o.values()) == games
    seats = f["seats"]
    assert len(seats) == n
    # one winner: 1 win; shared by k: k wins (a win share of 1/k each); no winner: none
    assert sum(s["sole_wins"] for s in seats) == o["one winner"]
    assert math.isclose(sum(s["win_share"] for s in seats), games - o["no winner"], abs_tol=1e-4)
    assert sum(s["wins"] for s in seats) >= games - o["no winner"]
    assert all(s["games"] == games for s in seats)
    assert math.isclose(f["average_rate"], sum(s["wins"] for s in seats) / (games * n))
    assert sum(f["first_player"]["seats"].values()) == f["first_player"]["games"] == games
    assert sum(c for _, _, c in f["length"]["decisions"]["histogram"]) == games
    total_actions = sum(r["uses"] for r in f["actions"])
    assert math.isclose(f["length"]["decisions"]["mean"] * games, total_actions, abs_tol=0.01 * games)
    for row in f["actions"] + f["cards"]:
        # every player-game either used it or did not; their wins add up to all the wins
        assert row["used"]["games"] + row["not_used"]["games"] == games * n
        assert row["used"]["wins"] + row["not_used"]["wins"] == sum(s["wins"] for s in seats)
        assert 1 <= row["games"] <= games and row["uses"] >= row["used"]["games"]


def test_crazy_eights_figures_match_a_direct_replay(crazy, crazy_runs):
    f = crazy_runs[0]
    wins, actions, cards, chosen, firsts, lengths = replay_counts(crazy, 3, 16, 5)
    assert [s["wins"] for s in f["seats"]] == [wins[p] for p in range(3)]
    assert {r["name"]: r["uses"] for r in f["actions"]} == dict(actions)
    assert {r["name"]: r["uses"] for r in f["cards"]} == dict(cards)
    assert {r["name"]: r["uses"] for r in f["card_choices"]} == dict(chosen)
    assert f["first_player"]["seats"] == {f"P{p + 1}": firsts[p] for p in range(3)}
    d = f["length"]["decisions"]
    assert (d["min"], d["max"]) == (min(lengths), max(lengths))
    assert d["mean"] == pytest.approx(sum(lengths) / len(lengths), abs=1e-3)
    assert {"follow", "draw"} <= set(actions) and len(cards) > 20  # a real workload, not an empty one


def test_chuhan_figures_match_a_direct_replay(chuhan, chuhan_runs):
    f = chuhan_runs[0]
    wins, actions, cards, chosen, firsts, _ = replay_counts(chuhan, 2, 8, 3, {"events": True})
    assert [s["wins"] for s in f["seats"]] == [wins[0], wins[1]]
    assert {r["name"]: r["uses"] for r in f["actions"]} == dict(actions)
    assert {r["name"]: r["uses"] for r in f["cards"]} == dict(cards)
    assert {r["name"]: r["uses"] for r in f["card_choices"]} == dict(chosen)
    assert f["options"] == {"events": True}
    # Chu Han's powers are actions named after them, and the cards that carry them are counted
    assert "play_set" in actions and any(name in cards for name in ("Ji Bu", "Yu Ji", "Han Xin", "Xiang Yu"))
    assert f["outcomes"]["one winner"] == 8  # Chu Han always has one winner
    assert f["first_player"]["seats"] == {"P1": 8, "P2": 0}  # Han leads the first hand


def test_wilson_interval_by_hand():
    # 8 successes in 10 trials, z = 1.96: centre (0.8 + z²/20) / (1 + z²/10), half-width
    # z / (1 + z²/10) * sqrt(0.8 * 0.2 / 10 + z²/400): (0.4902, 0.9433), the textbook value
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.49016, abs=1e-4) and hi == pytest.approx(0.94332, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and hi == pytest.approx(0.16113, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(1 - hi) and lo == pytest.approx(0.40383, abs=1e-4)
    assert wilson(0, 0) is None


def test_histogram_bins():
    bins = histogram([3, 5, 5, 9, 30], bins=4)
    assert sum(c for _, _, c in bins) == 5
    assert bins[0][0] == 3 and bins[-1][0] <= 30 < bins[-1][1]
    assert all(b[1] - b[0] == bins[0][1] - bins[0][0] for b in bins)
    assert histogram([7, 7]) == [[7, 8, 2]]


# ====================================================================== kinds of game
def replay_scores(game, players: int, games: int, seed: int, options=None):
    """The winners and the rules' scores at the end of the same games, played apart from stats."""
    out = []
    for i in range(games):
        s = seed + i
        st = game.new_state(players=players, seed=s, options=options)
        agents = [RandomAgent(s * 1000 + p) for p in range(players)]
        while not st.terminal:
            st.apply(agents[st.current_player].choose(st, st.current_player))
        out.append((st.winners(), st.scores()))
    return out


def quantiles_by_hand(values: list) -> dict:
    v = sorted(values)
    q = statistics.quantiles(v, n=20, method="inclusive")  # every 5%
    return {"min": v[0], "p10": q[1], "p25": q[4], "median": statistics.median(v), "p75": q[14], "p90": q[17],
            "max": v[-1]}


def test_cooperative_lab_gives_the_team_success_and_the_shared_score():
    game = interpreter.load(VIEWER)
    f = collect(game, 12, 3, seed=130, workers=1).figures()  # seed 137 is a game random players win
    played = replay_scores(game, 3, 12, 130)
    assert f["kind"] == "cooperative" and f["sides"] is None
    c = f["cooperative"]
    won = sum(w == [0, 1, 2] for w, _ in played)
    assert won == 1 and c["success"]["wins"] == 1 and c["success"]["games"] == 12 and c["shared_score"]
    team = f["scores"]["team"]
    shared = [sc[0] for _, sc in played]
    assert team["of"] == "shared" and team["games"] == 12
    assert team["mean"] == pytest.approx(statistics.fmean(shared), abs=1e-4)
    assert team["sd"] == pytest.approx(statistics.stdev(shared), abs=1e-4)
    assert {k: team[k] for k in ("min", "p10", "p25", "median", "p75", "p90", "max")} == \
        pytest.approx(quantiles_by_hand(shared))
    assert team["ci"][0] < team["mean"] < team["ci"][1]
    assert sum(c for _, _, c in team["histogram"]) == 12 and max(shared) > 0
    text = report(f)
    assert "cooperative: every game was won or lost by all players together" in text
    assert "team success: 1 of 12 games won by all the players: 8.3%" in text
    assert "win rate per seat" not in text and re.search(r"\n  team +12 ", text)
    assert "score used / not" in text  # the usage tables give the mean score too
    html = page(f)
    assert "Team success" in html and "Score: the team&#x27;s score (the shared score)" in html and "Win rate per seat" not in html


def test_a_cooperative_game_nobody_wins_is_told_by_its_shared_score():
    game = interpreter.load(VIEWER)
    f = collect(game, 6, 2, seed=0, workers=1).figures()
    assert f["outcomes"]["no winner"] == 6  # random players never won these
    assert f["kind"] == "cooperative" and f["cooperative"]["success"]["rate"] == 0.0
    assert f["scores"]["team"]["max"] > 0  # what the report shows instead of "0% for everyone"


def record(winners, scores=None, first=0, n=4):
    return GameRecord(0, 0, ["random"] * n, first, winners, 1, {}, [{}] * n, [{}] * n, [{}] * n, [{}] * n, {},
                      scores=scores)


def test_kinds_from_synthetic_games():
    # won by all, or by nobody, without a score: cooperative since some game was won by all
    assert detect_cooperative([record([0, 1, 2, 3]), record([])], 4)["success"]["wins"] == 1
    # nobody ever won and the scores differ: nothing says the players play together
    assert detect_cooperative([record([], [1, 2, 3, 4]), record([])], 4) is None
    assert detect_cooperative([record([0]), record([0, 1, 2, 3])], 4) is None
    # seats that won together twice and never apart are a side; the others too
    assert detect_sides([record([0, 2]), record([1, 3]), record([0, 2])], 4) == [[0, 2], [1, 3]]
    # two seats that never won are no partnership; one tie is not enough either
    assert detect_sides([record([0]), record([1]), record([0])], 4) is None
    assert detect_sides([record([0, 1]), record([2]), record([3])], 4) is None
    assert detect_sides([record([0, 1]), record([0, 1]), record([2])], 4) == [[0, 1], [2], [3]]


@pytest.mark.parametrize("file, options, first_side", [
    (str(ROOT / "games" / "spades.rules"), {"target": 100}, "P2+P4"),
    (str(ROOT / "games" / "euchre.rules"), {"target": 3}, "P2+P4"),
])
def test_partnerships_are_detected_with_figures_per_side(file, options, first_side):
    game = interpreter.load(file)
    f = collect(game, 6, 4, seed=0, options=options, workers=1).figures()
    played = replay_scores(game, 4, 6, 0, options)
    assert f["kind"] == "partnership"
    d = f["sides"]
    assert d["source"] == "detected" and [s["side"] for s in d["sides"]] == ["P1+P3", "P2+P4"]
    wins = [sum(set(w) == set(side) for w, _ in played) for side in ([0, 2], [1, 3])]
    assert [s["wins"] for s in d["sides"]] == wins and sum(wins) == 6  # one side wins each game
    assert all(s["split"] == 0 and s["games"] == 6 for s in d["sides"])
    assert d["first_side"]["sides"] == {first_side: 6, ("P1+P3" if first_side == "P2+P4" else "P2+P4"): 0}
    assert d["first_side"]["average"] == 0.5
    sides = f["scores"]["sides"]
    assert [s["of"] for s in sides] == ["shared", "shared"]  # partners hold one score
    assert sides[0]["mean"] == pytest.approx(statistics.fmean(sc[0] for _, sc in played), abs=1e-4)
    text = report(f)
    assert "partnership: 2 sides (detected: seats that won or lost together in every game)" in text
    assert re.search(r"\n  P1\+P3 +\d+ +\d+\.\d%", text) and "first side" in text
    assert "Sides" in page(f)


def test_declared_sides_count_the_games_they_split():
    game = interpreter.load(str(ROOT / "games" / "spades.rules"))
    f = collect(game, 4, 4, seed=0, options={"target": 100}, workers=1, sides="P1+P2").figures()
    d = f["sides"]
    assert d["source"] == "declared" and [s["side"] for s in d["sides"]] == ["P1+P2", "P3", "P4"]
    assert d["sides"][0]["split"] == 4 and d["sides"][0]["wins"] == 4  # one of them wins every game
    with pytest.raises(StatsError, match="is on two sides"):
        collect(game, 1, 4, sides="1+3,3+2")


def test_hearts_scores_are_the_rules_score():
    """Hearts declares 'score p: -points[p]' (the fewest points win): the figures are that score,
    and the winners of each game hold the highest."""
    game = interpreter.load(str(ROOT / "games" / "hearts.rules"))
    f = collect(game, 4, 4, seed=2, workers=1).figures()
    played = replay_scores(game, 4, 4, 2)
    assert f["kind"] == "competitive" and f["sides"] is None and f["cooperative"] is None
    for winners, scores in played:
        assert all(s <= 0 for s in scores) and {p for p in range(4) if scores[p] == max(scores)} == set(winners)
    for p, seat in enumerate(f["scores"]["seats"]):
        mine = [sc[p] for _, sc in played]
        assert seat["mean"] == pytest.approx(statistics.fmean(mine), abs=1e-4)
        assert {k: seat[k] for k in ("min", "p10", "p25", "median", "p75", "p90", "max")} == \
            pytest.approx(quantiles_by_hand(mine))
    everything = [s for _, sc in played for s in sc]
    assert f["scores"]["all"]["games"] == 16 and f["scores"]["all"]["mean"] == pytest.approx(statistics.fmean(everything))
    assert all(b[0] <= 0 for b in f["scores"]["all"]["histogram"])
    text = report(f)
    assert "score at the end of each game (the rules' 'score'" in text and "all seats" in text
    assert page(f).count("<title>Score: P") == 4  # a histogram per seat


def test_score_summary_by_hand():
    s = score_summary([1, 2, 3, 4, 10])
    assert s["mean"] == 4 and s["sd"] == pytest.approx(3.5355, abs=1e-4)
    half = 1.959963984540054 * 3.5355339 / math.sqrt(5)
    assert s["ci"] == pytest.approx([4 - half, 4 + half], abs=1e-3)
    assert (s["min"], s["p25"], s["median"], s["p75"], s["max"]) == (1, 2, 3, 4, 10)
    assert s["p10"] == pytest.approx(1.4) and s["p90"] == pytest.approx(7.6)
    one = score_summary([7])
    assert one["sd"] is None and one["ci"] is None and one["median"] == 7


def test_used_cards_count_for_the_seat_whose_cards_they_were():
    """Credit lab: P1 holds the Coins, P2 the Gifts, either may play the other's; P2 always wins.
    A Gift counts for P2 whoever played it (won every time), a Coin for P1 (never won)."""
    game = interpreter.load(CREDIT)
    f = collect(game, 20, 2, seed=0, workers=1).figures()
    for key in ("cards", "card_choices"):
        rows = {r["name"]: r for r in f[key]}
        assert rows["Gift"]["used"]["rate"] == 1.0 and rows["Coin"]["used"]["rate"] == 0.0
        assert rows["Gift"]["used"]["games"] == rows["Gift"]["games"]  # one seat's per game: P2's
    # the actions themselves still count for the player who took them: both borrowed
    borrow = next(r for r in f["actions"] if r["name"] == "borrow")
    assert 0 < borrow["used"]["rate"] < 1
    # P1 did play Gifts (or the lab tests nothing): count them apart from stats
    borrowed = 0
    for i in range(20):
        st = game.new_state(players=2, seed=i)
        agents = [RandomAgent(i * 1000 + p) for p in range(2)]
        while not st.terminal:
            p = st.current_player
            a = agents[p].choose(st, p)
            borrowed += p == 0 and a.name in ("borrow", CHOICE) and "Gift" in a.text
            st.apply(a)
    assert borrowed > 3


# ====================================================================== MCTS
def test_mcts_is_seeded_and_skips_forced_moves(crazy):
    st = crazy.new_state(players=2, seed=1)
    a = MCTSAgent(seed=3, iterations=10, max_rollout=20).choose(st, st.current_player)
    b = MCTSAgent(seed=3, iterations=10, max_rollout=20).choose(st, st.current_player)
    assert a is not None and a.text == b.text and a in st.legal_actions()
    before = st.to_json()
    MCTSAgent(seed=4, iterations=5).choose(st, st.current_player)
    assert st.to_json() == before  # it searches copies: the game itself is untouched
    with pytest.raises(ValueError):
        MCTSAgent(iterations=0)


def test_mcts_beats_random_clearly(crazy):
    """MCTS (8 playouts a decision, cut after 20 decisions) against a random player in 24 games of
    2-player Crazy Eights (the stock is not reshuffled, so games stay short), swapping seats every
    game; the same games between two random players are the baseline."""
    opts = {"reshuffle": False}
    mcts = collect(crazy, 24, 2, ("mcts", "random"), seed=100, options=opts, workers=2, mcts_iterations=8,
                   mcts_rollout=20, rotate=True).figures()
    base = collect(crazy, 24, 2, ("random", "random"), seed=100, options=opts, workers=2, rotate=True).figures()
    rate = mcts["by_agent"]["mcts"]["rate"]
    baseline = base["seats"][0]["rate"]  # the random player in the seats mcts took
    assert mcts["by_agent"]["mcts"]["games"] == 24
    assert rate >= 0.75, mcts["by_agent"]
    assert mcts["by_agent"]["mcts"]["ci"][0] > 0.5  # better than a coin, with 95% confidence
    assert rate - baseline >= 0.25, (rate, baseline)
    assert mcts["mcts"] == {"iterations": 8, "rollout": 20}


# ====================================================================== charts, pages, the command
def test_svg_charts_escape_and_scale():
    page = svg.hbar_chart(["<b>&", "x"], [("uses", [3.0, None], None)], "a <title>")
    assert "<b>&" not in page and "&lt;b&gt;&amp;" in page and "a &lt;title&gt;" in page
    assert page.count("<rect") == 1  # None draws no bar
    assert svg.nice_ticks(0.62) == [0, 0.2, 0.4, 0.6, 0.8]
    assert svg.nice_ticks(7, whole=True) == [0, 2, 4, 6, 8]
    chart = svg.bar_chart([("P1", 0.6, (0.5, 0.7))], "seats", reference=0.5, reference_label="average")
    assert chart.startswith("<svg") and chart.endswith("</svg>") and "stroke-dasharray" in chart
    assert "<svg" in svg.histogram([[1, 3, 4], [3, 5, 0]], "lengths")


def test_command_writes_json_and_a_self_contained_page(tmp_path, capsys):
    js, page = tmp_path / "s.json", tmp_path / "s.html"
    code = main(["stats", CRAZY, "--players", "3", "--games", "16", "--seed", "5", "--workers", "1",
                 "--json", str(js), "--html", str(page), "-q"])
    assert code == 0
    out = capsys.readouterr().out
    assert "win rate per seat" in out and "first to act" in out and "decisions per game" in out
    assert re.search(r"P1 +random +\d+ +\d+\.\d%  \d+\.\d-\d+\.\d%", out)
    f = json.loads(js.read_text())
    assert f["games"] == 16 and f["players"] == 3 and len(f["seats"]) == 3
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") >= 4
    for external in ("http:", "https:", "src=", "<link", "<script", "@import", "url("):
        assert external not in text
    assert "rulespec stats" in text and "--seed 5" in text  # how to reproduce it


@pytest.mark.parametrize("args, message", [
    (["--agents", "random,bogus"], "unknown agent 'bogus'"),
    (["--players", "5"], "for 2-2 players"),
    (["--option", "nope=1"], "unknown option 'nope'"),
    (["--option", "events=maybe"], "true or false"),
    (["--games", "0"], "--games must be at least 1"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--mcts-iterations", "0"], "--mcts-iterations must be at least 1"),
    (["--json", "/nonexistent-folder/x.json"], "cannot write"),
    (["--sides", "1+3"], "'3' is not a seat of this 2-player game"),
])
def test_bad_input_is_one_line(args, message, capsys):
    code = main(["stats", CHUHAN, "--games", "2", *args])
    err = capsys.readouterr().err
    assert code in (1, 2)
    assert err.count("\n") == 1 and message in err and err.startswith("rulespec stats: error:")


def test_missing_file_and_no_traceback_in_a_real_process():
    r = subprocess.run([sys.executable, "-m", "rulespec.tools.cli", "stats", "games/no-such-game.rules"],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1 and "no such file" in r.stderr
