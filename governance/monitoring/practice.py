"""Rehearsing go-live: a practice copy of a decided dossier, its decision N days back, and a feed for it.

Why the copy's past moves, not its clock: a committee cannot rehearse go-live on the day it decides, since
monitoring counts only rows after the decision (the CUSUM's baseline, the schedule) and the import refuses
rows in the future. Monitoring reads two clocks, ``now`` (the import's future-row check, deadlines, the
schedule; ``operations.common.now_or``) and the decision's ``decided_at`` (where go-live starts). Moving
``now`` forward for one dossier would thread a second clock through every status, import and page, and a
slip would reach a real dossier; moving the copy's decision back moves nothing shared: every check and
every status runs as it does for a real dossier, on real calendar months, and the copy alone says its
decision was N days ago. The copy says so in its record (``Dossier.practice``,
``governance.dossier.practice``) and in its title.

What is copied: the content the committee decided on and the decision, with its dates moved back (the
decision, its confirmations, the frozen plan, go-live settings and their baseline window). What is not:
the sign-offs (nobody signed the copy; the original's signatures stay on the original), and the
original's monitoring record (feed imports, signals, actions, safety events, canaries), whose feed rows
and seals belong to the original. The decision's basis hash is taken again over the copy, which differs
from the original only by its id, its title and its mark.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

from governance.dossier.content_hash import decision_basis_hash
from governance.dossier.practice import PracticeCopy
from governance.dossier.record import Dossier
from governance.monitoring.records import GoLiveSettings

DEFAULT_DAYS_BACK = 180
"""How far back the copy's decision is dated unless the committee says otherwise (six months of feed)."""
TITLE_PREFIX = "PRACTICE — "
ROWS_PER_DAY = 40
MATERIAL_RATE = 0.02
SEED = 12
"""A seed whose 400 days stay in control on every chart. Most do not: on seeds 0-29, the CUSUM of daily mean
latency (its baseline the first 14 days) signalled within 400 days on 26 of these 30 in-control streams
(the median at day 60), though its target is one false alarm in 500 days (measured with ``latency_cusum``,
December 2026; reported with issue 36 item 16). That was the plug-in chart (the baseline's mean and sd used
as if known); the chart is now self-starting, which keeps the target (docs/statistics.md)."""
FEED_COLUMNS = ["id", "timestamp", "served_model", "prompt_version", "outcome", "latency_ms", "tokens_in",
                "tokens_out", "cost_usd", "audited", "audit_verdict"]


class PracticeError(ValueError):
    """A practice copy refused, with one line for the user (the CLI's exit 2)."""


def practice_id(source_id: str, suffix: str) -> str:
    """The copy's id: the original's, ``-practice-`` and a suffix, within the id's 64 characters.

    Example:
        >>> practice_id("D-demo-portal", "3f9a1c")
        'D-demo-portal-practice-3f9a1c'
    """
    tail = f"-practice-{suffix}"
    return source_id[: 64 - len(tail)] + tail


def practice_copy(source: Dossier, *, version: int, content_hash: str, days_back: int, by: str,
                  new_id: str, now: datetime) -> Dossier:
    """The practice copy of ``source`` (version ``version``), its decision dated ``days_back`` days earlier.

    Raises:
        PracticeError: ``source`` has no decision, is itself a practice copy, or ``days_back`` is not 1-3650.
    """
    if source.practice is not None:
        raise PracticeError(
            f"{source.id} is already a practice copy: copy {source.practice.source_id} instead")
    if source.decision is None:
        raise PracticeError(f"{source.id} has no decision yet: go-live (and so its rehearsal) follows the "
                            "committee's decision")
    if not 1 <= days_back <= 3650:
        raise PracticeError(f"--days-ahead must be between 1 and 3650 days (got {days_back})")
    shift = timedelta(days=days_back)
    decision = source.decision
    decision = decision.model_copy(update={
        "decided_at": decision.decided_at - shift,
        "confirmations": [c.model_copy(update={"at": c.at - shift}) for c in decision.confirmations],
    })
    plan = source.evidence_plan
    if plan is not None:
        plan = plan.model_copy(update={"frozen_at": plan.frozen_at - shift})
    go_live = [
        g.model_copy(update={
            "at": g.at - shift,
            "baseline_start": g.baseline_start - shift if g.baseline_start else None,
            "baseline_end": g.baseline_end - shift if g.baseline_end else None,
        })
        for g in source.monitoring if isinstance(g, GoLiveSettings)
    ]
    mark = PracticeCopy(source_id=source.id, source_version=version, source_hash=content_hash,
                        days_back=days_back, made_at=now, made_by=by)
    copy = source.model_copy(update={
        "id": new_id, "title": (TITLE_PREFIX + source.title)[:300], "practice": mark, "signoffs": [],
        "evidence_plan": plan, "monitoring": go_live, "decision": None,
    })
    return copy.model_copy(update={"decision": decision.model_copy(
        update={"content_hash": decision_basis_hash(copy)})})


def practice_feed_rows(dossier: Dossier, *, served_model: str, prompt_version: str | None, now: datetime,
                       seed: int = SEED) -> list[dict[str, str]]:
    """A quiet feed for a practice copy: ``ROWS_PER_DAY`` outputs on each whole UTC day from the day after
    its decision to the last day before ``now``.

    Every output is served by the approved identity with the approved prompt version, a share of them
    audited (the plan's audit share, else 10%), and ``MATERIAL_RATE`` of the audited ones need a material
    correction: a use in control, which the committee then changes by hand to rehearse a signal. The same
    seed and ``now`` give the same rows (rows carry no patient text).

    Raises:
        PracticeError: ``dossier`` is not a practice copy with a decision.
    """
    if dossier.practice is None or dossier.decision is None:
        raise PracticeError(f"{dossier.id} is not a practice copy with a decision: a generated feed is for "
                            "practice copies only")
    share = dossier.oversight.review.qa_sample_rate if dossier.oversight else 0.10
    share = share if share > 0 else 0.10
    rng = random.Random(seed)
    decided = dossier.decision.decided_at.astimezone(UTC)
    start = datetime(decided.year, decided.month, decided.day, tzinfo=UTC) + timedelta(days=1)
    days = max(0, math.floor((now.astimezone(UTC) - start).total_seconds() / 86_400))
    rows = []
    for day in range(days):
        base = start + timedelta(days=day)
        for i in range(ROWS_PER_DAY):
            at = base + timedelta(seconds=rng.randrange(86_400))
            audited = rng.random() < share
            material = audited and rng.random() < MATERIAL_RATE
            edited = not material and rng.random() < 0.2
            outcome = "material_correction" if material else "minor_edit" if edited else "accepted"
            tokens_in, tokens_out = rng.randint(300, 900), rng.randint(100, 400)
            rows.append({
                "id": f"practice-{day:04d}-{i:03d}", "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "served_model": served_model, "prompt_version": prompt_version or "", "outcome": outcome,
                "latency_ms": f"{rng.lognormvariate(math.log(1400), 0.35):.0f}",
                "tokens_in": str(tokens_in), "tokens_out": str(tokens_out),
                "cost_usd": f"{(tokens_in * 5 + tokens_out * 15) / 1e6:.6f}",
                "audited": "true" if audited else "false",
                "audit_verdict": ("material" if material else "correct") if audited else "",
            })
    rows.sort(key=lambda r: r["timestamp"])
    return rows
