"""The retirement watch: dates from the candidate or litellm's shipped map, signals, warnings, hashes.

Known answers: the map's dates are read here straight from the JSON file litellm ships (not through the
product's reader), and litellm's version from the installed package's metadata.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from governance.dossier.content_hash import signable_hash
from governance.dossier.record import Dossier
from governance.monitoring.feed_records import FeedAggregates
from governance.monitoring.status import compute_status
from governance.procurement.records import Candidate
from governance.procurement.retirement import candidate_snapshot, retirement, retirement_warning
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier, monitoring_plan


def _shipped_map() -> dict:
    spec = importlib.util.find_spec("litellm")
    path = Path(next(iter(spec.submodule_search_locations))) / "model_prices_and_context_window_backup.json"
    return json.loads(path.read_text(encoding="utf-8"))


MAP = _shipped_map()
LITELLM = f"litellm {importlib.metadata.version('litellm')}"


def cand(**kw) -> Candidate:
    base = dict(id="m1", vendor="V", product="P", model_id="m-1", evidence_models=[CANDIDATE],
                added_by="buyer", added_at=datetime(2025, 12, 1, tzinfo=UTC))
    return Candidate(**{**base, **kw})


def status_with(candidate: Candidate, plan=None, now=NOW):
    d = decided_dossier(plan)
    d = d.model_copy(update={"candidates": [candidate]})
    return compute_status(d, FeedAggregates(candidate=CANDIDATE, rows=0), now=now, candidate=CANDIDATE)


def test_a_dated_candidate_maps_to_its_snapshot_and_the_shipped_date_with_the_maps_version():
    c = cand(model_id="gpt-4o", model_version="2024-05-13")
    r = retirement(c)
    assert candidate_snapshot(c) == "gpt-4o-2024-05-13"
    shipped = date.fromisoformat(MAP["gpt-4o-2024-05-13"]["deprecation_date"])
    assert r.retires_on == shipped == date(2026, 10, 23)
    assert (r.source, r.map_version) == ("model_map", LITELLM)
    assert LITELLM in r.source_text and "gpt-4o-2024-05-13" in r.source_text
    # the provider's own entry wins when the snapshot names it (Azure dates the same snapshot otherwise)
    azure = retirement(cand(snapshot="azure/gpt-4o-2024-05-13"))
    assert azure.retires_on == date.fromisoformat(MAP["azure/gpt-4o-2024-05-13"]["deprecation_date"])


def test_the_vendors_announced_date_on_the_candidate_wins_over_the_map():
    r = retirement(cand(snapshot="gpt-4o-2024-05-13", retires_on=date(2026, 9, 1)))
    assert (r.retires_on, r.source, r.map_version) == (date(2026, 9, 1), "candidate", None)
    assert retirement(cand(model_id="no-such-model-anywhere")) is None


@pytest.mark.parametrize(
    ("retires_on", "level", "first_seen"),
    [
        (date(2026, 8, 1), "review", datetime(2026, 5, 3, tzinfo=UTC)),  # 42 days ahead: inside 90
        (date(2026, 6, 1), "pause", datetime(2026, 6, 1, tzinfo=UTC)),  # past
    ],
)
def test_monitor_status_raises_a_retirement_signal_in_the_window_and_a_pause_past_the_date(
    retires_on, level, first_seen
):
    s = status_with(cand(retires_on=retires_on))
    (sig,) = [x for x in s.signals if x.kind == "retirement"]
    assert (sig.level, sig.first_seen, sig.metric, s.status) == (level, first_seen, "m-1", level)
    assert retires_on.isoformat() in sig.detail and sig.owner == "AI quality lead"


def test_the_plans_notice_window_decides_when_the_review_starts():
    far = cand(retires_on=date(2026, 8, 1))  # 42 days after NOW
    assert status_with(far, monitoring_plan(retirement_notice_days=30)).signals == []
    s = status_with(cand(retires_on=date(2027, 1, 1)))
    assert s.signals == [] and any("2027-01-01" in n for n in s.notes)


def test_a_map_date_in_a_signal_names_the_maps_version():
    s = status_with(cand(snapshot="gpt-4o-2024-05-13"), now=datetime(2026, 11, 1, tzinfo=UTC))
    (sig,) = s.signals
    assert sig.level == "pause" and LITELLM in sig.detail and "2026-10-23" in sig.detail


def test_the_decision_warning_at_decision_time():
    d = decided_dossier().model_copy(update={"candidates": [cand(retires_on=date(2026, 2, 1))]})
    inside = retirement_warning(d, CANDIDATE, datetime(2026, 1, 1, tzinfo=UTC))
    assert inside and "31 days after 2026-01-01" in inside and "90-day notice" in inside
    assert "already past" in retirement_warning(d, CANDIDATE, date(2026, 2, 1))
    assert retirement_warning(d, CANDIDATE, date(2025, 10, 1)) is None


def test_unset_retirement_fields_leave_a_dossiers_hash_as_before():
    old = cand()
    doc = old.model_dump(mode="json")
    assert "snapshot" not in doc and "retires_on" not in doc
    d = Dossier(id="D-h", title="hash", owner="me", intended_use=decided_dossier().intended_use,
                candidates=[old])
    pinned = signable_hash(Dossier.model_validate(d.model_dump(mode="json")))
    assert signable_hash(d) == pinned
    dated = d.model_copy(update={"candidates": [cand(retires_on=date(2027, 1, 1))]})
    assert signable_hash(dated) != pinned
    plan = monitoring_plan()
    assert "retirement_notice_days" not in plan.model_dump(mode="json") and plan.retirement_notice_days == 90


def test_the_pause_past_the_date_closes_the_open_notice_as_superseded():
    from governance.monitoring.ladder import recorded_signals
    from governance.monitoring.operations.common import new_signal_records
    from governance.monitoring.records import SignalAction

    d = decided_dossier().model_copy(update={"candidates": [cand(retires_on=date(2026, 8, 1))]})
    rows = FeedAggregates(candidate=CANDIDATE, rows=0)

    def record(d, status, at):
        added = new_signal_records(d, status.signals, at)
        return d.model_copy(update={"monitoring": [*d.monitoring, *added]})

    inside = datetime(2026, 7, 1, tzinfo=UTC)
    (notice,) = compute_status(d, rows, now=inside, candidate=CANDIDATE).signals
    assert (notice.level, notice.state) == ("review", "open")
    d = record(d, compute_status(d, rows, now=inside, candidate=CANDIDATE), inside)
    past = datetime(2026, 8, 2, tzinfo=UTC)
    status = compute_status(d, rows, now=past, candidate=CANDIDATE)
    pause = next(s for s in status.signals if s.level == "pause")
    shown = next(s for s in status.signals if s.id == notice.id)
    assert status.status == "pause" and pause.state == "open"
    assert shown.state == "resolved" and f"Superseded by {pause.id}" in shown.detail
    assert [s.id for s in status.signals if s.state != "resolved"] == [pause.id], "one open retirement signal"
    d = record(d, status, past)  # the pause recorded too: the record reads the same (reports print this)
    states = {s.id: s.state for s in recorded_signals(d, CANDIDATE)}
    assert states == {pause.id: "open", notice.id: "resolved"}
    # a notice someone resolved keeps their own resolution
    resolved = SignalAction(kind="signal_resolve", signal_id=notice.id, at=inside, by="chair",
                            reason="Planned.")
    kept = d.model_copy(update={"monitoring": [*d.monitoring, resolved]})
    (mine,) = [s for s in recorded_signals(kept, CANDIDATE) if s.id == notice.id]
    assert mine.state == "resolved" and "Superseded" not in mine.detail


def test_the_status_reads_the_retirement_date_it_is_given_not_the_model_map():
    from governance.monitoring.procured import Procured, procured
    from governance.procurement.retirement import Retirement

    c = cand(snapshot="gpt-4o-2024-05-13")  # the shipped map: retired on 2026-10-23
    d = decided_dossier().model_copy(update={"candidates": [c]})
    rows = FeedAggregates(candidate=CANDIDATE, rows=0)
    at = datetime(2026, 11, 1, tzinfo=UTC)
    assert procured(d, CANDIDATE) == Procured(record=c, retirement=retirement(c))
    announced = Retirement(retires_on=date(2027, 1, 15), snapshot="gpt-4o-2024-05-13", source="candidate")
    s = compute_status(d, rows, now=at, candidate=CANDIDATE, facts=Procured(record=c, retirement=announced))
    (sig,) = s.signals  # 75 days before the date given (a review), not past the map's date (a pause)
    assert (sig.level, "2027-01-15" in sig.detail, LITELLM in sig.detail) == ("review", True, False)
    assert compute_status(d, rows, now=at, candidate=CANDIDATE, facts=Procured()).signals == []


def test_an_import_looks_procurement_up_once_before_the_status(home, tmp_path, monkeypatch):
    import governance.monitoring.operations.feed as feed_ops
    import governance.monitoring.status as status_module
    from governance.dossier.store import Store
    from governance.identity import Actor
    from tests.governance.monitoring_fixtures import feed_rows, write_csv

    store = Store.open(home / "medassure.duckdb")
    d = decided_dossier().model_copy(update={"candidates": [cand(retires_on=date(2026, 8, 1))]})
    did = store.save(d, author="chair").dossier.id
    calls = []
    looked_up = feed_ops.procured
    monkeypatch.setattr(feed_ops, "procured", lambda *a: calls.append(a) or looked_up(*a))
    monkeypatch.setattr(status_module, "procured", lambda *a: pytest.fail("the status looked procurement up"))
    result = feed_ops.import_feed(store, did, write_csv(tmp_path / "f.csv", feed_rows(20)),
                                  actor=Actor.named("qa"), now=NOW)
    assert len(calls) == 1 and [s.kind for s in result.status.signals] == ["retirement"]
    store.close()


def test_a_candidate_with_no_known_date_is_named_by_its_product_not_its_id():
    from governance.monitoring.procured import Procured

    c = cand(id="acme-health-scribewell", vendor="Acme Health", product="ScribeWell", model_id="scribe-good")
    d = decided_dossier().model_copy(update={"candidates": [c]})
    s = compute_status(d, FeedAggregates(candidate=CANDIDATE, rows=0), now=NOW, candidate=CANDIDATE,
                       facts=Procured(record=c, retirement=None))
    (note,) = [n for n in s.notes if "No retirement date" in n]
    assert "Acme Health · ScribeWell" in note and "acme-health-scribewell" not in note
