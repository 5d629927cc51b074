"""The sidebar, the Dossiers list and the Decision page's line when the demo's stored feed no longer
matches its seal (issue 35): 1,000 rows deleted behind the app's back showed as nothing (no monitoring
word, "—" in the list, no line); now each says the feed does not match its seal."""

import duckdb

from tests.pages.conftest import DEMO, open_page

WORDS = "feed does not match its seal: run verify"


def test_a_feed_that_lost_rows_says_so_on_every_glance(demo_home):
    con = duckdb.connect(str(demo_home / "medassure.duckdb"))
    con.execute("DELETE FROM monitoring_feed WHERE row_key IN (SELECT row_key FROM monitoring_feed "
                "WHERE dossier_id = ? ORDER BY row_key LIMIT 1000)", [DEMO])
    con.close()
    at = open_page()  # the Dossiers page
    assert f"monitoring :red[**{WORDS}**]" in at.sidebar.markdown[0].value
    assert list(at.dataframe[0].value["Monitoring"]) == [WORDS]
    at.switch_page("pages/decision.py").run()
    assert not at.exception, [e.value for e in at.exception]
    (line,) = [w.value for w in at.warning if "Monitoring (live)" in w.value]
    assert "does not match its seal" in line and "rows sealed" in line
