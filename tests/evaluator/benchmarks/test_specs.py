"""Benchmark specs: every shipped YAML loads and names only registered things; bad files fail loudly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import (
    DEFAULT_DIR,
    BenchmarkError,
    BenchmarkSpec,
    get_benchmark,
    list_benchmarks,
    load_benchmarks,
    prompt_hash,
    render_messages,
    spec_hash,
)
from evaluator.loaders import get_loader
from evaluator.scoring.metrics import get_metric

TAXONOMY = Path(__file__).resolve().parents[3] / "data" / "taxonomy.json"
REQUIRED = {
    "calc_builtin",
    "medcalc_bench",
    "pubmedqa",
    "head_qa",
    "medec",
    "aci_bench",
    "medication_qa",
    "generic",
}


def test_every_shipped_yaml_loads_and_uses_registered_names():
    files = sorted(p.stem for p in DEFAULT_DIR.glob("*.yaml"))
    specs = load_benchmarks()
    assert sorted(specs) == files and set(specs) >= REQUIRED
    for spec in specs.values():
        loader = get_loader(spec.loader)
        assert set(spec.loader_args) <= loader.arg_names(), spec.id
        for name in spec.metrics:
            get_metric(name)
        if spec.answer_type == "free_text" and spec.medhelm_id in ("aci_bench", "medicationqa"):
            assert spec.jury is not None and len(spec.jury.judges) == 3


def test_subcategories_and_medhelm_ids_exist_in_the_taxonomy():
    taxonomy = json.loads(TAXONOMY.read_text(encoding="utf-8"))
    benchmarks_by_sub = {
        sub["id"]: {b["id"] for b in sub.get("benchmarks", [])}
        for cat in taxonomy["categories"]
        for sub in cat["subcategories"]
    }
    for spec in list_benchmarks():
        assert set(spec.subcategory_ids) <= set(benchmarks_by_sub), spec.id
        if spec.medhelm_id:
            assert any(spec.medhelm_id in benchmarks_by_sub[s] for s in spec.subcategory_ids), spec.id
    assert get_benchmark("calc_builtin").subcategory_ids == ("supporting_diagnostic_decisions",)


def test_unknown_id_lists_known_ids():
    with pytest.raises(BenchmarkError, match="unknown benchmark 'pubmed'; known benchmarks: .*pubmedqa"):
        get_benchmark("pubmed")


def test_specs_are_frozen():
    with pytest.raises(ValidationError):
        get_benchmark("pubmedqa").max_tokens = 5


def _write_spec(tmp_path: Path, **changes) -> Path:
    text = (DEFAULT_DIR / "pubmedqa.yaml").read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "pubmedqa.yaml").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("max_tokens: 16", "max_token: 16", "max_token.*Extra inputs are not permitted"),
        (
            "loader: pubmedqa_json",
            "loader: pubmed_json",
            "unknown loader 'pubmed_json'; known loaders: .*pubmedqa_json",
        ),
        (
            "metrics: [choice_accuracy]\nmain_metric: choice_accuracy",
            "metrics: [choice_acc]\nmain_metric: choice_acc",
            "unknown metric 'choice_acc'; known metrics",
        ),
        ("main_metric: choice_accuracy", "main_metric: rougeL", "main_metric 'rougeL' is not one of metrics"),
        ("loader: pubmedqa_json", "loader: pubmedqa_json\nloader_args: {years: [2016]}", "takes no argument"),
        ("Question: {question}", "Question: {query}", r"unknown placeholders \['query'\]"),
        ("id: pubmedqa", "id: pubmed_qa", "must equal the file name"),
        ("answer_type: choice", "answer_type: multiple", "answer_type"),
        ("access: public", "access: open", "access"),
    ],
)
def test_bad_spec_files_fail_at_load_naming_the_problem(tmp_path, old, new, message):
    directory = _write_spec(tmp_path, **{old: new})
    with pytest.raises(BenchmarkError, match=message) as caught:
        load_benchmarks(directory)
    assert "pubmedqa.yaml" in str(caught.value)


def test_a_yaml_that_is_not_a_mapping(tmp_path):
    (tmp_path / "x.yaml").write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(BenchmarkError, match="expected a mapping"):
        load_benchmarks(tmp_path)
    (tmp_path / "x.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(BenchmarkError, match="not valid YAML"):
        load_benchmarks(tmp_path)


def test_render_messages():
    spec = get_benchmark("head_qa")
    item = Instance(id="q", question="Which one?", choices=("Alpha", "Beta", "Gamma"), answer_type="choice")
    system, user = render_messages(spec, item)
    assert system == {"role": "system", "content": spec.system_prompt}
    assert user["role"] == "user" and "A. Alpha\nB. Beta\nC. Gamma" in user["content"]
    assert "Which one?" in user["content"] and "{" not in user["content"]
    generic = render_messages(get_benchmark("generic"), Instance(id="g", question="Dose?"))
    assert generic[-1]["content"] == "Dose?"  # empty context and choices leave no blank runs
    no_system = get_benchmark("generic").model_copy(update={"system_prompt": ""})
    assert [m["role"] for m in render_messages(no_system, Instance(id="g", question="Q"))] == ["user"]


def test_hashes_separate_spec_content_from_prompt_version():
    spec = get_benchmark("calc_builtin")
    assert spec_hash(spec) == spec_hash(get_benchmark("calc_builtin"))
    more = spec.model_copy(update={"loader_args": {"seed": 1, "count": 120}})
    assert spec_hash(more) != spec_hash(spec) and prompt_hash(more) == prompt_hash(spec)
    reworded = spec.model_copy(update={"prompt_template": spec.prompt_template + "\nBe brief."})
    assert prompt_hash(reworded) != prompt_hash(spec)
    assert len({prompt_hash(s) for s in list_benchmarks()}) == len(list_benchmarks())


def test_every_shipped_spec_names_its_main_metric_and_omitting_it_means_the_first():
    for path in sorted(DEFAULT_DIR.glob("*.yaml")):
        assert "\nmain_metric: " in path.read_text(encoding="utf-8"), path.name
    spec = get_benchmark("aci_bench")
    assert spec.main_metric == "bertscore_f" and spec.main_metric in spec.metrics
    text = (DEFAULT_DIR / "medec.yaml").read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    data.pop("main_metric")
    assert BenchmarkSpec.model_validate(data).main_metric == "medec_error_flag_accuracy"


def test_every_downloadable_benchmark_says_where_its_file_is_and_how_sure_we_are_of_its_licence():
    """Issue 16: a reviewer learns where the official data is and under what terms, without guessing.

    A licence is named only with its source (the dataset card); otherwise the text says it is not verified.
    """
    for spec in list_benchmarks():
        if spec.access in ("public", "gated"):
            source = spec.dataset_source
            assert ("github.com/" in source or "Hugging Face" in source), spec.id
            assert ("per its" in source) or ("licence not verified" in source), (spec.id, source)


def test_a_fresh_process_that_imports_only_the_specs_checks_names_against_both_registries(tmp_path):
    """The loader and metric registries sit above the specs and are reached by name (``evaluator._wire``)."""
    import subprocess
    import sys

    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**yaml.safe_load((DEFAULT_DIR / "pubmedqa.yaml").read_text()),
                                   "id": "bad", "metrics": ["choice_acc"], "main_metric": "choice_acc"}))
    code = ("from evaluator.benchmarks.specs import BenchmarkError, list_benchmarks, parse_benchmark\n"
            "print(len(list_benchmarks()))\n"
            f"try:\n    parse_benchmark(__import__('pathlib').Path({str(bad)!r}))\n"
            "except BenchmarkError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[3],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    count, error = out.stdout.strip().splitlines()
    assert int(count) == len(list_benchmarks())
    assert "unknown metric 'choice_acc'" in error
