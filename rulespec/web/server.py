"""The web server of `rulespec serve` (Starlette, run by uvicorn).

Pages:  /  (start: a new game, a replay, the rulebook),  /game/ID,  /replay/ID,  /rules.
JSON:   POST /api/games  {players, seat, agents, seed, options}  ->  {id, url}
        GET  /api/games/ID                                      ->  the human seat's view
        POST /api/games/ID/act  {action, version}               ->  the new view, or {error, view}
        POST /api/replays  {name, text, players?, seed?, options?}  ->  {id, url}
        GET  /api/replays/ID?step=K&view=all|SEAT               ->  step K as that viewer sees it
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from . import pages
from .sessions import AGENT_KINDS, GameSession, Store, WebError, open_replay

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
MAX_BODY = 64 * 1024 * 1024  # an uploaded replay


def _int(value, what: str) -> int:
    if isinstance(value, bool):
        raise WebError(f"{what} must be a whole number, not {value!r}")
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise WebError(f"{what} must be a whole number, not {value!r}") from None


def parse_options(game, values: dict) -> dict:
    out = {}
    for k, v in values.items():
        try:
            out[k] = game.parse_option(k, v)
        except ValueError as e:
            raise WebError(str(e)) from None
    return out


def _form_options(game, form: dict, prefix: str = "opt_") -> dict:
    """The options of an HTML form: an unticked checkbox sends nothing, so it is false."""
    values = {}
    for name, info in game.model.options.items():
        if info.type.name == "bool":
            values[name] = f"{prefix}{name}" in form
        elif f"{prefix}{name}" in form:
            values[name] = form[f"{prefix}{name}"]
    return parse_options(game, values)


def new_game(game, players, seat, agents, seed, options: dict) -> GameSession:
    players = _int(players, "the player count")
    seat = _int(seat, "the human seat")
    seed = _int(seed, "the seed")
    m = game.model
    if not m.min_players <= players <= m.max_players:
        raise WebError(f"{game.name} is for {m.min_players}-{m.max_players} players, not {players}")
    if not 0 <= seat < players:
        raise WebError(f"the human seat must be one of P1 to P{players}, not P{seat + 1}")
    if isinstance(agents, dict):
        agents = [agents.get(str(p), agents.get(p, "random")) for p in range(players)]
    agents = list(agents or []) + ["random"] * players
    for p in range(players):
        if p != seat and agents[p] not in AGENT_KINDS:
            raise WebError(f"unknown agent '{agents[p]}' for P{p + 1} (one of {', '.join(AGENT_KINDS)})")
    try:
        return GameSession(game, players, seat, agents[:players], seed, options)
    except ValueError as e:  # a bad option value or player count from the engine
        raise WebError(str(e)) from None


def make_app(game) -> Starlette:
    """The server for one loaded game; its games and replays live in ``app.state.store``."""
    store = Store()
    rulebook_cache: list = []

    def error(e: WebError, extra: dict = None) -> JSONResponse:
        return JSONResponse({"error": str(e)} | (extra or {}), status_code=e.status)

    async def read_json(request: Request) -> dict:
        body = await request.body()
        if len(body) > MAX_BODY:
            raise WebError("the request is too large", 413)
        try:
            data = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise WebError("the request's body is not JSON") from None
        if not isinstance(data, dict):
            raise WebError("the request's body is a JSON object")
        return data

    async def start(request: Request):
        return HTMLResponse(pages.start_page(game))

    async def new_from_form(request: Request):
        body = (await request.body()).decode("utf-8", "replace")
        form = {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}
        try:
            players = form.get("players", game.model.min_players)
            n = _int(players, "the player count")
            agents = [form.get(f"agent_{p}", "random") for p in range(max(n, 0))]
            session = new_game(game, players, form.get("seat", 0), agents, form.get("seed", 0),
                               _form_options(game, form))
        except WebError as e:
            return HTMLResponse(pages.start_page(game, str(e)), status_code=e.status)
        return RedirectResponse(f"/game/{store.add(session)}", status_code=303)

    async def api_new_game(request: Request):
        try:
            d = await read_json(request)
            opts = d.get("options") or {}
            if not isinstance(opts, dict):
                raise WebError("options are a JSON object of option name to value")
            session = new_game(game, d.get("players", game.model.min_players), d.get("seat", 0),
                               d.get("agents") or [], d.get("seed", 0), parse_options(game, opts))
        except WebError as e:
            return error(e)
        key = store.add(session)
        return JSONResponse({"id": key, "url": f"/game/{key}"})

    async def game_html(request: Request):
        key = request.path_params["id"]
        try:
            store.get(key, "game")
        except WebError as e:
            return HTMLResponse(pages.error_page(game.name, str(e), e.status), status_code=e.status)
        return HTMLResponse(pages.game_page(game, key))

    async def api_game(request: Request):
        try:
            return JSONResponse(store.get(request.path_params["id"], "game").view())
        except WebError as e:
            return error(e)

    async def api_act(request: Request):
        try:
            session = store.get(request.path_params["id"], "game")
        except WebError as e:
            return error(e)
        try:
            d = await read_json(request)
            session.act(d.get("action"), d.get("version"))
        except WebError as e:  # refused: the game is unchanged; the page gets the current view with the reason
            return error(e, {"view": session.view()})
        return JSONResponse(session.view())

    async def api_new_replay(request: Request):
        try:
            d = await read_json(request)
            text, name = d.get("text"), str(d.get("name") or "replay")
            if not isinstance(text, str):
                raise WebError("a replay is posted as {\"name\": FILE NAME, \"text\": ITS TEXT}")
            players = d.get("players")
            seed = d.get("seed")
            opts = d.get("options") or {}
            if not isinstance(opts, dict):
                raise WebError("options are a JSON object of option name to value")
            session = open_replay(game, text, name, None if players is None else _int(players, "the player count"),
                                  None if seed is None else _int(seed, "the seed"), opts)
        except WebError as e:
            return error(e)
        key = store.add(session)
        return JSONResponse({"id": key, "url": f"/replay/{key}", "steps": session.steps})

    async def replay_html(request: Request):
        key = request.path_params["id"]
        try:
            session = store.get(key, "replay")
        except WebError as e:
            return HTMLResponse(pages.error_page(game.name, str(e), e.status), status_code=e.status)
        return HTMLResponse(pages.replay_page(game, key, session.players))

    async def api_replay(request: Request):
        try:
            session = store.get(request.path_params["id"], "replay")
            q = request.query_params
            step = _int(q.get("step", "0"), "the step")
            view = q.get("view", "all")
            viewer = None if view == "all" else _int(view, "the view")
            return JSONResponse(session.view(step, viewer))
        except WebError as e:
            return error(e)

    async def rules(request: Request):
        if not rulebook_cache:
            from ..docs import to_html
            rulebook_cache.append(pages.rulebook(to_html(game.model), game.name))
        return HTMLResponse(rulebook_cache[0])

    async def static(request: Request):
        name = request.path_params["name"]
        path = STATIC / name
        if "/" in name or "\\" in name or path.suffix not in STATIC_TYPES or not path.is_file():
            return Response("not found", status_code=404, media_type="text/plain")
        return Response(path.read_bytes(), media_type=STATIC_TYPES[path.suffix],
                        headers={"Cache-Control": "no-cache"})

    async def favicon(request: Request):
        return Response(status_code=204)

    app = Starlette(routes=[
        Route("/", start),
        Route("/favicon.ico", favicon),
        Route("/new", new_from_form, methods=["POST"]),
        Route("/game/{id}", game_html),
        Route("/replay/{id}", replay_html),
        Route("/rules", rules),
        Route("/static/{name}", static),
        Route("/api/games", api_new_game, methods=["POST"]),
        Route("/api/games/{id}", api_game),
        Route("/api/games/{id}/act", api_act, methods=["POST"]),
        Route("/api/replays", api_new_replay, methods=["POST"]),
        Route("/api/replays/{id}", api_replay),
    ])
    app.state.store = store
    app.state.game = game
    return app


def listen(host: str, port: int):
    """A listening socket (errors as OSError with a readable reason)."""
    import socket
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(addr)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def make_server(app):
    """A uvicorn server for `app`: ``server.run(sockets=[listen(host, port)])``, stopped by
    ``server.should_exit = True``."""
    import uvicorn
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    return uvicorn.Server(config)
