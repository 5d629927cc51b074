"""The house's size and storage rules (issue 23), checked on the source.

* No module of the app's packages is over 500 lines (split a file past that, or when it holds two
  jobs).
* The concrete ``Store`` class is imported only by a concept's operations
  (``governance/<concept>/operations/``), the dossier and its store (``governance.dossier``) and
  the demo; everything else types against the ``DossierStorage`` protocol, and the pages and the
  CLI open a store through the ``governance`` face.
"""

from __future__ import annotations

import ast

import pytest

from tests.conftest import REPO

PACKAGES = ("governance", "evaluator", "reports", "pages", "cli")
MAX_LINES = 500
STORE_IMPORTERS = ("governance/dossier/", "governance/demo/")


RECORD_MODULES = ("records", "plan_records", "feed_records")
RECORD_FLOOR = {"governance.dossier.user_text", "governance.intended_use.risk"}


def is_operation(rel: str) -> bool:
    """A concept's operations: ``governance/<concept>/operations.py`` or its ``operations/`` package."""
    return rel.startswith("governance/") and ("/operations/" in rel or rel.endswith("/operations.py"))


def governance_imports(path) -> set[str]:
    """The ``governance.*`` modules a source file imports (``from x import y`` and ``import x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m.startswith("governance.")}


def is_record_module(module: str) -> bool:
    return module.split(".")[-1] in RECORD_MODULES


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
def test_the_concrete_store_stays_with_the_operations(path):
    rel = str(path.relative_to(REPO))
    found = store_imports(path.read_text())
    if rel.startswith(STORE_IMPORTERS) or is_operation(rel) or rel == "governance/__init__.py":
        return
    assert all(m == "governance" for m in found), f"{rel} imports Store from {found}: use DossierStorage"


def record_modules():
    return sorted(p for p in (REPO / "governance").glob("*/*.py") if p.stem in RECORD_MODULES)


def test_every_concept_with_records_is_seen():
    concepts = {p.parent.name for p in record_modules()}
    assert {"decision", "evidence", "intended_use", "monitoring", "procurement", "reevaluation", "review",
            "rules"} <= concepts


@pytest.mark.parametrize("path", record_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_records_module_imports_only_records_and_the_floor(path):
    """Records are the dossier's schema, outside the concept layers (pyproject.toml): so they import
    no logic, operation or store of any concept, only other records and the floor's plain text types."""
    above = {m for m in governance_imports(path) if not is_record_module(m) and m not in RECORD_FLOOR}
    assert above == set(), f"{path.relative_to(REPO)} imports logic from {sorted(above)}"


def concept_stores():
    return sorted(p for p in (REPO / "governance").glob("*/store*.py") if p.parent.name != "dossier")


@pytest.mark.parametrize("path", concept_stores(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_concept_store_imports_no_operation(path):
    """Inside a concept the order is operations > store > records: the store never calls back up."""
    up = {m for m in governance_imports(path) if ".operations" in m}
    assert up == set(), f"{path.relative_to(REPO)} imports operations {sorted(up)}"


def test_the_record_rule_sees_a_logic_import(tmp_path):
    source = tmp_path / "records.py"
    source.write_text("from governance.rules.records import Policy\n"
                      "from governance.rules.verdicts import Verdict\n")
    assert {m for m in governance_imports(source) if not is_record_module(m)} == {"governance.rules.verdicts"}


def concept_logic():
    """A concept's modules below its operations: its pure logic, its records and its store."""
    return sorted(p for p in (REPO / "governance").glob("*/*.py")
                  if p.parent.name != "demo" and p.name not in ("__init__.py", "operations.py"))


@pytest.mark.parametrize("path", concept_logic(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_concept_logic_module_imports_no_operation(path):
    """Operations sit above logic and storage: pure logic never reaches up to what opens a store."""
    up = {m for m in governance_imports(path) if ".operations" in m}
    assert up == set(), f"{path.relative_to(REPO)} imports operations {sorted(up)}"


def test_the_logic_rule_sees_an_operation_import(tmp_path):
    source = tmp_path / "status.py"
    source.write_text("def f():\n    from governance.monitoring.operations.feed import import_feed\n")
    assert {m for m in governance_imports(source) if ".operations" in m} == {
        "governance.monitoring.operations.feed"}
