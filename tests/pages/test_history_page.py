from tests.pages.conftest import open_page


def test_history_page_shows_timeline_and_diff(demo_home):
    at = open_page("pages/history.py")
    assert at.title[0].value == "History"
    timeline = at.dataframe[0].value
    assert len(timeline) >= 2 and "created" in set(timeline["Kind"])
    assert list(timeline.columns)[:4] == ["Version", "Saved (UTC)", "By", "Kind"]
    assert at.subheader[0].value.startswith("Version")
    assert len(at.dataframe) == 2  # the timeline and the technical detail of the diff
    lines = [t.value for t in at.text]
    assert lines and all("›" in line or ":" in line for line in lines)
    assert not any("_" in line.split(":")[0] for line in lines), lines  # labels, not field keys
    # the demo's last version adds the re-evaluation addendum, named by its id
    assert any(line.startswith("Re-evaluations: added (1 record: R-") for line in lines), lines
    # the one before it adds the sign-offs: named by their roles' signers, not dumped as JSON
    last = int(timeline["Version"].max())
    at.selectbox(key="history_from").select(last - 2).run()
    at.selectbox(key="history_to").select(last - 1).run()
    lines = [t.value for t in at.text]
    assert any(line.startswith("Sign-offs: added (") and "{" not in line for line in lines), lines
    at.selectbox(key="history_from").select(1).run()
    at.selectbox(key="history_to").select(1).run()
    assert any("identical" in s.value for s in at.success)


def test_history_states_the_chain_and_a_changed_row_is_flagged(demo_home):
    import duckdb

    at = open_page("pages/history.py")
    (line,) = [s.value for s in at.success if s.value.startswith("Record chain verified")]
    assert "versions" in line and "events" in line
    assert not at.error

    from evaluator.storage.db import SAFE_CONFIG

    # the app's store in this process holds the file with SAFE_CONFIG; DuckDB wants the same config
    con = duckdb.connect(str(demo_home / "medassure.duckdb"), config=SAFE_CONFIG)
    last = con.execute("SELECT max(version) FROM dossier_versions "
                       "WHERE dossier_id = 'D-demo-portal'").fetchone()[0]
    con.execute("UPDATE dossier_versions SET content = replace(content, 'Dr. M. Chen', 'Mallory') "
                "WHERE dossier_id = 'D-demo-portal' AND version = ?", [last])
    con.close()
    at = open_page()  # the sidebar flags the loaded version on every page
    flagged = [e.value for e in at.sidebar.error]
    assert any("Record integrity" in e and "does not match its hash" in e for e in flagged), flagged
    at.switch_page("pages/history.py").run()
    errors = [e.value for e in at.error]
    assert any(e.startswith(f"Record chain BROKEN at version {last}") for e in errors), errors
