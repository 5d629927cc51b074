"""The house's size and storage rules (issue 23), checked on the source.

* No module of the app's packages is over 500 lines (split a file past that, or when it holds two
  jobs).
* The concrete ``Store`` class is imported only by the front desk (``governance.actions``), the
  dossier records (``governance.dossier``) and the demo; everything else types against the
  ``DossierStorage`` protocol, and the pages and the CLI open a store through the ``governance`` face.
"""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO

PACKAGES = ("governance", "evaluator", "reports", "pages", "cli")
MAX_LINES = 500
STORE_IMPORTERS = ("governance/actions/", "governance/dossier/", "governance/demo/")


def modules():
    return [REPO / "app.py", *(p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py")))]


def store_imports(source: str) -> list[str]:
    """Modules this source takes the concrete ``Store`` from (``from x import Store``)."""
    return [n.module for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)
            and n.module and any(a.name == "Store" for a in n.names)]


def test_the_scan_sees_a_store_import():
    assert store_imports("def f():\n    from governance.dossier.store import Store\n") == [
        "governance.dossier.store"]
    assert store_imports("from governance.dossier.storage import DossierStorage") == []


def test_no_module_over_the_size_limit():
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in modules()}
    assert {f: n for f, n in sizes.items() if n > MAX_LINES} == {}


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_concrete_store_stays_at_the_front_desk(path):
    rel = str(path.relative_to(REPO))
    found = store_imports(path.read_text())
    if rel.startswith(STORE_IMPORTERS) or rel == "governance/__init__.py":
        return
    assert all(m == "governance" for m in found), f"{rel} imports Store from {found}: use DossierStorage"
