"""Pictures of what an editor shows for a rules file, made from the real pieces.

No editor runs here, so the pictures of docs/editors.md are drawn by this test from what an editor
would draw them from:

- the colours: the TextMate grammar editors/rulespec.tmLanguage.json, run by a small TextMate
  engine (rulespec/tools/editor/textmate.py, unit-tested first below) and coloured with a dark theme in the
  manner of VS Code's Dark+;
- the squiggle, the problem, the hover and the completion list: the answers of the real language
  server (`python -m rulespec.tools.cli lsp`, driven over stdio with tests/test_lsp.py's client) for
  games/crazy_eights.rules with one deliberate mistake in it.

They are laid out as an HTML page that looks like an editor and photographed with a headless
Chromium through Playwright (found as tests/test_web.py finds it; those tests skip, saying so, when
there is none). The checks are on the page: the squiggle covers exactly the diagnostic's text, the
hover box holds the server's text, the completion popup its first items, keywords carry the
keyword class. Screenshots go to $RULESPEC_SCREENSHOTS (default: a temporary folder):
editor-diagnostics.png and editor-hover-completion.png; docs/img/ holds a set made with
RULESPEC_SCREENSHOTS=docs/img.
"""
from __future__ import annotations

import html
import os
import re
import sys
from pathlib import Path

import pytest

from rulespec.tools.editor.textmate import Grammar, theme_rule

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR_PATH = ROOT / "editors" / "rulespec.tmLanguage.json"
GAME = ROOT / "games" / "crazy_eights.rules"
CAPTION = "rendered by tests/test_editor_preview.py from rulespec lsp's answers and editors/rulespec.tmLanguage.json"

# the deliberate mistake: a suit misspelt in the second card (the columns stay aligned)
RIGHT = 'card "2 of clubs"     { suit: clubs    rank: 2 }'
WRONG = 'card "2 of clubs"     { suit: club     rank: 2 }'


@pytest.fixture(scope="module")
def grammar() -> Grammar:
    return Grammar.load(GRAMMAR_PATH)


def scopes_of(grammar: Grammar, line: str) -> dict:
    """{token text: its innermost scope} of one line (the first token with that text)."""
    found = {}
    for t in grammar.tokenize(line)[0]:
        found.setdefault(t.text, t.scopes[-1])
    return found


# ---------------------------------------------------------------------- the TextMate engine
def test_keywords_get_keyword_scopes(grammar):
    s = scopes_of(grammar, "action follow(c: card from hand[active] where c.rank != 8) {")
    assert s["action"] == "storage.type.rulespec"
    assert s["follow"] == "entity.name.function.rulespec"          # the name the declaration declares
    assert s["from"] == "keyword.other.rulespec" and s["where"] == "keyword.other.rulespec"
    assert s["active"] == "variable.language.rulespec" and s["hand"] == "variable.other.rulespec"
    assert s["!="] == "keyword.operator.comparison.rulespec" and s["8"] == "constant.numeric.integer.rulespec"
    s = scopes_of(grammar, "  require matches(c) else \"no\"")
    assert s["require"] == s["else"] == "keyword.control.rulespec"
    assert s["matches"] == "entity.name.function.call.rulespec"
    s = scopes_of(grammar, "let n = count c in hand[p] where c.rank >= 10 and not done")
    assert s["count"] == "keyword.operator.quantifier.rulespec"    # a name follows: a quantifier
    assert s["and"] == s["not"] == s["in"] == "keyword.operator.logical.rulespec"
    assert scopes_of(grammar, "x = count(hand[p])")["count"] == "support.function.builtin.rulespec"


