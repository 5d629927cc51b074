"""A de-identification attestation recorded after the decision leaves the decision and sign-offs valid."""

from __future__ import annotations

from evaluator.phi.attestation import AttestationInput
from governance.decision.signoff import signoff_status
from governance.demo.seed import seed_demo
from governance.dossier.store import Store
from governance.scenarios.operations.deidentification import record_attestation


def test_attestation_appended_after_the_decision_keeps_the_sign_offs(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        dossier_id = seed_demo(store)
        before = store.load(dossier_id)
        status = signoff_status(before.dossier)
        assert before.dossier.decision is not None and status.decision_current
        assert any(r.valid for r in status.roles)
        given = AttestationInput(attested_by="Privacy officer", method="safe_harbor", note="update file")
        record_attestation(store, given.for_file("a" * 64, "update-cases.csv"), dossier_id)
        after = store.load(dossier_id)
        assert after.version == before.version + 1 and len(after.dossier.deidentification) == 1
        again = signoff_status(after.dossier)
        assert again.decision_current and again.invalidated == []
        assert again.roles == status.roles
    finally:
        store.close()
