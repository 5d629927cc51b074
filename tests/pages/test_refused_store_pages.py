"""A stored head row that no longer validates is one line on the page, never a traceback (issue 25 leftover).

AppTest runs ``app.py`` (sidebar and first page) on the first run only; a switched page runs alone, so the
guard around every page is tested in a real browser (tests/browser/test_refused_store.py).
"""

from __future__ import annotations

import duckdb

from tests.pages.conftest import DEMO, open_page


def test_a_head_row_that_no_longer_validates_is_one_line_not_a_traceback(demo_home):
    con = duckdb.connect(str(demo_home / "medassure.duckdb"))
    head = con.execute("SELECT max(version) FROM dossier_versions WHERE dossier_id = ?", [DEMO]).fetchone()[0]
    con.execute("UPDATE dossier_versions SET content = json_object('id', ?, 'title', 7) "
                "WHERE dossier_id = ? AND version = ?", [DEMO, DEMO, head])
    con.close()
    at = open_page()  # asserts no exception
    said = [e.value for e in at.error] + [e.value for e in at.sidebar.error]
    assert any("cannot be read" in e and "medassure verify" in e for e in said), said
    assert all("\n" not in e for e in said)
