"""An editor gone wild, for `rulespec lsp`: random edits and requests over the real protocol.

Used by tests/test_lsp.py (a short run) and benchmarks/lsp_fuzz.py (as long as you like). Every
shipped game is opened in one server; then, from a seeded random generator, edits go to the games
in turn, a share each, as an editor sends them (incremental changes, a few at once now and then,
in UTF-16 positions or, as the seed decides, UTF-8 or UTF-32 ones; now and then the whole text):
random tokens and characters typed (unicode, astral characters, line ends of every kind, NUL),
ranges deleted, whole lines pasted from other games, unbalanced braces, very long lines. Between
edits come hover, definition, references, completion, formatting and outline requests at random
places (past the end of a line or of the file, inside a character's code units), some cancelled.

What must hold: every request is answered (no error, within a per-request timeout), nothing is
logged as an internal error, the diagnostics of each game's last version arrive (after the pause
in typing the server waits for, with no request to hurry them) and are those the analysis gives
for the editor's own copy of the text (so the server applied every change as the editor did), and
the server is still alive at the end and shuts down cleanly.

To keep a run short, this side parses each game once, before the server starts, and leaves the
parsed declarations on disk where the server looks for them (as a document opened again): so
neither parses a whole game again, only the declarations an edit touches.
"""
from __future__ import annotations

import bisect
import json
import random
import re
import statistics
import time
from pathlib import Path

from test_lsp import Client

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted((ROOT / "games").glob("*.rules"))

REQUESTS = ("hover", "definition", "references", "completion", "formatting", "documentSymbol")

# what gets typed: the language's tokens and some that are not
_TOKENS = ["{", "}", "(", ")", "[", "]", '"', "#", ".", "..", ",", ":", "=", "==", "+=", "-", "*", "%",
           "phase", "action", "card", "game", "if", "else", "when", "next", "let", "count", "in", "where",
           "x", "hand", "players", "end game", "0", "999999999999999999999", " ", "\t", "\n", "\\"]
# characters past ASCII: accents, suits, an astral card (two UTF-16 units), combining and joining
# marks, right-to-left override, a byte-order mark, NUL, and line ends that are not LF
_CHARS = ["é", "♠", "🂡", "𝔘", "\u0301", "\u200d", "\u202e", "\ufeff", "\x00", "\r", "\r\n", "\x0c", "\x0b",
          "\u2028", "\u0085", "中文", "\U0010ffff"]
_LINE_END = re.compile(r"\r\n|\r|\n")   # the protocol's line ends (LSP 3.17: only these)


def units(s: str, encoding: str) -> int:
    """The length of s in the code units of a position encoding."""
    if encoding == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    if encoding == "utf-16":
        return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)
    return len(s)


class Document:
    """The editor's copy of one open document, and the protocol's positions in it."""

    def __init__(self, path: Path, encoding: str):
        self.path = path
        self.encoding = encoding   # of the positions (the one the server chose)
        self.uri = path.resolve().as_uri()
        self.text = path.read_text(encoding="utf-8")
        self.version = 1

    def line_starts(self) -> list:
        return [0] + [m.end() for m in _LINE_END.finditer(self.text)]

    def position(self, offset: int) -> dict:
        starts = self.line_starts()
        line = bisect.bisect_right(starts, offset) - 1
        return {"line": line, "character": units(self.text[starts[line]:offset], self.encoding)}

    def boundary(self, offset: int) -> int:
        """The offset, moved off the middle of a CR LF (no position lies there)."""
        if 0 < offset < len(self.text) and self.text[offset - 1] == "\r" and self.text[offset] == "\n":
            return offset + 1
        return offset

    def replace(self, start: int, end: int, new: str) -> dict:
        """Edit the copy; the incremental change that tells the server."""
        change = {"range": {"start": self.position(start), "end": self.position(end)}, "text": new}
        self.text = self.text[:start] + new + self.text[end:]
        return change

    def replace_all(self, new: str) -> dict:
        self.text = new
        return {"text": new}


