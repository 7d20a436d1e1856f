"""The command line: rulespec check | games | fmt | compile | graph | doc | play | test | bench | stats | fuzz | replay | lsp | serve.

Exit codes: 0 success (warnings allowed), 1 errors in the input or a failed
run, 2 bad usage.  Bad input never produces a Python traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rulespec.lang.errors import RulesError  # light: the language and the engine are imported by the commands that use them

from .cli_support import OutputError, UsageError, check_writable, write_output  # noqa: F401 (used by tests too)


def _load_game(path: str, max_choices: int = None):
    from interpreter import load
    game = load(path)
    if max_choices is not None:
        if max_choices < 1:
            raise UsageError("--max-choices must be at least 1")
        game.max_choices = max_choices
    return game


def _add_max_choices(p) -> None:
    p.add_argument("--max-choices", type=int, metavar="N",
                   help="the most candidate choices one decision may list before the game stops with an "
                        "error naming the action (default 100000)")


def _add_engine(p) -> None:
    p.add_argument("--engine", choices=["compiled", "interpreted"], default=None,
                   help="run the game compiled (the default) or on the reference interpreter the compiled "
                        "form is checked against (also $RULESPEC_ENGINE)")


RULES_FILE_HELP = "a rules file, or the name of a game shipped with rulespec (rulespec games lists them)"


def _add_rules_file(p) -> None:
    """The rules file a command runs: a path, or a shipped game's name (resolved in _run)."""
    p.add_argument("file", metavar="FILE", help=RULES_FILE_HELP)
    p.set_defaults(rules_args=("file",))


def _named_rules(arg: str) -> str:
    """A rules file named on the command line: a path as given, or a shipped game's file (shown
    relative to the current folder when it is under it, as in a checkout)."""
    from .shipped_games import resolve
    path = resolve(arg)
    if path is arg:
        return arg
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive
        return path
    return path if rel.startswith(os.pardir) else rel


def _parse_options(game, pairs: list[str]) -> dict:
    out = {}
    for pair in pairs or []:
        if "=" not in pair:
            raise UsageError(f"--option needs NAME=VALUE, not '{pair}'")
        k, v = pair.split("=", 1)
        if k.strip() in out:
            raise UsageError(f"--option {k.strip()} is given twice")
        out[k.strip()] = game.parse_option(k.strip(), v.strip())
    return out


# ---------------------------------------------------------------------- check
def cmd_check(args) -> int:
    from rulespec.lang import model_cache
    from rulespec.lang.source import read_source
    status = 0
    as_json = getattr(args, "format", "text") == "json"
    for path in args.files:
        try:
            path = _named_rules(path)
            text = read_source(path)
            # a file checked before by this rulespec: its answer is in the model cache's header
            summary = model_cache.cached_summary(text, str(path))
            if summary is None:
                from rulespec.lang.checker import check_text
                summary = model_cache.summarise(check_text(text, str(path)))
        except RulesError as e:
            if as_json:
                _print_json_lines(d.to_dict() for d in e.diagnostics)
                status = 1
                continue
            _report_rules_error(path, e)
            status = 1
            continue
        if as_json:
            _print_json_lines(summary["diagnostics"] + summary["silenced"])
            continue
        warnings = summary["warnings"]
        for w in warnings:
            print(w, file=sys.stderr)
        extra = f", {_counted(len(warnings), 'warning')}" if warnings else ""
        if summary["silenced"]:
            extra += f", {len(summary['silenced'])} silenced"
        print(f"{path}: ok ({summary['name']}: {_counted(summary['phases'], 'phase')}, "
              f"{_counted(summary['actions'], 'action')}, {_counted(summary['cards'], 'card')}{extra})")
    return status


def _counted(n: int, noun: str) -> str:
    """"1 card", "3 cards": the check summary agrees in number like the rulebook does."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _report_rules_error(path, e: RulesError) -> None:
    """A file's errors as `rulespec check` prints them: each diagnostic, then how many errors."""
    print(e.render(), file=sys.stderr)
    n = sum(1 for d in e.diagnostics if d.severity == "error")
    print(f"{path}: {_counted(n, 'error')}", file=sys.stderr)


