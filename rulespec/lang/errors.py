"""RulesError: what the language raises for a rules file with errors.

A module of its own, without imports, so that code that only catches it (the command line, on
the way to a cached answer) loads nothing else; ``rulespec.lang.diagnostics`` re-exports it.
"""
from __future__ import annotations


class RulesError(Exception):
    """Raised when a rules file has errors; carries every diagnostic found."""

    def __init__(self, diagnostics: list, source: str | None = None):  # list[Diagnostic]
        self.diagnostics = diagnostics
        self.source = source
        errors = [d for d in diagnostics if d.severity == "error"]
        super().__init__(errors[0].headline() if errors else "rules error")

    def render(self) -> str:
        return "\n".join(d.render(self.source) for d in self.diagnostics)
