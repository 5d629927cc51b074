"""One seeded demo database per test session for the monitoring tests (seeding imports six feed months).

Import the fixture into a test module (``from tests.demo_monitoring import demo_db  # noqa: F401``);
tests only read it, or copy it first (``copy_demo``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = "D-demo-portal"


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    """The demo database, seeded once (its feed months are the six before the month of seeding)."""
    from governance.demo.seed import seed_demo
    from governance.dossier.store import Store

    path = tmp_path_factory.mktemp("demo-monitoring") / "medassure.duckdb"
    store = Store.open(path)
    seed_demo(store)
    store.close()
    return path


def copy_demo(demo_db: Path, home: Path) -> Path:
    """A fresh copy of the seeded demo in ``home`` (for tests that write)."""
    home.mkdir(parents=True, exist_ok=True)
    shutil.copy(demo_db, home / "medassure.duckdb")
    return home / "medassure.duckdb"
