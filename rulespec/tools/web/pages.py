"""The HTML of `rulespec serve`: plain pages, the game and replay views drawn by a little
vanilla JavaScript (static/) from the JSON the server sends.  Nothing is loaded from elsewhere."""
from __future__ import annotations

import json
from html import escape

from .sessions import AGENT_KINDS
from .table import rules_meta


def _page(title: str, body: str, scripts: tuple = (), data: dict = None, meta: dict = None) -> str:
    attrs = "".join(f' data-{k}="{escape(str(v))}"' for k, v in (data or {}).items())
    js = "".join(f'<script src="/static/{s}"></script>' for s in scripts)
    if meta is not None:  # facts of the rules (not of a game): the layout, words and docs, card faces (table.py)
        text = json.dumps(meta).replace("<", "\\u003c")
        js = f'<script type="application/json" id="meta">{text}</script>' + js
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{escape(title)}</title><link rel="stylesheet" href="/static/style.css"></head>\n'
            f'<body{attrs}>\n{body}\n{js}</body></html>\n')


def _nav(game_name: str) -> str:
    return (f'<nav><a href="/">{escape(game_name)}: new game</a> · <a href="/#replay">open a replay</a> · '
            f'<a href="/rules" target="_blank">rulebook</a></nav>')


def _option_field(game, name: str, info) -> str:
    t = info.type
    label = f'<span class="opt-name">{escape(name)}</span>'
    doc = f'<span class="doc">{escape(info.doc)}</span>' if info.doc else ""
    field = f'opt_{escape(name)}'
    if t.name == "bool":
        checked = " checked" if info.default else ""
        return (f'<label class="option"><input type="checkbox" name="{field}" value="true"{checked}> '
                f'{label} {doc}</label>')
    if t.name == "enum":
        members = game.model.enums[t.enum].members
        opts = "".join(f'<option{" selected" if m == info.default else ""}>{escape(m)}</option>' for m in members)
        return f'<label class="option">{label} <select name="{field}">{opts}</select> {doc}</label>'
    if t.name == "int":
        bounds = f' min="{info.values[0]}" max="{info.values[1]}"' if info.values is not None else ""
        return (f'<label class="option">{label} <input type="number" step="1"{bounds} name="{field}" '
                f'value="{escape(str(info.default))}"> {doc}</label>')
    return (f'<label class="option">{label} <input type="text" name="{field}" '
            f'value="{escape(str(info.default))}"> {doc}</label>')


def options_fieldset(game, legend: str) -> str:
    if not game.model.options:
        return ""
    fields = "".join(_option_field(game, n, i) for n, i in game.model.options.items())
    return f'<fieldset><legend>{escape(legend)}</legend>{fields}</fieldset>'


def _players_select(game, name: str) -> str:
    m = game.model
    return (f'<select name="{name}" id="{name}">'
            + "".join(f"<option>{n}</option>" for n in range(m.min_players, m.max_players + 1)) + "</select>")


