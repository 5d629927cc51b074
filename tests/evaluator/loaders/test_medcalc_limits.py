"""A MedCalc-Bench file without Lower/Upper Limit is graded by the authors' rule and says so, or refused.

Issue 24 §3: a real model's replies over all 1,047 rows scored 0.206 with the limit columns and
0.085 without them, with no warning, because every range row fell back to exact match. The
rule is the MedCalc-Bench README's ("95%/105% of the ground truth for equation-based calculators
whose output is a decimal; otherwise the ground truth"), with evaluate.py's calculator-ID groups;
the rows below are invented, the shared sample (read from ../shared at test time) is real.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evaluator.benchmarks.specs import get_benchmark
from evaluator.loaders import DatasetError, load_instances
from evaluator.scoring.responses import aggregate, score_responses

SAMPLE = Path(__file__).resolve().parents[3] / ".." / "shared" / "datasets" / "medcalc_bench" / "sample.jsonl"
SPEC = get_benchmark("medcalc_bench")


def _write(path: Path, columns: list[str], rows: list[dict]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows({k: r.get(k, "") for k in columns} for r in rows)
    return path


INVENTED = [
    {"Row Number": "1", "Calculator ID": "2", "Patient Note": "A 60-year-old man, 70 kg, creatinine 1.2.",
     "Question": "Creatinine clearance in mL/min?", "Ground Truth Answer": "64.815"},
    {"Row Number": "2", "Calculator ID": "8", "Patient Note": "Calf swelling, HR 110.",
     "Question": "Wells' PE score?", "Ground Truth Answer": "4.5"},
    {"Row Number": "3", "Calculator ID": "45", "Patient Note": "Age 70, BUN 24, RR 32, BP 100/58.",
     "Question": "CURB-65 score?", "Ground Truth Answer": "4"},
]
BASE = ["Row Number", "Calculator ID", "Patient Note", "Question", "Ground Truth Answer"]


def test_without_limits_or_output_type_the_calculator_id_decides(tmp_path):
    items = load_instances(SPEC, _write(tmp_path / "m.csv", BASE, INVENTED))
    crcl, wells, curb = items
    assert (crcl.lower, crcl.upper) == pytest.approx((64.815 * 0.95, 64.815 * 1.05))
    assert wells.lower == wells.upper == 4.5  # rule-based: limits equal the ground truth
    assert (curb.answer_type, curb.reference) == ("exact", "4")
    scores = score_responses(SPEC, items, ["Answer: 66.9", "Answer: 4.6", "Answer: 4"])
    assert [s.score for s in scores] == [1.0, 0.0, 1.0]


def test_every_derived_record_says_so_in_meta_score_and_aggregate(tmp_path):
    items = load_instances(SPEC, _write(tmp_path / "m.csv", BASE, INVENTED))
    assert "95%-105% of the ground truth" in items[0].meta["limits_derived"]
    assert "equal to the ground truth" in items[1].meta["limits_derived"]
    assert "limits_derived" not in items[2].meta  # an exact integer score needs no limits
    scores = score_responses(SPEC, items, ["66", "4.5", "4"])
    assert [bool(s.note) for s in scores] == [True, True, False]
    notes = aggregate(scores, "numeric_in_range").notes
    assert len(notes) == 2 and all(n.startswith("1 of 3 instances: Lower/Upper Limit derived") for n in notes)


def test_given_limits_are_used_and_carry_no_note(tmp_path):
    rows = [{**INVENTED[0], "Lower Limit": "60", "Upper Limit": "70"}]
    (item,) = load_instances(SPEC, _write(tmp_path / "m.csv", [*BASE, "Lower Limit", "Upper Limit"], rows))
    assert (item.lower, item.upper) == (60.0, 70.0)
    assert score_responses(SPEC, [item], ["69"])[0].note is None


def test_nothing_to_grade_by_is_refused_naming_the_columns(tmp_path):
    columns = ["Patient Note", "Question", "Ground Truth Answer"]
    path = _write(tmp_path / "m.csv", columns, [{k: INVENTED[0][k] for k in columns}])
    with pytest.raises(DatasetError, match=r"m\.csv, row 2: cannot grade .*no Lower Limit/Upper Limit, "
                       r"no Output Type, and the file has no Calculator ID"):
        load_instances(SPEC, path)


def test_one_limit_without_the_other_is_refused(tmp_path):
    rows = [{**INVENTED[0], "Lower Limit": "60"}]
    path = _write(tmp_path / "m.csv", [*BASE, "Lower Limit", "Upper Limit"], rows)
    with pytest.raises(DatasetError, match="Lower Limit is given but Upper Limit is empty"):
        load_instances(SPEC, path)


def test_output_type_alone_still_derives_and_says_it_cannot_see_rule_based_scores(tmp_path):
    rows = [{k: v for k, v in INVENTED[0].items() if k != "Calculator ID"} | {"Output Type": "decimal"}]
    columns = ["Row Number", "Output Type", "Patient Note", "Question", "Ground Truth Answer"]
    (item,) = load_instances(SPEC, _write(tmp_path / "m.csv", columns, rows))
    assert item.upper == pytest.approx(64.815 * 1.05)
    assert "without Calculator ID" in item.meta["limits_derived"]


def test_real_rows_without_limit_columns_grade_as_with_them(tmp_path):
    """The shared sample (real rows) as a CSV without Lower/Upper Limit and Output Type: a reply
    4% off the ground truth scores as it does with the limits (before: 0 on every range row)."""
    if not SAMPLE.is_file():
        pytest.skip(f"{SAMPLE} is absent: the real dataset sample lives in ../shared (development checkouts)")
    records = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [{"Row Number": r["meta"]["row_number"], "Calculator ID": r["meta"]["calculator_id"],
             "Patient Note": r["context"], "Question": r["question"], "Ground Truth Answer": r["reference"]}
            for r in records]
    items = load_instances(SPEC, _write(tmp_path / "real.csv", BASE, rows))
    ranged = [(i, r) for i, r in zip(items, records, strict=True) if i.answer_type == "numeric_range"]
    assert len(ranged) >= 80
    for item, record in ranged:
        if int(record["meta"]["calculator_id"]) == 8:
            # the sample derived +-5% for Wells' PE; the dataset's own limits equal the ground truth
            assert item.lower == item.upper == float(record["reference"])
        else:
            assert (item.lower, item.upper) == pytest.approx((record["lower"], record["upper"]), abs=1e-3)
    near = [item for item, record in ranged if int(record["meta"]["calculator_id"]) != 8 and item.upper]
    scores = score_responses(SPEC, near, [f"Answer: {float(i.reference) * 1.04:.6g}" for i in near])
    assert all(s.score == 1.0 and s.note for s in scores)


def test_a_run_on_derived_limits_says_so_on_its_evidence(tmp_path, store, llm_server):
    """The note reaches the run's summary and every evidence record of the run, not only the scores."""
    from evaluator.gateway.llm import ModelEndpoint
    from evaluator.runs.runner import run_benchmark
    from tests.fakes import constant_answer

    llm_server.configure(answer=constant_answer("Answer: 4"))
    items = load_instances(SPEC, _write(tmp_path / "m.csv", BASE, INVENTED))
    endpoint = ModelEndpoint(name="t", model="openai/m", api_base=llm_server.url,
                             input_price_per_mtok=0.0, output_price_per_mtok=0.0)
    summary = run_benchmark(store, SPEC, items, endpoint, concurrency=2)
    assert len(summary.notes) == 2 and all(n.startswith("1 of 3 instances: Lower/Upper Limit derived")
                                           for n in summary.notes)
    evidence = summary.to_evidence()
    assert evidence and all("Lower/Upper Limit derived" in e.caveat for e in evidence)
    given = _write(tmp_path / "given.csv", [*BASE, "Lower Limit", "Upper Limit"],
                   [{**r, "Lower Limit": r["Ground Truth Answer"], "Upper Limit": r["Ground Truth Answer"]}
                    for r in INVENTED])
    plain = run_benchmark(store, SPEC, load_instances(SPEC, given), endpoint, concurrency=2)
    assert plain.notes == [] and all("derived" not in e.caveat for e in plain.to_evidence())
