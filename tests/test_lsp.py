"""`rulespec lsp`: the language server, driven over stdio with real protocol messages.

The server runs as a subprocess (`python -m rulespec.tools.cli lsp`); a small client below writes
Content-Length framed JSON-RPC to its standard input and reads the responses and notifications
(publishDiagnostics, logMessage) from its standard output, as an editor would.

RULESPEC_LSP_TRANSCRIPT=FILE writes every message of the exchange to FILE (docs/editors.md shows
an excerpt of one).
"""
from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="rulespec lsp needs pygls: pip install 'rulespec[lsp]'")

from rulespec.lang.checker import check_text  # noqa: E402
from rulespec.lang.errors import RulesError  # noqa: E402
from rulespec.tools.editor.lsp_analysis import Analysis, ChunkCache, complete, definition, hover, references  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30  # seconds any one answer may take (a loaded machine; they take well under a second)

# A small game that uses every kind of declaration. The ♠ and 🂡 (U+1F0A1, two UTF-16 code units)
# come before positions the tests ask about, so that columns in characters, UTF-16 and UTF-8 differ.
DOC = '''\
game "Spades" {
  players 2..4
  start deal_phase
  cards start in deck
  score p: points[p]
}

option short: bool = false "Play to 5 points instead of 10."

enum Suit { spades, hearts } "The two suits of this little deck."
property suit: Suit "The suit printed on the card."
property rank: int

card "A♠" { suit: spades rank: 14 } "The ace of spades: the highest card."
card "2♥" { suit: hearts rank: 2 }
card "Joker" {
  suit: hearts rank: 0
  while in hand {
    trigger wild after scored when p == owner { log "{owner} holds {self}" }
  }
} "Worth nothing, but it cheers."

zone deck: pile hidden "The face-down deck."
zone hand[player]: set owner "Your hand."
zone table: pile public

var points[player]: int = 0 "Points scored so far."
var lead: Suit = spades "The suit led."

def high(c: card): bool = c.rank > 10 "Whether a card is a high card."

event scored(p: player, n: int) "A player scores points."
trigger tally on scored { points[p] += n }

effect bolt(damage: int = 1) {
  doc "A bolt on the stack."
  resolve { points[this.target] -= this.damage }
}

action play_card(c: card from hand[active]) {
  doc "Play a card from your hand."
  text "play {c}"
  effect {
    move c to table
    lead = c.suit
    if c.name == "A♠" { emit scored(active, 2) }
    log "🂡 ♠ {c} is played"
  }
}

phase deal_phase {
  enter { shuffle deck  for p in players { deal 1 from deck to hand[p] } }
  next play_phase
}

action zap(t: player) {
  effect { stack bolt(damage = 2) target t }
}

phase play_phase {
  doc "Players take turns playing cards."
  actions play_card, zap
  after { active = next_player(active) }
  end when count(table) == player_count
  next play_phase when count(deck) > 0
  next game_over
}

phase game_over {
  enter { end game }
}
'''
URI = "file:///tmp/spades.rules"


def pos(text: str, needle: str, offset: int = 0, nth: int = 0) -> dict:
    """The LSP position (UTF-16) of the nth occurrence of needle (plus offset characters)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    line = text.count("\n", 0, i)
    start = text.rfind("\n", 0, i) + 1
    return {"line": line, "character": len(text[start:i].encode("utf-16-le")) // 2}


def rc(text: str, needle: str, offset: int = 0, nth: int = 0) -> tuple:
    """The rulespec (line, col) of the same place: from 1, in characters."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += offset
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


# ---------------------------------------------------------------------- a client
class Client:
    """An LSP client over a subprocess's stdin/stdout: Content-Length framed JSON-RPC."""

    def __init__(self, transcript: list | None = None, argv: list | None = None):
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        # as VS Code's language client starts it (TransportKind.stdio adds --stdio)
        argv = argv or [sys.executable, "-m", "rulespec.tools.cli", "lsp", "--stdio"]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(ROOT))
        self.inbox: queue.Queue = queue.Queue()
        self.pending: list = []     # messages read but not yet asked for
        self.next_id = 0
        self.transcript = transcript
        threading.Thread(target=self._read, daemon=True).start()
        self.stderr: list = []
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body.decode("utf-8")))

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, msg: dict) -> None:
        msg = {"jsonrpc": "2.0", **msg}
        if self.transcript is not None:
            self.transcript.append(("client", msg))
        body = json.dumps(msg, ensure_ascii=False).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict | None) -> object:
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        msg = self.wait(lambda m: m.get("id") == rid and "method" not in m, f"the answer to {method}")
        assert "error" not in msg, msg
        return msg["result"]

    def _take(self, timeout: float):
        msg = self.inbox.get(timeout=timeout)
        if msg is None:
            raise AssertionError("the server closed its output; stderr:\n" + "".join(self.stderr))
        if self.transcript is not None:
            self.transcript.append(("server", msg))
        if "method" in msg and "id" in msg:   # a request from the server (none expected): answer it
            self.send({"id": msg["id"], "result": None})
        return msg

    def wait(self, pred, what: str, timeout: float = TIMEOUT) -> dict:
        for i, m in enumerate(self.pending):
            if pred(m):
                return self.pending.pop(i)
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {what} within {timeout} s; stderr:\n" + "".join(self.stderr))
            try:
                msg = self._take(left)
            except queue.Empty:
                continue
            if pred(msg):
                return msg
            self.pending.append(msg)

    def diagnostics(self, uri: str, version: int | None = None) -> list:
        """The next publishDiagnostics for uri (for that version, when given)."""
        msg = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                        and m["params"]["uri"] == uri
                        and (version is None or m["params"].get("version") == version),
                        f"diagnostics of {uri} version {version}")
        return msg["params"]["diagnostics"]

    def close(self) -> int:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def _write_transcript(transcript: list) -> None:
    path = os.environ.get("RULESPEC_LSP_TRANSCRIPT")
    if not path:
        return
    with open(path, "w", encoding="utf-8") as f:
        for who, msg in transcript:
            arrow = "-->" if who == "client" else "<--"
            f.write(f"{arrow} {json.dumps(msg, ensure_ascii=False)}\n")


