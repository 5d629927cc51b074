"""Try-outs never decide (issue 36 item 4).

In the walk the built-in calculator run (0 % right; not mapped to the accepted subcategory) drove the
Reject, the memo's reasons and the label's "Known failure modes". Evidence for no accepted subcategory is a
try-out: left out of verdicts, the memo and the label until the committee maps its subcategory.
"""

from __future__ import annotations

from governance.decision.memo import decision_memo
from governance.decision.model_facts import model_facts
from governance.evidence.select import is_tryout
from governance.mapping.decisions import record_mapping
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.policy import default_policy
from tests.governance.policy_fixtures import dossier, ev

JOB = "documenting_patient_visits"
CALC = "supporting_diagnostic_decisions"  # the built-in calculator benchmark's subcategory


def _walk_dossier():
    good = ev(0.93, 0.90, 0.95, n=400, model="vendor-a", benchmark="NoteBench", subcategory=JOB)
    calc = ev(0.0, 0.0, 0.1, n=30, model="vendor-a", benchmark="calc_builtin", subcategory=None)
    d = record_mapping(dossier([good, calc]), JOB, "accepted", by="chair")
    return d.model_copy(update={"policy": default_policy("moderate", [JOB, CALC])}), calc


def test_an_unmapped_calculator_run_reads_in_no_verdict_memo_or_label():
    d, calc = _walk_dossier()
    assert is_tryout(calc, d.mapping.accepted)
    assessment, rec = assessment_and_recommendation(d)
    assert [v for v in assessment.verdicts if v.status != "not_applicable"]  # the job's evidence is judged
    assert not [v for v in assessment.verdicts if calc.id in v.evidence_ids]
    memo = decision_memo(d, assessment, rec)
    assert not [r for r in memo.reasons if "calc" in r.lower()]
    facts = model_facts(d, rec, version=1, version_hash="0" * 64)
    assert not [f for f in facts.failure_modes if "calc_builtin" in f]
    assert any("NoteBench" in f for f in facts.failure_modes)


def test_once_the_committee_maps_it_the_calculator_run_is_evidence():
    d, calc = _walk_dossier()
    d = record_mapping(d, CALC, "accepted", by="chair")
    assert not is_tryout(calc, d.mapping.accepted)
    assessment, rec = assessment_and_recommendation(d)
    assert [v for v in assessment.verdicts if calc.id in v.evidence_ids]
    facts = model_facts(d, rec, version=1, version_hash="0" * 64)
    # the benchmark by its title, never its key (issue 36 item 10), on the label and in the PDF's evidence
    assert any(f.startswith("Built-in clinical calculators: ") for f in facts.failure_modes), facts
    assert not [f for f in facts.failure_modes if "calc_builtin" in f]
    from reports.sections_core import evidence_section

    rows = [r for t in evidence_section(d).tables for r in t.rows]
    assert [r[1] for r in rows if "calc" in r[1].lower()] == ["Built-in clinical calculators"], rows
