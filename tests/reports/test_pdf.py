"""The PDF renders, reads back (text, pages, furniture, images) and carries the CHAI XML in its metadata."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from pypdf import PdfReader

from evaluator.evidence.record import published_evidence
from reports.build import build_report
from reports.chai import NAMESPACE, SOFTWARE_ID, chai_model_card_xml
from reports.model import Table as TableData
from reports.pdf import render_pdf
from reports.pdf_blocks import table_flowables
from reports.pdf_meta import read_chai
from tests.reports.conftest import local_run_evidence, with_evidence


@pytest.fixture(scope="module")
def base_pdf(base_version) -> tuple[bytes, object]:
    report = build_report(base_version)
    return render_pdf(report, chai_model_card_xml(base_version)), report


def _pages(pdf: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages]


def test_text_has_every_section_heading_and_the_hash(base_pdf, base_version):
    pdf, report = base_pdf
    assert pdf.startswith(b"%PDF-")
    pages = _pages(pdf)
    text = " ".join(pages)
    for number, section in enumerate(report.sections(), start=1):
        assert f"{number}. {section.title}" in text, section.title
    assert pages[0].startswith("Decision memo")  # page 1: the one-page memo, then the cover
    assert "Governance dossier" in pages[1] and base_version.dossier.title in pages[1]
    for i, page in enumerate(pages, start=1):  # page furniture on every page
        assert base_version.hash in page, f"hash missing on page {i}"
        assert f"Page {i} of {len(pages)}" in page
        assert "D-report-test" in page


def test_not_recorded_sections_say_so_in_the_pdf(base_pdf):
    text = " ".join(_pages(base_pdf[0]))
    assert "Not recorded yet" in text
    assert "not provided" in text  # HTI-1 appendix


def test_charts_are_embedded_as_images(base_pdf):
    reader = PdfReader(io.BytesIO(base_pdf[0]))
    images = [img for page in reader.pages for img in page.images]
    assert len(images) == len(base_pdf[1].charts.charts) == 4
    assert all(img.image.width > 300 for img in images)


def test_sections_are_bookmarked(base_pdf):
    outline = PdfReader(io.BytesIO(base_pdf[0])).outline
    assert [o.title for o in outline][:2] == ["1. Executive summary", "2. Intended use and risk tier"]


def test_chai_xml_is_readable_from_the_metadata(base_pdf, base_version):
    meta = read_chai(base_pdf[0])
    assert meta["software_id"] == SOFTWARE_ID
    assert meta["xml"] == chai_model_card_xml(base_version)
    root = ET.fromstring(meta["xml"].encode())
    assert root.tag == f"{{{NAMESPACE}}}AppliedModelCard"


def test_without_chai_no_custom_keys(base_version):
    pdf = render_pdf(build_report(base_version), charts=False)
    assert read_chai(pdf) == {"xml": None, "software_id": None}


def test_long_tables_repeat_their_header_and_long_text_does_not_break_layout(base_version):
    """60 evidence rows, a 20 KB purpose and a 5 KB local-task description still lay out."""
    many = published_evidence(
        ["MedCalc-Bench", "MedQA", "MedMCQA", "PubMedQA", "HeadQA", "MedicationQA", "MedDialog", "MIMIC-RRS",
         "MedConfInfo", "ProxySender", "PrivacyDetection", "Medec"],
        ["GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)", "DeepSeek R1",
         "Gemini 2.0 Flash"])
    assert len(many) == 60
    version = with_evidence(base_version, many + [local_run_evidence()])
    d = version.dossier
    use = d.intended_use.model_copy(update={"purpose": "Policy text. " * 1600})
    mapping = d.mapping.add_local_task("patient_provider_messaging", "Long task", by="x",
                                       description="word " * 1000)
    d = d.model_copy(update={"intended_use": use, "mapping": mapping})
    version = version.model_copy(update={"dossier": d, "hash": d.content_hash()})
    pages = _pages(render_pdf(build_report(version), charts=False))
    score_pages = [p for p in pages if "Claude 3.7 Sonnet (20250219)" in p and "published [S" in p]
    assert len(score_pages) >= 2
    assert all("Benchmark Model Metric Score 95% interval" in p for p in score_pages)
    assert not any("cut here" in p for p in pages)
    # Nothing of the long task description is lost: the row continues on the next page.
    assert sum(p.count("word") for p in pages) >= 1000


def _table_pdf_text(columns: list[str], rows: list[list[str]]) -> list[str]:
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    buf = io.BytesIO()
    table = TableData(title="t", columns=columns, rows=rows)
    SimpleDocTemplate(buf, pagesize=A4).build(table_flowables(table))
    return [page.extract_text() for page in PdfReader(io.BytesIO(buf.getvalue())).pages]


def test_table_headers_wrap_on_word_boundaries_even_in_narrow_columns():
    columns = ["Candidate", "On the frontier", "McNemar p", "inconclusive", "Verdict",
               "Cost per 1,000 requests", "Score", "n", "Interval", "Notes"]
    text = " ".join(_table_pdf_text(columns, [["x"] * len(columns)]))
    for word in ("frontier", "McNemar", "inconclusive", "requests"):
        assert word in text, f"header word {word!r} was split"


def test_a_cell_longer_than_a_page_continues_instead_of_being_cut():
    pages = _table_pdf_text(["Rule", "Reason"], [["r1", "word " * 3000]])
    assert len(pages) > 1
    assert sum(p.count("word") for p in pages) == 3000
    assert not any("cut here" in p for p in pages)
