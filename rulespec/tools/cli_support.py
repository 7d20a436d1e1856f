"""What every command shares: the two errors a command ends with (bad usage: exit 2; an output
file that cannot be written: exit 1) and writing a command's output files.  rulespec/tools/cli.py
(the commands) and rulespec/tools/fuzz_cli.py (fuzz and replay) both import it."""
from __future__ import annotations

import os
from pathlib import Path


class UsageError(Exception):
    """Bad command-line usage: exit code 2."""


class OutputError(Exception):
    """A file the command was asked to write cannot be written (the message names it): exit 1."""


def write_output(path: str, text: str) -> None:
    """Write a command's output file; any failure (a missing folder, a full disk, /dev/full)
    is reported with the file's name."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror or e}") from None


def check_writable(path: str, directory: bool = False) -> None:
    """Fail before a long run when its output could not be written afterwards."""
    p = Path(path)
    if p.exists():
        if directory and not p.is_dir():
            raise OutputError(f"cannot write into {path}: it is not a folder")
        if not directory and p.is_dir():
            raise OutputError(f"cannot write {path}: it is a folder")
        if not os.access(p, os.W_OK):
            raise OutputError(f"cannot write {path}: permission denied")
        return
    parent = p.parent if str(p.parent) else Path(".")
    while not parent.exists() and parent != parent.parent:
        if not directory:
            raise OutputError(f"cannot write {path}: the folder {parent} does not exist")
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {path}: {parent} is not a writable folder")