@pytest.fixture(scope="module")
def session():
    """One server for the module's protocol tests, initialized, with DOC open."""
    transcript: list = []
    c = Client(transcript)
    init = c.request("initialize", {
        "processId": os.getpid(), "rootUri": None,
        "capabilities": {"general": {"positionEncodings": ["utf-16"]},
                         "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                          "documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}}})
    c.notify("initialized", {})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "rulespec", "version": 1,
                                                       "text": DOC}})
    c.init = init
    yield c
    if c.proc.poll() is None:
        c.close()
    _write_transcript(transcript)


# ---------------------------------------------------------------------- the protocol tests
def test_initialize_advertises_the_features(session):
    caps = session.init["capabilities"]
    assert session.init["serverInfo"]["name"] == "rulespec"
    assert caps["hoverProvider"] and caps["definitionProvider"] and caps["referencesProvider"]
    assert caps["documentSymbolProvider"]
    assert set(caps["completionProvider"]["triggerCharacters"]) == {".", '"'}
    assert caps["positionEncoding"] == "utf-16"
    try:
        import rulespec.lang.fmt  # noqa: F401
        has_fmt = True
    except ImportError:
        has_fmt = False
    assert bool(caps.get("documentFormattingProvider")) == has_fmt


def test_a_clean_document_gets_no_diagnostics(session):
    assert session.diagnostics(URI, 1) == []


def test_hover_shows_the_declaration_and_its_doc(session):
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")})
    assert h["contents"]["kind"] == "markdown"
    assert "var lead: Suit = spades" in h["contents"]["value"]
    assert "The suit led." in h["contents"]["value"]
    assert h["range"] == {"start": pos(DOC, "lead = c.suit"), "end": pos(DOC, "lead = c.suit", 4)}
    # a property, after a dot
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "suit\n", 0, 0)})
    assert "property suit: Suit" in h["contents"]["value"] and "printed on the card" in h["contents"]["value"]
    # a card by its quoted name, after a ♠ on the line: the card's properties and text
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, '"A♠" {', 2, 1)})
    value = h["contents"]["value"]
    assert 'card "A♠" { suit: spades  rank: 14 }' in value and "The ace of spades" in value
    # an enum member shows its enum
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "hearts rank")})
    assert "a member of enum Suit" in h["contents"]["value"] and "two suits" in h["contents"]["value"]
    # an action named in a phase, a phase named in a next, an event, a def, an effect field
    for needle, expect in (("actions play_card", "Play a card from your hand."), ("next play_phase", "phase play_phase"),
                           ("scored(active", "event scored(p: player, n: int)"),
                           ("on scored", "A player scores points."), ("this.damage", "damage: int = 1")):
        offset = {"actions play_card": 8, "next play_phase": 5, "on scored": 3, "this.damage": 5}.get(needle, 0)
        h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, needle, offset)})
        assert h is not None and expect in h["contents"]["value"], (needle, h)
    # what a card carries: owner and self; a field named where an effect is stacked
    for needle, offset, expect in (("{owner} holds", 1, "the player who owns the zone"),
                                   ("{self}", 1, "the card itself"),
                                   ("bolt(damage = 2)", 5, "a field of effect bolt"),
                                   ("trigger wild", 8, "carried by card \"Joker\"")):
        h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, needle, offset)})
        assert h is not None and expect in h["contents"]["value"], (needle, h)
    # a built-in name, and a place with nothing to show
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "player_count")})
    assert "the number of players" in h["contents"]["value"]
    assert session.request("textDocument/hover", {"textDocument": {"uri": URI},
                                                  "position": {"line": 5, "character": 0}}) is None


