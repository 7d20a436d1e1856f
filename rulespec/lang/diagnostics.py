"""Compiler-style diagnostics: ``file:line:col: error: message``, the source line, a caret, a hint."""
from __future__ import annotations

import difflib
from typing import Iterable, Optional

import attrs

from .ast import Span
from .errors import RulesError  # noqa: F401 (defined apart: raising and catching it needs no attrs)


@attrs.frozen
class Related:
    """A second place a diagnostic points at (where a value is read, where it is then seen)."""
    span: Span
    message: str

    def to_dict(self) -> dict:
        return {"line": self.span.line, "column": self.span.col, "end_line": self.span.end_line,
                "end_column": self.span.end_col, "message": self.message}


@attrs.frozen
class Diagnostic:
    severity: str  # "error" | "warning"
    message: str
    path: str
    span: Span
    hint: Optional[str] = None
    code: str = ""  # stable and kebab-case, one family per kind of finding (docs/language.md)
    related: Optional[Related] = None

    def location(self) -> str:
        return f"{self.path}:{self.span.line}:{self.span.col}"

    def headline(self) -> str:
        """``file:line:col: severity: message [code]`` (the code last, as compilers print a flag)."""
        tail = f" [{self.code}]" if self.code else ""
        return f"{self.location()}: {self.severity}: {self.message}{tail}"

    def to_dict(self) -> dict:
        """The diagnostic as plain data (``rulespec check --format json``): lines and columns count
        from 1, and the end is just past the text it points at."""
        out = {"file": self.path, "line": self.span.line, "column": self.span.col,
               "end_line": self.span.end_line, "end_column": self.span.end_col,
               "severity": self.severity, "message": self.message, "hint": self.hint, "code": self.code}
        if self.related is not None:
            out["related"] = self.related.to_dict()
        return out

    def render(self, source: Optional[str] = None) -> str:
        out = [self.headline()]
        if source is not None:
            lines = source.split("\n")
            if 1 <= self.span.line <= len(lines) and lines[self.span.line - 1].strip():
                text = lines[self.span.line - 1].rstrip("\r").expandtabs(1)
                col = min(self.span.col, len(text) + 1)
                width = 1
                if self.span.end_line == self.span.line and self.span.end_col > self.span.col:
                    width = self.span.end_col - self.span.col
                text, col, width = _window(text, col, width)
                out.append(f"    {text}")
                out.append("    " + " " * (col - 1) + "^" + "~" * (width - 1))
        if self.related is not None:
            r = self.related.span
            out.append(f"{self.path}:{r.line}:{r.col}: note: {self.related.message}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


MAX_SHOWN = 100  # the widest source excerpt a diagnostic shows


def _window(text: str, col: int, width: int) -> tuple:
    """Cut a long source line down to about MAX_SHOWN characters around the caret."""
    width = max(1, min(width, MAX_SHOWN // 2))
    if len(text) <= MAX_SHOWN:
        return text, col, min(width, len(text) + 2 - col)
    start = max(0, col - 1 - MAX_SHOWN // 3)
    end = start + MAX_SHOWN
    shown = text[start:end]
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(text) else ""
    col = col - start + len(prefix)
    width = min(width, len(shown) + len(prefix) + 1 - col + 1)
    return prefix + shown + suffix, col, max(1, width)


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    """A 'did you mean' hint for a misspelt name, or None."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
