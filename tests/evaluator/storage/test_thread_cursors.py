"""Each thread reads its own result from the app's shared DuckDB file (issue 36 item 2).

The lost sign-off: the Decision page's ``monitoring_status`` unpacked four columns and got a row of
another query's (``too many values to unpack (expected 4)``). DuckDB keeps one pending result per
connection, and the app's store used to run every Streamlit session's statements on its one connection:
one thread's ``execute`` and its ``fetchall`` could have another thread's statement in between. Now
each thread runs on its own cursor of the open file.
"""

from __future__ import annotations

import threading

import duckdb
import pytest

from evaluator.storage.idle import IdleReleasingConnection

ROUNDS = 400


@pytest.fixture
def con(tmp_path):
    path = tmp_path / "x.duckdb"
    duckdb.connect(str(path)).execute(
        "CREATE TABLE t AS SELECT range AS a, range AS b, range AS c, range AS d FROM range(50)").close()
    c = IdleReleasingConnection(lambda: duckdb.connect(str(path)), idle_s=30.0)
    yield c
    c.close()


def _hammer(con, sql: str, width: int, wrong: list, errors: list, start: threading.Barrier) -> None:
    start.wait()
    for _ in range(ROUNDS):
        try:
            rows = con.execute(sql).fetchall()
        except Exception as exc:  # a result taken by another thread surfaces as an error too
            errors.append(repr(exc))
            continue
        if not rows or any(len(r) != width for r in rows):
            wrong.append(rows[:1])


def test_two_threads_never_read_each_others_result(con):
    wrong: list = []
    errors: list = []
    start = threading.Barrier(3)
    jobs = [threading.Thread(target=_hammer, args=(con, sql, width, wrong, errors, start))
            for sql, width in (("SELECT a, b, c, d FROM t", 4), ("SELECT a, b FROM t WHERE a < 7", 2),
                               ("SELECT a, b, c, d, a + b, c + d FROM t", 6))]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(120)
    assert not wrong and not errors, (len(wrong), errors[:3])


def test_a_transaction_is_the_threads_own(con):
    """Another thread's statements never land inside this thread's open transaction."""
    con.execute("BEGIN TRANSACTION")
    con.execute("INSERT INTO t VALUES (100, 100, 100, 100)")
    seen = []
    other = threading.Thread(target=lambda: seen.append(con.execute("SELECT count(*) FROM t").fetchone()[0]))
    other.start()
    other.join(30)
    assert seen == [50]  # the other thread does not see (or commit) the uncommitted row
    con.execute("ROLLBACK")
    assert con.execute("SELECT count(*) FROM t").fetchone() == (50,)


def test_pages_asking_for_monitoring_status_at_once_all_get_it(tmp_path):
    """The Decision page's call, from four sessions' threads at once on the app's store (idle-releasing)."""
    from governance.dossier.store import Store
    from governance.identity import Actor
    from governance.monitoring import monitoring_status
    from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv

    store = Store.open(tmp_path / "medassure.duckdb", release_when_idle=30.0)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        from governance.monitoring.operations.feed import import_feed

        import_feed(store, dossier_id, write_csv(tmp_path / "feed.csv", feed_rows(300, material_every=5)),
                    actor=Actor.named("qa"), now=NOW)
        expected = monitoring_status(store, dossier_id, now=NOW)
        got, errors = [], []
        start = threading.Barrier(4)

        def page() -> None:
            start.wait()
            for _ in range(15):
                try:
                    got.append(monitoring_status(store, dossier_id, now=NOW))
                    store.load(dossier_id)  # the page's other reads in between
                except Exception as exc:
                    errors.append(repr(exc))

        jobs = [threading.Thread(target=page) for _ in range(4)]
        for job in jobs:
            job.start()
        for job in jobs:
            job.join(300)
        assert not errors, errors[:3]
        assert len(got) == 60 and all(s == expected for s in got)
    finally:
        store.close()
