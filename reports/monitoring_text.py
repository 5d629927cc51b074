"""Monitoring in words: the ladder, signals, metrics and events as a committee reads them.

Why one module for the words: the Monitoring page, the Decision page, the dossier PDF's cover and the
monthly report all say "paused" or "audited material-correction share"; written once here, they say it
the same way, and no stored key (``rate_above_bar``, ``near_miss``) reaches a reader. Everything takes
the monitoring stage's plain values (``governance.monitoring.models``) and returns text or rows.
"""

from __future__ import annotations

from datetime import datetime

from governance.monitoring.models import MonitoringStatus, Signal

LEVEL_LABELS = {"in_control": "In control", "review": "Review", "pause": "Paused", "suspend": "Suspended"}
KIND_LABELS = {
    "model_change": "Unapproved model identity", "prompt_change": "Unapproved prompt version",
    "drift": "Drift before the bar (CUSUM)", "rate_above_bar": "Monthly rate past the bar",
    "review_effectiveness": "Human review not catching errors",
    "out_of_scope": "Use outside the approved envelope",
    "safety_event": "Safety event", "schedule": "Scheduled re-evaluation due",
    "retirement": "Vendor retires the approved snapshot",
    "canary_identity": "Canary: served identity changed",
    "canary_drift": "Canary: answers drifted from the baseline",
    "canary_unreachable": "Canary: endpoint unreachable",
}
STATE_LABELS = {"open": "open", "acknowledged": "acknowledged", "resolved": "resolved"}
EVENT_SEVERITY_LABELS = {"near_miss": "near miss", "minor": "minor", "moderate": "moderate",
                         "severe": "severe"}
METRIC_LABELS = {
    "material_correction_share": "Audited material-correction share",
    "discarded_share": "Discarded share", "error_rate": "Error rate",
    "cost_per_1k": "USD per 1,000 requests", "latency_p95_ms": "95th-percentile latency (ms)",
    "judge_score": "Judge score", "latency_ms": "Latency (ms)", "sentinel_catch_rate": "Sentinel catch rate",
    "material_correction": "material corrections",
    "served_model": "served model", "prompt_version": "prompt version",
}
SHARE_METRICS = {"material_correction_share", "discarded_share", "error_rate", "sentinel_catch_rate"}
WHAT_TO_DO = {
    "in_control": ("Nothing to do now: keep importing the feed every month and read this page after each "
                   "import."),
    "review": ("Review: the owner of each open signal looks into it before its deadline and resolves it "
               "with a reason (or the re-evaluation that answers it). The model stays in use meanwhile."),
    "pause": ("Pause: stop relying on the model's output until the served identity is approved again. Re-run "
              "the frozen evidence plan against what is served now (the re-evaluation below asks the model "
              "again, never the cache), then resolve the signal by linking the re-evaluation."),
    "suspend": ("Suspended: stop using the model now. Only the committee's chair can return it to service, "
                "by resolving the suspension with a reason."),
}


def level_label(level: str) -> str:
    """A ladder level in words.

    Example:
        >>> level_label("pause")
        'Paused'
    """
    return LEVEL_LABELS.get(level, level.replace("_", " "))


def metric_label(metric: str) -> str:
    """A metric key (or an identity seen) in words; text that is not a key is returned as it is.

    Example:
        >>> metric_label("cost_per_1k"), metric_label("GPT-4o (2024-08-06)")
        ('USD per 1,000 requests', 'GPT-4o (2024-08-06)')
    """
    return METRIC_LABELS.get(metric, metric)


def _when(at: datetime | None) -> str:
    return "—" if at is None else f"{at:%Y-%m-%d %H:%M} UTC"


def open_signals(status: MonitoringStatus) -> list[Signal]:
    """Signals not resolved yet (open or acknowledged), the most severe first."""
    return _open(status.signals)


