"""De-identification attestations: a person's recorded statement that a file of cases holds no PHI.

Why a record of its own: the PHI gate (``evaluator.runs.phi_gate``) blocks likely identifiers bound
for an endpoint that is not approved for PHI. A detector errs towards flagging, so cases that were
de-identified properly (HIPAA Safe Harbor, 45 CFR 164.514(b)(2), or an expert determination,
164.514(b)(1)) may still look identifying to it ("Wells", a synthetic name). The way past the gate
is then a statement someone answers for: who, when, by which method, about which file, bound to
the file's SHA-256 so that a changed file is not covered. Attestations are kept in their own table
(``AttestationStore``) so that a run without a dossier keeps its own, and later passes over the same
cases (a jury, a re-evaluation) find it by hash; one recorded with a dossier is also copied into the
dossier (``Dossier.deidentification``), which its pages and PDF show.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import ClassVar, Literal

import duckdb
from pydantic import BaseModel, ConfigDict, Field

from evaluator.storage.db import apply_migrations
from evaluator.storage.record_base import OmitNewDefaults

DeidentificationMethod = Literal["safe_harbor", "expert_determination"]
METHOD_LABELS = {
    "safe_harbor": "HIPAA Safe Harbor (the 18 identifier kinds removed)",
    "expert_determination": "expert determination (HIPAA 164.514(b)(1))",
}


def new_attestation_id() -> str:
    """``A-`` and 8 hex digits."""
    return f"A-{secrets.token_hex(4)}"


class DeidentificationAttestation(OmitNewDefaults):
    """Who attested that which file of cases is de-identified, when, and by which method.

    Example:
        >>> a = DeidentificationAttestation(attested_by="Dr. Lee", method="safe_harbor",
        ...                                 sha256="ab" * 32, subject="cases.csv")
        >>> a.kind, a.describe()[:40]
        ('deidentification', 'cases.csv (SHA-256 abababababab…): de-id')
    """

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)
    _omit_at_default: ClassVar[tuple[str, ...]] = ()

    kind: Literal["deidentification"] = "deidentification"
    """Record kind."""
    attestation_id: str = Field(default_factory=new_attestation_id)
    """Stable id, e.g. ``A-3f9a1c2b``."""
    attested_by: str = Field(min_length=1, max_length=200)
    """The person who answers for the de-identification."""
    attested_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    """When it was recorded (timezone-aware)."""
    method: DeidentificationMethod
    """Safe Harbor or expert determination."""
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    """SHA-256 of the file (or of a local scenario version's cases) the statement covers."""
    subject: str = Field(min_length=1, max_length=500)
    """What the hash is of, in words: the file name, or the local scenario and version."""
    note: str = Field(default="", max_length=2000)
    """Optional detail (who made the expert determination, reference of the report)."""

    def describe(self) -> str:
        """One line for pages and the PDF."""
        when = self.attested_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
        return (f"{self.subject} (SHA-256 {self.sha256[:12]}…): de-identified by "
                f"{METHOD_LABELS[self.method]}, attested by {self.attested_by} on {when}"
                + (f"; {self.note}" if self.note else ""))


MIGRATIONS = [
    """
    CREATE TABLE phi_attestations (
        attestation_id VARCHAR PRIMARY KEY, sha256 VARCHAR NOT NULL, dossier_id VARCHAR,
        record JSON NOT NULL, recorded_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX phi_attestations_by_hash ON phi_attestations (sha256);
    """,
]


class AttestationStore:
    """De-identification attestations in the app's one DuckDB file (append-only).

    Example:
        >>> s = AttestationStore(duckdb.connect())
        >>> a = s.record(DeidentificationAttestation(attested_by="x", method="safe_harbor",
        ...              sha256="0" * 64, subject="f.csv"))
        >>> s.find(["0" * 64]).attestation_id == a.attestation_id, s.find(["1" * 64])
        (True, None)
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        apply_migrations(con, "phi_attestations", MIGRATIONS)

    def record(self, attestation: DeidentificationAttestation,
               dossier_id: str | None = None) -> DeidentificationAttestation:
        """Store one attestation (linked to a dossier when given); returns it."""
        self.con.execute(
            "INSERT INTO phi_attestations (attestation_id, sha256, dossier_id, record, recorded_at) "
            "VALUES (?, ?, ?, ?, now())",
            [attestation.attestation_id, attestation.sha256, dossier_id,
             json.dumps(attestation.model_dump(mode="json"), sort_keys=True)],
        )
        return attestation

    def find(self, hashes: Iterable[str | None]) -> DeidentificationAttestation | None:
        """The newest attestation covering any of these SHA-256 values, or None."""
        wanted = sorted({h for h in hashes if h})
        if not wanted:
            return None
        row = self.con.execute(
            f"SELECT record FROM phi_attestations WHERE sha256 IN ({', '.join('?' * len(wanted))}) "
            "ORDER BY recorded_at DESC LIMIT 1", wanted).fetchone()
        return DeidentificationAttestation.model_validate(json.loads(row[0])) if row else None

    def for_dossier(self, dossier_id: str) -> list[DeidentificationAttestation]:
        """Attestations recorded with this dossier, oldest first."""
        rows = self.con.execute(
            "SELECT record FROM phi_attestations WHERE dossier_id = ? ORDER BY recorded_at", [dossier_id]
        ).fetchall()
        return [DeidentificationAttestation.model_validate(json.loads(r[0])) for r in rows]


class AttestationInput(BaseModel):
    """What a person gives to attest (the hash and subject come from the file)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attested_by: str = Field(min_length=1, max_length=200)
    """Who answers for it."""
    method: DeidentificationMethod
    """Safe Harbor or expert determination."""
    note: str = Field(default="", max_length=2000)
    """Optional detail."""

    def for_file(self, sha256: str, subject: str) -> DeidentificationAttestation:
        """The attestation of this input about one file (or scenario version)."""
        return DeidentificationAttestation(attested_by=self.attested_by.strip(), method=self.method,
                                           note=self.note.strip(), sha256=sha256, subject=subject)
