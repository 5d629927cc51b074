"""The "Candidates compared" section, its rows, chart and CSV (dossiers from candidate_fixtures)."""

from __future__ import annotations

import csv
import io

import pytest
from pypdf import PdfReader

from governance.decision.comparison import compare_candidates
from governance.procurement.candidates import upsert_candidate
from reports.build import build_report
from reports.candidates_table import comparison_csv, score_rows, summary_rows
from reports.comparison_chart import chart_frame
from reports.pdf import render_pdf
from reports.sections_candidates import candidates_sections
from tests.governance.candidate_fixtures import base_dossier, candidate
from tests.reports.conftest import as_version


@pytest.fixture(scope="module")
def dossier():
    return base_dossier()


def test_no_candidates_no_section():
    assert candidates_sections(base_dossier([])) == []


def test_rows_round_once_and_keep_numbers(dossier):
    rows = {r["id"]: r for r in summary_rows(compare_candidates(dossier))}
    assert rows["claude"]["usd_per_1k"] == 33.75 and rows["gpt"]["usd_per_1k"] == 4.5
    assert rows["gpt"]["usd_per_1k_acceptable"] == round(4.5 / 0.772, 2) == 5.83
    assert rows["llama"]["on_frontier"] and rows["claude"]["cost_ceiling"] == "fail"
    # issue 15: the accepted education subcategory has no passing score verdict, so not "approve"
    assert (rows["gpt"]["answered"], rows["gpt"]["open_items"], rows["gpt"]["recommendation"]) == (
        11,
        0,
        "insufficient_evidence",
    )
    scores = score_rows(compare_candidates(dossier))
    assert {r["tie_group"] for r in scores if r["benchmark"] == "MedConfInfo"} == {1}


def test_section_tables_chart_and_items(dossier):
    (section,) = candidates_sections(dossier)
    assert section.title == "Candidates compared"
    summary, scores, ties, contract = section.tables
    assert [r[3] for r in summary.rows] == ["USD 4.50", "USD 33.75", "USD 0.48"]
    assert len(scores.rows) == 9 and any(r[3] == "none" for r in scores.rows)
    tied = "{Vendor claude · Product claude, Vendor llama · Product llama, Vendor gpt · Product gpt}"
    assert tied in ties.rows[0][1] and "not grouped" in ties.rows[-1][1]  # products, not ids (issue 36)
    assert contract.rows[0][2] == "yes" and section.charts[0].spec["layer"]
    assert [s.bullets for s in section.subsections][0] == ["No open items or conditions from due diligence."]
    assert not chart_frame(compare_candidates(dossier)).empty


def test_csv_has_a_row_per_candidate_and_benchmark_and_neutralises_formulas(dossier):
    hostile = candidate("evil", "mistral-large").model_copy(update={"vendor": '=HYPERLINK("http://x")'})
    text = comparison_csv(compare_candidates(upsert_candidate(dossier, hostile)))
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 4 * 3  # a row per candidate and benchmark, evidence or not
    evil = rows[-1]
    assert evil["candidate"].startswith("'=HYPERLINK")
    assert (evil["verdict"], evil["score"]) == ("no evidence", "")
    assert comparison_csv(compare_candidates(base_dossier([hostile]))).count("'=HYPERLINK") == 1
    gpt = next(r for r in rows if r["id"] == "gpt" and r["benchmark"] == "PrivacyDetection")
    assert (gpt["usd_per_1k"], gpt["score"], gpt["verdict"]) == ("4.5", "0.983", "pass")


def test_pdf_carries_the_section_with_the_same_numbers(dossier):
    report = build_report(as_version(dossier), extra_sections=candidates_sections(dossier))
    pdf = render_pdf(report, charts=False)
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(pdf)).pages)
    number = [s.key for s in report.sections()].index("candidates") + 1
    assert f"{number}. Candidates compared" in text
    assert "USD 33.75" in text and "USD 0.48" in text and "{Vendor claude · Product claude," in text


def test_a_formula_after_a_bare_cr_in_the_candidates_csv_is_neutralised(dossier):
    """Issue 25, item 9: ``"acme\\r=1+1"`` was written unquoted, so a spreadsheet saw a cell ``=1+1``."""
    hostile = candidate("evil", "mistral-large").model_copy(update={"vendor": "acme\r=1+1"})
    text = comparison_csv(compare_candidates(upsert_candidate(dossier, hostile)))
    assert "\r" not in text and "\n=" not in text and '"acme\n\'=1+1 · Product evil"' in text
    assert len(list(csv.DictReader(io.StringIO(text)))) == 4 * 3
