"""Local scenarios in a dossier: subcategories, audit, evidence labelling, attaching, and the demo."""

from __future__ import annotations

import pytest

from evaluator.scenarios import ImportRejected, preview_import, record_offline_run
from governance.demo.scenario import DEMO_SOURCE, attach_demo_scenario, demo_cases_csv
from governance.demo.seed import DEMO_ID, seed_demo
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.mapping.taxonomy import TaxonomyError
from governance.scenarios.operations.local import (
    attach_scenario_run,
    import_for_dossier,
    redact_scenario,
    scenario_rows,
    scenario_run_evidence,
)


@pytest.fixture
def dossier(store) -> Dossier:
    d = Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use())
    d = d.model_copy(update={"mapping": d.mapping.decide("patient_provider_messaging", "accepted", by="me")})
    store.save(d, author="me")
    return d


CSV = (b"id,context,question,choices,reference,tag_sex\n"
       + b"".join(f"q{i},Note {i} (call 555-867-5309),Urgent?,yes|no,A,{'F' if i < 12 else 'M'}\n".encode()
                  for i in range(24)))


def imported(store, dossier):
    preview = preview_import("p.csv", CSV)
    return import_for_dossier(store, preview, name="Portal", actor=Actor.named("nurse"), dossier=dossier)


def test_import_maps_to_the_dossier_subcategories_and_is_audited(store, dossier):
    version = imported(store, dossier)
    assert version.subcategory_ids == ["patient_provider_messaging"] and version.dossier_id == dossier.id
    (entry,) = [a for a in store.audit_log(dossier.id) if a.action == "scenario import"]
    assert entry.actor == "nurse" and entry.detail["scenario_id"] == version.scenario_id
    assert entry.detail["phi"]["counts"] == {"phone": 24}
    narrowed = import_for_dossier(store, preview_import("p.csv", CSV), name="Portal",
                                  actor=Actor.named("nurse"),
                                  dossier=dossier, subcategory_ids=[])
    assert narrowed.subcategory_ids == []
    with pytest.raises(TaxonomyError):
        import_for_dossier(store, preview_import("p.csv", CSV), name="x", actor=Actor.named("n"),
                           subcategory_ids=["nope"])


def test_rejected_preview_stores_nothing_and_writes_no_audit(store, dossier):
    before = len(store.audit_log())
    with pytest.raises(ImportRejected):
        import_for_dossier(store, preview_import("p.csv", b"id,question\nq1,?\n"), name="x",
                           actor=Actor.named("n"),
                           dossier=dossier)
    assert len(store.audit_log()) == before and store.scenarios.list_versions() == []


def test_redaction_is_audited_and_rows_list_both_versions(store, dossier):
    v1 = imported(store, dossier)
    v2 = redact_scenario(store, v1.scenario_id, actor=Actor.named("privacy officer"))
    assert [a.action for a in store.audit_log(dossier.id)][-1] == "scenario redact"
    rows = scenario_rows(store)
    assert [(r["version"], r["redacted"]) for r in rows] == [(2, True), (1, False)]
    assert rows[0]["phi"].startswith("no likely identifiers") and "phone 24" in rows[1]["phi"]
    assert v2.redaction["replaced"] == {"phone": 24}


def test_scenario_run_evidence_is_labelled_for_coverage_and_attaching_makes_a_new_version(store, dossier):
    v1 = imported(store, dossier)
    answers = {f"q{i}": "A" if i < 12 or i % 2 else "B" for i in range(24)}
    run_id = record_offline_run(store, v1, "gpt-4o", answers, endpoint_name="offline")
    evidence = scenario_run_evidence(store, run_id)
    assert evidence.subcategory == "Patient-Provider Messaging" and evidence.category
    assert evidence.provenance == "local-run" and evidence.run_id == run_id
    assert {(s.group, s.suppressed) for s in evidence.subgroups} == {("F", False), ("M", False)}
    updated = attach_scenario_run(store, store.load(dossier.id).dossier, run_id, by="dr.lee")
    saved = store.save(updated, author="dr.lee", note="evidence: local scenario")
    assert saved.version == 2 and saved.dossier.evidence[-1].id == evidence.id
    assert attach_scenario_run(store, saved.dossier, run_id, by="dr.lee") == saved.dossier  # attached once


def test_demo_scenario_has_a_flagged_ratio_and_a_suppressed_group(store, dossier):
    updated = attach_demo_scenario(store, dossier)
    (evidence,) = [e for e in updated.evidence if e.subgroups]
    assert evidence.source == DEMO_SOURCE and "demo data" in evidence.source
    assert "no model was called" in evidence.source and evidence.caveat.startswith("DEMO DATA")
    assert evidence.subcategory == "Patient-Provider Messaging"
    language = {s.group: s for s in evidence.subgroups if s.tag == "language"}
    assert language["vi"].suppressed and language["vi"].score is None
    assert language["es"].score / language["en"].score < 0.8  # flagged against the largest group
    assert "flagged: language=es (0.50)" in evidence.caveat
    (version,) = store.scenarios.list_versions()
    assert version.dossier_id == dossier.id and version.phi["counts"] == {}  # invented text, no identifiers
    (run,) = store.scenarios.runs(version.scenario_id)
    assert run["endpoint_name"] == "demo data (no model called)"
    assert b"555" not in demo_cases_csv()


def test_demo_step_fits_the_demo_dossier(store):
    seed_demo(store)
    demo = store.load(DEMO_ID).dossier
    before = {e.id for e in demo.evidence}
    saved = store.save(attach_demo_scenario(store, demo), author="demo", note="demo: local scenario")
    added = [e for e in saved.dossier.evidence if e.id not in before]
    assert len(added) == 1 and added[0].model == "GPT-4o (2024-05-13)" and added[0].subgroups
