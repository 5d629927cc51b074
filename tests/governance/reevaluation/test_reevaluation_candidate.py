"""A re-evaluation of a run made for a recorded candidate keeps the evidence that candidate's (issue 27,
item 3): the re-run's stand-in evidence is named and bound as the baseline's was, so the verdict that
changes is the candidate's, not a phantom named after the model string."""

from __future__ import annotations

from evaluator.gateway.llm import ModelEndpoint
from evaluator.runs.jobs import RunRequest
from governance.decision import committee
from governance.decision.operations import decide as actions_decision
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.reevaluation.operations.addendum import reevaluate
from governance.reevaluation.records import PlanChange
from governance.rules.records import AcceptancePolicy, ScoreRule
from governance.runs.operations.jobs import start_run
from governance.runs.operations.view import attach_run
from tests.governance.candidate_fixtures import candidate
from tests.governance.reevaluation_fixtures import KEY_ENV, MODEL_A, MODEL_B, PRICES, N, scripted_models


def test_the_rerun_counts_for_the_candidate_it_was_made_for(store, llm_server):
    llm_server.configure(answer=scripted_models())
    azure = candidate("azure-a", "model-a")
    d = Dossier(title="Calculator helper (bound run)", owner="AI committee",
                intended_use=example_intended_use(), candidates=[azure])
    mapping = d.mapping.decide("supporting_diagnostic_decisions", "accepted", by="me")
    d = d.model_copy(update={"mapping": mapping})
    rule = ScoreRule(id="score.calc", benchmark="calc_builtin", threshold=0.8, provenance=("local-run",),
                     rationale="Calculator answers must be right at least 80% of the time.")
    d = committee.lock_rules(d.model_copy(update={"policy": AcceptancePolicy(rules=[rule])}), by="chair")
    store.save(d, author="seed")
    endpoint = ModelEndpoint(name="azure-a", model=MODEL_A, api_base=llm_server.url, api_key_env=KEY_ENV,
                             transport="openai", **PRICES)
    progress = start_run(store, RunRequest(benchmark_id="calc_builtin", endpoint=endpoint, limit=N)).join(120)
    attached = attach_run(store, d.id, progress.run_id, actor=Actor.named("seed")).dossier
    assert attached.evidence[0].model == azure.label and attached.evidence[0].candidate_id == "azure-a"
    decided = actions_decision.decide(attached, "approve", "Model A clears the bar.", [], by="chair",
                                      model=azure.label, store=store, override_gaps="No plan in this test.")
    store.save(decided, author="chair")

    a = reevaluate(store, d.id, PlanChange(model=MODEL_B, **PRICES), actor=Actor.named("qa")).addendum
    (change,) = a.verdict_changes
    assert (change.rule_id, change.before, change.after) == ("score.calc", "pass", "inconclusive")
    assert change.model == azure.label
    assert a.impact.decided_model == azure.label and a.answers_for_decided_model
