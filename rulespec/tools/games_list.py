"""`rulespec games`: the shipped games, each with its players, its options and their defaults, and
one line about it (the first sentence of the game's own `doc`), as text or as JSON."""
from __future__ import annotations

import re
import textwrap

from rulespec.lang.errors import RulesError

from .shipped_games import games_folder, rulebook, shipped_games

ABOUT_MAX = 120  # characters of the game's doc shown: its first sentence, cut at a word if longer


def option_text(value) -> str:
    """An option's value as `--option NAME=VALUE` takes it."""
    return {True: "true", False: "false"}.get(value, str(value)) if isinstance(value, bool) else str(value)


def first_sentence(doc: str | None) -> str:
    """The first sentence of a doc string (up to ABOUT_MAX characters, cut at a word)."""
    text = " ".join((doc or "").split())
    m = re.search(r"[.!?](?=\s+[A-Z0-9\"(])", text)
    sentence = text[:m.end()] if m else text
    if len(sentence) > ABOUT_MAX:
        sentence = sentence[:ABOUT_MAX].rsplit(" ", 1)[0].rstrip(",;:(") + " ..."
    return sentence


def describe(name: str, path) -> dict:
    """One shipped game as plain data (the model from the cache when it was checked before)."""
    from rulespec.lang.checker import check_file
    record = {"name": name, "path": str(path), "rulebook": None}
    page = rulebook(name)
    if page is not None:
        record["rulebook"] = str(page)
    try:
        m = check_file(path)
    except RulesError as e:  # never expected of a shipped game; said, not raised
        record.update(game=None, error=str(e))
        return record
    record.update(game=m.name, players=[m.min_players, m.max_players],
                  options={o.name: o.default for o in m.options.values()}, about=first_sentence(m.doc))
    return record


def describe_all() -> list[dict]:
    return [describe(name, path) for name, path in shipped_games().items()]


def players_text(players: list) -> str:
    lo, hi = players
    return str(lo) if lo == hi else f"{lo}-{hi}"


def table(records: list[dict], width: int = 100) -> str:
    """The games as a text table: name, players, and the game's name and first sentence; the
    options with their defaults on the lines under it."""
    if not records:
        return "No shipped games were found beside this rulespec."
    name_w = max(len("name"), *(len(r["name"]) for r in records))
    left = name_w + 2 + len("players") + 2
    text_w = max(40, width - left)
    lines = [f"{'name':<{name_w}}  players  game"]
    for r in records:
        if r.get("game") is None:
            lines.append(f"{r['name']:<{name_w}}  {'?':<7}  does not check: {r['error']}")
            continue
        head = f"{r['game']}: {r['about']}" if r["about"] else r["game"]
        body = textwrap.wrap(head, text_w) or [""]
        opts = " ".join(f"{k}={option_text(v)}" for k, v in r["options"].items())
        body += textwrap.wrap(f"options: {opts}" if opts else "options: none", text_w, subsequent_indent="  ")
        lines.append(f"{r['name']:<{name_w}}  {players_text(r['players']):<7}  {body[0]}")
        lines += [" " * left + b for b in body[1:]]
    example = records[0]["name"]
    lines.append("")
    lines += textwrap.wrap(f"Name a game where a rules file is asked for: rulespec play {example}, rulespec doc "
                           f"{example}, rulespec serve {example}; rulespec.load(\"{example}\") in Python. Set an "
                           f"option with --option NAME=VALUE.", width, break_on_hyphens=False)
    lines.append(f"The rules files: {games_folder()}")
    return "\n".join(lines)


def to_json(records: list[dict]) -> str:
    import json
    return json.dumps(records, indent=1, ensure_ascii=False) + "\n"
