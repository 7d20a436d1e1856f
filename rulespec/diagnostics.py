"""Compiler-style diagnostics: ``file:line:col: error: message``, the source line, a caret, a hint."""
from __future__ import annotations

import difflib
from typing import Iterable, Optional

import attrs

from .ast import Span


@attrs.frozen
class Diagnostic:
    severity: str  # "error" | "warning"
    message: str
    path: str
    span: Span
    hint: Optional[str] = None

    def location(self) -> str:
        return f"{self.path}:{self.span.line}:{self.span.col}"

    def headline(self) -> str:
        return f"{self.location()}: {self.severity}: {self.message}"

    def render(self, source: Optional[str] = None) -> str:
        out = [self.headline()]
        if source is not None:
            lines = source.splitlines()
            if 1 <= self.span.line <= len(lines):
                text = lines[self.span.line - 1].expandtabs(1)
                out.append(f"    {text}")
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                out.append("    " + " " * (self.span.col - 1) + "^" + "~" * (width - 1))
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class RulesError(Exception):
    """Raised when a rules file has errors; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic], source: Optional[str] = None):
        self.diagnostics = diagnostics
        self.source = source
        errors = [d for d in diagnostics if d.severity == "error"]
        super().__init__(errors[0].headline() if errors else "rules error")

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    """A 'did you mean' hint for a misspelt name, or None."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
