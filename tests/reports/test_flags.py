"""The cover and the executive summary flag what a chair must see first (issue 16)."""

from __future__ import annotations

import io

from pypdf import PdfReader

from governance.demo.seed import seed_demo
from governance.dossier.store import Store
from reports.build import build_report
from reports.pdf import render_pdf


def _demo(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        return store.load(seed_demo(store))
    finally:
        store.close()


def test_demo_flags_demo_data_the_disagreement_and_missing_signoffs(tmp_path):
    report = build_report(_demo(tmp_path))
    flags = report.cover.flags
    assert flags[0].startswith("DEMO DATA:")
    (against,) = [f for f in flags if f.startswith("Decision against the computed recommendation")]
    assert "approve with conditions for GPT-4o (2024-05-13)" in against and "support reject" in against
    assert "Spanish-language" in against  # the committee's recorded reason travels with the flag
    assert "Sign-offs incomplete: 1 of 4 required roles have signed this content." in flags
    (read_first,) = [s for s in report.executive_summary.subsections if s.key == "flags"]
    assert read_first.bullets == flags


def test_the_pdf_cover_shows_the_flags_before_the_contents(tmp_path):
    pdf = render_pdf(build_report(_demo(tmp_path)), charts=False)
    cover = PdfReader(io.BytesIO(pdf)).pages[1].extract_text()  # page 1 is the decision memo
    assert cover.index("Read first") < cover.index("Contents")
    assert "DEMO DATA" in cover and "1 of 4 required roles" in cover


def test_a_new_dossier_is_flagged_for_what_is_not_recorded(base_version):
    flags = build_report(base_version).cover.flags
    assert not any(f.startswith("DEMO DATA") for f in flags)
    assert any(f.startswith("Not recorded yet") and "Decision and sign-offs" in f for f in flags)


def test_an_approval_with_gaps_states_the_override_on_cover_and_summary(base_version):
    from governance.decision import committee
    from tests.reports.conftest import GPT4O, as_version

    reason = "Four-week pilot on one ward; cost and monitoring plan come before any wider use."
    d = committee.decide(base_version.dossier, "approve_with_conditions", "Pilot under full review only.",
                         ["Every draft reviewed."], by="Dr. A. Rivera (chair)", model=GPT4O,
                         override_gaps=reason)
    report = build_report(as_version(d))
    (flag,) = [f for f in report.cover.flags if f.startswith("Approved with items missing")]
    assert flag == ("Approved with items missing: Acceptance rules locked, Cost analysis, Human-review plan, "
                    f"Monitoring plan. Override recorded by Dr. A. Rivera (chair): {reason}")
    (read_first,) = [s for s in report.executive_summary.subsections if s.key == "flags"]
    assert flag in read_first.bullets
    cover = PdfReader(io.BytesIO(render_pdf(report, charts=False))).pages[1].extract_text()  # after the memo
    assert "Override recorded by" in " ".join(cover.split())
    # an approval recorded before the checklist existed, with the same gaps: flagged as not overridden
    old = d.model_copy(update={"decision": d.decision.model_copy(update={"gaps_override": None})})
    flags = build_report(as_version(old)).cover.flags
    assert any(f.startswith("Approved while items are missing: Acceptance rules locked") and
               "no override on record" in f for f in flags)
    rejected = committee.decide(base_version.dossier, "reject", "Not for our patients yet.", [], by="chair")
    assert not any(f.startswith("Approved") for f in build_report(as_version(rejected)).cover.flags)
