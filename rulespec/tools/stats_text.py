"""The terminal report of ``rulespec stats``, drawn from the figures (rulespec.tools.stats: the JSON).

Plain text in fixed columns, like ``rulespec bench``: no colour, nothing to install.
"""
from __future__ import annotations

TOP = 15  # rows of each usage table shown in the terminal (the JSON and HTML have them all)
QUANTILE_KEYS = ("min", "p10", "p25", "median", "p75", "p90", "max")  # of a score summary (stats_kinds.py)


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def ci_text(ci) -> str:
    return "" if not ci else f"{100 * ci[0]:.1f}-{100 * ci[1]:.1f}%"


def seeds_text(f: dict) -> str:
    lo = f["seed"]
    return f"seed {lo}" if f["games"] == 1 else f"seeds {lo}..{lo + f['games'] - 1}"


def agents_text(f: dict) -> str:
    if f["rotate"]:
        seating = ", ".join(f"P{p + 1} {a}" for p, a in enumerate(f["agents"]))
        text = f"agents: {seating} in the first game, moved one seat on each game (every agent plays every seat)"
    else:
        text = "agents: " + ", ".join(f"P{s['seat']} {s['agent']}" for s in f["seats"])
    if f.get("mcts"):
        m = f["mcts"]
        text += (f"; mcts: {m['iterations']} playouts per decision"
                 + (f", playouts cut after {m['rollout']} decisions" if m["rollout"] < 10_000 else "")
                 + " (it sees every hidden card: an upper bound, not a fair player)")
    return text


def report(f: dict) -> str:
    out = []
    w = out.append
    opts = "".join(f" --option {k}={_opt(v)}" for k, v in f["options"].items())
    run = f["run"]
    w(f"{f['rules']} ({f['game']}){opts}: {f['players']} players, {f['games']} games ({seeds_text(f)}), "
      f"{run['workers']} worker{'s' if run['workers'] != 1 else ''}, {run['seconds']:.1f} s")
    w("  " + agents_text(f))
    o = f["outcomes"]
    w(f"  outcomes: {o['one winner']} with one winner, {o['shared']} shared, {o['no winner']} without a winner"
      + (f"; {f['limited']} ended by the rules' limit of decisions" if f.get("limited") else ""))
    w("")
    if f["kind"] == "cooperative":
        out.extend(cooperative_lines(f))
    else:
        out.extend(seat_lines(f))
        if f["sides"]:
            w("")
            out.extend(side_lines(f))
        w("")
        out.extend(first_lines(f))
    if f["scores"]:
        w("")
        out.extend(score_lines(f))
    w("")
    d = f["length"]["decisions"]
    w(f"game length, decisions per game: min {d['min']}, 10% {d['p10']:.0f}, median {d['median']:.0f}, "
      f"mean {d['mean']:.1f}, 90% {d['p90']:.0f}, max {d['max']}")
    phases = f["length"]["phases"]
    if phases:
        w("  phases entered per game (mean): " + ", ".join(f"{k} {v:.1f}" for k, v in phases.items()))
    for key, title in (("actions", "action"), ("abilities", "ability (card)"), ("cards", "card (in actions)"),
                       ("card_choices", "card (in choices)")):
        rows = f[key]
        if not rows:
            continue
        w("")
        w(usage_title(key))
        out.extend(usage_table(rows, title, scores=f["kind"] == "cooperative" and f["scores"] is not None))
    if f["triggered"]:
        w("")
        w("triggered abilities of cards (times run; not told apart by owner, so no win rates)")
        width = max(len(t["name"]) for t in f["triggered"][:TOP])
        for t in f["triggered"][:TOP]:
            w(f"  {t['name']:{width}}  {t['fired']:7d} times in {t['games']} games")
        if len(f["triggered"]) > TOP:
            w(f"  ... and {len(f['triggered']) - TOP} more (see --json or --html)")
    return "\n".join(line.rstrip() for line in out)


def seat_lines(f: dict) -> list:
    out = ["win rate per seat (95% Wilson score interval; a shared win counts as a win for each of its winners)"]
    w = out.append
    shared = f["outcomes"]["shared"] > 0
    w(f"  {'seat':5} {'agent':12} {'wins':>6} {'rate':>7}  {'95% CI':<13}" + ("  win share" if shared else ""))
    for s in f["seats"]:
        w(f"  P{s['seat']:<4} {s['agent']:12} {s['wins']:6d} {pct(s['rate']):>7}  {ci_text(s['ci']):<13}"
          + (f"  {s['win_share']:9.1f}" if shared else ""))
    note = f"1/{f['players']} when every game has one winner" if not shared else \
        "above 1/N since shared wins count for each winner; win share gives each of k winners 1/k"
    w(f"  average over the seats: {pct(f['average_rate'])} ({note})")
    if len(f["by_agent"]) > 1:
        w("  by agent: " + ", ".join(f"{k} {pct(a['rate'])} ({ci_text(a['ci'])}, {a['games']} seat-games)"
                                     for k, a in f["by_agent"].items()))
    return out


def first_lines(f: dict) -> list:
    fp = f["first_player"]
    out = [f"first to act (the seat making the game's first decision): {counts_text(fp['seats'])}"]
    if fp["games"]:
        out.append("  " + first_text(fp, "seats'"))
    return out


def counts_text(counts: dict, games: str = "") -> str:
    """{'P1': 3, 'P2': 0} -> 'P1 3' (or 'P1 in 3 games' with games=' games')."""
    return ", ".join(f"{k} {'in ' if games else ''}{v}{games}" for k, v in counts.items() if v)