def test_a_template_hole_in_a_string_is_an_interpolation(grammar):
    tokens = grammar.tokenize('    log "{active} names {s}"')[0]
    by_text = {t.text: t.scopes for t in tokens}
    assert tokens[3].text == '"' and tokens[3].scopes[-1] == "punctuation.definition.string.begin.rulespec"
    assert tokens[-1].text == '"' and tokens[-1].scopes[-1] == "punctuation.definition.string.end.rulespec"
    assert by_text["{"][-1] == "punctuation.section.interpolation.begin.rulespec"
    active = by_text["active"]
    assert active[-1] == "variable.language.rulespec"            # coloured as an expression ...
    assert "meta.interpolation.rulespec" in active and "string.quoted.double.rulespec" in active  # ... inside
    assert by_text[" names "] == ("source.rulespec", "string.quoted.double.rulespec")
    assert "meta.interpolation.rulespec" not in by_text[" names "]
    assert [t.text for t in tokens][-3:] == ["s", "}", '"']
    # a hole or a string left open ends with its line, as the grammar's `$` says
    lines = grammar.tokenize('log "{open\nnext turn')
    assert lines[1][0].scopes == ("source.rulespec", "keyword.control.rulespec")


def test_comments_strings_numbers_and_card_names(grammar):
    tokens = grammar.tokenize('passes += 1  # "not a string" 12')[0]
    assert tokens[-1].text == '# "not a string" 12'
    assert tokens[-1].scopes[-1] == "comment.line.number-sign.rulespec"
    assert scopes_of(grammar, "passes += 1")["+="] == "keyword.operator.assignment.rulespec"
    # a card's name after `card`, `use` and `as`: a string, and a card's name inside it
    for line, name in (('card "A of clubs"     { suit: clubs    rank: 1 }', "A of clubs"),
                       ('  use "Strike" from hand[p]', "Strike"), ('conversion x as "Dodge \\"D\\""', 'Dodge \\"D\\"')):
        tokens = {t.text: t.scopes for t in grammar.tokenize(line)[0]}
        assert tokens[name][-1] == "entity.name.type.card.rulespec", line
        assert "string.quoted.double.rulespec" in tokens[name]
    # any other string is only a string, with its escapes
    tokens = {t.text: t.scopes[-1] for t in grammar.tokenize('doc "say \\"hi\\""')[0]}
    assert tokens["say "] == "string.quoted.double.rulespec" and tokens['\\"'] == "constant.character.escape.rulespec"


def test_every_character_of_a_game_is_in_one_token(grammar):
    text = GAME.read_text(encoding="utf-8")
    lines = grammar.tokenize(text)
    assert len(lines) == text.count("\n") + 1
    for line, tokens in zip(text.split("\n"), lines):
        assert "".join(t.text for t in tokens) == line
        assert all(t.scopes[0] == "source.rulespec" for t in tokens)


def test_the_stack_carries_a_rule_over_lines_and_unsupported_features_are_refused():
    g = Grammar({"scopeName": "source.t", "patterns": [
        {"name": "comment.block.t", "begin": "/\\*", "end": "\\*/", "contentName": "inner.t",
         "patterns": [{"match": "TODO", "name": "keyword.todo.t"}]},
        {"include": "#word"}],
        "repository": {"word": {"patterns": [{"match": "(\\w)(\\w*)", "captures": {"1": {"name": "first.t"}},
                                             "name": "word.t"}]}}})
    one, two = g.tokenize("ab /* x\nTODO */ cd")
    assert [(t.text, t.scopes[1:]) for t in one] == [
        ("a", ("word.t", "first.t")), ("b", ("word.t",)), (" ", ()), ("/*", ("comment.block.t",)),
        (" x", ("comment.block.t", "inner.t"))]
    assert [(t.text, t.scopes[1:]) for t in two] == [
        ("TODO", ("comment.block.t", "inner.t", "keyword.todo.t")), (" ", ("comment.block.t", "inner.t")),
        ("*/", ("comment.block.t",)), (" ", ()), ("c", ("word.t", "first.t")), ("d", ("word.t",))]
    for bad in ({"begin": "a", "while": "b"}, {"include": "source.other"}, {"begin": "(a)", "end": "\\1"},
                {"match": "(a", "name": "x"}, {"match": "a", "captures": {"0": {"patterns": []}}}):
        with pytest.raises(ValueError):
            Grammar({"scopeName": "source.t", "patterns": [bad]})
    looping = Grammar({"scopeName": "source.t", "patterns": [{"begin": "(?=x)", "end": "y", "patterns": [{"include": "$self"}]}]})
    with pytest.raises(ValueError, match="loops"):
        looping.tokenize("xx")


