"""Sections from the committee's records: rules, verdicts, change log, cost, review, monitoring, decision."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET

import pytest
from pypdf import PdfReader

from governance.rules.assessment import assessment_and_recommendation
from governance.rules.rule_text import rule_label
from reports.build import build_report
from reports.chai import NAMESPACE, chai_model_card_xml
from reports.exports import hti1_csv
from reports.pdf import render_pdf
from tests.reports.conftest import CLAUDE, GPT4O, as_version


@pytest.fixture(scope="module")
def report(governed_version):
    return build_report(governed_version)


def _rows(table, column, value):
    i = table.columns.index(column)
    return [r for r in table.rows if r[i] == value]


def test_every_section_is_recorded(report):
    assert [s.key for s in report.sections() if not s.recorded] == ["subgroups", "runs"]
    assert report.cover.decision == f"Approve with conditions: {GPT4O}"
    assert report.cover.decision_date is not None


def test_rules_with_rationale_and_lock(report, governed_version):
    rules = report.rules
    names = [r[0] for r in rules.tables[0].rows]  # rules named in words, never by id (issue 27)
    assert names == [rule_label(r) for r in governed_version.dossier.policy.rules]
    assert "Score bar 0.95 on PrivacyDetection" in names and not any("score." in n for n in names)
    assert all(r[3] for r in rules.tables[0].rows)  # every rule shows its rationale
    assert "Locked by Dr. A. Rivera (chair)" in rules.paragraphs[0]
    assert "holm; one-sided alpha 0.025" in rules.paragraphs[0]  # error control locked with the rules
    pre = next(s for s in rules.subsections if s.key == "preregistration")
    yes, no = assessment_and_recommendation(governed_version.dossier)[0].preregistered()
    total = len(yes) + len(no)
    head = f"{len(yes)} of {total} verdicts that read evidence are pre-registered; {len(no)} are not"
    assert pre.paragraphs[0].startswith(head)
    # PrivacyDetection is a published figure: never pre-registered, whatever the change log says (issue 24)
    changed = "Score bar 0.95 on PrivacyDetection: not pre-registered (it reads published evidence"
    assert any(line.startswith(changed) for line in pre.bullets)


def test_verdicts_match_the_assessment_and_cite_evidence_rows(report, governed_version):
    assessment, rec = assessment_and_recommendation(governed_version.dossier)
    per_rule = [s for s in report.rules.subsections if s.key.startswith("verdicts_")]
    assert sum(len(s.tables[0].rows) for s in per_rule) == len(assessment.verdicts)
    score, gating = assessment.score_counts(), assessment.gating_counts()
    facts = {f.label: f.value for f in report.rules.facts}
    assert facts["Score verdicts"] == (f"{score['pass']} PASS, {score['fail']} FAIL, "
                                       f"{score['inconclusive']} INCONCLUSIVE")
    assert facts["Gating rules (counted apart)"].startswith(f"{gating['pass']} PASS, {gating['fail']} FAIL")
    assert any(p.startswith("Family of score verdicts:") for p in report.rules.paragraphs)
    score_rule = next(s for s in per_rule if s.key == "verdicts_score.patient_provider_messaging")
    (fail,) = [r for r in score_rule.tables[0].rows if r[0] == CLAUDE and r[1] == "ProxySender"]
    assert fail[2] == "fail" and "upper bound" in fail[3]
    evidence = report.evidence.tables[0]
    (cited,) = _rows(evidence, "Ref", fail[6])  # the cited row is that model on that benchmark
    assert cited[1:3] == ["ProxySender", CLAUDE]
    recommendation = report.rules.subsections[-1]
    # recomputed for issue 15 (was "Approve with conditions"): open score verdicts are not conditions
    assert recommendation.title.endswith("Insufficient evidence")
    assert any(c == CLAUDE and o.startswith("Reject: ") for c, o, *_ in recommendation.tables[0].rows)
    assert rec.outcome == "insufficient_evidence"


def test_change_log_shows_the_change_after_the_lock(report):
    changes = report.rule_changes
    assert changes.recorded
    (row,) = changes.tables[0].rows
    assert row[1] == "Score bar 0.95 on PrivacyDetection" and row[2].startswith("added: score 0.95")
    assert row[3] == "J. Okafor (privacy officer)" and row[5] == "Privacy office review."
    assert "unbroken chain" in changes.paragraphs[-1]


def test_cost_table_and_chart(report):
    cost = report.cost
    rows = cost.tables[0].rows
    assert [r[0] for r in rows] == [GPT4O, CLAUDE, "Llama 3.3 Instruct (70B)"]
    assert all(r[3].startswith("USD ") for r in rows)
    assert [c.key for c in cost.charts] == ["cost_score"]
    assert "published_cost" not in [c.key for c in report.charts.charts]  # the cost section has its own chart
    assert any("endpoint override" in r[1] for r in cost.tables[1].rows)


def test_review_and_monitoring_plan(report, governed_version):
    review = {f.label: f.value for f in report.human_review.facts}
    assert review["Review before release"].startswith("yes")
    assert review["Audit sample"].endswith(governed_version.dossier.oversight.review.qa_reviewer)
    assert report.human_review.subsections[0].bullets == governed_version.dossier.oversight.reasons
    triggers = [r[0] for r in report.monitoring.tables[0].rows]
    assert "model version change" in triggers and "prompt change" in triggers


def test_decision_and_valid_signoff(report):
    s = report.signoffs
    facts = {f.label: f.value for f in s.facts}
    assert facts["Decision"] == f"Approve with conditions: {GPT4O}"
    assert facts["Conditions"] == "1. Every draft is reviewed before it is sent."
    # the committee decided otherwise than the verdicts support: shown with its recorded reason
    differs = facts["Differs from the recommendation"]
    assert differs.startswith(f"The committee decided approve with conditions for {GPT4O}; the verdicts "
                              "support insufficient evidence")
    assert "The committee's recorded reason: " in differs
    (lead,) = _rows(s.tables[0], "Role", "clinical lead")
    assert lead[2] == "valid" and lead[3] == "Dr. M. Chen"
    assert _rows(s.tables[0], "Role", "procurement")[0][2] == "not signed"
    summary = {f.label: f.value for f in report.executive_summary.facts}
    assert summary["Sign-offs"].startswith("1 of 4 required roles signed and valid")


def test_a_later_change_shows_the_signoff_invalidated(governed_version):
    changed = governed_version.dossier.model_copy(update={"title": "Drafting replies (renamed)"})
    s = build_report(as_version(changed, 3, governed_version.hash)).signoffs
    (lead,) = _rows(s.tables[0], "Role", "clinical lead")
    assert lead[2] == "invalidated"
    assert s.tables[1].title == "Sign-offs invalidated by later changes"
    assert any(p.startswith("Warning: the dossier changed after the decision") for p in s.paragraphs)


def test_chai_and_hti1_take_maintenance_from_the_plan(governed_version):
    root = ET.fromstring(chai_model_card_xml(governed_version).encode())
    ns = f"{{{NAMESPACE}}}"
    assert root.find(f"{ns}BasicInfo/{ns}ModelName").text.startswith(f"{GPT4O} for: ")
    maintenance = root.find(f"{ns}TrustIngredients/{ns}AISystemFacts/{ns}OngoingMaintenance").text
    assert "every 6 months" in maintenance and "model version change" in maintenance
    assert "Human review" in root.find(f"{ns}UsesAndDirections/{ns}HowToUse").text
    interpretation = root.find(f"{ns}KeyMetrics/{ns}UsefulnessUsabilityEfficacy/{ns}Interpretation").text
    assert "Committee decision: Approve with conditions" in interpretation
    rows = {int(r["number"]): r for r in csv.DictReader(io.StringIO(hti1_csv(governed_version.dossier)))}
    assert rows[26]["value"].startswith("Re-evaluation every 6 months")
    assert rows[26]["from_field"] == "oversight.monitoring"


def test_governed_pdf_has_every_heading_and_the_cost_chart(report, governed_version):
    pdf = render_pdf(report)
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    for number, section in enumerate(report.sections(), start=1):
        assert f"{number}. {section.title}" in text
    assert "Verdicts of rule: Score bar 0.70 for Patient-Provider Messaging" in text and "Dr. M. Chen" in text
    assert governed_version.hash in text
    assert sum(len(p.images) for p in reader.pages) == 4  # scores, means, coverage, cost


def test_chai_names_the_decided_candidate_by_its_product(governed_version):
    """ModelName is the recorded product the committee compared, not the evidence's model string."""
    from datetime import UTC, datetime

    from governance.procurement.records import Candidate

    d = governed_version.dossier
    vendor = Candidate(id="openai-portal", vendor="OpenAI", product="Portal drafts", model_id="gpt-4o",
                       evidence_models=[d.decision.model], added_by="dr.p", added_at=datetime.now(UTC))
    d = d.model_copy(update={"candidates": [vendor]})
    root = ET.fromstring(chai_model_card_xml(as_version(d, 3, governed_version.hash)).encode())
    ns = f"{{{NAMESPACE}}}"
    assert root.find(f"{ns}BasicInfo/{ns}ModelName").text == f"{vendor.label} for: {d.title}"
    assert d.decision.model not in root.find(f"{ns}BasicInfo/{ns}ModelName").text
