"""Judge validity for a dossier: the view, the record the agreement rule reads, the minimum, the demo."""

from __future__ import annotations

import duckdb
import pytest

from evaluator.agreement.ratings import RatingsError
from evaluator.agreement.report import LABELS
from evaluator.jury.store import JuryStore
from governance.demo.judge_validity import SOURCE, demo_ratings, record_demo_judge_validity
from governance.demo.seed import DEMO_STEPS
from governance.judge_validity.operations import (
    agreement_setting,
    assess_judge_validity,
    jury_benchmarks,
    minimum_rule,
    record_agreement,
    sample_size_hint,
    set_minimum,
    stored_juries,
)
from governance.rules.policy import lock_policy
from governance.rules.records import AcceptancePolicy, JudgeAgreementRule, PolicyError
from governance.rules.verdicts import assess
from tests.governance.policy_fixtures import dossier, ev


@pytest.fixture(scope="module")
def demo_frames():
    return demo_ratings()


@pytest.fixture(scope="module")
def view(demo_frames):
    clinicians, jury = demo_frames
    return assess_judge_validity(
        None, clinicians.to_csv(index=False).encode(), jury=jury.to_csv(index=False).encode(), n_boot=200
    )


def test_view_from_uploaded_files_has_table_rows_and_no_misplaced_medhelm_label(view):
    pooled = [r for r in view.rows if r["dataset"] == "ALL"]
    jury = {r["statistic"]: r for r in pooled if r["comparison"] == "jury vs clinicians"}
    jury_icc = jury[LABELS["icc3k_z"]]
    assert jury_icc["ci_lower"] < jury_icc["value"] < jury_icc["ci_upper"]
    # the demo pools MedDialog + MedicationQA, not MedHELM's aci_bench + medi_qa: 0.47 and 0.43 apply to
    # no row here (issue 38 §4; where they do apply: tests/evaluator/agreement/test_agreement.py)
    assert all(r["medhelm"] is None for r in view.rows if r["comparison"] != "ROUGE-L vs clinicians")
    gated = jury[LABELS["icc21"]]
    assert gated["medhelm"] is None and gated["value"] < jury_icc["value"]
    human = {r["statistic"]: r for r in pooled if r["comparison"] == "clinician vs clinician"}
    assert human[LABELS["icc3k_z"]]["n"] == 80
    assert human["ICC(A,1) single rater"]["n"] == 80 and human["ICC(A,1) single rater"]["medhelm"] is None
    assert view.jury_source == "upload" and len(view.judges) == 3


def test_a_stored_jury_supplies_ratings_and_outputs():
    con = duckdb.connect()
    store = JuryStore(con)
    jury_id = store.create(
        run_id="run-x",
        benchmark_id="medication_qa",
        candidate_model="m",
        rubric_id="default",
        rubric_hash="h" * 64,
        criteria=["accuracy", "completeness", "clarity"],
        judges=["j1", "j2", "j3"],
    )
    values = [1, 2, 3, 4, 5, 2, 3, 4]
    store.add_instances(
        jury_id,
        [
            {
                "instance_id": f"c{i}",
                "reference": "take it with food",
                "response": "take it with food" if v > 3 else "no idea",
            }
            for i, v in enumerate(values)
        ],
    )
    for judge in ("j1", "j2", "j3"):
        store.add_judgements(
            jury_id,
            judge,
            ["run-j"],
            [
                {
                    "instance_id": f"c{i}",
                    "scores": {"accuracy": v, "completeness": v, "clarity": v},
                    "repaired": False,
                    "calls": 1,
                }
                for i, v in enumerate(values)
            ],
        )
    clinicians = "instance_id,rater,accuracy,completeness,clarity\n" + "".join(
        f"c{i},dr_{r},{v},{v},{v}\n" for i, v in enumerate(values) for r in "ab"
    )
    v = assess_judge_validity(JuryStore(con), clinicians.encode(), jury_id=jury_id, n_boot=100)
    assert v.jury_source == jury_id and v.judges == ["j1", "j2", "j3"]
    assert v.report.pooled.icc3k_z.value == pytest.approx(1.0)
    assert [b.metric for b in v.report.pooled.baselines] == ["ROUGE-L"]
    assert stored_juries(JuryStore(con))[0]["jury_id"] == jury_id
    with pytest.raises(RatingsError, match="no stored jury"):
        assess_judge_validity(JuryStore(con), clinicians.encode(), jury_id="jury-nope")
    with pytest.raises(RatingsError, match="pick a stored jury"):
        assess_judge_validity(JuryStore(con), clinicians.encode())


