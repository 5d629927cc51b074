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
    # the demo's last version adds the monitoring records (imports, signals and the chair's resolution)
    assert any(line.startswith("Monitoring: ") and "→" in line for line in lines), lines
    # an earlier version adds the sign-offs: named by their roles' signers, not dumped as JSON
    last = int(timeline["Version"].max())
    seen = []
    for newer in range(last - 1, max(1, last - 12), -1):
        at.selectbox(key="history_from").select(newer - 1).run()
        at.selectbox(key="history_to").select(newer).run()
        seen = [t.value for t in at.text]
        if any(line.startswith("Sign-offs: added (") for line in seen):
            break
    assert any(line.startswith("Sign-offs: added (") and "{" not in line for line in seen), seen
    at.selectbox(key="history_from").select(1).run()
    at.selectbox(key="history_to").select(1).run()
    assert any("identical" in s.value for s in at.success)


def test_history_states_the_chain_and_a_changed_row_is_flagged(demo_home, monkeypatch):
    import time

    import duckdb

    monkeypatch.setenv("MEDASSURE_IDLE_RELEASE", "0.1")
    at = open_page("pages/history.py")
    (line,) = [s.value for s in at.success if s.value.startswith("Record chain verified")]
    assert "versions" in line and "events" in line
    assert not at.error

    from evaluator.storage.db import SAFE_CONFIG

    # The app's store lets go of the file when idle (issue 27 item 14); edit it as another process would,
    # after the release (SAFE_CONFIG: the config the app opens it with).
    time.sleep(1.0)
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
