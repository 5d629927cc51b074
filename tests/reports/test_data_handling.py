"""De-identification attestations in the report: a data-handling line in the Evidence section and the PDF."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

from pypdf import PdfReader

from evaluator.phi.attestation import DeidentificationAttestation
from reports.build import build_report
from reports.pdf import render_pdf
from tests.reports.conftest import as_version

ATTESTED = DeidentificationAttestation(
    attested_by="Dr. Privacy", method="expert_determination", sha256="3f" * 32, subject="ward_notes.csv",
    attested_at=datetime(2026, 11, 30, 9, 15, tzinfo=UTC), note="report DE-2026-11")


def test_no_attestation_leaves_the_content_hash_as_it_was(base_version):
    dossier = base_version.dossier
    assert "deidentification" not in json.loads(dossier.canonical_json())  # so old hashes still verify
    assert dossier.content_hash() == base_version.hash
    with_one = dossier.model_copy(update={"deidentification": [ATTESTED]})
    assert with_one.content_hash() != dossier.content_hash()
    assert type(dossier).model_validate_json(with_one.model_dump_json()).deidentification == [ATTESTED]


def test_the_evidence_section_and_the_pdf_show_the_attestation(base_version):
    dossier = base_version.dossier.model_copy(update={"deidentification": [ATTESTED]})
    version = as_version(dossier, base_version.version + 1, base_version.hash)
    report = build_report(version)
    line = ("Data handling (not covered by the sign-offs): ward_notes.csv (SHA-256 3f3f3f3f3f3f…): "
            "de-identified by expert determination "
            "(HIPAA 164.514(b)(1)), attested by Dr. Privacy on 2026-11-30 09:15 UTC; report DE-2026-11.")
    assert line in report.evidence.paragraphs
    assert not any("Data handling" in p for p in build_report(base_version).evidence.paragraphs)
    pdf = render_pdf(report, charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "attested by Dr. Privacy on 2026-11-30 09:15 UTC" in text and "ward_notes.csv" in text
