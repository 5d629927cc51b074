"""The monitoring feed on PostgreSQL as the app role: db-roles grants the feed tables, the app role imports
and reads, and can neither change nor delete a feed row (the append-only trigger and missing grants)."""

from __future__ import annotations

import psycopg
import pytest

from governance.dossier.store import Store
from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from tests.governance.dossier.test_pg_roles import _set_up, roles  # noqa: F401 (the fixture)
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv


def test_the_app_role_imports_and_reads_but_never_rewrites_the_feed(roles, monkeypatch, capsys, tmp_path):  # noqa: F811
    owner_url, app_url, _, app_role = roles
    report = _set_up(owner_url, app_role, monkeypatch, capsys)
    assert {"monitoring_feed", "monitoring_feed_tags"} <= set(report["insert_select"])
    store = Store.open_url(app_url)
    try:
        dossier_id = store.save(decided_dossier(), author="chair").dossier.id
        rows = feed_rows(120, material_every=5, **{"tag:site": "north"})
        result = import_feed(store, dossier_id, write_csv(tmp_path / "f.csv", rows),
                             actor=Actor.named("qa"), now=NOW)
        assert (result.record.rows_added, store.monitoring.row_count(dossier_id)) == (120, 120)
        again = import_feed(store, dossier_id, write_csv(tmp_path / "f.csv", rows),
                            actor=Actor.named("qa"), now=NOW)
        assert again.record.rows_added == 0
        # 60 audited, every 5th audited one material: 12 of 60
        (month,) = monitoring_status(store, dossier_id, now=NOW).metrics["material_correction_share"]
        assert (month.n, month.rate) == (60, 0.2)
        assert store.verify_chain(dossier_id).ok
    finally:
        store.close()
    with psycopg.connect(app_url, autocommit=True) as con:
        for sql in ("UPDATE monitoring_feed SET outcome = 'accepted'", "DELETE FROM monitoring_feed",
                    "DELETE FROM monitoring_feed_tags"):
            with pytest.raises(psycopg.Error):
                con.execute(sql)