# ---------------------------------------------------------------------- the theme
# (scope selector, CSS classes); colours below, after VS Code's Dark+
THEME = [
    ("comment", "comment"),
    ("string", "string"),
    ("punctuation.definition.string", "string"),
    ("constant.character.escape", "escape"),
    ("meta.interpolation", "plain"),                 # a {hole}'s insides: coloured as expressions
    ("punctuation.section.interpolation", "interp"),
    ("entity.name.type.card", "card"),
    ("constant.numeric", "number"),
    ("constant.language", "constant"),
    ("storage.type", "keyword storage"),
    ("keyword.control", "keyword control"),
    ("keyword.operator.quantifier", "keyword word"),
    ("keyword.operator.logical", "keyword word"),
    ("keyword.other", "keyword"),
    ("keyword.operator", "operator"),
    ("entity.name.function", "function"),
    ("support.function", "function"),
    ("variable.language", "builtin"),
    ("variable", "variable"),
    ("punctuation", "punct"),
]

CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #eceff1; font-family: 'DejaVu Sans', sans-serif; }
#shot { display: inline-block; padding: 18px 18px 10px; background: #eceff1; }
.window { position: relative; width: 1040px; background: #1e1e1e; color: #d4d4d4; border-radius: 8px;
          overflow: hidden; box-shadow: 0 6px 24px rgba(0,0,0,.35); border: 1px solid #3c3c3c; }
.tabs { display: flex; background: #252526; height: 35px; }
.tab { padding: 0 16px; line-height: 35px; font-size: 13px; background: #1e1e1e; color: #fff;
       border-top: 1px solid #0078d4; }
.tab .errors { color: #f14c4c; margin-left: 10px; font-size: 12px; }
.crumbs { height: 22px; line-height: 22px; padding-left: 18px; font-size: 12px; color: #a9a9a9; }
.editor { position: relative; overflow: hidden; padding: 2px 0 8px; }
.code { font-family: 'DejaVu Sans Mono', monospace; font-size: 13px; }
.line { display: flex; height: 19px; line-height: 19px; white-space: pre; }
.line.current { background: #282828; }
.ln { width: 58px; flex: none; text-align: right; padding-right: 26px; color: #6e7681; user-select: none; }
.line.current .ln { color: #c6c6c6; }
.text { flex: none; }
.comment { color: #6a9955; } .string { color: #ce9178; } .escape { color: #d7ba7d; }
.interp { color: #569cd6; } .card { color: #4ec9b0; } .number { color: #b5cea8; }
.constant { color: #569cd6; } .keyword { color: #569cd6; } .keyword.control { color: #c586c0; }
.operator, .punct, .plain { color: #d4d4d4; } .function { color: #dcdcaa; } .builtin { color: #569cd6; }
.variable { color: #9cdcfe; }
.squiggle { text-decoration: underline wavy #f14c4c; text-decoration-skip-ink: none;
            text-underline-offset: 3px; text-decoration-thickness: 1px; }
.cursor { display: inline-block; width: 0; height: 18px; vertical-align: top; border-left: 2px solid #aeafad; }
.popup { position: absolute; z-index: 5; background: #252526; border: 1px solid #454545;
         box-shadow: 0 2px 10px rgba(0,0,0,.6); font-size: 13px; }
.hover { max-width: 640px; padding: 0; }
.hover .part { padding: 6px 10px; }
.hover .part + .part { border-top: 1px solid #454545; }
.hover pre { margin: 2px 0 6px; white-space: pre-wrap; font-family: 'DejaVu Sans Mono', monospace; font-size: 13px; }
.hover p { margin: 4px 0; line-height: 1.4; }
.hover code { font-family: 'DejaVu Sans Mono', monospace; font-size: 12.5px; color: #d7ba7d; }
.problem-msg { white-space: pre-wrap; line-height: 1.45; }
.source { color: #8b8b8b; margin-left: 6px; }
.icon-error { color: #f14c4c; font-weight: bold; margin-right: 6px; }
.completion { width: 540px; font-family: 'DejaVu Sans Mono', monospace; padding: 2px 0; }
.item { display: flex; align-items: center; height: 22px; padding: 0 6px; white-space: pre; }
.item.focused { background: #04395e; outline: 1px solid #2b79d8; outline-offset: -1px; }
.kind { width: 16px; height: 16px; margin-right: 7px; flex: none; border-radius: 3px; font-size: 11px;
        line-height: 16px; text-align: center; font-family: 'DejaVu Sans', sans-serif; color: #1e1e1e; }
.label { flex: 1; overflow: hidden; }
.detail { color: #9d9d9d; margin-left: 14px; overflow: hidden; text-overflow: ellipsis; max-width: 400px; }
.panel { border-top: 1px solid #3c3c3c; background: #1e1e1e; font-size: 13px; padding-bottom: 6px; }
.panel-tabs { display: flex; gap: 22px; padding: 6px 18px; font-size: 11px; letter-spacing: .04em; color: #969696; }
.panel-tabs .on { color: #e7e7e7; border-bottom: 1px solid #e7e7e7; padding-bottom: 3px; }
.badge { background: #616161; color: #fff; border-radius: 9px; padding: 0 6px; margin-left: 5px; }
.file-row { padding: 3px 22px; color: #cccccc; }
.file-row .dir { color: #8b8b8b; margin-left: 6px; }
.problem { display: flex; padding: 3px 22px 3px 40px; }
.problem .where { color: #8b8b8b; margin-left: 8px; white-space: nowrap; }
.status { display: flex; justify-content: space-between; height: 22px; line-height: 22px; background: #007acc;
          color: #fff; font-size: 12px; padding: 0 12px; }
.status span { margin-right: 16px; }
.caption { margin-top: 9px; font-size: 12px; color: #555; font-style: italic; text-align: center; }
"""

# LSP CompletionItemKind: (name, glyph, colour), in the manner of VS Code's symbol icons
KINDS = {1: ("text", "T", "#c5c5c5"), 2: ("method", "m", "#b180d7"), 3: ("function", "f", "#b180d7"),
         5: ("field", "F", "#75beff"), 6: ("variable", "v", "#75beff"), 7: ("class", "C", "#ee9d28"),
         10: ("property", "p", "#c5c5c5"), 12: ("value", "V", "#75beff"), 13: ("enum", "E", "#ee9d28"),
         14: ("keyword", "k", "#c5c5c5"), 20: ("enum member", "e", "#75beff"), 21: ("constant", "c", "#c5c5c5"),
         22: ("struct", "S", "#ee9d28"), 23: ("event", "!", "#ee9d28"), 25: ("type parameter", "t", "#c5c5c5")}

PLACE_JS = """() => {
  // popups beside their anchors, as an editor places them: a hover above its word when there is
  // room (else below), a completion list below the cursor; never past the editor's right edge
  const ed = document.querySelector('.editor'), er = ed.getBoundingClientRect();
  for (const box of document.querySelectorAll('.popup')) {
    const a = document.getElementById(box.dataset.anchor).getBoundingClientRect();
    let top = box.dataset.side === 'above' ? a.top - er.top - box.offsetHeight - 3 : a.bottom - er.top + 3;
    if (top < 0) top = a.bottom - er.top + 3;
    const left = Math.max(4, Math.min(a.left - er.left - 4, er.width - box.offsetWidth - 12));
    box.style.top = top + 'px';
    box.style.left = left + 'px';
  }
  document.body.dataset.placed = '1';
}"""


# ---------------------------------------------------------------------- positions
def char_col(line: str, units: int) -> int:
    """The column in characters of an LSP (UTF-16) column."""
    n = 0
    for i, ch in enumerate(line):
        if n >= units:
            return i
        n += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def utf16_col(line: str, chars: int) -> int:
    return len(line[:chars].encode("utf-16-le")) // 2


def lsp_pos(lines: list, needle: str, offset: int = 0, nth: int = 0) -> dict:
    """The LSP position of the nth line holding needle, at needle (plus offset characters)."""
    hits = [(i, l.index(needle)) for i, l in enumerate(lines) if needle in l]
    i, col = hits[nth]
    return {"line": i, "character": utf16_col(lines[i], col + offset)}


def range_text(lines: list, rng: dict) -> str:
    """The source text of an LSP range."""
    s, e = rng["start"], rng["end"]
    a, b = char_col(lines[s["line"]], s["character"]), char_col(lines[e["line"]], e["character"])
    if s["line"] == e["line"]:
        return lines[s["line"]][a:b]
    return "\n".join([lines[s["line"]][a:]] + lines[s["line"] + 1:e["line"]] + [lines[e["line"]][:b]])


# ---------------------------------------------------------------------- the page
def token_html(tokens: list, line: str, marks: list) -> str:
    """One line's tokens as spans of the theme's classes, with marks (start, end, tag) wrapped
    around the characters they cover (nested or apart) and empty marks (start == end) inserted."""
    cuts = sorted({0, len(line)} | {t.start for t in tokens} | {m[0] for m in marks} | {m[1] for m in marks})
    opened: list = []
    out = []

    def close_until(col):
        while opened and opened[-1][1] <= col:
            out.append("</span>")
            opened.pop()

    for a, b in zip(cuts, cuts[1:] + [None]):
        close_until(a)
        for m in sorted((m for m in marks if m[0] == a), key=lambda m: -m[1]):
            if m[1] == a:
                out.append(f"<span {m[2]}></span>")
            else:
                assert not opened or m[1] <= opened[-1][1], "marks must nest"
                out.append(f"<span {m[2]}>")
                opened.append(m)
        if b is None:
            break
        tok = next(t for t in tokens if t.start <= a < t.end)
        cls = theme_rule(tok.scopes, THEME) or "plain"
        out.append(f'<span class="tok {cls}" data-scope="{html.escape(" ".join(tok.scopes[1:]))}">'
                   f"{html.escape(line[a:b])}</span>")
    close_until(len(line) + 1)
    return "".join(out)


def markdown_html(md: str, grammar: Grammar) -> str:
    """The little markdown of the server's hovers: ```rulespec blocks (coloured with the
    grammar, as editors colour them), paragraphs and `code`."""
    out, para = [], []
    lines = md.split("\n")
    i = 0

    def flush():
        if para:
            text = html.escape(" ".join(para))
            out.append("<p>" + re.sub(r"`([^`]+)`", r"<code>\1</code>", text) + "</p>")
            para.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            code = lines[i + 1:j]
            tokens = grammar.tokenize("\n".join(code))
            out.append('<pre class="code">' + "\n".join(token_html(t, l, []) for t, l in zip(tokens, code)) + "</pre>")
            i = j + 1
            continue
        if line.strip():
            para.append(line.strip())
        else:
            flush()
        i += 1
    flush()
    return "".join(out)


def markdown_text(md: str) -> str:
    """What the reader sees of that markdown, its spaces collapsed: no fences, no backquotes."""
    kept = [line for line in md.split("\n") if not line.startswith("```")]
    return " ".join(" ".join(kept).replace("`", "").split())


def render(grammar: Grammar, path: Path, text: str, first: int, last: int, diagnostics: list,
           cursor: dict, hover: dict | None = None, hover_at_diagnostic: bool = False,
           completion: list | None = None) -> str:
    """An editor window showing lines first..last (from 0) of text: the grammar's colours, a
    squiggle under each diagnostic, a hover box (the diagnostic's message with the server's hover
    of the word there, or just the server's hover of a name), a completion list at the cursor,
    the Problems panel and a status bar."""
    lines = text.split("\n")
    tokens = grammar.tokenize(text)
    marks: dict = {i: [] for i in range(len(lines))}
    for k, d in enumerate(diagnostics):
        s, e = d["range"]["start"], d["range"]["end"]
        for ln in range(s["line"], e["line"] + 1):
            a = char_col(lines[ln], s["character"]) if ln == s["line"] else 0
            b = char_col(lines[ln], e["character"]) if ln == e["line"] else len(lines[ln])
            marks[ln].append((a, b, f'class="squiggle" id="diag-{k}-{ln}" data-diagnostic="{k}"'))
    popups = []
    if hover is not None:
        r = hover["range"]
        ln = r["start"]["line"]
        a, b = char_col(lines[ln], r["start"]["character"]), char_col(lines[ln], r["end"]["character"])
        marks[ln].append((a, b, 'id="hover-anchor"'))
        parts = []
        if hover_at_diagnostic:
            for d in diagnostics:
                if d["range"]["start"]["line"] <= ln <= d["range"]["end"]["line"]:
                    parts.append(f'<div class="part problem-part"><span class="problem-msg">{html.escape(d["message"])}</span>'
                                 f'<span class="source">{html.escape(d.get("source", ""))}</span></div>')
        # the problem first, then the language's hover, as VS Code orders them
        parts.append(f'<div class="part hover-contents">{markdown_html(hover["contents"]["value"], grammar)}</div>')
        popups.append(f'<div class="popup hover" id="hover" data-anchor="hover-anchor" data-side="above">{"".join(parts)}</div>')
    cl, cc = cursor["line"], char_col(lines[cursor["line"]], cursor["character"])
    marks[cl].append((cc, cc, 'class="cursor" id="cursor"'))
    if completion:
        rows = []
        for k, item in enumerate(completion):
            name, glyph, colour = KINDS.get(item.get("kind"), ("text", "T", "#c5c5c5"))
            detail = f'<span class="detail">{html.escape(item.get("detail") or "")}</span>' if k == 0 else ""
            rows.append(f'<div class="item{" focused" if k == 0 else ""}"><span class="kind" title="{name}" '
                        f'style="background:{colour}">{glyph}</span><span class="label">{html.escape(item["label"])}'
                        f"</span>{detail}</div>")
        popups.append(f'<div class="popup completion" id="completion" data-anchor="cursor" data-side="below">{"".join(rows)}</div>')
    body = []
    for i in range(first, last + 1):
        cls = "line current" if i == cl else "line"
        body.append(f'<div class="{cls}" data-line="{i + 1}"><span class="ln">{i + 1}</span>'
                    f'<span class="text">{token_html(tokens[i], lines[i], marks[i])}</span></div>')
    errors = sum(d.get("severity") == 1 for d in diagnostics)
    warnings = sum(d.get("severity") == 2 for d in diagnostics)
    problems = "".join(
        f'<div class="problem"><span class="icon-error">{"⊗" if d.get("severity") == 1 else "⚠"}</span>'
        f'<span class="problem-msg">{html.escape(d["message"])}</span><span class="source">{html.escape(d.get("source", ""))}</span>'
        f'<span class="where">[Ln {d["range"]["start"]["line"] + 1}, Col {d["range"]["start"]["character"] + 1}]</span></div>'
        for d in diagnostics)
    name, folder = path.name, path.parent.name
    return f"""<!doctype html><html><head><meta charset="utf-8"><style>{CSS}</style></head><body>
<div id="shot"><div class="window">
<div class="tabs"><div class="tab">{name}<span class="errors">{errors or ""}</span></div></div>
<div class="crumbs">{folder} › {name}</div>
<div class="editor code">{"".join(body)}{"".join(popups)}</div>
<div class="panel"><div class="panel-tabs"><span class="on">PROBLEMS<span class="badge">{len(diagnostics)}</span></span>
<span>OUTPUT</span><span>TERMINAL</span></div>
<div class="file-row">{name}<span class="dir">{folder}</span><span class="badge">{len(diagnostics)}</span></div>
<div id="problems">{problems}</div></div>
<div class="status"><div><span>⊗ {errors}  ⚠ {warnings}</span></div>
<div><span>Ln {cl + 1}, Col {cc + 1}</span><span>UTF-8</span><span>LF</span><span>rulespec</span></div></div>
</div><div class="caption">{html.escape(CAPTION)}</div></div></body></html>"""


# ---------------------------------------------------------------------- the server's answers
@pytest.fixture(scope="module")
def answers():
    """What `rulespec lsp` says about crazy_eights.rules with the mistake: its diagnostics, its
    hover on the mistake and on a variable, and its completion list in an expression."""
    pytest.importorskip("pygls", reason="rulespec lsp needs pygls: pip install 'rulespec[lsp]'")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_lsp import Client

    original = GAME.read_text(encoding="utf-8")
    assert original.count(RIGHT) == 1
    text = original.replace(RIGHT, WRONG)
    lines = text.split("\n")
    uri = GAME.as_uri()
    c = Client()
    try:
        c.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {
            "general": {"positionEncodings": ["utf-16"]},
            "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}})
        c.notify("initialized", {})
        c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "rulespec", "version": 1,
                                                           "text": text}})
        diagnostics = c.diagnostics(uri, 1)
        doc = {"textDocument": {"uri": uri}}
        at_error = lsp_pos(lines, "suit: club ", 6)
        variable = lsp_pos(lines, "suit_to_follow = c.suit")
        cursor = lsp_pos(lines, "move c to discard", 10, nth=1)     # in action eight
        got = {"text": text, "lines": lines, "diagnostics": diagnostics,
               "at_error": at_error, "hover_error": c.request("textDocument/hover", {**doc, "position": at_error}),
               "variable": variable, "hover_variable": c.request("textDocument/hover", {**doc, "position": variable}),
               "cursor": cursor, "completion": c.request("textDocument/completion", {**doc, "position": cursor})}
        c.request("shutdown", None)
        c.notify("exit", None)
    finally:
        c.close()
    items = got["completion"]["items"] if isinstance(got["completion"], dict) else got["completion"]
    # an editor lists them by sortText (then label) until something is typed
    got["items"] = sorted(items, key=lambda i: (i.get("sortText") or i["label"], i["label"]))
    return got


def test_the_server_finds_the_mistake_and_answers(answers):
    lines = answers["lines"]
    [d] = answers["diagnostics"]
    assert d["severity"] == 1 and "'club' is not a member of Suit" in d["message"] and "'clubs'" in d["message"]
    assert range_text(lines, d["range"]) == "club"
    assert d["range"]["start"]["line"] == answers["at_error"]["line"]
    assert "var suit_to_follow: Suit" in answers["hover_variable"]["contents"]["value"]
    assert range_text(lines, answers["hover_variable"]["range"]) == "suit_to_follow"
    labels = [i["label"] for i in answers["items"]]
    assert {"discard", "stock", "hand", "suit_to_follow"} <= set(labels)


# ---------------------------------------------------------------------- in a browser
from browser_support import browser, shots  # noqa: E402,F401 (pytest fixtures)


def _show(browser, page_html: str):
    page = browser.new_page(viewport={"width": 1100, "height": 800}, device_scale_factor=1)
    page.set_content(page_html)
    page.evaluate("document.fonts.ready")
    page.evaluate(PLACE_JS)
    return page


def _spans(page, text: str) -> list:
    """The classes of every code span (in the editor, not in a popup) whose text is text."""
    return page.evaluate("""t => Array.from(document.querySelectorAll('.editor > .line span.tok'))
        .filter(s => s.textContent === t).map(s => s.className)""", text)


def _box(page, selector: str) -> dict:
    return page.evaluate("s => { const r = document.querySelector(s).getBoundingClientRect();"
                         " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }", selector)


def _apart(a: dict, b: dict) -> bool:
    return a["bottom"] <= b["top"] or b["bottom"] <= a["top"] or a["right"] <= b["left"] or b["right"] <= a["left"]


def test_diagnostics_picture(grammar, answers, browser, shots):
    [d] = answers["diagnostics"]
    line = d["range"]["start"]["line"]
    html_text = render(grammar, GAME, answers["text"], 0, 39, answers["diagnostics"], cursor=answers["at_error"],
                       hover=answers["hover_error"], hover_at_diagnostic=True)
    page = _show(browser, html_text)
    # the squiggle is under the diagnostic's text, on its line
    squiggles = page.locator(".squiggle")
    assert squiggles.count() == 1
    assert squiggles.first.inner_text() == range_text(answers["lines"], d["range"]) == "club"
    assert page.evaluate("document.querySelector('.squiggle').closest('.line').dataset.line") == str(line + 1)
    assert page.inner_text(f'.line[data-line="{line + 1}"] .ln') == str(line + 1)
    # the hover box: the server's hover of the word and the diagnostic's message
    assert " ".join(page.inner_text("#hover .hover-contents").split()) == markdown_text(answers["hover_error"]["contents"]["value"])
    assert page.inner_text("#hover .problem-msg") == d["message"]
    assert _apart(_box(page, "#hover"), _box(page, ".squiggle"))
    assert _box(page, "#hover")["bottom"] <= _box(page, ".squiggle")["top"]     # above it, as editors put it
    # the Problems panel lists it with its place
    assert page.inner_text("#problems .problem-msg") == d["message"]
    assert f"[Ln {line + 1}, Col {d['range']['start']['character'] + 1}]" in page.inner_text("#problems")
    # the grammar's colours: keywords, card names, comments, strings, numbers
    for word in ("game", "option", "enum", "property", "card", "players", "start", "if", "sum"):
        classes = _spans(page, word)
        assert classes and all("keyword" in c.split() for c in classes), (word, classes)
    assert _spans(page, "A of clubs") == ["tok card"] and _spans(page, "2 of clubs") == ["tok card"]
    assert all("comment" in c for c in _spans(page, "# The 52 cards of a standard deck: no jokers."))
    assert len(_spans(page, "2")) >= 2 and all(c == "tok number" for c in _spans(page, "2"))
    assert "string" in _spans(page, '"')[0]
    assert page.inner_text(".caption") == CAPTION
    page.locator("#shot").screenshot(path=str(shots / "editor-diagnostics.png"))
    page.close()


def test_hover_and_completion_picture(grammar, answers, browser, shots):
    hover = answers["hover_variable"]
    items = answers["items"][:10]
    html_text = render(grammar, GAME, answers["text"], 112, 146, answers["diagnostics"], cursor=answers["cursor"],
                       hover=hover, completion=items)
    page = _show(browser, html_text)
    assert page.inner_text("#hover-anchor") == range_text(answers["lines"], hover["range"]) == "suit_to_follow"
    assert " ".join(page.inner_text("#hover").split()) == markdown_text(hover["contents"]["value"])
    assert "The suit the next card must match" in page.inner_text("#hover")
    labels = page.evaluate("Array.from(document.querySelectorAll('#completion .label')).map(e => e.textContent)")
    assert labels == [i["label"] for i in items]
    assert page.inner_text("#completion .focused .detail") == (items[0].get("detail") or "")
    # the list opens at the cursor, below it; the hover above its word; neither covers the other
    cur, comp, hov = _box(page, "#cursor"), _box(page, "#completion"), _box(page, "#hover")
    assert abs(comp["top"] - cur["bottom"]) <= 6 and abs(comp["left"] - cur["left"]) <= 8
    assert hov["bottom"] <= _box(page, "#hover-anchor")["top"] and _apart(comp, hov)
    # keywords inside actions, and a {hole} in a string coloured as an expression
    for word in ("action", "require", "effect", "move", "to", "log", "if", "emit", "doc", "text"):
        classes = _spans(page, word)
        assert classes and all("keyword" in c.split() for c in classes), (word, classes)
    holes = page.evaluate("""Array.from(document.querySelectorAll('.editor span.tok'))
        .filter(s => s.dataset.scope.includes('meta.interpolation') && s.textContent === 'active').map(s => s.className)""")
    assert holes == ["tok builtin"]
    page.locator("#shot").screenshot(path=str(shots / "editor-hover-completion.png"))
    page.close()