def first_text(g: dict, whose: str) -> str:
    """How the first player (or side) did against the average of the seats (or sides)."""
    return (f"won {g['wins']} of {g['games']}: {pct(g['rate'])} ({ci_text(g['ci'])}), "
            f"{100 * (g['rate'] - g['average']):+.1f} points against the {whose} average of {pct(g['average'])}")


def cooperative_lines(f: dict) -> list:
    c = f["cooperative"]
    s = c["success"]
    why = "; one shared score: every seat had the same score in every game" if c["shared_score"] else ""
    return [f"cooperative: every game was won or lost by all players together{why}",
            f"  team success: {s['wins']} of {s['games']} games won by all the players: {pct(s['rate'])} "
            f"({ci_text(s['ci'])})"]


def side_lines(f: dict) -> list:
    d = f["sides"]
    how = ("declared with --sides" if d["source"] == "declared"
           else "detected: seats that won or lost together in every game")
    out = [f"partnership: {len(d['sides'])} sides ({how}); a side wins when its seats win"]
    w = out.append
    width = max(4, *(len(s["side"]) for s in d["sides"]))
    w(f"  {'side':{width}} {'wins':>6} {'rate':>7}  {'95% CI':<13}" + ("  split" if d["source"] == "declared" else ""))
    for s in d["sides"]:
        w(f"  {s['side']:{width}} {s['wins']:6d} {pct(s['rate']):>7}  {ci_text(s['ci']):<13}"
          + (f"  {s['split']:5d}" if d["source"] == "declared" else ""))
    fs = d["first_side"]
    if fs["games"]:
        w(f"  first side (the side of the seat making the first decision: {counts_text(fs['sides'])}): "
          + first_text(fs, "sides'"))
    return out


def score_groups(f: dict) -> tuple:
    """(what, groups, more): the score summaries the kind of game calls for, as (label, title,
    summary) (the HTML draws a histogram of each), and further rows (label, summary) for tables."""
    sc = f["scores"]
    seats = [(f"P{s['seat']}", s) for s in sc["seats"]]
    if f["kind"] == "cooperative":
        t = sc["team"]
        what = "the shared score" if t["of"] == "shared" else "the sum of the seats' scores"
        return f"the team's: {what}", [("team", f"the team's score ({what})", t)], [] if sc["shared"] else seats
    if sc.get("sides"):
        groups = [(s["side"] + (" (sum)" if s["of"] == "sum" else ""), s["side"], s) for s in sc["sides"]]
        apart = any(s["of"] == "sum" for s in sc["sides"])  # partners scored apart: their own scores too
        return "a side's: the one its seats share, or their sum", groups, seats if apart else []
    return "n: games, or seat-games for all seats", [(k, k, s) for k, s in seats], [("all seats", sc["all"])]


def score_lines(f: dict) -> list:
    what, groups, more = score_groups(f)
    return ([f"score at the end of each game (the rules' 'score'; {what})"]
            + score_table([(label, s) for label, _, s in groups] + more))


def score_table(rows: list) -> list:
    """Mean, its 95% interval, the standard deviation and the quantiles, one row each."""
    width = max(5, *(len(label) for label, _ in rows))
    cols = QUANTILE_KEYS
    heads = ("min", "10%", "25%", "median", "75%", "90%", "max")
    out = [f"  {'':{width}} {'n':>6} {'mean':>9}  {'95% CI of mean':<19} {'sd':>8} "
           + " ".join(f"{h:>8}" for h in heads)]
    for label, s in rows:
        ci = "-" if not s["ci"] else f"{score_number(s['ci'][0])} to {score_number(s['ci'][1])}"
        sd = "-" if s["sd"] is None else score_number(s["sd"])
        out.append(f"  {label:{width}} {s['games']:6d} {score_number(s['mean']):>9}  {ci:<19} {sd:>8} "
                   + " ".join(f"{score_number(s[c]):>8}" for c in cols))
    return out


def score_number(x) -> str:
    """A score figure: whole numbers as such, others to two places (one from a hundred on)."""
    if x == int(x):
        return str(int(x))
    return f"{x:.1f}" if abs(x) >= 100 else f"{x:.2f}"


def usage_title(key: str) -> str:
    what = {"actions": "actions taken", "abilities": "abilities cards give (actions)",
            "cards": "cards chosen in actions' parameters",
            "card_choices": "cards named by answers to choices inside effects"}[key]
    return (f"{what}: uses, and the win rate of the players who used it in a game vs those who did not "
            f"(a correlation, not a cause)")


def usage_table(rows: list, title: str, scores: bool = False) -> list:
    """scores: add the mean score of the player-games that used it and of those that did not."""
    shown = rows[:TOP]
    width = max(len(title), *(len(r["name"]) for r in shown))
    lines = [f"  {title:{width}} {'uses':>7} {'/game':>7} {'games':>6}   {'used: win rate':<26} {'not used: win rate':<26}"
             + ("  score used / not" if scores else "")]
    for r in shown:
        lines.append(f"  {r['name']:{width}} {r['uses']:7d} {r['per_game']:7.2f} {r['games']:6d}   "
                     f"{_group(r['used']):<26} {_group(r['not_used']):<26}"
                     + (f"  {_mean(r['used']['score'])} / {_mean(r['not_used']['score'])}" if scores else ""))
    if len(rows) > TOP:
        lines.append(f"  ... and {len(rows) - TOP} more (see --json or --html)")
    return lines


def _mean(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def _group(g: dict) -> str:
    if not g["games"]:
        return "- (n 0)"
    return f"{pct(g['rate'])} ({ci_text(g['ci'])}, n {g['games']})"


def _opt(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)
