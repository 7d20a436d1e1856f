"""The games that ship with rulespec, and naming one where a rules file is asked for.

The shipped rules files are package data: in an installed wheel they sit in ``rulespec/games/``
(their rulebooks in ``rulespec/games/docs/``); in a checkout (and its editable install) they are the
project's ``games/`` and ``docs/games/`` beside the package (pyproject.toml maps the one onto the
other).  The engine loads paths only; the command line and ``rulespec.load`` let a person name a
shipped game instead, through ``resolve``.
"""
from __future__ import annotations

import os
from pathlib import Path

from rulespec.lang.errors import RulesError

SUFFIX = ".rules"
_PACKAGE = Path(__file__).resolve().parent.parent  # the rulespec package's folder


def _first_folder(*candidates: Path) -> Path | None:
    return next((c for c in candidates if c.is_dir()), None)


def games_folder() -> Path | None:
    """Where the shipped rules files are: the installed package's data, else the checkout's games/."""
    checkout = _PACKAGE.parent
    return _first_folder(_PACKAGE / "games",
                         *([checkout / "games"] if (checkout / "pyproject.toml").is_file() else []))


def docs_folder() -> Path | None:
    """Where the shipped games' rulebooks (Markdown, made by `rulespec doc`) are."""
    checkout = _PACKAGE.parent
    return _first_folder(_PACKAGE / "games" / "docs",
                         *([checkout / "docs" / "games"] if (checkout / "pyproject.toml").is_file() else []))


def shipped_games() -> dict[str, Path]:
    """Every shipped game's name (its file's name without .rules) and file, by name."""
    folder = games_folder()
    if folder is None:
        return {}
    return {p.name[:-len(SUFFIX)]: p for p in sorted(folder.glob("*" + SUFFIX)) if p.is_file()}


def rulebook(name: str) -> Path | None:
    """The shipped rulebook of a shipped game, if there is one."""
    folder = docs_folder()
    page = folder / f"{name}.md" if folder is not None else None
    return page if page is not None and page.is_file() else None


def _as_name(text: str) -> str | None:
    """A bare game name ("NAME", "NAME.rules", any case) as the key of shipped_games, or
    None for anything with a folder in it."""
    if not text or "/" in text or os.sep in text or (os.altsep and os.altsep in text):
        return None
    name = text[:-len(SUFFIX)] if text.lower().endswith(SUFFIX) else text
    return name.lower()


def resolve(name_or_path):
    """The rules file that a command-line argument or `rulespec.load` names.

    A path to something that exists (other than a folder) wins and comes back as it was given;
    else a shipped game's name, with or without .rules, gives that game's file (an absolute path);
    a folder that is no game's name comes back as given (reading it says it is a folder).
    Anything else is a RulesError: for a bare name, one that lists the shipped games and suggests
    the closest; for a path, "no such file" as ever (naming the shipped game its file name is)."""
    if not isinstance(name_or_path, (str, os.PathLike)):  # not a name: the engine says what is wrong
        return name_or_path
    text = os.fspath(name_or_path)
    if os.path.exists(text) and not os.path.isdir(text):
        return name_or_path
    games = shipped_games()
    name = _as_name(text)
    if name in games:
        return str(games[name])
    if os.path.isdir(text):
        return name_or_path
    raise _unknown(text, name, games)


def _unknown(text: str, name: str | None, games: dict) -> RulesError:
    from rulespec.lang.ast import NOWHERE
    from rulespec.lang.diagnostics import Diagnostic, did_you_mean
    listed = f"The shipped games: {', '.join(games)} (rulespec games describes them)" if games \
        else "No shipped games were found beside this rulespec"
    if name is None:  # a path, said as ever; unless it is one into a checkout this is not run from
        stem = _as_name(Path(text).name)
        hint = (f"'{stem}' is a shipped game: name it alone ('{stem}') to use the copy installed with rulespec"
                if stem in games else None)
        return RulesError([Diagnostic("error", "no such file", text, NOWHERE, hint, code="unreadable-file")])
    close = did_you_mean(name, games)
    return RulesError([Diagnostic("error", "no such file, and no shipped game of that name", text, NOWHERE,
                                  f"{close} {listed}" if close else listed, code="unreadable-file")])
