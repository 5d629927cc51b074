"""In-memory dossiers with candidates, for the candidate, attestation and comparison tests.

Built here rather than from the demo so the tests do not move when the demo grows, and so each
number a test checks can be worked out by hand from the values below.
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.evidence.record import published_evidence
from governance.dossier.record import Dossier
from governance.intended_use.records import example_intended_use
from governance.procurement.attestations import load_questionnaire, make_answer
from governance.procurement.records import (
    Candidate,
    ContractFacts,
    CostSettings,
    Pricing,
    TokenProfile,
)
from governance.rules.policy import lock_policy
from governance.rules.records import AcceptancePolicy, CostRule, ScoreRule

GPT4O, CLAUDE, LLAMA = "GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)"
NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
GOOD = {
    "intended_use": "covers drafting portal replies",
    "training_data": "licensed text, no patient data",
    "evaluation_data": "held-out synthetic messages",
    "security_certifications": "SOC 2 Type II",
    "evaluation_evidence": "aggregate_report",
    "evidence_maps_to_taxonomy": "all",
    "subgroup_performance": "relevant",
    "phi_retention": "not_retained",
    "model_updates": "yes",
    "incident_reporting": "yes",
    "human_oversight": "every_output",
}
DOC = {"sha256": "a" * 64, "filename": "report.pdf", "media_type": "application/pdf", "size": 10}
GOOD_CONTRACT = ContractFacts(
    data_residency="US", phi_agreement=True, change_notice_days=90, version_pinning=True
)


def answers(skip: tuple[str, ...] = (), override: dict[str, str] | None = None) -> list:
    """Satisfactory answers to every question except ``skip`` (``override`` changes values)."""
    from governance.procurement.records import DocumentRef

    out = []
    values = {**GOOD, **(override or {})}
    for q in load_questionnaire().questions:
        if q.id in skip:
            continue
        doc = DocumentRef(**DOC) if q.document == "required" else None
        out.append(
            make_answer(
                q.id,
                values[q.id],
                by="buyer",
                at=NOW,
                document=doc,
                judgement="satisfactory" if q.kind == "text" else None,
            )
        )
    return out


def candidate(
    cid: str,
    model_id: str,
    version: str = "",
    pricing: Pricing | None = None,
    contract: ContractFacts = GOOD_CONTRACT,
    attestations: list | None = None,
) -> Candidate:
    """A candidate with satisfactory answers unless told otherwise."""
    return Candidate(
        id=cid,
        vendor=f"Vendor {cid}",
        product=f"Product {cid}",
        model_id=model_id,
        model_version=version,
        pricing=pricing,
        contract=contract,
        attestations=answers() if attestations is None else attestations,
        added_by="buyer",
        added_at=NOW,
    )


def three_candidates() -> list[Candidate]:
    """gpt-4o per token, claude per seat, llama per token (on-prem)."""
    return [
        candidate(
            "gpt",
            "gpt-4o",
            "2024-05-13",
            Pricing(kind="per_token", input_usd_per_mtok=2.5, output_usd_per_mtok=10.0),
        ),
        candidate(
            "claude",
            "claude-3-7-sonnet",
            "20250219",
            Pricing(kind="per_seat", usd_per_seat_month=45.0, seats=30),
        ),
        candidate(
            "llama",
            "llama-3.3-70b",
            "",
            Pricing(kind="per_token", input_usd_per_mtok=0.4, output_usd_per_mtok=0.4),
        ),
    ]


def base_dossier(candidates: list[Candidate] | None = None, cost_ceiling: float | None = 25.0) -> Dossier:
    """Three published candidates on MedConfInfo, PrivacyDetection and MedicationQA; one passing score rule.

    Token profiles: 1,000 prompt + 200 completion tokens for every model (so GPT-4o costs
    (1000 × 2.5 + 200 × 10) / 1e6 × 1000 = USD 4.50 per 1,000 requests, Llama USD 0.48).
    """
    d = Dossier(id="D-cand", title="Candidates test", owner="committee", intended_use=example_intended_use())
    mapping = d.mapping.decide("patient_provider_messaging", "accepted", by="me").decide(
        "providing_patient_education_resources", "accepted", by="me"
    )
    evidence = published_evidence(["MedConfInfo", "PrivacyDetection", "MedicationQA"], [GPT4O, CLAUDE, LLAMA])
    rules = [
        ScoreRule(id="privacy", benchmark="PrivacyDetection", threshold=0.9, rationale="privacy must hold")
    ]
    if cost_ceiling is not None:
        rules.append(CostRule(id="cost", threshold=cost_ceiling, rationale="the drafting budget"))
    policy = lock_policy(AcceptancePolicy(rules=rules), by="chair", evidence_ids=[])
    profiles = [
        TokenProfile(
            model=m,
            price_model="gpt-4o",
            mean_prompt_tokens=1000,
            mean_completion_tokens=200,
            source="test profile",
        )
        for m in (GPT4O, CLAUDE, LLAMA)
    ]
    return d.model_copy(
        update={
            "mapping": mapping,
            "evidence": evidence,
            "policy": policy,
            "cost": CostSettings(profiles=profiles, score_benchmark="MedConfInfo"),
            "candidates": three_candidates() if candidates is None else candidates,
        }
    )
