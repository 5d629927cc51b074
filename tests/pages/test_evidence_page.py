"""AppTest for the Evidence page: renders for the demo, charts present, attach/detach/import save versions."""

import shutil

import pyarrow as pa
import pytest

from evaluator.evidence.record import published_evidence
from governance.demo.seed import DEMO_ID
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from tests.evaluator.importers.test_helm import RUN_NAME, SUITE, _make_jury_run
from tests.pages.conftest import confirm_voiding, latest, open_page
from tests.pages.readable import assert_readable

PAGE = "pages/evidence.py"
BENCHMARKS = ["MedDialog", "MedConfInfo", "ProxySender", "PrivacyDetection", "MedicationQA"]


def test_renders_for_the_demo_with_heatmap_tables_and_intervals(demo_home):
    at = open_page(PAGE)
    assert at.title[0].value == "Evidence"
    charts = at.get("vega_lite_chart")
    assert len(charts) == 2
    assert "normalized" in charts[0].proto.spec
    cells = pa.ipc.open_stream(charts[0].proto.datasets[0].data.data).read_pandas().to_dict("records")
    assert {c["benchmark"] for c in cells} == set(BENCHMARKS)
    assert all(c["n"] and c["95% interval"] and c["interval method / why none"] for c in cells)
    coverage, win_rates, ties = (t.value for t in at.table)
    assert list(coverage["subcategory"]) == ["Patient-Provider Messaging",
                                             "Providing Patient Education Resources"]
    # the demo attaches a local scenario run to Patient-Provider Messaging
    assert list(coverage["evidence kinds"]) == ["public · private · local-run", "public"]
    assert set(win_rates["candidate"]) == {"gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b"}
    assert set(win_rates["benchmarks (n)"]) == {"5"}  # st.table cells are text
    assert ties.set_index("benchmark").loc["MedDialog", "tie groups, best first"].startswith("not grouped")
    intervals = next(m.value for m in at.markdown if m.value.startswith("**95% intervals**"))
    assert "Wilson" in intervals and "jury" in intervals
    n_attached = len(latest(demo_home).dossier.evidence)
    assert f"Attached evidence ({n_attached})" in [h.value for h in at.subheader]


def test_tables_read_without_a_glossary_and_tie_groups_are_numbered(demo_home):
    at = open_page(PAGE)
    assert assert_readable(at) == 6  # scores, attached, its results by subgroup, coverage, win rates, ties
    ties = at.table[2].value
    grouped = [t for t in ties["tie groups, best first"] if not t.startswith("not grouped")]
    assert grouped and all(t.startswith("1. ") and "{" not in t for t in grouped)
    assert "Models under consideration" in [h.value for h in at.subheader]


def test_adding_a_model_and_attaching_its_scores_creates_a_new_version(demo_home):
    start = latest(demo_home)
    at = open_page(PAGE)
    at.multiselect(key=f"evidence_models_{DEMO_ID}").select("DeepSeek R1").run()
    assert not at.exception
    pick = at.multiselect(key=f"attach_pick_{DEMO_ID}_{start.version}")
    assert len(pick.options) == 5 and all(o.startswith("DeepSeek R1 · ") for o in pick.options)
    ids = [e.id for e in published_evidence(BENCHMARKS, ["DeepSeek R1"])]
    pick.set_value(ids).run()
    at.button(key="attach_published").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    v = latest(demo_home)
    assert v.version == start.version + 1 and v.author == "dr.page"
    assert len(v.dossier.evidence) == len(start.dossier.evidence) + 5
    assert {e.model for e in v.dossier.evidence[-5:]} == {"DeepSeek R1"}
    assert f"Attached evidence ({len(v.dossier.evidence)})" in [h.value for h in at.subheader]


def test_detaching_creates_a_new_version(demo_home):
    start = latest(demo_home)
    at = open_page(PAGE)
    pick = at.multiselect(key=f"detach_pick_{DEMO_ID}_{start.version}")
    pick.set_value([start.dossier.evidence[0].id]).run()
    at.button(key="detach_evidence").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    v = latest(demo_home)
    assert v.version == start.version + 1 and len(v.dossier.evidence) == len(start.dossier.evidence) - 1


@pytest.fixture
def mapped_run(tmp_path):
    if not (SUITE / RUN_NAME / "stats.json").is_file():
        pytest.skip(f"genuine HELM run not found at {SUITE} (../shared absent)")
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    _make_jury_run(suite, ["medication_qa"])
    return suite


def test_helm_import_previews_attaches_and_drills_down(demo_home, mapped_run):
    start = latest(demo_home)
    at = open_page(PAGE)
    at.text_input(key="helm_path_input").input(str(mapped_run)).run()
    at.button(key="helm_read").click().run()
    assert not at.exception
    runs = at.dataframe[-2].value
    assert list(runs["benchmark"]) == ["MedicationQA"] and list(runs["n"]) == [10]
    assert "bootstrap" in runs["interval method / why none"][0]
    assert any("Input: 12 18 1 15 7" in c.value for c in at.code)  # the first instance's prompt
    at.button(key="helm_attach").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    v = latest(demo_home)
    assert v.version == start.version + 1 and v.dossier.evidence[-1].provenance == "helm-import"
    coverage = at.table[0].value.set_index("subcategory")
    assert "helm-import" in coverage.loc["Providing Patient Education Resources", "evidence kinds"]
    assert at.selectbox(key="attached_run_pick").value == v.dossier.evidence[-1].id


def test_a_broken_folder_shows_the_error_and_attaches_nothing(demo_home, tmp_path):
    start = latest(demo_home)
    at = open_page(PAGE)
    at.text_input(key="helm_path_input").input(str(tmp_path / "missing")).run()
    at.button(key="helm_read").click().run()
    assert any("no such folder" in e.value for e in at.error)
    assert latest(demo_home).version == start.version


def test_a_dossier_without_mapping_is_told_to_map_first(home):
    store = Store.open(home / "medassure.duckdb")
    d = Dossier(id="D-empty", title="Nothing mapped", owner="me", intended_use=example_intended_use())
    store.save(d, author="me")
    store.close()
    at = open_page(PAGE, dossier_id="D-empty")
    assert "Task mapping" in at.info[0].value and not at.get("vega_lite_chart")
