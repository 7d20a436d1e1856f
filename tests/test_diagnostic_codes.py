"""Every diagnostic has a stable code; a warning can be silenced by '# rulespec: allow CODE -- reason'
(counted by `rulespec check`); a diagnostic may point at a second place (docs/language.md,
"Diagnostics, codes and silencing")."""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from test_checker import BASE, CASES, ODD, diagnostics, edit

from rulespec.lang.ast import Span
from rulespec.lang.checker import check_text
from rulespec.lang.diagnostic_codes import CODES, ERRORS, WARNINGS, is_known
from rulespec.lang.diagnostics import Diagnostic, Related, RulesError
from rulespec.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent
UNUSED = "var spare: int = 0\n"  # a warning: unused-variable, on the line after BASE


def test_every_emit_site_names_a_known_code():
    """A walk over the language's source: each checker.error/warning call starts with a code of
    the table, and each Diagnostic(...) built there passes code=."""
    seen = set()
    for f in sorted((ROOT / "rulespec").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)
            owner = getattr(fn.value, "id", None) if isinstance(fn, ast.Attribute) else None
            where = f"{f.relative_to(ROOT)}:{node.lineno}"
            if name == "_fl_sink":  # the flow check's sinks name their code; check_flow passes it on
                codes = node.args[2]
                codes = [codes.body, codes.orelse] if isinstance(codes, ast.IfExp) else [codes]
                for c in codes:
                    assert isinstance(c, ast.Constant) and c.value in WARNINGS, where
                    seen.add(c.value)
            elif name in ("error", "warning") and owner in ("self", "checker") and "lang" in f.parts:
                first = node.args[0] if node.args else None
                if f.name == "flow.py" and isinstance(first, ast.Name) and first.id == "code":
                    continue  # a sink's code (checked at the _fl_sink calls above)
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), where
                table = ERRORS if name == "error" else WARNINGS
                assert first.value in table, f"{where}: {first.value!r} is not a {name} code"
                seen.add(first.value)
            elif name == "Diagnostic" and len(node.args) >= 2:
                kw = {k.arg: k.value for k in node.keywords}
                code = kw.get("code") or (node.args[5] if len(node.args) > 5 else None)
                assert code is not None, f"{where}: a Diagnostic without a code"
                if isinstance(code, ast.Constant):
                    assert is_known(code.value), where
                    seen.add(code.value)
    assert {"unknown-name", "type-mismatch", "unused-zone", "syntax", "unused-allow"} <= seen
    assert {c for c in WARNINGS if c.startswith("secrecy-")} <= seen  # each secrecy code is reported somewhere


def _all_diagnostics(text: str) -> list:
    try:
        m = check_text(text, "t.rules")
        return m.warnings + m.silenced
    except RulesError as e:
        return e.diagnostics


@pytest.mark.parametrize("text", [c[1] for c in CASES] + [BASE + s for s in ODD] + [
    "game {", "game \"x\" { players 2..4 }\n@", BASE.replace("phase over", "phase over over"), BASE + "zone z: pile pile\n"],
    ids=[c[0] for c in CASES] + [f"odd{i}" for i in range(len(ODD))] + ["eof", "char", "token", "twice"])
def test_no_diagnostic_lacks_a_code(text):
    for d in _all_diagnostics(text):
        assert d.code in CODES, d.headline()


def test_the_docs_list_every_code():
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    part = doc[doc.index("## Diagnostics, codes and silencing"):]
    for code in CODES:
        assert f"| `{code}` |" in part, code


def test_text_shows_the_code_last_and_a_related_place_as_a_note():
    d = Diagnostic("warning", "hand[claimant] is read here", "t.rules", Span(3, 5, 3, 9), "announce it",
                   code="secrecy-branch", related=Related(Span(7, 3, 7, 8), "and decides who loses here"))
    assert d.render().split("\n") == ["t.rules:3:5: warning: hand[claimant] is read here [secrecy-branch]",
                                      "t.rules:7:3: note: and decides who loses here", "  hint: announce it"]
    assert d.to_dict()["code"] == "secrecy-branch"
    assert d.to_dict()["related"] == {"line": 7, "column": 3, "end_line": 7, "end_column": 8,
                                      "message": "and decides who loses here"}


