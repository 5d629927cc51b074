"""Tests for the HELM run-folder importer, against the genuine HELM run in ../shared/helm_runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from evaluator.importers import HelmImportError, helm_run_evidence, load_helm_runs
from evaluator.importers.helm_format import PerInstanceStats, recompute_means

REPO = Path(__file__).resolve().parents[3]
# ../shared beside the main checkout; a git worktree under <root>/wt/<name> finds it one level up
SHARED = next((p for p in (REPO / ".." / "shared", REPO / ".." / ".." / "shared") if p.is_dir()),
              REPO / ".." / "shared")
SUITE = SHARED / "helm_runs" / "suite_simple"
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


def test_helm_interval_follows_the_policy_of_local_runs_with_its_small_n_note(suite):
    from evaluator.runs.summary import summarize_metric
    from evaluator.statistics.estimates import interval_for

    _make_jury_run(suite, ["medication_qa"])
    (run,) = load_helm_runs(suite)
    values = list(run.instance_scores.values())
    expected = interval_for(values, "mean", seed=0, n_resamples=2000)
    local = summarize_metric("medication_qa_accuracy", values)
    assert (run.ci_lower, run.ci_upper, run.ci_method) == (expected.lower, expected.upper, expected.method)
    assert (local.lower, local.upper, local.method) == (run.ci_lower, run.ci_upper, run.ci_method)
    assert run.ci_method.startswith("BCa bootstrap")
    assert "n = 10 < 30, so coverage is approximate" in run.ci_method
    assert helm_run_evidence(run).ci_method == run.ci_method


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


# --- out-of-scale jury values, headline vs recomputed mean, non-finite numbers --------------------

def _set_jury_value(run_dir: Path, instance_id: str, value: float, trial: int | None = None) -> None:
    per_instance = _load(run_dir / "per_instance_stats.json")
    for row in per_instance:
        if row["instance_id"] == instance_id and (trial is None or row["train_trial_index"] == trial):
            for stat in row["stats"]:
                if stat["name"]["name"] == "medication_qa_accuracy":
                    stat.update(sum=value, sum_squared=value * value, min=value, max=value, mean=value)
    _dump(run_dir / "per_instance_stats.json", per_instance)


def _jury_values(run_dir: Path) -> dict[str, list[float]]:
    values: dict[str, list[float]] = {}
    for row in _load(run_dir / "per_instance_stats.json"):
        for stat in row["stats"]:
            if stat["name"]["name"] == "medication_qa_accuracy":
                values.setdefault(row["instance_id"], []).append(stat["sum"] / stat["count"])
    return values


def test_a_zero_jury_annotation_is_unscored_and_both_means_are_shown(suite):
    from governance.evidence.operations.helm_import import preview_helm_import

    run_dir, headline = _make_jury_run(suite, ["medication_qa"])
    _set_jury_value(run_dir, "id10", 0.0, trial=1)  # one failed annotation; stats.json left as HELM wrote it
    values = _jury_values(run_dir)
    kept = [np.mean(v) for iid, v in values.items() if iid != "id10"]
    per_trial = {}  # HELM's arithmetic over every value, the zero included
    for row in _load(run_dir / "per_instance_stats.json"):
        for stat in row["stats"]:
            if stat["name"]["name"] == "medication_qa_accuracy":
                per_trial.setdefault(row["train_trial_index"], []).append(stat["sum"])
    recomputed = float(np.mean([np.mean(v) for v in per_trial.values()]))
    (run,) = load_helm_runs(suite)
    assert run.mean == headline and run.recomputed_mean == pytest.approx(recomputed, abs=1e-12)
    assert recomputed < headline  # the zero drags HELM's own arithmetic down
    assert run.n == 9 and run.n_unscored == 1 and "id10" not in run.instance_scores
    assert "outside the 1-5 scale" in run.unscored_reasons["id10"]
    assert "0.0 when a jury annotation fails" in run.unscored_reasons["id10"]
    assert run.scored_mean == pytest.approx(np.mean(kept), abs=1e-12) and run.score == run.scored_mean
    text = " | ".join(run.warnings)
    assert f"{headline:.4f}" in text and f"{recomputed:.4f}" in text and f"{run.scored_mean:.4f}" in text
    assert all(r.score is None for r in run.requests if r.instance_id == "id10")
    ev = helm_run_evidence(run)
    assert ev.score == run.scored_mean and ev.n == 9 and ev.n_unscored == 1
    assert f"{headline:.4f}" in ev.caveat and ev.ci_lower < ev.score < ev.ci_upper
    (preview,) = preview_helm_import(str(suite)).runs
    assert preview.unscored == [f"id10: {run.unscored_reasons['id10']}"]
    assert (preview.mean, preview.recomputed_mean, preview.score) == (headline, run.recomputed_mean, ev.score)
    assert any(w.startswith("stats.json's headline mean") for w in preview.warnings)
    assert {i.note for i in preview.instances if i.instance_id == "id10"} == {
        f"unscored: {run.unscored_reasons['id10']}"}


def test_a_headline_the_per_instance_values_do_not_reproduce_warns_with_both(suite):
    run_dir, true_mean = _make_jury_run(suite, ["medication_qa"])
    stats = _load(run_dir / "stats.json")
    for s in stats:
        if s["name"] == {"name": "medication_qa_accuracy", "split": "test"}:
            s["mean"] = 4.99
    _dump(run_dir / "stats.json", stats)
    (run,) = load_helm_runs(suite)
    assert run.mean == 4.99 and run.n_unscored == 0 and run.unscored_reasons == {}
    assert any(f"headline mean 4.9900 differs from {true_mean:.4f} recomputed" in w for w in run.warnings)
    ev = helm_run_evidence(run)
    assert ev.score == pytest.approx(true_mean, abs=1e-12) != 4.99  # the figure its interval rests on
    assert "4.9900" in ev.caveat


def test_agreeing_means_cite_the_headline_without_warnings(suite):
    _, true_mean = _make_jury_run(suite, ["medication_qa"])
    (run,) = load_helm_runs(suite)
    assert run.warnings == [] and run.score == run.mean == true_mean
    assert run.score_basis == "stats.json headline mean"


@pytest.mark.parametrize("filename,value,word", [
    ("per_instance_stats.json", float("nan"), "NaN"),
    ("stats.json", float("inf"), "Infinity"),
])
def test_non_finite_numbers_are_refused_naming_file_and_field(suite, filename, value, word):
    run_dir, _ = _make_jury_run(suite, ["medication_qa"])
    raw = _load(run_dir / filename)
    if filename == "stats.json":
        raw[-3]["mean"] = value  # the main stat appended by _make_jury_run
        field = "[medication_qa_accuracy].mean"
    else:
        stat = next(s for s in raw[2]["stats"] if s["name"]["name"] == "medication_qa_accuracy")
        stat["sum"] = value
        field = f"2[{raw[2]['instance_id']}].stats."
    (run_dir / filename).write_text(json.dumps(raw))  # Python's json writes a bare NaN / Infinity
    assert word in (run_dir / filename).read_text()
    with pytest.raises(HelmImportError) as info:
        load_helm_runs(suite)
    (err,) = info.value.errors
    assert err.path == run_dir / filename and f"non-finite number {word}" in err.reason
    assert field in err.reason and str(run_dir / filename) in str(info.value)


def test_a_minus_infinity_logprob_in_completions_is_not_read_and_not_refused(suite):
    path = suite / RUN_NAME / "scenario_state.json"
    state = _load(path)
    state["request_states"][0]["result"]["completions"][0]["logprob"] = float("-inf")
    path.write_text(json.dumps(state))
    (run,) = load_helm_runs(suite)
    assert run.requests[0].completions[0] == "Output:"
