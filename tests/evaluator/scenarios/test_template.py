"""The downloadable scenario templates import cleanly, and a wrong choices separator gets a hint."""

from __future__ import annotations

import pytest

from evaluator.scenarios.importer import preview_import
from evaluator.scenarios.template import ACTIVITY_TEMPLATES, TEMPLATES, activity_template_csv, template_csv


@pytest.mark.parametrize("kind", list(TEMPLATES))
def test_each_template_passes_the_importer_with_the_suggested_mapping(kind):
    preview = preview_import(f"{kind}.csv", template_csv(kind))
    assert preview.issues == [], preview.issues
    assert len(preview.instances) == len(TEMPLATES[kind][1])
    assert {i.answer_type for i in preview.instances} == {kind}
    assert not preview.phi.total  # invented teaching rows, no identifiers


def test_choices_separated_by_semicolons_get_a_hint():
    data = b"id,question,choices,reference\nq1,Which?,yes; no; maybe,A\n"
    reasons = [i.reason for i in preview_import("c.csv", data).issues if i.column == "choices"]
    assert any("found ';': separate options with |" in r for r in reasons), reasons


@pytest.mark.parametrize("activity", list(ACTIVITY_TEMPLATES))
def test_each_activity_template_imports_with_its_answer_types_tags_and_hand_checked_answers(activity):
    preview = preview_import(f"{activity}.csv", activity_template_csv(activity))
    assert preview.issues == [], preview.issues
    _, tags, rows = ACTIVITY_TEMPLATES[activity]
    assert len(preview.instances) == len(rows) and not preview.phi.total
    assert {i.answer_type for i in preview.instances} == {"numeric_range", "choice"}
    assert set(preview.mapping.tags) == {t.removeprefix("tag_") for t in tags}  # suggested, not typed
    for row in rows:  # every numeric reference inside its accepted range
        if row[2] == "numeric_range":
            assert float(row[5]) <= float(row[3]) <= float(row[6])


def test_activity_template_answers_by_hand():
    rows = {r[0]: r for _, _, rs in ACTIVITY_TEMPLATES.values() for r in rs}
    assert float(rows["w1"][3]) == 15 * 12  # 15 mg/kg × 12 kg
    assert float(rows["w2"][3]) == 25 * 18 / 2  # 25 mg/kg/day × 18 kg, two doses
    assert float(rows["w3"][3]) == min(10 * 45, 400)  # capped at 400 mg
    crcl_man = (140 - 70) * 72 / (72 * 1.2)  # Cockcroft-Gault
    crcl_woman = (140 - 80) * 50 / (72 * 1.4) * 0.85
    assert float(rows["r1"][3]) == pytest.approx(crcl_man, abs=0.05)
    assert float(rows["r2"][3]) == pytest.approx(crcl_woman, abs=0.05)
    for key, value in (("r1", crcl_man), ("r2", crcl_woman)):  # MedCalc-Bench's 95-105% tolerance
        assert float(rows[key][5]) == pytest.approx(0.95 * value, abs=0.06)
        assert float(rows[key][6]) == pytest.approx(1.05 * value, abs=0.06)
    assert float(rows["r4"][3]) == 80  # 1 mg/kg once daily below 30 mL/min, 80 kg
