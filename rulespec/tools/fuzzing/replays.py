"""Replay files and scenarios: a failing game written to disk (NAME.replay.json, which
``rulespec replay`` plays again with every check, and NAME.yaml, a scenario that fails the
same way), and replay files read back, validated and replayed."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable, Optional

from interpreter.serialise import json_loads
from .planning import DEFAULT_MAX_STEPS, FuzzError, default_max_steps
from .playing import Outcome, play_game, text_picker
from .results import Failure
from .secrecy import CHECK as COUNTERFACTUAL

REPLAY_FORMAT = "rulespec-replay"
REPLAY_VERSION = 1


def _slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:limit].rstrip("-") or "failure"


def _relative(target: str, base_dir: Path) -> str:
    """`target` as a path from base_dir when it was given relative (a project's own layout),
    else absolute."""
    if os.path.isabs(target):
        return target
    try:
        return os.path.relpath(os.path.abspath(target), os.path.abspath(base_dir))
    except ValueError:  # another drive
        return os.path.abspath(target)


def replay_record(game, failure: Failure, options: dict, max_steps: int, base_dir: Path) -> dict:
    return {
        "format": REPLAY_FORMAT, "version": REPLAY_VERSION,
        "game": game.name, "rules": _relative(game.path, base_dir), "rules_sha256": game.source_hash,
        "players": failure.players, "seed": failure.seed, "options": dict(options),
        "agent": failure.agent, "agent_seed": failure.agent_seed, "game_index": failure.index,
        "max_steps": max_steps,
        "failure": {"check": failure.check, "message": failure.message, "decisions": failure.steps,
                    "decisions_before_shrinking": failure.original_steps or failure.steps}
        | ({"cause": failure.cause} if failure.cause else {}),  # why, in rules positions (cause.py)
        "choices": list(failure.choices), "actions": list(failure.actions),
        # after the actions: "stop", or "first" (the first legal action at every decision, until
        # the game ends or max_steps: how a game that never ends is replayed from a short prefix)
        "then": "first" if failure.then_first else "stop",
    } | ({"counterfactual": {"viewer": failure.viewer}}  # replayed with the secrecy check for this seat
         if failure.check == COUNTERFACTUAL and failure.viewer is not None else {})


def scenario_text(game, failure: Failure, options: dict, base_dir: Path, max_steps: int = DEFAULT_MAX_STEPS) -> str:
    """A scenario (rulespec/tools/scenario/) that replays the failing game and fails the same way."""
    import yaml
    if failure.check == COUNTERFACTUAL and failure.detail:
        return _counterfactual_scenario(game, failure, options, base_dir)
    doc = {
        "rules": _relative(game.path, base_dir),
        "name": f"fuzz: {failure.check} (game {failure.index}, seed {failure.seed})",
        "doc": failure.message,
        "players": failure.players, "seed": failure.seed,
    }
    if options:
        doc["options"] = dict(options)
    steps = [{"play": a} for a in failure.actions]
    offered = re.search(r"'(.*)' is not among|the illegal action '(.*)' changed", failure.message)
    if failure.check == "illegal action" and offered:
        steps.append({"illegal": offered.group(1) or offered.group(2)})  # fails: the engine applies it
    elif failure.check == "termination":
        steps.append({"finish": max_steps})  # fails: the game does not end within max_steps decisions
    elif failure.check not in ("runtime error", "crash", "start"):
        steps.append({"check": "all"})  # the state checks (and the replay) fail here
    doc["steps"] = steps
    head = ("# Written by rulespec fuzz: replays a failing game. Run: rulespec test THIS_FILE\n"
            f"# {failure.check}: {failure.message}\n" + _cause_comment(failure))
    return head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)


def _counterfactual_scenario(game, failure: Failure, options: dict, base_dir: Path,
                             confirm: Optional[Path] = None) -> str:
    """Two scenarios for a counterfactual leak: the game as played, ending with a step that
    states what the viewer saw (it passes), and the same actions from the re-dealt position,
    ending with the same step (it fails while the leak is there, and passes once it is
    fixed).  The leak offers several such steps; with `confirm` (the path the file will have)
    each is tried in turn, and the first that passes as played and fails re-dealt is kept.
    (The scenario's re-deal is the check's start position, but it replays the actions plainly:
    the check also keeps the order of hands in step, so now and then no step is confirmed;
    the file says so, and the replay file reproduces the check exactly.)"""
    import yaml
    d = failure.detail
    pv = f"P{d['viewer'] + 1}"
    head = {"rules": _relative(game.path, base_dir), "players": failure.players, "seed": failure.seed}
    if options:
        head["options"] = dict(options)
    plays = [{"play": a} for a in failure.actions[:d["decision"]]]  # the views differ after these
    order = _start_order(game, failure, options)
    if order is not None:  # the re-deal made before the setup: the setup deals it, and runs as in the check
        redeal = {"start_order": order}
        how = "dealt so by the setup: start_order is the order the cards start in that makes its shuffles deal it"
    else:  # the dealt position relabelled: set as a position (the setup does not run again)
        position = dict(d["position"])
        zones = list(position.get("zones", {}))
        if zones:
            position["rest"] = zones[0]  # every card is placed: the rest zone gets none
        if _asks_inside_a_block(game, failure, options):
            position["resume"] = True  # the setup asks its first question inside a block: it goes on there
        redeal = {"position": position}
        how = "set as a position at the first decision"
    name = f"fuzz: {failure.check} (game {failure.index}, seed {failure.seed})"
    dump = lambda doc: yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)  # noqa: E731

    def text(step: Optional[dict], confirmed: Optional[bool]) -> str:
        last = [step] if step is not None else []
        played = {"name": f"{name}: as played, what {pv} sees", **head,
                  "doc": f"The game as played; the last step is what {pv} sees after {d['decision']} decisions.",
                  "steps": plays + last}
        redealt = {"name": f"{name}: the cards {pv} never saw re-dealt", **head,
                   "doc": (f"The same game with the {d['redealt']} cards {pv} had not seen by decision {d['cut']} "
                           f"re-dealt ({how}); {pv} must see the same as in the game as played. "
                           f"Fails while the leak is there: {failure.message}"),
                   **redeal, "steps": plays + last}
        note = ("" if confirmed is None or confirmed else
                "# NOTE: no step was confirmed to fail in the re-dealt game; rulespec replay reproduces the check.\n")
        return ("# Written by rulespec fuzz: a counterfactual secrecy failure. Run: rulespec test THIS_FILE\n"
                f"# {failure.check}: {failure.message}\n" + _cause_comment(failure) +
                "# The first scenario is the game as played and passes; the second replays the same actions\n"
                f"# after re-dealing the cards {pv} never saw, and fails where {pv} sees something else.\n"
                + note + dump(played) + "---\n" + dump(redealt))

    steps = list(d.get("expect") or [])
    if confirm is None:
        return text(steps[0] if steps else None, None)
    from rulespec.tools.scenario import ScenarioError, load_file, run_scenario
    confirm.write_text(text(None, True), encoding="utf-8")
    try:  # the re-dealt game must replay up to the last step: else no step fails for the leak
        run_scenario(load_file(confirm)[1])
    except Exception:  # noqa: BLE001
        return text(steps[0] if steps else None, False)
    for step in steps:
        candidate = text(step, True)
        confirm.write_text(candidate, encoding="utf-8")
        try:
            as_played, redealt = load_file(confirm)
            run_scenario(as_played)
        except Exception:  # noqa: BLE001 - this step does not hold as played: try the next
            continue
        try:
            run_scenario(redealt)
        except ScenarioError:
            return candidate  # passes as played, fails re-dealt: the leak
        except Exception:  # noqa: BLE001
            continue
    return text(steps[0] if steps else None, False)


def _start_order(game, failure: Failure, options: dict) -> Optional[list]:
    """The re-dealt game's cards in the order they start in (names, or labels where copies
    differ), when the re-deal was made before the setup (secrecy.dealt_again); else None."""
    from .secrecy import dealt_again
    sigma = {a: b for a, b in failure.detail.get("sigma", ())}
    start = game.new_state(players=failure.players, seed=failure.seed, options=dict(options or {}))
    if not sigma or dealt_again(start, game, failure.players, failure.seed, options, sigma) is None:
        return None
    return [start.prog.card_label(start, sigma.get(c, c)) for c in range(start.prog.card_count)]


def _asks_inside_a_block(game, failure: Failure, options: dict) -> bool:
    """Is the game's first decision a question inside a block of the rules (the setup half run)?"""
    start = game.new_state(players=failure.players, seed=failure.seed, options=dict(options or {}))
    return bool(start.frames)


