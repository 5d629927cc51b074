"""The one-page decision memo (page 1 of the dossier PDF) and the one-page model-facts label, read back
from the PDFs' text."""

from __future__ import annotations

import io
from datetime import UTC, datetime

import pytest
from pypdf import PdfReader

from governance.decision.memo import decision_memo
from governance.decision.model_facts import _add_months, model_facts
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.outcome_text import outcome_lines
from reports.build import build_report
from reports.pdf import render_one_page_pdf, render_pdf
from reports.sections_memo import label_section
from tests.reports.conftest import GPT4O, local_run_evidence, with_evidence


def _pages(pdf: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages]


@pytest.fixture(scope="module")
def labelled(governed_version):
    """The governed dossier plus a local run of the decided model with per-sex results."""
    return with_evidence(governed_version, [local_run_evidence(model=GPT4O, benchmark="Portal triage")])


def test_memo_is_page_one_with_question_answer_reasons_conditions_signatures_and_gaps(labelled):
    report = build_report(labelled)
    pages = _pages(render_pdf(report, charts=False))
    memo_page, cover_page = pages[0].replace(" ;", ";"), pages[1]  # text extraction spaces a wrapped ";"
    d = labelled.dossier
    assessment, rec = assessment_and_recommendation(d)
    memo = decision_memo(d, assessment, rec)
    assert memo_page.startswith("Decision memo") and "MedAssure governance dossier D-report-test" in memo_page
    for heading in ("Decision memo", "The question", "The answer", "The three main reasons", "Conditions",
                    "Who signed, and when", "What is missing", "Each candidate's outcome"):
        assert heading in memo_page, heading
    assert "be used for this job: Draft replies to non-urgent patient portal messages" in memo_page
    assert (f"The committee decided on {d.decision.decided_at:%Y-%m-%d}: approve with conditions for {GPT4O}"
            "; recorded by Dr. A. Rivera (chair).") in memo_page
    assert len(memo.reasons) == 3 and all(r in memo_page for r in memo.reasons)
    assert all(any(ch.isdigit() for ch in r) for r in memo.reasons)  # each reason carries its numbers
    assert "Every draft is reviewed before it is sent." in memo_page
    assert "clinical lead: Dr. M. Chen" in memo_page
    for line in outcome_lines(assessment, rec):  # every candidate, one sentence each
        assert line.sentence in memo_page, line.sentence
    assert "Governance dossier" not in memo_page and "Governance dossier" in cover_page  # memo: one page
    assert f"Page 1 of {len(pages)}" in memo_page


def test_the_summary_and_the_recommendation_table_say_each_outcome_and_what_would_settle_it(governed_version):
    report = build_report(governed_version)
    assessment, rec = assessment_and_recommendation(governed_version.dossier)
    lines = outcome_lines(assessment, rec)
    outcome_fact = next(f for f in report.executive_summary.facts if f.label == "Each candidate's outcome")
    assert outcome_fact.value.splitlines() == [line.sentence for line in lines]
    table = next(s for s in report.rules.subsections if s.key == "recommendation").tables[0]
    assert table.columns[1] == "Outcome in one sentence"
    for row, line in zip(table.rows, lines, strict=True):
        assert row[1] == line.sentence and row[3] not in ("", "—")
        if line.outcome == "reject":
            assert row[3] == line.settle and "re-evaluated" in row[3]


def test_label_is_one_page_with_use_limits_failure_figures_checks_reporting_version_and_next_date(labelled):
    d = labelled.dossier
    _, rec = assessment_and_recommendation(d)
    facts = model_facts(d, rec, labelled.version, labelled.hash)
    report = build_report(labelled)
    pages = _pages(render_one_page_pdf(label_section(facts), report.cover))
    assert len(pages) == 1
    page = pages[0]
    assert "Model facts: Drafting replies to patient portal messages" in page
    assert "Approve with conditions: decided by the committee" in page
    assert "Do not use it for" in page and all(u in page for u in d.intended_use.out_of_scope_uses)
    # per-subgroup figures of the local run: F 82% of 110, M 77% of 85 (scores 0.82 and 0.77 on 0-1)
    assert "Portal triage, sex M: 77% right (85 cases)." in page
    assert "Portal triage, sex F: 82% right (110 cases)." in page
    assert page.index("sex M: 77%") < page.index("sex F: 82%")  # weakest first
    assert "age_band" not in page  # a suppressed group is not shown, and no tag key
    assert "What the reviewer must check" in page and "Condition: Every draft is reviewed" in page
    assert "How to report a bad output" in page and "incident reporting system" in page
    assert f"version {labelled.version} (hash {labelled.hash[:16]})" in page
    months = d.oversight.monitoring.schedule_months
    due = _add_months(d.decision.decided_at, months)
    assert f"Next re-evaluation {due:%Y-%m-%d} (every {months} months)" in page
    assert labelled.hash in page  # the page furniture binds it to the version


def test_label_of_an_undecided_dossier_says_not_approved(base_version):
    _, rec = assessment_and_recommendation(base_version.dossier)
    facts = model_facts(base_version.dossier, rec, 1, base_version.hash)
    assert facts.status.startswith("NOT APPROVED")
    assert facts.next_reevaluation.startswith("Not planned yet")


@pytest.mark.parametrize("start, months, expected", [
    (datetime(2026, 8, 31, tzinfo=UTC), 6, datetime(2027, 2, 28, tzinfo=UTC)),
    (datetime(2026, 12, 1, tzinfo=UTC), 12, datetime(2027, 12, 1, tzinfo=UTC)),
])
def test_next_date_adds_calendar_months(start, months, expected):
    assert _add_months(start, months) == expected


def test_a_reason_shared_by_every_candidate_is_said_once(governed_version):
    # the judges' agreement is one figure for all three candidates: one paragraph, not three identical rows
    report = build_report(governed_version)
    title = "Verdicts of rule: Judge agreement"
    section = next(s for s in report.rules.subsections if s.title.startswith(title))
    assert [p for p in section.paragraphs if p.startswith("Reason, the same for every row: ")]
    rows = section.tables[0].rows
    assert len(rows) == 3 and {r[3] for r in rows} == {"the same for every row: see above"}
