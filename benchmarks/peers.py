"""Microseconds per decision of every shipped game next to hand-written engines, in one run.

    python benchmarks/peers.py [--seconds S] [--games-dir games] [--engines compiled,interpreted] [--only GAME,...]

Random players through each engine's public API:
- rulespec: ``rulespec.load``, ``new_state``, ``sample_action`` (the action
  ``legal_actions()[rng.randrange(count)]`` would pick, without listing every action: Hold'em's
  'raise to x' stays one range), ``apply``;
- RLCard's Python Dou Dizhu (``rlcard.games.doudizhu.game.DoudizhuGame``: ``init_game``, ``step``
  with a random legal action);
- OpenSpiel's C++ Dou Dizhu through ``pyspiel`` (``new_initial_state``, chance outcomes sampled,
  ``legal_actions``, ``apply_action``).
Install the peers with ``pip install 'rulespec[peers]'``; a peer that is not installed is left out
of the table.  Absolute figures drift with the machine's load; the ratios are the figure.  Each
engine plays whole games for about S seconds in all (default 10), in R turns (``--rounds``,
default 5) taken one engine after the other, so that a slower or faster spell of the machine
falls on every engine alike; the time is the process's CPU time.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The shipped games, the player count each is measured at, and the options (Gin Rummy and Uno:
# one hand, as `rulespec fuzz` plays them; a whole match is thousands of decisions of the same kind).
GAMES = [("chuhan.rules", 2, {}), ("charuma.rules", 4, {}), ("crazy_eights.rules", 4, {}), ("sanguosha.rules", 6, {}),
         ("blackjack.rules", 4, {}), ("cribbage.rules", 2, {}), ("durak.rules", 4, {}), ("euchre.rules", 4, {}),
         ("gin_rummy.rules", 2, {"target": 1}), ("hearts.rules", 4, {}), ("holdem.rules", 6, {}),
         ("president.rules", 4, {}), ("scopa.rules", 2, {}), ("skat.rules", 3, {}), ("spades.rules", 4, {}),
         ("uno.rules", 4, {"target": 1})]
ENGINES = ("compiled", "interpreted")


class Timer:
    """An engine's games played in turns: (us/decision, games, decisions) over all its turns."""

    def __init__(self, play_one):
        self.play_one = play_one
        self.seconds = 0.0
        self.games = self.decisions = 0

    def turn(self, seconds: float) -> None:
        """Play whole games (play_one(seed) -> decisions) for about `seconds` of CPU time."""
        t0 = time.process_time()
        games = 0
        while time.process_time() - t0 < seconds or games == 0:
            self.decisions += self.play_one(self.games)
            self.games += 1
            games += 1
        self.seconds += time.process_time() - t0

    def result(self) -> tuple[float, int, int]:
        return self.seconds / max(1, self.decisions) * 1e6, self.games, self.decisions


def time_games(play_one, seconds: float) -> tuple[float, int, int]:
    """Play games for about `seconds` in one turn: (us/decision, games, decisions)."""
    timer = Timer(play_one)
    timer.turn(seconds)
    return timer.result()


def rulespec_player(path: str, players: int, options: dict = None, engine: str = "compiled"):
    import rulespec
    game = rulespec.load(path, engine=engine)

    def play_one(seed: int) -> int:
        st = game.new_state(players=players, seed=seed, options=options)
        rng = random.Random(seed)
        n = 0
        while not st.is_terminal():
            st.apply(st.sample_action(rng))  # legal_actions()[rng.randrange(count)], without listing them all
            n += 1
        return n
    return play_one


def rlcard_player():
    from rlcard.games.doudizhu.game import DoudizhuGame

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        game = DoudizhuGame()
        game.np_random.seed(seed)
        state, _ = game.init_game()
        n = 0
        while not game.is_over():
            state, _ = game.step(rng.choice(state["actions"]))
            n += 1
        return n
    return play_one


def openspiel_player():
    import pyspiel
    game = pyspiel.load_game("dou_dizhu")

    def play_one(seed: int) -> int:
        rng = random.Random(seed)
        st = game.new_initial_state()
        n = 0
        while not st.is_terminal():
            if st.is_chance_node():
                outcomes, probs = zip(*st.chance_outcomes())
                st.apply_action(rng.choices(outcomes, probs)[0])
                continue
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n
    return play_one


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="time each engine plays games for (default 10)")
    ap.add_argument("--rounds", type=int, default=5, help="turns each engine's time is split into (default 5)")
    ap.add_argument("--games-dir", default=str(ROOT / "games"))
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help="the rulespec engines to measure, comma-separated (default: compiled,interpreted)")
    ap.add_argument("--only", default=None, metavar="GAME,...",
                    help="measure only these games (file names without .rules, e.g. chuhan,sanguosha)")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        ap.error("--rounds must be at least 1 and --seconds more than 0")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if not engines or any(e not in ENGINES for e in engines):
        ap.error(f"--engines takes {' and/or '.join(ENGINES)}")
    only = {g.strip() for g in args.only.split(",")} if args.only else None
    timers = {}
    for name, make in (("RLCard Dou Dizhu (Python)", rlcard_player), ("OpenSpiel Dou Dizhu (C++)", openspiel_player)):
        try:
            timers[name] = Timer(make())
        except ImportError:
            print(f"{name}: not installed (pip install 'rulespec[peers]')", file=sys.stderr)
    peer_names = list(timers)
    for file, players, options in GAMES:
        path = Path(args.games_dir) / file
        if path.exists() and (only is None or path.stem in only):
            for engine in engines:
                timers[f"{file} ({players}p) {engine}"] = Timer(rulespec_player(str(path), players, options, engine))
    for _ in range(args.rounds):
        for timer in timers.values():
            timer.turn(args.seconds / args.rounds)
    peers = {name: timers[name].result() for name in peer_names}
    rows = [(name, t.result()) for name, t in timers.items() if name not in peers]
    rl = peers.get("RLCard Dou Dizhu (Python)")
    osp = peers.get("OpenSpiel Dou Dizhu (C++)")
    print(f"| engine | us/decision | games | decisions | / RLCard | / OpenSpiel |")
    print(f"|---|---:|---:|---:|---:|---:|")
    for name, (us, g, d) in list(peers.items()) + rows:
        r1 = f"{us / rl[0]:.2f}x" if rl else "-"
        r2 = f"{us / osp[0]:.0f}x" if osp else "-"
        print(f"| {name} | {us:.1f} | {g} | {d} | {r1} | {r2} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
