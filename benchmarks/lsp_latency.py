"""How long `rulespec lsp` takes to answer, over stdio, on the shipped games.

    python benchmarks/lsp_latency.py [FILE...]

For each file: open it (the first check parses every declaration), then the median of a few
edits (one character typed in the middle of the file; a line inserted at its top, which moves
every declaration) from didChange to publishDiagnostics, minus the server's wait for a pause in
typing (rulespec.tools.editor.lsp.DEBOUNCE); then hover, definition, references, completion and the outline
on the edited text. Wall-clock milliseconds, as an editor would see them.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from rulespec.tools.editor.lsp import DEBOUNCE  # noqa: E402
from test_lsp import Client  # noqa: E402


def ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def bench(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    uri = path.resolve().as_uri()
    c = Client()
    out = {}
    try:
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.notify("initialized", {})
        t0 = time.perf_counter()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rulespec", "version": 1,
                                                           "text": text}})
        c.diagnostics(uri, 1)
        out["open"] = ms(t0)
        lines = text.split("\n")
        mid = len(lines) // 2
        while not lines[mid].strip() or lines[mid].lstrip().startswith("#"):
            mid += 1
        version = 1
        for kind in ("type", "insert line"):
            times = []
            for i in range(5):
                version += 1
                if kind == "type":
                    new = lines[:mid] + [lines[mid] + " " * (i + 1)] + lines[mid + 1:]
                else:
                    new = ["# new line"] * (i + 1) + lines
                t0 = time.perf_counter()
                c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                    "contentChanges": [{"text": "\n".join(new)}]})
                c.diagnostics(uri, version)
                times.append(ms(t0) - DEBOUNCE * 1000)
            out[kind] = statistics.median(times)
        # requests on the text as it is now (no new edit: the index is ready or being built)
        word_line = next(i for i, ln in enumerate(new) if ln.startswith("zone "))
        p = {"line": word_line, "character": 6}
        for method, params in (("textDocument/hover", {"position": p}),
                               ("textDocument/definition", {"position": p}),
                               ("textDocument/references", {"position": p, "context": {"includeDeclaration": True}}),
                               ("textDocument/completion", {"position": {"line": mid + 5, "character": 0}}),
                               ("textDocument/documentSymbol", {})):
            t0 = time.perf_counter()
            c.request(method, {"textDocument": {"uri": uri}, **params})
            out[method.split("/")[1]] = ms(t0)
        c.request("shutdown", None)
        c.notify("exit", None)
    finally:
        c.close()
    return out


def main(argv: list) -> None:
    files = [Path(a) for a in argv] or sorted((ROOT / "games").glob("*.rules"))
    cols = ["open", "type", "insert line", "hover", "definition", "references", "completion", "documentSymbol"]
    print("| file | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for f in files:
        r = bench(f)
        print(f"| {f.name} | " + " | ".join(f"{r[k]:.0f}" for k in cols) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
