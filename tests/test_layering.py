"""Layering rules of DESIGN.md, checked on the source: packages never import streamlit, and
evaluator never imports governance or reports."""

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
