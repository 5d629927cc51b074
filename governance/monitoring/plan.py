"""The monitoring plan a status is computed against: the agreed one, else the tier's defaults (said so).

Why a resolved plan: the bars, the ARL target, deadlines and owners come from one place, so every check
reads the same numbers. A dossier without an agreed review and monitoring plan is still watched, with
``derive_oversight``'s defaults for its tier, and every status says that it is.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.decision.oversight import derive_oversight, load_oversight_defaults
from governance.decision.records import (
    FeedMetric,
    MonitoredMetric,
    MonitoringPlan,
    ReviewRequirements,
)
from governance.dossier.record import Dossier
from governance.monitoring.records import GoLiveSettings

DEFAULT_REVIEW_SECONDS_FLOOR = 10.0
"""Median seconds per review below which review looks like rubber-stamping, when the plan sets no floor."""
METRIC_LABELS: dict[str, str] = {
    "material_correction_share": "share of audited outputs needing a material correction",
    "discarded_share": "share of outputs discarded",
    "error_rate": "share of calls that failed",
    "cost_per_1k": "USD per 1,000 requests",
    "latency_p95_ms": "p95 latency (ms)",
    "sentinel_catch_rate": "share of planted errors caught",
}
"""What each feed metric is called for people."""


class ResolvedPlan(BaseModel):
    """The plan monitoring uses, and where it came from."""

    model_config = ConfigDict(frozen=True)

    monitoring: MonitoringPlan
    """Bars, targets, deadlines, owner."""
    review: ReviewRequirements
    """Audit share and who reviews."""
    agreed: bool
    """False when the tier's defaults stand in for a plan nobody agreed."""
    source: str
    """Where it came from, in words."""


def resolved_plan(dossier: Dossier, candidate: str | None = None) -> ResolvedPlan:
    """The agreed plan, else the tier's defaults, with the latest go-live settings for ``candidate``.

    The go-live settings (``GoLiveSettings`` in the dossier's monitoring record) override the plan's prompt
    version and baseline and add their aliases, without touching the signed plan.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> p = resolved_plan(Dossier(title="x y z", owner="me", intended_use=example_intended_use()))
        >>> p.agreed, p.monitoring.target_arl0
        (False, 500)
    """
    return _with_go_live(_plan(dossier), dossier, candidate)


def _with_go_live(plan: ResolvedPlan, dossier: Dossier, candidate: str | None) -> ResolvedPlan:
    found = [e for e in dossier.monitoring if isinstance(e, GoLiveSettings) and e.candidate == candidate]
    if not found:
        return plan
    g = found[-1]
    m = plan.monitoring
    update: dict = {"model_aliases": sorted({*m.model_aliases, *g.model_aliases})}
    if g.approved_prompt_version is not None:
        update["approved_prompt_version"] = g.approved_prompt_version
    if g.baseline_rate is not None:
        update |= {"baseline_rate": g.baseline_rate, "baseline_start": None, "baseline_end": None}
    elif g.baseline_start is not None and g.baseline_end is not None:
        update |= {"baseline_rate": None, "baseline_start": g.baseline_start, "baseline_end": g.baseline_end}
    return plan.model_copy(
        update={
            "monitoring": m.model_copy(update=update),
            "source": f"{plan.source}, with the go-live settings {g.by} recorded on {g.at:%Y-%m-%d}",
        }
    )


def _plan(dossier: Dossier) -> ResolvedPlan:
    if dossier.oversight is not None:
        who = f", edited by {dossier.oversight.edited_by}" if dossier.oversight.edited_by else ""
        return ResolvedPlan(
            monitoring=dossier.oversight.monitoring,
            review=dossier.oversight.review,
            agreed=True,
            source=f"the dossier's review and monitoring plan{who}",
        )
    tier = dossier.risk.tier
    derived = derive_oversight(
        tier,
        dossier.intended_use.human_oversight,
        [],
        dossier.policy.rules if dossier.policy else [],
        owner=dossier.owner,
    )
    return ResolvedPlan(
        monitoring=derived.monitoring,
        review=derived.review,
        agreed=False,
        source=f"the defaults for tier {tier} (no review and monitoring plan agreed)",
    )


def feed_metric_of(metric: MonitoredMetric) -> FeedMetric | None:
    """What the feed measures for a plan metric: its ``feed_metric``, else read from its name.

    Example:
        >>> feed_metric_of(MonitoredMetric(name="USD per 1,000 requests (billing)", threshold=5,
        ...                                direction="at_most"))
        'cost_per_1k'
    """
    if metric.feed_metric:
        return metric.feed_metric
    name = metric.name.lower()
    if name.startswith("normalized score on"):  # a re-run of the evidence plan: no feed measures it (its
        return None                             # benchmark's or subcategory's name may hold "error")
    if "material correction" in name:
        return "material_correction_share"
    if "unparsed" in name or "unscored" in name or "discarded" in name:
        return "discarded_share"
    if "per 1,000" in name or "per 1000" in name:
        return "cost_per_1k"
    if "latency" in name:
        return "latency_p95_ms"
    if "error" in name or "failed" in name:
        return "error_rate"
    return None


def bars(plan: ResolvedPlan, tier: str) -> dict[str, tuple[float, str]]:
    """Feed metric → (bar, direction): the plan's metrics, the correction share always (tier default).

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="x y z", owner="me", intended_use=example_intended_use())
        >>> bars(resolved_plan(d), "moderate")["material_correction_share"][1]
        'at_most'
    """
    out: dict[str, tuple[float, str]] = {}
    for m in plan.monitoring.metrics:
        kind = feed_metric_of(m)
        if kind and kind not in out:
            out[kind] = (m.threshold, m.direction)
    if "material_correction_share" not in out:
        t = load_oversight_defaults().tiers[tier]  # type: ignore[index]
        out["material_correction_share"] = (t.max_correction_rate, "at_most")
    out["sentinel_catch_rate"] = (plan.monitoring.sentinel_catch_bar, "at_least")
    return out


def review_floor(plan: ResolvedPlan) -> tuple[float, bool]:
    """The review-time floor and whether the plan set it (else the default)."""
    floor = plan.monitoring.review_seconds_floor
    return (DEFAULT_REVIEW_SECONDS_FLOOR, False) if floor is None else (floor, True)
