"""The HTML page of ``rulespec stats --html``: one self-contained file (inline CSS and SVG charts
from rulespec/tools/svg.py; no script, image, font or style fetched from anywhere), drawn from the
figures (rulespec.tools.stats: the JSON)."""
from __future__ import annotations

from html import escape
from typing import Optional

from . import svg
from .stats_text import (QUANTILE_KEYS, agents_text, ci_text, counts_text, first_text, pct, score_groups,
                         score_number, seeds_text, usage_title)

CHART_ROWS = 30  # rows of a usage chart (the tables below the charts list every row)

STYLE = """
body { font-family: sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.note { color: #555; font-size: 0.9em; } code { background: #f4f4f4; padding: 1px 4px; }
svg { display: block; margin: 0.5em 0; }
.row { display: flex; flex-wrap: wrap; gap: 0 1em; }
"""


def page(f: dict, command: Optional[str] = None) -> str:
    out = []
    w = out.append
    title = f"{f['game']}: balance over {f['games']} games, {f['players']} players"
    w(f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{escape(title)}</title>\n"
      f"<style>{STYLE}</style>\n</head>\n<body>")
    w(f"<h1>{escape(title)}</h1>")
    opts = ", ".join(f"{k} = {v}" for k, v in f["options"].items()) or "defaults"
    o = f["outcomes"]
    w(f"<p><code>{escape(f['rules'])}</code>, options: {escape(opts)}; {escape(seeds_text(f))}; "
      f"{escape(agents_text(f))}.</p>")
    if command:
        w(f"<p class=\"note\">Reproduce: <code>{escape(command)}</code> (the figures do not depend on "
          f"<code>--workers</code>).</p>")
    w(f"<p>Outcomes: {o['one winner']} games with one winner, {o['shared']} shared (several winners), "
      f"{o['no winner']} without a winner.</p>")

    w(f"<p><b>{escape(kind_text(f))}</b></p>")
    if f["kind"] == "cooperative":
        out.extend(cooperative_section(f))
    else:
        out.extend(seat_sections(f))
    if f["scores"]:
        out.extend(score_section(f))
    out.extend(length_and_usage(f))
    w("</body>\n</html>\n")
    return "\n".join(out)


def kind_text(f: dict) -> str:
    """What kind of game the played games show, in one sentence."""
    if f["kind"] == "cooperative":
        return "Cooperative: every game was won or lost by all players together" + \
            ("; every seat had the same score in every game." if f["cooperative"]["shared_score"] else ".")
    if f["kind"] == "partnership":
        sides = ", ".join(s["side"] for s in f["sides"]["sides"])
        how = "declared with --sides" if f["sides"]["source"] == "declared" else \
            "detected: seats that won or lost together in every game"
        return f"Partnership: sides {sides} ({how})."
    o = f["outcomes"]
    return "Competitive: " + ("every game had one winner." if o["one winner"] == f["games"] else
                              "each player for themselves; a game may have several winners (a tie) or none.")


def cooperative_section(f: dict) -> list:
    s = f["cooperative"]["success"]
    return ["<h2>Team success</h2>",
            svg.bar_chart([("won by all", s["rate"], s["ci"])], "Games won by all the players (95% Wilson interval)",
                          y_label="success rate"),
            f"<p>The players won together {s['wins']} of {s['games']} games: {pct(s['rate'])} "
            f"({ci_text(s['ci'])}). Per-seat win rates would all be this same figure, so they are not shown; "
            f"the score below says how close the lost games came.</p>"]


def side_section(f: dict) -> list:
    d = f["sides"]
    rows = d["sides"]
    avg = d["first_side"]["average"]
    out = ["<h2>Sides</h2>",
           svg.bar_chart([(s["side"], s["rate"], s["ci"]) for s in rows], "Win rate per side (95% Wilson interval)",
                         reference=avg, reference_label=f"average {pct(avg)}", y_label="win rate"),
           _table(["side", "wins", "win rate", "95% CI", "games split"],
                  [[s["side"], s["wins"], pct(s["rate"]), ci_text(s["ci"]), s["split"]] for s in rows])]
    fs = d["first_side"]
    if fs["games"]:
        how = first_text(fs, "sides'")
        out.append(f"<p>A side wins a game when its seats are among the winners (a split: some of a declared "
                   f"side's seats won, not all). The side of the first player to decide "
                   f"({escape(counts_text(fs['sides'], ' games'))}) {escape(how)}.</p>")
    return out


def score_section(f: dict) -> list:
    """A histogram per seat (or side, or the team's one), drawn over the same bins, and the table."""
    _, groups, more = score_groups(f)
    small = len(groups) > 1
    charts = [svg.histogram(g["histogram"], f"Score: {title}", x_label="score at the end", width=310 if small else 640,
                            height=220 if small else 280) for _, title, g in groups]
    rows = [(label, g) for label, _, g in groups] + more
    return ["<h2>Scores</h2>",
            "<p class=\"note\">The rules' <code>score</code> of each seat at the end of each game (higher is "
            "better, as the rules mean it: a game where the lowest total wins scores minus the total). The "
            "interval is the 95% interval of the mean (normal approximation: from about 30 games on).</p>",
            "<div class=\"row\">" + "\n".join(charts) + "</div>" if small else charts[0],
            _table(["", "n", "mean", "95% CI of mean", "sd", "min", "10%", "25%", "median", "75%", "90%", "max"],
                   [[label, g["games"], score_number(g["mean"]), "-" if not g["ci"] else f"{score_number(g['ci'][0])} to {score_number(g['ci'][1])}",
                     "-" if g["sd"] is None else score_number(g["sd"])] + [score_number(g[k]) for k in QUANTILE_KEYS]
                    for label, g in rows])]


