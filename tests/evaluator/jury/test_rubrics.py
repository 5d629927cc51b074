"""Rubrics as data: every shipped rubric loads, every benchmark's jury names a rubric and priced judges."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.specs import list_benchmarks
from evaluator.gateway.prices import resolve_price
from evaluator.jury.panel import DEFAULT_JUDGES, jury_config_for
from evaluator.jury.rubrics import RUBRIC_DIR, RubricError, get_rubric, load_rubrics, parse_rubric


def test_default_rubric_is_medhelms_criteria_on_1_to_5():
    r = get_rubric()
    assert r.criterion_names == ("accuracy", "completeness", "clarity") and r.scale == "1-5"
    assert all(c.question.endswith("?") for c in r.criteria)
    assert len(r.content_hash()) == 64


def test_every_rubric_file_loads():
    assert set(load_rubrics()) == {p.stem for p in RUBRIC_DIR.glob("*.yaml")}


@pytest.mark.parametrize("spec", [s for s in list_benchmarks() if s.jury], ids=lambda s: s.id)
def test_benchmark_juries_resolve_with_priced_vendor_diverse_judges(spec):
    config = jury_config_for(spec)
    assert config.rubric_id == spec.jury.rubric
    models = [j.model for j in config.judges]
    assert len({m.split("/")[0] for m in models}) >= 3, models
    assert all(resolve_price(m) is not None for m in models), models


def test_default_judges_are_three_priced_vendors():
    assert len({m.split("/")[0] for m in DEFAULT_JUDGES}) == 3
    assert all(resolve_price(m) is not None for m in DEFAULT_JUDGES)


@pytest.mark.parametrize(
    "body, problem",
    [
        ("id: bad\ntitle: t\nrole: a long enough role\ncriteria: []\n", "criteria"),
        (
            "id: bad\ntitle: t\nrole: a long enough role\nscale_min: 5\nscale_max: 1\n"
            "criteria: [{name: a, question: 'is it right at all?'}]\n",
            "scale_min",
        ),
        (
            "id: bad\ntitle: t\nrole: a long enough role\ntypo: 1\n"
            "criteria: [{name: a, question: 'is it right?'}]\n",
            "typo",
        ),
        (
            "id: other\ntitle: t\nrole: a long enough role\n"
            "criteria: [{name: a, question: 'is it right?'}]\n",
            "file name",
        ),
    ],
)
def test_bad_rubric_files_fail_loudly(tmp_path, body, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    with pytest.raises(RubricError, match=problem):
        parse_rubric(path)


def test_unknown_rubric_lists_known_ones():
    with pytest.raises(RubricError, match="known rubrics: aci_bench"):
        get_rubric("nope")
