"""Issue 27 item 11 on the pages: the Evidence page names what no benchmark tests and offers the templates;
the Local scenarios page offers them too."""

from __future__ import annotations

import pytest

from governance.dossier.store import Store
from tests.pages.conftest import DEMO, open_page

DOSING = ("Propose weight-based paediatric doses in mg/kg and renal dose adjustments by creatinine clearance "
          "for pharmacists, who verify every dose before it reaches the ward.")


@pytest.fixture
def dosing_demo(demo_home):
    """The demo dossier with the walk's paediatric-dosing purpose."""
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        d = store.load(DEMO).dossier
        use = d.intended_use.model_copy(update={"purpose": DOSING, "workflow": ""})
        store.save(d.model_copy(update={"intended_use": use}), author="reviewer", note="test: dosing use")
    finally:
        store.close()
    return demo_home


def test_the_evidence_page_names_the_untested_activities_and_offers_their_templates(dosing_demo):
    at = open_page("pages/evidence.py")
    assert not at.exception, [e.value for e in at.exception]
    assert "What no benchmark here tests" in [s.value for s in at.subheader]
    warnings = [w.value for w in at.warning]
    assert any(w.startswith("Nothing on offer tests weight") and "mg/kg" in w for w in warnings), warnings
    assert any("renal dose adjustment by creatinine clearance" in w for w in warnings)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Template: Weight-based doses (mg/kg)" in labels
    assert "Template: Renal dose adjustment by creatinine clearance" in labels


def test_the_demo_evidence_page_claims_no_gap(demo_home):
    at = open_page("pages/evidence.py")
    assert not at.exception
    assert "What no benchmark here tests" not in [s.value for s in at.subheader]


def test_local_scenarios_offers_the_activity_templates(demo_home):
    at = open_page("pages/local_scenarios.py")
    assert not at.exception, [e.value for e in at.exception]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Template: Weight-based doses (mg/kg)" in labels
    assert "Template: Renal dose adjustment by creatinine clearance" in labels
