"""How `rulespec serve` answers many clients at once (docs/web.md, "Under load").

    python benchmarks/web_load.py [--clients 20] [--games 3] [--rules games/crazy_eights.rules]
                                  [--players 2] [--url http://127.0.0.1:8000]

Starts `rulespec serve RULES --port 0` in its own process (or uses --url), then runs CLIENTS
threads at once, each a client with its own key that plays GAMES whole games through the JSON
API: it creates a game (seat P1, random agents in the others) and posts random legal actions
until the game ends.  Prints the requests made, the errors (there should be none), and the
wall-clock latency of a request as a client sees it: median, 99th percentile and maximum.
"""
from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
MAX_DECISIONS = 5000  # of one game's human seat: a game that goes on longer is an error


class LoadClient:
    """One client: its own connection and key; every request's latency in `latencies`."""

    def __init__(self, base: str):
        u = urlsplit(base)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.token = None
        self.latencies: list[float] = []

    def call(self, path: str, data=None) -> tuple:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        body = None
        if data is not None:
            body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
        t0 = time.perf_counter()
        self.conn.request("POST" if data is not None else "GET", path, body=body, headers=headers)
        r = self.conn.getresponse()
        raw = r.read()
        self.latencies.append(time.perf_counter() - t0)
        return r.status, json.loads(raw)

    def play(self, players: int, seed: int, rng: random.Random) -> None:
        """One whole game; raises AssertionError on an unexpected answer."""
        status, made = self.call("/api/games", {"players": players, "seat": 0, "seed": seed,
                                                "agents": ["you"] + ["random"] * (players - 1)})
        assert status == 200, made
        self.token = made.get("token")  # a server before keys (for a before/after figure) has none
        status, view = self.call(f"/api/games/{made['id']}")
        for _ in range(MAX_DECISIONS):
            assert status == 200 and not view["error"], view
            if view["observation"]["terminal"]:
                return
            action = rng.choice(view["observation"]["legal_actions"])
            status, view = self.call(f"/api/games/{made['id']}/act", {"action": action, "version": view["version"]})
        raise AssertionError(f"the game did not end within {MAX_DECISIONS} decisions")


def run(base: str, clients: int = 20, games: int = 3, players: int = 2, seed: int = 0) -> dict:
    """`clients` threads at once, each playing `games` games on the server at `base`."""
    errors: list[str] = []
    finished: list[int] = []
    everyone = [LoadClient(base) for _ in range(clients)]
    barrier = threading.Barrier(clients)

    def work(i: int, client: LoadClient) -> None:
        rng = random.Random(seed * 1000 + i)
        barrier.wait()
        try:
            for g in range(games):
                client.play(players, seed + i * games + g, rng)
            finished.append(i)
        except Exception as e:  # noqa: BLE001 (reported, not hidden)
            errors.append(f"client {i}: {type(e).__name__}: {str(e)[:200]}")
        finally:
            client.conn.close()

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(everyone)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = sorted(x * 1000 for c in everyone for x in c.latencies)
    return {"clients": clients, "games": clients * games, "finished": len(finished), "errors": errors,
            "requests": len(ms), "wall_s": wall, "p50_ms": statistics.median(ms) if ms else 0.0,
            "p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))] if ms else 0.0, "max_ms": ms[-1] if ms else 0.0}


def report(r: dict) -> str:
    return (f"{r['clients']} clients, {r['finished']}/{r['clients']} finished, {r['games']} games, "
            f"{r['requests']} requests in {r['wall_s']:.1f} s ({r['requests'] / r['wall_s']:.0f}/s), "
            f"{len(r['errors'])} errors; latency p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
            f"max {r['max_ms']:.1f} ms")


def start_server(rules: str, max_games: int) -> tuple:
    """`rulespec serve` on a free port, in its own process: (process, base URL)."""
    proc = subprocess.Popen([sys.executable, "-m", "rulespec.tools.cli", "serve", rules, "--port", "0",
                             "--max-games", str(max_games)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    line = proc.stdout.readline()  # "Serving NAME (FILE) at http://127.0.0.1:PORT/  (Ctrl-C stops)"
    if " at http" not in line:
        proc.kill()
        sys.exit(f"web_load: rulespec serve did not start: {line!r}")
    return proc, line.split(" at ", 1)[1].split()[0].rstrip("/")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--games", type=int, default=3, help="games each client plays, one after another")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--rules", default=str(ROOT / "games" / "crazy_eights.rules"))
    ap.add_argument("--url", help="a running server's address (default: start one)")
    args = ap.parse_args(argv)
    proc = None
    base = args.url
    if base is None:
        proc, base = start_server(args.rules, max(200, args.clients * args.games))
    try:
        r = run(base, args.clients, args.games, args.players)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
    print(f"{Path(args.rules).name}, {args.players} players: {report(r)}")
    for e in r["errors"][:10]:
        print("  " + e)
    return 1 if r["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
