"""The glance views' monitoring state when the stored feed no longer matches its seal (issue 35).

Rows deleted or inserted behind the app's back (the row counts the glance checks) made ``monitoring_state``
return None, which the sidebar, the Dossiers list and ``dossier show`` present as nothing watched: a feed
that cannot be trusted looked like no feed at all. It now says so.
"""

from __future__ import annotations

import pytest

from governance.identity import Actor
from governance.monitoring import (
    MONITORING_WORDS,
    SEAL_BROKEN,
    FeedSealBroken,
    import_feed,
    monitoring_state,
    monitoring_status,
)
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv


@pytest.fixture
def dossier_id(any_store, tmp_path):
    dossier_id = any_store.save(decided_dossier(), author="chair").dossier.id
    import_feed(any_store, dossier_id, write_csv(tmp_path / "f.csv", feed_rows(20)), actor=Actor.named("qa"),
                now=NOW)
    assert monitoring_state(any_store, dossier_id, now=NOW) == "in_control"
    return dossier_id


def test_rows_inserted_behind_the_apps_back_show_as_a_broken_seal_not_as_nothing(any_store, dossier_id):
    con = any_store.monitoring.con
    columns = "candidate, 'forged', ts, month, served_model, prompt_version, outcome, latency_ms, error, " \
        "tokens_in, tokens_out, cost_usd, reviewer, review_seconds, audited, audit_verdict, judge_score, " \
        "sentinel, severity, text, import_id"
    con.execute(f"INSERT INTO monitoring_feed SELECT dossier_id, {columns} FROM monitoring_feed "
                "WHERE row_key = 'r1'")
    assert monitoring_state(any_store, dossier_id, now=NOW) == SEAL_BROKEN
    assert MONITORING_WORDS[SEAL_BROKEN] == "feed does not match its seal: run verify"
    with pytest.raises(FeedSealBroken, match="21 stored"):  # the glance's own check, counts only
        monitoring_status(any_store, dossier_id, now=NOW, content=False)


def test_rows_deleted_behind_the_apps_back_show_as_a_broken_seal(store, tmp_path):
    dossier_id = store.save(decided_dossier(), author="chair").dossier.id
    import_feed(store, dossier_id, write_csv(tmp_path / "f.csv", feed_rows(20)), actor=Actor.named("qa"),
                now=NOW)
    store.monitoring.con.execute("DELETE FROM monitoring_feed WHERE row_key IN ('r1', 'r2')")
    assert monitoring_state(store, dossier_id, now=NOW) == SEAL_BROKEN


def test_no_approved_candidate_and_nothing_watched_is_still_none(store):
    undecided = decided_dossier().model_copy(update={"decision": None})
    dossier_id = store.save(undecided, author="chair").dossier.id
    assert monitoring_state(store, dossier_id, now=NOW) is None
