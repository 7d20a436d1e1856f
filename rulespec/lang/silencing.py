"""Silencing one warning with a written reason: ``# rulespec: allow CODE -- the reason``.

The comment stands on the line of the finding, or alone on the line before it. It names the
code(s) it silences (comma-separated) and gives a reason after ``--``. Only warnings can be
silenced; an allow comment without a reason, or one that silences nothing (a stale one, or one
naming an error), is itself a warning, so that allow comments stay few and true.
"""
from __future__ import annotations

import re
from typing import Optional

import attrs

from .ast import Span
from .diagnostics import Diagnostic

_ALLOW = re.compile(r"#\s*rulespec\s*:\s*allow\b(?P<codes>[^\n]*?)(?:--(?P<reason>.*))?$")
_CODE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


@attrs.frozen
class Allow:
    line: int            # the line of the comment
    targets: tuple       # the lines whose warnings it may silence
    codes: tuple
    reason: str
    span: Span


def _comment_start(line: str) -> Optional[int]:
    """Where a line's '#' comment starts, outside a "string" (None: no comment)."""
    in_string = False
    i = 0
    while i < len(line):
        ch = line[i]
        if in_string and ch == "\\":
            i += 2
            continue
        if ch == '"':
            in_string = not in_string
        elif ch == "#" and not in_string:
            return i
        i += 1
    return None


def find_allows(source: str) -> list[Allow]:
    """Every allow comment of a rules file, in line order."""
    out = []
    for n, text in enumerate(source.split("\n"), start=1):
        if "rulespec" not in text or "allow" not in text:
            continue
        start = _comment_start(text)
        if start is None:
            continue
        m = _ALLOW.match(text[start:].rstrip("\r"))
        if m is None:
            continue
        codes = tuple(c.strip() for c in m.group("codes").replace(",", " ").split() if c.strip())
        alone = not text[:start].strip()
        targets = (n, n + 1) if alone else (n,)
        span = Span(n, start + 1, n, len(text.rstrip("\r")) + 1)
        out.append(Allow(n, targets, codes, (m.group("reason") or "").strip(), span))
    return out


def apply_allows(diags: list, source: str, path: str) -> tuple[list, list]:
    """Split diagnostics into those shown and the warnings silenced; the allow comments' own
    problems (no reason, a code that is not one, silencing nothing) are added to those shown."""
    allows = find_allows(source)
    if not allows:
        return diags, []
    used: set = set()
    shown, silenced = [], []
    for d in diags:
        hit = None
        if d.severity == "warning":
            hit = next((a for a in allows if a.reason and d.span.line in a.targets and d.code in a.codes), None)
        if hit is None:
            shown.append(d)
        else:
            used.add(hit.line)
            silenced.append(d)
    for a in allows:
        bad = [c for c in a.codes if not _CODE.match(c)]
        if not a.codes or bad:
            what = f"'{bad[0]}' is not a diagnostic code" if bad else "names no diagnostic code"
            shown.append(Diagnostic("warning", f"this allow comment {what}", path, a.span,
                                    "write: # rulespec: allow CODE -- the reason (the code is in the warning's [brackets])",
                                    code="bad-allow"))
        elif not a.reason:
            shown.append(Diagnostic("warning", f"allowing {', '.join(a.codes)} needs a written reason", path,
                                    a.span, f"write: # rulespec: allow {', '.join(a.codes)} -- why this is fine here",
                                    code="allow-without-reason"))
        elif a.line not in used:
            shown.append(Diagnostic("warning", f"this allow comment silences nothing: no {', '.join(a.codes)} "
                                    f"warning on this line{' or the next' if len(a.targets) > 1 else ''}",
                                    path, a.span, "remove it (errors cannot be silenced)", code="unused-allow"))
    return shown, silenced
