"""Import a local scenario end to end: read, map, validate, scan for PHI, then (only then) store.

Why two entry points: the page shows a *preview* (table, mapping, every problem, PHI findings) on
each change without writing anything, and ``import_scenario`` stores a version only when the
preview has no problem. Both run the same steps, so what the page shows is what gets stored.
``redact_version`` makes a new version whose identifiers are replaced by typed placeholders and
records what it replaced; the original version stays, as every version does.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from evaluator.benchmarks.instance import Instance
from evaluator.phi import PATTERNS_VERSION, PhiReport, redact_instances, scan_instances
from evaluator.scenarios.columns import ColumnMapping, suggest_column_mapping
from evaluator.scenarios.issues import ImportIssue, ImportRejected
from evaluator.scenarios.store import ScenarioStore, ScenarioVersion
from evaluator.scenarios.table import DEFAULT_MAX_BYTES, RawTable, read_table
from evaluator.scenarios.validate import validate_table


class ImportPreview(BaseModel):
    """Everything known about an upload before it is stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_name: str
    """File name as uploaded."""
    table: RawTable | None
    """The readable table; None when the file itself could not be read."""
    mapping: ColumnMapping | None
    """The mapping applied (the suggestion when none was given)."""
    issues: list[ImportIssue] = Field(default_factory=list)
    """Every problem, file-level and row-level; empty means the file can be stored."""
    instances: list[Instance] = Field(default_factory=list)
    """The cases, when there is no problem."""
    phi: PhiReport | None = None
    """PHI scan of the cases, when there is no problem."""

    @property
    def ok(self) -> bool:
        """True when the upload can be stored as a scenario."""
        return not self.issues and bool(self.instances)


def phi_summary(report: PhiReport) -> dict:
    """The PHI scan as stored with a version (counts only; never the identifiers themselves)."""
    return {
        "counts": report.counts,
        "cases_with_findings": len(report.rows),
        "n_cases": report.n_cases,
        "patterns_version": report.patterns_version,
        "summary": report.summary(),
    }


def preview_import(name: str, data: bytes, mapping: ColumnMapping | None = None,
                   max_bytes: int = DEFAULT_MAX_BYTES) -> ImportPreview:
    """Read, map, validate and scan an upload; writes nothing.

    Example:
        >>> p = preview_import("c.csv", b"id,question,reference\\nq1,Call 555-867-5309?,yes\\n")
        >>> p.ok, p.phi.counts
        (True, {'phone': 1})
    """
    try:
        table = read_table(name, data, max_bytes)
    except ImportRejected as exc:
        return ImportPreview(source_name=name, table=None, mapping=None, issues=exc.issues)
    return preview_table(table, mapping)


def preview_table(table: RawTable, mapping: ColumnMapping | None = None) -> ImportPreview:
    """Map, validate and scan an already read table (the suggested mapping when none is given)."""
    mapping = mapping or suggest_column_mapping(table.columns)
    cases, issues = validate_table(table, mapping)
    if issues:
        return ImportPreview(source_name=table.source_name, table=table, mapping=mapping, issues=issues)
    return ImportPreview(source_name=table.source_name, table=table, mapping=mapping, instances=cases,
                         phi=scan_instances(cases))


def store_preview(
    scenarios: ScenarioStore,
    preview: ImportPreview,
    *,
    scenario_name: str,
    author: str,
    subcategory_ids: Sequence[str] = (),
    dossier_id: str | None = None,
    scenario_id: str | None = None,
    note: str = "",
) -> ScenarioVersion:
    """Store a previewed upload as a new scenario (or a new version of ``scenario_id``).

    Raises:
        ImportRejected: the preview has problems; nothing is stored.
    """
    if not preview.ok or preview.table is None or preview.mapping is None or preview.phi is None:
        raise ImportRejected(preview.source_name, preview.issues or [ImportIssue(reason="no cases to store")])
    table = preview.table
    return scenarios.save(
        preview.instances,
        name=scenario_name,
        author=author,
        scenario_id=scenario_id,
        subcategory_ids=list(subcategory_ids),
        dossier_id=dossier_id,
        note=note or f"imported from {table.source_name}",
        source={"name": table.source_name, "format": table.file_format, "sha256": table.sha256},
        column_mapping=preview.mapping.model_dump(mode="json"),
        phi=phi_summary(preview.phi),
    )


def import_scenario(
    scenarios: ScenarioStore,
    name: str,
    data: bytes,
    *,
    mapping: ColumnMapping | None = None,
    scenario_name: str | None = None,
    author: str,
    subcategory_ids: Sequence[str] = (),
    dossier_id: str | None = None,
    scenario_id: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ScenarioVersion:
    """``preview_import`` then ``store_preview``: the one call the CLI makes.

    Raises:
        ImportRejected: with every problem; nothing is stored.

    Example:
        >>> import duckdb
        >>> scenarios = ScenarioStore(duckdb.connect())
        >>> v = import_scenario(scenarios, "c.csv", b"id,question,reference\\nq1,2+2?,4\\n", author="me")
        >>> v.version, v.n_instances, v.name
        (1, 1, 'c')
    """
    preview = preview_import(name, data, mapping, max_bytes)
    stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return store_preview(
        scenarios,
        preview,
        scenario_name=scenario_name or stem,
        author=author,
        subcategory_ids=subcategory_ids,
        dossier_id=dossier_id,
        scenario_id=scenario_id,
    )


def redact_version(
    scenarios: ScenarioStore, scenario_id: str, *, author: str, version: int | None = None
) -> ScenarioVersion:
    """A new version with every likely identifier replaced by its placeholder (``[PHONE]``, ...).

    Raises:
        ValueError: the version has nothing to redact.
        KeyError: no such scenario or version.
    """
    store = scenarios
    source = store.get(scenario_id, version)
    redacted, counts = redact_instances(store.instances(source.scenario_id, source.version))
    if not counts:
        raise ValueError(f"{scenario_id} version {source.version} has no likely identifiers to redact")
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    note = {
        "from_version": source.version,
        "from_hash": source.hash,
        "replaced": counts,
        "by": author,
        "patterns_version": PATTERNS_VERSION,
        "summary": f"{sum(counts.values())} replaced: {summary}",
    }
    return store.save(
        redacted,
        name=source.name,
        author=author,
        scenario_id=scenario_id,
        subcategory_ids=source.subcategory_ids,
        dossier_id=source.dossier_id,
        note=f"redacted version {source.version}: {summary}",
        source={"name": source.source_name, "format": source.source_format, "sha256": source.source_sha256},
        column_mapping=source.column_mapping,
        phi=phi_summary(scan_instances(redacted)),
        redaction=note,
    )
