"""Local scenarios in the app's DuckDB file: versioned, content-hashed, never overwritten.

Storage design (component ``scenarios``):

* ``scenario_versions``: one row per version with its SHA-256 content hash (over name,
  subcategories and the canonical JSON of every case), the parent version's hash, the source
  file's name, format and SHA-256, the column mapping used, the PHI scan summary, a redaction
  note when the version was made by redaction, and who saved it. Saving content identical to the
  latest version is a no-op; any edit (new file, remapping, redaction) appends version n + 1.
* ``scenario_instances``: the cases of each version, in file order, as Instance JSON.
* ``scenario_runs``: which runs (``runs.run_id`` of the run store) were made on which version.

A version and its cases are written in one transaction, so a failed save leaves no trace. Only
validated cases reach this module (see ``evaluator.scenarios.validate``).
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

import duckdb
import pyarrow as pa
from pydantic import AwareDatetime, BaseModel, ConfigDict

from evaluator.benchmarks.instance import Instance
from evaluator.runs.store import canonical_json, sha256_of
from evaluator.storage.db import apply_migrations, is_postgres

MIGRATIONS = [
    """
    CREATE TABLE scenario_versions (
        scenario_id VARCHAR NOT NULL, version INTEGER NOT NULL, hash VARCHAR NOT NULL, parent_hash VARCHAR,
        name VARCHAR NOT NULL, dossier_id VARCHAR, subcategory_ids JSON NOT NULL, source_name VARCHAR,
        source_format VARCHAR, source_sha256 VARCHAR, column_mapping JSON, n_instances INTEGER NOT NULL,
        tag_names JSON NOT NULL, phi JSON, redaction JSON, note VARCHAR, author VARCHAR NOT NULL,
        created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (scenario_id, version)
    );
    CREATE TABLE scenario_instances (
        scenario_id VARCHAR NOT NULL, version INTEGER NOT NULL, position INTEGER NOT NULL,
        instance_id VARCHAR NOT NULL, instance JSON NOT NULL, PRIMARY KEY (scenario_id, version, position)
    );
    CREATE TABLE scenario_runs (
        scenario_id VARCHAR NOT NULL, version INTEGER NOT NULL, run_id VARCHAR NOT NULL,
        endpoint_name VARCHAR, phi_approved BOOLEAN, created_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (run_id)
    );
    """,
]
TABLES = ("scenario_versions", "scenario_instances", "scenario_runs")


class ScenarioVersion(BaseModel):
    """One stored version of a local scenario (its cases are loaded separately)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario_id: str
    """Stable id such as ``sc_3f9a1c2b``; also the benchmark id of its runs."""
    version: int
    """1, 2, ... in save order."""
    hash: str
    """SHA-256 of the content (name, subcategories, cases)."""
    parent_hash: str | None
    """Hash of the previous version."""
    name: str
    """Name the committee gave the scenario."""
    dossier_id: str | None
    """Dossier it was imported for, if any."""
    subcategory_ids: list[str]
    """MedHELM subcategories the scenario provides evidence for."""
    source_name: str | None
    """Uploaded file name."""
    source_format: str | None
    """csv, xlsx or jsonl."""
    source_sha256: str | None
    """SHA-256 of the uploaded bytes."""
    column_mapping: dict[str, Any] | None
    """The column mapping used (``ColumnMapping`` as JSON)."""
    n_instances: int
    """Number of cases."""
    tag_names: list[str]
    """Subgroup tags present in the cases."""
    phi: dict[str, Any] | None
    """PHI scan summary of this version's cases (counts by kind, cases with findings)."""
    redaction: dict[str, Any] | None
    """Set when this version was made by redaction: from which version, what was replaced, by whom."""
    note: str
    """Why this version was saved."""
    author: str
    """Who saved it."""
    created_at: AwareDatetime
    """When."""


def new_scenario_id() -> str:
    """Short unique id usable as a benchmark id (``^[a-z0-9_]+$``).

    Example:
        >>> new_scenario_id().startswith("sc_")
        True
    """
    return "sc_" + secrets.token_hex(4)


def content_hash(name: str, subcategory_ids: list[str], instances: list[Instance]) -> str:
    """SHA-256 of what makes a version what it is.

    Example:
        >>> content_hash("a", [], []) == content_hash("a", [], [])
        True
    """
    return sha256_of(
        {
            "name": name,
            "subcategory_ids": sorted(subcategory_ids),
            "instances": [i.model_dump(mode="json") for i in instances],
        }
    )


