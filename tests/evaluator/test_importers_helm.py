"""Tests for the HELM run-folder importer, against the genuine HELM run in ../shared/helm_runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from evaluator.importers import HelmImportError, helm_run_evidence, load_helm_runs
from evaluator.importers.helm_format import PerInstanceStats, recompute_means

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / ".." / "shared" / "helm_runs" / "suite_simple"
RUN_NAME = "simple1:model=simple_model1"


@pytest.fixture
def suite(tmp_path) -> Path:
    """A private copy of the genuine suite folder, safe to corrupt."""
    if not (SUITE / RUN_NAME / "stats.json").is_file():
        pytest.skip(f"genuine HELM run not found at {SUITE} (../shared absent)")
    dst = tmp_path / "suite"
    shutil.copytree(SUITE, dst)
    return dst


def _load(path: Path):
    return json.loads(path.read_text())


def _dump(path: Path, obj) -> None:
    path.write_text(json.dumps(obj))


# --- the genuine run ----------------------------------------------------------------------------

def test_genuine_run_imports_as_unmapped_with_everything_kept(suite):
    (run,) = load_helm_runs(suite)
    assert run.run_name == RUN_NAME and run.model == "simple/model1"
    assert run.benchmark == "unmapped" and run.main_metric is None and run.mean is None
    assert any("simple1" in w and "unmapped" in w for w in run.warnings)
    assert len(run.stats) == len(_load(suite / RUN_NAME / "stats.json")) == 57
    assert run.n == 10 and run.ci_lower is None and run.instance_scores == {}
    with pytest.raises(ValueError, match="no main metric"):
        helm_run_evidence(run)


def test_stats_means_are_copied_exactly_and_recomputed_from_per_instance_stats(suite):
    raw = _load(suite / RUN_NAME / "stats.json")
    (run,) = load_helm_runs(suite / RUN_NAME)  # a single run folder works too
    assert [s.mean for s in run.stats] == [r.get("mean") for r in raw]
    per_instance = [PerInstanceStats.model_validate(x)
                    for x in _load(suite / RUN_NAME / "per_instance_stats.json")]
    recomputed = recompute_means(per_instance)
    compared = 0
    for stat in run.stats:
        if stat.key in recomputed:
            assert recomputed[stat.key] == stat.mean, stat.key  # exact, not approximate
            compared += 1
    assert compared == 17  # every unperturbed stat with per-instance values (3 trials x 10 instances)


def test_drill_down_and_token_counts(suite):
    (run,) = load_helm_runs(suite)
    assert len(run.requests) == 30
    first = run.requests[0]
    assert first.instance_id == "id10" and first.correct_references == ["15"]
    assert first.prompt.endswith("Input: 12 18 1 15 7\nOutput:")
    assert first.completions == ["Output:", "7", "15"]
    raw = _load(suite / RUN_NAME / "per_instance_stats.json")
    expected = sum(s["sum"] for r in raw for s in r["stats"] if s["name"]["name"] == "num_prompt_tokens")
    assert run.prompt_tokens == expected and run.output_tokens == 90
    assert run.date.tzinfo is not None


# --- a mapped run (the genuine files, given a MedHELM run group and a jury stat) ----------------

def _make_jury_run(suite: Path, group_field: list[str], drop: str | None = None) -> tuple[Path, float]:
    """Give the run a MedHELM group and a per-instance 1-5 score; return its folder and true mean."""
    run_dir = suite / RUN_NAME
    spec = _load(run_dir / "run_spec.json")
    spec["groups"] = group_field
    _dump(run_dir / "run_spec.json", spec)
    per_instance = _load(run_dir / "per_instance_stats.json")
    by_trial: dict[int, list[float]] = {}
    for i, row in enumerate(per_instance):
        if row["instance_id"] == drop:
            continue
        v = float(1 + (i * 7) % 5)
        row["stats"].append({"name": {"name": "medication_qa_accuracy", "split": "test"}, "count": 1,
                             "sum": v, "sum_squared": v * v, "min": v, "max": v, "mean": v})
        by_trial.setdefault(row["train_trial_index"], []).append(v)
    _dump(run_dir / "per_instance_stats.json", per_instance)
    true_mean = float(np.mean([np.mean(v) for v in by_trial.values()]))
    stats = _load(run_dir / "stats.json")
    stats.append({"name": {"name": "medication_qa_accuracy", "split": "test"}, "count": 3,
                  "sum": true_mean * 3, "mean": true_mean})
    # a perturbed variant and another split must not be taken as the main stat
    stats.append({"name": {"name": "medication_qa_accuracy", "split": "test",
                           "perturbation": {"name": "robustness", "computed_on": "worst"}},
                  "count": 3, "sum": 0.0, "mean": 0.0})
    stats.append({"name": {"name": "medication_qa_accuracy", "split": "valid"}, "count": 3, "sum": 3.0,
                  "mean": 1.0})
    _dump(run_dir / "stats.json", stats)
    return run_dir, true_mean


def test_mapped_run_picks_the_main_metric_and_bootstraps_an_interval(suite):
    _, true_mean = _make_jury_run(suite, ["medication_qa"])
    (run,) = load_helm_runs(suite)
    assert run.benchmark == "MedicationQA" and run.helm_run_group == "medication_qa"
    assert run.main_metric == "medication_qa_accuracy" and run.main_split == "test"
    assert run.mean == true_mean
    assert run.recomputed_mean == pytest.approx(true_mean, abs=1e-12)
    assert run.n == 10 and run.n_unscored == 0 and run.warnings == []
    assert run.ci_lower < run.mean < run.ci_upper
    assert run.requests[0].score is not None
    ev = helm_run_evidence(run)
    assert ev.provenance == "helm-import" and ev.run_id == RUN_NAME
    assert ev.scale == "1-5" and ev.normalized_score == pytest.approx((true_mean - 1) / 4)
    assert ev.category == "Patient Communication and Education" and "bootstrap" in ev.ci_method
    again = load_helm_runs(suite)[0]
    assert (again.ci_lower, again.ci_upper) == (run.ci_lower, run.ci_upper)  # seeded


def test_run_name_prefix_maps_when_groups_are_empty_and_missing_scores_are_counted(suite):
    run_dir, _ = _make_jury_run(suite, [], drop="id10")
    spec = _load(run_dir / "run_spec.json")
    spec["name"] = "medication_qa:model=simple_model1"
    _dump(run_dir / "run_spec.json", spec)
    (run,) = load_helm_runs(suite)
    assert run.benchmark == "MedicationQA"
    assert run.n == 9 and run.n_unscored == 1 and "id10" not in run.instance_scores


def test_mapped_run_without_its_main_stat_warns_and_cannot_become_evidence(suite):
    run_dir = suite / RUN_NAME
    spec = _load(run_dir / "run_spec.json")
    spec["groups"] = ["med_mcqa"]
    _dump(run_dir / "run_spec.json", spec)
    (run,) = load_helm_runs(suite)
    assert run.benchmark == "MedMCQA" and run.main_split == "valid" and run.mean is None
    assert any("exact_match" in w and "valid" in w for w in run.warnings)
    with pytest.raises(ValueError):
        helm_run_evidence(run)


# --- missing and malformed files: a clear per-file error, nothing imported ------------------------

def _second_run(suite: Path) -> Path:
    other = suite / "simple1:model=simple_model2"
    shutil.copytree(suite / RUN_NAME, other)
    return other


@pytest.mark.parametrize("filename,corrupt,reason", [
    ("stats.json", lambda p: p.write_text(p.read_text()[:500]), "not valid JSON"),
    ("per_instance_stats.json", lambda p: p.unlink(), "file is missing"),
    ("scenario_state.json", lambda p: p.write_text('{"adapter_spec": {}}'), "request_states"),
    ("run_spec.json", lambda p: p.write_text('{"name": "x"}'), "adapter_spec"),
    ("stats.json", lambda p: p.write_bytes(b"\xff\xfe[]"), "not UTF-8"),
])
def test_a_bad_file_names_itself_and_nothing_is_imported(suite, filename, corrupt, reason):
    bad = _second_run(suite)
    corrupt(bad / filename)
    with pytest.raises(HelmImportError) as info:
        load_helm_runs(suite)
    (err,) = info.value.errors
    assert err.path == bad / filename and reason in err.reason
    assert str(bad / filename) in str(info.value)


def test_every_bad_file_is_reported_at_once(suite):
    bad = _second_run(suite)
    (bad / "stats.json").write_text("[{}]")
    (suite / RUN_NAME / "scenario_state.json").unlink()
    with pytest.raises(HelmImportError) as info:
        load_helm_runs(suite)
    assert sorted(e.path.name for e in info.value.errors) == ["scenario_state.json", "stats.json"]


def test_empty_or_missing_folders(tmp_path):
    with pytest.raises(HelmImportError, match="no HELM run folders"):
        load_helm_runs(tmp_path)
    with pytest.raises(HelmImportError, match="no such folder"):
        load_helm_runs(tmp_path / "nope")
