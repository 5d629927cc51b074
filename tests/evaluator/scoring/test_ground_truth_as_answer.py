"""Ground truth sent back as the answer scores 1, on every record of the real datasets.

For every dataset in ``../shared/datasets`` that a benchmark here runs with a choice, exact or
numeric answer (MedCalc-Bench, HeadQA, PubMedQA; the others are free text), each record's own
ground truth is sent back in four forms a model really writes: bare, the JSON MedCalc-Bench's
direct-answer prompt asks for (``{"answer": "..."}``), a sentence with units, and
``Answer: X``. Each is scored through the generic path (the file as it is, the ``generic``
benchmark and the dataset's own benchmark) and, for MedCalc-Bench, through the MedCalc-Bench CSV
path (the records written at test time in the authors' CSV layout, with and without the limit
columns). Nothing from the datasets is stored in the repository: the files are read from
``../shared`` when present, and the tests skip with the reason when they are not.

``python -m tests.evaluator.scoring.test_ground_truth_as_answer`` prints the table.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import get_benchmark
from evaluator.loaders import load_instances
from evaluator.scoring.answers import LETTERS
from evaluator.scoring.responses import score_responses

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared" / "datasets"
DATASETS = {"medcalc_bench": "medcalc_bench", "head_qa": "head_qa", "pubmedqa": "pubmedqa"}
FORMS = ("bare", "json", "sentence", "answer_colon")


def _records(name: str) -> list[dict]:
    path = SHARED / name / "sample.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} is absent: the real dataset samples live in ../shared (development checkouts)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- how a model writes the ground truth back ----------------------------------------------------


def _unit(question: str) -> str:
    """The unit a MedCalc-Bench question asks for ("in terms of mL/min?", "in mg/dL"), or ''."""
    found = re.search(r"in terms of ([^?]+?)[?.]?(?:\s+[A-Z]|$)", question) or re.search(
        r"\bin (mL/hr|mg/dL|mEq/L|mm Hg|msec|kg|mg)\b", question
    )
    return found.group(1).strip() if found else ""


def _medcalc_forms(record: dict) -> dict[str, str]:
    truth = str(record["reference"]).strip()
    name = record["meta"].get("calculator_name", "value")
    weeks_days = re.fullmatch(r"\(\s*'(\d+) weeks?',\s*'(\d+) days?'\s*\)", truth)
    if weeks_days:
        sentence = f"The gestational age is {weeks_days.group(1)} weeks and {weeks_days.group(2)} days."
    else:
        unit = _unit(record["question"]).replace("\u00b2", "^2")  # "kg/m^2", as models often write it
        sentence = f"The patient's {name} is {truth} {unit}".rstrip() + "."
    return {
        "bare": truth,
        "json": json.dumps({"answer": truth}),
        "sentence": sentence,
        "answer_colon": f"Answer: {truth}",
    }


def _choice_forms(truth: str) -> dict[str, str]:
    return {
        "bare": truth,
        "json": json.dumps({"answer": truth}),
        "sentence": f"The correct option is {truth}.",
        "answer_colon": f"Answer: {truth}",
    }


# --- the paths a file takes ----------------------------------------------------------------------


def _spec(benchmark_id: str, **loader_args):
    base = get_benchmark(benchmark_id)
    return base.model_copy(update={"loader_args": {**base.loader_args, **loader_args}})


def _generic(name: str, benchmark: str) -> tuple[list[Instance], object]:
    """The shared file as it is, through the generic loader, scored by ``benchmark``'s metrics."""
    return load_instances(_spec("generic"), SHARED / name / "sample.jsonl"), get_benchmark(benchmark)


def _medcalc_csv(records: list[dict], folder: Path, with_limits: bool) -> Path:
    """The records in the authors' CSV layout, written at test time (never stored in the repo)."""
    columns = ["Row Number", "Calculator ID", "Calculator Name", "Category", "Output Type", "Note ID",
               "Patient Note", "Question", "Ground Truth Answer"]
    if with_limits:
        columns += ["Lower Limit", "Upper Limit"]
    path = folder / ("with_limits.csv" if with_limits else "no_limits.csv")
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for r in records:
            m = r["meta"]
            row = {"Row Number": m["row_number"], "Calculator ID": m["calculator_id"],
                   "Calculator Name": m["calculator_name"], "Category": m["category"],
                   "Output Type": m["output_type"], "Note ID": m["note_id"], "Patient Note": r["context"],
                   "Question": r["question"], "Ground Truth Answer": r["reference"]}
            if with_limits:
                truth = r["reference"]
                row["Lower Limit"] = r.get("lower", truth) if r["answer_type"] == "numeric_range" else truth
                row["Upper Limit"] = r.get("upper", truth) if r["answer_type"] == "numeric_range" else truth
            writer.writerow(row)
    return path


def ground_truth_table(tmp: Path) -> list[tuple[str, str, dict[str, tuple[int, int]]]]:
    """(dataset, path, {form: (scored 1, records)}) for every dataset, path and reply form."""
    rows = []
    medcalc = _records("medcalc_bench")
    by_id = {f"medcalc-{r['meta']['row_number']}": r for r in medcalc} | {r["id"]: r for r in medcalc}
    paths: list[tuple[str, str, list[Instance], object]] = []
    for benchmark in ("generic", "medcalc_bench"):
        items, scorer = _generic("medcalc_bench", benchmark)
        paths.append(("medcalc_bench", f"generic file, {benchmark} benchmark", items, scorer))
    for with_limits in (True, False):
        csv_path = _medcalc_csv(medcalc, tmp, with_limits)
        label = "MedCalc CSV, " + ("with limit columns" if with_limits else "without limit columns")
        paths.append(("medcalc_bench", label, load_instances(_spec("medcalc_bench"), csv_path),
                      get_benchmark("medcalc_bench")))
    for dataset, path_label, items, scorer in paths:
        counts = {}
        for form in FORMS:
            replies = [_medcalc_forms(by_id[i.id])[form] for i in items]
            scores = score_responses(scorer, items, replies)
            counts[form] = (sum(s.score == 1.0 for s in scores), len(scores))
        rows.append((dataset, path_label, counts))
    for name in ("head_qa", "pubmedqa"):
        _records(name)
        for benchmark in ("generic", name):
            items, scorer = _generic(name, benchmark)
            for as_text in (False, True):
                counts = {}
                for form in FORMS:
                    replies = [
                        _choice_forms(i.choices[LETTERS.index(i.reference)] if as_text else i.reference)[form]
                        for i in items
                    ]
                    scores = score_responses(scorer, items, replies)
                    counts[form] = (sum(s.score == 1.0 for s in scores), len(scores))
                truth = "option text" if as_text else "option letter"
                rows.append((name, f"generic file, {benchmark} benchmark, {truth}", counts))
    return rows


def test_ground_truth_in_every_form_scores_one(tmp_path):
    failures = [
        f"{dataset} / {path}: {form} {ok}/{n}"
        for dataset, path, counts in ground_truth_table(tmp_path)
        for form, (ok, n) in counts.items()
        if ok != n
    ]
    assert not failures, "ground truth sent back did not score 1:\n" + "\n".join(failures)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print("| dataset | path | " + " | ".join(FORMS) + " |")
        print("|---|---|" + "---|" * len(FORMS))
        for dataset, path, counts in ground_truth_table(Path(folder)):
            cells = " | ".join(f"{ok}/{n}" for ok, n in counts.values())
            print(f"| {dataset} | {path} | {cells} |")
