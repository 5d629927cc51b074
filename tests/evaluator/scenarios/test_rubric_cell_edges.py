"""Rubric cells and HealthBench lines that are almost right: each is refused with its row and reason.

Found by trying the importer as an acceptance check would (issue 34 item 1): a ``tags`` field given as
one string was stored split into its characters (``"axis:accuracy"`` -> 13 one-letter tags), ``tags:
true`` raised a traceback, ``NaN`` points were refused for the wrong reason, a file whose every line
had HealthBench's fields but a text ``prompt`` was told "no column is mapped to id", and an empty
rubric cell was reported against a ``reference`` column the file does not have.
"""

from __future__ import annotations

import json

import pytest

from evaluator.scenarios import preview_import
from evaluator.scenarios.rubric_cases import parse_rubric


def hb(prompt_id: str = "hb-1", **changes) -> dict:
    line = {
        "prompt": [{"role": "user", "content": "Please write my mother's discharge summary."}],
        "rubrics": [
            {"criterion": "States the new furosemide dose", "points": 6, "tags": ["axis:completeness"]}
        ],
        "example_tags": ["theme:communication"],
        "prompt_id": prompt_id,
    }
    return {**line, **changes}


def jsonl(*records: dict) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()


def issues(name: str, data: bytes) -> list[str]:
    preview = preview_import(name, data)
    assert not preview.ok
    return [i.line() for i in preview.issues]


@pytest.mark.parametrize(
    ("tags", "reason"),
    [
        ("axis:accuracy", "criterion 1: tags must be a list of text tags, e.g. [\"axis:accuracy\"], "
                          "got 'axis:accuracy'"),
        (True, "criterion 1: tags must be a list of text tags, e.g. [\"axis:accuracy\"], got True"),
        ({"axis": "accuracy"}, "criterion 1: tags must be a list of text tags, e.g. [\"axis:accuracy\"], "
                               "got {'axis': 'accuracy'}"),
    ],
)
def test_tags_that_are_not_a_list_are_refused_not_split_into_letters(tags, reason):
    rubric, problem = parse_rubric([{"criterion": "States the dose", "points": 5, "tags": tags}])
    assert (rubric, problem) == ((), reason)
    line = hb(rubrics=[{"criterion": "States the dose", "points": 5, "tags": tags}])
    assert issues("hb.jsonl", jsonl(line)) == [f"row 1, column rubric: {reason}"]


@pytest.mark.parametrize("points", ["NaN", "Infinity", "-Infinity"])
def test_points_must_be_finite(points):
    text = f'[{{"criterion": "States the dose", "points": {points}}}, {{"criterion": "Asks", "points": 2}}]'
    assert parse_rubric(text) == ((), f"criterion 1: points must be a finite number, got {float(points)!r}")


def test_null_or_missing_tags_are_no_tags():
    given = [{"criterion": "a", "points": 1, "tags": None}, {"criterion": "b", "points": 2}]
    rubric, problem = parse_rubric(given)
    assert problem is None and [c.tags for c in rubric] == [(), ()]


def test_every_line_with_healthbench_fields_but_a_text_prompt_is_told_so():
    lines = jsonl(hb("a", prompt="What is my dose?"), hb("b", prompt="And the follow-up?"))
    assert issues("hb.jsonl", lines) == [
        'row 1, column prompt: prompt must be a non-empty list of chat messages {"role", "content"}',
        'row 2, column prompt: prompt must be a non-empty list of chat messages {"role", "content"}',
    ]


def test_an_empty_rubric_cell_is_reported_against_the_rubric_column():
    rubric = json.dumps([{"criterion": "States the dose", "points": 5}]).replace('"', '""')
    csv = f'id,question,rubric\nd1,Summarise the admission,\nd2,Reply to the patient,"{rubric}"\n'
    assert issues("cases.csv", csv.encode()) == [
        "row 2, column rubric: the rubric is empty: every case needs its criteria (a JSON list) or a "
        "reference"
    ]
    # with both columns, the case needs one of them, and says so
    csv = f'id,question,reference,rubric\nd1,Summarise the admission,,\nd2,Reply,ok,"{rubric}"\n'
    assert issues("cases.csv", csv.encode()) == [
        "row 2, column reference: neither a reference nor a rubric: every case needs one of them"
    ]


def test_healthbench_meta_evaluation_file_is_named_as_such():
    line = {"prompt": [{"role": "user", "content": "Is this rash serious?"}], "completion": "Probably not.",
            "rubric": "Asks how long the rash has been there", "category": "cluster_context_seeking",
            "binary_labels": [True, False], "anonymized_physician_ids": ["p1", "p2"],
            "completion_id": "c-1", "prompt_id": "m-1"}
    lines = issues("meta.jsonl", jsonl(line))
    assert len(lines) == 1 and lines[0].startswith("file: this is HealthBench's meta-evaluation file")
