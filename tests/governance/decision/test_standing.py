"""A stale decision cannot be signed; the review plan is checked against the use (issue 27, item 4)."""

from __future__ import annotations

import pytest

from governance.decision import committee
from governance.decision.signoff import DecisionError, signoff_status
from governance.decision.standing import (
    basis_changes,
    blocking_conflicts,
    decision_stale,
    oversight_conflicts,
    signing_refusal,
)
from governance.rules.records import AcceptancePolicy, MinNRule
from tests.governance.policy_fixtures import dossier, ev

WHY = "a committee's reason for this bar"
REASON = "Reviewed at meeting 5: the decision stands."


def decided(**use):
    d = dossier([ev(0.9, 0.85, 0.95)], policy=AcceptancePolicy(rules=[MinNRule(id="n", threshold=10,
                                                                                rationale=WHY)]))
    d = committee.derive_plan(d)  # every output reviewed, as the example use says
    if use:
        d = d.model_copy(update={"intended_use": d.intended_use.model_copy(update=use)})
    return committee.decide(d, "approve", "all rules pass on this evidence", [], by="chair",
                            required_roles=["clinical lead", "procurement"],
                            override_gaps="Fixture: these tests are about the decision's standing.")


def with_use(d, **use):
    return d.model_copy(update={"intended_use": d.intended_use.model_copy(update=use)})


def test_a_fresh_decision_stands_and_may_be_signed():
    d = decided()
    assert not decision_stale(d) and oversight_conflicts(d) == [] and signing_refusal(d) is None
    assert signoff_status(committee.sign(d, "clinical lead", "Dr. Chen", version_hash="v1")).roles[0].valid


def test_appended_records_never_make_a_decision_stale():
    d = decided()
    later = d.model_copy(update={"reevaluations": [], "deidentification": [], "signoffs": []})
    assert not decision_stale(later)


def test_changes_are_named_by_label_down_to_the_intended_use_field():
    d = decided()
    later = with_use(d, human_oversight="sampled", care_setting="Two clinics")
    later = later.model_copy(update={"title": "Portal replies (pilot)"})
    assert decision_stale(later)
    assert basis_changes(d, later) == ["Intended use › Care setting", "Intended use › Human oversight",
                                       "Title"]


def test_signing_a_stale_decision_is_refused_with_the_labels():
    later = decided().model_copy(update={"owner": "Pharmacy committee"})
    with pytest.raises(DecisionError) as refused:
        committee.sign(later, "clinical lead", "Dr. Chen", version_hash="v1", changed=["Owner"])
    message = str(refused.value)
    assert message.startswith("Signing refused: Owner changed after the decision was recorded.")
    assert "confirm" in message and "Nothing was signed." in message and "owner" not in message


def test_the_chair_confirms_the_decision_and_it_is_recorded():
    later = decided().model_copy(update={"owner": "Pharmacy committee"})
    with pytest.raises(DecisionError, match="at least 10 characters"):
        committee.confirm_decision(later, "chair", "ok")
    confirmed = committee.confirm_decision(later, "chair", REASON, ["Owner"])
    (c,) = confirmed.decision.confirmations
    assert (c.by, c.reason, c.changed) == ("chair", REASON, ["Owner"])
    assert c.previous_hash == later.decision.content_hash != confirmed.decision.content_hash
    assert not decision_stale(confirmed) and signing_refusal(confirmed) is None
    assert confirmed.decision.outcome == later.decision.outcome  # the decision itself is unchanged
    with pytest.raises(DecisionError, match="nothing to confirm"):
        committee.confirm_decision(confirmed, "chair", REASON)


def test_a_decision_without_confirmations_keeps_its_stored_form():
    d = decided()
    assert "confirmations" not in d.decision.model_dump(mode="json")  # old records keep their hashes


@pytest.mark.parametrize(("use", "plan_reviews", "code"), [
    ({"human_oversight": "none"}, True, "plan_reviews_but_use_does_not"),
    ({"decision_role": "replaces", "human_oversight": "sampled"}, True,
     "plan_reviews_but_output_takes_effect"),
    ({}, False, "use_reviews_but_plan_does_not"),
    ({"workflow": "The model drafts a reply, which is then sent automatically to the patient."}, True,
     "workflow_text_automatic"),
])
def test_a_review_plan_that_contradicts_the_use_is_stated_and_blocks_signing(use, plan_reviews, code):
    d = decided()
    review = d.oversight.review.model_copy(update={"review_before_release": plan_reviews})
    d = d.model_copy(update={"oversight": d.oversight.model_copy(update={"review": review})})
    d = with_use(d, **use)
    d = committee.confirm_decision(d, "chair", REASON) if decision_stale(d) else d
    (conflict,) = oversight_conflicts(d)
    assert conflict.code == code and "Intended use ›" in conflict.text and "_" not in conflict.text
    if code != "workflow_text_automatic":
        assert blocking_conflicts(d) == [conflict]
        with pytest.raises(DecisionError, match="Signing refused: The (review plan|intended use)"):
            committee.sign(d, "clinical lead", "Dr. Chen", version_hash="v1")
    else:  # read from free text: the chair's confirmation with a reason acknowledges it
        assert conflict.acknowledgeable and "“sent automatically”" in conflict.text
        assert d.decision.confirmations and d.decision.confirmations[-1].acknowledged == [code]
        assert blocking_conflicts(d) == [] and signing_refusal(d) is None


def test_the_example_workflow_saying_every_draft_is_reviewed_is_not_flagged():
    assert oversight_conflicts(decided()) == []


def test_a_confirmation_does_not_clear_a_contradiction_in_recorded_choices():
    d = with_use(decided(), human_oversight="none")
    confirmed = committee.confirm_decision(d, "chair", REASON)
    assert not decision_stale(confirmed)
    assert "The review plan says every output is reviewed" in signing_refusal(confirmed)
