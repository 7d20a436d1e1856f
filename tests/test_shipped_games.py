"""The shipped games: package data (pyproject.toml), named instead of a path on the command line
and to rulespec.load (rulespec/tools/shipped_games.py), listed by `rulespec games`.

Building and installing the wheel is .ci/wheel-check's job (make wheel-check; about half a minute
with the package index at hand): these tests check the same promises from the checkout."""
from __future__ import annotations

import contextlib
import io
import json
import tomllib
from pathlib import Path

import pytest

import rulespec
from rulespec.lang.errors import RulesError
from rulespec.tools import shipped_games as S
from rulespec.tools.cli import main
from rulespec.tools.games_list import first_sentence, table

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p.name[:-len(".rules")] for p in (ROOT / "games").glob("*.rules"))


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------- where the games are
def test_every_game_of_the_checkout_is_shipped_with_its_rulebook():
    shipped = S.shipped_games()
    assert list(shipped) == GAMES
    assert all(shipped[g] == ROOT / "games" / f"{g}.rules" for g in GAMES)
    assert all(S.rulebook(g) == ROOT / "docs" / "games" / f"{g}.md" for g in GAMES)


def _site_packages(tmp_path: Path) -> Path:
    """A rulespec package as a wheel installs it: the games and rulebooks inside, no checkout around."""
    package = tmp_path / "site-packages" / "rulespec"
    (package / "games" / "docs").mkdir(parents=True)
    (package / "games" / "mygame.rules").write_text("x")
    (package / "games" / "docs" / "mygame.md").write_text("# My game")
    return package


def test_an_installed_package_finds_its_games_inside_it(tmp_path, monkeypatch):
    package = _site_packages(tmp_path)
    (tmp_path / "site-packages" / "games").mkdir()  # some other package's folder: not looked at
    (tmp_path / "site-packages" / "games" / "other.rules").write_text("x")
    monkeypatch.setattr(S, "_PACKAGE", package)
    assert S.shipped_games() == {"mygame": package / "games" / "mygame.rules"}
    assert S.rulebook("mygame") == package / "games" / "docs" / "mygame.md"
    assert S.resolve("mygame") == str(package / "games" / "mygame.rules")


def test_without_games_an_unknown_name_says_none_were_found(tmp_path, monkeypatch):
    monkeypatch.setattr(S, "_PACKAGE", tmp_path / "rulespec")
    assert S.shipped_games() == {}
    with pytest.raises(RulesError) as e:
        S.resolve("mygame")
    assert "hint: No shipped games were found beside this rulespec" in e.value.render()


# ---------------------------------------------------------------------- resolve
def test_a_name_with_or_without_rules_names_the_shipped_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("chuhan", "chuhan.rules", "ChuHan", "CHUHAN.RULES"):
        assert S.resolve(name) == str(ROOT / "games" / "chuhan.rules"), name


def test_a_path_that_exists_wins_and_comes_back_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chuhan").write_text("my own file")
    (tmp_path / "chuhan.rules").write_text("my own file")
    assert S.resolve("chuhan") == "chuhan"
    assert S.resolve("chuhan.rules") == "chuhan.rules"
    given = tmp_path / "chuhan.rules"
    assert S.resolve(given) is given  # a Path stays the very object: rulespec.load(path) as before


def test_a_folder_called_like_a_game_is_not_a_rules_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "charuma").mkdir()
    assert S.resolve("charuma") == str(ROOT / "games" / "charuma.rules")
    (tmp_path / "notagame").mkdir()
    assert S.resolve("notagame") == "notagame"  # reading it says it is a folder, as ever


def test_an_unknown_name_lists_the_games_and_suggests_the_closest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesError) as e:
        S.resolve("chuhna")
    text = e.value.render()
    assert text.startswith("chuhna:1:1: error: no such file, and no shipped game of that name")
    assert "did you mean 'chuhan'?" in text
    assert ", ".join(GAMES) in text


def test_a_missing_path_to_a_game_says_to_name_the_game(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RulesError) as e:
        S.resolve("games/charuma.rules")  # the README's path, outside a checkout
    text = e.value.render()
    assert text.startswith("games/charuma.rules:1:1: error: no such file")
    assert "'charuma' is a shipped game" in text
    with pytest.raises(RulesError) as e:
        S.resolve("mine/nothing.rules")  # a path to no game: said as ever
    assert e.value.render() == "mine/nothing.rules:1:1: error: no such file [unreadable-file]"


def test_rulespec_load_takes_a_shipped_game_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    game = rulespec.load("chuhan")
    assert game.name == "Chu Han" and game.path == str(ROOT / "games" / "chuhan.rules")
    state = game.new_state(players=2, seed=1)
    assert state.legal_actions()
    with pytest.raises(RulesError, match="no such file, and no shipped game"):
        rulespec.load("chuhna")


