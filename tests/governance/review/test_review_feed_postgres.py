"""Feed review queues on PostgreSQL as the app role: the queue's verdicts are stored in their own
append-only table (never an UPDATE of a feed row) and ``monitoring_status`` counts them as audits."""

from __future__ import annotations

import psycopg
import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from governance.review.operations.create import create_queue_from_feed
from governance.review.operations.queues import close_queue, rater_view, record_rating
from tests.governance.dossier.test_pg_roles import _set_up, roles  # noqa: F401 (the fixture)
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv

pytestmark = pytest.mark.postgres


def test_closed_feed_queue_verdicts_count_as_audits_and_cannot_be_rewritten(
    roles,  # noqa: F811
    monkeypatch,
    capsys,
    tmp_path,
):
    owner_url, app_url, _, app_role = roles
    report = _set_up(owner_url, app_role, monkeypatch, capsys)
    assert "monitoring_audit_verdicts" in set(report["insert_select"])
    store = Store.open_url(app_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        rows = feed_rows(10)  # r0, r2, r4, r6, r8 audited correct
        for i, row in enumerate(rows):
            row["text"] = f"Take {i + 1} mg daily." if i < 6 else ""
        import_feed(store, dossier_id, write_csv(tmp_path / "f.csv", rows), actor=Actor.named("qa"), now=NOW)
        queue, skipped = create_queue_from_feed(store, dossier_id, 6, ["dr.a"], seed=2,
                                                actor=Actor.named("ed"))
        assert skipped == 4
        items = store.reviews.items(queue.queue_id)
        for it in rater_view(store, queue.queue_id, actor=Actor.named("dr.a")).items:
            verdict = "material" if items[it.item_id].instance_id in ("r1", "r2") else "correct"
            record_rating(store, queue.queue_id, it.item_id, {"verdict": verdict}, actor=Actor.named("dr.a"))
        close_queue(store, queue.queue_id, actor=Actor.named("ed"))
        # audited: r0..r5 from the queue + r6, r8 from the feed = 8; material r1, r2 -> 2 of 8
        (month,) = monitoring_status(store, dossier_id, now=NOW).metrics["material_correction_share"]
        assert (month.n, month.rate) == (8, 0.25)
    finally:
        store.close()
    with psycopg.connect(app_url, autocommit=True) as con:
        for sql in (
            "UPDATE monitoring_audit_verdicts SET verdict = 'correct'",
            "DELETE FROM monitoring_audit_verdicts",
        ):
            with pytest.raises(psycopg.Error):
                con.execute(sql)
