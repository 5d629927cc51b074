"""A report bundle assesses its dossier once and hands that assessment to every section and export."""

import pytest

import governance.rules.assessment as assessment_module
from governance.demo.seed import seed_demo
from governance.dossier.store import Store
from reports.bundle import report_bundle


@pytest.fixture()
def demo_store(tmp_path):
    store = Store.open(tmp_path / "m.duckdb")
    dossier_id = seed_demo(store)
    yield store, dossier_id
    store.close()


def test_one_bundle_one_assessment(demo_store, monkeypatch):
    store, dossier_id = demo_store
    calls = []
    real = assessment_module.assess
    monkeypatch.setattr(assessment_module, "assess", lambda d: calls.append(d.id) or real(d))
    bundle = report_bundle(store, dossier_id)
    bundle.download("chai").make()
    bundle.download("pdf").make()
    assert calls == [dossier_id]
    # the sections read the same verdicts: the rules section and the CHAI card agree on the counts
    assert bundle.report.rules.recorded
