"""At the operations: a sign-off on a stale decision is refused with labels; the chair's confirmation;
every write reports the version it made to the caller's receipt (issue 27, items 1 and 4)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from governance.decision import committee
from governance.decision.operations.standing import changes_since_decision
from governance.decision.operations.view import decision_view
from governance.decision.signoff import DecisionError, add_signoff
from governance.identity import Actor
from governance.identity.access import PermissionDenied
from governance.identity.identity import local_identity, oidc_identity
from governance.identity.operations.authorize import update_as
from governance.identity.operations.receipts import written_versions
from governance.identity.operations.save import save_as
from tests.governance.decision.test_standing import REASON, decided

ME = local_identity("chair")
ISSUER = "https://login.example-hospital.org"


@pytest.fixture
def stale(store):
    first = save_as(store, ME, decided(), "decided")
    use = first.dossier.intended_use.model_copy(update={"human_oversight": "sampled",
                                                        "care_setting": "Ward 3"})
    return save_as(store, ME, first.dossier.model_copy(update={"intended_use": use}), "use edited",
                   expected_hash=first.hash)


def test_a_signoff_saved_on_a_stale_decision_is_refused_naming_the_fields(store, stale):
    assert changes_since_decision(store, stale.dossier) == ["Intended use › Care setting",
                                                            "Intended use › Human oversight"]
    signed = add_signoff(stale.dossier, "clinical lead", "Dr. Chen", datetime.now(UTC), stale.hash)
    with pytest.raises(DecisionError) as refused:  # built without ``sign``: the door refuses anyway
        save_as(store, ME, signed, "sign-off", expected_hash=stale.hash)
    assert str(refused.value).startswith("Signing refused: Intended use › Care setting, Intended use › Human "
                                         "oversight changed after the decision was recorded.")
    assert "intended_use" not in str(refused.value) and "human_oversight" not in str(refused.value)
    with pytest.raises(DecisionError):
        update_as(store, Actor.of(ME, name="chair"), stale.dossier.id, lambda d: signed, note="x",
                  action="sign")
    assert store.load(stale.dossier.id).hash == stale.hash  # nothing stored

    view = decision_view(store, stale.dossier.id)
    assert view.stale and view.changed_since_decision == ["Intended use › Care setting",
                                                          "Intended use › Human oversight"]
    assert view.signing_refused.startswith("Signing refused: Intended use › Care setting")


def test_after_the_chairs_confirmation_the_signoff_is_saved(store, stale):
    changed = changes_since_decision(store, stale.dossier)
    confirmed = save_as(store, ME, committee.confirm_decision(stale.dossier, "chair", REASON, changed),
                        "decision confirmed", expected_hash=stale.hash)
    assert confirmed.dossier.decision.confirmations[-1].changed == changed
    assert decision_view(store, stale.dossier.id).signing_refused is None
    signed = committee.sign(confirmed.dossier, "clinical lead", "Dr. Chen", confirmed.hash)
    after = save_as(store, ME, signed, "sign-off", expected_hash=confirmed.hash)
    assert after.version == confirmed.version + 1


def test_only_the_chair_confirms(home, store, stale):
    confirmed = committee.confirm_decision(stale.dossier, "chair", REASON)  # as a local chair ...
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text('mode = "oidc"\n[members]\n"lee@hospital.org" = ["editor"]\n')
    lee = oidc_identity({"is_logged_in": True, "iss": ISSUER, "sub": "lee@hospital.org",
                         "email": "lee@hospital.org", "name": "lee"})
    with pytest.raises(PermissionDenied, match="chair"):
        committee.confirm_decision(stale.dossier, "lee", REASON, identity=lee)
    with pytest.raises(PermissionDenied, match="chair"):  # ... saved by an editor: the door refuses
        save_as(store, lee, confirmed, "confirm", expected_hash=stale.hash)


def test_every_write_reports_its_version_to_the_open_receipt(store, stale):
    from evaluator.phi.attestation import AttestationInput
    from governance.scenarios.operations.deidentification import record_attestation

    with written_versions() as got:
        edited = save_as(store, ME, stale.dossier.model_copy(update={"owner": "Pharmacy"}), "owner",
                         expected_hash=stale.hash)
        same = save_as(store, ME, edited.dossier, "unchanged", expected_hash=edited.hash)
        updated = update_as(store, Actor.of(ME, name="chair"), stale.dossier.id,
                            lambda d: d.model_copy(update={"owner": "P2"}), note="owner again", action="edit")
        given = AttestationInput(attested_by="Dr. Lee", method="safe_harbor")
        attestation = given.for_file("0" * 64, "f.csv")
        record_attestation(store, attestation, stale.dossier.id,
                           actor=Actor.of(ME))  # returns the attestation
    attested = store.load(stale.dossier.id)
    assert [v.version for v in got] == [edited.version, edited.version, edited.version + 1, attested.version]
    assert same.hash == edited.hash and got[2].hash == updated.hash and got[2].parent_hash == edited.hash
    assert got[-1].hash == attested.hash and attested.dossier.deidentification
    outside = save_as(store, ME, attested.dossier.model_copy(update={"owner": "P3"}), "o",
                      expected_hash=attested.hash)
    assert outside.version == attested.version + 1 and got[-1].hash == attested.hash  # the receipt is closed
