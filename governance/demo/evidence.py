"""Demo step: attach MedHELM's published evidence for the demo's mapped benchmarks and candidates.

Why published evidence first: it is what a committee can have on day one, before any run. The
step uses the same functions the Evidence page uses (mapping → benchmarks, candidate names →
published names, attach with dedupe), so the demo shows what a reviewer would get by clicking.
"""

from __future__ import annotations

from evaluator.evidence.medhelm import published_scores
from evaluator.evidence.record import published_evidence
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.attach import attach_evidence, mapped_benchmarks
from governance.mapping.model_names import match_candidates

DEMO_AUTHOR = "demo"


def attach_published_demo_evidence(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Attach published scores of the matched candidate models on the mapped benchmarks.

    Example:
        >>> d = attach_published_demo_evidence(store, demo_dossier)  # doctest: +SKIP
        >>> len(d.evidence)  # 3 candidates x 5 benchmarks of the two accepted subcategories  # doctest: +SKIP
        15
    """
    published = sorted(published_scores()["model"].unique())
    models = [m.published for m in match_candidates(dossier.intended_use.candidate_models, published)
              if m.published]
    benchmarks = [b.name for b in mapped_benchmarks(dossier)]
    if not models or not benchmarks:
        return dossier
    return attach_evidence(dossier, published_evidence(benchmarks, models), by=DEMO_AUTHOR)