def test_rulespec_load_of_a_path_keeps_the_path():
    path = ROOT / "games" / "charuma.rules"
    assert rulespec.load(path).path == str(path)
    assert rulespec.load("games/charuma.rules" if Path("games/charuma.rules").is_file() else path).name == "Charuma"


# ---------------------------------------------------------------------- the command line
def test_commands_take_a_game_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("check", "charuma", "uno.rules")
    assert code == 0, err
    assert out.splitlines() == [f"{ROOT / 'games' / 'charuma.rules'}: ok (Charuma: 6 phases, 3 actions, 40 cards)",
                                f"{ROOT / 'games' / 'uno.rules'}: ok (Uno: 4 phases, 4 actions, 108 cards)"]
    code, out, err = run("play", "charuma", "--players", 3, "--seed", 1)
    assert code == 0 and "Final scores: " in out, err
    code, out, err = run("doc", "chuhan")
    assert code == 0 and "# Chu Han" in out
    # its header says the command as typed, not the installed file's absolute path
    assert out.startswith("<!-- generated by `rulespec doc chuhan`: do not edit by hand -->"), out[:200]
    code, out, err = run("graph", "skat")
    assert code == 0 and out.startswith("flowchart")


def test_a_shipped_game_under_the_current_folder_is_shown_relative(monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run("check", "charuma")
    assert code == 0 and out.startswith("games/charuma.rules: ok"), err


def test_an_unknown_game_on_the_command_line_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["play", "chrauma"], ["check", "chrauma"], ["doc", "chrauma"], ["stats", "chrauma"],
                 ["replay", "x.replay.json", "--rules", "chrauma"]):
        code, out, err = run(*argv)
        assert code == 1, argv
        assert "chrauma:1:1: error: no such file, and no shipped game of that name" in err, argv
        assert "did you mean 'charuma'?" in err and "Traceback" not in err, argv


def test_rulespec_games_lists_name_players_options_and_a_line():
    code, out, err = run("games")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["name", "players", "game"]
    for name in GAMES:
        assert any(line.startswith(name + " ") for line in lines), name
    chuhan = next(i for i, line in enumerate(lines) if line.startswith("chuhan "))
    assert lines[chuhan].split()[1] == "2"
    assert "Chu Han: Two rival clans race to found China's first imperial dynasty." in lines[chuhan]
    assert lines[chuhan + 1].strip() == "options: events=false"
    assert any(line.startswith("sanguosha ") and line.split()[1] == "4-10" for line in lines)
    assert f"The rules files: {ROOT / 'games'}" in out


def test_rulespec_games_as_json():
    code, out, err = run("games", "--format", "json")
    assert code == 0, err
    records = json.loads(out)
    assert [r["name"] for r in records] == GAMES
    charuma = next(r for r in records if r["name"] == "charuma")
    assert charuma == {"name": "charuma", "path": str(ROOT / "games" / "charuma.rules"),
                       "rulebook": str(ROOT / "docs" / "games" / "charuma.md"), "game": "Charuma",
                       "players": [2, 5], "options": {"bidding": True},
                       "about": "Bid your points for face-up groups of cards, then win tricks with them."}


def test_a_game_that_does_not_check_is_listed_with_its_error(tmp_path, monkeypatch):
    package = _site_packages(tmp_path)
    (package / "games" / "mygame.rules").write_text("game {")
    monkeypatch.setattr(S, "_PACKAGE", package)
    code, out, err = run("games")
    assert code == 1
    assert "mygame" in out and "does not check: " in out and "Traceback" not in out + err


def test_first_sentence():
    assert first_sentence("One. Two.") == "One."
    assert first_sentence("As on pagat.com. 36 cards.") == "As on pagat.com."
    assert first_sentence("Ends with no stop") == "Ends with no stop"
    assert first_sentence(None) == ""
    long = first_sentence("word " * 100)
    assert len(long) <= 125 and long.endswith(" ...")
    assert table([]).startswith("No shipped games")


# ---------------------------------------------------------------------- packaging
def test_pyproject_ships_every_package_and_the_games():
    """The packages are listed by hand (two are data folders mapped from games/ and docs/games/):
    every folder with an __init__.py must be in the list, and the games must map where they are."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    folders = {".".join(p.parent.relative_to(ROOT).parts) for d in ("rulespec", "interpreter")
               for p in (ROOT / d).rglob("__init__.py")}
    assert set(tool["packages"]) == folders | {"rulespec.games", "rulespec.games.docs"}
    assert tool["package-dir"] == {"rulespec.games": "games", "rulespec.games.docs": "docs/games"}
    assert tool["package-data"]["rulespec.games"] == ["*.rules"]
    assert tool["package-data"]["rulespec.games.docs"] == ["*.md"]
    assert not (ROOT / "rulespec" / "games").exists()  # else the installed layout would hide the checkout's
