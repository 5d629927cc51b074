"""The feed's reads side by side on PostgreSQL: the status's statements on connections of their own at once.

Why: the status reads the stored feed twice over, the seals' digests (``store_seals``) and the aggregates
(``store``), each a few statements that keep one server process busy for seconds, mostly in a serial sort
or aggregate after their parallel scans. One after another they left a core idle most of the time: on
PostgreSQL they now run at once, each on a connection of its own (threads: psycopg waits for the server
without the GIL). DuckDB runs each statement on every core already, so there they stay one after another;
so do reads inside a transaction (another connection would not see its writes). Each read is a statement
of its own in autocommit as before, so they never saw one snapshot and do not now (feed rows are only ever
added, and a row added meanwhile belongs to an import with a seal of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evaluator.storage.db import is_postgres


def apart(con: Any) -> bool:
    """Whether reads may go to other connections: PostgreSQL, no transaction open on ``con``."""
    return is_postgres(con) and not getattr(con, "in_transaction", True)


def side_by_side(con: Any, *jobs: Callable[[Any], Any]) -> list[Any]:
    """Each job's result, each job called with a connection: on PostgreSQL, outside a transaction, at once,
    the first on ``con`` and each other on a connection of its own (threads: psycopg waits for the server
    without the GIL); on DuckDB, or inside a transaction, one after the other on ``con``.

    Why: the status's reads (the digests, the aggregates) are separate statements that each keep one server
    process busy for seconds, mostly in a serial sort or aggregate after their parallel scans; on PostgreSQL
    they can run side by side on the server's cores (issue 35 item 7). DuckDB runs each statement on every
    core already. Each read is a statement of its own in autocommit as before, so they see no one snapshot,
    as they did not one after the other either (feed rows are only ever added).
    """
    if len(jobs) < 2 or not apart(con):
        return [job(con) for job in jobs]
    others = [con.cursor() for _ in jobs[1:]]
    try:
        with ThreadPoolExecutor(len(others), thread_name_prefix="medassure-feed-read") as pool:
            futures = [pool.submit(job, other) for job, other in zip(jobs[1:], others, strict=True)]
            first = jobs[0](con)
            return [first, *(f.result() for f in futures)]
    finally:
        for other in others:
            other.close()


class ReadsAhead:
    """``aggregates`` started ahead (``MonitoringFeedStore`` holds ``con`` and ``aggregates``)."""

    con: Any

    def aggregates_ahead(self, dossier_id: str, candidate: str) -> Callable[[], Any]:
        """``aggregates`` started now on a connection of its own (PostgreSQL outside a transaction), while
        the caller checks the seals; call the result for them. On DuckDB they are read when called.

        The status's two halves, the digests and the aggregates, then keep the server's cores busy together
        (issue 35 item 7); a status refused on a broken seal waits for them and drops them.
        """
        if not apart(self.con):
            return lambda: self.aggregates(dossier_id, candidate)
        view = object.__new__(type(self))  # the same store on another connection (no migrations to apply)
        view.con = self.con.cursor()

        def read() -> Any:
            try:
                return view.aggregates(dossier_id, candidate)
            finally:
                view.con.close()

        pool = ThreadPoolExecutor(1, thread_name_prefix="medassure-feed-aggregates")
        future = pool.submit(read)
        pool.shutdown(wait=False)
        return future.result
