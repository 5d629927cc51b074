"""The downloadable scenario templates import cleanly, and a wrong choices separator gets a hint."""

from __future__ import annotations

import pytest

from evaluator.scenarios.importer import preview_import
from evaluator.scenarios.template import TEMPLATES, template_csv


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
