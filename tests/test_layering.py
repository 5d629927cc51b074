"""Layering rules of DESIGN.md, checked on the source: packages never import streamlit,
evaluator never imports governance or reports, and no modules import one another in a circle."""

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package, banned", [
    ("governance", {"streamlit", "pages"}),
    ("evaluator", {"streamlit", "pages", "governance", "reports"}),
    ("reports", {"streamlit", "pages"}),
])
def test_package_imports(package, banned):
    files = list((REPO / package).rglob("*.py"))
    assert files, f"{package}/ has no modules"
    offenders = {str(f.relative_to(REPO)): sorted(imported_modules(f) & banned) for f in files}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_scan_sees_an_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("def f():\n    import streamlit as st\n")
    assert "streamlit" in imported_modules(sample)


def import_cycles(*packages: str) -> list[list[str]]:
    """Each group of modules that import one another in a circle (module level, ``TYPE_CHECKING`` and
    in-function imports all count), as sorted module names; empty when the graph has no cycle."""
    import grimp
    import networkx as nx

    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)  # never stale
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        edges.add_edges_from((module, other) for other in graph.find_modules_directly_imported_by(module))
    return sorted(sorted(group) for group in nx.strongly_connected_components(edges) if len(group) > 1)


def test_no_import_cycle_in_our_packages():
    cycles = import_cycles("governance", "evaluator", "reports", "cli")
    assert cycles == [], "modules importing one another in a circle: " + "; ".join(
        " <-> ".join(group) for group in cycles)


def test_the_cycle_check_sees_a_cycle(tmp_path, monkeypatch):
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import typing\n\nif typing.TYPE_CHECKING:\n    import cyclepkg.b\n")
    (pkg / "b.py").write_text("def f():\n    from cyclepkg import a\n")
    (pkg / "c.py").write_text("from cyclepkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclepkg") == [["cyclepkg.a", "cyclepkg.b"]]
