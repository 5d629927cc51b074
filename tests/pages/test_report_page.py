"""AppTest of the Report page: preview sections, six downloads (the model-facts label among them), a version
picker bound to the hash."""

from __future__ import annotations

import shutil

import pytest

from evaluator.evidence.record import published_evidence
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from tests.pages.conftest import open_page

DOWNLOADS = ["pdf", "label", "json", "chai", "hti1", "evidence"]


@pytest.fixture
def two_versions(home) -> list[str]:
    """A dossier saved twice (without, then with published evidence); returns the two hashes."""
    dossier = Dossier(id="D-report", title="Portal replies", owner="committee",
                      intended_use=example_intended_use())
    store = Store.open(home / "medassure.duckdb")
    first = store.save(dossier, author="alice")
    evidence = published_evidence(["MedConfInfo", "MedicationQA"], ["GPT-4o (2024-05-13)"])
    second = store.save(dossier.model_copy(update={"evidence": evidence}), author="bob")
    store.close()
    return [first.hash, second.hash]


def test_report_page_previews_and_offers_downloads(two_versions):
    at = open_page("pages/report.py", dossier_id="D-report")
    assert at.title[0].value == "Report"
    assert two_versions[1] in at.caption[0].value
    buttons = at.get("download_button")
    assert len(buttons) == len(DOWNLOADS) + 1  # and the verifiable zip bundle
    labels = [b.proto.label for b in buttons]
    assert labels[0] == "Dossier PDF" and "CHAI model card XML" in labels
    assert labels[1] == "Model-facts label PDF (one page, for staff)"
    assert labels[-1].startswith("Everything in one verifiable zip")
    titles = [e.label for e in at.expander]
    assert titles[0] == "Decision memo (page 1 of the PDF)"  # issue 27: the memo, then the numbered sections
    assert titles[1] == "1. Executive summary" and "4. Evidence" in titles
    assert any("Appendix: HTI-1 source attributes" in t for t in titles)
    text = "\n".join(m.value for m in at.markdown)
    assert "MedConfInfo" in text and "Not recorded yet" in text
    assert len(at.get("vega_lite_chart")) == 4
    assert "Acceptance rules and verdicts" in at.info[0].value


def test_report_page_shows_pdf_pages_on_request(two_versions):
    if not shutil.which("pdftoppm"):
        pytest.skip("pdftoppm (poppler-utils) is not installed")
    at = open_page("pages/report.py", dossier_id="D-report")
    assert not at.get("image")
    at.toggle(key="report_pdf_pages").set_value(True).run()
    assert not at.exception
    assert len(at.get("image")) == 2


def test_report_page_binds_to_the_chosen_version(two_versions):
    at = open_page("pages/report.py", dossier_id="D-report")
    at.selectbox(key="report_version_D-report").select(1).run()
    assert not at.exception
    assert two_versions[0] in at.caption[0].value
    text = "\n".join(m.value for m in at.markdown)
    assert "no evidence is attached" in text
    assert not at.get("vega_lite_chart")


def test_report_page_says_whether_the_chai_card_is_signed(two_versions, tmp_path, monkeypatch):
    from tests.reports.test_signing import make_key_and_cert

    monkeypatch.delenv("MEDASSURE_EXPORT_KEY", raising=False)
    monkeypatch.delenv("MEDASSURE_EXPORT_CERT", raising=False)
    at = open_page("pages/report.py", dossier_id="D-report")
    assert any("not signed on this deployment" in c.value for c in at.caption)
    key, cert = make_key_and_cert(tmp_path, "Hospital Exports")
    monkeypatch.setenv("MEDASSURE_EXPORT_KEY", str(key))
    monkeypatch.setenv("MEDASSURE_EXPORT_CERT", str(cert))
    at = open_page("pages/report.py", dossier_id="D-report")
    assert "CHAI model card XML (signed)" in [b.proto.label for b in at.get("download_button")]
    assert any("signed by O=Test Hospital,CN=Hospital Exports" in c.value for c in at.caption)
    monkeypatch.setenv("MEDASSURE_EXPORT_CERT", str(key))  # a misconfiguration: a warning, never a traceback
    at = open_page("pages/report.py", dossier_id="D-report")
    assert not at.exception and "cannot be signed" in at.warning[0].value
