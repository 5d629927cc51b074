"""Monitoring page (AppTest), the rehearsal (issue 36 item 16): the button makes a practice copy of the
demo dossier and opens it, the copy takes a generated feed, the Report page refuses it, the original stays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from governance.dossier.store import Store
from tests.pages.conftest import latest, open_page
from tests.pages.readable import as_shown, frames

PAGE = "pages/monitoring.py"


def _texts(at) -> str:
    shown = [w.value for w in at.warning] + [e.value for e in at.error] + [m.value for m in at.markdown]
    return " ".join(shown)


def test_the_button_makes_a_marked_copy_whose_generated_feed_gives_a_status_the_original_stays(demo_home):
    before = latest(demo_home)
    at = open_page(PAGE)
    assert "PRACTICE COPY" not in _texts(at)
    at.number_input(key="mon_practice_days").set_value(120)
    next(b for b in at.button if b.key == "mon_practice_make").click().run()
    assert not at.exception, [e.value for e in at.exception]
    copy_id = at.session_state["dossier_id"]
    assert copy_id.startswith("D-demo-portal-practice-")
    assert "PRACTICE COPY — not a record: a copy of D-demo-portal" in _texts(at)  # the page's banner
    assert "decision dated 120 days earlier" in _texts(at)

    next(b for b in at.button if b.key == "mon_practice_feed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        copy = store.load(copy_id).dossier
        rows = store.monitoring.row_count(copy_id, copy.decision.model or "")
        assert copy.practice.source_id == "D-demo-portal" and copy.practice.days_back == 120
        assert copy.title.startswith("PRACTICE — ") and copy.signoffs == []
        decided = copy.decision.decided_at.astimezone(UTC)
        first = datetime(decided.year, decided.month, decided.day, tzinfo=UTC) + timedelta(days=1)
        days = (datetime.now(UTC) - first) // timedelta(days=1)  # whole days from the day after, to today
        assert 118 <= days <= 120 and rows == 40 * days
        assert any(e.kind == "feed_import" for e in copy.monitoring)
    finally:
        store.close()
    metric = next(m for m in at.metric if m.label == "Production outputs")
    assert metric.value == f"{rows:,}"

    at.switch_page("pages/report.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("A practice copy has no dossier PDF" in e.value for e in at.error)
    assert not at.get("download_button")

    at.switch_page("pages/dossiers.py").run()  # the list marks the copy, and only the copy
    listed = next(as_shown(f) for f in frames(at) if f is not None and "Practice" in f.columns)
    marks = dict(zip(listed["Id"], listed["Practice"], strict=True))
    assert marks == {copy_id: "practice copy of D-demo-portal", "D-demo-portal": ""}

    at.switch_page(PAGE).run()  # discarded: the original is open again, and the lists leave the copy out
    next(b for b in at.button if b.key == "mon_practice_discard").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["dossier_id"] == "D-demo-portal"
    at.switch_page("pages/dossiers.py").run()
    listed = next(as_shown(f) for f in frames(at) if f is not None and "Id" in f.columns)
    assert list(listed["Id"]) == ["D-demo-portal"] and "Practice" not in listed.columns

    after = latest(demo_home)  # the original: the same version and content hash
    assert (after.version, after.hash) == (before.version, before.hash)