def _print_json_lines(records) -> None:
    """`check --format json`: one JSON object a line (JSON Lines) on stdout."""
    import json
    for r in records:
        print(json.dumps(r, ensure_ascii=False))


# ---------------------------------------------------------------------- fmt
def cmd_fmt(args) -> int:
    """Rewrite rules files in their canonical layout (rulespec/lang/fmt.py); --check and --diff write nothing."""
    import difflib

    from rulespec.lang.fmt import FormatError, format_file
    status = 0
    for path in args.files:
        try:
            text, new = format_file(path)
        except RulesError as e:  # unreadable, or does not parse: left alone
            print(e.render(), file=sys.stderr)
            status = 1
            continue
        except FormatError as e:
            print(f"rulespec fmt: error: {e}", file=sys.stderr)
            status = 1
            continue
        with open(path, "rb") as f:  # the bytes: CR LF line ends or a byte-order mark are changes too
            same = f.read() == new.encode("utf-8")
        if same:
            continue
        if args.diff:
            sys.stdout.writelines(difflib.unified_diff(
                text.splitlines(keepends=True), new.splitlines(keepends=True), f"{path}", f"{path} (formatted)"))
        if args.check:
            print(f"{path}: would be reformatted", file=sys.stderr)
            status = 1
        elif not args.diff:
            try:
                _write_atomic(path, new)
            except OutputError as e:
                print(f"rulespec fmt: error: {e}", file=sys.stderr)
                status = 1
                continue
            print(f"{path}: reformatted", file=sys.stderr)
    if args.check and status == 0:
        n = len(args.files)
        print(f"{n} file{'s' if n != 1 else ''} already formatted", file=sys.stderr)
    return status


def _write_atomic(path: str, text: str) -> None:
    """Replace a file's content all at once (a temporary file beside it, then a rename), keeping its
    mode; a symbolic link stays a link (the file it points at is replaced)."""
    import tempfile
    p = Path(os.path.realpath(path))
    if not os.access(p, os.W_OK):
        raise OutputError(f"cannot write {path}: permission denied")
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, p.stat().st_mode & 0o7777)
        os.replace(tmp, p)
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# ---------------------------------------------------------------------- compile
def cmd_compile(args) -> int:
    """The generated Python module of a rules file's compiled form (interpreter/compiled/module_text.py)."""
    from interpreter import load
    try:
        game = load(args.file, engine="compiled")
    except RulesError as e:
        _report_rules_error(args.file, e)
        return 1
    text = game.prog.module_source()
    from interpreter.compiled.module_text import functions_of
    return _write_or_print(args.output, text, f"wrote {args.output} ({len(functions_of(text))} functions of {args.file})")


def _write_or_print(output, text: str, wrote=None) -> int:
    """A command's text into the file --output names (saying so when `wrote` is given), or to
    standard output; the command's exit status."""
    if output:
        write_output(output, text)
        if wrote:
            print(wrote)
    else:
        sys.stdout.write(text)
    return 0


# ---------------------------------------------------------------------- graph
def cmd_graph(args) -> int:
    from rulespec.lang.checker import check_file
    from rulespec.lang.graph import to_dot, to_mermaid
    model = check_file(args.file)
    text = to_mermaid(model) if args.format == "mermaid" else to_dot(model)
    return _write_or_print(args.output, text)


# ---------------------------------------------------------------------- doc
def cmd_doc(args) -> int:
    from rulespec.lang.checker import check_file
    from .docs import to_html, to_markdown
    model = check_file(args.file)
    fmt = args.format or ("html" if args.output and args.output.endswith((".html", ".htm")) else "md")
    text = to_html(model) if fmt == "html" else to_markdown(model)
    return _write_or_print(args.output, text, f"wrote {args.output}")


# ---------------------------------------------------------------------- play
MAX_STEPS_DEFAULT_TEXT = "20000, or the rules' own 'limit N decisions' when higher"


def _check_max_steps(args) -> None:
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError("--max-steps must be at least 1")


