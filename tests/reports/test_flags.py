"""The cover and the executive summary flag what a chair must see first (issue 16)."""

from __future__ import annotations

import io

from pypdf import PdfReader

from governance.demo.seed import seed_demo
from governance.dossier.store import Store
from reports.build import build_report
from reports.pdf import render_pdf


def _demo(tmp_path):
    store = Store.open(tmp_path / "medassure.duckdb")
    try:
        return store.load(seed_demo(store))
    finally:
        store.close()


def test_demo_flags_demo_data_the_disagreement_and_missing_signoffs(tmp_path):
    report = build_report(_demo(tmp_path))
    flags = report.cover.flags
    assert flags[0].startswith("DEMO DATA:")
    (against,) = [f for f in flags if f.startswith("Decision against the computed recommendation")]
    assert "approve with conditions for GPT-4o (2024-05-13)" in against and "support reject" in against
    assert "Spanish-language" in against  # the committee's recorded reason travels with the flag
    assert "Sign-offs incomplete: 1 of 4 required roles have signed this content." in flags
    (read_first,) = [s for s in report.executive_summary.subsections if s.key == "flags"]
    assert read_first.bullets == flags


def test_the_pdf_cover_shows_the_flags_before_the_contents(tmp_path):
    pdf = render_pdf(build_report(_demo(tmp_path)), charts=False)
    cover = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert cover.index("Read first") < cover.index("Contents")
    assert "DEMO DATA" in cover and "1 of 4 required roles" in cover


def test_a_new_dossier_is_flagged_for_what_is_not_recorded(base_version):
    flags = build_report(base_version).cover.flags
    assert not any(f.startswith("DEMO DATA") for f in flags)
    assert any(f.startswith("Not recorded yet") and "Decision and sign-offs" in f for f in flags)