def test_definition_and_references(session):
    def loc_of(needle, offset=0, nth=0):
        p = pos(DOC, needle, offset, nth)
        return p["line"], p["character"]

    got = session.request("textDocument/definition", {"textDocument": {"uri": URI}, "position": pos(DOC, "hand[active]")})
    assert [(g["range"]["start"]["line"], g["range"]["start"]["character"]) for g in got] == [loc_of("hand[player]")]
    assert got[0]["uri"] == URI
    refs = session.request("textDocument/references", {"textDocument": {"uri": URI}, "position": pos(DOC, "zone hand", 5),
                                                       "context": {"includeDeclaration": True}})
    assert sorted((r["range"]["start"]["line"], r["range"]["start"]["character"]) for r in refs) == sorted(
        [loc_of("hand[player]"), loc_of("while in hand", 9), loc_of("hand[active]"), loc_of("hand[p]")])
    # a card: its declaration and the string that names it (after a ♠ in the same line: UTF-16 columns)
    refs = session.request("textDocument/references", {"textDocument": {"uri": URI},
                                                       "position": pos(DOC, '== "A♠"', 4),
                                                       "context": {"includeDeclaration": False}})
    assert [r["range"] for r in refs] == [{"start": pos(DOC, '== "A♠"', 3), "end": pos(DOC, '== "A♠"', 7)}]
    # phases (start, next), enum members (card values, a var's default), events
    for needle, offset, n in (("start deal_phase", 6, 2), ("phase play_phase", 6, 3), ("enum Suit { spades", 12, 3),
                              ("event scored", 6, 4), ("def high", 4, 1), ("effect bolt", 7, 2)):
        refs = session.request("textDocument/references", {"textDocument": {"uri": URI}, "position": pos(DOC, needle, offset),
                                                           "context": {"includeDeclaration": True}})
        assert refs is not None and len(refs) == n, (needle, refs)
    # an effect's field: where the effect is stacked with it, and this.damage
    refs = session.request("textDocument/references", {"textDocument": {"uri": URI},
                                                       "position": pos(DOC, "bolt(damage: int", 5),
                                                       "context": {"includeDeclaration": False}})
    assert sorted(r["range"]["start"]["line"] for r in refs) == [pos(DOC, "this.damage")["line"],
                                                                 pos(DOC, "bolt(damage = 2)")["line"]]
    # a parameter: its uses in its action only
    refs = session.request("textDocument/references", {"textDocument": {"uri": URI}, "position": pos(DOC, "c: card from"),
                                                       "context": {"includeDeclaration": True}})
    assert len(refs) == 6


def test_completion(session):
    def labels(p):
        got = session.request("textDocument/completion", {"textDocument": {"uri": URI}, "position": p})
        items = got["items"] if isinstance(got, dict) else got
        return {i["label"]: i for i in items}

    # in an expression: the names in scope, declared names, built-ins and keywords
    every = labels(pos(DOC, "count(table) == player_count", 6))
    for name in ("table", "deck", "points", "lead", "high", "short", "spades", "player_count", "count", "if"):
        assert name in every, name
    assert every["lead"]["detail"].startswith("var lead")
    # after 'next': phases only; after 'actions': actions
    nxt = labels(pos(DOC, "next play_phase", 5))
    assert set(nxt) == {"deal_phase", "play_phase", "game_over"}
    assert set(labels(pos(DOC, "actions play_card", 8))) == {"play_card", "zap"}
    # inside quotes: card names, replacing what is typed so far
    cards = labels(pos(DOC, '"A♠" {', 1, 1))
    assert set(cards) == {"A♠", "2♥", "Joker"}
    assert cards["A♠"]["textEdit"]["range"]["start"] == pos(DOC, '"A♠" {', 1, 1)


def test_completion_of_enum_members_after_a_dot():
    text = DOC.replace("var lead: Suit = spades", "var lead: Suit = Suit.")
    an = Analysis(text, "x.rules")
    line, col = rc(text, "Suit. ", 5)
    items = complete(an, line, col)
    assert [i.label for i in items] == ["spades", "hearts"]
    assert items[0].replace == (line, col - 5, line, col) and items[0].insert == "spades"
    assert items[0].filter == "Suit.spades"
    # after a card: its properties and name
    line, col = rc(DOC, "c.suit", 2)
    assert {"suit", "rank", "name"} <= {i.label for i in complete(Analysis(DOC, "x.rules"), line, col)}
    # a string being typed (no closing quote yet: the text does not parse): card names
    text = DOC.replace('if c.name == "A♠" { emit scored(active, 2) }', 'if c.name == "A')
    line, col = rc(text, '"A', 2)
    items = complete(Analysis(text, "x.rules"), line, col, Analysis(DOC, "x.rules").index)
    assert {i.label for i in items} == {"A♠", "2♥", "Joker"}
    assert items[0].replace == (line, col - 1, line, col)
    # inside a template's {...}: names again
    line, col = rc(DOC, "{c} is played", 1)
    assert {"c", "lead", "table"} <= {i.label for i in complete(Analysis(DOC, "x.rules"), line, col)}


