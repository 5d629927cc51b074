"""The record after go-live is sealed (issue 35 item 2): feed rows, audit verdicts, ratings, queue events.

Each case is a direct database edit behind the product's back, the issue's eight and a few variants; before
the seals ``verify`` said ok (exit 0) after every one. Now it exits 3 naming what changed, and ``monitor
status`` / ``review status`` refuse to compute from rows that no longer match their seal (exit 2).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from cli import main
from governance.identity import Actor
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.queues import close_queue, rater_view, record_rating
from tests.governance.dossier.test_pg_roles import roles  # noqa: F401 (the fixture)
from tests.governance.monitoring_fixtures import decided_dossier, feed_rows, monitoring_plan, write_csv

FAKE_ROWS = (
    "INSERT INTO monitoring_feed SELECT dossier_id, candidate, 'x' || row_key, ts, month, served_model, "
    "prompt_version, outcome, latency_ms, error, tokens_in, tokens_out, cost_usd, reviewer, "
    "review_seconds, audited, audit_verdict, judge_score, sentinel, 'severe', text, {import_id} "
    "FROM monitoring_feed"
)
"""Every stored row again under a new key, marked severe (the issue's "fake severe rows")."""
START = (datetime.now(UTC) - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)


@pytest.fixture
def sealed(store, tmp_path, capsys):
    """A dossier with 20 tagged feed rows, a closed two-rater audit queue over 12, its verdicts stored."""
    d = decided_dossier(monitoring_plan(approved_prompt_version="v1"), decided_at=START - timedelta(days=10))
    did = store.save(d, author="chair").dossier.id
    rows = feed_rows(20, start=START, step=timedelta(minutes=30), prompt_version="v1")
    for i, row in enumerate(rows):
        row["text"] = f"Take {100 + i} mg once a day." if i < 12 else ""
        row["tag:site"] = "north" if i % 3 else "south"
    assert main(["monitor", "import", str(write_csv(tmp_path / "feed.csv", rows)), "--dossier", did]) == 0
    queue, _ = create_queue_from_feed(store, did, 12, ["dr.a", "dr.b"], seed=3, actor=Actor.named("ed"))
    qid = queue.queue_id
    for rater in ("dr.a", "dr.b"):
        for it in rater_view(store, qid, actor=Actor.named(rater)).items[
            :-1
        ]:  # one left: closed by the editor
            record_rating(store, qid, it.item_id, {"verdict": "correct"}, actor=Actor.named(rater))
    close_queue(store, qid, actor=Actor.named("ed"))
    assert [e.kind for e in store.reviews.events(qid)] == ["closed"]
    assert len(store.monitoring.audit_verdict_rows(did)) == 10
    capsys.readouterr()
    return did, qid


def verify(capsys, did: str) -> tuple[int, dict, str]:
    code = main(["verify", did, "--format", "json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_untouched_record_verifies(sealed, capsys):
    code, report, _ = verify(capsys, sealed[0])
    assert code == 0 and report["ok"] and report["unsealed"] == [], report["breaks"]


BACKDATE_QUEUE = (
    "UPDATE review_queues SET created_at = TIMESTAMPTZ '2001-01-01 00:00:00+00', content = "
    "regexp_replace(content, '\"created_at\":\"[^\"]*\"', '\"created_at\":\"2001-01-01T00:00:00Z\"')"
)
"""The queue's creation moved before sealing began (column and stored JSON), as its seal is deleted."""

EDITS = {
    "delete all feed rows": (["DELETE FROM monitoring_feed"], "rows sealed, 0 stored"),
    "delete some feed rows": (
        ["DELETE FROM monitoring_feed WHERE row_key IN ('r1', 'r2', 'r3', 'r4', 'r5')"],
        "20 rows sealed, 15 stored",
    ),
    "rewrite served_model": (
        ["UPDATE monitoring_feed SET served_model = 'm-1 '"],
        "20 rows stored as sealed, but rows or their",
    ),
    "rewrite a tag": (["UPDATE monitoring_feed_tags SET value = 'north'"], "rows or their tags were altered"),
    "insert fake severe rows": (
        [FAKE_ROWS.format(import_id="'I-00000000ff'")],
        "20 feed rows of M1 belong to no import the dossier records",
    ),
    "insert fake rows under the real import": (
        [FAKE_ROWS.format(import_id="import_id")],
        "20 rows sealed, 40 stored",
    ),
    "insert material audit verdicts of no queue": (
        [
            "INSERT INTO monitoring_audit_verdicts SELECT dossier_id, candidate, row_key, 'rq-fake', "
            "'material', recorded_at FROM monitoring_audit_verdicts"
        ],
        "audit verdicts of queue rq-fake on M1: 10 stored with no seal",
    ),
    "insert material audit verdicts under the real queue": (
        [
            "INSERT INTO monitoring_audit_verdicts SELECT dossier_id, candidate, 'r15', queue_id, "
            "'material', recorded_at FROM monitoring_audit_verdicts LIMIT 1"
        ],
        "1 (r15) added outside MedAssure",
    ),
    "turn a verdict material": (
        [
            "UPDATE monitoring_audit_verdicts SET verdict = 'material' WHERE row_key = "
            "(SELECT min(row_key) FROM monitoring_audit_verdicts)"
        ],
        "altered",
    ),
    "change one rater's scores": (
        [
            "UPDATE review_ratings SET content = replace(content, '\"correct\"', '\"material\"') "
            "WHERE rater = 'dr.b' AND item_id = "
            "(SELECT min(item_id) FROM review_ratings WHERE rater = 'dr.b')"
        ],
        "rating of rater dr.b on item",
    ),
    "delete a rater's ratings": (
        ["DELETE FROM review_ratings WHERE rater = 'dr.a'"],
        "rating of rater dr.a on item",
    ),
    "delete the queue's close event": (["DELETE FROM review_events"], "event 1 removed"),
    "delete the queue's seal": (
        ["DELETE FROM record_seals WHERE starts_with(subject, 'queue:')"],
        "its seal is missing",
    ),
    "delete the queue's seal and move its creation before sealing": (
        ["DELETE FROM record_seals WHERE starts_with(subject, 'queue')",
         BACKDATE_QUEUE],
        "its seal is missing",
    ),
    "delete the whole queue with its seals": (
        ["DELETE FROM record_seals WHERE starts_with(subject, 'queue')", "DELETE FROM review_ratings",
         "DELETE FROM review_events", "DELETE FROM review_assignments", "DELETE FROM review_items",
         "DELETE FROM review_agreements", "DELETE FROM review_queues"],
        "its seal is missing",
    ),
    "delete the verdicts' seal and move the queue's creation before sealing": (
        ["DELETE FROM record_seals WHERE starts_with(subject, 'verdicts:')",
         BACKDATE_QUEUE],
        "10 stored with no seal",
    ),
    "forge the queue's seal": (
        ['UPDATE record_seals SET state = replace(state, \'"events":{"1"\', \'"events":{"9"\')'],
        "its seal was altered outside MedAssure",
    ),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_each_edit_behind_the_products_back_fails_verify(store, sealed, capsys, edit):
    did, qid = sealed
    statements, named = EDITS[edit]
    cur = store.cursor()
    for sql in statements:
        cur.execute(sql)
    code, report, err = verify(capsys, did)
    assert code == 3 and not report["ok"]
    problems = [b["problem"] for b in report["breaks"]]
    assert all(b["kind"] == "seal" for b in report["breaks"]), problems
    assert any(named in p for p in problems), problems
    assert "sealed data" in err


def test_feed_status_refuses_rows_that_no_longer_match_their_seal(store, sealed, capsys):
    did, _ = sealed
    assert main(["monitor", "status", did, "--format", "json"]) in (0, 3, 4)
    store.cursor().execute("DELETE FROM monitoring_feed WHERE row_key = 'r7'")
    capsys.readouterr()
    assert main(["monitor", "status", did, "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "no longer matches its seal" in err and "20 rows sealed, 19 stored" in err


IN_PLACE = {
    "served_model rewritten across the feed": "UPDATE monitoring_feed SET served_model = 'm-2'",
    "one tag cell": "UPDATE monitoring_feed_tags SET value = 'west' WHERE row_key = 'r4'",
    "two rows' timestamps swapped": (
        "UPDATE monitoring_feed SET ts = CASE row_key WHEN 'r2' THEN (SELECT ts FROM monitoring_feed "
        "WHERE row_key = 'r9') ELSE (SELECT ts FROM monitoring_feed WHERE row_key = 'r2') END "
        "WHERE row_key IN ('r2', 'r9')"
    ),
    "one latency cell": (
        "UPDATE monitoring_feed SET latency_ms = coalesce(latency_ms, 0) + 7 WHERE row_key = 'r5'"
    ),
}


@pytest.mark.parametrize("edit", list(IN_PLACE))
def test_feed_status_refuses_rows_rewritten_in_place(store, sealed, capsys, edit):
    # Same row count: the status checked counts only and computed from the rewritten rows without a word.
    did, _ = sealed
    store.cursor().execute(IN_PLACE[edit])
    capsys.readouterr()
    assert main(["monitor", "status", did, "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "no longer matches its seal" in err and "altered outside MedAssure" in err, err


def test_review_status_refuses_a_queue_whose_ratings_were_altered(store, sealed, capsys):
    _, qid = sealed
    assert main(["review", "status", qid, "--format", "json"]) == 0
    store.cursor().execute("DELETE FROM review_ratings WHERE rater = 'dr.a'")
    capsys.readouterr()
    assert main(["review", "status", qid, "--format", "json"]) == 2
    assert "no longer match its seal" in capsys.readouterr().err


def test_an_import_recorded_before_sealing_reads_not_sealed_and_keeps_its_hash(store, sealed, capsys):
    """An old dossier's import record has no seal fields: verify notes it, the content hash is unchanged."""
    from governance.dossier.content_hash import signable_hash
    from governance.monitoring.records import FeedImport

    did, _ = sealed
    dossier = store.load(did).dossier
    record = next(e for e in dossier.monitoring if isinstance(e, FeedImport))
    assert record.sealed_rows == 20 and record.sealed_digest
    old = record.model_copy(update={"sealed_rows": None, "sealed_digest": None})
    legacy = dossier.model_copy(
        update={"monitoring": [old if e is record else e for e in dossier.monitoring]}
    )
    assert "sealed_rows" not in old.model_dump_json(exclude_none=True)
    assert signable_hash(legacy) == signable_hash(dossier)  # monitoring records are appended, not signed
    store.save(legacy, author="chair")
    code, report, _ = verify(capsys, did)
    assert code == 0, report["breaks"]
    assert any("not sealed (imported before sealing)" in n for n in report["unsealed"])


@pytest.mark.postgres
def test_on_postgresql_the_app_roles_own_inserts_are_found_by_the_seal(roles, monkeypatch, capsys, tmp_path):  # noqa: F811
    """The app role may INSERT into the feed and the verdicts (it imports and closes queues): what it inserts
    outside the sealed write is named by ``verify`` all the same."""
    import psycopg

    from governance.dossier.store import Store
    from governance.monitoring.operations.feed import import_feed
    from tests.governance.dossier.test_pg_roles import _set_up
    from tests.governance.monitoring_fixtures import NOW

    owner_url, app_url, _, app_role = roles
    _set_up(owner_url, app_role, monkeypatch, capsys)
    store = Store.open_url(app_url)
    try:
        did = store.save(decided_dossier(), author="chair").dossier.id
        rows = feed_rows(10)
        for i, row in enumerate(rows):
            row["text"] = f"Take {i + 1} mg daily." if i < 6 else ""
        import_feed(store, did, write_csv(tmp_path / "f.csv", rows), actor=Actor.named("qa"), now=NOW)
        queue, _ = create_queue_from_feed(store, did, 6, ["dr.a"], seed=2, actor=Actor.named("ed"))
        for it in rater_view(store, queue.queue_id, actor=Actor.named("dr.a")).items:
            record_rating(
                store, queue.queue_id, it.item_id, {"verdict": "correct"}, actor=Actor.named("dr.a")
            )
        assert store.verify_chain(did).ok
    finally:
        store.close()
    with psycopg.connect(app_url, autocommit=True) as con:
        con.execute(FAKE_ROWS.format(import_id="'I-00000000ff'"))
        con.execute(
            "INSERT INTO monitoring_audit_verdicts SELECT dossier_id, candidate, 'r9', queue_id, "
            "'material', recorded_at FROM monitoring_audit_verdicts LIMIT 1"
        )
    store = Store.open_url(app_url)
    try:
        problems = [b.problem for b in store.verify_chain(did).breaks]
    finally:
        store.close()
    assert any("10 feed rows of M1 belong to no import" in p for p in problems), problems
    assert any("1 (r9) added outside MedAssure" in p for p in problems), problems