class Fuzzer:
    def __init__(self, seed: int, games: list | None = None, timeout: float = 20.0):
        self.rng = random.Random(seed)
        # the positions' encoding, offered to the server alone: UTF-16 (every editor), or UTF-8 or UTF-32
        self.encoding = self.rng.choice(["utf-16", "utf-16", "utf-8", "utf-32"])
        self.docs = [Document(p, self.encoding) for p in (games or GAMES)]
        self.timeout = timeout
        self.latency: dict = {k: [] for k in REQUESTS + ("diagnostics after an edit",)}
        self.history: list = []        # what was done, for the message of a failure
        self.client: Client | None = None
        self.cache = None          # this side's parsed declarations (rulespec.tools.editor.lsp_analysis.ChunkCache)
        self.pasteable = [line for d in self.docs for line in d.text.split("\n")]

    # -------------------------------------------------------------- random edits
    def random_offset(self, d: Document) -> int:
        return d.boundary(self.rng.randint(0, len(d.text)))

    def line_start(self, d: Document) -> int:
        starts = d.line_starts()
        return starts[self.rng.randrange(len(starts))]

    def typed(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.45:
            return "".join(rng.choice(_TOKENS) + rng.choice(["", " "]) for _ in range(rng.randint(1, 4)))
        if kind < 0.75:
            return "".join(rng.choice(_CHARS) for _ in range(rng.randint(1, 3)))
        if kind < 0.9:
            return rng.choice(["{", "}", "(", "[", '"']) * rng.randint(1, 40)   # unbalanced
        return chr(rng.randint(0x20, 0x2FFF))

    def edit(self, d: Document) -> dict:
        rng = self.rng
        r = rng.random()
        if r < 0.35:                                  # type something
            at = self.random_offset(d)
            what, change = "type", d.replace(at, at, self.typed())
        elif r < 0.6:                                 # delete a range (sometimes a big one)
            a = self.random_offset(d)
            b = d.boundary(min(len(d.text), a + rng.choice([1, 3, 20, 200, 3000])))
            what, change = "delete", d.replace(a, b, "")
        elif r < 0.8:                                 # paste whole lines from any game
            at = self.line_start(d)
            k = rng.randint(0, len(self.pasteable) - 1)
            lines = self.pasteable[k:k + rng.randint(1, 30)]
            what, change = "paste", d.replace(at, at, "\n".join(lines) + "\n")
        elif r < 0.9:                                 # a very long line
            at = self.line_start(d)
            piece = rng.choice(["x + ", "a.b", "{ ", "if x then ", "-", "♠🂡", "# " + "long " * 3, '"s" '])
            what, change = "long line", d.replace(at, at, piece * rng.randint(500, 5000) + "\n")
        elif r < 0.95:                                # replace a line, keeping the line count
            starts = d.line_starts() + [len(d.text)]
            i = rng.randrange(len(starts) - 1)
            a, b = starts[i], max(starts[i], starts[i + 1] - 1)
            what, change = "line", d.replace(a, b, self.typed())
        else:                                         # the whole text at once (as after an undo)
            what, change = "full", d.replace_all(d.path.read_text(encoding="utf-8") if rng.random() < 0.5
                                                  else d.text + self.typed())
        self.history.append(f"{d.path.name} v{d.version + 1}: {what} {json.dumps(change)[:160]}")
        return change

    def random_position(self, d: Document) -> dict:
        rng = self.rng
        lines = _LINE_END.split(d.text)
        r = rng.random()
        if r < 0.1:       # anywhere, even past the end of the file
            return {"line": rng.randint(0, len(lines) + 5), "character": rng.randint(0, 300)}
        line = rng.randrange(len(lines))
        width = units(lines[line], self.encoding)
        return {"line": line, "character": rng.randint(0, width + (3 if r < 0.3 else 0))}

    # -------------------------------------------------------------- the protocol
    def timed(self, kind: str, method: str, params: dict):
        """Ask; the answer, timed. Now and then the request is cancelled, as editors do (a hover
        when the mouse moves on): then its answer may be an error saying so, and is not timed."""
        cancel = self.rng.random() < 0.15
        self.history.append(f"{kind}{' (cancelled)' if cancel else ''} {json.dumps(params)[:160]}")
        t0 = time.perf_counter()
        c = self.client
        c.next_id += 1
        rid = c.next_id
        c.send({"id": rid, "method": method, "params": params})
        if cancel:
            time.sleep(self.rng.choice([0, 0.01, 0.05]))
            c.notify("$/cancelRequest", {"id": rid})
        msg = c.wait(lambda m: m.get("id") == rid and "method" not in m, f"the answer to {method}", self.timeout)
        if cancel and msg.get("error", {}).get("code") == -32800:   # RequestCancelled
            return None
        if not cancel:
            self.latency[kind].append(time.perf_counter() - t0)
        assert "error" not in msg, (msg, self.history[-12:])
        return msg["result"]

    def request(self, d: Document) -> None:
        kind = self.rng.choice(REQUESTS)
        doc = {"textDocument": {"uri": d.uri}}
        if kind == "formatting":
            self.timed(kind, "textDocument/formatting", {**doc, "options": {"tabSize": 2, "insertSpaces": True}})
        elif kind == "documentSymbol":
            self.timed(kind, "textDocument/documentSymbol", doc)
        else:
            params = {**doc, "position": self.random_position(d)}
            if kind == "references":
                params["context"] = {"includeDeclaration": self.rng.random() < 0.5}
            self.timed(kind, f"textDocument/{kind}", params)

    def change(self, d: Document) -> None:
        """One didChange: one edit, or now and then a few at once (as with several cursors: each
        change's positions are in the text the changes before it made)."""
        changes = [self.edit(d) for _ in range(self.rng.choice([1] * 9 + [3]))]
        d.version += 1
        self.client.notify("textDocument/didChange", {"textDocument": {"uri": d.uri, "version": d.version},
                                                      "contentChanges": changes})

    def analysis(self, d: Document):
        from rulespec.tools.editor.lsp import uri_to_path
        from rulespec.tools.editor.lsp_analysis import Analysis
        return Analysis(d.text, uri_to_path(d.uri), self.cache)

    def warm(self) -> None:
        """Parse every game here and keep its declarations on disk for the server (see above)."""
        from rulespec.tools.editor.lsp_analysis import ChunkCache, save_warm
        self.cache = ChunkCache()
        for d in self.docs:
            save_warm(self.analysis(d), self.cache)

    def settle(self, d: Document, since: float) -> None:
        """The diagnostics of the document's newest version arrive, and are those of the editor's text."""
        got = self.client.diagnostics(d.uri, d.version)
        self.latency["diagnostics after an edit"].append(time.perf_counter() - since)
        want = [x.message + (f"\nhint: {x.hint}" if x.hint else "") for x in self.analysis(d).diagnostics]
        assert [x["message"] for x in got] == want, (d.path.name, got[:3], want[:3], self.history[-12:])

    def errors_logged(self) -> list:
        return [m["params"]["message"] for m in self.client.pending
                if m.get("method") == "window/logMessage" and m["params"]["type"] == 1]

    # -------------------------------------------------------------- a run
    def run(self, edits: int) -> dict:
        """Open every game, make `edits` edits across them (a share each, in turns) with requests in
        between; the latencies (seconds) of each kind of request."""
        self.warm()
        self.client = c = Client()
        try:
            init = c.request("initialize", {"processId": None, "rootUri": None,
                                            "capabilities": {"general": {"positionEncodings": [self.encoding]}}})
            assert init["capabilities"]["positionEncoding"] == self.encoding
            c.notify("initialized", {})
            for d in self.docs:
                c.notify("textDocument/didOpen", {"textDocument": {"uri": d.uri, "languageId": "rulespec",
                                                                   "version": d.version, "text": d.text}})
            for d in self.docs:
                c.diagnostics(d.uri, d.version)
            per_doc = [edits // len(self.docs) + (i < edits % len(self.docs)) for i in range(len(self.docs))]
            for d, n in zip(self.docs, per_doc):
                for k in range(n):
                    self.change(d)
                    if k == n - 1:   # the last edit: its diagnostics come after the pause in typing
                        self.settle(d, since=time.perf_counter())
                    for _ in range(self.rng.choice([0, 0, 1, 1, 2, 3])):
                        self.request(d)
                assert not self.errors_logged(), (self.errors_logged()[:2], self.history[-12:])
            assert c.proc.poll() is None, "the server died"
            self.timed("hover", "textDocument/hover", {"textDocument": {"uri": self.docs[0].uri},
                                                       "position": {"line": 0, "character": 0}})
            c.request("shutdown", None)
            c.notify("exit", None)
            assert c.proc.wait(timeout=self.timeout) == 0
            assert not self.errors_logged(), self.errors_logged()[:2]
        finally:
            if c.proc.poll() is None:
                c.proc.kill()
        return self.latency


def percentile(xs: list, p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def latency_table(latency: dict) -> str:
    """p50 and p99 of each kind, in milliseconds (a Markdown table)."""
    rows = ["| request | count | p50 ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|"]
    for kind, xs in latency.items():
        if xs:
            rows.append(f"| {kind} | {len(xs)} | {statistics.median(xs) * 1000:.0f} | "
                        f"{percentile(xs, 99) * 1000:.0f} | {max(xs) * 1000:.0f} |")
    return "\n".join(rows)
