"""Monitoring page, canary section (AppTest, issue 37): none set, set, a run in control, a drift, the demo.

The live dossier is approved on the fake OpenAI-compatible server (``reevaluation_fixtures``: model A right
on all 20 calculator cases); the fake's request count shows what the page's buttons asked. The cost shown
before the set button is checked against the decided run's own token counts at the endpoint's price.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from scipy.stats import binomtest

from governance.monitoring.records import CanaryRun, CanarySet
from tests.governance.monitoring.test_canary import wrong_on
from tests.governance.reevaluation_fixtures import (
    DOSSIER_ID,
    PRICES,
    N,
    scripted_models,
    seed_decided_dossier,
)
from tests.pages.conftest import PAGE_USER, latest, open_page
from tests.pages.readable import as_shown, assert_readable, frames

PAGE = "pages/monitoring.py"


def _text(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption]
                    + [e.value for e in at.error] + [w.value for w in at.warning] + [i.value for i in at.info]
                    + [s.value for s in at.success])


def _runs(at):
    return next(as_shown(f) for f in frames(at) if "Outcome" in f.columns)


def _button(at, key):
    return next(b for b in at.button if b.key == key)


def _entries(store, kind):
    return [e for e in store.load(DOSSIER_ID).dossier.monitoring if isinstance(e, kind)]


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    seed_decided_dossier(store, llm_server.url)
    return store, llm_server


def test_none_set_shows_the_cost_then_sets_and_setting_again_changes_nothing(decided):
    store, server = decided
    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    assert any("No canary is set" in i.value for i in at.info)
    assert not any(b.key == "mon_canary_run" for b in at.button)
    rows = [r for run_id in {i.run_id for i in store.load(DOSSIER_ID).dossier.evidence_plan.items}
            for r in store.runs.results(run_id)]
    assert len(rows) == N
    per_run = sum(r["prompt_tokens"] * PRICES["input_price_per_mtok"]
                  + r["completion_tokens"] * PRICES["output_price_per_mtok"] for r in rows) / 1e6
    at.number_input(key="mon_canary_cases").set_value(N).run()
    at.number_input(key="mon_canary_every").set_value(7).run()
    text = _text(at)
    assert f"USD {per_run:.4f} per run × 52.14 runs a year" in text
    assert f"USD {per_run * 365 / 7:.2f} a year" in text
    hits, before = server.hits, store.load(DOSSIER_ID).version
    _button(at, "mon_canary_set").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (canary,) = _entries(store, CanarySet)
    assert (len(canary.cases), canary.every_days, canary.by) == (N, 7, PAGE_USER)
    assert store.load(DOSSIER_ID).version == before + 1 and server.hits == hits, "set asks no model"
    text = _text(at)
    assert canary.id in text and "The canary has not been run yet" in text
    assert canary.baseline_digest[:16] in text and f"{N} cases" in text
    assert f"Next due {canary.at.date() + timedelta(days=7):%Y-%m-%d}" in text
    _button(at, "mon_canary_set").click().run()  # unchanged: nothing stored
    assert not at.exception
    assert store.load(DOSSIER_ID).version == before + 1 and len(_entries(store, CanarySet)) == 1
    assert "unchanged" in " ".join(t.value for t in at.toast)


@pytest.fixture
def canary_set(decided):
    store, server = decided
    from governance.identity import Actor
    from governance.monitoring.operations.canary import set_canary

    set_canary(store, DOSSIER_ID, actor=Actor.named("chair"), cases=N)
    return store, server


def test_a_run_in_control_then_a_drift_run_are_shown_with_their_figures(canary_set):
    store, server = canary_set
    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    hits = server.hits
    _button(at, "mon_canary_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert server.hits - hits == N, "every case asked again, never the cache"
    shown = _runs(at)
    assert list(shown["Outcome"]) == ["In control"]
    assert (shown["Lost"][0], shown["Gained"][0], shown["Correct now"][0]) == ("0", "0", str(N))
    assert shown["Served model"][0] == "model-a" and shown["Changed answers"][0] == "0%"
    assert assert_readable(at) >= 1

    server.configure(answer=wrong_on(8))
    hits = server.hits
    _button(at, "mon_canary_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert server.hits - hits == 2 * N, "a drift is asked once more before a signal"
    shown = _runs(at)
    assert list(shown["Outcome"]) == ["Drift from the baseline", "In control"]
    (drift,) = [r for r in _entries(store, CanaryRun) if r.status == "drift"]
    assert shown["Signal"][0] == drift.signal_id and shown["Confirmed"][0] == "yes"
    assert (shown["Lost"][0], shown["Gained"][0]) == ("8", "0")
    assert float(shown["p-value (exact, one-sided)"][0]) == pytest.approx(
        binomtest(8, 8, 0.5, alternative="greater").pvalue, abs=5e-4)
    assert shown["Changed answers"][0] == "40%"
    assert any(e.value.startswith("**Review.**") for e in at.warning)
    text = _text(at)
    for raw in ("in_control", "identity_changed", "None"):
        assert raw not in text, raw


def test_the_demo_shows_its_seeded_canary_run_and_says_no_model_was_called(demo_home):
    at = open_page(PAGE)
    assert not at.exception
    shown = _runs(at)
    assert list(shown["Outcome"]) == ["In control"] and list(shown["Model asked"]) == ["no model (seeded)"]
    assert any("DEMO DATA" in w.value and "canary run is seeded" in w.value for w in at.warning)
    (canary,) = [e for e in latest(demo_home).dossier.monitoring if isinstance(e, CanarySet)]
    assert canary.id in _text(at) and len(canary.cases) == 40
    before = latest(demo_home).version
    _button(at, "mon_canary_run").click().run()  # the demo's run was recorded offline: a plain refusal
    assert not at.exception
    assert any("Canary not run" in e.value for e in at.error)
    assert latest(demo_home).version == before


def test_a_decided_run_without_stored_answers_is_asked_once_for_its_baseline(decided):
    store, server = decided
    (item,) = store.load(DOSSIER_ID).dossier.evidence_plan.items
    store.runs.con.execute("DELETE FROM run_results WHERE run_id = ?", [item.run_id])
    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    at.number_input(key="mon_canary_cases").set_value(5).run()
    assert "holds no stored answers" in _text(at) and "Cost unknown" in _text(at)
    hits = server.hits
    _button(at, "mon_canary_set").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert server.hits - hits == 5, "the baseline asked once"
    (canary,) = _entries(store, CanarySet)
    assert len(canary.cases) == 5 and list(canary.baseline_runs) == [item.run_id]
    assert "USD" in _text(at) and "holds no stored answers" not in _text(at), "now priced by the baseline"
