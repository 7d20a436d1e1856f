"""Reading a rules file's text: bytes to text, line ends, unreadable files as diagnostics.

Kept apart from the parser so that a model read back from the cache needs no parser (Lark),
and light: the diagnostics (attrs, the AST) are imported only to report a problem.
"""
from __future__ import annotations

from pathlib import Path

from .errors import RulesError


def _error(message: str, path: str, where: tuple | None = None, hint: str | None = None) -> RulesError:
    """A RulesError of one diagnostic; where: (line, col), else the start of the file."""
    from . import ast as A
    from .diagnostics import Diagnostic
    span = A.Span(where[0], where[1], where[0], where[1] + 1) if where else A.NOWHERE
    return RulesError([Diagnostic("error", message, path, span, hint, code="unreadable-file")])


def decode(data: bytes, path: str) -> str:
    """Bytes -> text, or a RulesError for binary or non-UTF-8 input."""
    if b"\x00" in data:
        raise _error("this is a binary file, not a rules file", path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        start = before.rfind(b"\n") + 1
        col = len(data[start: e.start].decode("utf-8", errors="replace")) + 1
        raise _error("the file is not valid UTF-8 text", path, (line, col),
                     f"byte 0x{data[e.start]:02x} cannot start or continue a UTF-8 character; "
                     "save the file as UTF-8") from None


def normalize(text: str) -> str:
    """Drop a byte-order mark and turn CR LF and lone CR line ends into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_source(path: str | Path) -> str:
    """A rules file's text; a file that cannot be read is a RulesError saying why."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise _error("is a directory, not a rules file", str(path)) from None
    except FileNotFoundError:
        raise _error("no such file", str(path)) from None
    except PermissionError:
        raise _error("permission denied", str(path)) from None
    except OSError as e:
        raise _error(f"cannot read the file: {e.strerror or e}", str(path)) from None
    except ValueError as e:  # a NUL byte in the name
        raise _error(f"cannot read the file: {e}", str(path)) from None
    return decode(data, str(path))