def test_recorded_agreement_is_the_single_measure_icc_the_rule_reads(view):
    jury_ev = ev(3.9, 3.7, 4.1, scale="1-5", metric="jury_score", benchmark="MedicationQA")
    rule = JudgeAgreementRule(
        id="judge_agreement", threshold=0.35, rationale="about clinician-level agreement"
    )
    d = dossier([jury_ev], policy=AcceptancePolicy(rules=[rule]))
    assert jury_benchmarks(d) == ["MedicationQA"]
    setting = agreement_setting(
        view.report, source="pilot study", benchmarks=["MedicationQA"], judges=view.judges, by="dr.lee"
    )
    pooled = view.report.pooled.icc21
    assert setting.statistic == "ICC(A,1)"
    assert (setting.estimate, setting.ci_lower, setting.n_instances) == (pooled.value, pooled.ci_lower, 80)
    assert setting.comparison_icc3k_z == view.report.pooled.icc3k_z.value > setting.estimate
    verdict = assess(record_agreement(d, setting)).verdicts[0]
    assert verdict.kind == "judge_agreement" and verdict.status == "pass"
    assert verdict.reason.startswith("ICC(A,1) ")
    # the demo's ICC(3,k) z interval (~0.59-0.83) clears 0.5, its single-rater ICC(A,1) (~0.41-0.70) does not
    at_half = set_minimum(record_agreement(d, setting), 0.5, by="dr.lee")
    assert setting.ci_lower < 0.5 < setting.ci_upper and assess(at_half).verdicts[0].status == "inconclusive"
    strict = set_minimum(record_agreement(d, setting), 0.95, by="dr.lee")
    assert minimum_rule(strict).threshold == 0.95 and assess(strict).verdicts[0].status == "fail"
    # an average-of-k figure (as recorded before the gate changed) is never gated, even far above the bar
    legacy = setting.model_copy(update={"statistic": "ICC3k-z", "estimate": 0.9, "ci_lower": 0.85,
                                        "ci_upper": 0.95})
    old = assess(record_agreement(d, legacy)).verdicts[0]
    assert old.status == "inconclusive" and "average-of-k ICC" in old.reason and "ICC(A,1)" in old.reason


def test_minimum_is_the_rule_threshold_and_logged_once_locked():
    d = dossier([], policy=AcceptancePolicy())
    d = set_minimum(d, 0.6, by="chair")  # no rule yet: added from the tier default's rationale
    assert minimum_rule(d).threshold == 0.6 and "ICC" in minimum_rule(d).rationale
    locked = d.model_copy(update={"policy": lock_policy(d.policy, by="chair", evidence_ids=[])})
    with pytest.raises(PolicyError, match="needs a reason"):
        set_minimum(locked, 0.7, by="chair")
    changed = set_minimum(locked, 0.7, by="chair", why="pilot showed weaker agreement")
    assert changed.policy.changes[-1].new.threshold == 0.7


def test_no_figure_to_record_is_refused():
    from evaluator.agreement.analysis import compute_agreement

    few = "instance_id,rater,accuracy\n1,a,3\n2,a,4\n1,b,3\n2,b,5\n"
    report = compute_agreement(
        few.encode(), few.replace(",a,", ",j,").replace(",b,", ",k,").encode(), n_boot=10
    )
    with pytest.raises(RatingsError, match="no agreement figure"):
        agreement_setting(report, source="x" * 5, benchmarks=[], judges=[], by="me")


def test_sample_size_hint_grows_as_the_interval_narrows():
    wide, narrow = sample_size_hint(0.4, 0.47, n_have=30), sample_size_hint(0.2, 0.47, n_have=30)
    assert narrow.n_needed > wide.n_needed > 0 and "30 rated now" in narrow.text
    assert narrow.width_now > 0.4
    # planned on the single-measure interval (the gated kind), not on MedHELM's ICC(3,k)
    from evaluator.agreement.stats import sample_size_for_width
    single = sample_size_for_width(0.2, 0.47, single=True)
    assert narrow.n_needed == single != sample_size_for_width(0.2, 0.47)


def test_demo_step_is_deterministic_labelled_and_registered(demo_frames):
    clinicians, jury = demo_frames
    again = demo_ratings()
    assert clinicians.equals(again[0]) and jury.equals(again[1])
    d = record_demo_judge_validity(None, dossier([]))
    assert d.judge_agreement.source == SOURCE and SOURCE.startswith("DEMO DATA")
    assert d.judge_agreement.benchmarks == ("MedDialog", "MedicationQA") and d.judge_agreement.has_interval
    assert d.judge_agreement.statistic == "ICC(A,1)"
    assert d.judge_agreement.estimate == pytest.approx(0.5748, abs=1e-3)  # see the demo step's docstring
    assert d.judge_agreement.comparison_icc3k_z == pytest.approx(0.7387, abs=1e-3)
    assert any(step is record_demo_judge_validity for _, step in DEMO_STEPS)
