"""The house: three floors, imports only downward, no circles (docs/architecture.md says what stands on each floor).

  tools      rulespec/tools/ (and the package faces rulespec/*.py): what people use
  engine     interpreter/: a checked Model to running states
  language   rulespec/lang/: rules text to a checked Model

Every import of every module is read from its syntax tree -- at the top of a file, inside a
function, or for a type checker only -- and held to two rules: a file imports only files of its
own floor or the floors below it, and no files import each other in a circle.  A failure names
the file, the line and the import.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("rulespec", "interpreter")
FLOORS = {"language": 1, "engine": 2, "tools": 3}


def floor_of(rel: Path) -> str:
    parts = rel.parts
    if parts[0] == "interpreter":
        return "engine"
    if parts[:2] == ("rulespec", "lang"):
        return "language"
    return "tools"  # rulespec/tools/ and the faces at the package's top


def module_name(rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> dict:
    """module name -> path relative to the root, for every module of the project's packages."""
    out = {}
    for pkg in PACKAGES:
        for f in (ROOT / pkg).rglob("*.py"):
            rel = f.relative_to(ROOT)
            if "vendor" not in rel.parts:
                out[module_name(rel)] = rel
    return out


def imports_of(rel: Path, modules: dict) -> list:
    """(line, imported module) for every import of a project module in the file."""
    tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
    me = module_name(rel)
    package = me if rel.name == "__init__.py" else me.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((node.lineno, a.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for a in node.names:
                sub = f"{mod}.{a.name}"
                out.append((node.lineno, sub if sub in modules else mod))
    return [(line, m) for line, m in out if m in modules]


def import_graph():
    modules = source_files()
    graph = nx.DiGraph()
    lines = {}
    for mod, rel in modules.items():
        graph.add_node(rel)
        for line, target in imports_of(rel, modules):
            other = modules[target]
            if other != rel:
                graph.add_edge(rel, other)
                lines.setdefault((rel, other), line)
    return graph, lines


def test_no_file_imports_up_a_floor():
    graph, lines = import_graph()
    up = [f"{a}:{lines[a, b]}: the {floor_of(a)} imports {b} ({floor_of(b)})"
          for a, b in graph.edges if FLOORS[floor_of(b)] > FLOORS[floor_of(a)]]
    assert not up, "imports up a floor:\n" + "\n".join(sorted(up))


def test_no_files_import_each_other_in_a_circle():
    graph, lines = import_graph()
    circles = [c for c in nx.simple_cycles(graph)]
    described = [" -> ".join(f"{a} (line {lines[a, b]})" for a, b in zip(c, c[1:] + c[:1])) for c in circles]
    assert not circles, "circles of imports:\n" + "\n".join(sorted(described)[:20])


def test_the_floors_are_folders():
    """Every module stands in one of the three floors' folders (or is a face at the top)."""
    modules = source_files()
    assert any(floor_of(r) == "language" for r in modules.values())
    top = sorted(str(r) for r in modules.values()
                 if r.parent == Path("rulespec") and r.name not in ("__init__.py",))
    # the faces at the package's top only hand a moved module on (a few lines each)
    for face in top:
        assert len((ROOT / face).read_text(encoding="utf-8").splitlines()) < 15, f"{face} is more than a face"


def test_the_check_sees_an_import_up_and_a_circle(tmp_path, monkeypatch):
    """The two rules can fail: a planted import of the tools by the language, and a circle."""
    lang = tmp_path / "rulespec" / "lang"
    tools = tmp_path / "rulespec" / "tools"
    lang.mkdir(parents=True)
    tools.mkdir(parents=True)
    (tmp_path / "interpreter").mkdir()
    for d in (tmp_path / "rulespec", lang, tools, tmp_path / "interpreter"):
        (d / "__init__.py").write_text("")
    (lang / "a.py").write_text("from rulespec.tools import b\n")
    (tools / "b.py").write_text("def f():\n    from rulespec.tools import c\n")
    (tools / "c.py").write_text("from . import b\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    graph, lines = import_graph()
    assert (Path("rulespec/lang/a.py"), Path("rulespec/tools/b.py")) in graph.edges
    assert lines[Path("rulespec/tools/b.py"), Path("rulespec/tools/c.py")] == 2
    assert [sorted(map(str, c)) for c in nx.simple_cycles(graph)] == [["rulespec/tools/b.py", "rulespec/tools/c.py"]]
