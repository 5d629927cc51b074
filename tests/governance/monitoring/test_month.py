"""What a month's report prints, gathered by the monitoring operation (issue 33 item 5): the month checked,
the record read, the seal check and the status now, and the month's signals as the record stored them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from governance.demo.monitoring_feed import demo_months
from governance.dossier.store import Store
from governance.monitoring import MonitoringError, MonthError, monitoring_month
from governance.monitoring.ladder import recorded_signals
from governance.monitoring.month import parse_month
from reports.monitoring_report import monthly_sections
from tests.demo_monitoring import DEMO, copy_demo, demo_db  # noqa: F401 (fixture)


@pytest.mark.parametrize("bad", ["2026-13", "26-05", "2026-5", "May 2026", "2999-01"])
def test_a_bad_or_future_month_is_refused_in_one_line(bad):
    with pytest.raises(MonthError) as exc:
        parse_month(bad, datetime(2026, 12, 1, tzinfo=UTC))
    assert "\n" not in str(exc.value) and bad in str(exc.value)


def test_the_month_holds_its_stored_signals_and_the_report_prints_exactly_those(demo_db):  # noqa: F811
    store = Store.open(demo_db)
    try:
        months = demo_months(store.load(DEMO).created_at)
        creep = months[4]
        m = monitoring_month(store, DEMO, creep)
        assert m.month == creep and m.version.hash == store.load(DEMO).hash
        stored = {s.id: s for s in recorded_signals(m.version.dossier, m.status.approved.candidate)}
        assert m.signals and all(s.id in stored and s == stored[s.id] for s in m.signals)
        # first seen in the month, or raised before it and not resolved
        assert all(f"{s.first_seen:%Y-%m}" == creep
                   or (s.state != "resolved" and f"{s.first_seen:%Y-%m}" < creep) for s in m.signals)
        assert [s.id for s in m.signals] == [s.id for s in stored.values()
                                             if f"{s.first_seen:%Y-%m}" == creep
                                             or (s.state != "resolved" and f"{s.first_seen:%Y-%m}" <= creep)]
        assert not {s.id for s in m.unrecorded} & set(stored)
        (signals,) = [s for s in monthly_sections(m) if s.key == "signals"]
        assert [r[0] for r in signals.tables[0].rows] == [s.id for s in m.signals]
        with pytest.raises(MonthError):
            monitoring_month(store, DEMO, "2999-01")
    finally:
        store.close()


def test_a_feed_that_no_longer_matches_its_seal_gets_no_month(demo_db, home):  # noqa: F811
    store = Store.open(copy_demo(demo_db, home))
    try:
        months = demo_months(store.load(DEMO).created_at)
        assert monitoring_month(store, DEMO, months[4]).signals
        store.cursor().execute(
            "DELETE FROM monitoring_feed WHERE row_key = (SELECT min(row_key) FROM monitoring_feed)")
        with pytest.raises(MonitoringError, match="no longer matches its seal"):
            monitoring_month(store, DEMO, months[4])
    finally:
        store.close()
