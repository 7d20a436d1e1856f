"""What kind of game the played games show, and the figures that kind needs (rulespec.tools.stats).

Read from the games alone, never from a game's name:

* **cooperative**: every game was won by all the players together or by nobody, and either some
  game was won, or the rules' score was the same for every seat in every game (one shared
  score: a cooperative game that random players never win still shows it).  The report then
  gives the team's success rate and the shared score, not per-seat win rates that are all equal.
* **partnership**: sides of two seats or more that always won or lost together (each seat's
  wins over the games are the same list) and won together at least ``MIN_SHARED_WINS`` times, or
  sides declared with ``--sides``.  The report gives each side's win rate, the first side's
  advantage and each side's score.
* **competitive**: anything else (one winner, or several when they tie).

Scores are the rules' own ``score p: ...`` (higher is better in every game: a game where the
lowest total wins declares minus the total), read at the end of each game.
"""
from __future__ import annotations

import math
import statistics
from typing import Optional

from .stats_math import Z95, histogram, quantile, rate

MIN_SHARED_WINS = 2  # a side that won together once may be a tie; twice, over games where it never split, is not chance
QUANTILES = (("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p90", 0.9))


def side_name(seats) -> str:
    return "+".join(f"P{p + 1}" for p in seats)


# ---------------------------------------------------------------------- scores
def score_summary(values: list, lo: Optional[int] = None, hi: Optional[int] = None) -> dict:
    """Mean, standard deviation, 95% interval of the mean (normal approximation), quantiles and a
    histogram (over lo..hi when given, so that several summaries share their bins)."""
    values = sorted(values)
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else None
    half = Z95 * sd / math.sqrt(n) if sd is not None else None
    out = {"games": n, "mean": round(mean, 4), "sd": None if sd is None else round(sd, 4),
           "ci": None if half is None else [round(mean - half, 4), round(mean + half, 4)],
           "min": values[0]}
    out.update((k, quantile(values, q)) for k, q in QUANTILES)
    out["max"] = values[-1]
    out["histogram"] = histogram(values, lo=lo, hi=hi)
    return out


def score_figures(records: list, players: int, cooperative: bool, sides: Optional[list]) -> Optional[dict]:
    """The rules' scores: per seat, over every seat-game, and per side or for the team; None when
    the rules declare no score."""
    if not records or records[0].scores is None:
        return None
    shared = all(len(set(r.scores)) == 1 for r in records)  # one score for everybody, in every game
    everything = [s for r in records for s in r.scores]
    lo, hi = min(everything), max(everything)
    seats = [{"seat": p + 1, **score_summary([r.scores[p] for r in records], lo, hi)} for p in range(players)]
    out = {"shared": shared, "seats": seats, "all": score_summary(everything, lo, hi)}
    if cooperative:
        # the team's score: the shared one, or what the seats made together
        team = [r.scores[0] if shared else sum(r.scores) for r in records]
        out["team"] = {"of": "shared" if shared else "sum", **score_summary(team)}
    if sides:
        out["sides"] = side_scores(records, sides)
    return out


def side_scores(records: list, sides: list) -> list:
    """Each side's score per game: its seats' score when they always hold the same (partners
    keeping one score), else the sum of its seats' scores."""
    rows, per_side = [], []
    for side in sides:
        one = all(len({r.scores[p] for p in side}) == 1 for r in records)
        per_side.append((side, "shared" if one else "sum",
                         [r.scores[side[0]] if one else sum(r.scores[p] for p in side) for r in records]))
    everything = [v for _, _, vs in per_side for v in vs]
    lo, hi = min(everything), max(everything)
    for side, of, values in per_side:
        rows.append({"side": side_name(side), "of": of, **score_summary(values, lo, hi)})
    return rows


# ---------------------------------------------------------------------- kinds
def detect_cooperative(records: list, players: int) -> Optional[dict]:
    """The evidence that every game was won or lost by all the players together, or None."""
    if players < 2 or not all(len(r.winners) in (0, players) for r in records):
        return None
    won = sum(len(r.winners) == players for r in records)
    shared = records[0].scores is not None and all(len(set(r.scores)) == 1 for r in records)
    if not won and not shared:
        return None  # nobody ever won and nothing else ties the players together
    return {"success": rate(won, len(records)), "shared_score": shared}


def detect_sides(records: list, players: int) -> Optional[list]:
    """Sides of seats that won or lost together in every game, when at least one side of two
    seats or more won together MIN_SHARED_WINS times: [[seat, ...], ...] (singletons included),
    or None."""
    if players < 3:
        return None
    groups: dict = {}
    for p in range(players):
        groups.setdefault(tuple(p in r.winners for r in records), []).append(p)
    sides = sorted(groups.values())
    together = [s for s in sides if len(s) > 1 and sum(s[0] in r.winners for r in records) >= MIN_SHARED_WINS]
    if not together or len(sides) == 1:
        return None
    return sides


def side_figures(records: list, sides: list, source: str) -> dict:
    """Each side's win rate (a side wins when one of its seats is among the winners), the games
    where a side split (some of its seats won, not all: only declared sides can), and the
    first side's rate against the sides' average."""
    games = len(records)
    rows, total = [], 0
    for side in sides:
        won = sum(any(p in r.winners for p in side) for r in records)
        split = sum(0 < sum(p in r.winners for p in side) < len(side) for r in records)
        total += won
        rows.append({"side": side_name(side), "seats": [p + 1 for p in side], **rate(won, games), "split": split})
    firsts = [r for r in records if r.first is not None]
    first_wins = sum(any(p in r.winners for p in _side_of(sides, r.first)) for r in firsts)
    first = {**rate(first_wins, len(firsts)), "average": total / (games * len(sides)),
             "sides": {side_name(s): sum(r.first in s for r in firsts) for s in sides}}
    return {"source": source, "sides": rows, "first_side": first}


def _side_of(sides: list, seat: int) -> list:
    return next(s for s in sides if seat in s)


def kind_figures(records: list, players: int, declared: Optional[list]) -> dict:
    """{'kind': ..., 'cooperative': ... or None, 'sides': ... or None, 'scores': ... or None}."""
    coop = detect_cooperative(records, players)
    sides = declared or (None if coop else detect_sides(records, players))
    kind = "cooperative" if coop else "partnership" if sides else "competitive"
    return {"kind": kind, "cooperative": coop,
            "sides": side_figures(records, sides, "declared" if declared else "detected") if sides else None,
            "scores": score_figures(records, players, coop is not None, sides)}
