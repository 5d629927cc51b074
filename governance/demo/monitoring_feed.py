"""Six months of a simulated production feed for the demo dossier (DEMO DATA), generated, not shipped.

Why generated in code: a data file of tens of thousands of rows would be a large blob nobody can
review; a seeded generator is a few lines whose every choice is written down here, and the same seed
gives the same rows, so the demo's monitoring timeline is the same on every machine. The months are
the six calendar months before the one the demo is seeded in (a feed may not hold future outputs), so
they are dated before the demo's decision: that is part of the simulation, and the page says DEMO DATA.

The timeline (``TIMELINE``), which ``tests/governance/demo/test_demo_monitoring.py`` checks:

- months 1-3: quiet. 4,000 drafts a month, every draft reviewed (as the intended use requires), 10%
  audited (the plan's audit share), a material error in 2% of audited drafts, 20 planted faulty drafts
  (sentinels) a month, all caught;
- month 4: the vendor silently serves another snapshot (``UPDATED_SERVED``) from the 12th to the 14th,
  when the hospital's IT pins the approved one again: an unapproved identity, so a pause;
- month 5: the material-error rate creeps from 2% to 7% of audited drafts over the month (a change in
  the portal's message template, found later): the CUSUM signals inside the month while the month's
  rate interval still reaches below the 5% bar, so a review, not a breach;
- month 6: the template is fixed and the rate is back at 2%.
"""

from __future__ import annotations

import csv
import io
import math
import random
from datetime import UTC, datetime, timedelta

APPROVED_SERVED = "GPT-4o (2024-05-13)"
"""What the provider returns for the approved snapshot (the decided run's model)."""
UPDATED_SERVED = "GPT-4o (2024-08-06)"
"""The snapshot the vendor served without notice in month 4 (the demo re-evaluation's model)."""
PROMPT_VERSION = "portal-reply v3.2"
"""The prompt version every output used: the one the approved candidate records (``demo/candidates.py``),
which monitoring checks when the plan names none."""
SEED = 20260428
PER_MONTH = 4_000
AUDIT_SHARE = 0.10
BASE_RATE = 0.02
CREEP_TO = 0.07
SENTINELS_PER_MONTH = 20
UPDATE_DAYS = (12, 14)
"""Days of month 4 (inclusive start, exclusive end) on which the vendor served ``UPDATED_SERVED``."""
TIMELINE = {1: "quiet", 2: "quiet", 3: "quiet", 4: "silent vendor update (pause)",
            5: "creeping correction rate (CUSUM review)", 6: "quiet after the fix"}
COLUMNS = ["id", "timestamp", "served_model", "prompt_version", "outcome", "latency_ms", "error", "tokens_in",
           "tokens_out", "cost_usd", "reviewer", "review_seconds", "audited", "audit_verdict", "sentinel",
           "tag:age_band"]
REVIEWERS = [f"demo-nurse-{i:02d}" for i in range(1, 13)]
AGE_BANDS = [("18-39", 0.35), ("40-64", 0.40), ("65+", 0.25)]


def demo_months(now: datetime) -> list[str]:
    """The six calendar months (``YYYY-MM``) before the month of ``now``, oldest first.

    Example:
        >>> demo_months(datetime(2026, 12, 1, tzinfo=UTC))
        ['2026-06', '2026-07', '2026-08', '2026-09', '2026-10', '2026-11']
    """
    year, month = now.year, now.month
    out = []
    for _ in range(6):
        month -= 1
        if month == 0:
            year, month = year - 1, 12
        out.append(f"{year:04d}-{month:02d}")
    return out[::-1]


def _month_start(month: str) -> datetime:
    return datetime(int(month[:4]), int(month[5:]), 1, tzinfo=UTC)


def _month_end(month: str) -> datetime:
    start = _month_start(month)
    return (start + timedelta(days=32)).replace(day=1)


