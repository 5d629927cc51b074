"""Tests for evaluator.evidence.record and the shipped MedHELM data files it reads."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from evaluator.evidence.medhelm import benchmark_facts, facts_by_run_group, published_costs
from evaluator.evidence.record import Evidence, evidence_frame, evidence_id, published_evidence
from evaluator.statistics.estimates import wilson_interval

REPO = Path(__file__).resolve().parents[3]
REFERENCE = REPO / ".." / "shared" / "reference"


def _base(**over) -> dict:
    fields = dict(id="x", model="m", benchmark="b", metric="EM", score=0.5, provenance="local-run",
                  source="run 1", date=datetime.fromisoformat("2026-01-01T00:00:00+00:00"),
                  ci_missing_reason="no per-instance scores")
    return {**fields, **over}


def test_published_evidence_covers_9_models_by_37_benchmarks_with_provenance():
    ev = published_evidence()
    assert len(ev) == 333
    assert {e.provenance for e in ev} == {"published"}
    assert len({e.id for e in ev}) == 333
    assert all(e.source.startswith("som-shahlab/medhelm:data/leaderboard.csv@94167c5") for e in ev)
    assert all(e.date.tzinfo is not None and e.date.date().isoformat() == "2025-07-31" for e in ev)


def test_proportions_get_wilson_and_jury_means_an_explained_empty_interval():
    (pubmed,) = published_evidence(["PubMedQA"], ["DeepSeek R1"])
    assert (pubmed.score, pubmed.n) == (0.743, 1000)
    assert (pubmed.ci_lower, pubmed.ci_upper) == pytest.approx(wilson_interval(743, 1000))
    assert "Wilson" in pubmed.ci_method and pubmed.ci_missing_reason is None

    (jury,) = published_evidence(["MedicationQA"], ["DeepSeek R1"])
    assert jury.scale == "1-5" and not jury.has_interval
    assert "jury" in jury.ci_missing_reason and jury.ci_method is None
    assert jury.normalized_score == pytest.approx((jury.score - 1) / 4)

    (f1,) = published_evidence(["MIMIC-IV Billing Code"], ["DeepSeek R1"])
    assert not f1.has_interval and "F1" in f1.ci_missing_reason


def test_per_model_instance_counts_and_caveats_travel_with_the_score():
    medalign = {e.model: e for e in published_evidence(["MedAlign"])}
    assert medalign["Claude 3.5 Sonnet (20241022)"].n == 172
    assert medalign["GPT-4o (2024-05-13)"].n == 149
    (ehrshot,) = published_evidence(["EHRSHOT"], ["GPT-4o mini (2024-07-18)"])
    assert "class imbalance" in ehrshot.caveat


def test_filters_and_unknown_names():
    ev = published_evidence(["MedQA", "MedMCQA"], ["DeepSeek R1", "Gemini 2.0 Flash"])
    assert len(ev) == 4
    with pytest.raises(ValueError, match="NoSuchBench"):
        published_evidence(["NoSuchBench"])
    with pytest.raises(ValueError, match="model"):
        published_evidence(models=["GPT-5"])


def test_evidence_frame_has_one_row_per_record_and_stable_columns():
    df = evidence_frame(published_evidence(["MedQA"]))
    assert df.shape == (9, len(Evidence.model_fields))
    assert df["ci_lower"].notna().all()
    empty = evidence_frame([])
    assert list(empty.columns) == list(Evidence.model_fields) and empty.empty


def test_evidence_rules_reject_half_intervals_unexplained_gaps_and_naive_dates():
    Evidence(**_base())  # a valid record
    with pytest.raises(ValidationError, match="both"):
        Evidence(**_base(ci_lower=0.1, ci_missing_reason=None, ci_method="x"))
    with pytest.raises(ValidationError, match="ci_missing_reason"):
        Evidence(**_base(ci_missing_reason=None))
    with pytest.raises(ValidationError, match="ci_method"):
        Evidence(**_base(ci_lower=0.1, ci_upper=0.9, ci_missing_reason=None))
    with pytest.raises(ValidationError, match="above"):
        Evidence(**_base(ci_lower=0.9, ci_upper=0.1, ci_method="m", ci_missing_reason=None))
    with pytest.raises(ValidationError):
        Evidence(**_base(date=datetime(2026, 1, 1)))
    with pytest.raises(ValidationError):
        Evidence(**_base(provenance="rumour"))


def test_evidence_id_is_deterministic_and_distinguishes_runs():
    a = evidence_id("helm-import", "s", "m", "b", "acc", run_id="r1")
    assert a == evidence_id("helm-import", "s", "m", "b", "acc", run_id="r1")
    assert a != evidence_id("helm-import", "s", "m", "b", "acc", run_id="r2")


def test_benchmark_map_and_costs():
    facts = benchmark_facts()
    assert len(facts) == 37 and len(facts_by_run_group()) == 37
    assert facts["MedMCQA"].main_split == "valid"
    assert facts["MedicationQA"].metric_kind == "jury_mean" and facts["MedicationQA"].scale == "1-5"
    assert sorted({f.access for f in facts.values()}) == ["gated", "private", "public"]
    costs = published_costs()
    totals = costs[(costs.benchmark == "ALL") & (costs.item == "Total Cost (USD)")]
    assert len(totals) == 9
    assert totals.set_index("model").loc["DeepSeek R1", "value"] == pytest.approx(1849.85)
    assert costs["basis"].str.contains("upper bound at 2025 list prices").all()


def test_regeneration_script_reproduces_the_committed_files(tmp_path):
    if not (REFERENCE / "medhelm_leaderboard.csv").is_file():
        pytest.skip(f"reference files not found at {REFERENCE} (../shared absent)")
    script = REPO / "data" / "regenerate_published.py"
    subprocess.run([sys.executable, str(script), str(REFERENCE), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    for name in ("medhelm_benchmarks.csv", "medhelm_published.csv", "medhelm_costs.csv",
                 "MEDHELM_PUBLISHED.md"):
        assert filecmp.cmp(tmp_path / name, REPO / "data" / name, shallow=False), name