def test_document_symbols_are_hierarchical(session):
    syms = session.request("textDocument/documentSymbol", {"textDocument": {"uri": URI}})
    by_name = {s["name"]: s for s in syms}
    assert [c["name"] for c in by_name["Suit"]["children"]] == ["spades", "hearts"]
    assert [c["name"] for c in by_name["play_phase"]["children"]] == ["play_card", "zap"]
    assert [(c["name"], c["kind"]) for c in by_name["Joker"]["children"]] == [("wild", 25)]
    assert by_name["bolt"]["children"][0]["name"] == "damage"
    kinds = {s["name"]: s["kind"] for s in syms}
    assert kinds["Spades"] == 2 and kinds["deck"] == 18 and kinds["lead"] == 13 and kinds["high"] == 12
    assert kinds["A♠"] == 19 and kinds["play_card"] == 6 and kinds["scored"] == 24
    for s in syms:   # every selection range lies inside its range
        r, sel = s["range"], s["selectionRange"]
        assert (r["start"]["line"], r["start"]["character"]) <= (sel["start"]["line"], sel["start"]["character"])
        assert (sel["end"]["line"], sel["end"]["character"]) <= (r["end"]["line"], r["end"]["character"])


def test_formatting(session):
    if not session.init["capabilities"].get("documentFormattingProvider"):
        pytest.skip("rulespec.lang.fmt is not on this branch yet: the server does not advertise formatting")
    edits = session.request("textDocument/formatting", {"textDocument": {"uri": URI},
                                                        "options": {"tabSize": 2, "insertSpaces": True}})
    from rulespec.lang.fmt import format_text
    want = format_text(DOC, "/tmp/spades.rules")
    assert edits == [] if want == DOC else edits[0]["newText"] == want


def test_diagnostics_as_you_type_with_utf16_columns(session):
    # a syntax error after 🂡 and ♠ on the same line
    broken = DOC.replace('log "🂡 ♠ {c} is played"', 'log "🂡 ♠ {c} is played" ]')
    session.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                              "contentChanges": [{"text": broken}]})
    diags = session.diagnostics(URI, 2)
    assert len(diags) == 1 and diags[0]["severity"] == 1 and "unexpected ']'" in diags[0]["message"]
    assert diags[0]["range"]["start"] == pos(broken, "played\" ]", 8)
    # a checker error inside a template, after the astral 🂡 (two UTF-16 units) and ♠: an incremental change
    line = DOC.split("\n").index('    log "🂡 ♠ {c} is played"')
    session.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3}, "contentChanges": [
        {"range": {"start": {"line": line, "character": 0}, "end": {"line": line + 1, "character": 0}},
         "text": '    log "🂡 ♠ {nonesuch} is played"\n'}]})
    text3 = DOC.replace("{c} is played", "{nonesuch} is played")
    diags = session.diagnostics(URI, 3)
    assert [d["message"].split("\n")[0] for d in diags] == ["unknown name 'nonesuch'"]
    assert diags[0]["range"] == {"start": pos(text3, "nonesuch"), "end": pos(text3, "nonesuch", 8)}
    # 4 spaces, log, a space, the quote, 🂡 (2 units), a space, ♠, a space, {: the 16th code unit, the 15th character
    assert pos(text3, "nonesuch")["character"] == 15 and rc(text3, "nonesuch")[1] == 15
    # a warning is reported as one (severity 2): an unused variable
    text4 = DOC.replace('var lead: Suit = spades "The suit led."',
                        'var lead: Suit = spades "The suit led."\nvar spare: int = 0')
    session.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 4},
                                              "contentChanges": [{"text": text4}]})
    diags = session.diagnostics(URI, 4)
    assert [d["severity"] for d in diags] == [2] and "spare" in diags[0]["message"]
    assert diags[0]["code"] == "unused-variable"  # the code, as ruff gives its rule codes
    # fixed: the diagnostics are cleared
    session.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 5},
                                              "contentChanges": [{"text": DOC}]})
    assert session.diagnostics(URI, 5) == []


def test_changes_after_a_form_feed_land_where_the_editor_made_them(session):
    # a form feed, like U+2028, is inside a line for the protocol (only LF, CR LF and CR end one)
    # but ends one for Python's splitlines: pygls's copy of the document put the change one line
    # up, and clamped its column to that line (here a blank one) in the request itself
    uri = "file:///tmp/form-feed.rules"
    text = "# page one\f page two\n" + DOC
    session.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rulespec", "version": 1,
                                                             "text": text}})
    assert session.diagnostics(uri, 1) == []
    at = pos(text, "c.rank > 10", 6)    # the line above it is blank
    session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": at, "end": at}, "text": "x"}]})
    diags = session.diagnostics(uri, 2)
    assert [d["message"].split("\n")[0] for d in diags] == ["cards have no property 'rankx'"]
    assert diags[0]["range"]["start"] == pos(text, "c.rank > 10")
    session.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_a_change_to_a_document_that_is_not_open_is_ignored(session):
    # it used to be checked as the change's text applied to an empty document, and its
    # diagnostics published for a file the editor never opened
    uri = "file:///tmp/never-opened.rules"
    session.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 7}, "contentChanges": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "game {"}]})
    log = session.wait(lambda m: m.get("method") == "window/logMessage" and "never-opened" in m["params"]["message"],
                       "a log message about the change")
    assert "not open" in log["params"]["message"]
    assert session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 0, "character": 0}}) is None
    assert not [m for m in session.pending if "never-opened" in json.dumps(m)]


