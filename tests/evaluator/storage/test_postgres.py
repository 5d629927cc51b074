"""The PostgreSQL adapter (evaluator.storage.postgres) on a real server: the DuckDB connection
behaviour stores rely on."""

from __future__ import annotations

import json
import threading

import duckdb
import pytest

from evaluator.storage.db import apply_migrations, dialect, for_dialect, upsert_sql
from evaluator.storage.postgres import PgConnection, redact_url, translate


def test_placeholders_become_psycopg_ones_outside_quotes_only():
    assert translate("SELECT ? , '?', \"a?\" WHERE x LIKE 'a%' AND y = ?", True) == \
        "SELECT %s , '?', \"a?\" WHERE x LIKE 'a%%' AND y = %s"
    assert translate("SELECT 5 % 3", True) == "SELECT 5 %% 3"
    assert translate("SELECT 5 % 3", False) == "SELECT 5 % 3"  # no parameters: psycopg reads it as is


def test_the_password_never_shows():
    assert redact_url("postgresql://app:p%40ss@db:5432/m") == "postgresql://app:***@db:5432/m"
    assert "s3cret" not in redact_url("postgres://u:s3cret@h/d")


def test_ddl_types_and_upserts_for_each_dialect():
    class Pg:
        dialect = "postgresql"

    ddl = "CREATE TABLE t (a DOUBLE, b BLOB, c DOUBLE PRECISION, doubled VARCHAR)"
    assert for_dialect(ddl, Pg()) == \
        "CREATE TABLE t (a DOUBLE PRECISION, b BYTEA, c DOUBLE PRECISION, doubled VARCHAR)"
    assert for_dialect(ddl, duckdb.connect()) == ddl
    assert dialect(Pg()) == "postgresql" and dialect(duckdb.connect()) == "duckdb"


@pytest.mark.parametrize("backend", ["duckdb", "postgresql"])
def test_upsert_and_insert_or_ignore_behave_alike_on_both_backends(backend, request):
    con = duckdb.connect() if backend == "duckdb" else PgConnection.connect(request.getfixturevalue("pg_url"))
    con.execute("CREATE TABLE kv (k VARCHAR PRIMARY KEY, v INTEGER, w VARCHAR)")
    up = upsert_sql("kv", ["k", "v", "w"], ["k"])
    keep = upsert_sql("kv", ["k", "v", "w"], ["k"], update=False)
    con.execute(up, ["a", 1, "x"])
    con.execute(up, ["a", 2, "y"])
    con.execute(keep, ["a", 3, "z"])
    con.executemany(keep, [["b", 4, None], ["b", 5, "q"]])
    assert con.execute("SELECT k, v, w FROM kv ORDER BY k").fetchall() == [("a", 2, "y"), ("b", 4, None)]
    con.close()


def test_values_come_back_as_duckdb_gives_them(pg_url):
    con = PgConnection.connect(pg_url)
    con.execute("CREATE TABLE t (j JSON, n BIGINT, x DOUBLE PRECISION, at TIMESTAMPTZ, b BYTEA, ok BOOLEAN)")
    text = '{"b":1,"a":[1,2],"é":"ü"}'  # key order and spacing kept: hashes are over this exact text
    con.execute("INSERT INTO t VALUES (?, ?, ?, now(), ?, ?)", [text, 2**40, 0.25, b"\x00\xff", True])
    j, n, x, at, b, ok = con.execute("SELECT * FROM t").fetchone()
    assert j == text and json.loads(j)["é"] == "ü"
    assert (n, x, b, ok) == (2**40, 0.25, b"\x00\xff", True)
    assert at.utcoffset().total_seconds() == 0  # read in UTC
    total, mean = con.execute("SELECT sum(n), avg(n) FROM t").fetchone()  # numeric in PostgreSQL
    assert (total, type(total)) == (2**40, int) and mean == 2**40
    half = con.execute("SELECT sum(n) / 2.0 + 0.5 FROM t").fetchone()[0]
    assert half == 2**39 + 0.5 and isinstance(half, float)
    cur = con.execute("SELECT n AS number, x FROM t")
    assert [d[0] for d in cur.description] == ["number", "x"]
    assert list(con.execute("SELECT n, x FROM t").df().columns) == ["n", "x"]
    assert con.execute("CREATE TABLE u (a INT)").fetchall() == []  # a statement without rows
    con.close()


def test_an_explicit_transaction_commits_or_rolls_back_as_one(pg_url):
    con = PgConnection.connect(pg_url)
    con.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    con.execute("BEGIN TRANSACTION")
    con.execute("INSERT INTO t VALUES (?)", [1])
    with pytest.raises(Exception, match="duplicate key"):
        con.execute("INSERT INTO t VALUES (?)", [1])
    con.execute("ROLLBACK")
    assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    con.execute("INSERT INTO t VALUES (?)", [2])  # autocommit again
    other = PgConnection.connect(pg_url)
    assert other.execute("SELECT a FROM t").fetchall() == [(2,)]
    other.close()
    con.close()


def test_cursor_views_are_independent_connections_for_threads_and_are_reused(pg_url):
    con = PgConnection.connect(pg_url)
    con.execute("CREATE TABLE t (who VARCHAR, i INT)")
    errors: list[BaseException] = []

    def work(name: str) -> None:
        view = con.cursor()
        try:
            for i in range(20):
                view.execute("BEGIN TRANSACTION")
                view.execute("INSERT INTO t VALUES (?, ?)", [name, i])
                view.execute("COMMIT")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            view.close()

    threads = [threading.Thread(target=work, args=(f"w{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert con.execute("SELECT who, count(*) FROM t GROUP BY who ORDER BY who").fetchall() == \
        [(f"w{k}", 20) for k in range(4)]
    backends = con.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND application_name = 'medassure'").fetchone()[0]
    assert backends <= 5  # the store's own + the 4 views' connections, kept idle for reuse
    view = con.cursor()
    assert view.execute("SELECT 1").fetchone() == (1,)  # taken from the idle ones, not a new login
    assert con.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND application_name = 'medassure'").fetchone()[0] == backends
    view.close()
    con.close()


def test_migrations_apply_once_when_several_processes_open_a_new_database(pg_url):
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(f"""
        from evaluator.storage.db import apply_migrations
        from evaluator.storage.postgres import PgConnection
        con = PgConnection.connect({pg_url!r})
        n = apply_migrations(con, "race", ["CREATE TABLE r1 (a DOUBLE)", "CREATE TABLE r2 (b BLOB)"])
        print(n)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    assert sorted(int(out) for out, _ in outs) == [0, 0, 0, 2]  # one process applied both, the rest none
    con = PgConnection.connect(pg_url)
    assert apply_migrations(con, "race", ["CREATE TABLE r1 (a DOUBLE)", "CREATE TABLE r2 (b BLOB)"]) == 0
    types = dict(con.execute("SELECT table_name || '.' || column_name, data_type FROM "
                             "information_schema.columns WHERE table_name IN ('r1', 'r2')").fetchall())
    assert types == {"r1.a": "double precision", "r2.b": "bytea"}
    con.close()
