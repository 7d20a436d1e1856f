"""How the engine writes players and keeps texts apart (a leaf module)."""
from __future__ import annotations


def player_name(p) -> str:
    return "nobody" if p is None else f"P{p + 1}"


def unique(texts: list) -> list:
    """The texts with " #2", " #3", ... added to repeats, so that every option reads differently."""
    seen: dict = {}
    out = []
    for t in texts:
        if t in seen:
            seen[t] += 1
            t = f"{t} #{seen[t]}"
        else:
            seen[t] = 1
        out.append(t)
    return out
