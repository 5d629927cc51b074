"""The monthly monitoring report: sections from the status, a PDF that reads back, a detached signature.

The PDF's pages were also rendered with pdftoppm and looked at (docs/monitoring-page.md lists the
screenshots); here the text is checked with pypdf, as for the dossier PDF.
"""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from governance.demo.monitoring import CHAIR
from governance.demo.monitoring_feed import demo_months
from governance.dossier.store import Store
from governance.monitoring.month import month_of
from governance.monitoring.operations.feed import monitoring_status
from reports.monitoring_report import monthly_sections, render_monthly_pdf, write_monthly_report
from reports.signing import DETACHED_SUFFIX, ExportSigner, verify_detached
from tests.demo_monitoring import DEMO, demo_db  # noqa: F401 (fixture)
from tests.reports.test_signing import make_key_and_cert


@pytest.fixture(scope="module")
def demo(demo_db):  # noqa: F811
    store = Store.open(demo_db)
    version = store.load(DEMO)
    status = monitoring_status(store, DEMO)
    yield version, status, demo_months(version.created_at)
    store.close()


def _text(pdf: bytes) -> str:
    return " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)


def test_sections_of_the_creep_month_show_the_signal_and_what_was_done(demo):
    version, status, months = demo
    sections = {s.key: s for s in monthly_sections(month_of(status, version, months[4]))}
    assert list(sections) == ["status", "figures", "charts", "signals", "events", "imports"]
    figures = sections["figures"].tables[0]
    row = dict(zip(figures.columns, figures.rows[0], strict=True))
    assert row["Metric"] == "Audited material-correction share" and row["Past the bar"] == "no"
    signals = sections["signals"].tables
    assert any(r[1] == "Drift before the bar (CUSUM)" and r[3] == "resolved" for r in signals[0].rows)
    assert any(r[0] == "Paused" or r[2] == "Paused" for r in signals[0].rows)  # the open pause is listed
    done = signals[1]
    assert [r[1] for r in done.rows] == ["acknowledged", "resolved"] and CHAIR in done.rows[1][3]
    assert {c.key for c in sections["charts"].charts} >= {"rate-material_correction_share",
                                                          "cusum-material corrections (audits)"}
    assert len(sections["imports"].tables[0].rows) == 6


def test_a_quiet_month_says_no_signal_was_raised(demo):
    version, status, months = demo
    # The demo's feed is quiet in month 2; the vendor's retirement calendar is not (issue 37: the notice
    # window of gpt-4o-2024-05-13 opens on 2026-07-25 and its signal stays open; tested in
    # tests/governance/demo/test_demo_monitoring.py), so the report is built without that signal.
    feed_only = [e for e in version.dossier.monitoring if getattr(e, "signal_kind", None) != "retirement"]
    dossier = version.dossier.model_copy(update={"monitoring": feed_only})
    version = version.model_copy(update={"dossier": dossier})
    status = status.model_copy(update={"signals": [s for s in status.signals if s.kind != "retirement"]})
    signals = next(s for s in monthly_sections(month_of(status, version, months[1])) if s.key == "signals")
    assert signals.paragraphs == [f"No signal was raised in {months[1]} and none was open."]


def test_pdf_reads_back_with_the_month_signals_and_the_record_hash(demo):
    version, status, months = demo
    pdf = render_monthly_pdf(month_of(status, version, months[4]))
    assert pdf.startswith(b"%PDF-")
    text = _text(pdf)
    for words in (f"Monitoring status for {months[4]}", "Paused", "Drift before the bar (CUSUM)",
                  "What was done", CHAIR, "DEMO DATA", "Bernoulli CUSUM", "Wilson", version.hash,
                  "Where the figures come from"):
        assert words in text, words
    reader = PdfReader(io.BytesIO(pdf))
    assert sum(len(p.images) for p in reader.pages) >= 3  # the charts are embedded as images
    assert "_" not in text.replace("DEMO-DATA-portal-feed", "").split("Where the figures come from")[0] \
        .replace("monitoring_feed.py", ""), "no raw keys before the file list"


