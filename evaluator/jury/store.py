"""Jury runs and their judgements, in the app's one DuckDB file (component ``jury``).

Why this shape: the judges' raw replies already live in ``run_results`` and the response cache
(every judge pass is an ordinary run of the runner, so nothing paid for is lost). These tables
hold what the jury *made* of them: one ``jury_runs`` row per jury (which candidate run, which
rubric by hash, which judges, which judge runs), one ``jury_instances`` row per candidate
instance (its reference and response, or why it was not sent), and one ``jury_judgements`` row
per instance × judge with the scores or the reason the reply was unusable, and beside them the
same first reply as MedHELM reads it (``medhelm``: its integers or why it gives none); the jury's
``method`` says which reading is its headline. Pages, the CLI and
the agreement analysis read from here; a jury is never recomputed to be shown.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

import duckdb
import pandas as pd

from evaluator.storage.db import apply_migrations, upsert_sql

MIGRATIONS = [
    """
    CREATE TABLE jury_runs (
        jury_id VARCHAR PRIMARY KEY, run_id VARCHAR NOT NULL, benchmark_id VARCHAR, candidate_model VARCHAR,
        rubric_id VARCHAR NOT NULL, rubric_hash VARCHAR NOT NULL, criteria JSON NOT NULL,
        judges JSON NOT NULL,
        judge_run_ids JSON, status VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ,
        summary JSON
    );
    CREATE TABLE jury_instances (
        jury_id VARCHAR NOT NULL, instance_id VARCHAR NOT NULL, reference VARCHAR, response VARCHAR,
        skipped_reason VARCHAR, PRIMARY KEY (jury_id, instance_id)
    );
    CREATE TABLE jury_judgements (
        jury_id VARCHAR NOT NULL, instance_id VARCHAR NOT NULL, judge VARCHAR NOT NULL, scores JSON,
        explanations JSON, reason VARCHAR, repaired BOOLEAN NOT NULL, calls INTEGER NOT NULL,
        judge_run_id VARCHAR, PRIMARY KEY (jury_id, instance_id, judge)
    );
    """,
    """
    ALTER TABLE jury_runs ADD COLUMN method VARCHAR;
    ALTER TABLE jury_judgements ADD COLUMN medhelm JSON;
    """,
]


JURY_INSTANCE_COLUMNS = ("jury_id", "instance_id", "reference", "response", "skipped_reason")
JURY_JUDGEMENT_COLUMNS = ("jury_id", "instance_id", "judge", "scores", "explanations", "reason", "repaired",
                          "calls", "judge_run_id", "medhelm")


class JuryStore:
    """Jury records over a DuckDB connection.

    Example:
        >>> store = JuryStore(duckdb.connect())
        >>> store.list_juries()
        []
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        apply_migrations(con, "jury", MIGRATIONS)

    def create(
        self,
        *,
        run_id: str,
        benchmark_id: str,
        candidate_model: str,
        rubric_id: str,
        rubric_hash: str,
        criteria: list[str],
        judges: list[str],
        method: str = "strict",
    ) -> str:
        """Insert a jury in status ``running`` with its headline ``method``; returns its id."""
        jury_id = f"jury-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        self.con.execute(
            "INSERT INTO jury_runs (jury_id, run_id, benchmark_id, candidate_model, rubric_id, rubric_hash, "
            "criteria, judges, judge_run_ids, status, created_at, method) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', 'running', now(), ?)",
            [
                jury_id,
                run_id,
                benchmark_id,
                candidate_model,
                rubric_id,
                rubric_hash,
                json.dumps(criteria),
                json.dumps(judges),
                method,
            ],
        )
        return jury_id

    def add_instances(self, jury_id: str, rows: list[dict[str, Any]]) -> None:
        """Record the candidate instances (id, reference, response, and why it was not sent, if so)."""
        if rows:
            self.con.executemany(
                upsert_sql("jury_instances", JURY_INSTANCE_COLUMNS, ["jury_id", "instance_id"]),
                [
                    [
                        jury_id,
                        r["instance_id"],
                        r.get("reference"),
                        r.get("response"),
                        r.get("skipped_reason"),
                    ]
                    for r in rows
                ],
            )

    def add_judgements(
        self, jury_id: str, judge: str, judge_run_ids: list[str], rows: list[dict[str, Any]]
    ) -> None:
        """Record one judge's judgements (scores or reason) and the runs that produced them."""
        self.con.execute("BEGIN TRANSACTION")
        try:
            if rows:
                self.con.executemany(
                    upsert_sql("jury_judgements", JURY_JUDGEMENT_COLUMNS,
                               ["jury_id", "instance_id", "judge"]),
                    [
                        [
                            jury_id,
                            r["instance_id"],
                            judge,
                            json.dumps(r["scores"]) if r["scores"] else None,
                            json.dumps(r.get("explanations") or {}),
                            r.get("reason"),
                            bool(r["repaired"]),
                            int(r["calls"]),
                            r.get("judge_run_id"),
                            json.dumps(r["medhelm"]) if r.get("medhelm") is not None else None,
                        ]
                        for r in rows
                    ],
                )
            ids = json.loads(
                self.con.execute(
                    "SELECT judge_run_ids FROM jury_runs WHERE jury_id = ?", [jury_id]
                ).fetchone()[0]
                or "{}"
            )
            ids[judge] = judge_run_ids
            self.con.execute(
                "UPDATE jury_runs SET judge_run_ids = ? WHERE jury_id = ?", [json.dumps(ids), jury_id]
            )
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise

    def finish(self, jury_id: str, status: str, summary: dict[str, Any]) -> None:
        """Set the final status and the summary."""
        self.con.execute(
            "UPDATE jury_runs SET status = ?, summary = ?, finished_at = now() WHERE jury_id = ?",
            [status, json.dumps(summary, default=str), jury_id],
        )

    def get(self, jury_id: str) -> dict[str, Any] | None:
        """One jury record (JSON columns decoded), or None."""
        cur = self.con.execute("SELECT * FROM jury_runs WHERE jury_id = ?", [jury_id])
        row = cur.fetchone()
        if row is None:
            return None
        rec = dict(zip([d[0] for d in cur.description], row, strict=True))
        for key in ("criteria", "judges", "judge_run_ids", "summary"):
            rec[key] = json.loads(rec[key]) if rec[key] else None
        return rec

    def list_juries(self) -> list[dict[str, Any]]:
        """Every jury, newest first: id, run, benchmark, candidate model, status, created."""
        cur = self.con.execute(
            "SELECT jury_id, run_id, benchmark_id, candidate_model, rubric_id, status, created_at "
            "FROM jury_runs ORDER BY created_at DESC, jury_id DESC"
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def instances(self, jury_id: str) -> pd.DataFrame:
        """The jury's candidate instances: ``instance_id, reference, response, skipped_reason``."""
        return self.con.execute(
            "SELECT instance_id, reference, response, skipped_reason FROM jury_instances "
            "WHERE jury_id = ? ORDER BY instance_id",
            [jury_id],
        ).df()

    def judgements(self, jury_id: str) -> list[dict[str, Any]]:
        """Every judgement of a jury, scores decoded (None when unscored)."""
        cur = self.con.execute(
            "SELECT * FROM jury_judgements WHERE jury_id = ? ORDER BY instance_id, judge", [jury_id]
        )
        names = [d[0] for d in cur.description]
        out = []
        for row in cur.fetchall():
            rec = dict(zip(names, row, strict=True))
            rec["scores"] = json.loads(rec["scores"]) if rec["scores"] else None
            rec["explanations"] = json.loads(rec["explanations"]) if rec["explanations"] else {}
            rec["medhelm"] = json.loads(rec["medhelm"]) if rec.get("medhelm") else None
            out.append(rec)
        return out

    def ratings_frame(self, jury_id: str) -> pd.DataFrame:
        """Valid judgements as a ratings table ``instance_id, rater, dataset, <criteria…>`` (agreement input).

        Raises:
            KeyError: no jury with this id.
        """
        jury = self.get(jury_id)
        if jury is None:
            raise KeyError(f"no jury {jury_id!r}")
        rows = [
            {
                "instance_id": j["instance_id"],
                "rater": j["judge"],
                "dataset": jury["benchmark_id"],
                **j["scores"],
            }
            for j in self.judgements(jury_id)
            if j["scores"]
        ]
        return pd.DataFrame(rows, columns=["instance_id", "rater", "dataset", *jury["criteria"]])
