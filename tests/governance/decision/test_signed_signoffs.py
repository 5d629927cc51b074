"""Sign-offs are keyed signatures: an edited export cannot carry valid ones; one signer, one required role."""

from __future__ import annotations

import json
import os
import stat

import pytest

from governance.decision import committee
from governance.decision.signoff import add_signoff, signoff_status
from governance.dossier.content_hash import signable_hash
from governance.dossier.store import Store
from governance.identity.access import PermissionDenied
from governance.identity.keys import key_path, signing_key
from governance.rules.records import AcceptancePolicy, MinNRule
from reports.exports import export_json, import_json
from tests.governance.policy_fixtures import dossier, ev

ROLES = ["clinical lead", "CMIO / clinical informatics", "privacy / compliance", "procurement"]
SIGNERS = ["Dr. Chen", "Dr. Osei", "J. Okafor", "P. Smith"]


def _decided(roles=ROLES):
    d = dossier([ev(0.9, 0.85, 0.95)], policy=AcceptancePolicy(rules=[MinNRule(
        id="n", threshold=10, rationale="a committee's reason for this bar")]))
    return committee.decide(d, "approve_with_conditions", "all rules pass on this evidence",
                            ["every draft is reviewed"], by="chair", required_roles=roles,
                            override_gaps="a test dossier: the plan is not what these tests check")


def _fully_signed():
    d = _decided()
    for role, name in zip(ROLES, SIGNERS, strict=True):
        d = committee.sign(d, role, name, version_hash="v1")
    return d


def test_a_signoff_records_its_signer_and_a_signature_that_checks():
    d = _fully_signed()
    s = d.signoffs[0]
    assert (s.subject, s.issuer, s.auth) == ("Dr. Chen", "local", "local, unauthenticated")
    assert len(s.signature) == 64 and s.key_id
    status = signoff_status(d)
    assert status.complete and status.unverified == []
    assert {r.signature for r in status.roles} == {"valid"}


def test_an_altered_signoff_is_forged_and_another_key_leaves_it_unverified(monkeypatch):
    d = _fully_signed()
    renamed = d.model_copy(update={"signoffs": [d.signoffs[0].model_copy(update={"name": "Mallory"}),
                                                *d.signoffs[1:]]})
    first = signoff_status(renamed).roles[0]
    assert not first.valid and first.signature == "forged" and "altered" in first.reason
    monkeypatch.setenv("MEDASSURE_SIGNING_KEY", "another deployment's key")
    status = signoff_status(d)
    assert not status.complete and len(status.unverified) == 4
    assert all(not r.valid and r.signature == "unverified" and "unverified" in r.reason for r in status.roles)


def test_the_key_file_is_created_0600_once_and_reused(home, monkeypatch):
    monkeypatch.delenv("MEDASSURE_SIGNING_KEY")
    key = signing_key()
    assert key_path() == home / "signing.key" and len(key) == 64
    assert stat.S_IMODE(os.stat(key_path()).st_mode) == 0o600
    assert signing_key() == key


@pytest.mark.parametrize("import_key", ["the same deployment's key", "a fresh home's own key"])
def test_an_edited_export_with_recomputed_hashes_imports_with_no_valid_signoff(tmp_path, monkeypatch,
                                                                               import_key):
    monkeypatch.setenv("MEDASSURE_SIGNING_KEY", "site A signing key")
    source = Store.open(tmp_path / "a" / "medassure.duckdb")
    version = source.save(_fully_signed(), author="chair")
    assert signoff_status(version.dossier).complete
    doc = json.loads(export_json(version))

    # The attack from the issue: loosen the use, flip the decision, recompute every hash anyone can.
    content = doc["dossier"]
    content["intended_use"]["human_oversight"] = "none"
    content["intended_use"]["decision_role"] = "replaces"
    content["decision"]["outcome"] = "approve"
    content["decision"]["conditions"] = []
    from governance.dossier.record import Dossier

    edited = Dossier.model_validate(content)
    forged = [s.model_copy(update={"signed_hash": signable_hash(edited)}) for s in edited.signoffs]
    edited = edited.model_copy(update={"signoffs": forged})
    doc["dossier"] = json.loads(edited.canonical_json())
    doc["hash"] = edited.content_hash()

    if import_key != "the same deployment's key":
        monkeypatch.setenv("MEDASSURE_SIGNING_KEY", "site B signing key")
    target = Store.open(tmp_path / "b" / "medassure.duckdb")
    imported = import_json(target, json.dumps(doc), author="auditor")
    status = signoff_status(imported.dossier)
    assert sum(r.valid for r in status.roles) == 0 and not status.complete
    assert len(status.unverified) == 4
    source.close()
    target.close()


def test_one_identity_signs_at_most_one_required_role():
    d = committee.sign(_decided(), "clinical lead", "Mallory", version_hash="v1")
    with pytest.raises(PermissionDenied, match="separation of duties"):
        committee.sign(d, "privacy / compliance", "Mallory", version_hash="v1")
    # Recorded around the check (an old record, or written directly): the second role does not count.
    sneaked = add_signoff(d, "privacy / compliance", "Mallory", at=d.signoffs[0].signed_at, version_hash="v1")
    roles = {r.role: r for r in signoff_status(sneaked).roles}
    assert roles["clinical lead"].valid and not roles["privacy / compliance"].valid
    assert "separation of duties" in roles["privacy / compliance"].reason


def test_separation_of_duties_can_be_switched_off_per_deployment(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text("separation_of_duties = false\n")
    d = committee.sign(_decided(ROLES[:2]), ROLES[0], "Dr. Chen", version_hash="v1")
    d = committee.sign(d, ROLES[1], "Dr. Chen", version_hash="v1")
    assert signoff_status(d).complete
