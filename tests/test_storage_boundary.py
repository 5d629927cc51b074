"""No page, CLI module, report or governance module holds a database connection or writes SQL.

SQL lives in the store modules only (each concept's ``governance/<concept>/store.py`` and its parts
``store_*.py``, the dossier's ``store.py`` and ``store_*.py``, and the evaluator's component stores);
everything above them calls the storage interface (``governance/dossier/storage.py``). This test
scans the source and names the file and line of each breach. It also checks that the DuckDB
``Store`` implements every method of the interface with the interface's parameters.
"""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from pathlib import Path

import pytest

import governance  # noqa: F401  (wires the concepts' store components)
from governance.dossier.extensions import component_names
from governance.dossier.storage import DossierStorage
from governance.dossier.store import Store

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("pages", "cli", "reports", "governance")
# A concept's storage component is its ``store.py`` (and, past ~500 lines, its ``store_*.py`` parts).
STORE_MODULES = {p.relative_to(ROOT).as_posix()
                 for pattern in ("governance/*/store.py", "governance/*/store_*.py")
                 for p in ROOT.glob(pattern)}
# No module up here asks for a raw cursor either: a background job gets ``for_thread()`` (jobs.py).
CURSOR_ALLOWED: set[str] = set()

CODE_RULES = [
    (re.compile(r"\.con\b"), "uses a database connection (.con)"),
    (re.compile(r"^\s*(import duckdb|from duckdb\b)"), "imports duckdb"),
    (re.compile(r"\.execute(many)?\("), "executes SQL (.execute)"),
]
CURSOR_RULE = (re.compile(r"\.cursor\("), "asks for a raw database cursor (.cursor())")
SQL = re.compile(
    r"\b(SELECT\b[\s\S]*\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|"
    r"CREATE\s+(TABLE|SEQUENCE|INDEX|VIEW)|ALTER\s+TABLE|DROP\s+TABLE|BEGIN\s+TRANSACTION)\b"
)


def breaches(source: str, rel: str) -> list[str]:
    """``file:line: why`` for every connection use or SQL text in one module's source."""
    found = []
    rules = CODE_RULES + ([] if rel in CURSOR_ALLOWED else [CURSOR_RULE])
    for number, line in enumerate(source.splitlines(), 1):
        code = line.split("#", 1)[0]
        found += [f"{rel}:{number}: {why}" for pattern, why in rules if pattern.search(code)]
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and SQL.search(tok.string):
            found.append(f"{rel}:{tok.start[0]}: SQL text outside a store module")
    return found


def scanned_files() -> list[Path]:
    files = [p for top in SCANNED for p in sorted((ROOT / top).rglob("*.py"))]
    return [p for p in files if p.relative_to(ROOT).as_posix() not in STORE_MODULES]


def test_no_connection_or_sql_above_the_store():
    files = scanned_files()
    assert len(files) > 100, "the scan found too few modules: wrong root?"
    found = [b for p in files
             for b in breaches(p.read_text(encoding="utf-8"), p.relative_to(ROOT).as_posix())]
    assert not found, "storage leaks above the store:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("rows = store.con.execute('SELECT 1')", "(.con)"),
        ("import duckdb", "imports duckdb"),
        ("cur.executemany(sql, rows)", "(.execute)"),
        ("docs = DocumentStore(store.cursor())", "cursor"),
        ('sql = "SELECT id FROM dossier_versions"', "SQL text"),
        ('q = """\n    INSERT INTO audit_log VALUES (?)\n"""', "SQL text"),
        ('x = "UPDATE runs SET status = ?"', "SQL text"),
    ],
)
def test_the_scan_catches_each_kind_of_leak(line, why):
    (hit,) = [b for b in breaches(line + "\n", "pages/x.py") if why in b][:1]
    assert hit.startswith("pages/x.py:")


def test_the_scan_leaves_prose_and_store_calls_alone():
    source = (
        '"""Select a dossier from the list; update the title."""\n'
        "runs = store.runs.get_run(run_id)  # not store.con\n"
        "connection_count = 2\n"
    )
    assert breaches(source, "pages/x.py") == []


def _members(cls: type) -> dict[str, object]:
    """The methods and properties a protocol declares (attributes such as ``path`` are checked apart)."""
    return {n: v for n, v in vars(cls).items()
            if not n.startswith("_") and (callable(v) or isinstance(v, property))}


def test_the_duckdb_store_implements_every_method_of_the_storage_interface(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        assert isinstance(store, DossierStorage)
        members = _members(DossierStorage)
        assert {"save", "load", "history", "list_dossiers", "audit_log", "runs", "documents"} <= set(members)
        for name, declared in members.items():
            if isinstance(declared, property) and name in component_names():
                # a concept's component (store.reviews, ...): registered by name, built on access
                assert type(getattr(store, name)).__name__ in str(declared.fget.__annotations__["return"])
                continue
            actual = inspect.getattr_static(store, name)
            if isinstance(declared, property):
                assert isinstance(actual, property), f"Store.{name} should be a property"
                continue
            want = [(p.name, p.kind, p.default) for p in inspect.signature(declared).parameters.values()]
            got = [(p.name, p.kind, p.default) for p in inspect.signature(actual).parameters.values()]
            assert got == want, f"Store.{name} takes {got}, the interface says {want}"
        assert "path" in DossierStorage.__annotations__ and store.path == tmp_path / "medassure.duckdb"
        view = store.for_thread()
        assert isinstance(view, DossierStorage) and view.is_empty()
        view.close()
    finally:
        store.close()