def test_bad_documents_and_requests_do_not_kill_the_server(session):
    bad = "bad.rules"
    uri = f"file:///tmp/{bad}"
    for version, text in enumerate(["\x00\x00 binary", "game {", "}" * 5000, "(" * 5000, "", "game \"x\" {"
                                    + " players 2..2" * 3 + "}"], start=1):
        session.notify("textDocument/didOpen" if version == 1 else "textDocument/didChange",
                       {"textDocument": {"uri": uri, "languageId": "rulespec", "version": version, "text": text}}
                       if version == 1 else {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})
        diags = session.diagnostics(uri, version)
        assert any(d["severity"] == 1 for d in diags), (text[:20], diags)
    # requests about a place past the end, or a document never opened, are answered (with nothing)
    assert session.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": {"line": 999, "character": 999}}) is None
    assert session.request("textDocument/definition", {"textDocument": {"uri": "file:///nowhere.rules"},
                                                       "position": {"line": 0, "character": 0}}) is None
    assert session.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}) == []
    session.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert session.diagnostics(uri) == []
    assert not [m for m in session.pending if "nowhere" in json.dumps(m)]   # nothing said about it
    # and the server still works
    h = session.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")})
    assert "var lead" in h["contents"]["value"]


@contextlib.contextmanager
def patched_server(script: str, text: str):
    """A server started through `script` (which breaks or slows some of its functions, or stands in
    for a module, before it starts the server), initialized, with `text` open at URI; it must
    shut down cleanly at the end. The client has the initialize answer as .init."""
    c = Client(argv=[sys.executable, "-c", script])
    try:
        c.init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.notify("initialized", {})
        c.notify("textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "rulespec", "version": 1,
                                                           "text": text}})
        yield c
        assert c.request("shutdown", None) is None
        c.notify("exit", None)
        assert c.proc.wait(timeout=TIMEOUT) == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()


# The server with two faults put in (no hook in the server itself: the test starts it through a
# script that breaks two of its functions first): checking a text that contains BOOM raises, and
# so does every hover.
FAULTY = """
import rulespec.tools.editor.lsp_analysis as R
from rulespec.tools.editor.lsp import main
real = R.Analysis.__init__
def analysis(self, text, *a, **k):
    if "BOOM" in text:
        raise ValueError("a fault put in by the test")
    real(self, text, *a, **k)
def hover(*a):
    raise KeyError("another fault put in by the test")
R.Analysis.__init__ = analysis
R.hover = hover
main()
"""


