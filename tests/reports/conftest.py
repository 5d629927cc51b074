"""Report fixtures: dossier versions built in memory, so the tests do not follow the demo's changes.

``base_version`` is the demo's starting point (intended use, mapping, published evidence for three
candidates on five benchmarks); ``governed_version`` adds what the committee records: locked rules
with a change after the lock, cost inputs (with price overrides, so no price map is loaded), the
review and monitoring plan, a decision and one sign-off on the final content.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evaluator.evidence.record import Evidence, SubgroupScore, evidence_id, published_evidence
from governance.decision import committee
from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion
from governance.intended_use.records import example_intended_use
from governance.procurement.cost_inputs import medhelm_token_profile
from governance.procurement.records import CostSettings
from governance.rules.records import ScoreRule

RUN_ID = "run-20260301-101500-abc123"
GPT4O, CLAUDE, LLAMA = "GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)"
BENCHMARKS = ["MedDialog", "MedConfInfo", "ProxySender", "PrivacyDetection", "MedicationQA"]
PRICES = {GPT4O: ("gpt-4o", 2.5, 10.0), CLAUDE: ("claude-3-7-sonnet-20250219", 3.0, 15.0),
          LLAMA: ("groq/llama-3.3-70b-versatile", 0.59, 0.79)}


def as_version(dossier: Dossier, number: int = 1, parent: str | None = None) -> DossierVersion:
    """A stored-like version of ``dossier`` (hash computed as the store does)."""
    return DossierVersion(dossier=dossier, version=number, hash=dossier.content_hash(), parent_hash=parent,
                          author="tester", created_at=datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture(scope="session")
def base_version() -> DossierVersion:
    """Intended use, mapping (two accepted, one rejected, one local task) and 15 published records."""
    d = Dossier(id="D-report-test", title="Drafting replies to patient portal messages",
                owner="Primary care AI committee", intended_use=example_intended_use())
    mapping = (d.mapping.decide("patient_provider_messaging", "accepted", by="dr.lee")
               .decide("providing_patient_education_resources", "accepted", by="dr.lee")
               .decide("planning_treatments", "rejected", by="dr.lee", note="Out of scope.")
               .add_local_task("patient_provider_messaging", "Draft a reply to a refill request",
                               by="dr.lee"))
    evidence = published_evidence(BENCHMARKS, [GPT4O, CLAUDE, LLAMA])
    return as_version(d.model_copy(update={"mapping": mapping, "evidence": evidence}))


@pytest.fixture(scope="session")
def governed_version(base_version) -> DossierVersion:
    """The base dossier after the committee's steps, ending with a valid clinical-lead sign-off."""
    d = committee.lock_rules(committee.start_rules(base_version.dossier), by="Dr. A. Rivera (chair)",
                             note="Agreed before any local evaluation.")
    stricter = ScoreRule(id="score.privacydetection", benchmark="PrivacyDetection", threshold=0.95, min_n=100,
                         rationale="A disclosure to a third party is a reportable privacy breach.")
    d = committee.change_rule(d, stricter, by="J. Okafor (privacy officer)", why="Privacy office review.")
    profiles = [medhelm_token_profile(m, p).model_copy(update={"input_price_per_mtok": i,
                                                               "output_price_per_mtok": o})
                for m, (p, i, o) in PRICES.items()]
    d = d.model_copy(update={"cost": CostSettings(profiles=profiles, score_benchmark="MedConfInfo")})
    d = committee.derive_plan(d, model=GPT4O)
    d = committee.decide(d, "approve_with_conditions", model=GPT4O, by="Dr. A. Rivera (chair)",
                         rationale="Runs in the hospital's tenant; a local evaluation settles open rules.",
                         conditions=["Every draft is reviewed before it is sent."])
    d = committee.sign(d, "clinical lead", "Dr. M. Chen", version_hash=None)
    return as_version(d, 2, base_version.hash)


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
    """A next version of ``version`` whose dossier has extra evidence."""
    dossier = version.dossier.model_copy(update={"evidence": [*version.dossier.evidence, *evidence]})
    return as_version(dossier, version.version + 1, version.hash)
