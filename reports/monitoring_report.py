"""The monthly monitoring report: one calendar month of production against the committee's bars, as a PDF.

Shaped like the dossier PDF (``reports.pdf``): a report model of generic sections (facts, tables,
charts) built by a pure function of what the monitoring operation gathered for the month
(``governance.monitoring.MonitoringMonth``: the record read, the status now, the month's stored signals;
``monthly_sections``), laid out by the same section renderer (``reports.pdf_blocks``), with page
furniture drawn in callbacks (dossier, month, the version hash the record was read from, page X of Y).
``write_monthly_report`` writes the PDF to a temporary file and renames it, and with the hospital's
export key beside it a detached signature (``FILE.pdf.sig.json``, what ``medassure verify-export``
checks), as the other exports are signed.

A month's signals are those the record stored when they were raised, in their words then, so a later
change of the plan does not rewrite a past month's report; the status is recomputed only to show "now".
Both are selected by monitoring (``governance.monitoring.month``), not here: this module only renders.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from reportlab.lib.colors import HexColor
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

from governance.dossier.practice import PRACTICE_MARK, refuse_practice
from governance.dossier.storage import DossierVersion
from governance.monitoring.month import MonitoringMonth
from governance.monitoring.records import FeedImport, SignalAction
from reports.bundle import write_atomically
from reports.flags import DEMO_MARK
from reports.model import Fact, Section, Table
from reports.monitoring_charts import status_charts
from reports.monitoring_text import (
    EVENT_SEVERITY_LABELS,
    KIND_LABELS,
    banner,
    level_label,
    metric_label,
    month_rows,
    signal_rows,
)
from reports.pdf import _NumberedCanvas
from reports.pdf_blocks import section_flowables
from reports.pdf_style import MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, MUTED, PAGE, RULE, fonts, stylesheet, text
from reports.plain_text import xml_safe
from reports.signing import DETACHED_SUFFIX, ExportSigner

PRACTICE_RED = HexColor("#B3261E")
"""The practice mark's colour."""


def _in_month(at: datetime | None, month: str) -> bool:
    return at is not None and f"{at:%Y-%m}" == month


def _when(at: datetime | None) -> str:
    return "—" if at is None else f"{at:%Y-%m-%d %H:%M} UTC"


def _actions_rows(version: DossierVersion, month: str, signal_ids: set[str]) -> list[list[str]]:
    """What was done about the month's signals: every acknowledgement and resolution, with who and why."""
    rows = []
    for e in version.dossier.monitoring:
        if isinstance(e, SignalAction) and e.signal_id in signal_ids:
            what = "acknowledged" if e.kind == "signal_ack" else "resolved"
            why = e.reason or ""
            if e.reevaluation_id:
                why = (why + " " if why else "") + f"(re-evaluation {e.reevaluation_id})"
            who = e.by + (f" ({e.role})" if e.role else "") + (f", {e.auth}" if e.auth else ", named locally")
            rows.append([e.signal_id, what, _when(e.at), who, why or "—"])
    return rows


def _prompt_words(approved) -> str:
    """The approved prompt version and where it comes from, as the Monitoring page says it."""
    if approved.prompt_version is None:
        return "not recorded (not checked)"
    return f"{approved.prompt_version} (from {approved.prompt_source})" if approved.prompt_source \
        else approved.prompt_version


