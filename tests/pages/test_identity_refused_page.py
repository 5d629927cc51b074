"""A named identity file that does not exist stops the pages with its message (issue 35), not local mode."""

from __future__ import annotations

from tests.pages.conftest import open_page


def test_the_pages_refuse_on_a_missing_named_file(demo_home, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDASSURE_IDENTITY_FILE", str(tmp_path / "nowhere.toml"))
    at = open_page()
    said = [e.value for e in at.error] + [e.value for e in at.sidebar.error]
    assert any("does not exist" in e for e in said), said


def test_the_pages_refuse_on_a_directory_named_identity_toml(demo_home, monkeypatch):
    monkeypatch.delenv("MEDASSURE_IDENTITY_FILE", raising=False)
    (demo_home / "identity.toml").mkdir()
    at = open_page()
    said = [e.value for e in at.error] + [e.value for e in at.sidebar.error]
    assert any("is a directory" in e for e in said), said
