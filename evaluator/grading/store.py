"""Rubric gradings in the app's one database (component ``gradings``).

Why this shape: the graders' raw replies already live in ``run_results`` and the response cache
(each grader's pass over a run is an ordinary run of the runner, so nothing paid for is lost and a
stopped grading resumes from the cache). These tables hold what the grading *made* of them: one
``gradings`` row per grading (which candidate run and scenario version, which graders and grader
runs, its status, and the result computed once when it finished: score, per case, per tag,
unparsed replies) and one ``grading_verdicts`` row per case × criterion × grader with the verdict
(NULL when the reply could not be read), the grader's explanation and the reason it was unreadable.
Pages, the CLI and evidence read the stored result; a grading is never recomputed to be shown.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

import duckdb

from evaluator.storage.db import apply_migrations, upsert_sql

MIGRATIONS = [
    """
    CREATE TABLE gradings (
        grading_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, scenario_id VARCHAR,
        scenario_version INTEGER,
        candidate_model VARCHAR, graders JSON NOT NULL, prompt_hash VARCHAR NOT NULL, grader_run_ids JSON,
        status VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, result JSON
    );
    CREATE TABLE grading_verdicts (
        grading_id VARCHAR NOT NULL, instance_id VARCHAR NOT NULL, criterion_index INTEGER NOT NULL,
        grader VARCHAR NOT NULL, met BOOLEAN, explanation VARCHAR, reason VARCHAR, grader_run_id VARCHAR,
        PRIMARY KEY (grading_id, instance_id, criterion_index, grader)
    );
    """,
]
VERDICT_COLUMNS = (
    "grading_id",
    "instance_id",
    "criterion_index",
    "grader",
    "met",
    "explanation",
    "reason",
    "grader_run_id",
)


class GradingStore:
    """Gradings and their verdicts over one connection.

    Example:
        >>> GradingStore(duckdb.connect()).list_gradings()
        []
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        apply_migrations(con, "gradings", MIGRATIONS)

    def create(
        self,
        *,
        run_id: str,
        scenario_id: str | None,
        scenario_version: int | None,
        candidate_model: str | None,
        graders: list[str],
        prompt_hash: str,
    ) -> str:
        """Insert a grading in status ``running``; returns its id."""
        grading_id = f"grading-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.con.cursor().execute(
            "INSERT INTO gradings (grading_id, run_id, scenario_id, scenario_version, candidate_model, "
            "graders, prompt_hash, grader_run_ids, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, '{}', 'running', ?)",
            [
                grading_id,
                run_id,
                scenario_id,
                scenario_version,
                candidate_model,
                json.dumps(graders),
                prompt_hash,
                datetime.now(UTC),
            ],
        )
        return grading_id

    def add_verdicts(
        self, grading_id: str, grader: str, grader_run_id: str, rows: list[dict[str, Any]]
    ) -> None:
        """Record one grader's verdicts (``instance_id``, ``criterion_index``, ``met``, ``explanation``,
        ``reason``) and the run they came from, in one transaction."""
        cur = self.con.cursor()
        cur.execute("BEGIN TRANSACTION")
        try:
            if rows:
                cur.executemany(
                    upsert_sql(
                        "grading_verdicts",
                        VERDICT_COLUMNS,
                        ["grading_id", "instance_id", "criterion_index", "grader"],
                    ),
                    [
                        [
                            grading_id,
                            r["instance_id"],
                            int(r["criterion_index"]),
                            grader,
                            r["met"],
                            r.get("explanation"),
                            r.get("reason"),
                            grader_run_id,
                        ]
                        for r in rows
                    ],
                )
            held = cur.execute(
                "SELECT grader_run_ids FROM gradings WHERE grading_id = ?", [grading_id]
            ).fetchone()
            ids = json.loads(held[0] or "{}") if held else {}
            ids[grader] = grader_run_id
            cur.execute(
                "UPDATE gradings SET grader_run_ids = ? WHERE grading_id = ?", [json.dumps(ids), grading_id]
            )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise

    def finish(self, grading_id: str, status: str, result: dict[str, Any]) -> None:
        """Set the final status and the result computed from the verdicts."""
        self.con.cursor().execute(
            "UPDATE gradings SET status = ?, result = ?, finished_at = ? WHERE grading_id = ?",
            [status, json.dumps(result, default=str), datetime.now(UTC), grading_id],
        )

    def get(self, grading_id: str) -> dict[str, Any] | None:
        """One grading (JSON columns decoded), or None."""
        cur = self.con.cursor().execute("SELECT * FROM gradings WHERE grading_id = ?", [grading_id])
        row = cur.fetchone()
        if row is None:
            return None
        rec = dict(zip([d[0] for d in cur.description], row, strict=True))
        for key in ("graders", "grader_run_ids", "result"):
            rec[key] = json.loads(rec[key]) if rec[key] else None
        return rec

    def list_gradings(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Gradings (of one run, or all), newest first: id, run, scenario, model, status, created."""
        sql = (
            "SELECT grading_id, run_id, scenario_id, scenario_version, candidate_model, status, created_at "
            "FROM gradings"
            + (" WHERE run_id = ?" if run_id else "")
            + " ORDER BY created_at DESC, grading_id DESC"
        )
        cur = self.con.cursor().execute(sql, [run_id] if run_id else [])
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def verdicts(self, grading_id: str) -> list[dict[str, Any]]:
        """Every verdict of a grading, by case, criterion and grader."""
        cur = self.con.cursor().execute(
            "SELECT * FROM grading_verdicts WHERE grading_id = ? "
            "ORDER BY instance_id, criterion_index, grader",
            [grading_id],
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
