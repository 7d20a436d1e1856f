"""The nesting guard: an AST nested more than MAX_DEPTH levels deep is a diagnostic.

A chain of operators (a + b + ... + z) is one flat node (see to_ast_expressions), so only true
nesting counts.  The walk uses its own stack: it cannot hit a RecursionError itself.
"""
from __future__ import annotations

import attrs

from . import ast as A
from .diagnostics import Diagnostic

# How deeply statements and expressions may nest.  The checker and the
# interpreter walk the tree recursively; past this depth a file gets a clean
# error instead of a RecursionError.  No hand-written rule comes close.
MAX_DEPTH = 100


def _child_nodes(n):
    for f in attrs.fields(type(n)):
        v = getattr(n, f.name)
        if isinstance(v, tuple):
            for x in v:
                if isinstance(x, tuple):  # the (cond, block) branches of an If
                    yield from (y for y in x if attrs.has(type(y)))
                elif attrs.has(type(x)):
                    yield x
        elif attrs.has(type(v)) and not isinstance(v, A.Span):
            yield v


def _too_deep(roots) -> object:
    """The first node nested more than MAX_DEPTH levels deep, or None."""
    stack = [(r, 1) for r in roots if attrs.has(type(r))]
    while stack:
        n, depth = stack.pop()
        if depth > MAX_DEPTH:
            return n
        stack.extend((c, depth + 1) for c in _child_nodes(n))
    return None


def _too_deep_error(n, path: str) -> Diagnostic:
    return Diagnostic("error", f"this nests more than {MAX_DEPTH} levels deep", path, n.span,
                      "split it up with 'let' or a 'def'", code="too-deep")