def test_internal_errors_are_logged_and_the_server_goes_on():
    with patched_server(FAULTY, DOC + "# BOOM\n") as c:
        diags = c.diagnostics(URI, 1)
        assert len(diags) == 1 and "internal error" in diags[0]["message"]
        log = c.wait(lambda m: m.get("method") == "window/logMessage", "a log message")
        assert log["params"]["type"] == 1 and "a fault put in by the test" in log["params"]["message"]
        assert "Traceback" in log["params"]["message"]
        # a request on that text is answered (with nothing), not with an error
        assert c.request("textDocument/definition", {"textDocument": {"uri": URI},
                                                     "position": pos(DOC, "lead = c.suit")}) is None
        c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                            "contentChanges": [{"text": DOC}]})
        assert c.diagnostics(URI, 2) == []
        # a failing request: answered with null, logged, and the next request works
        assert c.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")}) is None
        log = c.wait(lambda m: m.get("method") == "window/logMessage" and "another fault" in m["params"]["message"],
                     "a log message about the hover")
        assert log["params"]["type"] == 1
        got = c.request("textDocument/definition", {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")})
        assert got[0]["range"]["start"] == pos(DOC, "lead: Suit")


# The server with a slow check (a text containing SLOW takes a second), so that a request is
# surely waiting for the check when the editor cancels it.
SLOW = """
import time
import rulespec.tools.editor.lsp_analysis as R
from rulespec.tools.editor.lsp import main
real = R.Analysis.__init__
def analysis(self, text, *a, **k):
    if "SLOW" in text:
        time.sleep(1)
    real(self, text, *a, **k)
R.Analysis.__init__ = analysis
main()
"""


def test_a_cancelled_request_does_not_cancel_the_check_it_waits_for():
    # editors cancel requests all the time (a hover when the mouse moves on): the check of the
    # version is shared by every request about it, and cancelling one request cancelled the check,
    # so no diagnostics came for that version and every later request on it was answered
    # 'canceled'
    with patched_server(SLOW, DOC) as c:
        assert c.diagnostics(URI, 1) == []
        c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2},
                                            "contentChanges": [{"text": DOC + "# SLOW\n"}]})
        c.next_id += 1
        cancelled = c.next_id
        c.send({"id": cancelled, "method": "textDocument/hover",
                "params": {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")}})
        time.sleep(0.5)   # the hover waits for the check (a second)
        c.notify("$/cancelRequest", {"id": cancelled})
        answer = c.wait(lambda m: m.get("id") == cancelled, "the answer to the cancelled hover")
        assert answer.get("error", {}).get("code") == -32800   # RequestCancelled
        assert c.diagnostics(URI, 2) == []
        h = c.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": pos(DOC, "lead = c.suit")})
        assert "var lead" in h["contents"]["value"]


# The server with a stand-in for rulespec.lang.fmt (put in sys.modules before the server starts): the
# formatting request's wiring, whether or not the real formatter is on this branch.
FAKE_FMT = """
import sys, types
from rulespec.lang.errors import RulesError
fmt = types.ModuleType("rulespec.lang.fmt")
def format_text(text, path="<string>"):
    if "]]" in text:
        raise RulesError([], text)
    return "\\n".join(line.rstrip() for line in text.split("\\n"))
fmt.format_text = format_text
sys.modules["rulespec.lang.fmt"] = fmt
from rulespec.tools.editor.lsp import main
main()
"""


def test_formatting_replaces_the_document_with_what_format_text_returns():
    messy = DOC.replace("lead = c.suit", "lead = c.suit   ").replace('"🂡 ♠ {c} is played"', '"🂡 ♠ {c} is played"  ')
    with patched_server(FAKE_FMT, messy) as c:
        assert c.init["capabilities"]["documentFormattingProvider"]
        params = {"textDocument": {"uri": URI}, "options": {"tabSize": 2, "insertSpaces": True}}
        edits = c.request("textDocument/formatting", params)
        last = messy.split("\n")[-1]
        assert edits == [{"range": {"start": {"line": 0, "character": 0},
                                    "end": {"line": messy.count("\n"), "character": len(last)}},
                          "newText": DOC}]
        c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": DOC}]})
        assert c.request("textDocument/formatting", params) == []          # already formatted
        c.notify("textDocument/didChange", {"textDocument": {"uri": URI, "version": 3},
                                            "contentChanges": [{"text": DOC + "]]"}]})
        assert c.request("textDocument/formatting", params) == []          # does not parse: nothing to do


def test_shutdown_and_exit(session):
    assert session.request("shutdown", None) is None
    session.notify("exit", None)
    assert session.proc.wait(timeout=TIMEOUT) == 0


def test_hostile_editing_of_every_game_gets_every_request_answered():
    """Random edits (seeded) to every shipped game, a share each, with requests at random places in
    between (tests/lsp_fuzz_support.py: what is typed and what must hold). The full run, 300
    edits and more, is benchmarks/lsp_fuzz.py; pytest -s prints the latencies."""
    from lsp_fuzz_support import Fuzzer, latency_table
    fuzzer = Fuzzer(seed=14, timeout=TIMEOUT)   # UTF-16 positions (on main: a request answered 'canceled')
    latency = fuzzer.run(edits=3 * len(fuzzer.docs))
    assert all(latency[k] for k in ("hover", "definition", "completion", "formatting"))
    assert len(latency["diagnostics after an edit"]) == len(fuzzer.docs)
    print("\n" + latency_table(latency))


# ---------------------------------------------------------------------- the analysis, without the protocol
GAMES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "rules").glob("*.rules"))


def _diags(text: str, path: str) -> list:
    try:
        m = check_text(text, path)
        return [(d.severity, d.message, tuple(d.span)) for d in m.warnings]
    except RulesError as e:
        return [(d.severity, d.message, tuple(d.span)) for d in e.diagnostics]


@pytest.mark.parametrize("path", [p for p in GAMES if p.stat().st_size < 100_000], ids=lambda p: p.name)
def test_diagnostics_are_those_of_rulespec_check(path):
    text = path.read_text(encoding="utf-8")
    mine = [(d.severity, d.message, tuple(d.span)) for d in Analysis(text, str(path)).diagnostics]
    assert mine == _diags(text, str(path))


def test_a_broken_declaration_gives_the_syntax_error_of_the_whole_file():
    """The text is parsed declaration by declaration; its first syntax error is that of parsing it whole."""
    text = (ROOT / "games" / "crazy_eights.rules").read_text(encoding="utf-8")
    cache = ChunkCache()
    lines = text.split("\n")
    edits = [("def hand_size", lambda s: s.replace("= if", "= if if")),     # inside a def
             ("action follow", lambda s: s.replace("{", "")),            # no brace: it runs into the next
             ("phase turn", lambda s: s + " }"),                         # one brace too many
             ("passes == 0 or", lambda s: s.replace("==", "== ==")),
             ("can_draw() or (any", lambda s: s + " when")]              # the end of the file
    for start, edit in edits:
        i = next(k for k, line in enumerate(lines) if start in line)
        broken = "\n".join(lines[:i] + [edit(lines[i])] + lines[i + 1:])
        want = _diags(broken, "c8.rules")
        got = [(d.severity, d.message, tuple(d.span)) for d in Analysis(broken, "c8.rules", cache).diagnostics]
        assert want and got[0] == want[0], (i, got, want)


def test_phase_as_a_name_at_the_start_of_a_line_is_not_a_declaration():
    """A cut before 'phase' at the start of a line that goes on with the trigger above is mended."""
    text = DOC.replace("trigger tally on scored { points[p] += n }",
                       'trigger tally on phase_start when\nphase == "play_phase" { points[active] += 0 }')
    assert [d.message for d in Analysis(text, "x.rules").diagnostics] == [d[1] for d in _diags(text, "x.rules")]


def test_edits_reuse_the_parsed_declarations():
    cache = ChunkCache()
    Analysis(DOC, "x.rules", cache)
    n = len(cache.entries)
    moved = "# a new first line\n" + DOC      # every declaration one line down: shifted, not parsed again
    an = Analysis(moved, "x.rules", cache)
    assert an.diagnostics == [] and len(cache.entries) == n + 1   # the first declaration has a new text
    line, col = rc(moved, "lead = c.suit")
    assert definition(an, line, col) == [(rc(moved, "lead: Suit")[0], 5, rc(moved, "lead: Suit")[0], 9)]
    assert hover(an, line, col)[1] == (line, col, line, col + 4)
    assert len(references(an, line, col)) == 2


# ---------------------------------------------------------------------- the VS Code extension
VSCODE = ROOT / "editors" / "vscode"


def test_the_vscode_extension_declares_the_language_and_starts_rulespec_lsp():
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    assert pkg["main"] == "./extension.js" and (VSCODE / "extension.js").exists()
    assert "onLanguage:rulespec" in pkg["activationEvents"]
    (lang,) = pkg["contributes"]["languages"]
    assert lang["id"] == "rulespec" and lang["extensions"] == [".rules"]
    json.loads((VSCODE / lang["configuration"]).read_text(encoding="utf-8"))
    (grammar,) = pkg["contributes"]["grammars"]
    assert grammar["language"] == "rulespec" and grammar["path"] == "./syntaxes/rulespec.tmLanguage.json"
    assert "../rulespec.tmLanguage.json" in pkg["scripts"]["grammar"]          # npm install copies it there
    shared = ROOT / "editors" / "rulespec.tmLanguage.json"
    if shared.exists():   # written with rulespec fmt (another branch): the scope names must agree
        assert json.loads(shared.read_text(encoding="utf-8"))["scopeName"] == grammar["scopeName"]
    props = pkg["contributes"]["configuration"]["properties"]
    assert props["rulespec.server.command"]["default"] == "rulespec"
    assert props["rulespec.server.args"]["default"] == ["lsp"]
    assert "vscode-languageclient" in pkg["dependencies"]
    js = (VSCODE / "extension.js").read_text(encoding="utf-8")
    assert "require('vscode-languageclient/node')" in js
    assert "config.get('server.command', 'rulespec')" in js and "config.get('server.args', ['lsp'])" in js


def test_the_vscode_extension_loads_with_node():
    import shutil
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    subprocess.run([node, "--check", str(VSCODE / "extension.js")], check=True, timeout=TIMEOUT)
    if not (VSCODE / "node_modules" / "vscode-languageclient").exists():
        pytest.skip("run npm install in editors/vscode to load the extension with vscode-languageclient")
    out = subprocess.run([node, "test/activate.js"], cwd=VSCODE, capture_output=True, text=True, timeout=TIMEOUT,
                         check=True).stdout
    made = json.loads(out)
    assert made[0]["server"]["run"] == {"command": "rulespec", "args": ["lsp"], "transport": 0} and made[1] == "start"


def test_a_document_opened_again_starts_from_its_declarations_kept_on_disk(tmp_path, monkeypatch):
    import rulespec.tools.editor.lsp_analysis as R
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path))
    first = Analysis(DOC, "x.rules", ChunkCache())
    R.save_warm(first, ChunkCache())                        # a cache that holds nothing: nothing kept
    assert list(tmp_path.glob("*.lsp")) == []
    cache = ChunkCache()
    first = Analysis(DOC, "x.rules", cache)
    R.save_warm(first, cache)
    assert len(list(tmp_path.glob("*.lsp"))) == 1
    parsed = []
    monkeypatch.setattr(R, "_parse_chunk", lambda *a: parsed.append(a) or (None, []))
    fresh = ChunkCache()
    assert R.load_warm(DOC, "x.rules", fresh) and not R.load_warm(DOC + "\n", "x.rules", ChunkCache())
    again = Analysis(DOC, "x.rules", fresh)
    assert parsed == [] and again.parsed and again.diagnostics == first.diagnostics
    assert [type(d) for d in again.decls] == [type(d) for d in first.decls]
    for f in tmp_path.glob("*.lsp"):                         # a damaged entry is a miss
        f.write_bytes(b"not a pickle")
    assert not R.load_warm(DOC, "x.rules", ChunkCache())