def test_an_allow_comment_with_a_reason_silences_that_warning():
    for comment_line in ("var spare: int = 0  # rulespec: allow unused-variable -- kept for the expansion\n",
                         "# rulespec: allow unused-variable -- kept for the expansion\n" + UNUSED):
        m = check_text(BASE + comment_line, "t.rules")
        assert m.warnings == [] and [d.code for d in m.silenced] == ["unused-variable"]
    # another code, or a comment two lines above: not silenced, and the comment is reported as stale
    for text in (BASE + "var spare: int = 0  # rulespec: allow unused-zone -- no\n",
                 BASE + "# rulespec: allow unused-variable -- far\n\n" + UNUSED):
        m = check_text(text, "t.rules")
        assert sorted(d.code for d in m.warnings) == ["unused-allow", "unused-variable"] and m.silenced == []


def test_an_allow_comment_needs_a_reason_and_a_code():
    m = check_text(BASE + "var spare: int = 0  # rulespec: allow unused-variable\n", "t.rules")
    assert sorted(d.code for d in m.warnings) == ["allow-without-reason", "unused-variable"]
    m = check_text(BASE + "var spare: int = 0  # rulespec: allow -- why\n", "t.rules")
    assert sorted(d.code for d in m.warnings) == ["bad-allow", "unused-variable"]
    # inside a string it is text, not a comment
    m = check_text(BASE.replace('"the deck is empty"', '"# rulespec: allow x"'), "t.rules")
    assert m.warnings == []


def test_an_error_cannot_be_silenced():
    text = edit(("move cards(table) to discard", "move cards(table) to discrad  # rulespec: allow unknown-name -- no"))
    codes = sorted(d.code for d in diagnostics(text))
    assert codes == ["unknown-name", "unused-allow", "unused-zone"]  # (discard is then never used)


def test_check_counts_the_silenced_in_text_json_and_from_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RULESPEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULESPEC_CACHE", raising=False)
    f = tmp_path / "s.rules"
    f.write_text(BASE + "var spare: int = 0  # rulespec: allow unused-variable -- for the expansion\n"
                 + "zone spare_zone: pile public\n", encoding="utf-8")
    for _ in range(2):  # the second time from the model cache's header
        assert main(["check", str(f)]) == 0
        cap = capsys.readouterr()
        assert re.search(r": ok \(.*, 1 warning, 1 silenced\)$", cap.out.strip()), cap.out
        assert "[unused-zone]" in cap.err and "spare'" not in cap.err
        assert main(["check", "--format", "json", str(f)]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert [(r["code"], r.get("silenced", False)) for r in rows] == [("unused-zone", False),
                                                                          ("unused-variable", True)]


def test_the_language_server_gives_the_code_and_the_related_place():
    from rulespec.tools.editor import lsp
    from rulespec.tools.editor.lsp_analysis import Analysis
    text = BASE + UNUSED
    an = Analysis(text, "/tmp/t.rules")
    [w] = an.diagnostics
    an.diagnostics = [Diagnostic("warning", w.message, w.path, w.span, None, "secrecy-var",
                                 Related(Span(2, 3, 2, 8), "and is seen here"))]
    server = lsp.build_server()
    sent = []
    server.text_document_publish_diagnostics = sent.append
    server.publish(lsp.Doc("file:///tmp/t.rules"), an)
    [d] = sent[0].diagnostics
    assert d.code == "secrecy-var"
    [r] = d.related_information
    assert r.message == "and is seen here" and r.location.uri == "file:///tmp/t.rules"
    assert (r.location.range.start.line, r.location.range.start.character) == (1, 2)
