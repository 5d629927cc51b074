"""The monitoring status of one candidate: every check composed, and the ladder's verdict.

Why one composing function: the page, the CLI and the monthly report show the same status, so they call
``compute_status`` (through the operations) and render what comes back. The checks, in the issue's
order: identity (served model, prompt version) → pause; the vendor's retirement date of the approved
snapshot (``retirement``: past → pause, inside the notice window → review); monthly rates above their
bars → review; CUSUM drift → review; review effectiveness (rubber-stamping, sentinels missed) → review;
the schedule → review; subgroups, and use outside the approved envelope → review; safety events,
moderate or worse → suspend.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from evaluator.inputs.text_controls import visible_name
from governance.dossier.record import Dossier
from governance.monitoring.drift import correction_cusum, correction_evidence, latency_cusum, score_cusum
from governance.monitoring.identity import approved_identity, unapproved_models, unapproved_prompts
from governance.monitoring.ladder import ladder_status, make_signal, with_record
from governance.monitoring.models import FeedAggregates, MonitoringStatus, Signal
from governance.monitoring.plan import METRIC_LABELS, bars, resolved_plan, review_floor
from governance.monitoring.procured import Procured, procured
from governance.monitoring.rates import audit_sample, month_metrics, rubber_stamping
from governance.monitoring.records import SUSPENDING, SafetyEvent
from governance.monitoring.retirement import retirement_signal
from governance.monitoring.schedule import reevaluation_due
from governance.monitoring.subgroups import out_of_envelope, subgroup_rows


def _month_start(month: str) -> datetime:
    """The month's first instant: a signal's first sighting only when the feed gave no first output."""
    year, mon = month.split("-")
    return datetime(int(year), int(mon), 1, tzinfo=UTC)


def _figure(value: float, *, share: bool) -> str:
    """A rate and its bar in one form: a share as a percentage, anything else (cost, latency) as a number.

    Example:
        >>> _figure(0.061, share=True), _figure(0.02, share=True), _figure(1234.5, share=False)
        ('6.1%', '2.0%', '1,234.50')
    """
    return f"{value:.1%}" if share else f"{value:,.2f}"


def reevaluation_command(dossier_id: str) -> str:
    """The command that re-runs the frozen evidence plan (it always asks the model again, never the cache).

    Example:
        >>> reevaluation_command("D-1")
        'medassure reevaluate D-1'
    """
    return f"medassure reevaluate {dossier_id}"


def compute_status(
    dossier: Dossier,
    aggregates: FeedAggregates,
    *,
    now: datetime,
    candidate: str,
    served: Iterable[str] = (),
    facts: Procured | None = None,
) -> MonitoringStatus:
    """The status of ``candidate`` from the dossier (plan, decision, record) and the feed's aggregates.

    Args:
        dossier: the dossier (its plan, decision, frozen evidence plan and monitoring record are read).
        aggregates: the candidate's feed, summed by the store.
        now: the clock (deadlines, the schedule).
        candidate: the candidate watched.
        served: served model names of the decided runs' answers (from the run store).
        facts: the candidate's procurement record and retirement date, gathered by the operation
            (``procured``); None: looked up here from the dossier (a caller without a store, e.g. a test).
    """
    plan = resolved_plan(dossier, candidate)
    mp = plan.monitoring
    notes = [f"Plan: {plan.source}."]
    facts = facts if facts is not None else procured(dossier, candidate)
    approved = approved_identity(dossier, candidate, mp, served, procured=facts)
    command = reevaluation_command(dossier.id)
    decided_at = dossier.decision.decided_at if dossier.decision else None
    signals: list[Signal] = []

    def add(**kw) -> None:
        signals.append(make_signal(candidate=candidate, plan=mp, now=now, **kw))

    for s in unapproved_models(approved, aggregates.served_models):
        name = visible_name(s.value) if s.value else "(none named)"
        add(
            kind="model_change",
            metric="served_model",
            seen=s.value or "(none named)",
            first_seen=s.first_seen,
            detail=f"{s.n:,} outputs were served as {name}, which was not approved "
            f"(approved: {', '.join(approved.accepted_models)})",
            action="Pause use; re-run the frozen evidence plan against the model now served, then resolve "
            "with the re-evaluation (or record the name as an alias if it is the approved model)",
            command=command,
        )
    for s in unapproved_prompts(approved, aggregates.prompt_versions):
        add(
            kind="prompt_change",
            metric="prompt_version",
            seen=str(s.value),
            first_seen=s.first_seen,
            detail=f"{s.n:,} outputs used prompt version {visible_name(str(s.value))}; "
            f"version {approved.prompt_version} was approved",
            action="Pause use; re-run the frozen evidence plan with the new prompt, then resolve with the "
            "re-evaluation",
            command=command,
        )
    if approved.prompt_version is None:
        notes.append("No approved prompt version is recorded (neither the plan nor the candidate's record "
                     "names one): prompt versions are not checked.")
    else:
        notes.append(f"Approved prompt version {approved.prompt_version}, from {approved.prompt_source}.")
    retirement_signal(facts, mp, now, add, notes)

    bar_table = bars(plan, dossier.risk.tier)
    metrics = month_metrics(aggregates.months, bar_table, aggregates.correction_source)
    first_in_month = {m.month: m.first_ts for m in aggregates.months if m.first_ts is not None}
    if aggregates.correction_source == "outcome" and aggregates.rows:
        notes.append("The feed has no audits: the correction share counts reviewers' material corrections.")
    for kind, rows in metrics.items():
        for m in rows:
            if not m.above_bar:
                continue
            label = METRIC_LABELS.get(kind, kind)
            shown = _figure(m.rate, share=m.interval is not None)
            ci = f" (95% interval {m.interval[0]:.1%} to {m.interval[1]:.1%})" if m.interval else ""
            side = "below" if m.direction == "at_least" else "above"
            signal_kind = "review_effectiveness" if kind == "sentinel_catch_rate" else "rate_above_bar"
            add(
                kind=signal_kind,
                metric=kind,
                seen=m.month,
                first_seen=first_in_month.get(m.month) or _month_start(m.month),
                detail=f"{label} in {m.month}: {shown}{ci} on {m.n:,}, {side} the bar of "
                f"{_figure(m.bar, share=m.interval is not None)}",
                action=f"Review the {m.month} outputs and what changed; decide whether to pause",
            )

    cusum = [
        correction_cusum(
            aggregates.correction_series,
            aggregates.correction_times,
            mp,
            decided_at,
            aggregates.correction_source,
            correction_evidence(dossier.evidence, candidate),
        )
    ]
    scored = score_cusum(aggregates.judge_scores, aggregates.judge_times, mp, decided_at)
    if scored is not None:
        cusum.append(scored)
    latency = latency_cusum(aggregates.latency_daily_means, aggregates.latency_days, mp, decided_at)
    if latency is not None:
        cusum.append(latency)
    for c in cusum:
        if c.first_seen is not None and c.signal_index is not None:
            add(
                kind="drift",
                metric=c.metric,
                seen=c.first_seen.isoformat(),
                first_seen=c.first_seen,
                detail=f"the CUSUM of {c.metric} reached its limit {c.limit:.3g} "
                f"at output {c.signal_index + 1:,} "
                f"after the baseline ({c.baseline_source}; baseline {c.baseline:.3g})",
                action="Review: the rate is drifting from its baseline before the monthly bar is crossed",
            )
        elif c.limit is None and c.note:
            notes.append(f"CUSUM of {c.metric}: {c.note}.")

    floor, floor_set = review_floor(plan)
    if not floor_set:
        notes.append(f"No review-time floor agreed: the default of {floor:g} s is used.")
    for month, metric, seen in rubber_stamping(aggregates.months, floor):
        add(
            kind="review_effectiveness",
            metric=metric,
            seen=month,
            first_seen=first_in_month.get(month) or _month_start(month),
            detail=seen,
            action="Review how outputs are reviewed (time given, training, sentinel results)",
        )

    due, basis = reevaluation_due(dossier, mp.schedule_months)
    if due is not None and now >= due:
        add(
            kind="schedule",
            metric="re-evaluation",
            seen=due.date().isoformat(),
            first_seen=due,
            detail=f"the scheduled re-evaluation fell due on {due:%Y-%m-%d} ({basis})",
            action="Run the scheduled re-evaluation of the frozen evidence plan",
            command=command,
        )

    for tag, value, n, first, why in out_of_envelope(
        aggregates.tags, mp.approved_tags, dossier.intended_use.out_of_scope_uses
    ):
        add(
            kind="out_of_scope",
            metric=f"tag:{tag}",
            seen=value,
            first_seen=first,
            detail=f"{n:,} outputs tagged {tag} = {value}: {why}",
            action="Review: this use is outside the approved envelope; stop it or widen the intended use",
        )

    events = [e for e in dossier.monitoring if isinstance(e, SafetyEvent) and e.candidate == candidate]
    for e in events:
        if e.severity == "near_miss":
            continue
        level = "suspend" if e.severity in SUSPENDING else "review"
        add(
            kind="safety_event",
            metric=e.severity,
            seen=e.id,
            first_seen=e.occurred_at or e.at,
            level=level,
            detail=f"{e.severity.replace('_', ' ')} safety event {e.id} reported by {e.by}: "
            f"{e.description[:200]}",
            action="Suspend use at once; only the chair returns the candidate to service"
            if level == "suspend"
            else "Review the event and the outputs involved",
        )
    for s in aggregates.severities:
        if s.value in SUSPENDING:
            add(
                kind="safety_event",
                metric=s.value,
                seen=f"feed:{s.value}",
                first_seen=s.first_seen,
                level="suspend",
                detail=f"{s.n:,} feed rows carry a {s.value} safety event",
                action="Suspend use at once; record the event in the register; only the chair returns the "
                "candidate to service",
            )

    signals = with_record(signals, dossier, candidate)
    latest = aggregates.months[-1].n if aggregates.months else None
    correction_bar = bar_table["material_correction_share"][0]
    asks_reeval = any(s.command and s.state != "resolved" for s in signals)
    return MonitoringStatus(
        dossier_id=dossier.id,
        status=ladder_status(signals),
        approved=approved,
        signals=signals,
        metrics=metrics,
        rows=aggregates.rows,
        computed_at=now,
        plan_source=plan.source,
        cusum=cusum,
        subgroups=subgroup_rows(aggregates.tags),
        audit_sample=audit_sample(correction_bar, plan.review.qa_sample_rate, latest),
        reevaluation_due=due,
        events=events,
        reevaluation_command=command if asks_reeval else None,
        notes=notes,
    )
