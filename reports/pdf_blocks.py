"""Flowables for the generic blocks of a report section: paragraphs, facts, bullets, tables, charts.

Why every table cell is a Paragraph: a plain string in a reportlab Table never wraps, so one long
citation or hash would push the table past the page edge. Paragraph cells wrap (long words are
split) inside column widths scaled to the frame, never narrower than a header's longest word. A
row taller than the page continues on the next one (``splitInRow``), so no cell is ever cut, and a
long fact becomes running text. Long
tables repeat their header row on each page; a chart is kept on one page with its heading and
caption; a heading that would sit alone at the foot of a page moves to the next one
(CondPageBreak).
"""

from __future__ import annotations

import io

from reportlab.lib.utils import ImageReader
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import (
    CondPageBreak,
    Flowable,
    Image,
    KeepTogether,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from reports.model import Chart, Fact, Section
from reports.model import Table as TableData
from reports.pdf_style import FRAME_HEIGHT, FRAME_WIDTH, HEADER_FILL, MUTED, RULE, ZEBRA, stylesheet, text

CHART_MAX_HEIGHT = 0.62 * FRAME_HEIGHT
CSS_PX_TO_PT = 0.75  # Vega's pixels are CSS pixels (96 per inch); a point is 1/72 inch
PNG_SCALE = 2
HEADING_ROOM = 110  # points a section heading needs below it, else it starts on the next page
CAPTION_ROOM = 70  # the same for a table caption with its header row and a first row
LONG_FACT_CHARS = 600
CELL_PIECE_CHARS = 600  # what a cell keeps of a text longer than LONG_CELL_CHARS
LONG_CELL_CHARS = 20_000  # a rationale at its cap still fits in its cell
PIECE_CHARS = 3000  # reportlab re-wraps a paragraph's whole remainder at each page break: quadratic in length


def pieces(value: str, size: int = PIECE_CHARS) -> list[str]:
    """``value`` cut into paragraphs of at most ``size`` characters, at a space where there is one.

    A 100,000-character paragraph took 3.7 s to lay out and 200,000 about 15 s (each page break
    re-wraps the rest); in pieces the time grows linearly. Real paragraphs are far shorter than a
    piece, so they are never cut.

    Example:
        >>> [len(p) for p in pieces("word " * 1000, size=1200)]
        [1199, 1199, 1199, 1199, 200]
    """
    out = []
    for line in value.split("\n"):
        while len(line) > size:
            cut = line.rfind(" ", size // 2, size)
            cut = size if cut < 0 else cut
            out.append(line[:cut])
            line = line[cut:].lstrip(" ")
        out.append(line)
    return [p for p in out if p.strip()]


def chart_png(spec: dict) -> bytes:
    """Render a Vega-Lite spec to PNG offline (vl-convert; no browser, no network)."""
    import vl_convert

    return vl_convert.vegalite_to_png(spec, scale=PNG_SCALE)


def chart_flowables(chart: Chart, png: bytes | None = None,
                    lead: list[Flowable] | None = None) -> list[Flowable]:
    """Heading, image (aspect kept, fitted to the frame) and caption, kept on one page.

    ``lead`` flowables (a section heading with nothing else before its first chart) are kept on
    the same page too, so a heading never ends a page above its chart.
    """
    styles = stylesheet()
    png = png if png is not None else chart_png(chart.spec)
    px_w, px_h = ImageReader(io.BytesIO(png)).getSize()
    width = px_w / PNG_SCALE * CSS_PX_TO_PT
    height = px_h / PNG_SCALE * CSS_PX_TO_PT
    fit = min(1.0, FRAME_WIDTH / width, CHART_MAX_HEIGHT / height)
    image = Image(io.BytesIO(png), width=width * fit, height=height * fit)
    image.hAlign = "LEFT"
    parts: list[Flowable] = [*(lead or []), Paragraph(text(chart.title), styles["h2"]), image]
    if chart.caption:
        parts.append(Paragraph(text(chart.caption), styles["small"]))
    return [KeepTogether(parts), Spacer(1, 8)]


CELL_PADDING = 6  # left + right padding of a cell, in points (see the table style below)


def _col_widths(table: TableData, font: str, size: float) -> list[float]:
    """Widths by the table's weights, but never narrower than the longest word of a header.

    A header word wider than its column is split mid-word by reportlab ("On the f ronti er"); so each
    column first gets the width of its longest header word, and the rest of the frame is shared by
    the weights. Only when even the minimums do not fit are they scaled down together.
    """
    weights = table.widths or [1.0] * len(table.columns)
    minimum = [
        max((stringWidth(w, font, size) for w in str(c).split()), default=0.0) + CELL_PADDING + 1
        for c in table.columns
    ]
    if sum(minimum) >= FRAME_WIDTH:
        return [FRAME_WIDTH * m / sum(minimum) for m in minimum]
    total = sum(weights)
    widths = [FRAME_WIDTH * w / total for w in weights]
    # Raise narrow columns to their minimum, taking the room from the columns above theirs.
    for _ in range(len(widths)):
        short = [i for i, (w, m) in enumerate(zip(widths, minimum, strict=True)) if w < m]
        if not short:
            break
        need = sum(minimum[i] - widths[i] for i in short)
        spare = [i for i in range(len(widths)) if i not in short and widths[i] > minimum[i]]
        room = sum(widths[i] - minimum[i] for i in spare)
        for i in short:
            widths[i] = minimum[i]
        for i in spare:
            widths[i] -= need * (widths[i] - minimum[i]) / room
    return widths


def _long_cells(table: TableData) -> tuple[list[list[str]], list[tuple[str, str]]]:
    """The rows with each very long cell shortened to a pointer, and the full texts to set below.

    A table row that spans pages is re-measured whole at every page break, so a cell of 100,000
    characters (an intended-use field in the HTI-1 sheet) took over a minute. Such a cell keeps its
    start and points to the note under the table, which holds the text in full as paragraphs.
    """
    rows, notes = [], []
    for r, row in enumerate(table.rows, start=1):
        out = []
        for c, cell in enumerate(row):
            value = str(cell)
            if len(value) > LONG_CELL_CHARS:
                notes.append((f"Row {r}, {table.columns[c] if c < len(table.columns) else c + 1}", value))
                value = f"{value[:CELL_PIECE_CHARS].rstrip()} … (in full below the table, note {len(notes)})"
            out.append(value)
        rows.append(out)
    return rows, notes


def table_flowables(table: TableData) -> list[Flowable]:
    """Caption, a wrapped table that repeats its header on each page, and its note."""
    styles = stylesheet()
    head = [Paragraph(text(c), styles["cellhead"]) for c in table.columns]
    rows, notes = _long_cells(table)
    body = [[Paragraph(text(cell), styles["cell"]) for cell in row] for row in rows]
    head_style = styles["cellhead"]
    widths = _col_widths(table, head_style.fontName, head_style.fontSize)
    # splitInRow: a row taller than the page continues on the next one instead of being cut.
    grid = Table([head, *body], colWidths=widths, repeatRows=1, hAlign="LEFT", splitInRow=1)
    commands = [
        ("BACKGROUND", (0, 0), (-1, 0), HEADER_FILL),
        ("LINEBELOW", (0, 0), (-1, 0), 0.6, MUTED),
        ("LINEBELOW", (0, 1), (-1, -1), 0.25, RULE),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), 3), ("RIGHTPADDING", (0, 0), (-1, -1), 3),
        ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]
    commands += [("BACKGROUND", (0, i), (-1, i), ZEBRA) for i in range(2, len(body) + 1, 2)]
    grid.setStyle(TableStyle(commands))
    out: list[Flowable] = [CondPageBreak(CAPTION_ROOM)]
    if table.title:
        out.append(Paragraph(text(table.title), styles["h2"]))
    out.append(grid)
    for number, (where, value) in enumerate(notes, start=1):
        out.append(Paragraph(text(f"Note {number} ({where}), in full:"), styles["small"]))
        out += [Paragraph(text(piece), styles["body"]) for piece in pieces(value)]
    if table.note:
        out.append(Paragraph(text(table.note), styles["small"]))
    out.append(Spacer(1, 6))
    return out