def monthly_sections(m: MonitoringMonth) -> list[Section]:
    """The report's sections for the month: status, the month's figures, charts, signals and what was done,
    safety events, and the imports the figures come from.

    A pure function of what monitoring gathered for the month (no clock, no store).
    """
    status, version, month = m.status, m.version, m.month
    d = version.dossier
    level, todo = banner(status)
    facts = [Fact(label="Dossier", value=f"{d.title} ({d.id})"),
             Fact(label="Candidate watched", value=status.approved.candidate),
             Fact(label="Approved as", value=status.approved.model or "not recorded"),
             Fact(label="Approved prompt version", value=_prompt_words(status.approved)),
             Fact(label="Status now", value=f"{level} (computed {_when(status.computed_at)})"),
             Fact(label="What to do now", value=todo),
             Fact(label="Stored production outputs", value=f"{status.rows:,}"),
             Fact(label="Bars from", value=status.plan_source)]
    if status.reevaluation_due is not None:
        facts.append(Fact(label="Scheduled re-evaluation due", value=f"{status.reevaluation_due:%Y-%m-%d}"))
    paragraphs = [f"{DEMO_MARK}: the production feed of this dossier is simulated (governance/demo/"
                  "monitoring_feed.py); no real output or patient is behind these figures."] \
        if DEMO_MARK in d.canonical_json() else []
    paragraphs += list(status.notes)
    out = [Section(key="status", title=f"Monitoring status for {month}", paragraphs=paragraphs, facts=facts)]

    rows = [r for r in month_rows(status) if r["Month"] == month]
    figures = Section(key="figures", title="The month against the bars", recorded=bool(rows),
                      paragraphs=[] if rows else [f"Not recorded: the feed holds no output of {month}."])
    if rows:
        columns = list(rows[0])
        figures = figures.model_copy(update={"tables": [Table(columns=columns, rows=[[r[c] for c in columns]
                                                                                     for r in rows],
                                                              note="Shares with 95% Wilson intervals; a "
                                                                   "month is past the bar when its whole "
                                                                   "interval is.")]})
    out.append(figures)

    upto = status.model_copy(update={"metrics": {k: [m for m in v if m.month <= month]
                                                 for k, v in status.metrics.items()}})
    charts = status_charts(upto)
    out.append(Section(key="charts", title="Control charts", charts=charts, recorded=bool(charts),
                       paragraphs=[] if charts else ["Not recorded: no metric could be charted yet."]))

    # The month's signals as the record stored them when they were raised, not recomputed (selected by
    # monitoring: ``MonitoringMonth.signals``); only "now" is recomputed (``status``).
    mine, unrecorded = m.signals, m.unrecorded
    ids = {s.id for s in mine}
    cols = ["Signal", "Why", "Level", "State", "About", "First seen", "Owner", "Respond by", "What was seen"]
    paragraphs = ["As recorded when each signal was raised (its level, owner, deadline and what was seen "
                  "then); the state follows what was done since."] if mine else \
        [f"No signal was raised in {month} and none was open."]
    if unrecorded:
        paragraphs.append("Computed now with the current plan, not in the record (the next import records "
                          "it): " + "; ".join(f"{s.id} ({KIND_LABELS.get(s.kind, s.kind).lower()}, "
                                              f"{metric_label(s.metric)})" for s in unrecorded) + ".")
    signals = Section(key="signals", title="Signals and what was done", paragraphs=paragraphs,
                      tables=[Table(columns=cols, rows=[[r[c] for c in cols] for r in signal_rows(mine)],
                                    widths=[1.6, 1.35, 1.0, 1.05, 1.35, 1.25, 1.3, 1.25, 1.7])]
                      if mine else [])
    done = _actions_rows(version, month, ids)
    if done:
        signals = signals.model_copy(update={"tables": [*signals.tables, Table(
            title="What was done", columns=["Signal", "Action", "When", "Who", "Why"], rows=done,
            widths=[1.4, 1.2, 1.3, 2, 3])]})
    elif mine:
        signals = signals.model_copy(update={"paragraphs": [*signals.paragraphs,
                                                            "Nothing recorded yet about these signals."]})
    out.append(signals)

    events = [e for e in status.events if _in_month(e.occurred_at or e.at, month)]
    out.append(Section(key="events", title="Safety events", recorded=True,
                       paragraphs=[] if events else [f"No safety event was reported for {month}."],
                       tables=[Table(columns=["Event", "Reported", "By", "Severity", "What happened",
                                              "Outputs"],
                                     rows=[[e.id, _when(e.at), e.by,
                                            EVENT_SEVERITY_LABELS.get(e.severity, e.severity), e.description,
                                            ", ".join(e.output_ids) or "—"] for e in events],
                                     widths=[1.4, 1.3, 1.2, 0.8, 3.3, 1.3])] if events else []))

    imports = [e for e in d.monitoring if isinstance(e, FeedImport)]
    out.append(Section(key="imports", title="Where the figures come from", recorded=bool(imports),
                       paragraphs=["Every file imported into the feed, with its SHA-256, so each figure "
                                   "can be traced to the files behind it."] if imports else
                       ["Not recorded: no feed file was imported."],
                       tables=[Table(columns=["Import", "When", "By", "File", "SHA-256",
                                              "Rows new / in file"],
                                     rows=[[e.id, _when(e.at), e.by, e.file_name, e.file_sha256,
                                            f"{e.rows_added:,} / {e.rows_in_file:,}"] for e in imports],
                                     widths=[1.4, 1.3, 0.9, 1.9, 3.4, 1.1])] if imports else []))
    return out