def seat_sections(f: dict) -> list:
    out = []
    w = out.append
    # --- seats
    w("<h2>Win rate per seat</h2>")
    avg = f["average_rate"]
    items = [(f"P{s['seat']}", s["rate"], s["ci"]) for s in f["seats"]]
    w(svg.bar_chart(items, "Win rate per seat (95% Wilson interval)", reference=avg,
                    reference_label=f"average {pct(avg)}", y_label="win rate"))
    rows = [[f"P{s['seat']}", s["agent"], s["wins"], s["sole_wins"], f"{s['win_share']:.1f}", pct(s["rate"]),
             ci_text(s["ci"])] for s in f["seats"]]
    w(_table(["seat", "agent", "wins", "sole wins", "win share", "win rate", "95% CI"], rows))
    w("<p class=\"note\">A seat wins a game when it is among the winners, so a shared win (a team's, a tie "
      "on points) counts as a win for each of its winners; the dashed line is the average over the seats, "
      "the fair share (1/N when every game has one winner). <i>Win share</i> gives each of k winners 1/k "
      "of the game instead. Intervals are 95% Wilson score intervals.</p>")
    if len(f["by_agent"]) > 1:
        items = [(k, a["rate"], a["ci"]) for k, a in f["by_agent"].items()]
        w(svg.bar_chart(items, "Win rate per agent (over the seats it played)", reference=avg,
                        reference_label=f"average {pct(avg)}", colours=svg.PALETTE))
        w(_table(["agent", "seat-games", "wins", "win rate", "95% CI"],
                 [[k, a["games"], a["wins"], pct(a["rate"]), ci_text(a["ci"])] for k, a in f["by_agent"].items()]))
    if f["sides"]:
        out.extend(side_section(f))

    # --- first player
    fp = f["first_player"]
    w("<h2>First-player advantage</h2>")
    if fp["games"]:
        w(svg.bar_chart([("first to act", fp["rate"], fp["ci"]), ("seats' average", fp["average"], None)],
                        "The first player's win rate", colours=svg.PALETTE))
        how = first_text(fp, "seats'")
        w(f"<p>The first player to decide ({escape(counts_text(fp['seats'], ' games'))}) {escape(how)}.</p>")
    return out


def length_and_usage(f: dict) -> list:
    out = []
    w = out.append
    avg = f["average_rate"]
    scored = f["scores"] is not None
    # --- length
    d = f["length"]["decisions"]
    w("<h2>Game length</h2>")
    w(svg.histogram(d["histogram"], "Decisions per game", x_label="decisions (every player's, answers to "
                                                                   "choices and passes included)"))
    w(_table(["", "min", "10%", "median", "mean", "90%", "max"],
             [["decisions per game", d["min"], f"{d['p10']:.0f}", f"{d['median']:.0f}", f"{d['mean']:.1f}",
               f"{d['p90']:.0f}", d["max"]]]))
    if f["length"]["phases"]:
        w("<p>Phases entered per game (mean), read from the game log:</p>")
        w(_table(["phase", "per game"], [[k, f"{v:.2f}"] for k, v in f["length"]["phases"].items()]))

    # --- usage
    for key, label in (("actions", "action"), ("abilities", "ability (card)"), ("cards", "card"),
                       ("card_choices", "card")):
        rows = f[key]
        if not rows:
            continue
        heading = {"actions": "Actions", "abilities": "Abilities that cards give",
                   "cards": "Cards chosen in actions", "card_choices": "Cards chosen in answers to choices"}[key]
        w(f"<h2>{heading}</h2>")
        w(f"<p class=\"note\">{escape(usage_title(key))}. A player who plays longer or holds more cards has "
          f"more chances to use anything, and random players use what they are offered.</p>")
        top = rows[:CHART_ROWS]
        names = [r["name"] for r in top]
        more = f" (the {len(top)} most used)" if len(rows) > len(top) else ""
        w(svg.hbar_chart(names, [("uses per game", [r["per_game"] for r in top], None)], f"Uses per game{more}"))
        w(svg.hbar_chart(names, [("used it in the game", [r["used"]["rate"] for r in top],
                                  [r["used"]["ci"] for r in top]),
                                 ("did not", [r["not_used"]["rate"] for r in top],
                                  [r["not_used"]["ci"] for r in top])],
                         f"Win rate of the players who used it vs who did not{more}", percent=True,
                         reference=avg, reference_label=f"average over the seats ({pct(avg)})"))
        w(_table([label, "uses", "per game", "games", "used: n", "win rate", "95% CI"]
                 + (["mean score"] if scored else []) + ["not used: n", "win rate", "95% CI"]
                 + (["mean score"] if scored else []),
                 [[r["name"], r["uses"], f"{r['per_game']:.2f}", r["games"], r["used"]["games"],
                   pct(r["used"]["rate"]), ci_text(r["used"]["ci"])] + (_score(r["used"]) if scored else [])
                  + [r["not_used"]["games"], pct(r["not_used"]["rate"]), ci_text(r["not_used"]["ci"])]
                  + (_score(r["not_used"]) if scored else []) for r in rows]))
    if f["triggered"]:
        w("<h2>Triggered abilities of cards</h2>")
        w("<p class=\"note\">Times each card's triggered ability ran (the engine's rule coverage counts them "
          "without saying whose card it was, so there are no win rates here).</p>")
        w(_table(["trigger (card)", "times", "games"], [[t["name"], t["fired"], t["games"]] for t in f["triggered"]]))
    return out


def _score(group: dict) -> list:
    return ["-" if group["score"] is None else f"{group['score']:.2f}"]


def _table(head: list, rows: list) -> str:
    h = "".join(f"<th>{escape(str(x))}</th>" for x in head)
    body = "\n".join("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table>\n<tr>{h}</tr>\n{body}\n</table>"