def test_signed_when_a_key_is_given_and_written_atomically(demo, tmp_path):
    version, status, months = demo
    key, cert = make_key_and_cert(tmp_path, "Hospital Exports")
    out = tmp_path / "month.pdf"
    signer = ExportSigner.from_files(key, cert)
    written = write_monthly_report(month_of(status, version, months[4]), out, signer)
    assert written.path == out and written.signature == tmp_path / f"month.pdf{DETACHED_SUFFIX}"
    verified = verify_detached(out.read_bytes(), written.signature.read_bytes(), cert.read_bytes())
    assert "Hospital Exports" in verified.signer
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".part") == []
    unsigned = write_monthly_report(month_of(status, version, months[4]), tmp_path / "plain.pdf")
    assert unsigned.signature is None and not (tmp_path / f"plain.pdf{DETACHED_SUFFIX}").exists()


def test_a_past_month_prints_its_stored_signals_after_the_plan_changes(home, tmp_path):
    from governance.decision.records import MonitoredMetric
    from governance.identity import Actor
    from governance.monitoring.operations.feed import import_feed
    from tests.governance.monitoring_fixtures import (
        NOW,
        decided_dossier,
        feed_rows,
        monitoring_plan,
        write_csv,
    )

    store = Store.open(home / "medassure.duckdb")
    did = store.save(decided_dossier(), author="chair").dossier.id
    rows = feed_rows(400, material_every=5)  # February 2026: 200 audited, 20% material against a 5% bar
    for i, r in enumerate(rows):
        r["error"] = "true" if i % 10 == 0 else "false"  # 10% errors: no bar in the plan yet
    raised = import_feed(store, did, write_csv(tmp_path / "feb.csv", rows), actor=Actor.named("qa"), now=NOW)
    (stored,) = raised.new_signals

    def new_plan(d):  # a later plan: the correction bar at 10%, an error-rate bar of 1%
        plan = monitoring_plan(metrics=[
            MonitoredMetric(name="share of audited outputs needing a material correction", threshold=0.10,
                            direction="at_most"),
            MonitoredMetric(name="share of calls that failed", threshold=0.01, direction="at_most")])
        return d.model_copy(update={"oversight": d.oversight.model_copy(update={"monitoring": plan})})

    store.update(did, new_plan, author="chair", note="bars changed")
    now = monitoring_status(store, did, now=NOW)
    recomputed = {s.id: s for s in now.signals if f"{s.first_seen:%Y-%m}" == "2026-02"}
    assert stored in recomputed and "bar of 10.0%" in recomputed[stored].detail  # recomputation differs:
    (extra,) = set(recomputed) - {stored}  # a new bar, a new signal, and the stored one's words changed

    february = month_of(now, store.load(did), "2026-02")
    signals = next(s for s in monthly_sections(february) if s.key == "signals")
    table = signals.tables[0]
    assert [r[0] for r in table.rows] == [stored]  # the stored signal alone, in the words it was raised in
    assert "bar of 5.0%" in table.rows[0][-1]
    assert signals.paragraphs[0].startswith("As recorded when each signal was raised")
    assert extra in signals.paragraphs[1] and "not in the record" in signals.paragraphs[1]
    store.close()


def test_the_report_names_the_approved_prompt_version_and_where_it_comes_from(demo):
    version, status, months = demo
    (section,) = [s for s in monthly_sections(month_of(status, version, months[4])) if s.key == "status"]
    facts = {f.label: f.value for f in section.facts}
    assert facts["Approved prompt version"] == (
        "portal-reply v3.2 (from the candidate record Contoso Health Cloud (demo) · Portal Reply Assistant "
        "(the plan names none))")


def test_the_pause_banner_names_what_was_served(demo):
    """A paused use says which model was served unapproved, not only that one was (the reviewer's walk)."""
    from reports.monitoring_text import banner

    _, status, _ = demo
    level, text = banner(status)
    first = next(s for s in status.signals if s.state != "resolved" and s.level == "pause")
    assert level == "Paused"
    assert f"Seen: {first.detail.rstrip('.')}." in text
    assert first.kind == "model_change"  # the demo's first pause: the vendor served another snapshot
    assert "GPT-4o (2024-08-06)" in text and "not approved" in text
