"""The candidate comparison: numbers worked out by hand from tests/governance/candidate_fixtures.py."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.evidence.record import Evidence
from governance.decision.comparison import compare_candidates, pick_record
from tests.governance.candidate_fixtures import CLAUDE, GPT4O, LLAMA, answers, base_dossier


def local(model: str, bench: str, score: float, lo: float, hi: float, day: int = 1) -> Evidence:
    return Evidence(
        id=f"local:{model}:{bench}:{day}",
        model=model,
        benchmark=bench,
        metric="accuracy",
        score=score,
        n=200,
        ci_lower=lo,
        ci_upper=hi,
        ci_method="Wilson",
        provenance="local-run",
        source="run r-1",
        date=datetime(2025, 2, day, tzinfo=UTC),
        run_id=f"r-{day}",
    )


@pytest.fixture(scope="module")
def cmp():
    return compare_candidates(base_dossier())


def by_id(comparison):
    return {c.id: c for c in comparison.candidates}


def test_cost_rows_by_hand(cmp):
    rows = by_id(cmp)
    assert cmp.monthly_volume == 40_000 and cmp.score_benchmark == "MedConfInfo"
    assert rows["gpt"].cost_per_1k == pytest.approx(4.5) and rows["gpt"].monthly_cost == pytest.approx(180)
    assert rows["claude"].cost_per_1k == pytest.approx(33.75) and rows["claude"].pricing == "per_seat"
    assert rows["llama"].cost_per_1k == pytest.approx(0.48)
    # published MedConfInfo EM: GPT-4o 0.772, Claude 0.811, Llama 0.789 (data/medhelm_published.csv)
    assert rows["gpt"].pass_rate == pytest.approx(0.772)
    assert rows["gpt"].cost_per_1k_acceptable == pytest.approx(4.5 / 0.772)
    assert rows["claude"].cost_per_1k_acceptable == pytest.approx(33.75 / 0.811)
    # Llama is cheaper and better than GPT-4o, Claude is the best and dearest
    assert {k for k, r in rows.items() if r.on_frontier} == {"llama", "claude"}
    assert {k: r.cost_rule for k, r in rows.items()} == {"gpt": "pass", "claude": "fail", "llama": "pass"}


def test_benchmarks_cells_verdicts_and_ties(cmp):
    assert [b.name for b in cmp.benchmarks] == ["MedConfInfo", "PrivacyDetection", "MedicationQA"]
    assert cmp.uncovered == ["MedDialog", "ProxySender"] and {b.kind for b in cmp.benchmarks} == {"mapped"}
    cells = {(c.candidate_id, c.benchmark): c for c in cmp.cells}
    assert len(cells) == 9
    privacy = cells[("gpt", "PrivacyDetection")]
    assert privacy.verdict == "pass" and privacy.rules == ["score bar 0.90 on PrivacyDetection"]  # in words
    assert privacy.model == GPT4O
    assert privacy.score == pytest.approx(0.983) and privacy.ci_lower < privacy.score < privacy.ci_upper
    assert cells[("gpt", "MedConfInfo")].verdict == "no rule"
    jury = cells[("claude", "MedicationQA")]
    assert jury.ci_lower is None and "jury" in jury.interval_note and jury.tie_group is None
    columns = {b.name: b for b in cmp.benchmarks}
    assert columns["MedConfInfo"].groups == [["claude", "llama", "gpt"]]
    assert columns["MedicationQA"].groups is None and "no interval" in columns["MedicationQA"].note


def test_candidate_rows_carry_due_diligence_and_recommendation(cmp):
    # issue 15: with Providing Patient Education Resources accepted but covered by no score rule, no
    # candidate is approvable; with only Patient-Provider Messaging accepted the privacy rule covers it
    assert by_id(cmp)["gpt"].recommendation == "insufficient_evidence"
    d = base_dossier()
    d = d.model_copy(update={"mapping": d.mapping.decide("providing_patient_education_resources", "rejected",
                                                          by="me")})
    # issue 24: published figures are never pre-registered (a condition); as local runs they approve
    local = [e.model_copy(update={"provenance": "local-run"}) for e in d.evidence]
    d = d.model_copy(update={"evidence": local})
    gpt = by_id(compare_candidates(d))["gpt"]
    assert (gpt.questions, gpt.answered, gpt.satisfactory) == (11, 11, 11)
    assert gpt.open_items == [] and gpt.conditions == [] and gpt.recommendation == "approve"
    assert gpt.verdicts == {"pass": 2, "fail": 0, "inconclusive": 0} and gpt.evidence_models == [GPT4O]
    d = d.model_copy(
        update={
            "candidates": [
                d.candidates[0].model_copy(
                    update={"attestations": answers(skip=("incident_reporting", "phi_retention"))}
                ),
                *d.candidates[1:],
            ]
        }
    )
    gpt = by_id(compare_candidates(d))["gpt"]
    assert (gpt.answered, gpt.satisfactory) == (9, 9) and len(gpt.open_items) == 2
    assert gpt.recommendation == "approve_with_conditions"


def test_local_scenarios_join_and_split_ties():
    d = base_dossier()
    extra = [
        local(GPT4O, "Portal triage (local)", 0.90, 0.85, 0.95),
        local(CLAUDE, "Portal triage (local)", 0.60, 0.55, 0.65),
        local(LLAMA, "Portal triage (local)", 0.88, 0.80, 0.93),
        local(GPT4O, "MedConfInfo", 0.5, 0.4, 0.6),
    ]
    cmp = compare_candidates(d.model_copy(update={"evidence": [*d.evidence, *extra]}))
    column = cmp.benchmarks[-1]
    assert (column.name, column.kind, column.groups) == (
        "Portal triage (local)",
        "local scenario",
        [["gpt", "llama"], ["claude"]],
    )
    cells = {(c.candidate_id, c.benchmark): c for c in cmp.cells}
    assert [cells[(k, column.name)].tie_group for k in ("gpt", "llama", "claude")] == [1, 1, 2]
    mine = cells[("gpt", "MedConfInfo")]  # the local run wins over the published figure
    assert mine.provenance == "local-run" and mine.score == 0.5
    assert by_id(cmp)["gpt"].pass_rate == 0.5


def test_pick_record_prefers_shares_then_local_then_newest():
    a, b = local(GPT4O, "X", 0.5, 0.4, 0.6, day=1), local(GPT4O, "X", 0.6, 0.5, 0.7, day=2)
    rouge = b.model_copy(update={"id": "r", "metric": "rouge_l", "date": datetime(2025, 3, 1, tzinfo=UTC)})
    assert pick_record([a, b]).id == b.id and pick_record([rouge, a]).id == a.id and pick_record([]) is None


def test_no_candidates_is_an_empty_comparison_not_an_error():
    cmp = compare_candidates(base_dossier([]))
    assert cmp.candidates == [] and cmp.cells == [] and cmp.benchmarks == []
