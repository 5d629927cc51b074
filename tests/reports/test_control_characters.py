"""Issue 19: control characters never reach an export, and long text renders in bounded time.

Dossier text is refused at validation when it holds control characters, but evidence comes from
files and runs (a HELM run name, a model's name) and a dossier saved before the check may hold
them. Every export drops them: the CHAI XML stays well-formed, the CSVs and the PDF's text carry
none, and the in-app Markdown neither. The PDF sets a long paragraph in pieces, so its time grows
linearly with the text (one 100,000-character paragraph took 3.7 s before).
"""

from __future__ import annotations

import io
import re
import time
import xml.etree.ElementTree as ET

from pypdf import PdfReader

from reports.build import build_report
from reports.chai import chai_model_card_xml
from reports.exports import evidence_csv, export_json, hti1_csv
from reports.markdown import md, report_markdown
from reports.pdf import render_pdf
from reports.pdf_blocks import PIECE_CHARS, pieces
from tests.reports.conftest import as_version, local_run_evidence

CONTROLS = "".join(chr(c) for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F))
BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _dirty_version(base_version):
    """A version whose evidence and title carry every control character (as old stored data could)."""
    dirty = local_run_evidence(model=f"openai/gpt-4o{CONTROLS}")
    dossier = base_version.dossier.model_copy(update={"title": f"Portal{CONTROLS} replies",
                                                      "evidence": [*base_version.dossier.evidence, dirty]})
    return as_version(dossier)


def test_every_export_drops_control_characters(base_version):
    version = _dirty_version(base_version)
    xml = chai_model_card_xml(version)
    ET.fromstring(xml)  # well-formed
    assert not BAD.search(xml) and "openai/gpt-4o" in xml
    for text in (evidence_csv(version.dossier.evidence), hti1_csv(version.dossier)):
        assert not BAD.search(text)
    assert "openai/gpt-4o" in evidence_csv(version.dossier.evidence)
    assert not BAD.search(report_markdown(build_report(version)))
    pdf = render_pdf(build_report(version), charts=False)
    pages = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    pages = pages.replace("\x7f ", "")  # pypdf reads the bullet glyph "•" back as DEL
    assert "Portal replies" in pages and not BAD.search(pages)
    # JSON keeps the content the hash covers: C0 escaped as \u00XX, never raw (DEL is valid JSON)
    exported = export_json(version)
    assert not re.search(r"[\x00-\x1f]", exported.replace("\n", "")) and "\\u0007" in exported


def test_markdown_escape_keeps_images_links_html_and_latex_literal():
    assert md("![x](http://example.invalid/a.png)") == "!\\[x\\](http://example.invalid/a.png)"
    assert md("[link](http://x) :red[alert] $x^2$") == "\\[link\\](http://x) :red\\[alert\\] \\$x^2\\$"
    assert md("<img src=x>") == "&lt;img src=x>"
    assert md("\\[x]") == "\\\\\\[x\\]"  # a typed backslash cannot undo the escape
    assert md("bell\x07") == "bell"


def test_long_text_is_cut_at_spaces_into_pieces():
    text = "word " * 10_000
    cut = pieces(text)
    assert all(len(p) <= PIECE_CHARS for p in cut)
    assert " ".join(cut).split() == text.split()  # nothing lost, no word split
    assert pieces("a\n\nb") == ["a", "b"]
    assert pieces("x" * 7000) == ["x" * 3000, "x" * 3000, "x" * 1000]  # no space: cut hard


def test_pdf_time_grows_linearly_with_a_long_purpose(base_version):
    def seconds(n_chars: int) -> float:
        use = base_version.dossier.intended_use.model_copy(update={"purpose": "word " * (n_chars // 5)})
        version = as_version(base_version.dossier.model_copy(update={"intended_use": use}))
        report = build_report(version)
        start = time.process_time()
        render_pdf(report, charts=False)
        return time.process_time() - start

    small, large = seconds(20_000), seconds(200_000)
    # 10x the text: linear is ~10x (plus fixed cost); the quadratic layout was ~100x
    assert large < 25 * max(small, 0.05), (small, large)