class ScenarioStore:
    """Versions, cases and runs of local scenarios over one DuckDB connection.

    Example:
        >>> s = ScenarioStore(duckdb.connect())
        >>> s.list_versions()
        []
    """

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con = con
        apply_migrations(con, "scenarios", MIGRATIONS)

    def save(
        self,
        instances: list[Instance],
        *,
        name: str,
        author: str,
        scenario_id: str | None = None,
        subcategory_ids: list[str] | None = None,
        dossier_id: str | None = None,
        note: str = "",
        source: dict[str, Any] | None = None,
        column_mapping: dict[str, Any] | None = None,
        phi: dict[str, Any] | None = None,
        redaction: dict[str, Any] | None = None,
    ) -> ScenarioVersion:
        """Append a version (or return the latest when the content is unchanged)."""
        if not instances:
            raise ValueError("a scenario needs at least one case")
        if not author.strip() or not name.strip():
            raise ValueError("a scenario version needs a name and an author")
        subs = list(subcategory_ids or [])
        digest = content_hash(name, subs, instances)
        scenario_id = scenario_id or new_scenario_id()
        latest = self.latest(scenario_id)
        if latest is not None and latest.hash == digest:
            return latest
        source = source or {}
        tags = sorted({t for i in instances for t in i.subgroups})
        row = dict(
            scenario_id=scenario_id,
            version=latest.version + 1 if latest else 1,
            hash=digest,
            parent_hash=latest.hash if latest else None,
            name=name.strip(),
            dossier_id=dossier_id,
            subcategory_ids=subs,
            source_name=source.get("name"),
            source_format=source.get("format"),
            source_sha256=source.get("sha256"),
            column_mapping=column_mapping,
            n_instances=len(instances),
            tag_names=tags,
            phi=phi,
            redaction=redaction,
            note=note,
            author=author,
            created_at=datetime.now(UTC),
        )
        cases = pa.table(
            {
                "scenario_id": [scenario_id] * len(instances),
                "version": [row["version"]] * len(instances),
                "position": list(range(len(instances))),
                "instance_id": [i.id for i in instances],
                "instance": [canonical_json(i.model_dump(mode="json")) for i in instances],
            }
        )
        cur = self.con.cursor()
        cur.execute("BEGIN TRANSACTION")
        try:
            cur.execute(
                "INSERT INTO scenario_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [v if not isinstance(v, dict | list) else json.dumps(v) for v in row.values()],
            )
            if is_postgres(cur):  # a server takes the cases as parameters; DuckDB reads the Arrow table
                cur.executemany("INSERT INTO scenario_instances VALUES (?, ?, ?, ?, ?)",
                                [list(r.values()) for r in cases.to_pylist()])
            else:
                cur.register("_scenario_cases", cases)
                cur.execute("INSERT INTO scenario_instances SELECT * FROM _scenario_cases")
                cur.unregister("_scenario_cases")
            cur.execute("COMMIT")
        except Exception:
            cur.execute("ROLLBACK")
            raise
        return ScenarioVersion(**row)

    def _versions(self, where: str = "", params: list | None = None) -> list[ScenarioVersion]:
        cur = self.con.cursor().execute(
            f"SELECT * FROM scenario_versions {where} ORDER BY created_at DESC, scenario_id, version DESC",
            params or [],
        )
        names = [d[0] for d in cur.description]
        out = []
        for values in cur.fetchall():
            rec = dict(zip(names, values, strict=True))
            for key in ("subcategory_ids", "tag_names", "column_mapping", "phi", "redaction"):
                rec[key] = json.loads(rec[key]) if rec[key] is not None else None
            rec["note"] = rec["note"] or ""
            out.append(ScenarioVersion(**rec))
        return out

    def list_versions(self, scenario_id: str | None = None) -> list[ScenarioVersion]:
        """Every version (newest first), or the versions of one scenario."""
        return self._versions("WHERE scenario_id = ?", [scenario_id]) if scenario_id else self._versions()

    def latest(self, scenario_id: str) -> ScenarioVersion | None:
        """The newest version of a scenario, or None."""
        versions = self.list_versions(scenario_id)
        return max(versions, key=lambda v: v.version) if versions else None

    def get(self, scenario_id: str, version: int | None = None) -> ScenarioVersion:
        """A version (newest by default); ``KeyError`` naming the known ids when absent."""
        found = (
            self.latest(scenario_id)
            if version is None
            else next(
                iter(self._versions("WHERE scenario_id = ? AND version = ?", [scenario_id, version])), None
            )
        )
        if found is None:
            known = sorted({v.scenario_id for v in self.list_versions()})
            what = f"version {version} of scenario" if version else "scenario"
            raise KeyError(f"no {what} {scenario_id!r}; known scenarios: {', '.join(known) or 'none'}")
        return found

    def instances(self, scenario_id: str, version: int) -> list[Instance]:
        """The cases of one version, in file order."""
        rows = (
            self.con.cursor()
            .execute(
                "SELECT instance FROM scenario_instances WHERE scenario_id = ? AND version = ? "
                "ORDER BY position",
                [scenario_id, version],
            )
            .fetchall()
        )
        return [Instance.model_validate_json(r[0]) for r in rows]

    def version_of_run(self, run_id: str) -> ScenarioVersion | None:
        """The scenario version that ``run_id`` ran, or None when it is not a scenario run."""
        row = (
            self.con.cursor()
            .execute("SELECT scenario_id, version FROM scenario_runs WHERE run_id = ?", [run_id])
            .fetchone()
        )
        return None if row is None else self.get(row[0], row[1])

    def record_run(
        self, version: ScenarioVersion, run_id: str, endpoint_name: str, phi_approved: bool
    ) -> None:
        """Remember that ``run_id`` ran this version (idempotent)."""
        self.con.cursor().execute(
            "INSERT INTO scenario_runs VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [version.scenario_id, version.version, run_id, endpoint_name, phi_approved, datetime.now(UTC)],
        )

    def runs(self, scenario_id: str, version: int | None = None) -> list[dict[str, Any]]:
        """Runs made on a scenario (optionally one version), newest first."""
        sql = (
            "SELECT scenario_id, version, run_id, endpoint_name, phi_approved, created_at FROM scenario_runs "
            "WHERE scenario_id = ?" + (" AND version = ?" if version is not None else "")
        )
        params = [scenario_id] + ([version] if version is not None else [])
        rows = self.con.cursor().execute(sql + " ORDER BY created_at DESC", params).fetchall()
        keys = ("scenario_id", "version", "run_id", "endpoint_name", "phi_approved", "created_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def table_counts(self) -> dict[str, int]:
        """Rows per scenario table (tests use it to prove a rejected import stored nothing)."""
        cur = self.con.cursor()
        return {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
