"""Report fixtures: the seeded demo dossier version, and local-run evidence with subgroups."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.evidence import Evidence, SubgroupScore, evidence_id
from governance.store import DossierVersion, Store

RUN_ID = "run-20260301-101500-abc123"


@pytest.fixture(scope="session")
def demo_version(tmp_path_factory) -> DossierVersion:
    """The latest version of the demo dossier in a store of its own (seeded once: seeding is slow)."""
    from governance.demo import DEMO_ID, seed_demo

    store = Store.open(tmp_path_factory.mktemp("demo") / "medassure.duckdb")
    seed_demo(store)
    version = store.load(DEMO_ID)
    store.close()
    return version


def local_run_evidence(model: str = "openai/gpt-4o", benchmark: str = "medication_qa",
                       run_id: str = RUN_ID) -> Evidence:
    """A local run's evidence record with unparsed counts and two subgroups."""
    return Evidence(
        id=evidence_id("local-run", run_id, model, benchmark, "accuracy", run_id), model=model,
        benchmark=benchmark, metric="accuracy", score=0.8, n=200, ci_lower=0.74, ci_upper=0.85,
        ci_method="percentile bootstrap, 1000 resamples, seed 0", provenance="local-run", source=run_id,
        date=datetime(2026, 3, 1, 10, 15, tzinfo=UTC), run_id=run_id, n_unparsed=3, n_unscored=1,
        subgroups=[SubgroupScore(tag="sex", group="F", score=0.82, n=110, ci_lower=0.74, ci_upper=0.88),
                   SubgroupScore(tag="sex", group="M", score=0.77, n=85),
                   SubgroupScore(tag="age_band", group="90+", n=5, suppressed=True)],
    )


def with_evidence(version: DossierVersion, evidence: list[Evidence]) -> DossierVersion:
    """A copy of ``version`` whose dossier has extra evidence (hash recomputed)."""
    dossier = version.dossier.model_copy(update={"evidence": [*version.dossier.evidence, *evidence]})
    return version.model_copy(update={"dossier": dossier, "hash": dossier.content_hash(),
                                      "version": version.version + 1, "parent_hash": version.hash})
