"""Builders for policy, verdict and decision tests: evidence records and dossiers with known numbers."""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.evidence.record import Evidence, SubgroupScore
from governance.dossier.record import Dossier
from governance.intended_use.records import example_intended_use

WILSON = "Wilson score interval, 95%"


def ev(score: float, lo: float | None = None, hi: float | None = None, n: int | None = 300, *,
       model: str = "model-a", benchmark: str = "BenchA", metric: str = "EM", provenance: str = "local-run",
       scale: str = "0-1", higher_is_better: bool = True, method: str = "percentile bootstrap, seed 0",
       subcategory: str | None = "Patient-Provider Messaging", **extra) -> Evidence:
    """An evidence record; without lo/hi it carries a missing-interval reason."""
    interval = ({"ci_lower": lo, "ci_upper": hi, "ci_method": method} if lo is not None
                else {"ci_missing_reason": "published mean without per-instance scores"})
    return Evidence(id=f"{provenance}:{model}:{benchmark}:{metric}:{score}", model=model, benchmark=benchmark,
                    metric=metric, score=score, scale=scale, higher_is_better=higher_is_better, n=n,
                    provenance=provenance, source="test", date=datetime(2026, 1, 1, tzinfo=UTC),
                    subcategory=subcategory, **interval, **extra)


def group(tag: str, name: str, score: float, lo: float | None, hi: float | None, n: int = 100,
          suppressed: bool = False) -> SubgroupScore:
    return SubgroupScore(tag=tag, group=name, score=None if suppressed else score, n=n,
                         ci_lower=None if suppressed else lo, ci_upper=None if suppressed else hi,
                         suppressed=suppressed)


def dossier(evidence: list[Evidence] = (), **update) -> Dossier:
    d = Dossier(id="D-test", title="Portal replies", owner="Committee", intended_use=example_intended_use())
    return d.model_copy(update={"evidence": list(evidence), **update})
