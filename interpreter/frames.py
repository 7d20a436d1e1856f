"""What a running block is made of: steps, the SUSPEND signal, and the engine's own blocks.

A leaf module: blocks.py compiles statements into CBlocks, machine.py runs them, and both (with
events.py and choices.py) share these names without importing each other.
"""
from __future__ import annotations

from typing import Optional

import attrs

from rulespec.lang import ast as A


class _Suspend:
    __slots__ = ()

    def __repr__(self) -> str:
        return "SUSPEND"


SUSPEND = _Suspend()  # a step's answer: stop this frame here (a frame was pushed, or a decision waits)

# The engine's own blocks, installed first in every Program (machine.install_engine_blocks)
EMIT_BLOCK, WINDOWS_BLOCK, AFTER_RESPONSE_BLOCK = 0, 1, 2
TIMINGS = ("before", "on", "after")


@attrs.define
class CBlock:
    index: int
    name: str                # for messages: "the effect of action 'bid'"
    steps: list
    span: Optional[A.Span] = None
    plain: bool = False      # nothing in it can stop: the engine may run it as one call, without a frame
    # What a saved frame of it may hold (serialise.py checks a saved state against them):
    starts: tuple = ()       # per step: the names it binds itself that are surely bound when the step starts
    names: dict = attrs.field(factory=dict)  # every name it may bind -> (its type or None, may it be none:
                                             # True, False, or None: as its type allows, all different)
    loops: dict = attrs.field(factory=dict)  # "$forN" -> (loop variable, the names restored when the loop ends)
    resumes: frozenset = frozenset([0])      # the steps a frame may be at: its start, and after a step that stops
