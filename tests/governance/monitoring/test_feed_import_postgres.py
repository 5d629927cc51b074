"""The feed import's PostgreSQL leg (``store_feed_pg``): a candidate's first rows COPY'd straight into the
feed tables, plain inserts of the rows not yet stored, the ``ON CONFLICT`` path when a concurrent importer
stored a key meanwhile, and seals that still verify."""

from __future__ import annotations

import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.monitoring import store_feed_pg
from governance.monitoring.store_feed_import import FeedError
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier, feed_rows, write_csv

pytestmark = pytest.mark.postgres


def _import(store, dossier_id, path):
    from governance.monitoring.operations.feed import import_feed

    return import_feed(store, dossier_id, path, actor=Actor.named("qa"), now=NOW).record


def _imports_verify(store, dossier_id, records) -> None:
    stored = store.monitoring.import_digests(dossier_id)
    for record in records:
        assert stored[record.id][1:] == (record.sealed_rows, record.sealed_digest)


def _files(tmp_path):
    first = write_csv(tmp_path / "a.csv", feed_rows(10))
    again = feed_rows(20)  # r0..r9 again as stored (no tag), and r10..r19 new, tagged
    for i, row in enumerate(again):
        row["tag:site"] = f"site-{i % 2}" if i >= 10 else ""
    return first, write_csv(tmp_path / "b.csv", again)


