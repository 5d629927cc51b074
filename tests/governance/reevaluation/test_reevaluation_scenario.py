"""Re-evaluating a local scenario: subgroup-level pairs, suppression of small groups, the PHI gate."""

from __future__ import annotations

import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.scenarios import run_scenario, scenario_evidence, scenario_results
from governance.decision import committee
from governance.decision.operations import decide as actions_decision
from governance.dossier.record import Dossier
from governance.evidence.attach import attach_evidence
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.reevaluation.operations.addendum import ReevaluationError, reevaluate
from governance.reevaluation.records import PlanChange
from governance.rules.records import AcceptancePolicy, SubgroupDisparityRule
from tests.fakes import prompt_text

PRICES = {"input_price_per_mtok": 0.5, "output_price_per_mtok": 1.5}
GROUPS = [("en", 14), ("es", 12), ("vi", 4)]


def scenario_cases() -> list[Instance]:
    out = []
    for lang, count in GROUPS:
        for i in range(count):
            answer = "yes" if i % 2 else "no"
            out.append(Instance(id=f"{lang}-{i:02d}", context=f"Portal message {lang}-{i:02d}.",
                                question="Needs same-day review? Reply yes or no.", reference=answer,
                                answer_type="exact", subgroups={"language": lang}))
    return out


WORSE_FOR_B = ["es-00", "es-02", "es-04", "es-06"]


def answers(request: dict) -> str:
    text = prompt_text(request)
    case = next(c for c in scenario_cases() if f"Portal message {c.id}." in text)
    if request.get("model") == "model-b" and case.id in WORSE_FOR_B:
        return "yes" if case.reference == "no" else "no"
    return case.reference


@pytest.fixture
def decided_scenario(store, llm_server):
    llm_server.configure(answer=answers)
    version = store.scenarios.save(scenario_cases(), name="Portal triage", author="seed",
                                            subcategory_ids=["patient_provider_messaging"])
    endpoint = ModelEndpoint(name="model A", model="openai/model-a", api_base=llm_server.url,
                             transport="openai", **PRICES)
    summary = run_scenario(store, version.scenario_id, endpoint)
    evidence = scenario_evidence(scenario_results(store, summary.run_id))
    d = Dossier(id="D-sc", title="Portal triage", owner="AI committee", intended_use=example_intended_use())
    rule = SubgroupDisparityRule(id="disparity", ratio_lo=0.8, ratio_hi=1.25, allow_point_estimate=True,
                                 rationale="Every language group must be served about equally well.")
    d = committee.lock_rules(d.model_copy(update={"policy": AcceptancePolicy(rules=[rule])}), by="chair")
    d = attach_evidence(d, [evidence], by="seed")
    d = actions_decision.decide(d, "approve", "Equal performance across languages.", [], by="chair",
                         model="openai/model-a", store=store,
                         override_gaps="No cost or oversight plan in this fixture.")
    store.save(d, author="chair", note="decision: approve")
    return store, llm_server, version


def test_scenario_regression_is_located_in_its_subgroup(decided_scenario):
    store, server, version = decided_scenario
    (item,) = store.load("D-sc").dossier.evidence_plan.items
    assert (item.kind, item.scenario_id, item.scenario_version) == ("scenario", version.scenario_id, 1)
    assert item.benchmark == f"Portal triage [{version.scenario_id} v1]" and item.n_instances == 30
    change = PlanChange(model="openai/model-b", transport="openai", **PRICES)
    a = reevaluate(store, "D-sc", change, actor=Actor.named("qa")).addendum
    (c,) = a.comparisons
    assert c.kind == "scenario" and c.worse == WORSE_FOR_B and c.n_pairs == 30
    groups = {s.group: s for s in c.subgroups}
    assert groups["es"].worse == WORSE_FOR_B and groups["es"].mean_delta == pytest.approx(-4 / 12)
    assert groups["en"].worse == [] and groups["en"].mean_delta == 0
    assert groups["vi"].suppressed and groups["vi"].n_pairs == 4 and groups["vi"].mean_before is None
    assert c.evidence_after[0].subgroups and c.evidence_after[0].benchmark == item.benchmark
    (crossing,) = a.verdict_changes  # the es ratio left the window; its interval still straddles the edge
    assert (crossing.rule_id, crossing.before, crossing.after) == ("disparity",) + ("inconclusive",) * 2
    assert crossing.crossed and not crossing.status_changed and not a.verdicts_flipped
    # es 8/12 after vs the reference group en 14/14 (no longer vs the overall, which gave 0.769)
    assert crossing.estimate_before == 1.0 and crossing.estimate_after == pytest.approx(8 / 12)
    assert not a.impact.would_change and "crossed their threshold" in a.impact.why[-1]
    assert server.hits == 60
    assert store.scenarios.runs(version.scenario_id)[0]["run_id"] == c.run_after


def test_phi_gate_closes_for_a_new_endpoint(store, llm_server):
    llm_server.configure(answer=lambda r: "no")
    cases = [Instance(id="p1", context="MRN 1234567, call 555-867-5309.", question="Urgent?", reference="no",
                      answer_type="exact")]
    version = store.scenarios.save(cases, name="With identifiers", author="seed")
    approved = ModelEndpoint(name="on-prem", model="openai/local", api_base=llm_server.url,
                             transport="openai", phi_approved=True, **PRICES)
    summary = run_scenario(store, version.scenario_id, approved)
    evidence = scenario_evidence(scenario_results(store, summary.run_id))
    d = Dossier(id="D-phi", title="PHI scenario", owner="c", intended_use=example_intended_use())
    d = actions_decision.decide(attach_evidence(d, [evidence], by="s"), "reject", "Not good enough yet.", [],
                         by="chair", store=store)
    store.save(d, author="chair", note="decision")
    assert d.evidence_plan.items[0].endpoint.phi_approved
    # same endpoint (prices given: they are not in the run record; transport and prices change no answer)
    unchanged = reevaluate(store, "D-phi", PlanChange(transport="openai", **PRICES),
                           actor=Actor.named("qa")).addendum
    assert unchanged.new_requests == 1, "the approved endpoint is asked again"
    with pytest.raises(ReevaluationError, match="(?i)phi|identifier"):
        reevaluate(store, "D-phi", PlanChange(model="openai/vendor-model", **PRICES), actor=Actor.named("qa"))
    assert llm_server.hits == 2
