"""Everything the Report page and ``medassure report`` hand out for one dossier version.

Why a bundle of deferred files: the preview needs only the report model, while a PDF takes a
second or two (charts). Each download is a function that renders its file when asked, so the
page can offer five buttons without rendering five files on every rerun, and the CLI renders
only the files it was asked for. File names carry the dossier id, version and short hash, so a
file on someone's desktop still says which version it is. CSVs start with a UTF-8 byte-order
mark, which spreadsheet programs need to read accented names and dashes correctly.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from governance.decision.model_facts import model_facts
from governance.dossier.practice import refuse_practice
from governance.dossier.storage import DossierStorage
from governance.dossier.store import DossierVersion
from governance.procurement.operations import measured_costs
from governance.rules.assessment import assessment_and_recommendation
from reports.build import build_report
from reports.chai import chai_model_card_xml
from reports.exports import evidence_csv, export_json, hti1_csv
from reports.model import Report, Section
from reports.pdf import render_one_page_pdf, render_pdf
from reports.runs import run_ids, run_records
from reports.sections_candidates import candidates_sections
from reports.sections_memo import label_section
from reports.sections_reevaluation import reevaluation_sections
from reports.signing import ExportSigner


@dataclass(frozen=True)
class Download:
    """One file the user can take away."""

    kind: str
    """``pdf``, ``label``, ``json``, ``chai``, ``hti1`` or ``evidence``."""
    label: str
    """Button label."""
    file_name: str
    """Suggested file name (dossier id, version, short hash)."""
    mime: str
    """MIME type."""
    make: Callable[[], bytes]
    """Renders the file's bytes when called."""


@dataclass(frozen=True)
class ReportBundle:
    """A version, its report model and its downloads.

    Example:
        >>> bundle = report_bundle(store, "D-demo-portal")          # doctest: +SKIP
        >>> [d.kind for d in bundle.downloads]                       # doctest: +SKIP
        ['pdf', 'label', 'json', 'chai', 'hti1', 'evidence']
    """

    version: DossierVersion
    """The stored version the report is bound to."""
    report: Report
    """The report model (the preview renders it)."""
    downloads: list[Download]
    """The files, rendered on demand."""

    def download(self, kind: str) -> Download:
        """The download of this kind (KeyError naming the kinds when unknown)."""
        for d in self.downloads:
            if d.kind == kind:
                return d
        raise KeyError(f"no download {kind!r}; kinds: {[d.kind for d in self.downloads]}")

    def write(self, kind: str, path: str | Path) -> Path:
        """Render the file of this kind and write it to ``path`` (a folder gets the suggested file name).

        Example:
            >>> bundle = report_bundle(store, "D-demo-portal")          # doctest: +SKIP
            >>> bundle.write("pdf", "/tmp").name                         # doctest: +SKIP
            'D-demo-portal-v7-1a2b3c4d.pdf'
        """
        download = self.download(kind)
        target = Path(path)
        if target.is_dir():
            target = target / download.file_name
        write_atomically(target, download.make())
        return target


def write_atomically(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to a temporary file beside ``path``, sync it, then rename it onto ``path``.

    Why: written in place, a full disk left a 0-byte PDF that looked like a report. Now ``path`` holds
    either the whole file or what it held before; the temporary file is removed on failure. The file is
    created mode 0600 (a dossier may name patients' cases).

    Raises:
        OSError: the write failed (``filename`` is ``path``); nothing was left behind.

    Example:
        >>> import tempfile; p = Path(tempfile.mkdtemp()) / "x.pdf"
        >>> write_atomically(p, b"%PDF-").read_bytes()
        b'%PDF-'
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror or str(exc), str(target)) from None
    return target


def live_monitoring_line(store: DossierStorage, v: DossierVersion) -> str | None:
    """The dossier's monitoring status now, in one line, for the cover; None before an approval.

    Read from the stored feed when the file is made (the live status is not part of any version).
    """
    from governance.monitoring.operations.feed import MonitoringError, monitoring_status
    from reports.monitoring_text import one_line

    decision = v.dossier.decision
    if decision is None or decision.outcome == "reject":
        return None
    try:
        return one_line(monitoring_status(store, v.dossier.id))
    except MonitoringError:
        return None


def report_bundle(store: DossierStorage, dossier_id: str, version: int | None = None,
                  extra_sections: list[Section] | None = None,
                  signer: ExportSigner | None = None) -> ReportBundle:
    """Load a version (the latest by default), build its report and prepare its downloads.

    With a ``signer`` (the hospital's export key, ``reports.signing``), the CHAI model card carries an
    XML signature; the PDF's embedded copy of the card stays unsigned (the PDF is not the signed file).

    A practice copy (``governance.dossier.practice``) is refused whole, not watermarked: its JSON and
    zip re-import and its CHAI card is read by machines, and neither has a page to carry a mark.

    Raises:
        DossierNotFound: no such dossier or version.
        PracticeRefused: the dossier is a practice copy.

    Example:
        >>> bundle = report_bundle(store, "D-demo-portal")  # doctest: +SKIP
        >>> bundle.download("pdf").make()[:5]  # doctest: +SKIP
        b'%PDF-'
    """
    v = store.load(dossier_id, version)
    refuse_practice(v.dossier, "be exported as the record (PDF, JSON, CHAI card, CSV, label or bundle)")
    assessed = assessment_and_recommendation(v.dossier)  # once per bundle: every section and export reads it
    extra = [*(extra_sections or []), *candidates_sections(v.dossier, assessed),
             *reevaluation_sections(v.dossier)]
    report = build_report(v, runs=run_records(store.runs, run_ids(v.dossier)), extra_sections=extra,
                          measured=measured_costs(store, v.dossier), chain=store.verify_chain(dossier_id),
                          assessed=assessed)
    if (line := live_monitoring_line(store, v)) is not None:
        report = report.model_copy(update={"cover": report.cover.model_copy(update={"monitoring": line})})
    stem = f"{v.dossier.id}-v{v.version}-{v.hash[:8]}"

    def chai() -> bytes:
        card = chai_model_card_xml(v, assessed).encode("utf-8")
        return signer.sign_xml(card) if signer is not None else card

    def label() -> bytes:
        facts = model_facts(v.dossier, assessed[1], v.version, v.hash)
        return render_one_page_pdf(label_section(facts), report.cover)

    return ReportBundle(version=v, report=report, downloads=[
        Download("pdf", "Dossier PDF", f"{stem}.pdf", "application/pdf",
                 lambda: render_pdf(report, chai_model_card_xml(v, assessed))),
        Download("label", "Model-facts label PDF (one page, for staff)", f"{stem}-label.pdf",
                 "application/pdf", label),
        Download("json", "Dossier JSON (re-importable)", f"{stem}.json", "application/json",
                 lambda: export_json(v).encode("utf-8")),
        Download("chai", "CHAI model card XML" + (" (signed)" if signer is not None else ""),
                 f"{stem}-chai.xml", "application/xml", chai),
        Download("hti1", "HTI-1 source attributes CSV", f"{stem}-hti1.csv", "text/csv",
                 lambda: hti1_csv(v.dossier).encode("utf-8-sig")),
        Download("evidence", "Evidence CSV", f"{stem}-evidence.csv", "text/csv",
                 lambda: evidence_csv(v.dossier.evidence).encode("utf-8-sig")),
    ])
