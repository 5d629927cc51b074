"""Monitoring page (AppTest): the demo's pause and resolved review, an empty dossier, a live dossier in pause.

The live dossier is approved on the fake OpenAI-compatible server; a feed served by another model puts
it in pause, and the page's one re-evaluation button asks the server again for every case (never the
cache): the server's hit count doubles.
"""

from __future__ import annotations

import time

import pytest

from evaluator.runs.jobs import JOBS
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.monitoring.operations.feed import import_feed
from governance.monitoring.records import SafetyEvent, SignalAction
from tests.governance.reevaluation_fixtures import DOSSIER_ID, N, scripted_models, seed_decided_dossier
from tests.pages.conftest import latest, open_page
from tests.pages.readable import as_shown, assert_readable, frames

PAGE = "pages/monitoring.py"


def _text(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                    + [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
                    + [s.value for s in at.success])


def frame(at, column: str):
    """The first table the page drew with this column."""
    return next(as_shown(f) if f is not None else f for f in frames(at) if column in f.columns)


def test_demo_shows_the_pause_the_charts_and_the_signals(demo_home):
    at = open_page(PAGE)
    assert at.title[0].value == "Monitoring"
    assert any(e.value.startswith("**Paused.**") for e in at.error)
    assert any("DEMO DATA" in w.value for w in at.warning)
    specs = at.get("vega_lite_chart")
    assert len(specs) >= 7  # six monthly metrics and the CUSUM
    signals = frame(at, "Level")
    assert set(signals["Level"]) == {"Paused", "Review"} and set(signals["State"]) == {"open", "resolved"}
    assert assert_readable(at) >= 2
    text = _text(at)
    for raw in ("rate_above_bar", "model_change", "served_model", "near_miss", "None", "in_control"):
        assert raw not in text, raw
    assert "Bernoulli CUSUM" in text and "Wilson" in text
    watched = next(c.value for c in at.caption if c.value.startswith("Candidate watched:"))
    product = "Contoso Health Cloud (demo) · Portal Reply Assistant"  # the product, not the model string
    assert watched.startswith(f"Candidate watched: {product},"), watched
    button = next(b for b in at.button if b.key == "mon_reevaluate")
    assert button.disabled  # the demo's frozen runs were recorded offline: nothing to re-run


def test_acknowledge_records_who_and_a_resolve_without_reason_stores_nothing(demo_home):
    at = open_page(PAGE)
    before = latest(demo_home)
    at.text_area(key="mon_signal_note").input("")
    next(b for b in at.button if b.label == "Resolve").click().run()
    assert not at.exception
    assert any("Not recorded" in e.value for e in at.error)
    assert latest(demo_home).version == before.version, "nothing stored on a refusal"
    at.text_area(key="mon_signal_note").input("IT is pinning the approved snapshot.")
    next(b for b in at.button if b.label == "Acknowledge").click().run()
    assert not at.exception
    after = latest(demo_home)
    (ack,) = [e for e in after.dossier.monitoring if isinstance(e, SignalAction)
              and e.kind == "signal_ack" and e.by == "dr.page"]
    assert ack.reason == "IT is pinning the approved snapshot." and after.version == before.version + 1
    assert "acknowledged" in set(frame(at, "State")["State"])


def test_event_form_refuses_an_empty_description_and_a_moderate_event_suspends(demo_home):
    at = open_page(PAGE)
    before = latest(demo_home)
    next(b for b in at.button if b.label == "Report the event").click().run()
    assert any("Not recorded" in e.value for e in at.error)
    assert latest(demo_home).version == before.version
    at.selectbox(key="mon_event_severity").select("moderate")
    at.text_area(key="mon_event_description").input("A draft advised doubling a dose; caught by the nurse.")
    at.text_input(key="mon_event_outputs").input("demo-2026-11-00012")
    next(b for b in at.button if b.label == "Report the event").click().run()
    assert not at.exception
    (event,) = [e for e in latest(demo_home).dossier.monitoring if isinstance(e, SafetyEvent)]
    assert event.severity == "moderate" and event.output_ids == ["demo-2026-11-00012"]
    assert any(e.value.startswith("**Suspended.**") for e in at.error)
    assert "moderate" in set(frame(at, "Severity")["Severity"])


def test_a_dossier_without_a_decision_says_monitoring_starts_after_go_live(store):
    store.save(Dossier(id="D-empty", title="Not decided yet", owner="AI committee",
                       intended_use=example_intended_use()), author="tester")
    at = open_page(PAGE, dossier_id="D-empty")
    assert any("Monitoring starts after go-live" in i.value for i in at.info)
    assert not at.get("vega_lite_chart")


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    seed_decided_dossier(store, llm_server.url)
    return store, llm_server


def test_a_decided_dossier_without_a_feed_asks_for_the_first_import(decided):
    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    assert any("No production feed imported yet" in i.value for i in at.info)
    assert not at.get("vega_lite_chart") and not at.error
    assert any(b.label == "Import" for b in at.button)


@pytest.fixture
def paused(decided, tmp_path):
    store, llm_server = decided
    feed = tmp_path / "feed.csv"
    feed.write_text("timestamp,served_model,outcome\n"
                    "2026-03-01T09:00:00Z,another-vendor-model-2026-02,accepted\n"
                    "2026-03-01T09:05:00Z,another-vendor-model-2026-02,minor_edit\n")
    import_feed(store, DOSSIER_ID, feed, actor=Actor.named("tester"))
    return store, llm_server


def test_the_pause_offers_one_button_that_asks_the_model_again(paused):
    store, server = paused
    hits = server.hits
    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    assert any(e.value.startswith("**Paused.**") for e in at.error)
    button = next(b for b in at.button if b.key == "mon_reevaluate")
    assert not button.disabled
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Re-evaluation started" in s.value for s in at.success)
    deadline = time.monotonic() + 120
    while JOBS.live():
        assert time.monotonic() < deadline, "re-evaluation did not finish"
        time.sleep(0.05)
    assert server.hits - hits == N, "every case asked again, none answered from the cache"
    assert store.load(DOSSIER_ID).dossier.reevaluations