def _cause_comment(failure: Failure) -> str:
    """'# cause: ...' (the failure's cause in rules positions, one line), or nothing."""
    text = (failure.cause or {}).get("text")
    return f"# cause: {' '.join(text.split())}\n" if text else ""


def write_failure(game, failure: Failure, options: dict, max_steps: int, out_dir) -> tuple[Path, Path]:
    """Write NAME.replay.json and NAME.yaml into out_dir; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{_slug(Path(game.path).stem, 20)}-{_slug(failure.check)}-seed{failure.seed}"
    rj, sy = out / f"{stem}.replay.json", out / f"{stem}.yaml"
    rj.write_text(json.dumps(replay_record(game, failure, options, max_steps, out), indent=1) + "\n",
                  encoding="utf-8")
    if failure.check == COUNTERFACTUAL and failure.detail:
        sy.write_text(_counterfactual_scenario(game, failure, options, out, confirm=sy), encoding="utf-8")
    else:
        sy.write_text(scenario_text(game, failure, options, out, max_steps), encoding="utf-8")
    return rj, sy


REPLAY_FIELDS = {"game": str, "rules": str, "players": int, "seed": int, "options": dict, "actions": list}


def read_replay(path) -> dict:
    """Read and validate a replay file (FuzzError with a one-line reason if it is not one)."""
    p = Path(path)
    if p.is_dir():
        raise FuzzError(f"{path} is a directory, not a replay file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FuzzError(f"no replay file at {path}") from None
    except UnicodeDecodeError:
        raise FuzzError(f"{path} is not a replay file (not text)") from None
    return replay_from_text(text, path)


def replay_from_text(text: str, path) -> dict:
    """Validate a replay file's text (`path` names it in the messages): the checks of read_replay."""
    try:
        d = json_loads(text)
    except json.JSONDecodeError as e:
        raise FuzzError(f"{path} is not a replay file (bad JSON at line {e.lineno}: {e.msg})") from None
    if not isinstance(d, dict) or d.get("format") != REPLAY_FORMAT:
        raise FuzzError(f"{path} is not a replay file written by rulespec fuzz")
    for key, t in REPLAY_FIELDS.items():
        if not isinstance(d.get(key), t) or (t is int and isinstance(d.get(key), bool)):
            raise FuzzError(f"{path}: the replay's '{key}' is missing or is not a {t.__name__}")
    if not all(isinstance(a, str) for a in d["actions"]):
        raise FuzzError(f"{path}: the replay's actions must be texts")
    version = d.get("version")
    if version != REPLAY_VERSION or isinstance(version, bool):
        raise FuzzError(f"{path}: a replay file of version {version!r}; this rulespec reads version {REPLAY_VERSION}")
    if "max_steps" in d and (not isinstance(d["max_steps"], int) or isinstance(d["max_steps"], bool)
                             or d["max_steps"] < 1):
        raise FuzzError(f"{path}: the replay's 'max_steps' must be a whole number of at least 1, "
                        f"not {d['max_steps']!r} (a corrupt file?)")
    if d.get("then", "stop") not in ("stop", "first"):
        raise FuzzError(f"{path}: the replay's 'then' is \"stop\" or \"first\", not {d['then']!r}")
    cf = d.get("counterfactual")
    if cf is not None:
        v = cf.get("viewer") if isinstance(cf, dict) else None
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < d["players"]:
            raise FuzzError(f"{path}: the replay's 'counterfactual' must give a 'viewer' seat from 0 to "
                            f"{d['players'] - 1} (a corrupt file?)")
    f = d.get("failure")
    if f is not None and not (isinstance(f, dict) and isinstance(f.get("check"), str)):
        raise FuzzError(f"{path}: the replay's 'failure' is malformed")
    if f is not None and "decisions" in f:
        n = f["decisions"]
        if not isinstance(n, int) or isinstance(n, bool) or n != len(d["actions"]):
            # e.g. a file whose actions were cut: replaying it would wrongly say the failure is gone
            raise FuzzError(f"{path}: the recorded failure came after {n!r} decisions but the file holds "
                            f"{len(d['actions'])} actions (an incomplete or corrupt file)")
    return d


