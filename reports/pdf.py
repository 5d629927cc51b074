"""The dossier PDF: a reportlab renderer fed by the report model, returning bytes.

Shaped like pretix's invoice renderer: the stylesheet is built once (``reports.pdf_style``), the
document is a story of flowables (``reports.pdf_blocks`` turns each section into flowables), and
the page furniture (dossier id, version, full version hash, "page X of Y") is drawn in page
callbacks, so no section can forget it. "Of Y" needs the page count before the furniture is
drawn, so the canvas defers each page until the end (the usual numbered-canvas pattern). Every
page carrying the full SHA-256 makes a printed page traceable to one stored version.

The CHAI model-card XML is attached afterwards as custom document-info keys ``chaiMcXml`` and
``chaiMcSoftwareId`` (``reports.pdf_meta``), as the CHAI documentation asks.
"""

from __future__ import annotations

import io

from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from reports.model import Cover, Report, Section
from reports.pdf_blocks import section_flowables
from reports.pdf_meta import embed_chai
from reports.pdf_onepage import one_page
from reports.pdf_style import (
    FRAME_WIDTH,
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    MUTED,
    PAGE,
    RULE,
    fonts,
    stylesheet,
    text,
)
from reports.plain_text import xml_safe


class _NumberedCanvas(Canvas):
    """Defers each page so the footer can say "page X of Y"."""

    def __init__(self, *args, furniture=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._pages: list[dict] = []
        self._furniture = furniture

    def showPage(self):  # noqa: N802 (reportlab's name)
        self._pages.append(dict(self.__dict__))
        self._startPage()

    def save(self):
        total = len(self._pages)
        for state in self._pages:
            self.__dict__.update(state)
            if self._furniture is not None:
                self._furniture(self, total)
            super().showPage()
        super().save()


def _furniture(cover: Cover):
    regular, _ = fonts()

    def draw(canvas: Canvas, total: int) -> None:
        width, height = PAGE
        canvas.saveState()
        canvas.setFont(regular, 7.5)
        canvas.setFillColor(MUTED)
        canvas.setStrokeColor(RULE)
        top = height - MARGIN_TOP + 8
        canvas.drawString(MARGIN_X, top + 4,
                          f"MedAssure governance dossier {cover.dossier_id} · version {cover.version}")
        canvas.drawRightString(width - MARGIN_X, top + 4, xml_safe(cover.title)[:70])
        canvas.line(MARGIN_X, top, width - MARGIN_X, top)
        bottom = MARGIN_BOTTOM - 12
        canvas.line(MARGIN_X, bottom + 9, width - MARGIN_X, bottom + 9)
        canvas.drawString(MARGIN_X, bottom, f"Version hash (SHA-256) {cover.version_hash}")
        canvas.drawRightString(width - MARGIN_X, bottom, f"Page {canvas.getPageNumber()} of {total}")
        canvas.restoreState()

    return draw


class _DossierDoc(SimpleDocTemplate):
    """Adds a PDF bookmark for every section heading."""

    def afterFlowable(self, flowable: Flowable) -> None:  # noqa: N802 (reportlab's name)
        title = getattr(flowable, "outline_title", None)
        if title:
            key = f"s{id(flowable)}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(title, key, level=0)


def cover_flowables(report: Report) -> list[Flowable]:
    """The cover: title, the version it binds to, the decision, and the contents."""
    styles, c = stylesheet(), report.cover
    rows = [
        ("Dossier", c.dossier_id), ("Version", str(c.version)), ("Version hash (SHA-256)", c.version_hash),
        ("Previous version hash", c.parent_hash or "none (first version)"),
        ("Saved", f"{c.date:%Y-%m-%d %H:%M} UTC by {c.author}"), ("Owner", c.owner), ("Status", c.status),
        ("Risk tier", c.risk_tier), ("Decision", c.decision),
        ("Decision date", f"{c.decision_date:%Y-%m-%d}" if c.decision_date else "—"),
        *([("Monitoring (live)", c.monitoring)] if c.monitoring else []),
    ]
    facts = Table([[Paragraph(text(k), styles["cover_label"]), Paragraph(text(v), styles["cover_value"])]
                   for k, v in rows], colWidths=[0.3 * FRAME_WIDTH, 0.7 * FRAME_WIDTH], hAlign="LEFT")
    facts.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                               ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
                               ("TOPPADDING", (0, 0), (-1, -1), 4), ("BOTTOMPADDING", (0, 0), (-1, -1), 4)]))
    flags = [Paragraph(text("Read first"), styles["h2"])] if c.flags else []
    flags += [Paragraph(text(f), styles["bullet"], bulletText="!") for f in c.flags]
    contents = [Paragraph(text(f"{i}. {s.title}" + ("" if s.recorded else " (not recorded yet)")),
                          styles["body"]) for i, s in enumerate(report.sections(), start=1)]
    return [
        Spacer(1, 30), Paragraph("Governance dossier", styles["subtitle"]),
        Paragraph(text(c.title), styles["title"]), Spacer(1, 12), facts, Spacer(1, 10),
        Paragraph(text("This report is bound to the version hash above. Any change to the dossier creates a "
                       "new version with a different hash; sign-offs apply to the hash they name."),
                  styles["small"]),
        Spacer(1, 10), *flags,
        Spacer(1, 16), Paragraph("Contents", styles["h2"]), *contents, PageBreak(),
    ]


