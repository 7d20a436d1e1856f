"""`rulespec serve`: play a game in the browser against agents, step through replays, read the
rulebook.  Needs the ``web`` extra (Starlette and uvicorn): ``pip install 'rulespec[web]'``.

sessions.py holds the games and replays (no web framework), server.py the routes, pages.py the
HTML, static/ the style sheet and the vanilla JavaScript that draws a view from its JSON.
"""
