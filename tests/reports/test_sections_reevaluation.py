"""The re-evaluation addendum section: built from the addendum, placed by the bundle, in the PDF."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from pypdf import PdfReader

from governance.dossier.record import Dossier
from governance.evidence.plan_records import EvidencePlan
from governance.intended_use.records import example_intended_use
from governance.reevaluation.records import (
    BenchmarkComparison,
    DecisionImpact,
    PlanChange,
    ReevaluationAddendum,
    SubgroupComparison,
    VerdictChange,
)
from reports.bundle import report_bundle
from reports.pdf import render_pdf
from reports.sections_reevaluation import reevaluation_sections

WHEN = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def addendum(worse=("c-03", "c-08")) -> ReevaluationAddendum:
    comparison = BenchmarkComparison(
        benchmark="calc_builtin", kind="benchmark", metric="numeric_in_range", candidate="openai/model-a",
        run_before="run-a", run_after="run-b", model_before="openai/model-a", model_after="openai/model-b",
        prompt_hash_before="p1", prompt_hash_after="p1", n_pairs=20, mean_before=1.0, mean_after=0.9,
        mean_delta=-0.1, delta_ci=(-0.25, 0.0), binary=True, mcnemar_p=0.5, worse=list(worse), better=[],
        subgroups=[SubgroupComparison(tag="sex", group="F", n_pairs=12, suppressed=False, mean_delta=-0.0833,
                                      delta_ci=(-0.25, 0.0), worse=["c-03"]),
                   SubgroupComparison(tag="sex", group="M", n_pairs=8, suppressed=True)],
        new_requests=20)
    change = VerdictChange(rule_id="score.calc", kind="score", model="openai/model-a",
                           benchmark="calc_builtin", before="pass", after="inconclusive", status_changed=True,
                           crossed=False, now_fails=False, threshold=0.8, estimate_before=1.0,
                           estimate_after=0.9)
    impact = DecisionImpact(would_change=True, why=["The verdicts would support 'approve with conditions'.",
                                                    "Rule score.calc: pass → inconclusive."],
                            decided_outcome="approve", decided_model="openai/model-a",
                            recommended_before="approve", recommended_after="approve_with_conditions")
    return ReevaluationAddendum(
        id="R-0123abcd", created_at=WHEN, by="qa", change=PlanChange(model="openai/model-b"),
        plan=EvidencePlan(frozen_at=WHEN, frozen_by="chair"), plan_frozen_at_decision=True,
        based_on_version=4,
        comparisons=[comparison], verdicts_compared=3, verdict_changes=[change], impact=impact,
        new_requests=20, caveats=["Method note."])


def dossier(*addenda) -> Dossier:
    return Dossier(id="D-addendum", title="Calculator helper", owner="AI committee",
                   intended_use=example_intended_use(), reevaluations=list(addenda))


def test_no_addendum_no_section():
    assert reevaluation_sections(dossier()) == []


def test_section_leads_with_the_answer_and_lists_the_numbers():
    (section,) = reevaluation_sections(dossier(addendum()))
    assert section.key == "reevaluation" and section.title == "Re-evaluation addendum"
    assert "1 re-evaluation(s)" in section.paragraphs[0] and "1 found" in section.paragraphs[0]
    (sub,) = section.subsections
    assert sub.title == "R-0123abcd: model → openai/model-b (2026-05-01)"
    assert sub.paragraphs[0].startswith("Would this change the decision? Yes. The verdicts would support")
    tables = {t.title.split(" (")[0]: t for t in sub.tables}
    assert tables["Paired comparison"].rows == [["calc_builtin", "numeric_in_range", "20", "1.000", "0.900",
                                                  "-0.100 (-0.250 to +0.000)", "0.500", "2", "0"]]
    assert tables["Instances that changed"].rows == [["calc_builtin", "worse", "c-03, c-08"]]
    suppressed = ["calc_builtin", "sex=M", "8", "suppressed (too few to report)", "–"]
    assert tables["Subgroups"].rows[1] == suppressed
    flipped = ["score.calc", "openai/model-a", "calc_builtin", "pass", "inconclusive"]
    assert tables["Verdicts that changed"].rows[0][:5] == flipped
    assert "Rule score.calc: pass → inconclusive." in sub.bullets and "Method note." in sub.bullets
    facts = {f.label: f.value for f in sub.facts}
    assert facts["Requests"] == "20 sent, 0 answered from the response cache"
    assert facts["Recommendation after"] == "Approve with conditions"


def test_long_id_lists_are_cut_with_a_count():
    many = [f"c-{i:03d}" for i in range(75)]
    (section,) = reevaluation_sections(dossier(addendum(worse=many)))
    row = next(t for t in section.subsections[0].tables if t.title == "Instances that changed").rows[0]
    assert row[2].endswith("c-059 … and 15 more")


def test_bundle_places_it_before_the_appendices_and_the_pdf_reads_back(store):
    store.save(dossier(addendum()), author="qa", note="re-evaluation R-0123abcd")
    report = report_bundle(store, "D-addendum").report
    keys = [s.key for s in report.sections()]
    assert keys.index("reevaluation") == keys.index("runs") - 1
    pdf = render_pdf(report, charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Re-evaluation addendum" in text and "Would this change the decision? Yes." in text
    assert "c-03, c-08" in text and "suppressed (too few to report)" in text


def test_demo_pdf_has_the_offline_reevaluation(store):
    from governance.demo.seed import DEMO_ID, seed_demo

    seed_demo(store)
    report = report_bundle(store, DEMO_ID).report
    (section,) = [s for s in report.sections() if s.key == "reevaluation"]
    assert section.recorded
    pdf = render_pdf(report, charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Re-evaluation addendum" in text and "GPT-4o (2024-08-06)" in text
    assert "en-03, en-10, en-17" in text and "DEMO DATA" in text


def test_an_addendum_is_shown_as_not_covered_by_the_signoffs(store):
    """Issue 25, item 4: a forged impact ("Would this change the decision? No. FORGED") kept every sign-off
    valid and printed in the PDF like signed text. Addenda are outside what sign-offs sign; the PDF says so.
    """
    forged = addendum().model_copy(update={"impact": addendum().impact.model_copy(
        update={"would_change": False, "why": ["FORGED"]})})
    store.save(dossier(forged), author="qa")
    pdf = render_pdf(report_bundle(store, "D-addendum").report, charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Would this change the decision? No. FORGED" in text
    assert "These addenda are not signed: the sign-offs above do not cover them." in text
    assert "Signed not covered by any sign-off" in text.replace(":", "")