def test_neovim_as_the_client(tmp_path):
    """A real editor's LSP client (Neovim's, headless) against the server: diagnostics, an
    incremental change, hover and definition."""
    import shutil
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim is not installed")
    broken_line = '    log "🂡 ♠ {nonesuch} is played"'
    fixed_line = '    log "🂡 ♠ {c} is played"'
    f = tmp_path / "spades.rules"
    f.write_text(DOC.replace(fixed_line, broken_line), encoding="utf-8")
    out = tmp_path / "out.json"
    p = pos(DOC, "lead = c.suit")
    env = dict(os.environ, RULES_FILE=str(f), PYTHON=sys.executable, OUT=str(out), FIXED=fixed_line,
               ROW=str(p["line"]), COL=str(p["character"]))
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([nvim, "--headless", "-u", "NONE", "-c", f"luafile {ROOT / 'tests' / 'nvim_lsp.lua'}"],
                   env=env, timeout=60, check=True, capture_output=True)
    got = json.loads(out.read_text(encoding="utf-8"))
    (d,) = got["first"]
    assert d["message"] == "unknown name 'nonesuch'" and d["severity"] == 1
    # Neovim keeps byte columns: it converted the server's UTF-16 column (15) to the byte of the name
    assert (d["lnum"], d["col"]) == (pos(DOC, "{c} is played")["line"], len('    log "🂡 ♠ {'.encode("utf-8")))
    assert got["encoding"] == "utf-16"
    assert got["cleared"] is True
    assert "var lead: Suit = spades" in got["hover"]
    assert got["definition"][0]["range"]["start"] == pos(DOC, "lead: Suit")