def _furniture(version: DossierVersion, month: str):
    regular, _ = fonts()

    def draw(canvas, total: int) -> None:
        width, height = PAGE
        canvas.saveState()
        canvas.setFont(regular, 7.5)
        canvas.setFillColor(MUTED)
        canvas.setStrokeColor(RULE)
        top = height - MARGIN_TOP + 8
        canvas.drawString(MARGIN_X, top + 4,
                          f"MedAssure monthly monitoring report {version.dossier.id} · {month}")
        canvas.drawRightString(width - MARGIN_X, top + 4, xml_safe(version.dossier.title)[:70])
        canvas.line(MARGIN_X, top, width - MARGIN_X, top)
        bottom = MARGIN_BOTTOM - 12
        canvas.line(MARGIN_X, bottom + 9, width - MARGIN_X, bottom + 9)
        canvas.drawString(MARGIN_X, bottom,
                          f"Record read from version {version.version}, hash {version.hash}")
        canvas.drawRightString(width - MARGIN_X, bottom, f"Page {canvas.getPageNumber()} of {total}")
        if version.dossier.practice is not None:  # on every page, across the figures: never the record
            canvas.setFillColor(PRACTICE_RED)
            canvas.setFont(regular, 11)
            canvas.drawCentredString(width / 2, top + 16, PRACTICE_MARK)
            canvas.setFont(regular, 30)
            canvas.translate(width / 2, height / 2)
            canvas.rotate(35)
            canvas.setFillAlpha(0.18)
            canvas.drawCentredString(0, 0, PRACTICE_MARK)
        canvas.restoreState()

    return draw


def render_monthly_pdf(m: MonitoringMonth) -> bytes:
    """The monthly report as PDF bytes.

    Example:
        >>> pdf = render_monthly_pdf(monitoring_month(store, "D-demo-portal", "2026-10"))  # doctest: +SKIP
        >>> pdf[:5]  # doctest: +SKIP
        b'%PDF-'
    """
    status, version, month = m.status, m.version, m.month
    styles = stylesheet()
    level = level_label(status.status)
    story = [Spacer(1, 12), Paragraph("Monthly monitoring report", styles["subtitle"]),
             Paragraph(text(f"{version.dossier.title}: {month}"), styles["title"]),
             Paragraph(text(f"Status now: {level}. The figures, charts and signals of one calendar month "
                            "against the committee's bars, and what was done about each signal."),
                       styles["small"]), Spacer(1, 8)]
    for number, section in enumerate(monthly_sections(m), start=1):
        story += section_flowables(number, section)
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=PAGE, leftMargin=MARGIN_X, rightMargin=MARGIN_X,
                            topMargin=MARGIN_TOP, bottomMargin=MARGIN_BOTTOM,
                            title=f"Monitoring {version.dossier.id} {month}", author=version.dossier.owner,
                            subject=f"MedAssure monthly monitoring report, record hash {version.hash}",
                            creator="MedAssure")
    furniture = _furniture(version, month)
    doc.build(story, canvasmaker=lambda *a, **k: _NumberedCanvas(*a, furniture=furniture, **k))
    return out.getvalue()


@dataclass(frozen=True)
class WrittenReport:
    """What ``write_monthly_report`` wrote."""

    path: Path
    """The PDF."""
    size: int
    """Its bytes."""
    signature: Path | None
    """The detached signature beside it (None: no export key set)."""
    signed_by: str | None
    """The signing certificate's subject."""


def write_monthly_report(m: MonitoringMonth, out: str | Path, signer: ExportSigner | None = None
                         ) -> WrittenReport:
    """Render the month's report and write it to ``out`` (temporary file, then rename), signed when a
    signer is given (``out`` + ``.sig.json``, written the same way).

    A practice copy's report carries ``PRACTICE_MARK`` on every page and is never signed.

    Raises:
        OSError: the file could not be written (nothing is left behind).
        PracticeRefused: a signer was given for a practice copy.
    """
    if signer is not None:
        refuse_practice(m.version.dossier, "have its report signed")
    pdf = render_monthly_pdf(m)
    target = write_atomically(Path(out), pdf)
    signature = None
    if signer is not None:
        signature = write_atomically(target.with_name(target.name + DETACHED_SUFFIX),
                                     signer.sign_detached(pdf))
    return WrittenReport(path=target, size=len(pdf), signature=signature,
                         signed_by=signer.subject if signer is not None else None)


__all__ = ["WrittenReport", "metric_label", "monthly_sections", "render_monthly_pdf", "write_monthly_report"]
