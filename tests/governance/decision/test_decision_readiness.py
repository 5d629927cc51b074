"""The decision checklist and the override an approval with gaps needs (issue 16, state bug 6)."""

from __future__ import annotations

import json

import pytest

from cli import main
from governance.decision import committee
from governance.decision.readiness import decision_checklist, decision_gaps
from governance.decision.records import CommitteeDecision
from governance.decision.signoff import DecisionError
from governance.dossier.content_hash import signable_hash
from governance.dossier.store import Store
from governance.procurement.records import CostSettings, TokenProfile
from tests.governance.policy_fixtures import dossier, ev

REASON = "Pilot on one ward under full review; cost and monitoring follow before go-live."


def _bare():
    """Evidence and a mapping, nothing else: rules, cost and plan all missing."""
    d = dossier([ev(0.9, 0.85, 0.95, model="m", benchmark="MedConfInfo")])
    mapping = d.mapping.decide("patient_provider_messaging", "accepted", by="x")
    return d.model_copy(update={"mapping": mapping})


def _complete():
    d = committee.lock_rules(committee.start_rules(_bare()), by="chair")
    profile = TokenProfile(model="m", price_model="override", mean_prompt_tokens=400,
                           mean_completion_tokens=200, source="committee estimate",
                           input_price_per_mtok=2.5, output_price_per_mtok=10.0)
    d = d.model_copy(update={"cost": CostSettings(profiles=[profile])})
    return committee.derive_plan(d, model="m")


def test_checklist_names_each_missing_item_and_clears_as_the_dossier_fills():
    bare = _bare()
    assert [(i.label, i.done) for i in decision_checklist(bare)] == [
        ("Acceptance rules locked", False), ("Evidence attached", True), ("Cost analysis", False),
        ("Human-review plan", False), ("Monitoring plan", False),
        ("Sign-offs from the required roles", False)]
    assert [g.key for g in decision_gaps(bare)] == ["rules_locked", "cost", "human_review", "monitoring"]
    drafted = committee.start_rules(bare)
    assert "drafted but not locked" in decision_checklist(drafted)[0].detail
    assert decision_gaps(_complete()) == []
    # sign-offs follow the decision, so they are listed but never block it
    signoffs = decision_checklist(_complete())[-1]
    assert not signoffs.before_decision and not signoffs.done


def test_an_approval_with_gaps_and_no_override_is_refused_naming_the_items():
    for outcome, conditions in (("approve", []), ("approve_with_conditions", ["every draft reviewed"])):
        with pytest.raises(DecisionError) as exc:
            committee.decide(_bare(), outcome, "The evidence supports it.", conditions, by="chair", model="m")
        message = str(exc.value)
        assert "Acceptance rules locked, Cost analysis, Human-review plan, Monitoring plan" in message
        assert "Evidence attached" not in message  # present, so not named
    with pytest.raises(DecisionError, match="at least 10 characters"):
        committee.decide(_bare(), "approve", "The evidence supports it.", [], by="chair", override_gaps="ok")


def test_the_override_is_recorded_with_who_why_and_what_was_missing():
    d = committee.decide(_bare(), "approve", "The evidence supports it.", [], by="Dr. Rivera (chair)",
                         model="m", override_gaps=f"  {REASON}  ")
    o = d.decision.gaps_override
    assert (o.by, o.reason) == ("Dr. Rivera (chair)", REASON)
    assert o.missing == ["Acceptance rules locked", "Cost analysis", "Human-review plan", "Monitoring plan"]


def test_a_rejection_or_a_complete_plan_needs_no_override_and_records_none():
    rejected = committee.decide(_bare(), "reject", "Not good enough for our patients.", [], by="chair")
    assert rejected.decision.gaps_override is None
    approved = committee.decide(_complete(), "approve", "Every rule is settled.", [], by="chair", model="m",
                                override_gaps=REASON)  # nothing missing: the reason is not recorded
    assert approved.decision.gaps_override is None


def test_a_decision_without_override_keeps_the_old_record_and_its_hashes():
    d = committee.decide(_complete(), "approve", "Every rule is settled.", [], by="chair", model="m")
    doc = d.decision.model_dump(mode="json")
    assert "gaps_override" not in doc  # an old record reads back and dumps to the same text
    old = CommitteeDecision.model_validate(doc)
    assert old == d.decision and old.model_dump(mode="json") == doc
    assert signable_hash(d.model_copy(update={"decision": old})) == signable_hash(d)
    assert d.content_hash() == type(d).model_validate(json.loads(d.canonical_json())).content_hash()
    overridden = committee.decide(_bare(), "approve", "Every rule is settled.", [], by="chair", model="m",
                                  override_gaps=REASON)
    assert overridden.decision.model_dump(mode="json")["gaps_override"]["reason"] == REASON


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else None, out.err


def test_cli_decide_exits_2_naming_the_gaps_then_records_the_override(home, capsys):
    store = Store.open(home / "medassure.duckdb")
    store.save(_bare(), author="alice", note="created")
    store.close()
    code, out, err = _cli(capsys, "decide", "D-test", "--decision", "approve", "--model", "m",
                          "--rationale", "The evidence supports it.")
    assert code == 2 and out is None
    assert "Cost analysis, Human-review plan, Monitoring plan" in err
    code, out, err = _cli(capsys, "decide", "D-test", "--decision", "reject",
                          "--rationale", "Not for us yet.")
    assert code == 0 and "gaps_override" not in out["decision"]
    code, out, err = _cli(capsys, "decide", "D-test", "--decision", "approve", "--model", "m",
                          "--rationale", "The evidence supports it.", "--override-gaps", REASON,
                          "--by", "chair")
    assert code == 0
    assert out["decision"]["gaps_override"] == {
        "by": "chair", "reason": REASON,
        "missing": ["Acceptance rules locked", "Cost analysis", "Human-review plan", "Monitoring plan"]}
    assert set(out) >= {"id", "version", "hash", "decision"}