def test_while_one_declaration_is_broken_the_others_still_answer():
    text = DOC.replace("def high(c: card): bool = c.rank > 10", "def high(c: card): bool = c.rank > > 10")
    an = Analysis(text, "x.rules")
    assert not an.parsed and [d.message for d in an.diagnostics] == ["unexpected '>'"]
    line, col = rc(text, "lead = c.suit")
    assert "var lead: Suit" in hover(an, line, col)[0]
    line, col = rc(text, "c.suit")                       # a parameter, without the checker's help
    assert definition(an, line, col) == [(rc(text, "c: card from")[0], rc(text, "c: card from")[1],
                                          rc(text, "c: card from")[0], rc(text, "c: card from")[1] + 1)]
    assert len(references(an, line, col)) == 6
    # completion still knows every name (those of the broken declaration from the last text that parsed)
    line, col = rc(text, "count(table)", 6)
    names = {i.label for i in complete(an, line, col, Analysis(DOC, "x.rules").index)}
    assert {"high", "lead", "table"} <= names


def test_random_edits_give_the_diagnostics_of_rulespec_check(monkeypatch):
    """Text cut, doubled and broken at random (a fixed seed): the first diagnostic (all of them when
    the text parses) is that of `rulespec check`, and no question about any place raises."""
    import random
    monkeypatch.setenv("RULESPEC_CACHE", "0")
    rng = random.Random(5)
    cache = ChunkCache()
    pieces = ["", "{", "}", "(", ")", '"', "x", "\n", "♠", " . ", "phase", "\naction", "\nphase x", "when", "#", "]"]
    for _ in range(40):
        t = DOC
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(t) + 1)
            t = t[:i] + rng.choice(pieces) + t[min(len(t), i + rng.randint(0, 12)):]
        want = _diags(t, "f.rules")
        an = Analysis(t, "f.rules", cache)
        got = [(d.severity, d.message, tuple(d.span)) for d in an.diagnostics]
        assert (got == want) if an.parsed else (got[:1] == want[:1]), (t, got, want)
        for _ in range(10):
            line, col = rng.randint(1, t.count("\n") + 2), rng.randint(1, 60)
            hover(an, line, col), definition(an, line, col), references(an, line, col), complete(an, line, col)


@pytest.mark.parametrize("encoding, units", [("utf-16", 15), ("utf-8", 19), ("utf-32", 14)])
def test_columns_in_each_position_encoding(encoding, units):
    """A client may ask for UTF-8 or UTF-32 columns instead of UTF-16 (pygls picks the first the
    client offers); 'nonesuch' after 🂡 and ♠ is at 15 UTF-16 units, 19 bytes, 14 characters."""
    from rulespec.tools.editor.lsp import Codec
    text = DOC.replace("{c} is played", "{nonesuch} is played")
    an = Analysis(text, "x.rules")
    (d,) = an.diagnostics
    codec = Codec(encoding)
    rng = codec.range(an, d.span)
    assert (rng.start.line, rng.start.character, rng.end.character) == (pos(text, "nonesuch")["line"], units, units + 8)
    assert codec.from_lsp(an, rng.start) == (d.span.line, d.span.col)
    # a position inside the 🂡 (between its UTF-16 units, or its bytes) is the character itself (UTF-32:
    # character 10 is the space after it)
    line = pos(text, "🂡")["line"]
    from lsprotocol.types import Position
    assert codec.from_lsp(an, Position(line=line, character=10)) == (line + 1, {"utf-16": 10, "utf-8": 10, "utf-32": 11}[encoding])


def test_a_let_name_in_an_expression_is_a_local_with_its_definition():
    from rulespec.tools.editor import lsp_analysis as L
    text = ('game "L" { players 2..2 start p cards start in deck }\ncard "A" { }\nzone deck: pile hidden\n'
            'def twice(n: int): int = let m = n * 2: let k = m + 1: k + m\n'
            'phase p { enter { end game } next p }\n')
    an = L.Analysis(text, "l.rules")
    line = text.split("\n")[3]
    use_k, use_m = line.rindex("k + m") + 1, line.rindex("m") + 1
    assert L.definition(an, 4, use_k) == [L.A.Span(4, line.index("k =") + 1, 4, line.index("k =") + 2)]
    assert L.definition(an, 4, use_m) == [L.A.Span(4, line.index("m =") + 1, 4, line.index("m =") + 2)]
    assert "a local (let)" in L.hover(an, 4, use_k)[0]
