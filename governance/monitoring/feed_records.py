"""What the feed store sums for the monitoring stage: per-month counts, identities seen, tags, the series.

Why in ``dossier/``: the store (``store_monitoring``) builds these values and the monitoring stage reads
them, so the types sit below both, like the other record types.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field


class MonthCounts(BaseModel):
    """One candidate's feed rows of one calendar month (UTC), summed in SQL."""

    model_config = ConfigDict(frozen=True)

    month: str
    """``YYYY-MM``."""
    n: int
    """Outputs."""
    reviewed: int = 0
    """Outputs with an outcome other than ``not_reviewed``."""
    edited: int = 0
    """Reviewed outputs the reviewer edited (minor edit or material correction)."""
    material_outcome: int = 0
    """Outputs whose outcome was ``material_correction``."""
    discarded: int = 0
    """Outputs discarded."""
    audited: int = 0
    """Outputs audited."""
    audit_material: int = 0
    """Audited outputs the audit found materially wrong."""
    errors: int = 0
    """Calls that failed (``error`` true)."""
    error_known: int = 0
    """Outputs whose ``error`` was given."""
    cost_usd: float | None = None
    """Summed cost (None: no row gave one)."""
    cost_rows: int = 0
    """Outputs with a cost."""
    latency_p95_ms: float | None = None
    """95th percentile latency (None: no latency given)."""
    latency_rows: int = 0
    """Outputs with a latency."""
    review_seconds_median: float | None = None
    """Median review time of reviewed outputs (None: not given)."""
    review_seconds_rows: int = 0
    """Reviewed outputs with a review time."""
    sentinels: int = 0
    """Planted faulty outputs reviewed."""
    sentinels_caught: int = 0
    """Of them, corrected materially or discarded."""
    first_ts: AwareDatetime | None = None
    """The month's first output (a signal about the month was first seen then; None: not summed)."""


class IdentitySeen(BaseModel):
    """A served model or prompt version seen in the feed, with when it was first and last seen."""

    model_config = ConfigDict(frozen=True)

    value: str | None
    """The served model or prompt version (None: rows without one)."""
    n: int
    """Rows."""
    first_seen: AwareDatetime
    """Earliest row."""
    last_seen: AwareDatetime
    """Latest row."""


class TagCount(BaseModel):
    """Rows of one subgroup (tag value), with the counts a correction-rate ratio needs."""

    model_config = ConfigDict(frozen=True)

    tag: str
    """Tag name (the column ``tag:NAME`` without ``tag:``)."""
    value: str
    """Tag value."""
    n: int
    """Rows."""
    audited: int
    """Audited rows."""
    audit_material: int
    """Audited rows found materially wrong."""
    first_seen: AwareDatetime
    """Earliest row."""


class FeedAggregates(BaseModel):
    """What the store sums for one candidate: the input of ``governance.monitoring.status``."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    candidate: str
    """Candidate the rows were recorded for."""
    rows: int
    """Stored feed rows."""
    first_timestamp: AwareDatetime | None = None
    """Earliest output."""
    last_timestamp: AwareDatetime | None = None
    """Latest output."""
    months: list[MonthCounts] = Field(default_factory=list)
    """Per calendar month, oldest first."""
    served_models: list[IdentitySeen] = Field(default_factory=list)
    """Distinct served models."""
    prompt_versions: list[IdentitySeen] = Field(default_factory=list)
    """Distinct prompt versions."""
    tags: list[TagCount] = Field(default_factory=list)
    """Per tag value."""
    severities: list[IdentitySeen] = Field(default_factory=list)
    """Rows marked with a safety-event severity, per severity."""
    correction_series: list[int] = Field(default_factory=list)
    """Audited outputs in time order: 1 when the audit found a material error, else 0."""
    correction_times: list[datetime] = Field(default_factory=list)
    """Timestamps of ``correction_series`` (same length)."""
    correction_source: str = "audit"
    """``audit`` (audited outputs) or ``outcome`` (reviewed outputs' material corrections, no audits)."""
    judge_scores: list[float] = Field(default_factory=list)
    """Judge scores in time order (empty: the feed has none)."""
    judge_times: list[datetime] = Field(default_factory=list)
    """Timestamps of ``judge_scores``."""
    latency_daily_means: list[float] = Field(default_factory=list)
    """Mean latency (ms) per UTC day with latencies, in day order."""
    latency_days: list[datetime] = Field(default_factory=list)
    """Start (00:00 UTC) of each day of ``latency_daily_means``."""
