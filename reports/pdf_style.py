"""Page geometry, fonts and the paragraph stylesheet of the dossier PDF, built once per process.

Why a TrueType font when one is available: dossier text is typed by people (names, "≤", "→",
"−", accented letters), and the PDF base-14 fonts cover Latin-1 only, so those characters would
print as black boxes. DejaVu Sans (Debian's default, also what Chromium falls back to) covers
them; when it is absent we fall back to Helvetica and replace the few symbols our own text uses.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, StyleSheet1
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from reports.plain_text import xml_safe

PAGE = A4
MARGIN_X = 18 * mm
MARGIN_TOP = 22 * mm
MARGIN_BOTTOM = 18 * mm
FRAME_WIDTH = PAGE[0] - 2 * MARGIN_X
FRAME_HEIGHT = PAGE[1] - MARGIN_TOP - MARGIN_BOTTOM
INK = colors.HexColor("#1f2933")
MUTED = colors.HexColor("#616e7c")
RULE = colors.HexColor("#cbd2d9")
HEADER_FILL = colors.HexColor("#e4e7eb")
ZEBRA = colors.HexColor("#f5f7fa")
NOT_RECORDED = colors.HexColor("#8a4b08")

FONT_DIRS = [Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"),
             Path("/usr/local/share/fonts/dejavu")]
FALLBACK_REPLACEMENTS = {"≤": "<=", "≥": ">=", "−": "-", "→": "->", "×": "x", "…": "...", "✓": "v"}


@cache
def fonts() -> tuple[str, str]:
    """Registered (regular, bold) font names: DejaVu Sans if installed, else Helvetica."""
    for folder in FONT_DIRS:
        regular, bold = folder / "DejaVuSans.ttf", folder / "DejaVuSans-Bold.ttf"
        if regular.is_file() and bold.is_file():
            pdfmetrics.registerFont(TTFont("DejaVuSans", str(regular)))
            pdfmetrics.registerFont(TTFont("DejaVuSans-Bold", str(bold)))
            pdfmetrics.registerFontFamily("DejaVuSans", normal="DejaVuSans", bold="DejaVuSans-Bold",
                                          italic="DejaVuSans", boldItalic="DejaVuSans-Bold")
            return "DejaVuSans", "DejaVuSans-Bold"
    return "Helvetica", "Helvetica-Bold"


def text(value: str) -> str:
    """Plain text made safe for a reportlab Paragraph (markup escaped, control characters dropped,
    newlines kept as breaks).

    Example:
        >>> text("a < b\\nc\\x00")
        'a &lt; b<br/>c'
    """
    value = xml_safe(value)
    if fonts()[0] == "Helvetica":
        for char, plain in FALLBACK_REPLACEMENTS.items():
            value = value.replace(char, plain)
    return escape(value).replace("\n", "<br/>")


@cache
def stylesheet() -> StyleSheet1:
    """The report's paragraph styles (built once; reportlab styles are shared, never mutated)."""
    regular, bold = fonts()
    sheet = StyleSheet1()
    base = ParagraphStyle("body", fontName=regular, fontSize=9, leading=12, textColor=INK, alignment=TA_LEFT,
                          spaceAfter=4)
    sheet.add(base)
    sheet.add(ParagraphStyle("title", parent=base, fontName=bold, fontSize=22, leading=27, spaceAfter=10))
    sheet.add(ParagraphStyle("subtitle", parent=base, fontSize=12, leading=16, textColor=MUTED,
                             spaceAfter=16))
    sheet.add(ParagraphStyle("h1", parent=base, fontName=bold, fontSize=14, leading=18, spaceBefore=6,
                             spaceAfter=6))
    sheet.add(ParagraphStyle("h2", parent=base, fontName=bold, fontSize=10.5, leading=14, spaceBefore=6,
                             spaceAfter=3))
    sheet.add(ParagraphStyle("small", parent=base, fontSize=7.5, leading=9.5, textColor=MUTED))
    sheet.add(ParagraphStyle("cell", parent=base, fontSize=7.5, leading=9.2, spaceAfter=0))
    sheet.add(ParagraphStyle("cellhead", parent=base, fontName=bold, fontSize=7.5, leading=9.2, spaceAfter=0))
    sheet.add(ParagraphStyle("fact_label", parent=base, fontName=bold, fontSize=8.5, leading=11,
                             spaceAfter=0))
    sheet.add(ParagraphStyle("fact", parent=base, fontSize=8.5, leading=11, spaceAfter=0))
    sheet.add(ParagraphStyle("bullet", parent=base, leftIndent=12, bulletIndent=2, spaceAfter=2))
    sheet.add(ParagraphStyle("not_recorded", parent=base, textColor=NOT_RECORDED))
    sheet.add(ParagraphStyle("cover_value", parent=base, fontSize=10, leading=13, spaceAfter=0))
    sheet.add(ParagraphStyle("cover_label", parent=base, fontName=bold, fontSize=10, leading=13,
                             spaceAfter=0))
    return sheet
