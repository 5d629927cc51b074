"""The database file is checked on open (issue 19, Database faults).

Junk in the middle of the file, a file of another program, a DuckDB database of another
application and an unreadable write-ahead log each give a clear message naming the file and
what to do; the CLI exits 2 (or warns and goes on, for the log) without a traceback.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from governance.dossier.record import Dossier
from governance.dossier.store import Store, StoreCorruptError, StoreWarning

REPO = Path(__file__).resolve().parents[3]


def _dossier(i: int) -> Dossier:
    from governance.intended_use.records import example_intended_use

    return Dossier(id=f"D-{i}", title=f"Dossier {i}", owner="dr.lee", intended_use=example_intended_use())


def _filled_store(path: Path) -> None:
    """A store whose file is mostly one big table (so junk in the middle lands in used blocks)."""
    with Store.open(path) as store:
        store.save(_dossier(1), author="dr.lee", note="created")
        cur = store.cursor()
        cur.execute(
            "INSERT INTO audit_log (logged_at, actor, dossier_id, action, detail) "
            "SELECT now(), 'bulk', 'D-1', 'note', to_json({'text': md5(range::VARCHAR) || repeat('x', 200)}) "
            "FROM range(60000)"
        )
        cur.execute("CHECKPOINT")
        cur.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _cli(home: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEDASSURE_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "cli", *argv], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=120)


@pytest.fixture
def damaged(home) -> Path:
    db = home / "medassure.duckdb"
    _filled_store(db)
    size = db.stat().st_size
    assert size > 4 * 65536, size
    with db.open("r+b") as fh:
        fh.seek(size // 2)
        fh.write(os.urandom(65536))
    return db


def test_junk_in_the_middle_is_found_on_open_and_nothing_is_written(damaged):
    before = _sha(damaged)
    with pytest.raises(StoreCorruptError) as info:
        Store.open(damaged)
    message = str(info.value)
    assert str(damaged) in message and "audit_log" in message and "backup" in message
    assert _sha(damaged) == before


def test_cli_reports_a_damaged_file_with_exit_2_and_no_traceback(damaged, home):
    result = _cli(home, "dossier", "list")
    assert result.returncode == 2, result.stderr
    assert str(damaged) in result.stderr and "damaged" in result.stderr
    assert "Traceback" not in result.stderr and "duckdb" not in result.stderr.lower().replace(".duckdb", "")


def test_a_read_error_after_open_is_a_store_error_not_a_driver_error(damaged, monkeypatch):
    import governance.dossier.store_opening as store_module

    monkeypatch.setattr(store_module, "damaged_tables", lambda con: {})  # as if the damage came later
    with Store.open(damaged) as store, pytest.raises(StoreCorruptError) as info:
        store.audit_log()
    assert str(damaged) in str(info.value) and "audit_log" in str(info.value)


@pytest.mark.parametrize(("name", "args"), [
    ("save", (_dossier(1), "dr.lee")), ("update", ("D-1", lambda d: d, "dr.lee")), ("load", ("D-1",)),
    ("latest_or_none", ("D-1",)), ("history", ("D-1",)), ("list_dossiers", ()), ("is_empty", ()),
    ("audit", ("dr.lee", "export")), ("audit_log", ()), ("chain_rows", ("D-1",)), ("verify_chain", ("D-1",)),
])
def test_every_public_method_of_the_stores_parts_answers_a_driver_error_with_a_store_error(home, name, args):
    # The methods live in the store_* mixins; the guard must still wrap each of them on Store.
    from governance.dossier.store import StoreError

    store = Store.open(home / "medassure.duckdb")
    store._con.close()  # every statement now raises duckdb.ConnectionException
    with pytest.raises(StoreError, match=r"could not be read \(\w+: "):  # load's message names latest_or_none
        getattr(store, name)(*args)


def test_a_sqlite_file_is_refused_before_duckdb_sees_it(home):
    home.mkdir(parents=True)
    db = home / "medassure.duckdb"
    lite = sqlite3.connect(db)
    lite.execute("CREATE TABLE patients (name TEXT)")
    lite.commit()
    lite.close()
    before = _sha(db)
    with pytest.raises(StoreCorruptError, match="SQLite database"):
        Store.open(db)
    assert _sha(db) == before
    result = _cli(home, "dossier", "list")
    assert result.returncode == 2 and "not a readable MedAssure database" in result.stderr
    assert "Traceback" not in result.stderr and "INSTALL" not in result.stderr


def test_another_applications_duckdb_database_is_refused_untouched(home):
    home.mkdir(parents=True)
    db = home / "medassure.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE sales (x INT)")
    con.close()
    with pytest.raises(StoreCorruptError, match="another application"):
        Store.open(db)
    con = duckdb.connect(str(db), read_only=True)
    assert [r[0] for r in con.execute("SHOW TABLES").fetchall()] == ["sales"]
    con.close()


def test_every_connection_has_extension_autoload_off(store):
    cur = store.cursor()
    settings = cur.execute(
        "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions')"
    ).fetchone()
    cur.close()
    assert settings == (False, False)
    from evaluator.runs.store import RunStore

    raw = duckdb.connect()
    RunStore(raw, journal_dir=None)
    assert raw.execute("SELECT current_setting('autoload_known_extensions')").fetchone()[0] is False


_KILLED_WRITER = """
import os, sys
from pathlib import Path
from governance.dossier.store import Store
from tests.governance.dossier.test_store_integrity import _dossier
store = Store.open(Path(sys.argv[1]))
store.save(_dossier(2), author="dr.lee", note="written just before the crash")
os._exit(0)
"""


def _crash_after_write(db: Path) -> Path:
    subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(db)], check=True, cwd=REPO, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    wal = db.with_name(db.name + ".wal")
    assert wal.stat().st_size > 0, "the killed writer left a write-ahead log"
    return wal


def test_a_readable_wal_is_replayed_without_a_warning(home, recwarn):
    db = home / "medassure.duckdb"
    with Store.open(db) as store:
        store.save(_dossier(1), author="dr.lee")
    _crash_after_write(db)
    with Store.open(db) as store:
        assert store.open_warnings == ()
        assert {d.id for d in store.list_dossiers()} == {"D-1", "D-2"}
    assert not [w for w in recwarn if issubclass(w.category, StoreWarning)]


def test_a_junk_wal_is_reported_and_kept(home):
    db = home / "medassure.duckdb"
    with Store.open(db) as store:
        store.save(_dossier(1), author="dr.lee")
    wal = _crash_after_write(db)
    junk = os.urandom(wal.stat().st_size)
    wal.write_bytes(junk)
    with pytest.warns(StoreWarning, match="could not be read"), Store.open(db) as store:
        assert len(store.open_warnings) == 1 and str(wal) in store.open_warnings[0]
        assert {d.id for d in store.list_dossiers()} == {"D-1"}  # what DuckDB dropped is really gone
    kept = list(home.glob("medassure.duckdb.wal.unreadable-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == junk


def test_cli_warns_about_a_junk_wal_and_goes_on(home):
    db = home / "medassure.duckdb"
    with Store.open(db) as store:
        store.save(_dossier(1), author="dr.lee")
    wal = _crash_after_write(db)
    wal.write_bytes(os.urandom(wal.stat().st_size))
    result = _cli(home, "dossier", "list")
    assert result.returncode == 0, result.stderr
    assert f"warning: The write-ahead log {wal}" in result.stderr and "Traceback" not in result.stderr


def test_the_full_read_is_skipped_only_for_a_file_exactly_as_a_clean_close_left_it(home, monkeypatch):
    import governance.dossier.store_opening as store_module

    calls: list[str] = []
    real = store_module.damaged_tables
    monkeypatch.setattr(store_module, "damaged_tables", lambda con: calls.append("read") or real(con))
    db = home / "medassure.duckdb"
    _filled_store(db)
    assert calls == ["read"]  # a new file: no clean-close mark yet
    Store.open(db).close()
    assert calls == ["read"], "unchanged since the clean close: no full read"
    store = Store.open(db)
    assert calls == ["read"]
    store.for_thread().close()  # a thread's cursor closing does not mark the file clean
    store._con.close()  # as if the process died: the connection ends without Store.close
    Store.open(db).close()
    assert calls == ["read", "read"], "no fresh mark after a crash: everything is read"
    with db.open("r+b") as fh:  # same size, new bytes (and so a new mtime)
        fh.seek(db.stat().st_size // 2)
        fh.write(os.urandom(65536))
    with pytest.raises(StoreCorruptError):
        Store.open(db)
    assert calls == ["read", "read", "read"]
