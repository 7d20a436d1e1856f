"""The one random generator of a game state: SplitMix64.

Its whole state is one integer, so it survives a JSON round trip exactly and the
same seed gives the same game on every Python version.
"""
from __future__ import annotations

MASK = (1 << 64) - 1


def next_u64(state: int) -> tuple[int, int]:
    """Advance the generator; return (new_state, 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def seed_state(seed: int) -> int:
    return int(seed) & MASK


# While a list is set here, every shuffle appends the shuffled cards to it (the secrecy check
# learns which cards were shuffled together, and so are alike to every player: see secrecy.py).
shuffle_recorder: list | None = None

# While set, every pick of one item at random (`random(list)`, a hidden card taken at random)
# takes the index pick_steer(items, index drawn, site) instead of the index drawn (site: the
# rules' (path, span) of the `random`, or None).  The secrecy check
# replays a re-deal with the chance outcome the game as played had (secrecy.py).  The number is
# drawn as always, so the generator's state is the same whichever item is taken.
pick_steer = None


class Rng:
    """A view of the generator over a state object that holds the integer in ``.rng``."""

    __slots__ = ()

    @staticmethod
    def below(st, n: int) -> int:
        """A uniform integer in [0, n) (rejection sampling, so no modulo bias)."""
        if n <= 0:
            raise ValueError("empty range")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            st.rng, r = next_u64(st.rng)
            if r < limit:
                return r % n

    @staticmethod
    def pick(st, items: list, site=None):
        """One of the items (not empty), uniformly (see pick_steer)."""
        i = Rng.below(st, len(items))
        if pick_steer is not None:
            i = pick_steer(items, i, site)
        return items[i]

    @staticmethod
    def shuffle(st, items: list) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = Rng.below(st, i + 1)
            items[i], items[j] = items[j], items[i]
        if shuffle_recorder is not None:
            shuffle_recorder.append(list(items))
