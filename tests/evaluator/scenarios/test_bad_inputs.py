"""Every malformed upload in tests/data/bad_inputs/ (and a 50 MB file made at test time) is
rejected with a clear reason, and the scenario tables are exactly as they were before."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import duckdb
import pytest

from evaluator.scenarios import ImportRejected, ScenarioStore, import_scenario, read_table_file
from evaluator.scenarios.store import TABLES

BAD = Path(__file__).resolve().parents[2] / "data" / "bad_inputs"
_spec = importlib.util.spec_from_file_location("make_bad_inputs", BAD / "make_bad_inputs.py")
make_bad_inputs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_bad_inputs)
EXPECTED = make_bad_inputs.EXPECTED


@pytest.fixture
def con(tmp_path):
    """A database file that already holds one valid scenario, so 'unchanged' is a real check."""
    con = duckdb.connect(str(tmp_path / "medassure.duckdb"))
    good = b"id,question,reference,tag_sex\nq1,Is 2+2 four?,yes,F\n"
    import_scenario(ScenarioStore(con), "good.csv", good, author="setup")
    yield con
    con.close()


def snapshot(con) -> dict[str, list]:
    return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall())) for t in TABLES}


def test_the_folder_holds_at_least_25_malformed_files_and_nothing_unexpected():
    on_disk = {p.name for p in BAD.iterdir()} - {"make_bad_inputs.py", "README.md", "__pycache__"}
    assert on_disk == set(EXPECTED)
    assert len(EXPECTED) + 1 >= 25  # + the 50 MB file written at test time


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bad_file_is_rejected_with_a_clear_reason_and_nothing_stored(con, name):
    before = snapshot(con)
    with pytest.raises(ImportRejected) as caught:
        import_scenario(ScenarioStore(con), name, (BAD / name).read_bytes(), author="tester")
    lines = [issue.line() for issue in caught.value.issues]
    assert any(EXPECTED[name] in line for line in lines), lines
    assert all(len(line) > 20 for line in lines)  # a reason, not a bare code
    assert name in str(caught.value) and "nothing stored" in str(caught.value)
    assert snapshot(con) == before


def test_row_level_errors_name_row_and_column(con):
    with pytest.raises(ImportRejected) as caught:
        import_scenario(ScenarioStore(con), "duplicate_ids.csv", (BAD / "duplicate_ids.csv").read_bytes(),
                        author="t")
    (issue,) = caught.value.issues
    assert (issue.row, issue.column) == (4, "id")


def test_fifty_megabyte_file_is_refused_before_it_is_read(con, tmp_path):
    big = make_bad_inputs.write_big_file(tmp_path / "big.csv", size_mb=50)
    assert big.stat().st_size >= 50 * 1024 * 1024
    before = snapshot(con)
    with pytest.raises(ImportRejected) as caught:
        read_table_file(big)
    assert "the file is 50.0 MB; the limit is 20.0 MB" in caught.value.issues[0].reason
    with pytest.raises(ImportRejected):  # the same limit holds for bytes handed over by the page
        import_scenario(ScenarioStore(con), big.name, big.read_bytes(), author="t")
    assert snapshot(con) == before


def test_size_limit_is_configurable(con):
    data = b"id,question,reference\nq1,Is 2+2 four?,yes\n"
    with pytest.raises(ImportRejected, match="the limit is 0.0 MB"):
        import_scenario(ScenarioStore(con), "small.csv", data, author="t", max_bytes=10)
    assert import_scenario(ScenarioStore(con), "small.csv", data, author="t", max_bytes=1000).n_instances == 1


def test_every_problem_in_a_file_is_reported_at_once(con):
    data = (b"id,question,reference,lower,upper,answer_type\n"
            b"q1,=cmd,,,,\nq1,Dose?,7,9,5,\nq3,Pick?,x,,,essay\n")
    with pytest.raises(ImportRejected) as caught:
        import_scenario(ScenarioStore(con), "many.csv", data, author="t")
    got = {(i.row, i.column) for i in caught.value.issues}
    assert got == {(2, "question"), (2, "reference"), (3, "id"), (3, "lower"), (4, "answer_type")}


def test_scenario_store_is_untouched_by_a_rejected_new_version(con):
    store = ScenarioStore(con)
    (first,) = store.list_versions()
    with pytest.raises(ImportRejected):
        import_scenario(ScenarioStore(con), "empty_reference.csv", (BAD / "empty_reference.csv").read_bytes(),
                        author="t", scenario_id=first.scenario_id)
    assert [v.version for v in store.list_versions(first.scenario_id)] == [1]