def replay_rules_path(d: dict, replay_path) -> str:
    rules = Path(d["rules"])
    if not rules.is_absolute():
        rules = Path(replay_path).parent / rules
    return os.path.normpath(rules)


def check_replay_game(d: dict, game, path) -> None:
    """The replay must be of this game and of this version of its rules."""
    if d["game"] != game.name:
        raise FuzzError(f"{path} is a replay of {d['game']}, but {game.path} is {game.name}")
    sha = d.get("rules_sha256")
    if sha is not None and sha != game.source_hash:
        raise FuzzError(f"{path} was recorded with a different version of {game.path} "
                        f"(the rules changed since; the recorded actions may no longer apply)")
    model = game.model
    if not model.min_players <= d["players"] <= model.max_players:
        raise FuzzError(f"{path}: a replay for {d['players']} players, but {game.name} is for "
                        f"{model.min_players}-{model.max_players} (a corrupt file?)")


def run_replay(game, d: dict, on_step: Optional[Callable] = None) -> Outcome:
    """Replay a replay file's actions with every check (and the counterfactual secrecy check
    for the seat the file names, if it names one).  A recorded action that is not legal any
    more stops the replay with the failure "replay diverged"."""
    options = {k: game.parse_option(k, v) for k, v in d["options"].items()}
    max_steps = d.get("max_steps") if isinstance(d.get("max_steps"), int) else default_max_steps(game.model)
    diverged: list = []
    pick = text_picker(d["actions"], on_step, diverged, then_first=d.get("then") == "first")
    viewer = (d.get("counterfactual") or {}).get("viewer")
    out = play_game(game, d["players"], d["seed"], options, pick, max_steps, viewer=viewer)
    if diverged and out.failure is None:
        out.failure = ("replay diverged", diverged[0])
    return out


def replay_cause(game, d: dict, out: Outcome, path: Optional[str] = None) -> Optional[dict]:
    """The cause of the failure a replay found (cause.py), for a counterfactual leak or a game
    that does not end; None for the others."""
    from .cause import explain
    if out.failure is None:
        return None
    options = {k: game.parse_option(k, v) for k, v in d["options"].items()}
    max_steps = d.get("max_steps") if isinstance(d.get("max_steps"), int) else default_max_steps(game.model)
    then_first = d.get("then") == "first"
    actions = list(d["actions"]) if then_first else list(out.actions)
    f = Failure(0, d["players"], d["seed"], "", 0, out.failure[0], out.failure[1], list(range(len(actions))),
                actions, then_first=then_first, detail=out.detail)
    return explain(game, f, options, max_steps, path).cause
