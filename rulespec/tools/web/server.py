"""The web server of `rulespec serve` (Starlette, run by uvicorn).

Pages:  /  (start: a new game, a replay, the rulebook),  /game/ID,  /replay/ID,  /rules.
JSON:   POST /api/games  {players, seat, agents, seed, options}  ->  {id, url, token}
        GET  /api/games/ID                                      ->  the human seat's view
        POST /api/games/ID/act  {action, version}               ->  the new view, or {error, view}
        POST /api/replays  {name, text, players?, seed?, options?}  ->  {id, url, steps, token}
        GET  /api/replays/ID?step=K&view=all|SEAT               ->  step K as that viewer sees it

A game or replay answers only the client that made it (its key: a cookie, or a bearer token);
what is refused before a route runs, and the headers of every answer, are in security.py.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from . import pages
from .security import MAX_BODY, Guard, allowed_hosts_for, inline_script_policy, key_digest, new_key, presented_key, read_form, read_json, remember_key
from .sessions import AGENT_KINDS, DEFAULT_MAX_GAMES, GameSession, Store, WebError, open_replay

STATIC = Path(__file__).with_name("static")
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
# The files /static/NAME may serve, listed once: a name is looked up here, never joined to a path.
STATIC_FILES = {p.name: p for p in STATIC.iterdir() if p.is_file() and p.suffix in STATIC_TYPES}
MAX_NAME = 200  # characters of a replay's file name (it is shown, never opened)
MAX_OPTION_TEXT = 100  # characters of an option's name or value


def _shown(value, limit: int = 40) -> str:
    """A value as an error message quotes it: cut short, so that a message stays one short line."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _int(value, what: str) -> int:
    if isinstance(value, bool):
        raise WebError(f"{what} must be a whole number, not {value!r}")
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise WebError(f"{what} must be a whole number, not {_shown(value)}") from None


def parse_options(game, values: dict) -> dict:
    out = {}
    for k, v in values.items():
        if len(str(k)) > MAX_OPTION_TEXT or (isinstance(v, str) and len(v) > MAX_OPTION_TEXT):
            raise WebError(f"option {_shown(k)}: a name or value longer than {MAX_OPTION_TEXT} characters")
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


def _agent_list(agents, players: int) -> list:
    """The agent kinds of seats 0..players-1 from a list, or an object by seat ("1": "random"),
    missing ones random (the human seat's is not read)."""
    if isinstance(agents, dict):
        agents = [agents.get(str(p), "random") for p in range(players)]
    if not isinstance(agents, list):
        raise WebError("agents are a JSON list of agent kinds, one a seat")
    return (agents + ["random"] * players)[:players]


def new_game(game, players, seat, agents, seed, options: dict) -> GameSession:
    players = _int(players, "the player count")
    seat = _int(seat, "the human seat")
    seed = _int(seed, "the seed")
    m = game.model
    if not m.min_players <= players <= m.max_players:
        raise WebError(f"{game.name} is for {m.min_players}-{m.max_players} players, not {players}")
    if not 0 <= seat < players:
        raise WebError(f"the human seat must be one of P1 to P{players}, not P{seat + 1}")
    agents = _agent_list(agents, players)
    for p in range(players):
        if p != seat and (not isinstance(agents[p], str) or agents[p] not in AGENT_KINDS):
            raise WebError(f"unknown agent {_shown(agents[p])} for P{p + 1} (one of {', '.join(AGENT_KINDS)})")
    try:
        return GameSession(game, players, seat, agents, seed, options)
    except ValueError as e:  # a bad option value or player count from the engine
        raise WebError(str(e)) from None


def _form_agents(game, form: dict) -> list:
    """The agent of each seat the start page can show (the player count is checked later)."""
    return [form.get(f"agent_{p}", "random") for p in range(game.model.max_players)]


def _json_options(d: dict) -> dict:
    opts = d.get("options") or {}
    if not isinstance(opts, dict):
        raise WebError("options are a JSON object of option name to value")
    for k, v in opts.items():
        if not isinstance(v, (str, int, bool)):  # a float may be inf; a list or an object is no option value
            raise WebError(f"option {_shown(k)} takes a text, a whole number or true/false, not {type(v).__name__}")
    return opts


def _replay_name(d: dict) -> str:
    name = d.get("name") or "replay"
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise WebError(f"a replay's name is its file's name, a text of at most {MAX_NAME} characters")
    return name


def _optional_int(d: dict, field: str, what: str) -> Optional[int]:
    return None if d.get(field) is None else _int(d[field], what)


