"""Writing a bundle's file to a path (the CLI and notebooks) and charts drawn inline in a notebook."""

from __future__ import annotations

import altair as alt
import pytest

from evaluator.evidence.record import published_evidence
from governance.dossier.record import Dossier
from governance.intended_use.records import example_intended_use
from reports.bundle import report_bundle
from reports.charts import scores_chart


@pytest.fixture
def saved(store):
    d = Dossier(title="Nurses' dosing questions", owner="a.analyst", intended_use=example_intended_use())
    return store.save(d, author="a.analyst")


def test_write_to_a_file_and_to_a_folder(store, saved, tmp_path):
    bundle = report_bundle(store, saved.dossier.id)
    target = bundle.write("json", tmp_path / "out.json")
    assert target == tmp_path / "out.json" and target.read_bytes() == bundle.download("json").make()
    in_folder = bundle.write("evidence", tmp_path)
    assert in_folder == tmp_path / f"{saved.dossier.id}-v1-{saved.hash[:8]}-evidence.csv"
    assert in_folder.read_bytes().startswith(b"\xef\xbb\xbf")
    with pytest.raises(KeyError, match="kinds"):
        bundle.write("docx", tmp_path / "x.docx")
    assert not (tmp_path / "x.docx").exists()


def test_a_report_chart_draws_itself_with_the_active_altair_renderer():
    chart = scores_chart(published_evidence(["MedCalc-Bench"], ["DeepSeek R1", "Gemini 2.0 Flash"]))
    with alt.renderers.enable("png"):
        bundle = chart._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert data["image/png"][:4] in (b"\x89PNG", "iVBO")  # raw bytes or base64 text
    with alt.renderers.enable("json"):
        data = chart._repr_mimebundle_()
    data = data[0] if isinstance(data, tuple) else data
    assert data["application/json"]["layer"] == chart.spec["layer"]


def test_a_full_disk_leaves_no_partial_pdf_and_the_cli_says_so_in_one_line(capsys, home, tmp_path,
                                                                             monkeypatch):
    """Issue 25, item 3: a report on a full disk used to crash and leave a 0-byte PDF."""
    import errno
    import os

    from cli import main
    from governance.dossier.record import Dossier
    from governance.dossier.store import Store
    from governance.intended_use.records import example_intended_use

    d = Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use())
    s = Store.open(home / "medassure.duckdb")
    s.save(d, author="alice")
    s.close()
    real_fsync = os.fsync

    def full(fd):
        real_fsync(fd)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "out"
    out.mkdir()
    (out / "d.pdf").write_bytes(b"the previous report")
    code = main(["report", d.id, "--out", str(out / "d.pdf"), "--bundle", str(out / "d.zip")])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == f"error: {out / 'd.pdf'}: No space left on device"
    assert os.listdir(out) == ["d.pdf"] and (out / "d.pdf").read_bytes() == b"the previous report"
