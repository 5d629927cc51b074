"""The values the monitoring stage reads and returns: feed aggregates in, a status with its signals out.

Why aggregates and not rows: the feed can hold millions of rows, so the store sums them in SQL per month
(``governance.monitoring.store``) and hands this stage a ``FeedAggregates``; only the one series
a CUSUM needs (the audited outputs' material corrections in time order, and a continuous metric) comes as
arrays. Everything here is a plain value the page, the CLI and the monthly report render.
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from governance.monitoring.feed_records import FeedAggregates, IdentitySeen, MonthCounts, TagCount
from governance.monitoring.records import Level, SafetyEvent, SignalKind

__all__ = [
    "ApprovedIdentity",
    "AuditSampleSize",
    "CusumSummary",
    "FeedAggregates",
    "IdentitySeen",
    "MonitoringStatus",
    "MonthCounts",
    "MonthMetric",
    "Signal",
    "TagCount",
]


class MonthMetric(BaseModel):
    """One metric of one month against its bar."""

    model_config = ConfigDict(frozen=True)

    month: str
    """``YYYY-MM``."""
    n: int
    """Denominator (audited outputs for the correction share, requests for the others)."""
    rate: float | None
    """The month's value (a share, USD per 1,000 requests, or milliseconds); None when not measurable."""
    interval: tuple[float, float] | None
    """95% Wilson interval for shares (None for cost and latency, and when n = 0)."""
    bar: float | None
    """The plan's bar (None: the plan sets none)."""
    direction: str = "at_most"
    """``at_most`` or ``at_least``."""
    above_bar: bool = False
    """True when the interval's lower bound (or the value, without an interval) is past the bar."""


class CusumSummary(BaseModel):
    """One CUSUM chart: its baseline, limit, path and whether and when it signalled."""

    model_config = ConfigDict(frozen=True)

    metric: str
    """What is charted."""
    kind: str
    """``bernoulli`` (per-output events) or ``standardized`` (a continuous metric, two-sided)."""
    baseline: float
    """In-control rate (or mean)."""
    baseline_source: str
    """Where the baseline comes from, in words."""
    target_arl0: int
    """Target in-control average run length (outputs per false alarm)."""
    limit: float | None
    """Decision limit (None: the CUSUM could not be computed; ``note`` says why)."""
    values: list[float] = Field(default_factory=list)
    """The CUSUM path, one value per output after the baseline."""
    signal_index: int | None = None
    """Index in ``values`` of the first crossing (None: in control)."""
    first_seen: AwareDatetime | None = None
    """Time of the output at the first crossing."""
    detection_delay: float | None = None
    """Expected outputs to signal once the rate doubles."""
    note: str = ""
    """What a reader must know (not computed, baseline window, ...)."""


class ApprovedIdentity(BaseModel):
    """What was approved: the candidate, the model identities it may be served as, the prompt version."""

    model_config = ConfigDict(frozen=True)

    candidate: str
    """Candidate as the decision names it."""
    model: str | None
    """The model it was approved as (served identity of the decided run, else its model string)."""
    accepted_models: list[str] = Field(default_factory=list)
    """Every served name accepted (lower case, provider prefix stripped): the model, served names, aliases."""
    prompt_version: str | None = None
    """Approved prompt version (None: not recorded, not checked)."""
    prompt_source: str = ""
    """Where the approved prompt version comes from, in words (empty: none recorded)."""
    source: str = ""
    """Where the identity comes from, in words."""


class Signal(BaseModel):
    """A reason to review, pause or suspend, with who must respond by when and what to do."""

    model_config = ConfigDict(frozen=True)

    id: str
    """Stable id (``S-`` + 10 hex digits of ``key``)."""
    key: str
    """What makes two signals the same (candidate, kind, metric, what was seen)."""
    kind: SignalKind
    """Why it was raised."""
    level: Level
    """Where it puts the candidate on the ladder (review, pause or suspend)."""
    candidate: str
    """Candidate it is about."""
    metric: str
    """What was measured (or the identity seen)."""
    first_seen: AwareDatetime
    """When the data first showed it."""
    owner: str
    """Who must respond."""
    deadline: AwareDatetime
    """Respond by then."""
    action: str
    """What to do."""
    detail: str
    """What was seen, in words."""
    state: str = "open"
    """``open``, ``acknowledged`` or ``resolved`` (from the dossier's record)."""
    command: str | None = None
    """The command to run (a re-evaluation), when the action is one."""


class AuditSampleSize(BaseModel):
    """How many audits a month detect the bar being crossed within a month, beside what the plan yields."""

    model_config = ConfigDict(frozen=True)

    needed_per_month: int | None
    """Audits a month for 80% power (None: not computable)."""
    planned_per_month: int | None
    """The plan's audit share × the latest month's volume (None: no volume yet)."""
    note: str = ""
    """How it was computed."""


class MonitoringStatus(BaseModel):
    """Where one dossier stands after go-live: the ladder, the approved identity, signals and metrics."""

    model_config = ConfigDict(frozen=True)

    dossier_id: str
    """Dossier."""
    status: Level
    """The worst level of any open or acknowledged signal."""
    approved: ApprovedIdentity
    """What was approved."""
    signals: list[Signal] = Field(default_factory=list)
    """Every signal, open ones first."""
    metrics: dict[str, list[MonthMetric]] = Field(default_factory=dict)
    """Metric name → its months, oldest first."""
    rows: int = 0
    """Stored feed rows for the candidate."""
    computed_at: AwareDatetime
    """When this status was computed."""
    plan_source: str
    """``agreed plan`` or the tier's defaults (no monitoring plan agreed), in words."""
    cusum: list[CusumSummary] = Field(default_factory=list)
    """CUSUM charts."""
    subgroups: list[dict] = Field(default_factory=list)
    """Per tag value: n, correction share, ratio to the largest group (small groups suppressed)."""
    audit_sample: AuditSampleSize | None = None
    """Audit sample size against the bar."""
    reevaluation_due: AwareDatetime | None = None
    """When the plan's scheduled re-evaluation falls due."""
    events: list[SafetyEvent] = Field(default_factory=list)
    """Safety events recorded for the candidate."""
    reevaluation_command: str | None = None
    """The re-evaluation to run when a signal asks for one."""
    notes: list[str] = Field(default_factory=list)
    """What a reader must know (defaults used, baselines, what could not be measured)."""