def render_pdf(report: Report, chai_xml: str | None = None, *, charts: bool = True) -> bytes:
    """The dossier PDF as bytes.

    Args:
        report: the report model (``reports.build.build_report``).
        chai_xml: the CHAI model-card XML to embed in the document info (None: not embedded).
        charts: draw the charts (False only for timing the document without them).

    Example:
        >>> pdf = render_pdf(build_report(version), chai_model_card_xml(version))  # doctest: +SKIP
        >>> pdf[:5]  # doctest: +SKIP
        b'%PDF-'
    """
    story = [one_page(report.memo), PageBreak()] if report.memo is not None else []  # page 1: the memo
    story += cover_flowables(report)
    for number, section in enumerate(report.sections(), start=1):
        if not charts and section.charts:
            section = section.model_copy(update={"charts": []})
        story += section_flowables(number, section)
    out = io.BytesIO()
    c = report.cover
    doc = _DossierDoc(out, pagesize=PAGE, leftMargin=MARGIN_X, rightMargin=MARGIN_X, topMargin=MARGIN_TOP,
                      bottomMargin=MARGIN_BOTTOM, title=f"{xml_safe(c.title)} ({c.dossier_id} v{c.version})",
                      author=c.owner, subject=f"MedAssure governance dossier, version hash {c.version_hash}",
                      creator="MedAssure", keywords=f"dossier={c.dossier_id}; version={c.version}; "
                                                    f"sha256={c.version_hash}")
    furniture = _furniture(report.cover)
    doc.build(story, canvasmaker=lambda *a, **k: _NumberedCanvas(*a, furniture=furniture, **k))
    pdf = out.getvalue()
    return embed_chai(pdf, chai_xml) if chai_xml is not None else pdf


def render_one_page_pdf(section: Section, cover: Cover) -> bytes:
    """A one-page PDF of ``section`` (the model-facts label) with the dossier's page furniture.

    Example:
        >>> pdf = render_one_page_pdf(label_section(facts), report.cover)  # doctest: +SKIP
        >>> pdf[:5]  # doctest: +SKIP
        b'%PDF-'
    """
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=PAGE, leftMargin=MARGIN_X, rightMargin=MARGIN_X,
                            topMargin=MARGIN_TOP, bottomMargin=MARGIN_BOTTOM, creator="MedAssure",
                            title=f"{xml_safe(section.title)} ({cover.dossier_id} v{cover.version})",
                            subject=f"MedAssure, version hash {cover.version_hash}")
    furniture = _furniture(cover)
    doc.build([one_page(section)], canvasmaker=lambda *a, **k: _NumberedCanvas(*a, furniture=furniture, **k))
    return out.getvalue()