def test_rows_already_stored_are_left_out_and_a_stored_row_resent_with_a_tag_is_refused(pg_url, tmp_path):
    """Before issue 35 the re-sent r0..r9 here carried a tag they were stored without, and the import left
    them out as already stored, tags and all, exit 0: a row under a stored id with other content (a tag is
    content: the seal hashes it) now refuses the file, and only rows as stored are left out."""
    first, second = _files(tmp_path)
    store = Store.open_url(pg_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        a = _import(store, dossier_id, first)
        retagged = write_csv(tmp_path / "c.csv", [r | {"tag:site": "site-0"} for r in feed_rows(20)])
        with pytest.raises(FeedError, match=r"^c\.csv: row 1 has the id 'r0' of a different row already "
                           rf"stored by the feed import of \S+ \(a\.csv, {a.id}\)"):
            _import(store, dossier_id, retagged)
        assert store.monitoring.row_count(dossier_id) == 10  # r10..r19 of c.csv not stored either
        b = _import(store, dossier_id, second)
        again = _import(store, dossier_id, second)
        assert (a.rows_added, b.rows_added, again.rows_added) == (10, 10, 0)
        tagged = store.monitoring.con.execute("SELECT row_key FROM monitoring_feed_tags").fetchall()
        assert sorted(k for (k,) in tagged) == sorted(f"r{i}" for i in range(10, 20))  # the new rows' only
        _imports_verify(store, dossier_id, [a, b])  # the first import's seal is untouched by the second
    finally:
        store.close()


def test_a_key_stored_meanwhile_takes_the_on_conflict_path(pg_url, tmp_path, monkeypatch):
    first, second = _files(tmp_path)
    store = Store.open_url(pg_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        a = _import(store, dossier_id, first)
        # as if a concurrent importer stored r0..r9 after the anti-join looked: the plain INSERT meets them
        stored, on_conflict, taken = store_feed_pg._STORED, store_feed_pg.insert_on_conflict, []

        def fallback(*args):  # the anti-join of the fallback sees the table again
            monkeypatch.setattr(store_feed_pg, "_STORED", stored)
            taken.append(True)
            return on_conflict(*args)

        monkeypatch.setattr(store_feed_pg, "insert_on_conflict", fallback)
        monkeypatch.setattr(store_feed_pg, "_STORED", "CAST(? AS VARCHAR) || CAST(? AS VARCHAR) <> ''")
        b = _import(store, dossier_id, second)
        assert (a.rows_added, b.rows_added, taken) == (10, 10, [True])
        assert store.monitoring.row_count(dossier_id) == 20
        _imports_verify(store, dossier_id, [a, b])
    finally:
        store.close()


def test_a_key_stored_meanwhile_turns_the_direct_copy_into_the_staged_path(pg_url, tmp_path, monkeypatch):
    first, second = _files(tmp_path)
    store = Store.open_url(pg_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        a = _import(store, dossier_id, first)
        # as if the candidate had no rows when the import looked: the direct COPY meets r0..r9, rolls back to
        # its savepoint, and the staged path leaves the stored rows out
        never = "SELECT CAST(? AS VARCHAR) || CAST(? AS VARCHAR) = ''"
        monkeypatch.setattr(store_feed_pg, "_HAS_ROWS", never)
        staged = []
        insert = store_feed_pg.insert_new
        monkeypatch.setattr(store_feed_pg, "insert_new", lambda *args: staged.append(True) or insert(*args))
        b = _import(store, dossier_id, second)
        assert (a.rows_added, b.rows_added, staged) == (10, 10, [True])
        assert store.monitoring.row_count(dossier_id) == 20
        tagged = store.monitoring.con.execute("SELECT row_key FROM monitoring_feed_tags").fetchall()
        assert sorted(k for (k,) in tagged) == sorted(f"r{i}" for i in range(10, 20))
        _imports_verify(store, dossier_id, [a, b])
    finally:
        store.close()


def test_the_seal_is_the_same_by_every_path(postgres_server, tmp_path, monkeypatch):
    _, second = _files(tmp_path)
    digests, paths = [], []
    direct, staged = store_feed_pg.copy_first, lambda *a, **k: None  # staged: as if rows were stored
    ways = ((direct, store_feed_pg.insert_new), (staged, store_feed_pg.insert_new),
            (staged, store_feed_pg.insert_on_conflict))
    for i, (first, insert) in enumerate(ways):
        def copy(*a, first=first, i=i, **k):
            paths.append(i)
            return first(*a, **k)

        monkeypatch.setattr(store_feed_pg, "copy_first", copy)
        monkeypatch.setattr(store_feed_pg, "insert_new", insert)
        store = Store.open_url(postgres_server.create_database(f"t_feed_paths_{i}"))
        try:
            dossier_id = store.save(decided_dossier(), author="chair").dossier.id
            record = _import(store, dossier_id, second)
            assert record.rows_added == 20
            _imports_verify(store, dossier_id, [record])
            digests.append(record.sealed_digest)
        finally:
            store.close()
    assert paths == [0, 1, 2] and digests[0] == digests[1] == digests[2]


def test_reads_go_side_by_side_on_connections_of_their_own_outside_a_transaction_only(pg_url):
    from governance.monitoring.store_reads import side_by_side

    store = Store.open_url(pg_url)
    try:
        con = store.monitoring.con
        pid = "SELECT pg_backend_pid()"
        apart = side_by_side(con, *[lambda c: c.execute(pid).fetchone()[0]] * 3)
        assert len(set(apart)) == 3 and apart[0] == con.execute(pid).fetchone()[0]
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute("CREATE TEMP TABLE seen_here (x INT) ON COMMIT DROP")  # only this transaction sees it
            def read(c):
                return c.execute(pid).fetchone()[0], c.execute("SELECT count(*) FROM seen_here").fetchone()[0]

            inside = side_by_side(con, read, read)
        finally:
            con.execute("ROLLBACK")
        assert inside == [(apart[0], 0)] * 2  # one after the other on the transaction's own connection
    finally:
        store.close()


def test_a_re_import_that_adds_nothing_seals_no_rows_and_the_status_reads_ahead(pg_url, tmp_path):
    from governance.monitoring.operations.feed import monitoring_status

    first, _ = _files(tmp_path)
    store = Store.open_url(pg_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        a = _import(store, dossier_id, first)
        again = _import(store, dossier_id, first)
        assert (again.rows_added, again.sealed_rows, again.sealed_digest) == (0, 0, "none")
        assert store.verify_chain(dossier_id).ok
        ahead = store.monitoring.aggregates_ahead(dossier_id, a.candidate)()
        assert ahead == store.monitoring.aggregates(dossier_id, a.candidate)
        assert monitoring_status(store, dossier_id, now=NOW).rows == 10
        # a row added outside MedAssure under the re-import's id: its seal (0 rows) no longer matches
        store.monitoring.con.execute(
            "INSERT INTO monitoring_feed SELECT dossier_id, candidate, 'x1', ts, month, served_model, "
            "prompt_version, outcome, latency_ms, error, tokens_in, tokens_out, cost_usd, reviewer, "
            "review_seconds, audited, audit_verdict, judge_score, sentinel, severity, text, ? "
            "FROM monitoring_feed LIMIT 1",
            [again.id])
        assert not store.verify_chain(dossier_id).ok
    finally:
        store.close()


def test_imports_of_one_candidates_feed_wait_for_each_other(pg_url, tmp_path):
    """Another importer holding the candidate's feed lock (an import in progress): this one waits for it
    rather than comparing with rows that may change before it inserts (a conflicting row would be lost)."""
    import threading

    from governance.monitoring.store_feed_pg import FEED_LOCK_SPACE

    first, _ = _files(tmp_path)
    store = Store.open_url(pg_url)
    other = Store.open_url(pg_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        holder = other.monitoring.con
        holder.execute("BEGIN TRANSACTION")
        holder.execute("SELECT pg_advisory_xact_lock(?, hashtext(?))",
                       [FEED_LOCK_SPACE, f"{dossier_id}|{CANDIDATE}"])  # the feed's rows are M1's
        done: list[object] = []
        worker = threading.Thread(target=lambda: done.append(_import(store, dossier_id, first)))
        worker.start()
        worker.join(timeout=3)
        assert worker.is_alive() and not done  # waiting on the lock, nothing stored yet
        holder.execute("COMMIT")
        worker.join(timeout=60)
        assert not worker.is_alive() and done and done[0].rows_added == 10
        assert other.monitoring.row_count(dossier_id) == 10
    finally:
        other.close()
        store.close()
