"""Issue 27 item 11: when nothing on offer tests the job's key activity, the dossier says so, in general."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.evidence.record import Evidence
from evaluator.scenarios.template import ACTIVITY_TEMPLATES
from governance.dossier.record import Dossier
from governance.evidence.gaps import Activity, activity_gaps, load_activities
from governance.intended_use.records import example_intended_use
from governance.mapping.taxonomy import load_taxonomy
from reports.sections_summary import limitations_section

DOSING = ("Propose weight-based paediatric doses in mg/kg and renal dose adjustments by creatinine clearance "
          "for pharmacists, who verify every dose before it reaches the ward.")


def dossier(purpose: str, accepted: tuple[str, ...] = (), evidence: list[Evidence] = ()) -> Dossier:
    d = Dossier(title="Paediatric dosing", owner="P&T committee",
                intended_use=example_intended_use().model_copy(update={"purpose": purpose, "workflow": ""}),
                evidence=list(evidence))
    mapping = d.mapping
    for sub in accepted:
        mapping = mapping.decide(sub, "accepted", by="me")
    return d.model_copy(update={"mapping": mapping})


def local_run(benchmark: str) -> Evidence:
    return Evidence(id="ev-local-1", model="openai/m", benchmark=benchmark, metric="exact_match", score=0.9,
                    n=40, provenance="local-run", run_id="run-1", source="local run run-1",
                    date=datetime.now(UTC), ci_missing_reason="test record")


def test_the_walks_dosing_use_names_both_gaps_even_with_medcalc_mapped():
    # MedCalc-Bench's subcategory accepted (the walk's third suggestion): it still tests neither activity.
    gaps = activity_gaps(dossier(DOSING, accepted=("supporting_diagnostic_decisions",)))
    assert [(g.activity.id, g.kind) for g in gaps] == [("weight_based_dose", "untested"),
                                                        ("renal_adjustment", "untested")]
    weight, renal = gaps
    assert weight.named_by == ("mg/kg", "weight-based", "paediatric dos")
    assert "MedCalc-Bench" in weight.sentence and "“Weight-based doses (mg/kg)”" in weight.sentence
    assert "creatinine clearance" in renal.named_by and "never the adjusted dose" in renal.sentence


def test_an_activity_a_benchmark_tests_is_a_gap_only_until_that_benchmark_is_mapped():
    use = "Calculate clinical risk scores from the admission note for the admitting team."
    (gap,) = activity_gaps(dossier(use))
    assert (gap.activity.id, gap.kind) == ("clinical_calculation", "not_mapped")
    assert "MedCalc-Bench tests it but is not in the accepted mapping" in gap.sentence
    assert activity_gaps(dossier(use, accepted=("supporting_diagnostic_decisions",))) == []


def test_a_local_scenario_named_for_the_activity_closes_the_gap():
    title = ACTIVITY_TEMPLATES["weight_based_dose"][0]
    gaps = activity_gaps(dossier(DOSING, evidence=[local_run(f"{title}: ward 3 cases")]))
    assert [g.activity.id for g in gaps] == ["renal_adjustment"]


def test_the_rule_is_the_same_for_any_vocabulary():
    triage = Activity(id="triage", name="emergency triage levels", terms=("triage",), tested_by=("MedQA",))
    untested = Activity(id="x", name="wound photo review", terms=("wound photo",), closest="none")
    d = dossier("Suggest a triage level and review each wound photo sent by district nurses.")
    kinds = [(g.activity.id, g.kind) for g in activity_gaps(d, (triage, untested))]
    assert kinds == [("triage", "not_mapped"), ("x", "untested")]
    covered = dossier(d.intended_use.purpose, accepted=("providing_clinical_knowledge_support",))
    assert [g.activity.id for g in activity_gaps(covered, (triage, untested))] == ["x"]


def test_the_demo_use_names_no_false_gap():
    # drafting portal replies is an activity MedicationQA tests: a gap until its subcategory is accepted
    portal = Dossier(title="Portal replies", owner="me", intended_use=example_intended_use())
    assert [(g.activity.id, g.kind) for g in activity_gaps(portal)] == [("patient_replies", "not_mapped")]
    mapped = portal.model_copy(update={"mapping": portal.mapping.decide(
        "providing_patient_education_resources", "accepted", by="me")})
    assert activity_gaps(mapped) == []


def test_the_vocabulary_names_real_benchmarks_and_templates():
    names = {b.name for s in load_taxonomy().subcategories for b in s.benchmarks}
    for a in load_activities():
        assert set(a.tested_by) <= names, a.id
        assert a.template is None or a.template in ACTIVITY_TEMPLATES
        assert a.tested_by or a.closest, f"{a.id}: an untested activity says what comes closest"
        assert all(t == t.lower() for t in a.terms)


@pytest.mark.parametrize("accepted", [(), ("supporting_diagnostic_decisions",)])
def test_what_this_dossiers_evidence_lacks_names_the_gap(accepted):
    section = limitations_section(dossier(DOSING, accepted=accepted))
    (lacks,) = [s for s in section.subsections if s.title == "What this dossier's evidence lacks"]
    assert any(b.startswith("Nothing on offer tests weight-based (mg/kg) dosing") for b in lacks.bullets)
    assert any(b.startswith("Nothing on offer tests renal dose adjustment") for b in lacks.bullets)


DISCHARGE = ("Draft discharge summaries for hospitalists at the end of an admission; an omitted medication "
             "change or a missed follow-up can cause serious harm. The hospitalist reviews each summary.")


def test_a_discharge_summary_use_raises_a_gap_even_with_dischargeme_mapped():
    # documenting_patient_visits holds DischargeMe and MIMIC-IV-BHC: they compare with a reference summary,
    # none checks that each medication change is stated, so the job's key harm stays a gap
    for accepted in ((), ("documenting_patient_visits",)):
        (gap,) = activity_gaps(dossier(DISCHARGE, accepted=accepted))
        assert (gap.activity.id, gap.kind) == ("discharge_summary", "untested")
        assert gap.named_by == ("discharge summar",)
        assert gap.activity.name == "summarising an admission or discharge"
        assert "DischargeMe" in gap.sentence and "medication change" in gap.sentence
        assert "rubric template for discharge summaries" in gap.sentence


def test_replies_to_patients_are_named_and_offer_their_rubric_template():
    use = "Draft replies to patient messages in the in-basket for the nurse to edit."
    (gap,) = activity_gaps(dossier(use))
    assert (gap.activity.id, gap.kind) == ("patient_replies", "not_mapped")
    assert gap.named_by == ("replies to patient", "patient message", "draft replies", "in-basket")
    assert "rubric template for patient-message replies" in gap.sentence
    assert activity_gaps(dossier(use, accepted=("providing_patient_education_resources",))) == []


def test_rubric_templates_are_named_by_their_stable_names():
    names = {a.rubric_template for a in load_activities() if a.rubric_template}
    assert names == {"rubric template for discharge summaries", "rubric template for patient-message replies"}
