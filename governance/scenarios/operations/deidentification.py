"""Recording a de-identification attestation, and linking it to a dossier when there is one.

Why here: the attestation itself is an evaluator record (``evaluator.phi.attestation``), kept in
its own table so the PHI gate finds it by the file's SHA-256 on any later pass (a second model, a
jury, a re-evaluation). A committee also needs to *see* it where it decides: so when it is recorded
for a dossier it is appended to the dossier too (a new version, noted as such), which the Run
evidence page and the PDF show. The CLI (``--deidentified-by``) and the page call the same function.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evaluator.phi.attestation import AttestationInput, DeidentificationAttestation
from evaluator.runs.request import file_sha256
from evaluator.scenarios.store import ScenarioVersion
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as


class DeidentificationError(ValueError):
    """An attestation that cannot be recorded, with a message for the person who gave it."""


def record_attestation(store: DossierStorage, attestation: DeidentificationAttestation,
                       dossier_id: str | None = None, *,
                       actor: Actor | None = None) -> DeidentificationAttestation:
    """Store the attestation and, when a dossier is named, append it to the dossier (a new version).

    ``actor`` is who records it (default: the local person the attestation names); the version's author
    is the attestation's ``attested_by``.

    Raises:
        DossierNotFound: no such dossier.

    Example:
        >>> a = AttestationInput(attested_by="Dr. Lee", method="safe_harbor").for_file("0" * 64, "f.csv")
        >>> record_attestation(store, a, "D-1").attestation_id == a.attestation_id  # doctest: +SKIP
        True
    """
    actor = actor or Actor.named(attestation.attested_by)
    require(actor.identity, "editor", "record a de-identification attestation", dossier_id)
    if dossier_id:
        store.load(dossier_id)  # a missing dossier fails before anything is stored
    store.attestations.record(attestation, dossier_id)
    if dossier_id:
        def add(current: Dossier) -> Dossier:
            kept = [a for a in current.deidentification if a.attestation_id != attestation.attestation_id]
            return current.model_copy(update={"deidentification": [*kept, attestation]})

        update_as(store, replace(actor, name=attestation.attested_by), dossier_id, add,
                  note=f"de-identification attested: {attestation.subject} ({attestation.method})",
                  action="record a de-identification attestation")
    return attestation


def attest_file(store: DossierStorage, path: str | Path, given: AttestationInput,
                dossier_id: str | None = None, *,
                actor: Actor | None = None) -> DeidentificationAttestation:
    """Attest that the file at ``path`` is de-identified (bound to its SHA-256).

    Raises:
        DeidentificationError: no such file.
    """
    digest = file_sha256(path)
    if digest is None:
        raise DeidentificationError(f"{path}: no such file to attest")
    return record_attestation(store, given.for_file(digest, Path(path).name), dossier_id, actor=actor)


def attest_scenario(store: DossierStorage, version: ScenarioVersion, given: AttestationInput,
                    dossier_id: str | None = None, *,
                    actor: Actor | None = None) -> DeidentificationAttestation:
    """Attest that a local scenario version's cases are de-identified (bound to its content hash)."""
    source = f", from {version.source_name}" if version.source_name else ""
    subject = f"local scenario {version.scenario_id} version {version.version} ({version.name}{source})"
    return record_attestation(store, given.for_file(version.hash, subject), dossier_id or version.dossier_id,
                              actor=actor)
