"""The terminal report of ``rulespec stats``, drawn from the figures (rulespec.tools.stats: the JSON).

Plain text in fixed columns, like ``rulespec bench``: no colour, nothing to install.
"""
from __future__ import annotations

TOP = 15  # rows of each usage table shown in the terminal (the JSON and HTML have them all)


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
    w("win rate per seat (95% Wilson score interval; a shared win counts as a win for each of its winners)")
    shared = o["shared"] > 0
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
    w("")
    fp = f["first_player"]
    seats = ", ".join(f"{k} {v}" for k, v in fp["seats"].items() if v)
    w(f"first to act (the seat making the game's first decision): {seats}")
    if fp["games"]:
        diff = 100 * (fp["rate"] - fp["average"])
        w(f"  won {fp['wins']} of {fp['games']}: {pct(fp['rate'])} ({ci_text(fp['ci'])}), "
          f"{diff:+.1f} points against the seats' average {pct(fp['average'])}")
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
        out.extend(usage_table(rows, title))
    if f["triggered"]:
        w("")
        w("triggered abilities of cards (times run; not told apart by owner, so no win rates)")
        width = max(len(t["name"]) for t in f["triggered"][:TOP])
        for t in f["triggered"][:TOP]:
            w(f"  {t['name']:{width}}  {t['fired']:7d} times in {t['games']} games")
        if len(f["triggered"]) > TOP:
            w(f"  ... and {len(f['triggered']) - TOP} more (see --json or --html)")
    return "\n".join(line.rstrip() for line in out)


def usage_title(key: str) -> str:
    what = {"actions": "actions taken", "abilities": "abilities cards give (actions)",
            "cards": "cards chosen in actions' parameters",
            "card_choices": "cards named by answers to choices inside effects"}[key]
    return (f"{what}: uses, and the win rate of the players who used it in a game vs those who did not "
            f"(a correlation, not a cause)")


def usage_table(rows: list, title: str) -> list:
    shown = rows[:TOP]
    width = max(len(title), *(len(r["name"]) for r in shown))
    lines = [f"  {title:{width}} {'uses':>7} {'/game':>7} {'games':>6}   {'used: win rate':<26} {'not used: win rate':<26}"]
    for r in shown:
        lines.append(f"  {r['name']:{width}} {r['uses']:7d} {r['per_game']:7.2f} {r['games']:6d}   "
                     f"{_group(r['used']):<26} {_group(r['not_used']):<26}")
    if len(rows) > TOP:
        lines.append(f"  ... and {len(rows) - TOP} more (see --json or --html)")
    return lines


def _group(g: dict) -> str:
    if not g["games"]:
        return "- (n 0)"
    return f"{pct(g['rate'])} ({ci_text(g['ci'])}, n {g['games']})"


def _opt(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)