def start_page(game, message: str = "") -> str:
    m = game.model
    seats = "".join(f'<option value="{p}">P{p + 1}</option>' for p in range(m.max_players))
    agent_rows = "".join(
        f'<tr class="seat-row" data-seat="{p}"><td>P{p + 1}</td><td><select name="agent_{p}">'
        + "".join(f'<option value="{k}">{escape(v)}</option>' for k, v in AGENT_KINDS.items())
        + '</select><span class="you">you</span></td></tr>' for p in range(m.max_players))
    doc = f"<p>{escape(m.doc)}</p>" if m.doc else ""
    err = f'<p class="message error" id="message">{escape(message)}</p>' if message else \
        '<p class="message" id="message" hidden></p>'
    body = f"""
<header><h1>{escape(m.name)}</h1>{_nav(m.name)}</header>
<main class="start">
{doc}{err}
<section>
<h2>New game</h2>
<form method="post" action="/new" id="new-game">
<fieldset><legend>Seats</legend>
<label>Players {_players_select(game, "players")}</label>
<label>You play <select name="seat" id="seat">{seats}</select></label>
<table class="agents"><thead><tr><th>seat</th><th>played by</th></tr></thead><tbody>{agent_rows}</tbody></table>
</fieldset>
{options_fieldset(game, "Options")}
<fieldset><legend>Shuffle</legend><label>Seed <input type="number" name="seed" value="0" step="1"></label></fieldset>
<button type="submit" id="start">Start the game</button>
</form>
</section>
<section id="replay">
<h2>Open a replay</h2>
<p>A replay file written by <code>rulespec fuzz</code> (or by <code>rulespec play</code> for a game that did not
end), or the JSON Lines file of <code>rulespec play --log</code>. Such a log does not record the player
count, seed and options: give the ones the game was played with below (they are checked against the
log's events).</p>
<form id="replay-form">
<label>File <input type="file" name="file" id="replay-file" accept=".json,.jsonl,.txt"></label>
<details><summary>For a <code>play --log</code> file: how it was played</summary>
<label>Players {_players_select(game, "log_players")}</label>
<label>Seed <input type="number" name="log_seed" value="0" step="1"></label>
{options_fieldset(game, "Options")}
</details>
<button type="submit" id="open-replay">Open the replay</button>
</form>
</section>
<section><h2>Rules</h2><p><a href="/rules" id="rules-link">The rulebook</a>, generated from the rules file, with
its phase diagram.</p></section>
</main>"""
    return _page(f"{m.name}: rulespec", body, ("start.js",))


def _board(log_title: str) -> str:
    """The parts view.js fills, shared by a game and a replay: the status, the table (seats around
    it, the centre with the stack, your seat at the bottom), and beside it the actions, the card
    picked, the log and every fact in words (the raw names folded away)."""
    return f"""<section id="status" class="status"></section>
<div class="play-area">
<div class="table-col"><div id="zones" class="felt"></div></div>
<div class="side-col">
<section id="actions-panel" class="actions-panel"></section>
<section id="card-info" class="card-info" hidden></section>
<section><h2>{log_title}</h2><ol id="log" class="log"></ol></section>
<section><h2>Facts</h2><div id="vars"></div></section>
</div>
</div>
</main>"""


def game_page(game, game_id: str) -> str:
    body = f"""
<header><h1>{escape(game.name)}</h1>{_nav(game.name)}</header>
<main class="board" id="board">
<p class="message" id="message" hidden></p>
{_board('Log <span class="small">(as your seat may know it)</span>')}"""
    return _page(f"{game.name}: game", body, ("view.js", "game.js"), {"game-id": game_id}, rules_meta(game))


def replay_page(game, replay_id: str, players: int) -> str:
    views = '<option value="all">everything (omniscient)</option>' + "".join(
        f'<option value="{p}">P{p + 1}\'s view</option>' for p in range(players))
    body = f"""
<header><h1>{escape(game.name)}: replay</h1>{_nav(game.name)}</header>
<main class="board replay" id="board">
<p class="message" id="message" hidden></p>
<section class="status" id="replay-head"></section>
<section class="controls">
<button id="first" title="the start (Home)">|&lt;</button>
<button id="back" title="one decision back (Left arrow)">&lt; back</button>
<span id="step-label"></span>
<button id="forward" title="one decision forward (Right arrow)">forward &gt;</button>
<button id="last" title="the end (End)">&gt;|</button>
<input type="range" id="slider" min="0" value="0">
<label>View <select id="viewer">{views}</select></label>
</section>
<p id="view-note" class="view-note"></p>
{_board("Log")}"""
    return _page(f"{game.name}: replay", body, ("view.js", "replay.js"), {"replay-id": replay_id},
                 rules_meta(game))


def error_page(game_name: str, message: str, status: int) -> str:
    body = (f'<header><h1>{escape(game_name)}</h1>{_nav(game_name)}</header>'
            f'<main><p class="message error" id="message">{escape(message)}</p></main>')
    return _page(f"{game_name}: error {status}", body)


def rulebook(html_text: str, game_name: str) -> str:
    """The page of `rulespec doc --format html`, with a way back to the server's pages."""
    back = (f'<nav style="font-family:system-ui,sans-serif;margin-bottom:1em"><a href="/">{escape(game_name)}: '
            f'play</a></nav>')
    i = html_text.find("<body>")
    return html_text if i < 0 else html_text[:i + 6] + "\n" + back + html_text[i + 6:]
