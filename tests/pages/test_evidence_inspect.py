"""AppTest for the Inspect log import on the Evidence page: preview, attach, refusal of a broken log."""

import pytest

from tests.inspect_logs import make_logs
from tests.pages.conftest import confirm_voiding, latest, open_page
from tests.pages.readable import assert_readable

PAGE = "pages/evidence.py"


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    return make_logs(tmp_path_factory.mktemp("inspect"), names=("match_eval",))["match_eval"]


def read(at, path) -> None:
    at.text_input(key="inspect_path_input").input(str(path)).run()
    at.button(key="inspect_read").click().run()
    assert not at.exception


def test_an_inspect_log_previews_and_attaches(demo_home, log):
    start = latest(demo_home)
    at = open_page(PAGE)
    read(at, log)
    row = at.dataframe[-1].value.iloc[0]
    assert (row["task"], row["model"], row["scorer"], row["score"], row["n"]) == (
        "addition (version 3)", "mockllm/model", "match", "0.750", 4)
    assert row["95% interval"] == "0.301–0.954" and row["interval method / why none"].startswith("Wilson")
    assert row["log's own figure"] == "accuracy 0.750 ± 0.250 (stderr)"
    assert_readable(at)
    at.button(key="inspect_attach").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    v = latest(demo_home)
    assert v.version == start.version + 1 and v.dossier.evidence[-1].provenance == "inspect-import"
    assert at.button(key="inspect_attach").disabled  # nothing left to attach


def test_a_truncated_log_is_refused_and_nothing_attached(demo_home, log, tmp_path):
    start = latest(demo_home)
    cut = tmp_path / "cut.eval"
    cut.write_bytes(log.read_bytes()[:400])
    at = open_page(PAGE)
    read(at, cut)
    assert any("not a readable Inspect log" in e.value for e in at.error)
    assert latest(demo_home).version == start.version