def _fact_table(facts: list[Fact]) -> Flowable:
    styles = stylesheet()
    rows = [[Paragraph(text(f.label), styles["fact_label"]), Paragraph(text(f.value), styles["fact"])]
            for f in facts]
    grid = Table(rows, colWidths=[0.27 * FRAME_WIDTH, 0.73 * FRAME_WIDTH], hAlign="LEFT")
    grid.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"),
                              ("LINEBELOW", (0, 0), (-1, -1), 0.25, RULE),
                              ("LEFTPADDING", (0, 0), (-1, -1), 2), ("TOPPADDING", (0, 0), (-1, -1), 2.5),
                              ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5)]))
    return grid


def facts_flowables(facts: list[Fact]) -> list[Flowable]:
    """Label/value rows as a two-column table; a long value (a pasted policy) becomes running text.

    A table row cannot break across pages, so a value longer than ``LONG_FACT_CHARS`` is set as
    its label followed by ordinary paragraphs, which can.
    """
    styles = stylesheet()
    out: list[Flowable] = []
    run: list[Fact] = []
    for fact in facts:
        if len(fact.value) <= LONG_FACT_CHARS:
            run.append(fact)
            continue
        if run:
            out.append(_fact_table(run))
            run = []
        out.append(Paragraph(text(fact.label), styles["fact_label"]))
        out += [Paragraph(text(chunk), styles["fact"]) for chunk in pieces(fact.value)]
    if run:
        out.append(_fact_table(run))
    return [*out, Spacer(1, 6)]


def section_flowables(number: int | None, section: Section, level: int = 1) -> list[Flowable]:
    """All flowables of one section, its heading first (numbered when ``number`` is given)."""
    styles = stylesheet()
    title = f"{number}. {section.title}" if number is not None else section.title
    heading = Paragraph(text(title), styles["h1" if level == 1 else "h2"])
    if level == 1:
        heading.outline_title = title  # read by the doc template to add a PDF bookmark
    out: list[Flowable] = [CondPageBreak(HEADING_ROOM if level == 1 else CAPTION_ROOM), heading]
    if section.charts and not (section.paragraphs or section.facts or section.bullets or section.tables):
        out = [out[0], *chart_flowables(section.charts[0], lead=[heading])]
        section = section.model_copy(update={"charts": section.charts[1:]})
    # the "Not recorded yet" line stands out; any note after it is ordinary text
    out += [Paragraph(text(piece), styles["not_recorded" if i == 0 and not section.recorded else "body"])
            for i, p in enumerate(section.paragraphs) for piece in (pieces(p) or [p])]
    if section.facts:
        out += facts_flowables(section.facts)
    out += [Paragraph(text(piece), styles["bullet"], bulletText=None if j else "•")
            for b in section.bullets for j, piece in enumerate(pieces(b) or [b])]
    for table in section.tables:
        out += table_flowables(table)
    for chart in section.charts:
        out += chart_flowables(chart)
    for sub in section.subsections:
        out += section_flowables(None, sub, level + 1)
    return out