def _resolve_max_steps(args, game) -> None:
    """--max-steps as given, else the default for these rules (a game of the rules' own
    length is not endless: rulespec.tools.fuzzing.fuzz.default_max_steps)."""
    if args.max_steps is None:
        from rulespec.tools.fuzzing.fuzz import default_max_steps
        args.max_steps = default_max_steps(game.model)


def cmd_play(args) -> int:
    import json

    from rulespec.tools.ai.agents import HumanAgent, RandomAgent
    _check_max_steps(args)
    game = _load_game(args.file, args.max_choices)
    _resolve_max_steps(args, game)
    options = _parse_options(game, args.option)
    players = args.players if args.players is not None else game.model.min_players
    state = game.new_state(players=players, seed=args.seed, options=options)
    humans = {h - 1 for h in args.human or []}
    for h in humans:
        if not 0 <= h < players:
            raise UsageError(f"--human {h + 1}: there are only {players} seats (1 to {players})")
    agents = [HumanAgent() if p in humans else RandomAgent(seed=args.seed * 1000 + p) for p in range(players)]
    log_file = open(args.log, "w", encoding="utf-8") if args.log else None
    printed = 0
    viewer = next(iter(humans)) if len(humans) == 1 else None
    steps = 0
    p = 0
    try:
        while not state.is_terminal():
            if steps >= args.max_steps:
                path = _write_unfinished(game, state, options, args)
                print(f"rulespec play: error: the game did not end within {args.max_steps} decisions "
                      f"(--max-steps); its replay: {path} (rulespec replay {path})", file=sys.stderr)
                return 1
            for line in state.log_lines(viewer, printed):
                print(line)
            printed = len(state.log)
            p = state.current_player
            if not state.legal_actions():
                print(f"rulespec play: error: the game is stuck: P{p + 1} has no legal action in phase "
                      f"'{state.phase}' (a bug in the rules)", file=sys.stderr)
                return 1
            before = len(state.log)
            action = agents[p].choose(state, p)
            state.apply(action)
            steps += 1
            if log_file:
                log_file.write(json.dumps({"decision": steps, "player": p, "action": str(action)}) + "\n")
                for e in state.log[before:]:
                    log_file.write(json.dumps({"event": e}) + "\n")
        for line in state.log_lines(viewer, printed):
            print(line)
        scores = state.scores()
        print("Final scores: " + ", ".join(f"P{p + 1} {s}" for p, s in enumerate(scores)))
        if log_file:
            log_file.write(json.dumps({"final_scores": scores, "winners": state.winners()}) + "\n")
    except EOFError as e:  # a human's input ended: nobody is left to choose, so the game cannot finish
        print("\ngame abandoned")
        why = str(e) or "end of standard input"
        print(f"rulespec play: error: P{p + 1} plays from the terminal, but no choice came ({why}); "
              f"game abandoned", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ngame abandoned")
        return 1
    finally:
        if log_file:
            log_file.close()
    return 0


def _write_unfinished(game, state, options: dict, args) -> str:
    """A replay file (the fuzzer's format) of a game that did not end, next to the --log file or
    in the current folder."""
    import json

    from rulespec.tools.fuzzing.fuzz import REPLAY_FORMAT, REPLAY_VERSION
    folder = Path(args.log).parent if args.log else Path(".")
    path = folder / f"{Path(game.path).stem}-unfinished-seed{args.seed}.replay.json"
    record = {"format": REPLAY_FORMAT, "version": REPLAY_VERSION, "game": game.name,
              "rules": os.path.relpath(os.path.abspath(game.path), os.path.abspath(folder)),
              "rules_sha256": game.source_hash, "players": state.n, "seed": state.seed, "options": options,
              "agent": "play", "agent_seed": args.seed, "game_index": 0, "max_steps": args.max_steps,
              "failure": {"check": "termination", "message": f"the game did not end within {args.max_steps} "
                                                             f"decisions", "decisions": len(state.history)},
              "choices": [], "actions": list(state.history), "then": "stop"}
    write_output(str(path), json.dumps(record, indent=1) + "\n")
    return str(path)


# ---------------------------------------------------------------------- test
def cmd_test(args) -> int:
    from rulespec.tools.scenario import run_paths
    return run_paths(args.paths, sys.stdout)


# ---------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    from rulespec.tools.bench import bench, default_workers
    if args.games < 1 or args.runs < 1:
        raise UsageError("--games and --runs must be at least 1")
    game = _load_game(args.file, args.max_choices)
    options = _parse_options(game, args.option)
    players = args.players if args.players is not None else game.model.min_players
    game.new_state(players=players, seed=args.seed, options=options)  # fail early on a bad player count
    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    result = bench(game, players, games=args.games, seed=args.seed, options=options, runs=args.runs,
                   workers=workers, costs=not args.no_state_costs)
    print(result.report(f"{args.file} ({game.name})"))
    if args.scaling and result.workers > 1:
        one = bench(game, players, games=args.games, seed=args.seed, options=options, runs=args.runs)
        speed_up = result.games_per_second[0] / one.games_per_second[0]
        print(f"  scaling: 1 worker {one.games_per_second[0]:.2f} games/s, {result.workers} workers "
              f"{result.games_per_second[0]:.2f} games/s: {speed_up:.2f}x "
              f"({100 * speed_up / result.workers:.0f}% of linear)")
    return 0


# ---------------------------------------------------------------------- stats
def cmd_stats(args) -> int:
    import json

    from rulespec.tools.bench import default_workers
    from rulespec.tools.stats import StatsError, collect, parse_agents, parse_sides

    from .stats_text import report
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.mcts_iterations < 1:
        raise UsageError("--mcts-iterations must be at least 1")
    if args.mcts_rollout is not None and args.mcts_rollout < 1:
        raise UsageError("--mcts-rollout must be at least 1")
    _check_max_steps(args)
    try:
        agents = parse_agents(args.agents)
    except StatsError as e:
        raise UsageError(str(e)) from None
    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    for out in (args.json, args.html):
        if out:
            check_writable(out)
    game = _load_game(args.file, args.max_choices)
    _resolve_max_steps(args, game)
    options = _parse_options(game, args.option)
    players = args.players if args.players is not None else game.model.min_players
    if args.sides is not None:
        try:
            parse_sides(args.sides, players)
        except StatsError as e:
            raise UsageError(str(e)) from None
    show = not args.quiet and sys.stderr is not None and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            sys.stderr.write(f"\r  {done}/{total} games")
            sys.stderr.flush()

    result = collect(game, args.games, players, agents, seed=args.seed, options=options, workers=workers,
                     mcts_iterations=args.mcts_iterations, mcts_rollout=args.mcts_rollout or 10_000,
                     rotate=args.rotate, max_steps=args.max_steps, progress=progress, sides=args.sides)
    if show:
        sys.stderr.write("\r" + " " * 30 + "\r")
    figures = result.figures()
    print(report(figures))
    if args.json:
        write_output(args.json, json.dumps(figures, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.html:
        from .stats_html import page
        write_output(args.html, page(figures, _stats_command(args, players)))
        print(f"wrote {args.html}")
    return 0


def _stats_command(args, players: int) -> str:
    """The command line that plays the same games (for the HTML page)."""
    parts = ["rulespec stats", args.file, f"--players {players}", f"--games {args.games}", f"--seed {args.seed}",
             f"--agents {args.agents}"]
    parts += [f"--option {o}" for o in args.option]
    if "mcts" in args.agents:
        parts.append(f"--mcts-iterations {args.mcts_iterations}")
        if args.mcts_rollout:
            parts.append(f"--mcts-rollout {args.mcts_rollout}")
    if args.rotate:
        parts.append("--rotate")
    if args.sides:
        parts.append(f"--sides {args.sides}")
    return " ".join(parts)


# ---------------------------------------------------------------------- fuzz, replay
def cmd_fuzz(args) -> int:
    from .fuzz_cli import fuzz_command
    return fuzz_command(args, lambda path: _load_game(path, args.max_choices), _parse_options)


def cmd_replay(args) -> int:
    from .fuzz_cli import replay_command
    return replay_command(args, lambda path: _load_game(path, args.max_choices))


# ---------------------------------------------------------------------- games
def cmd_games(args) -> int:
    """The games shipped with rulespec (rulespec/tools/games_list.py)."""
    import shutil

    from .games_list import describe_all, table, to_json
    records = describe_all()
    if args.format == "json":
        sys.stdout.write(to_json(records))
    else:
        print(table(records, width=shutil.get_terminal_size((100, 24)).columns))
    return 1 if any(r.get("game") is None for r in records) else 0


# ---------------------------------------------------------------------- lsp
def cmd_lsp(args) -> int:
    try:
        import pygls  # noqa: F401
    except ImportError:
        print("rulespec lsp: error: the language server needs pygls: pip install 'rulespec[lsp]'", file=sys.stderr)
        return 1
    from rulespec.tools.editor.lsp import main as lsp_main
    return lsp_main()


# ---------------------------------------------------------------------- serve
def cmd_serve(args) -> int:
    """A local web page that plays the game against agents, opens replays and shows the
    rulebook (rulespec/tools/web/, docs/web.md)."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port is a port number from 0 to 65535 (0: any free port), not {args.port}")
    if args.max_games < 1:
        raise UsageError(f"--max-games is at least 1, not {args.max_games}")
    try:
        from rulespec.tools.web.security import allowed_hosts_for
        from rulespec.tools.web.server import listen, make_app, make_server
    except ImportError as e:
        print(f"rulespec serve: error: needs the web extra ({e.name or e} is missing): "
              f"pip install 'rulespec[web]'", file=sys.stderr)
        return 1
    game = _load_game(args.file)
    try:
        sock = listen(args.host, args.port)
    except OSError as e:
        print(f"rulespec serve: error: cannot listen on {args.host} port {args.port}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"Serving {game.name} ({args.file}) at http://{shown}:{port}/  (Ctrl-C stops)", flush=True)
    try:
        app = make_app(game, max_games=args.max_games, allowed_hosts=allowed_hosts_for(args.host))
        make_server(app).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0


# ---------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="rulespec", description="Card games as text: check, play, test, fuzz, document.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("check", help="check rules files and report diagnostics")
    p.add_argument("files", nargs="+", metavar="FILE", help="rules files, or names of games shipped with rulespec")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="text: compiler-style messages on stderr (default); json: one JSON object per "
                        "diagnostic, one a line on stdout (JSON Lines; docs/editors.md)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("games", help="list the games shipped with rulespec: players, options, what each is",
                       description="The games shipped with rulespec.  Any command that takes a rules file "
                                   "takes one of these names instead (rulespec play NAME, rulespec.load(NAME)).")
    p.add_argument("--format", choices=["text", "json"], default="text",
                   help="text: a table (default); json: a list of records (name, game, players, options with "
                        "their defaults, about, path, rulebook)")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("fmt", help="rewrite rules files in the canonical layout (comments and line numbers kept)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--check", action="store_true",
                   help="change nothing; exit 1 and name the files that would change")
    p.add_argument("--diff", action="store_true", help="change nothing; print what would change as a unified diff")
    p.set_defaults(func=cmd_fmt)

    p = sub.add_parser("compile", help="write the Python module a rules file compiles to (what the compiled "
                                        "engine runs; for reading)",
                       description="Write the Python module the compiled engine generates from a rules file: "
                                   "a header naming the file (path, sha256) and the engine, the names bound "
                                   "when the game loads, then every generated function with the rules line "
                                   "it was written for.  The engine runs these very functions (compiled once "
                                   "and kept in the code cache); the text is for reading and debugging.")
    _add_rules_file(p)
    p.add_argument("-o", "--output", metavar="OUT.py", help="write to OUT.py instead of standard output")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("graph", help="print the phase graph")
    _add_rules_file(p)
    p.add_argument("--format", choices=["mermaid", "dot"], default="mermaid")
    p.add_argument("-o", "--output", metavar="OUT")
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("doc", help="write the rulebook generated from a rules file")
    _add_rules_file(p)
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    p.add_argument("--format", choices=["md", "html"], help="md (default) or html (one self-contained page)")
    p.set_defaults(func=cmd_doc)

    p = sub.add_parser("play", help="play a game between random agents and/or humans")
    _add_engine(p)
    _add_rules_file(p)
    p.add_argument("--players", type=int)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[])
    p.add_argument("--human", type=int, action="append", metavar="SEAT", help="seat (from 1) played from the terminal")
    p.add_argument("--log", metavar="FILE.jsonl", help="write every event and choice as JSON lines")
    p.add_argument("--max-steps", type=int, default=None,
                   help=f"decisions before a game counts as endless (default {MAX_STEPS_DEFAULT_TEXT})")
    _add_max_choices(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("test", help="run scenario files (YAML): fixed positions, scripted moves, expected results")
    _add_engine(p)
    p.add_argument("paths", nargs="+", metavar="FILE_OR_DIR", help="scenario files, or directories searched for *.yaml")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("bench", help="time random games: games per second and microseconds per decision")
    _add_engine(p)
    _add_rules_file(p)
    p.add_argument("--players", type=int)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[])
    p.add_argument("--runs", type=int, default=5, help="repeat the whole benchmark R times; report the median")
    p.add_argument("--workers", type=int, default=None,
                   help="processes to play the games in (default: the machine's cores)")
    p.add_argument("--scaling", action="store_true",
                   help="also run with one worker and print the speed-up of --workers")
    p.add_argument("--no-state-costs", action="store_true",
                   help="skip measuring clone(), to_json() and the memory of a state")
    _add_max_choices(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("stats", help="play many games: win rates per seat (per side, or the team's), scores, "
                                      "first-player advantage, game length, what gets used and how it goes "
                                      "with winning")
    _add_engine(p)
    _add_rules_file(p)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--players", type=int, help="a player count (default: the game's smallest)")
    p.add_argument("--agents", default="random", metavar="KIND,...",
                   help="agents cycled over the seats: random, first (the first legal action), mcts (UCT search "
                        "that sees every hidden card: an upper bound on skill, not a fair player); default random")
    p.add_argument("--rotate", action="store_true",
                   help="game i moves every agent i seats on, so that each agent plays each seat")
    p.add_argument("--mcts-iterations", type=int, default=100, metavar="N",
                   help="playouts per mcts decision (default 100)")
    p.add_argument("--mcts-rollout", type=int, default=None, metavar="N",
                   help="cut an mcts playout after N decisions and count it a draw (default: play to the end)")
    p.add_argument("--seed", type=int, default=0, help="game i has seed SEED+i")
    p.add_argument("--sides", metavar="P1+P3,P2+P4",
                   help="the partnerships, for figures per side (default: read from the games: seats that always "
                        "win or lose together)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes to play in; default: the machine's cores (the figures do not depend on it)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[])
    p.add_argument("--max-steps", type=int, default=None, help=f"decisions a game may take (default {MAX_STEPS_DEFAULT_TEXT})")
    p.add_argument("--json", metavar="OUT", help="also write every figure as JSON")
    p.add_argument("--html", metavar="OUT", help="also write one self-contained HTML page with charts")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress count")
    _add_max_choices(p)
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("fuzz", help="play many checked random games; shrink and save any failure; rule and branch coverage")
    _add_engine(p)
    _add_rules_file(p)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", metavar="N|all", default="all", help="a player count, or all (cycle over the range)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", default=[])
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (or Ray CPUs); default: the machine's cores (the results do not depend on it)")
    p.add_argument("--max-steps", type=int, default=None,
                   help=f"decisions a game may take before it counts as endless (default {MAX_STEPS_DEFAULT_TEXT})")
    p.add_argument("--agents", default="random,rare", help="agents to cycle through: random, rare, mixed")
    p.add_argument("--out", default="fuzz-failures", metavar="DIR", help="where failing games are written")
    p.add_argument("--shrink-budget", type=int, default=200, metavar="N", help="replays spent shrinking each failure (0: none)")
    p.add_argument("--max-reports", type=int, default=5, metavar="N", help="kinds of failure shrunk and written")
    p.add_argument("--coverage-min", type=float, metavar="PCT", help="fail when rule coverage (phases, actions, effects, events, triggers; branches: "
                        "--branch-coverage-min) is below PCT percent")
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--address", help="the Ray cluster to use (with --backend ray; default: a local instance)")
    p.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_max_choices(p)
    from .fuzz_cli import add_fuzz_arguments
    add_fuzz_arguments(p)
    p.set_defaults(func=cmd_fuzz)

    p = sub.add_parser("replay", help="step through a failing game saved by rulespec fuzz")
    _add_engine(p)
    p.add_argument("file", metavar="REPLAY.json")
    p.add_argument("--step", action="store_true", help="wait for Enter before each action")
    p.add_argument("--rules", metavar="FILE", help="the rules file, or a shipped game's name (default: the "
                                                   "file the replay names)")
    p.set_defaults(rules_args=("rules",))
    _add_max_choices(p)
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("lsp", help="a language server for editors (LSP over standard input and output)")
    p.add_argument("--stdio", action="store_true", help="speak over standard input and output (the default "
                                                         "and only transport; accepted because editors pass it)")
    p.set_defaults(func=cmd_lsp)

    p = sub.add_parser("serve", help="a local web page: play the game against agents, step through replays, "
                                      "read the rulebook")
    _add_engine(p)
    _add_rules_file(p)
    p.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    from rulespec.tools.web.sessions import DEFAULT_MAX_GAMES  # no web framework: --help works without the extra
    p.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES, metavar="N",
                   help=f"games and replays kept in memory (default {DEFAULT_MAX_GAMES}); past it the one "
                        f"unused longest is forgotten")
    p.set_defaults(func=cmd_serve)
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    try:
        args, extra = ap.parse_known_args(argv)
        if extra:  # reported by the command's own parser: "rulespec play: error: unrecognized arguments"
            subs = [a for a in ap._actions if isinstance(a, argparse._SubParsersAction)]
            (subs[0].choices.get(args.command, ap) if subs else ap).error(
                "unrecognized arguments: " + " ".join(extra))
    except SystemExit as e:
        return int(e.code or 0) if e.code in (0, None) else 2
    engine_before = os.environ.get("RULESPEC_ENGINE")
    if getattr(args, "engine", None):  # every game this command and its workers load
        os.environ["RULESPEC_ENGINE"] = args.engine
    try:
        return _run(args)
    finally:
        if engine_before is None:
            os.environ.pop("RULESPEC_ENGINE", None)
        else:
            os.environ["RULESPEC_ENGINE"] = engine_before


def _run(args) -> int:
    from interpreter.errors import EngineError
    try:
        for name in getattr(args, "rules_args", ()):  # a shipped game's name stands for its file
            if getattr(args, name) is not None:
                setattr(args, name, _named_rules(getattr(args, name)))
        return args.func(args)
    except RulesError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except UsageError as e:
        print(f"rulespec {args.command}: error: {e}", file=sys.stderr)
        return 2
    except (OutputError, EngineError, ValueError) as e:  # a file not written, the engine's refusal, a bad value
        print(f"rulespec {args.command}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # before OSError, its base class: `rulespec play ... | head` is not an error
        _silence_stdout()
        return 0
    except OSError as e:
        print(f"rulespec {args.command}: error: {e.strerror or e}: {getattr(e, 'filename', '') or ''}", file=sys.stderr)
        return 1
    except MemoryError:  # e.g. a range computed at run time, like 0..points[active], with a huge bound
        print(f"rulespec {args.command}: error: out of memory (does a rule build a huge list or range?)",
              file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """After the reader of our output went away: send what is left to /dev/null, so that
    Python's own flush at exit does not fail a second time."""
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    # run the imported module, not this __main__ copy: rulespec.tools.fuzz_cli raises rulespec.tools.cli's
    # UsageError, which only that module's main() catches
    from rulespec.tools.cli import main as _main
    sys.exit(_main())
