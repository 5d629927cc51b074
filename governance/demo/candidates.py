"""Demo step: three vendor candidates with prices, contract facts and attestations (all DEMO DATA).

Why fictitious vendors: the answers below are invented to show what the comparison does with a
complete questionnaire, a missing answer, an unreviewed one and an unsatisfactory one. Putting
such statements in the mouth of a real company would be wrong, so the vendors are fictitious
(Contoso, Northwind) or the hospital itself; the models are the demo's three candidates, whose
published MedHELM evidence the earlier step attached. Every answer's note and every document
says DEMO DATA.

Northwind's answer on subgroup performance is deliberately missing: it shows up as an open item
on the Candidates page, in the recommendation's conditions and in the report.

This step runs before the decision steps, so the demo committee's decision and sign-off cover
the candidates (a later change would invalidate the sign-off, as it should).
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.gateway.llm import ModelEndpoint
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.procurement.attestations import load_questionnaire, make_answer
from governance.procurement.candidates import record_attestation, upsert_candidate
from governance.procurement.records import Candidate, ContractFacts, Pricing
from governance.procurement.store import DocumentStore

DEMO_AUTHOR = "demo"
NOTE = "DEMO DATA: fictitious answer for illustration."
ENTERED_BY = "J. Park (procurement, demo)"


def demo_candidates(at: datetime) -> list[Candidate]:
    """The three demo candidates without answers.

    Example:
        >>> [c.model_id for c in demo_candidates(datetime.now(UTC))]
        ['gpt-4o', 'claude-3-7-sonnet', 'llama-3.3-70b']
    """
    common = {"added_by": DEMO_AUTHOR, "added_at": at}
    contoso = Candidate(
        id="contoso-gpt-4o", vendor="Contoso Health Cloud (demo)", product="Portal Reply Assistant",
        model_id="gpt-4o", model_version="2024-05-13", prompt_version="portal-reply v3.2",
        pricing=Pricing(kind="per_token", input_usd_per_mtok=2.50, output_usd_per_mtok=10.00,
                        source="DEMO: pass-through of the Azure OpenAI list price for gpt-4o"),
        contract=ContractFacts(data_residency="US (Azure East US 2, hospital tenant)", phi_agreement=True,
                               change_notice_days=90, version_pinning=True),
        endpoint=ModelEndpoint(name="Contoso Portal Reply Assistant (hosted)", model="azure/portal-reply",
                               api_base="https://contoso-health.example/openai",
                               api_key_env="CONTOSO_API_KEY", phi_approved=True), **common)
    northwind = Candidate(
        id="northwind-messageassist", vendor="Northwind Clinical AI (demo)", product="MessageAssist",
        model_id="claude-3-7-sonnet", model_version="20250219", prompt_version="MA-2025.03",
        pricing=Pricing(kind="per_seat", usd_per_seat_month=45.0, seats=30,
                        source="DEMO: quote NW-0042, 30 clinician seats"),
        contract=ContractFacts(data_residency="US (AWS us-east-1)", phi_agreement=True, change_notice_days=14,
                               version_pinning=False), **common)
    onprem = Candidate(
        id="onprem-llama-3-3-70b", vendor="Hospital IT (self-hosted)",
        product="Llama 3.3 70B on the hospital vLLM cluster", model_id="llama-3.3-70b",
        model_version="Instruct", prompt_version="portal-reply v3.2",
        pricing=Pricing(kind="per_token", input_usd_per_mtok=0.40, output_usd_per_mtok=0.40,
                        source="DEMO: hospital IT's amortised GPU and staff cost per 1M tokens"),
        contract=ContractFacts(data_residency="on-premises (hospital data centre)", phi_agreement=None,
                               change_notice_days=None, version_pinning=True),
        endpoint=ModelEndpoint(name="On-prem vLLM (llama-3.3-70b)", model="openai/llama-3.3-70b",
                               api_base="http://vllm.hospital.internal:8000/v1", api_key_env="VLLM_API_KEY",
                               phi_approved=False), **common)
    return [contoso, northwind, onprem]


SATISFACTORY_TEXT = {
    "intended_use": "Drafting replies to patient messages for clinician review; not for urgent messages.",
    "training_data": "Licensed and public web text to 2023; no customer patient data (vendor statement).",
    "evaluation_data": "Held-out set of 2,000 synthetic portal messages, written apart from training data.",
    "security_certifications": "SOC 2 Type II (2024) and ISO/IEC 27001 covering the hosted service.",
}
ANSWERS: dict[str, dict[str, tuple[str, str | None]]] = {
    # question -> (value, judgement of a text answer); documents go where the question requires one
    "contoso-gpt-4o": {
        **{q: (t, "satisfactory") for q, t in SATISFACTORY_TEXT.items()},
        "evaluation_evidence": ("aggregate_report", None), "evidence_maps_to_taxonomy": ("some", None),
        "subgroup_performance": ("relevant", None), "phi_retention": ("not_retained", None),
        "model_updates": ("yes", None), "incident_reporting": ("yes", None),
        "human_oversight": ("every_output", None),
    },
    "northwind-messageassist": {  # subgroup_performance deliberately unanswered
        **{q: (t, "satisfactory") for q, t in SATISFACTORY_TEXT.items()},
        "evaluation_evidence": ("per_instance_results", None), "evidence_maps_to_taxonomy": ("some", None),
        "phi_retention": ("retained_short", None), "model_updates": ("yes", None),
        "incident_reporting": ("yes", None), "human_oversight": ("sample", None),
    },
    "onprem-llama-3-3-70b": {
        "intended_use": ("Meta's acceptable-use policy; no clinical intended use stated.", "unsatisfactory"),
        "training_data": ("Publicly available online data to December 2023 (model card).", "unsatisfactory"),
        "evaluation_data": ("Public benchmarks listed in the model card.", None),
        "evaluation_evidence": ("aggregate_report", None), "evidence_maps_to_taxonomy": ("none", None),
        "subgroup_performance": ("none", None), "phi_retention": ("not_retained", None),
        "security_certifications": ("Hospital data centre, ISO/IEC 27001 scope to be extended.", None),
        "model_updates": ("yes", None), "incident_reporting": ("yes", None),
        "human_oversight": ("every_output", None),
    },
}


def _document(docs: DocumentStore, candidate: Candidate, question_id: str):
    text = (f"DEMO DOCUMENT (fictitious): supporting document for '{question_id}' supplied for "
            f"{candidate.label}, model {candidate.model_text}. Not a real vendor document.\n").encode()
    return docs.put(text, f"{candidate.id}-{question_id}-DEMO.txt", "text/plain", by=DEMO_AUTHOR)


def record_demo_candidates(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Add the three demo candidates and their (partly missing) attestations.

    Example:
        >>> d = record_demo_candidates(store, dossier)  # doctest: +SKIP
        >>> [len(c.attestations) for c in d.candidates]  # doctest: +SKIP
        [11, 10, 11]
    """
    now = datetime.now(UTC)
    docs = store.documents
    required = {q.id for q in load_questionnaire().questions if q.document == "required"}
    for candidate in demo_candidates(now):
        dossier = upsert_candidate(dossier, candidate)
        for question_id, (value, judgement) in ANSWERS[candidate.id].items():
            linked = _document(docs, candidate, question_id) if question_id in required else None
            answer = make_answer(question_id, value, by=ENTERED_BY, at=now, note=NOTE, document=linked,
                                 judgement=judgement)
            dossier = record_attestation(dossier, candidate.id, answer)
    return dossier
