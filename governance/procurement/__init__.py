"""Procurement: the vendor candidates a dossier compares, their quoted and list prices, cost per
1,000 requests and per acceptable output, measured cost arithmetic, the run-form values a recorded
candidate fills in, and the due-diligence questionnaire and its open items.

Cost is evidence the rules read (a cost ceiling), so this stage sits below ``rules``; the comparison
of candidates, which reads the verdicts, is in ``governance.decision``. Reading what the dossier's
own runs cost takes the run store: ``governance.procurement.operations``.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "AttestationError": "governance.procurement.attestations",
    "STATUS_TEXT": "governance.procurement.attestations",
    "load_questionnaire": "governance.procurement.attestations",
    "make_answer": "governance.procurement.attestations",
    "statuses": "governance.procurement.attestations",
    "CandidateError": "governance.procurement.candidates",
    "candidate_names": "governance.procurement.candidates",
    "record_attestation": "governance.procurement.candidates",
    "remove_candidate": "governance.procurement.candidates",
    "run_candidates": "governance.procurement.candidates",
    "slugify": "governance.procurement.candidates",
    "upsert_candidate": "governance.procurement.candidates",
    "CostReport": "governance.procurement.cost",
    "cost_report": "governance.procurement.cost",
    "medhelm_token_profile": "governance.procurement.cost_inputs",
    "measured_costs": "governance.procurement.operations",
    "run_token_profile": "governance.procurement.operations",
    "with_token_profile": "governance.procurement.profiles",
    "Candidate": "governance.procurement.records",
    "ContractFacts": "governance.procurement.records",
    "CostSettings": "governance.procurement.records",
    "Pricing": "governance.procurement.records",
    "TokenProfile": "governance.procurement.records",
    "run_presets": "governance.procurement.presets",
    "DocumentError": "governance.procurement.store",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "AttestationError", "Candidate", "CandidateError", "ContractFacts", "CostReport", "CostSettings",
    "DocumentError", "Pricing", "STATUS_TEXT", "TokenProfile", "candidate_names", "cost_report",
    "load_questionnaire", "make_answer", "measured_costs", "medhelm_token_profile", "record_attestation",
    "remove_candidate",
    "run_candidates", "run_presets", "run_token_profile", "slugify", "statuses", "upsert_candidate",
    "with_token_profile",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