def baseline_window(now: datetime) -> tuple[datetime, datetime]:
    """The CUSUM's baseline window the demo committee marks: the first three of the demo's months.

    Example:
        >>> [f"{t:%Y-%m-%d}" for t in baseline_window(datetime(2026, 12, 1, tzinfo=UTC))]
        ['2026-06-01', '2026-08-31']
    """
    months = demo_months(now)
    return _month_start(months[0]), _month_end(months[2]) - timedelta(seconds=1)


def material_rate(number: int, fraction: float) -> float:
    """The simulated share of audited drafts with a material error in month ``number`` at ``fraction``.

    Example:
        >>> material_rate(2, 0.5), material_rate(5, 0.0), round(material_rate(5, 1.0), 3)
        (0.02, 0.02, 0.07)
    """
    return BASE_RATE + (CREEP_TO - BASE_RATE) * fraction if number == 5 else BASE_RATE


def _age_band(rng: random.Random) -> str:
    x, total = rng.random(), 0.0
    for band, share in AGE_BANDS:
        total += share
        if x < total:
            return band
    return AGE_BANDS[-1][0]


def demo_feed_rows(now: datetime, seed: int = SEED) -> list[dict[str, str]]:
    """The six months of feed rows as CSV cells (strings), in time order; the same for the same ``now``.

    Example:
        >>> rows = demo_feed_rows(datetime(2026, 12, 1, tzinfo=UTC))
        >>> len(rows), rows[0]["served_model"], rows[0]["timestamp"][:7]
        (24000, 'GPT-4o (2024-05-13)', '2026-06')
    """
    rng = random.Random(seed)
    rows: list[dict[str, str]] = []
    for number, month in enumerate(demo_months(now), start=1):
        start, end = _month_start(month), _month_end(month)
        span = (end - start).total_seconds()
        times = sorted(rng.uniform(0, span) for _ in range(PER_MONTH))
        sentinels = set(rng.sample(range(PER_MONTH), SENTINELS_PER_MONTH))
        for i, offset in enumerate(times):
            at = start + timedelta(seconds=int(offset))
            served = UPDATED_SERVED if (number == 4 and UPDATE_DAYS[0] <= at.day < UPDATE_DAYS[1]) \
                else APPROVED_SERVED
            audited = rng.random() < AUDIT_SHARE
            sentinel = i in sentinels
            p = material_rate(number, offset / span)
            material = audited and rng.random() < p
            if sentinel:
                outcome = "material_correction" if rng.random() < 0.5 else "discarded"
            elif material:
                outcome = "material_correction" if rng.random() < 0.6 else "minor_edit"
            else:
                x = rng.random()
                outcome = "discarded" if x < 0.012 else "minor_edit" if x < 0.25 else "accepted"
            verdict = ("material" if material else "minor" if rng.random() < 0.15 else "correct") if audited \
                else ""
            tokens_in, tokens_out = rng.randint(350, 900), rng.randint(120, 420)
            error = rng.random() < 0.003
            rows.append({
                "id": f"demo-{month}-{i:05d}", "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "served_model": served, "prompt_version": PROMPT_VERSION, "outcome": outcome,
                "latency_ms": f"{rng.lognormvariate(math.log(1400), 0.35):.0f}",
                "error": "true" if error else "false", "tokens_in": str(tokens_in),
                "tokens_out": str(tokens_out),
                "cost_usd": f"{(tokens_in * 5 + tokens_out * 15) / 1e6:.6f}",
                "reviewer": rng.choice(REVIEWERS),
                "review_seconds": f"{rng.lognormvariate(math.log(75), 0.5):.0f}",
                "audited": "true" if audited else "false", "audit_verdict": verdict,
                "sentinel": "true" if sentinel else "false", "tag:age_band": _age_band(rng),
            })
    return rows


def demo_feed_csv(now: datetime, seed: int = SEED) -> bytes:
    """``demo_feed_rows`` as a CSV file in the feed format (what the demo imports)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(demo_feed_rows(now, seed))
    return out.getvalue().encode("utf-8")
