"""Recommendation, committee decision, and sign-offs that a later change invalidates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from governance.decision import committee
from governance.decision.records import CommitteeDecision
from governance.decision.signoff import DecisionError, signoff_status
from governance.dossier.content_hash import changed_fields, signable_hash
from governance.dossier.record import Dossier
from governance.rules.recommendation import recommend, recommend_candidate
from governance.rules.records import AcceptancePolicy, MinNRule, ScoreRule
from governance.rules.verdicts import Verdict, assess
from tests.governance.policy_fixtures import dossier, ev

WHY = "a committee's reason for this bar"
NOW = datetime(2026, 3, 1, tzinfo=UTC)
NO_PLAN = "Fixture without a cost or oversight plan; these tests are about the decision record."


def v(status: str, rule: str = "r", model: str = "m", **kw) -> Verdict:
    kw.setdefault("pre_registered", True)
    return Verdict(rule_id=rule, kind=kw.pop("kind", "score"), model=model, status=status, reason="because.",
                   **kw)


# ---- recommendation --------------------------------------------------------------------------
def test_any_fail_rejects_with_the_failure_as_reason():
    rec = recommend_candidate("m", [v("pass"), v("fail", rule="privacy", benchmark="B")], True, None)
    assert rec.outcome == "reject" and rec.reasons == ["score bar on B: because."]  # the rule in words


def test_open_score_is_insufficient_evidence_open_gate_a_condition_and_all_pass_approves():
    open_ = v("inconclusive", rule="score.x", benchmark="B", further_cases=120,
              further_cases_method="cases to reach the rule's minimum n")
    rec = recommend_candidate("m", [v("pass"), open_], True, None)
    assert rec.outcome == "insufficient_evidence" and rec.conditions == []
    assert rec.to_settle == ["score bar on B: 120 more cases (cases to reach the rule's minimum n)"]
    gate = v("inconclusive", rule="unscored", kind="max_unscored_share", benchmark="B")
    rec = recommend_candidate("m", [v("pass"), gate], True, None)
    assert rec.outcome == "approve_with_conditions"
    assert "Settle gating rule maximum unscored share on B" in rec.conditions[0]
    assert recommend_candidate("m", [v("pass"), v("not_applicable")], True, None).outcome == "approve"


def test_unlocked_rules_or_broken_log_never_give_a_plain_approve():
    rec = recommend_candidate("m", [v("pass")], locked=False, log_problem=None)
    assert rec.outcome == "approve_with_conditions" and "Lock" in rec.conditions[0]
    rec = recommend_candidate("m", [v("pass")], locked=True, log_problem="an unrecorded edit")
    assert rec.outcome == "approve_with_conditions" and "unrecorded edit" in rec.conditions[0]


def test_overall_recommendation_is_the_best_candidate():
    evidence = [ev(0.9, 0.85, 0.95, model="good"), ev(0.5, 0.45, 0.55, model="bad")]
    rule = ScoreRule(id="s", threshold=0.7, rationale=WHY)
    d = committee.lock_rules(dossier([], policy=AcceptancePolicy(rules=[rule])), by="chair")
    d = d.model_copy(update={"evidence": evidence})  # attached after the lock: pre-registered
    rec = recommend(assess(d))
    assert (rec.outcome, rec.models) == ("approve", ["good"])
    assert [c.outcome for c in rec.candidates] == ["approve", "reject"]
    # locked after the evidence was seen: the same pass is not pre-registered, so only conditional
    late = committee.lock_rules(dossier(evidence, policy=AcceptancePolicy(rules=[rule])), by="chair")
    assert recommend(assess(late)).outcome == "approve_with_conditions"
    assert "not pre-registered" in recommend(assess(late)).candidates[0].conditions[0]
    assert recommend(assess(dossier([]))).outcome == "insufficient_evidence"


# ---- decision -------------------------------------------------------------------------------
def test_decision_needs_rationale_and_conditions_that_fit():
    d = dossier([ev(0.9, 0.85, 0.95)])
    with pytest.raises(DecisionError, match="rationale"):
        committee.decide(d, "approve", "short", [], by="chair")
    with pytest.raises(DecisionError, match="at least one condition"):
        committee.decide(d, "approve_with_conditions", "the evidence supports it", [], by="chair")
    with pytest.raises(DecisionError, match="takes no conditions"):
        committee.decide(d, "reject", "the evidence does not support it", ["x"], by="chair")
    with pytest.raises(ValidationError):
        CommitteeDecision(outcome="maybe", rationale="x" * 20, decided_by="a", decided_at=NOW,
                          required_roles=["r"], content_hash="h")


def test_decision_records_recommendation_roles_and_status():
    d = committee.decide(dossier([ev(0.9, 0.85, 0.95, model="m")]), "approve_with_conditions",
                         "supported, but review every output", ["review every output"], by="chair", model="m",
                         override_gaps=NO_PLAN)
    # no rules at all, so no score verdict passes: the tool recommends insufficient evidence
    assert d.status == "decided" and d.decision.recommended == "insufficient_evidence"
    assert d.decision.required_roles[0] == "clinical lead"
    assert signoff_status(d).decision_current is True


# ---- sign-offs ------------------------------------------------------------------------------
def _decided() -> Dossier:
    d = dossier([ev(0.9, 0.85, 0.95)], policy=AcceptancePolicy(rules=[MinNRule(id="n", threshold=10,
                                                                                rationale=WHY)]))
    return committee.decide(d, "approve", "all rules pass on this evidence", [], by="chair",
                            required_roles=["clinical lead", "procurement"], override_gaps=NO_PLAN)


def test_signoff_needs_a_decision():
    with pytest.raises(DecisionError, match="decision"):
        committee.sign(dossier([]), "clinical lead", "Dr. Chen", version_hash="v1")


def test_signoffs_bind_to_content_and_do_not_invalidate_each_other():
    d = committee.sign(_decided(), "clinical lead", "Dr. Chen", version_hash="v1")
    d = committee.sign(d, "procurement", "P. Smith", version_hash="v2")
    status = signoff_status(d)
    assert status.complete and not status.invalidated
    assert [r.valid for r in status.roles] == [True, True]
    assert d.signoffs[0].signed_hash == d.signoffs[1].signed_hash == signable_hash(d)


@pytest.mark.parametrize("edit", [
    lambda d: d.model_copy(update={"title": d.title + " (v2)"}),
    lambda d: committee.change_rule(d, MinNRule(id="n", threshold=11, rationale=WHY), by="x"),
    lambda d: d.model_copy(update={"evidence": [*d.evidence, ev(0.7, 0.6, 0.8, benchmark="New")]}),
    lambda d: committee.derive_plan(d),
    lambda d: d.model_copy(update={"intended_use": d.intended_use.model_copy(
        update={"error_severity": "serious"})}),
], ids=["title", "rule", "evidence", "review plan", "intended use"])
def test_any_later_change_invalidates_every_signoff(edit):
    d = committee.sign(_decided(), "clinical lead", "Dr. Chen", version_hash="v1")
    d = committee.sign(d, "procurement", "P. Smith", version_hash="v2")
    changed = edit(d)
    status = signoff_status(changed)
    assert not status.complete and len(status.invalidated) == 2
    assert all(not r.valid and "changed afterwards" in r.reason for r in status.roles)
    assert changed_fields(d, changed)
    # the decision rests on the old content: nobody signs until the chair confirms it (issue 27)
    with pytest.raises(DecisionError, match="changed after the decision was recorded"):
        committee.sign(changed, "clinical lead", "Dr. Chen", version_hash="v3")
    confirmed = committee.confirm_decision(changed, "chair", "Reviewed at the next meeting: it stands.")
    # signing again restores validity for that role only
    again = signoff_status(committee.sign(confirmed, "clinical lead", "Dr. Chen", version_hash="v3"))
    assert [r.valid for r in again.roles] == [True, False] and not again.complete


def test_changing_the_decision_marks_it_and_invalidates_signoffs():
    d = committee.sign(_decided(), "clinical lead", "Dr. Chen", version_hash="v1")
    redecided = committee.decide(d, "reject", "new information about the vendor", [], by="chair")
    assert signoff_status(redecided).invalidated
    later = redecided.model_copy(update={"title": "Changed after the decision"})
    assert signoff_status(later).decision_current is False


def test_signable_hash_survives_new_optional_fields_but_not_a_rule_kind_swap():
    class FutureDossier(Dossier):
        candidates: list[str] = []
        notes: str | None = None

    d = _decided()
    future = FutureDossier.model_validate(d.model_dump())
    assert signable_hash(future) == signable_hash(d)
    assert signable_hash(future.model_copy(update={"candidates": ["x"]})) != signable_hash(d)
    swapped = {"id": "n", "threshold": 10, "rationale": WHY}
    from governance.rules.records import CostRule
    as_cost = d.model_copy(update={"policy": AcceptancePolicy(rules=[CostRule(**swapped)])})
    assert signable_hash(as_cost) != signable_hash(d)


def test_rules_for_another_tier_are_flagged_and_block_a_plain_approve():
    d = committee.lock_rules(committee.start_rules(dossier([ev(0.95, 0.93, 0.97, n=500)])), by="chair")
    assert d.policy.tier == "moderate" and assess(d).tier_note is None
    use = d.intended_use.model_copy(update={"error_severity": "critical"})
    raised = d.model_copy(update={"intended_use": use})
    a = assess(raised)
    assert "tier moderate, but the dossier is now tier high" in a.tier_note
    (cand,) = recommend(a).candidates
    assert any(c.startswith("Review the rules") for c in cand.conditions)
