import json

import pytest

from governance.mapping.taxonomy import TaxonomyError, load_taxonomy
from tests.conftest import shared_path


def test_counts_and_unique_ids():
    tax = load_taxonomy()
    assert len(tax.categories) == 5
    assert len(tax.subcategories) == 22
    assert len(tax.benchmarks) == 37
    ids = [s.id for s in tax.subcategories]
    assert len(set(ids)) == 22
    assert all(b.access in {"public", "gated", "private"} for b in tax.benchmarks)
    assert all(s.definition and s.source for s in tax.subcategories)


def test_lookups():
    tax = load_taxonomy()
    assert tax.benchmark("medcalc_bench").name == "MedCalc-Bench"
    assert tax.subcategory_of_benchmark("MedCalc-Bench").id == "supporting_diagnostic_decisions"
    assert tax.category_of("patient_provider_messaging").name == "Patient Communication and Education"
    with pytest.raises(TaxonomyError, match="valid ids"):
        tax.subcategory("diagnosis")


def test_matches_reference_and_invents_no_tasks():
    ref = json.loads(shared_path("reference", "medhelm_taxonomy.json").read_text())
    tax = load_taxonomy()
    assert [c["name"] for c in ref["categories"]] == [c.name for c in tax.categories]
    assert [s["name"] for c in ref["categories"] for s in c["subcategories"]] == [
        s.name for s in tax.subcategories
    ]
    verified = {t["task"] for t in ref["tasks_recovered"]}
    tasks = [t for s in tax.subcategories for t in s.tasks]
    assert {t.name for t in tasks} <= verified
    assert all(t.verified and t.source for t in tasks)
