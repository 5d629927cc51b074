"""The Inspect log importer, against real logs made by running small tasks on ``mockllm/model``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai", reason="inspect_ai not installed (pip install 'medassure[inspect]')")

from evaluator.importers.inspect_evidence import inspect_run_evidence, medhelm_match  # noqa: E402
from evaluator.importers.inspect_log import InspectImportError, load_inspect_logs, sample_value  # noqa: E402
from governance.procurement.store import sha256_hex  # noqa: E402
from tests.inspect_logs import ANSWERS, NUMERIC, make_logs  # noqa: E402


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    return make_logs(tmp_path_factory.mktemp("inspect"))


def _copy(src: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(src, folder / src.name))


@pytest.mark.parametrize("name", ["match_eval", "match_json"])
def test_binary_log_gives_wilson_evidence_with_provenance(logs, name):
    from inspect_ai.log import read_eval_log
    from statsmodels.stats.proportion import proportion_confint

    (run,) = load_inspect_logs(logs[name])
    assert (run.task, run.task_version, run.model) == ("addition", "3", "mockllm/model")
    assert run.main_scorer == "match"
    assert run.sha256 == sha256_hex(logs[name].read_bytes())
    assert {s.sample_id: s.answer for s in run.samples} == ANSWERS
    assert run.sample_scores == {"q0": 1.0, "q1": 1.0, "q2": 0.0, "q3": 1.0}
    # the log's own metrics, as Inspect wrote them: accuracy 3/4, stderr = sd(1,1,0,1)/sqrt(4) = 0.5/2
    assert run.scorers[0].metrics == pytest.approx({"accuracy": 0.75, "stderr": 0.25})
    log = read_eval_log(str(logs[name]))
    usage = log.stats.model_usage["mockllm/model"]
    assert (run.input_tokens, run.output_tokens, run.total_tokens) == (
        usage.input_tokens, usage.output_tokens, usage.total_tokens)
    assert run.input_tokens > 0 and run.output_tokens == 4

    e = inspect_run_evidence(run)
    lo, hi = proportion_confint(3, 4, alpha=0.05, method="wilson")
    assert (e.provenance, e.score, e.n, e.n_unscored) == ("inspect-import", 0.75, 4, 0)
    assert (e.ci_lower, e.ci_upper) == (pytest.approx(lo), pytest.approx(hi))
    assert round(lo, 4) == 0.3006 and "Wilson" in e.ci_method
    assert f"SHA-256 {run.sha256}" in e.source and "task addition, version 3" in e.source
    assert e.benchmark == "addition" and e.category is None
    assert "the log's own accuracy is 0.7500 (stderr 0.2500)" in e.caveat


def test_numeric_scores_unscored_dict_and_bootstrap_interval(logs):
    (run,) = load_inspect_logs(logs["numeric"])
    assert run.unscored_reasons == {"n4": "a dict of values, not one score"}
    scored = [v for k, v in NUMERIC.items() if k != "n4"]
    assert run.sample_scores == pytest.approx(dict(zip(["n0", "n1", "n2", "n3"], scored, strict=True)))
    e = inspect_run_evidence(run)
    assert e.score == pytest.approx(0.5) and e.n == 4 and e.n_unscored == 1
    assert e.ci_method.startswith(("BCa bootstrap", "t interval")) and e.ci_lower < 0.5 < e.ci_upper
    # Inspect's own mean counts the dict as 0 ((0.2+0.4+0.9+0.5+0)/5 = 0.4); the evidence says so
    assert run.scorers[0].metrics["mean"] == pytest.approx(0.4)
    assert "the evidence cites 0.5000, the mean of the 4 scored sample(s), not the log's mean" in e.caveat


def test_a_folder_imports_all_or_nothing(logs, tmp_path):
    folder = tmp_path / "mixed"
    good = _copy(logs["match_eval"], folder)
    assert [r.log_file for r in load_inspect_logs(folder)] == [str(good)]
    truncated = folder / "truncated.eval"
    data = logs["match_eval"].read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InspectImportError) as err:
        load_inspect_logs(folder)
    assert len(err.value.errors) == 1
    assert err.value.errors[0].startswith(f"{truncated}: not a readable Inspect log")


def test_truncated_json_and_garbage_are_rejected_with_reason(logs, tmp_path):
    text = logs["match_json"].read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[: len(text) - 200])
    junk = tmp_path / "junk.eval"
    junk.write_bytes(b"not a zip at all")
    for path in (cut, junk):
        with pytest.raises(InspectImportError, match="not a readable Inspect log"):
            load_inspect_logs(path)


def test_unfinished_log_is_refused(logs):
    reason = r"did not finish \(status error: .*deliberate failure on q2"
    with pytest.raises(InspectImportError, match=reason):
        load_inspect_logs(logs["failed"])


def test_an_errored_sample_in_a_finished_log_is_unscored_not_wrong(logs):
    (run,) = load_inspect_logs(logs["partial"])
    assert run.status == "success" and run.sample_scores == {"q0": 1.0, "q1": 1.0, "q3": 1.0}
    assert run.unscored_reasons["q2"].startswith("the sample ended in error: ")
    assert "deliberate failure on q2" in run.unscored_reasons["q2"]
    e = inspect_run_evidence(run)
    assert (e.score, e.n, e.n_unscored) == (1.0, 3, 1) and "1 sample(s) unscored: q2" in e.caveat
    assert round(e.ci_lower, 4) == 0.4385 and e.ci_upper == 1.0  # Wilson 3 of 3


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(InspectImportError, match="no such file or folder"):
        load_inspect_logs(tmp_path / "absent.eval")
    with pytest.raises(InspectImportError, match=r"no Inspect logs \(.eval or .json\)"):
        load_inspect_logs(tmp_path)


def test_medhelm_task_names_file_under_the_benchmark(logs):
    (run,) = load_inspect_logs(logs["match_eval"])
    e = inspect_run_evidence(run.model_copy(update={"task": "inspect_evals/medqa"}))
    assert (e.benchmark, e.category) == ("MedQA", medhelm_match("medqa").category)
    assert "Inspect's, not HELM's" in e.caveat
    assert medhelm_match("inspect_evals/pubmedqa").benchmark == "PubMedQA"
    assert medhelm_match("inspect_evals/healthbench") is None


def test_sample_values_follow_inspect_defaults():
    assert [sample_value(v)[0] for v in ("C", "I", "P", "N", "yes", "false", "0.25", 3, True)] == [
        1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 3.0, 1.0]
    assert sample_value("maybe") == (None, "value 'maybe' is not a score Inspect defines")
    assert sample_value([1, 0])[0] is None and sample_value(float("nan"))[0] is None
