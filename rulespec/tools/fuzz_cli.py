"""The printing side of ``rulespec fuzz`` and ``rulespec replay`` (the engine side is
rulespec/tools/fuzzing/fuzz.py).  Progress bars and tables use rich."""
from __future__ import annotations

import json
import sys
from pathlib import Path


def _consoles():
    from rich.console import Console
    out = Console(file=sys.stdout, highlight=False, soft_wrap=False)
    if not out.is_terminal:
        out = Console(file=sys.stdout, highlight=False, soft_wrap=False, width=120)
    err = Console(file=sys.stderr, highlight=False)
    out.on_broken_pipe = _broken_pipe  # rich exits with status 1; `rulespec fuzz | head` is no error
    return out, err


def _broken_pipe() -> None:
    raise BrokenPipeError  # rulespec.tools.cli.main turns it into exit status 0


def _players_arg(value):
    if value is None or str(value).strip().lower() == "all":
        return "all"
    try:
        return int(value)
    except ValueError:
        from .cli_support import UsageError
        raise UsageError(f"--players is a number or 'all', not '{value}'") from None


def _show_options(options: dict) -> str:
    if not options:
        return "defaults"
    return ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())


# ---------------------------------------------------------------------- fuzz
DEFAULT_COUNTERFACTUAL_RATE = 0.2
COUNTERFACTUAL_RATE_HELP = (f"the fraction of games (0 to 1; default {DEFAULT_COUNTERFACTUAL_RATE:g}) given the "
                            "counterfactual secrecy check: one player's view of the game compared with re-deals of "
                            "the cards they never saw (0: off; 1: every game)")


DEFAULT_CHECK_RATE = 0.05
CHECK_RATE_HELP = (f"the fraction of decisions (0 to 1; default {DEFAULT_CHECK_RATE:g}) given the costly checks: the "
                   "JSON round trip, every player's observation, refusing the last action once illegal, the cards "
                   "of every zone; and the fraction of games replayed from their seed and actions. The cheap checks "
                   "(invariants, someone to act, the cards of the zones that changed) run at every decision, the "
                   "costly ones also at decisions 0, 1, 2 and at the end. 1: every check at every decision, every "
                   "game replayed")


def add_fuzz_arguments(p) -> None:
    """The options of `rulespec fuzz` that this module reads beyond those rulespec/tools/cli.py
    declares: ``--counterfactual-rate R`` and ``--check-rate R``."""
    p.add_argument("--counterfactual-rate", type=float, default=DEFAULT_COUNTERFACTUAL_RATE, metavar="R",
                   help=COUNTERFACTUAL_RATE_HELP)
    p.add_argument("--check-rate", type=float, default=DEFAULT_CHECK_RATE, metavar="R", help=CHECK_RATE_HELP)
    p.add_argument("--branch-coverage-min", type=float, metavar="PCT",
                   help="fail when fewer than PCT percent of the rules' branches (every arm of every 'if', an "
                        "else not written included, and the 'next' clauses of phases with several) were taken")
    p.add_argument("--differential", action="store_true",
                   help="play every game on the compiled engine and on the reference interpreter with the same "
                        "random choices, and compare every decision's legal actions, the log and the final state "
                        "(any difference is a bug in the game compiler)")


def _rate_arg(args, name: str = "counterfactual_rate", default: float = DEFAULT_COUNTERFACTUAL_RATE,
              of: str = "the games") -> float:
    rate = getattr(args, name, None)
    rate = default if rate is None else rate
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not 0 <= rate <= 1:
        from .cli_support import UsageError
        raise UsageError(f"--{name.replace('_', '-')} is a fraction of {of}, from 0 to 1, not {rate!r}")
    return float(rate)


