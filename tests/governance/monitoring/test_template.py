"""The feed template imports as it is: every column the importer knows, no refusal."""

from __future__ import annotations

from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed
from governance.monitoring.store_feed_import import KNOWN
from governance.monitoring.template import COLUMNS, feed_template
from tests.governance.monitoring_fixtures import NOW, decided_dossier


def test_the_template_names_every_known_column_and_imports(store, tmp_path):
    assert set(KNOWN) <= set(COLUMNS)  # ``text`` too, as docs/monitoring.md lists it (issue 36 item 20)
    path = tmp_path / "template.csv"
    path.write_text(feed_template(), encoding="utf-8")
    dossier_id = store.save(decided_dossier(), author="chair").dossier.id
    result = import_feed(store, dossier_id, path, candidate="gpt-4o", actor=Actor.named("qa"), now=NOW)
    assert result.record.rows_added == 4
    assert result.status.metrics["sentinel_catch_rate"][0].rate == 1.0  # the one sentinel was corrected
