"""Monitoring page (AppTest), issue 36 item 13: the words a committee reads about the prompt version and the
latency CUSUM, and a rate signal's first sighting and bar in the signals table."""

from __future__ import annotations

import re
from datetime import timedelta

from governance.identity import Actor
from governance.monitoring.operations.feed import import_feed, monitoring_status
from tests.governance.reevaluation_fixtures import DOSSIER_ID, scripted_models, seed_decided_dossier
from tests.pages.conftest import open_page
from tests.pages.readable import as_shown, frames

PAGE = "pages/monitoring.py"


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_the_demo_checks_the_prompt_version_its_candidate_records_and_says_so(demo_home):
    at = open_page(PAGE)
    text = _captions(at)
    assert "No approved prompt version is recorded" not in text
    assert ("Approved prompt version portal-reply v3.2, from the candidate record Contoso Health Cloud "
            "(demo) · Portal Reply Assistant (the plan names none).") in text


def test_a_feed_on_the_decision_day_says_why_latency_is_not_charted_and_when_a_rate_was_first_seen(
        store, llm_server, tmp_path):
    llm_server.configure(answer=scripted_models())
    seed_decided_dossier(store, llm_server.url)
    decided = store.load(DOSSIER_ID).dossier.decision.decided_at
    served = monitoring_status(store, DOSSIER_ID).approved.accepted_models[0]
    first = decided + timedelta(seconds=1)
    lines = ["id,timestamp,served_model,outcome,latency_ms"]
    for i in range(120):  # two minutes after the decision; reviewers corrected 30 of 120 materially (25%)
        at = (first + timedelta(seconds=i)).isoformat().replace("+00:00", "Z")
        outcome = "material_correction" if i % 4 == 0 else "accepted"
        lines.append(f"r{i},{at},{served},{outcome},{800 + i % 7}")
    feed = tmp_path / "feed.csv"
    feed.write_text("\n".join(lines) + "\n")
    import_feed(store, DOSSIER_ID, feed, actor=Actor.named("tester"), now=first + timedelta(minutes=3))

    at = open_page(PAGE, dossier_id=DOSSIER_ID)
    assert not at.exception
    text = _captions(at)
    assert ("CUSUM of daily mean latency (ms): not charted yet: its baseline is the first 14 days after the "
            "decision, and 1 is stored so far.") in text
    signals = next(as_shown(f) for f in frames(at) if f is not None and "First seen" in f.columns)
    rows = signals[signals["What was seen"].str.contains("material correction in", na=False)]
    assert len(rows) == 1, signals.to_dict("records")
    assert rows.iloc[0]["First seen"] == f"{first:%Y-%m-%d %H:%M} UTC"  # not the month's start
    seen = rows.iloc[0]["What was seen"]
    assert ": 25.0% (95% interval" in seen and re.search(r"above the bar of \d+\.\d%$", seen), seen