def fuzz_command(args, load_game, parse_options) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
        TimeRemainingColumn
    from rich.markup import escape
    from rich.table import Table

    from rulespec.tools.fuzzing import fuzz as F

    from .cli_support import UsageError, check_writable, write_output
    if args.workers is None:
        from rulespec.tools.bench import default_workers
        args.workers = min(default_workers(), args.games) if args.games >= 1 else 1
    for name in ("games", "workers", "max_steps", "shrink_budget", "max_reports"):
        least = 0 if name in ("shrink_budget", "max_reports") else 1
        if getattr(args, name) is not None and getattr(args, name) < least:  # --max-steps: None by default
            raise UsageError(f"--{name.replace('_', '-')} must be at least {least}")
    for name in ("coverage_min", "branch_coverage_min"):
        pct = getattr(args, name, None)
        if pct is not None and not 0 <= pct <= 100:
            raise UsageError(f"--{name.replace('_', '-')} is a percentage, from 0 to 100")
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    bad = [a for a in agents if a not in F.AGENT_KINDS]
    if bad or not agents:
        raise UsageError(f"--agents takes a comma-separated list of: {', '.join(F.AGENT_KINDS)}"
                         + (f" (not '{bad[0]}')" if bad else ""))
    players = _players_arg(args.players)
    rate = _rate_arg(args)
    state_rate = _rate_arg(args, "check_rate", DEFAULT_CHECK_RATE, "the decisions")
    # outputs that could not be written are found now, not after a long run
    check_writable(args.out, directory=True)
    if args.json:
        check_writable(args.json)
    game = load_game(args.file)
    options = parse_options(game, args.option)
    if args.differential:
        return differential_command(args, game, options, players)
    try:
        backend = F.make_backend(args.backend, args.workers, args.address)
    except F.FuzzError as e:  # no Ray, an unknown backend, --address without Ray: usage
        raise UsageError(str(e)) from None

    out, err = _consoles()
    show_progress = err.is_terminal and not args.quiet
    progress = Progress(TextColumn("fuzzing [bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("games, {task.fields[failing]} failing"), TimeElapsedColumn(),
                        TextColumn("eta"), TimeRemainingColumn(), console=err, disable=not show_progress,
                        transient=False)
    with progress:
        task = progress.add_task(escape(game.name), total=args.games, failing=0)

        def update(done: int, failing: int) -> None:
            progress.update(task, completed=done, failing=failing)
        try:
            result = F.fuzz(game, args.games, seed=args.seed, players=players, options=options, agents=agents,
                            max_steps=args.max_steps, backend=backend, progress=update, counterfactual_rate=rate,
                            state_check_rate=state_rate)
        except KeyboardInterrupt:
            progress.stop()
            print("rulespec fuzz: interrupted", file=sys.stderr)
            return 1
    t = result.totals
    cov = F.coverage(game.model, t.coverage)
    bcov = F.branch_coverage(game.model, t.coverage)

    # ------------------------------------------------------------ summary
    print(f"rulespec fuzz {args.file} ({game.name})", flush=True)
    table = Table(show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    per_players = ", ".join(f"{n} players: {c}" for n, c in sorted(t.by_players.items()))
    table.add_row("games", f"{t.games} ({per_players})")
    table.add_row("agents", ", ".join(f"{a}: {c}" for a, c in sorted(t.by_agent.items())))
    table.add_row("seed, options", escape(f"{args.seed}; {_show_options(options)}"))
    table.add_row("ran on", f"{result.backend}, {result.workers} worker{'s' if result.workers != 1 else ''}")
    table.add_row("games over", f"{t.terminal} of {t.games}" + (f" ({t.limited} ended by the rules' limit of "
                                                                 f"{game.model.limit.count} decisions)"
                                                                 if t.limited else ""))
    table.add_row("decisions", f"{t.decisions} ({t.decisions / max(1, t.games):.1f} a game)")
    if t.longest_game is not None:
        table.add_row("longest game", longest_line(t.longest_game, result.max_steps))
    table.add_row("time", f"{result.seconds:.1f} s ({result.games_per_second:.1f} games/s; "
                          f"{result.games_per_cpu_second:.1f} games per CPU second in the workers)")
    table.add_row("costly checks", escape(_check_rate_line(result)))
    table.add_row("counterfactual secrecy", escape(_counterfactual_line(result)))
    failing = sum(t.failures.values())
    table.add_row("failing games", f"[red]{failing}[/red]" if failing else "0")
    table.add_row("rule coverage", f"{cov.reached} of {cov.total} rules ({cov.percent:.1f}%)")
    table.add_row("branch coverage", f"{bcov.taken} of {bcov.total} branches ({bcov.percent:.1f}%)")
    out.print(table)

    # ------------------------------------------------------------ coverage
    ct = Table(title="Rule coverage", title_justify="left")
    ct.add_column("kind")
    ct.add_column("rule")
    ct.add_column("times", justify="right")
    for rule, count in cov.rules:
        ct.add_row(rule.kind, escape(rule.name), f"{count}" if count else "[red]never[/red]")
    out.print(ct)
    never = cov.never()
    line = f"rule coverage: {cov.reached} of {cov.total} rules ({cov.percent:.1f}%)"
    if never:
        line += "; never reached: " + ", ".join(f"{r.kind} {r.name}" for r in never)
    print(line, flush=True)
    branches_never = bcov.never()
    if branches_never:
        bt = Table(title="Branches never taken", title_justify="left")
        bt.add_column("where")
        bt.add_column("branch", overflow="fold")
        bt.add_column("arm")
        bt.add_column("in")
        for b in branches_never:
            bt.add_row(escape(f"{args.file}:{b.line}:{b.col}"), escape(b.text), b.arm, escape(b.rule))
        out.print(bt)
    print(_branch_line(bcov, args.file), flush=True)
    if result.compared_nothing:
        print(f"secrecy: {_nothing_compared(t)}", flush=True)

    # ------------------------------------------------------------ failures
    status = 0
    causes: dict = {}  # check -> the cause of its first failure (cause.py), for --json
    if failing:
        status = 1
        ft = Table(title="Failures", title_justify="left")
        ft.add_column("check")
        ft.add_column("games", justify="right")
        ft.add_column("first game")
        ft.add_column("what went wrong", overflow="fold")
        for f in result.failures():
            ft.add_row(escape(f.check), str(t.failures[f.check]),
                       f"#{f.index} ({f.players} players, seed {f.seed}, {f.agent})", escape(f.message))
        out.print(ft)
        for k, f in enumerate(result.failures()):
            if k >= args.max_reports:
                print(f"(not written: {len(result.failures()) - k} more kinds of failure; see --max-reports)")
                break
            used = 0
            if args.shrink_budget:
                f, used = F.shrink(game, f, options, result.max_steps, budget=args.shrink_budget)
            f = F.explain(game, f, options, result.max_steps, args.file)  # why, in rules positions (or as it was)
            if f.cause:
                causes[f.check] = f.cause
            try:
                rj, sy = F.write_failure(game, f, options, result.max_steps, args.out)
            except OSError as e:
                from .cli_support import OutputError
                raise OutputError(f"cannot write the failing game into {args.out}: {e.strerror or e}"
                                  + (f" ({e.filename})" if getattr(e, "filename", None) else "")) from None
            if not args.shrink_budget:
                shrunk = f"{f.steps} decisions (not shrunk)"
            elif f.steps >= f.original_steps and not f.then_first:
                shrunk = f"{f.steps} decisions (could not be shrunk; {used} replays)"
            else:
                shrunk = f"shrunk from {f.original_steps} to {f.steps} decisions ({used} replays)"
            if f.then_first:
                shrunk += ", then the first legal action at every decision"
            print(f"FAIL {f.check}: game #{f.index}, {shrunk}\n  {f.message}\n"
                  + (f"  cause:    {f.cause['text']}\n" if f.cause else "") +
                  f"  replay:   {rj}   (rulespec replay {rj})\n"
                  f"  scenario: {sy}   (rulespec test {sy})", flush=True)
    if args.coverage_min is not None and cov.percent < args.coverage_min:
        print(f"FAIL rule coverage {cov.percent:.1f}% is below --coverage-min {args.coverage_min:g}%"
              + ("; never reached: " + ", ".join(f"{r.kind} {r.name}" for r in never) if never else ""), flush=True)
        status = 1
    if args.branch_coverage_min is not None and bcov.percent < args.branch_coverage_min:
        print(f"FAIL branch coverage {bcov.percent:.1f}% is below --branch-coverage-min {args.branch_coverage_min:g}%",
              flush=True)
        status = 1
    if args.json:
        summary = result.summary()
        summary["counterfactual"]["cpu_seconds"] = t.cf_seconds
        summary.update({"rules": args.file, "game": game.name, "seed": args.seed, "options": options,
                        "backend": result.backend, "workers": result.workers, "seconds": result.seconds,
                        "games_per_second": result.games_per_second, "cpu_seconds": t.cpu_seconds,
                        "games_per_cpu_second": result.games_per_cpu_second,
                        "rule_coverage": {"reached": cov.reached, "total": cov.total, "percent": cov.percent,
                                          "never": [f"{r.kind} {r.name}" for r in never]},
                        "branch_coverage": {"taken": bcov.taken, "total": bcov.total, "percent": bcov.percent,
                                            "never": [b.describe(args.file) for b in branches_never]}})
        if result.compared_nothing:
            summary["counterfactual"]["note"] = _nothing_compared(t)
        summary["first"] = {k: v[:2] for k, v in summary["first"].items()}
        if causes:
            summary["causes"] = causes
        write_output(args.json, json.dumps(summary, indent=1, default=str) + "\n")
    if status == 0 and result.compared_nothing:  # a silent secrecy check is no evidence: say so
        print("ok: nothing broke (but the counterfactual secrecy check compared nothing)", flush=True)
    else:
        print("ok: nothing broke" if status == 0 else "something broke", flush=True)
    return status


BRANCHES_LISTED = 10  # never-taken branches named on the summary line (the table names them all)


def _branch_line(bcov, path: str) -> str:
    """'branch coverage: 52 of 60 branches (86.7%); never taken: games/x.rules:123:5 if ... (then), ...'"""
    line = f"branch coverage: {bcov.taken} of {bcov.total} branches ({bcov.percent:.1f}%)"
    never = bcov.never()
    if never:
        line += "; never taken: " + ", ".join(b.describe(path) for b in never[:BRANCHES_LISTED])
        if len(never) > BRANCHES_LISTED:
            line += f", and {len(never) - BRANCHES_LISTED} more (the table above; --json lists them all)"
    return line


def _nothing_compared(t) -> str:
    """The counterfactual check ran and had no re-deal to compare (ChunkResult totals t)."""
    games = f"0 re-deals in the {t.cf_games} game{'s' if t.cf_games != 1 else ''} checked"
    if t.cf_visible == t.cf_games:
        return (f"nothing to compare — every card was visible to the viewer from the setup on (no two cards "
                f"hidden from them to re-deal): {games}")
    why = f"{t.cf_visible} with every card visible to the viewer, " if t.cf_visible else ""
    return (f"nothing to compare — {games} ({why}{t.cf_dropped} re-deals refused by the engine, the others "
            f"changed nothing)")


LONGEST_ENDINGS = {"over": "over", "limit": "ended by the rules' limit", "unfinished": "not over"}


def longest_line(g, max_steps: int) -> str:
    """The longest game of a run: which it is, how to play it again, and how it ended."""
    ending = LONGEST_ENDINGS[g.ending] + (f" within --max-steps {max_steps}" if g.ending == "unfinished" else "")
    return (f"{g.decisions} decisions: game #{g.index} ({g.players} players, seed {g.seed}, {g.agent}), "
            f"{ending}")


def _check_rate_line(result) -> str:
    t = result.totals
    done = (f"{t.checked} of {t.decisions + t.games} decisions (the ends of games included) given the costly "
            f"checks, {t.replayed} of {t.games} games replayed")
    if result.state_check_rate >= 1:
        return f"at every decision, every game replayed (--check-rate 1): {done}"
    return (f"rate {result.state_check_rate:g}: {done}. Round trip, observations, refusals and every zone's cards "
            f"at that share of the decisions and at decisions 0, 1, 2 and the end (the whole state with its log "
            f"at the sampled ones of decisions 0, 1, 2, 4, 8, ... and at the end of replayed games); invariants, "
            f"turn and the cards that moved at every decision (--check-rate 1: everything everywhere)")


DROP_REASONS_SHOWN = 3  # the commonest reasons for dropping re-deals named in the report (--json: all)


def _drops_why(t) -> str:
    """The commonest reasons re-deals were dropped, as " (N: reason, ...)"; empty when none were."""
    if not t.cf_drops:
        return ""
    top = t.cf_drops.most_common(DROP_REASONS_SHOWN)
    more = len(t.cf_drops) - len(top)
    return " (" + ", ".join(f"{n} {why}" for why, n in top) + (f", {more} other reasons" if more > 0 else "") + ")"


def _counterfactual_line(result) -> str:
    t = result.totals
    if result.counterfactual_rate <= 0:
        return "off (--counterfactual-rate 0)"
    share = f", {100 * t.cf_seconds / t.cpu_seconds:.0f}% of the workers' CPU time" if t.cpu_seconds > 0 else ""
    every = " (--counterfactual-rate 1: every game)" if result.counterfactual_rate < 1 else ""
    line = (f"rate {result.counterfactual_rate:g}: {t.cf_games} of {t.games} games checked, {t.cf_worlds} re-deals "
            f"compared over {t.cf_decisions} decisions, {t.cf_dropped} dropped as inconsistent with the public "
            f"history{_drops_why(t)}; {t.cf_seconds:.1f} CPU s{share}{every}")
    if result.compared_nothing:  # a silent check is no evidence: say why it was silent
        note = _nothing_compared(t)
        return f"{line}. {note[0].upper()}{note[1:]}"
    if t.cf_empty:
        return (f"{line}. {t.cf_empty} of the games checked compared no re-deal ({t.cf_visible} with every card "
                f"visible to the viewer from the setup on)")
    return line


# ---------------------------------------------------------------------- replay
def replay_command(args, load_game) -> int:
    from rulespec.tools.fuzzing import fuzz as F
    d = F.read_replay(args.file)
    rules = args.rules or F.replay_rules_path(d, args.file)
    if not Path(rules).is_file():
        raise F.FuzzError(f"the rules file of this replay is not at {rules} (give it with --rules PATH)")
    game = load_game(rules)
    F.check_replay_game(d, game, args.file)
    recorded = d.get("failure")
    actions = d["actions"]
    then_first = d.get("then") == "first"
    print(f"Replaying {args.file}: {game.name}, {d['players']} players, seed {d['seed']}, "
          f"options {_show_options(d['options'])}, {len(actions)} actions"
          + (", then the first legal action at every decision" if then_first else ""))
    if recorded:
        print(f"recorded failure: {recorded['check']}: {recorded.get('message', '')}")
    if d.get("counterfactual"):
        print(f"with the counterfactual secrecy check for P{d['counterfactual']['viewer'] + 1}")
    printed = 0
    state = {"step": 0, "interactive": args.step}

    def show(st) -> None:
        nonlocal printed
        for line in st.log_lines(None, printed):
            print(line)
        printed = len(st.log)

    def on_step(st, text) -> None:
        show(st)
        if text is None:
            return
        state["step"] += 1
        if state["interactive"]:
            try:
                answer = input(f"[{state['step']}/{len(actions) if not then_first else '...'}] next: {text}  (Enter: play it, c: play "
                               f"the rest, q: quit) ")
            except EOFError:
                answer = "c"
            if answer.strip().lower() == "q":
                raise KeyboardInterrupt
            if answer.strip().lower() == "c":
                state["interactive"] = False

    try:
        out = F.run_replay(game, d, on_step)
    except KeyboardInterrupt:
        print("replay stopped")
        return 1
    if out.state is not None:
        show(out.state)
    if then_first:
        print(f"replayed {out.steps} decisions ({min(out.steps, len(actions))} recorded, the rest the first "
              f"legal action)")
    else:
        print(f"replayed {out.steps} of {len(actions)} actions")
    if out.failure is None:
        if recorded:
            print(f"no failure: the recorded failure ({recorded['check']}) does not reproduce")
        else:
            print("no failure")
        return 0
    check, message = out.failure
    print(f"failure: {check}: {message}")
    cause = F.replay_cause(game, d, out, rules)
    if cause:
        print(f"cause: {cause['text']}")
    if recorded and recorded["check"] == check:
        print("the recorded failure reproduces")
    elif recorded:
        print(f"a different failure from the recorded one ({recorded['check']})")
    return 1


def differential_command(args, game, options: dict, players) -> int:
    """`rulespec fuzz --differential`: both engines, the same games, every decision compared."""
    import time

    from rich.markup import escape
    from rich.table import Table

    from rulespec.tools.fuzzing.differential import differential
    from rulespec.tools.fuzzing.planning import default_max_steps
    out, err = _consoles()
    max_steps = args.max_steps or default_max_steps(game.model)
    started = time.process_time()
    results = differential(args.file, args.games, seed=args.seed, players=players, options=options,
                           max_steps=max_steps)
    seconds = time.process_time() - started
    differing = [r for r in results if r.difference is not None]
    decisions = sum(r.decisions for r in results)
    print(f"rulespec fuzz --differential {args.file} ({game.name})", flush=True)
    table = Table(show_header=False)
    table.add_column("what", style="bold")
    table.add_column("value")
    table.add_row("games", f"{len(results)} on both engines (compiled, interpreted), "
                           f"{sum(r.terminal for r in results)} played to the end")
    table.add_row("seed, options", escape(f"{args.seed}; {_show_options(options)}"))
    table.add_row("decisions compared", f"{decisions} (legal actions, player, log lines; the state's hash every "
                                        f"64 decisions and at the end)")
    table.add_row("time", f"{seconds:.1f} CPU s")
    table.add_row("differing games", f"[red]{len(differing)}[/red]" if differing else "0")
    out.print(table)
    for r in differing[:args.max_reports]:
        d = r.difference
        out.print(escape(f"game seed {r.seed}, {r.players} players: {d.describe()}"))
        out.print(escape(f"  replay: the actions {d.history[-5:]} (last 5 of {len(d.history)})"))
    if args.json:
        from .cli_support import write_output
        write_output(args.json, json.dumps({
            "games": len(results), "decisions": decisions, "differing": len(differing), "cpu_seconds": seconds,
            "differences": [{"seed": r.seed, "players": r.players, "decision": r.difference.decision,
                             "what": r.difference.what, "compiled": r.difference.compiled,
                             "interpreted": r.difference.interpreted, "history": r.difference.history}
                            for r in differing]}, indent=2) + "\n")
    return 1 if differing else 0
