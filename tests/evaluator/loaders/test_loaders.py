"""Loaders: official-format fixtures (invented content), the shared generic samples, and bad files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluator.benchmarks.specs import get_benchmark
from evaluator.loaders import LOADERS, DatasetError, get_loader, load_instances, register_loader

FORMATS = Path(__file__).resolve().parents[2] / "data" / "formats"
SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"


def spec(benchmark_id: str, **loader_args):
    base = get_benchmark(benchmark_id)
    return (
        base.model_copy(update={"loader_args": {**base.loader_args, **loader_args}}) if loader_args else base
    )


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- registry and entry point ---------------------------------------------------------------------


def test_registry_errors_are_helpful():
    with pytest.raises(ValueError, match="registered twice"):
        register_loader("generic", file_format="x")(lambda path: [])
    with pytest.raises(KeyError, match="known loaders: .*generic"):
        get_loader("genric")
    assert {
        "generic",
        "builtin_calculators",
        "medcalc_bench_csv",
        "pubmedqa_json",
        "headqa_json",
        "medec_csv",
        "aci_bench_json",
        "medication_qa_xlsx",
    } <= set(LOADERS)


def test_missing_or_absent_files_say_what_is_needed(tmp_path):
    with pytest.raises(DatasetError, match="needs a dataset file .*MedCalc-Bench CSV"):
        load_instances(spec("medcalc_bench"))
    with pytest.raises(DatasetError, match="file not found"):
        load_instances(spec("pubmedqa"), tmp_path / "nope.json")


def test_builtin_needs_no_file_and_limit_truncates():
    assert len(load_instances(spec("calc_builtin", count=30))) == 30
    assert [i.id for i in load_instances(spec("calc_builtin"), limit=2)] == [
        i.id for i in load_instances(spec("calc_builtin"))[:2]
    ]


def test_duplicate_ids_and_empty_files_are_rejected(tmp_path):
    dup = write(tmp_path, "d.jsonl", '{"id": "a", "reference": "1"}\n{"id": "a", "reference": "2"}\n')
    with pytest.raises(DatasetError, match="duplicate id 'a'"):
        load_instances(spec("generic"), dup)
    with pytest.raises(DatasetError, match="contains no instances"):
        load_instances(spec("generic"), write(tmp_path, "e.jsonl", "\n"))


# --- official formats -----------------------------------------------------------------------------


def test_medcalc_csv_grades_by_calculator_id():
    items = {i.id: i for i in load_instances(spec("medcalc_bench"), FORMATS / "medcalc_bench_test.csv")}
    crcl = items["medcalc-1"]
    assert (crcl.answer_type, crcl.lower, crcl.upper) == ("numeric_range", 61.574, 68.056)
    assert "\nHe feels well." in crcl.context and crcl.subgroups == {
        "category": "lab",
        "calculator": "Creatinine Clearance (Cockcroft-Gault Equation)",
    }
    assert (items["medcalc-2"].answer_type, items["medcalc-2"].reference) == ("exact", "3")
    assert (items["medcalc-3"].answer_type, items["medcalc-3"].reference) == ("exact", "01/07/2022")
    assert items["medcalc-4"].reference == "(6, 3)"
    wells = items["medcalc-5"]
    assert wells.lower == wells.upper == 4.5


def test_medcalc_csv_without_limits_derives_them():
    crcl, hasbled = load_instances(spec("medcalc_bench"), FORMATS / "medcalc_bench_no_limits.csv")
    assert crcl.lower == pytest.approx(64.815 * 0.95) and crcl.upper == pytest.approx(64.815 * 1.05)
    assert "README rule" in crcl.meta["limits_derived"]
    assert hasbled.answer_type == "exact"  # no Calculator ID: Output Type "integer" decides


def test_medcalc_bad_rows(tmp_path):
    bad = write(
        tmp_path,
        "m.csv",
        "Patient Note,Question,Ground Truth Answer,Lower Limit,Upper Limit\nnote,q?,abc,1,2\n",
    )
    with pytest.raises(DatasetError, match=r"m.csv, row 2: Ground Truth Answer must be a number"):
        load_instances(spec("medcalc_bench"), bad)
    with pytest.raises(DatasetError, match="not a MedCalc-Bench CSV: missing column"):
        load_instances(spec("medcalc_bench"), write(tmp_path, "x.csv", "a,b\n1,2\n"))


def test_pubmedqa_json():
    items = load_instances(spec("pubmedqa"), FORMATS / "ori_pqal.json")
    assert [(i.id, i.reference) for i in items] == [
        ("pubmedqa-90000001", "A"),
        ("pubmedqa-90000002", "B"),
        ("pubmedqa-90000003", "C"),
    ]
    assert items[0].context.splitlines() == [
        "Background. Sedentary work is common.",
        "Results. Forty volunteers walked daily for 12 weeks; resting heart rate fell by 6 bpm.",
    ]
    assert items[0].choices == ("yes", "no", "maybe") and items[0].meta["year"] == "2020"
    assert items[2].context == "Uptake rose slightly but the interval was wide."  # labels/contexts mismatch


def test_pubmedqa_bad_decision(tmp_path):
    bad = write(
        tmp_path, "p.json", json.dumps({"1": {"QUESTION": "q", "CONTEXTS": ["c"], "final_decision": "y"}})
    )
    with pytest.raises(DatasetError, match="row 1: final_decision must be yes, no or maybe"):
        load_instances(spec("pubmedqa"), bad)


def test_headqa_json_filters_years_and_images():
    (q,) = load_instances(spec("head_qa"), FORMATS / "head_en.json")  # 2016 only; image question skipped
    assert q.id == "headqa-Cuaderno_2016_1_B-1"
    assert q.choices == ("Ribosome", "Golgi apparatus", "Mitochondrion", "Lysosome")  # ordered by aid
    assert q.reference == "C" and q.subgroups == {"category": "biology"}
    everything = load_instances(spec("head_qa", years=None, skip_images=False), FORMATS / "head_en.json")
    assert len(everything) == 3


def test_headqa_bad_ra(tmp_path):
    data = {
        "exams": {
            "E": {
                "year": "2016",
                "category": "x",
                "data": [
                    {"qid": "1", "qtext": "q", "ra": "9", "image": "", "answers": [{"aid": 1, "atext": "a"}]}
                ],
            }
        }
    }
    with pytest.raises(DatasetError, match="row E/1: .*ra must be one of the answer ids"):
        load_instances(spec("head_qa"), write(tmp_path, "h.json", json.dumps(data)))


def test_medec_csv_skips_placeholders_and_builds_helm_references():
    error, correct = load_instances(spec("medec"), FORMATS / "medec_test.csv")
    assert error.reference == "1 Supportive care is advised for viral pharyngitis."
    assert error.context.startswith("0 A boy") and error.subgroups == {"error_type": "management"}
    assert correct.reference == "CORRECT" and correct.subgroups == {"error_type": "none"}
    assert "CORRECT" in correct.question


def test_aci_bench_json():
    first, second = load_instances(spec("aci_bench"), FORMATS / "aci_bench_test1_full.json")
    assert first.id == "aci-aci_bench_test1-FX001-virtassist"
    assert first.reference.startswith("CHIEF COMPLAINT") and first.answer_type == "free_text"
    assert first.context.startswith("[doctor]") and second.meta["encounter_id"] == "FX002-aci"


def _write_medication_xlsx(path: Path) -> Path:
    import pandas as pd

    pd.DataFrame(
        {
            "Question": [
                "Can I take ibuprofen with lisinopril?",
                "How should I store insulin?",
                "What is metformin for?",
            ],
            "Focus (Drug)": ["ibuprofen", "insulin", "metformin"],
            "Question Type": ["interaction", "storage and disposal", "information"],
            "Answer": [
                "Occasional use is usually fine; ask your doctor.",
                "Keep unopened pens in the fridge.",
                None,
            ],
            "Section Title": ["", "", ""],
            "URL": ["https://example.org/a", "https://example.org/b", ""],
        }
    ).to_excel(path, index=False)
    return path


def test_medication_qa_xlsx(tmp_path):
    items = load_instances(spec("medication_qa"), _write_medication_xlsx(tmp_path / "mq.xlsx"))
    assert [i.id for i in items] == ["medicationqa-2", "medicationqa-3"]  # row without an answer dropped
    assert items[1].reference == "Keep unopened pens in the fridge."
    assert (
        items[1].subgroups == {"question_type": "storage and disposal"}
        and items[1].meta["focus"] == "insulin"
    )
    with pytest.raises(DatasetError, match="cannot be read as an .xlsx"):
        load_instances(spec("medication_qa"), write(tmp_path, "bad.xlsx", "not a spreadsheet"))


# --- generic format -------------------------------------------------------------------------------


def test_generic_csv_with_choice_columns_tags_and_meta():
    items = {i.id: i for i in load_instances(spec("generic"), FORMATS / "generic_local.csv")}
    first = items["loc-1"]
    assert first.choices == ("yes", "no") and first.reference == "A"
    assert first.subgroups == {"ward": "cardiology", "sex": "F"} and first.meta == {"site": "north"}
    assert (items["loc-2"].lower, items["loc-2"].upper) == (76.0, 84.0)
    assert items["loc-3"].lower == items["loc-3"].upper == 16.0  # no limits, no tolerance: exact
    assert items["loc-4"].answer_type == "choice" and items["loc-4"].choices[0] == "Vitamin K"


def test_generic_jsonl_subgroups_tolerance_and_meta(tmp_path):
    path = write(
        tmp_path,
        "g.jsonl",
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "id": "1",
                    "reference": "100",
                    "answer_type": "numeric_range",
                    "subgroups": {"age_band": "65+"},
                    "meta": {"calc": "x", "n": 3, "flags": [1, 2], "none": None},
                },
                {
                    "id": "2",
                    "question": "q",
                    "reference": "text",
                    "answer_type": "free_text",
                    "tag_site": "a",
                },
            ]
        ),
    )
    one, two = load_instances(spec("generic", tolerance=0.05, subgroup_meta_keys=["calc"]), path)
    assert (one.lower, one.upper) == (95.0, 105.0)
    assert one.subgroups == {"age_band": "65+", "calc": "x"} and one.meta == {
        "calc": "x",
        "n": "3",
        "flags": "[1, 2]",
    }
    assert two.subgroups == {"site": "a"} and two.lower is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"reference": "1"}', "id is missing"),
        ('{"id": "b", "answer_type": "essay"}', "answer_type must be one of"),
        ('{"id": "b", "choices": ["x", "y"], "reference": "z"}', "reference 'z' is neither an option letter"),
        (
            '{"id": "b", "reference": "5", "answer_type": "numeric_range", "lower": 4}',
            "give both lower and upper",
        ),
        (
            '{"id": "b", "reference": "5", "answer_type": "numeric_range", "lower": 6, "upper": 4}',
            "lower 6.0 is above",
        ),
        (
            '{"id": "b", "reference": "5", "answer_type": "numeric_range", "lower": "low", "upper": 4}',
            "lower must be a number",
        ),
        (
            '{"id": "b", "reference": "five", "answer_type": "numeric_range"}',
            "reference must be a number, got 'five'",
        ),
        ('{"id": "b", "answer_type": "numeric_range"}', "a numeric_range item needs a numeric reference"),
        ('{"id": "b", "choices": "yes|no", "reference": "yes"}', "choices must be a JSON list"),
        ('{"id": "b", "subgroups": ["x"]}', "subgroups must be an object"),
        ('{"id": "b", ', "not valid JSON"),
        ('["not", "an", "object"]', "each record must be an object"),
    ],
)
def test_generic_bad_rows_name_file_row_and_reason(tmp_path, line, reason):
    path = write(tmp_path, "bad.jsonl", '{"id": "a", "reference": "1"}\n' + line + "\n")
    with pytest.raises(DatasetError, match=r"bad\.jsonl, row 2: " + re.escape(reason)) as caught:
        load_instances(spec("generic"), path)
    assert caught.value.row == 2 and caught.value.path == path


# --- shared generic samples -----------------------------------------------------------------------

SAMPLES = ["aci_bench", "ehr_sql", "head_qa", "medcalc_bench", "medec", "pubmedqa"]


@pytest.mark.parametrize("name", SAMPLES)
def test_shared_samples_load_with_the_generic_loader(name):
    path = SHARED / "datasets" / name / "sample.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is absent: ../shared is only present in development checkouts")
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    items = load_instances(spec("generic", subgroup_meta_keys=["category"]), path)
    assert [i.id for i in items] == [r["id"] for r in raw]
    for item, record in zip(items, raw, strict=True):
        assert item.answer_type == record["answer_type"]
        if item.answer_type == "choice":  # text reference stored as the letter of that option
            assert item.choices["ABCDEFGHIJ".index(item.reference)] == record["reference"]
        if item.answer_type == "numeric_range":
            assert item.lower <= float(item.reference) <= item.upper
        assert all(isinstance(v, str) for v in item.meta.values())
    if name in ("medcalc_bench", "head_qa"):
        assert all("category" in i.subgroups for i in items)


def test_undecodable_file_is_a_dataset_error(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("id,question\n1,fi\xe8vre?\n".encode("latin-1"))
    with pytest.raises(DatasetError, match="latin1.csv: cannot be read as generic"):
        load_instances(spec("generic"), path)
