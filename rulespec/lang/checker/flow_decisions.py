"""Decisions inside a block for the flow check (flow.py): a question put to a player (`ask`,
`choose`) is seen by everyone when it is put, before what the block does after the answer.

So cards the block shows everyone later (a move into a public zone, a `reveal`) make public only
the reads whose effects are seen at or after the showing: an effect before the question -- the
question itself too, whose asking is public -- is seen while those cards are still hidden.
"""
from __future__ import annotations

from .. import ast as A
from .flow_cond import nested


def asks(s) -> bool:
    """Does the statement (or a block inside it) put a question to a player?"""
    return isinstance(s, A.Choose) or any(asks(x) for b in nested(s) for x in b.stmts)


def prefix_ends(stmts) -> list:
    """For each statement, how many of stmts have run by the next question after it (or by the
    block's end): what those show is shown when this statement's effects are seen."""
    out, end = [0] * len(stmts), len(stmts)
    for i in range(len(stmts) - 1, -1, -1):
        if asks(stmts[i]):
            end = i + 1
        out[i] = end
    return out


def start(span) -> tuple:
    return (span[0], span[1])


class Showings:
    """Where each read's cards are shown to everyone: (declaration, position of the statement)."""

    def __init__(self):
        self.at: dict = {}      # read -> {(decl, position)}
        self.asks: dict = {}    # decl -> positions of its questions

    def show(self, reads, decl, pos) -> None:
        for r in reads:
            self.at.setdefault(r, set()).add((decl, pos))

    def ask(self, decl, pos) -> None:
        self.asks.setdefault(decl, set()).add(pos)

    def shown_before(self, read, decl, pos) -> bool:
        """Is read's card shown by the time an effect at pos (in decl) is seen: shown in another
        declaration, or with no question of this one from pos up to the showing?"""
        for d, m in self.at.get(read, ()):
            if d != decl or not any(pos <= q < m for q in self.asks.get(decl, ())):
                return True
        return False