def make_app(game, max_games: int = DEFAULT_MAX_GAMES, max_body: int = MAX_BODY,
             allowed_hosts: Optional[frozenset] = allowed_hosts_for("127.0.0.1")) -> Starlette:
    """The server for one loaded game; its games and replays live in ``app.state.store`` (at most
    `max_games`).  A request body may be `max_body` bytes; the Host names it answers to are
    `allowed_hosts` (None: any; see security.allowed_hosts_for)."""
    store = Store(max_games)
    rulebook_cache: list = []

    def error(e: WebError, extra: dict = None) -> JSONResponse:
        return JSONResponse({"error": str(e)} | (extra or {}), status_code=e.status)

    def owner(request: Request) -> str:
        return key_digest(presented_key(request))

    def created(request: Request, session, url: str, extra: dict = None, redirect: bool = False) -> Response:
        """The answer to a new game or replay: it belongs to the request's client key (a new one
        if it has none), which the answer returns and sets as the browser's cookie."""
        key = presented_key(request) or new_key()
        item = store.add(session, key_digest(key))
        url = f"{url}/{item}"
        response = (RedirectResponse(url, status_code=303) if redirect
                    else JSONResponse({"id": item, "url": url, "token": key} | (extra or {})))
        return remember_key(response, request, key)

    def error_page(e: WebError) -> HTMLResponse:
        return HTMLResponse(pages.error_page(game.name, str(e), e.status), status_code=e.status)

    async def start(request: Request):
        return HTMLResponse(pages.start_page(game))

    async def new_from_form(request: Request):
        try:
            form = await read_form(request, max_body)
        except WebError as e:
            return error(e)
        try:
            session = new_game(game, form.get("players", game.model.min_players), form.get("seat", 0),
                               _form_agents(game, form), form.get("seed", 0), _form_options(game, form))
        except WebError as e:
            return HTMLResponse(pages.start_page(game, str(e)), status_code=e.status)
        return created(request, session, "/game", redirect=True)

    async def api_new_game(request: Request):
        try:
            d = await read_json(request, max_body)
            session = new_game(game, d.get("players", game.model.min_players), d.get("seat", 0),
                               d.get("agents") or [], d.get("seed", 0), parse_options(game, _json_options(d)))
        except WebError as e:
            return error(e)
        return created(request, session, "/game")

    async def game_html(request: Request):
        key = request.path_params["id"]
        try:
            store.get(key, "game", owner(request))
        except WebError as e:
            return error_page(e)
        return HTMLResponse(pages.game_page(game, key))

    async def api_game(request: Request):
        try:
            return JSONResponse(store.get(request.path_params["id"], "game", owner(request)).view())
        except WebError as e:
            return error(e)

    async def api_act(request: Request):
        try:
            session = store.get(request.path_params["id"], "game", owner(request))
        except WebError as e:
            return error(e)
        try:
            d = await read_json(request, max_body)
            session.act(d.get("action"), d.get("version"))
        except WebError as e:  # refused: the game is unchanged; the page gets the current view with the reason
            return error(e, {"view": session.view()})
        return JSONResponse(session.view())

    async def api_new_replay(request: Request):
        try:
            d = await read_json(request, max_body)
            text = d.get("text")
            if not isinstance(text, str):
                raise WebError("a replay is posted as {\"name\": FILE NAME, \"text\": ITS TEXT}")
            session = open_replay(game, text, _replay_name(d), _optional_int(d, "players", "the player count"),
                                  _optional_int(d, "seed", "the seed"), _json_options(d))
        except WebError as e:
            return error(e)
        return created(request, session, "/replay", {"steps": session.steps})

    async def replay_html(request: Request):
        key = request.path_params["id"]
        try:
            session = store.get(key, "replay", owner(request))
        except WebError as e:
            return error_page(e)
        return HTMLResponse(pages.replay_page(game, key, session.players))

    async def api_replay(request: Request):
        try:
            session = store.get(request.path_params["id"], "replay", owner(request))
            q = request.query_params
            step = _int(q.get("step", "0"), "the step")
            view = q.get("view", "all")
            viewer = None if view == "all" else _int(view, "the view")
            return JSONResponse(session.view(step, viewer))
        except WebError as e:
            return error(e)

    async def rules(request: Request):
        if not rulebook_cache:
            from rulespec.tools.docs import to_html
            page = pages.rulebook(to_html(game.model), game.name)
            rulebook_cache.append((page, inline_script_policy(page)))
        page, policy = rulebook_cache[0]
        return HTMLResponse(page, headers={"Content-Security-Policy": policy})

    async def static(request: Request):
        path = STATIC_FILES.get(request.path_params["name"])
        if path is None:
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
    ], middleware=[Middleware(Guard, allowed_hosts=allowed_hosts, max_body=max_body)])
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
    # proxy_headers off: no proxy stands in front, so X-Forwarded-* from a client is not believed
    # (it would change the scheme the Origin check compares with)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", proxy_headers=False)
    return uvicorn.Server(config)
