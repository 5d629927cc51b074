"""Demo steps from rules to sign-off, so the demo dossier shows a full, defensible decision path.

What the demo committee does, and why (each choice is written as the committee would record it):

1. starts from the moderate-tier defaults and sets its cost ceiling from its budget, then locks
   the rules. Published MedHELM evidence was already attached, so the lock records it as seen and
   no verdict on it is marked pre-registered: honest about what published evidence can be;
2. after the lock, the privacy officer asks for a stricter bar on PrivacyDetection; the change is
   recorded with its reason;
3. records cost inputs: MedHELM's mean tokens per request over the benchmarks the dossier maps to
   (not the portal's own workload, and labelled so; the demo's local run called no model, so it
   has no tokens to measure), priced at the tested snapshot (GPT-4o 2024-05-13: USD 5/15 per 1M);
4. derives the review and monitoring plan from the tier and the open verdicts;
5. records its decision (approve GPT-4o with conditions) beside the recommendation, and the
   clinical lead signs off.

Published evidence is normally attached by the evidence demo step; if it is missing, a few
published records are attached here so these steps always have something to judge.
"""

from __future__ import annotations

from datetime import UTC, datetime

from evaluator.evidence.record import published_evidence
from governance.decision import committee
from governance.demo.monitoring_feed import baseline_window
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.attach import mapped_benchmarks
from governance.identity.identity import demo_identity
from governance.procurement.cost_inputs import medhelm_token_profile
from governance.procurement.operations import run_token_profile
from governance.procurement.records import CostSettings
from governance.rules.records import CostRule, ScoreRule

DEMO_AUTHOR = "demo"
GPT4O, CLAUDE, LLAMA = "GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)"
PRICE_MODELS = {GPT4O: "gpt-4o", CLAUDE: "claude-3-7-sonnet-20250219", LLAMA: "groq/llama-3.3-70b-versatile"}
DEMO_BENCHMARKS = ["MedDialog", "MedConfInfo", "ProxySender", "PrivacyDetection", "MedicationQA"]


def _ensure_evidence(dossier: Dossier) -> Dossier:
    if dossier.evidence:
        return dossier
    return dossier.model_copy(update={"evidence": published_evidence(DEMO_BENCHMARKS, list(PRICE_MODELS))})


def set_and_lock_rules(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Defaults for the tier, the committee's budget-based cost ceiling, then the lock."""
    dossier = committee.start_rules(_ensure_evidence(dossier), replace=True)
    cost = CostRule(id="cost", threshold=25.0, rationale=(
        "The clinic's budget for drafting is USD 1,000 a month for about 40,000 portal messages, "
        "i.e. USD 25 per 1,000 requests; a candidate above that cannot be afforded at full volume."))
    dossier = committee.change_rule(dossier, cost, by="Primary care AI committee")
    return committee.lock_rules(dossier, by="Dr. A. Rivera (chair)",
                                note="Agreed at the committee meeting before any local evaluation.")


def privacy_rule_after_lock(store: DossierStorage, dossier: Dossier) -> Dossier:
    """A recorded tightening after the lock."""
    rule = ScoreRule(id="score.privacydetection", benchmark="PrivacyDetection", threshold=0.95, min_n=100,
                     rationale=("A draft that discloses a third party's information is a reportable privacy "
                                "breach, so detecting privacy-sensitive requests needs a stricter bar than "
                                "the subcategory default."))
    return committee.change_rule(dossier, rule, by="J. Okafor (privacy officer)",
                                 why="Privacy office review after the lock: breaches are reportable events, "
                                     "so this benchmark gets its own stricter rule.")


def cost_inputs(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Token profiles of the candidates with evidence: own runs, else MedHELM's mapped-benchmark means."""
    models = [m for m in PRICE_MODELS if any(e.model == m for e in dossier.evidence)]
    mapped = [b.name for b in mapped_benchmarks(dossier)] or DEMO_BENCHMARKS
    profiles = [run_token_profile(store, dossier, m, PRICE_MODELS[m])
                or medhelm_token_profile(m, PRICE_MODELS[m], benchmarks=mapped) for m in models]
    settings = CostSettings(profiles=profiles, score_benchmark="MedConfInfo")
    return dossier.model_copy(update={"cost": settings})


def review_plan(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Review and monitoring derived for the candidate the committee is considering, with the CUSUM set.

    The baseline window is the first three months of the demo's production feed (DEMO DATA,
    ``governance.demo.monitoring_feed``), in which the in-control correction rate is measured. The
    target in-control run length is 5,000 audited outputs per false alarm: at about 400 audits a month
    the default of 500 would raise a false alarm every five weeks; 5,000 is about one a year."""
    dossier = committee.derive_plan(dossier, model=GPT4O)
    start, end = baseline_window(datetime.now(UTC))
    plan = dossier.oversight
    monitoring = plan.monitoring.model_copy(update={"baseline_start": start, "baseline_end": end,
                                                    "target_arl0": 5_000})
    return dossier.model_copy(update={"oversight": plan.model_copy(update={"monitoring": monitoring})})


def decide_and_sign(store: DossierStorage, dossier: Dossier) -> Dossier:
    """The committee's decision; saved, then the clinical lead signs that version."""
    dossier = committee.decide(
        dossier, "approve_with_conditions", model=GPT4O, by="Dr. A. Rivera (chair)",
        identity=demo_identity("Dr. A. Rivera (chair)"),
        rationale=("GPT-4o runs in the hospital's Azure tenant under the existing business associate "
                   "agreement and stays within budget. Llama 3.3 70B was as well supported and cheaper, "
                   "but no PHI-approved endpoint exists for it yet. The published evidence does not settle "
                   "ProxySender or the jury-scored benchmarks, so approval is conditional on a local "
                   "evaluation while every draft is reviewed. The tool recommends rejecting GPT-4o "
                   "because our 40-case pilot answered Spanish-language messages correctly half as "
                   "often as English ones; the committee decides otherwise for English-language "
                   "messages only and keeps Spanish-language messages out of drafting until the local "
                   "evaluation shows that gap closed."),
        conditions=[
            "Every draft is reviewed and edited by a nurse or physician before it is sent "
            "(as the intended use states).",
            "Before go-live, run a local evaluation on 300 de-identified portal messages tagged by age band "
            "and preferred language, to settle the open score, unscored-share and subgroup rules.",
            "Confirm jury-clinician agreement on 100 drafts rated by our own clinicians before relying on "
            "jury scores.",
            "Messages not written in English are not drafted by the model until the local evaluation "
            "shows no language disparity.",
        ])
    v = store.save(dossier, author=DEMO_AUTHOR, note="demo: committee decision")
    return committee.sign(dossier, "clinical lead", "Dr. M. Chen", version_hash=v.hash,
                          note="Signed after the committee meeting.", identity=demo_identity("Dr. M. Chen"))


DEMO_DECISION_STEPS = [
    ("set and lock the acceptance rules", set_and_lock_rules),
    ("change a locked rule with a reason", privacy_rule_after_lock),
    ("record cost inputs", cost_inputs),
    ("derive human review and monitoring", review_plan),
    ("decide and sign off", decide_and_sign),
]
