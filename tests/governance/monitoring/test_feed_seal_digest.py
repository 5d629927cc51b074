"""The feed seal's digest is pinned: a faster way to compute it must give the same value for the same rows.

Why pinned: every import already sealed holds its digest in the chain, and ``verify`` recomputes it from the
stored rows with today's query; a query that wrote one field differently would call every old import
altered. The expected digests below were computed with the query as it stood before issue 35 item 7
(``coalesce(CAST(length(x) AS VARCHAR) || ':' || x, '-')`` joined by ``|| '|' ||``), on each backend,
over rows holding every column, NULLs, an empty text, a separator inside a text and non-ASCII text.
"""

from __future__ import annotations

from governance.dossier.store import Store
from governance.monitoring.store import FEED_COLUMNS

ROWS = [
    "('D-seal', 'm-1', 'out-1', TIMESTAMPTZ '2026-03-01 09:30:00.123456+00', '2026-03', "
    "'GPT-4o (2024-05-13)', 'v1', 'material_correction', 812.5, false, 300, 80, 0.0012, 'Dr. Zoë Ng', "
    "42, true, 'material', 3.5, false, 'moderate', 'a|b:c 3:x - ü', 'imp-1')",
    "('D-seal', 'm-1', 'out-2', TIMESTAMPTZ '2026-03-02 00:00:00+00', '2026-03', 'm-1', '', 'accepted', "
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'imp-1')",
    "('D-seal', 'm-1', 'out-3', TIMESTAMPTZ '2026-03-03 12:00:00+00', '2026-03', 'm-1', NULL, 'discarded', "
    "0, true, 0, 0, 0, '', 0, false, NULL, -1, true, NULL, '', 'imp-1')",
]
TAGS = [
    "('D-seal', 'm-1', 'out-1', 'site', 'north')",
    "('D-seal', 'm-1', 'out-2', 'lang', '')",
    "('D-seal', 'm-1', 'out-3', 'site', 'sud-est|é')",
]
EXPECTED = {  # the query before issue 35 item 7, run on each backend (module docstring)
    "duckdb": "cbaf118e62a96c94fbe7dce7c963d7476c963f89011278b4dccb50d089a3b687",
    "postgres": "8a1789fbb0880ca9bbf645c5274c04e6de92318b3e601c77fed6cdb12e36fde8",
}


def _digests(store: Store) -> dict:
    con = store.monitoring.con
    con.execute(f"INSERT INTO monitoring_feed (dossier_id, candidate, {FEED_COLUMNS}, import_id) VALUES "
                + ", ".join(ROWS))
    con.execute("INSERT INTO monitoring_feed_tags (dossier_id, candidate, row_key, tag, value) VALUES "
                + ", ".join(TAGS))
    return store.monitoring.import_digests("D-seal")


def test_the_seal_digest_is_unchanged_on_duckdb(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        assert _digests(store) == {"imp-1": ("m-1", 3, EXPECTED["duckdb"])}
    finally:
        store.close()


def test_the_seal_digest_is_unchanged_on_postgres(pg_url):
    store = Store.open_url(pg_url)
    try:
        assert _digests(store) == {"imp-1": ("m-1", 3, EXPECTED["postgres"])}
    finally:
        store.close()