def _open(signals: list[Signal]) -> list[Signal]:
    order = {"suspend": 0, "pause": 1, "review": 2}
    live = [s for s in signals if s.state != "resolved"]
    return sorted(live, key=lambda s: (order.get(s.level, 3), s.first_seen))


def banner(status: MonitoringStatus) -> tuple[str, str]:
    """The status line and what to do now, e.g. ``("Paused", "Pause: stop relying on ...")``.

    The first open signal's owner, deadline and action follow the general advice.
    """
    text = WHAT_TO_DO.get(status.status, "")
    live = open_signals(status)
    if live:
        s = live[0]
        text += (f" First: {KIND_LABELS.get(s.kind, s.kind).lower()} ({metric_label(s.metric)}); owner "
                 f"{s.owner}, respond by {_when(s.deadline)}. Seen: {s.detail.rstrip('.')}.")
        if s.level == "review":
            text += f" {s.action}"
    return level_label(status.status), text


def one_line(status: MonitoringStatus | None) -> str:
    """The live status in one line (the Decision page and the dossier PDF's cover).

    Example:
        >>> one_line(None)
        'No production feed imported yet.'
    """
    if status is None or (status.rows == 0 and not status.signals):
        return "No production feed imported yet."
    live = open_signals(status)
    worst = f"; {len(live)} open signal(s)" if live else "; no open signal"
    return (f"{level_label(status.status)} as of {_when(status.computed_at)}: {status.rows:,} production "
            f"outputs of {status.approved.candidate}{worst}.")


def signal_rows(status: MonitoringStatus | list[Signal]) -> list[dict[str, str]]:
    """A status's signals (or signals as recorded) as table rows, open ones first (columns in words)."""
    signals = status.signals if isinstance(status, MonitoringStatus) else status
    live = _open(signals)
    rest = [s for s in signals if s.state == "resolved"]
    return [{"Signal": s.id, "Why": KIND_LABELS.get(s.kind, s.kind), "Level": level_label(s.level),
             "State": STATE_LABELS.get(s.state, s.state), "About": metric_label(s.metric),
             "First seen": _when(s.first_seen), "Owner": s.owner, "Respond by": _when(s.deadline),
             "What was seen": s.detail} for s in [*live, *rest]]


def signal_choice(s: Signal) -> str:
    """A signal as one line in a chooser."""
    return (f"{s.id} · {level_label(s.level)} · {KIND_LABELS.get(s.kind, s.kind)} · {metric_label(s.metric)} "
            f"({STATE_LABELS.get(s.state, s.state)})")


def event_rows(status: MonitoringStatus) -> list[dict[str, str]]:
    """The safety-event register as table rows, newest first."""
    return [{"Event": e.id, "Reported": _when(e.at), "By": e.by,
             "Severity": EVENT_SEVERITY_LABELS.get(e.severity, e.severity),
             "What happened": e.description, "Outputs": ", ".join(e.output_ids) or "—"}
            for e in sorted(status.events, key=lambda e: e.at, reverse=True)]


def _fmt(x: float | None, share: bool) -> str:
    return "—" if x is None else (f"{x:.1%}" if share else f"{x:,.2f}")


def month_rows(status: MonitoringStatus) -> list[dict[str, str]]:
    """Every metric's months as table rows: value, 95% interval, bar, whether past the bar."""
    rows = []
    for metric, months in status.metrics.items():
        share = metric in SHARE_METRICS
        for m in months:
            interval = "—" if m.interval is None else \
                f"{_fmt(m.interval[0], share)} to {_fmt(m.interval[1], share)}"
            words = "at most " if m.direction == "at_most" else "at least "
            bar = "none set" if m.bar is None else words + _fmt(m.bar, share)
            rows.append({"Metric": metric_label(metric), "Month": m.month, "Outputs": f"{m.n:,}",
                         "Value": _fmt(m.rate, share), "95% interval": interval, "Bar": bar,
                         "Past the bar": "yes" if m.above_bar else "no"})
    return rows
