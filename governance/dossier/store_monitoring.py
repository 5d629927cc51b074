"""The monitoring feed: production rows of approved candidates, and their aggregates, summed in SQL.

Storage design: one table, ``monitoring_feed``, one row per model output, keyed by (dossier, candidate,
row key), the row key being the feed's ``id`` or, without one, a hash of the row, so importing the same
file or the same rows twice adds nothing. Rows are never updated or deleted (on PostgreSQL the app role
may only insert and read). The file itself is read and validated by DuckDB (``store_feed_import``)
without passing a million rows through Python; the aggregates the monitoring stage needs (per month
counts, identities seen, tags) are GROUP BYs here, and only the audited outputs' 0/1 series comes back
as an array for the CUSUM.
"""
