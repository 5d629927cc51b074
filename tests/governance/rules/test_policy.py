"""Acceptance rules: shipped defaults, the lock, and the change log after it."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from governance.rules.policy import (
    change_log_problem,
    default_policy,
    load_defaults,
    lock_policy,
    remove_rule,
    rules_hash,
    set_rule,
)
from governance.rules.records import AcceptancePolicy, MinNRule, PolicyError, ScoreRule

WHY = "a committee's reason for this bar"


def test_defaults_cover_every_tier_and_kind_with_a_rationale_and_tighten_with_risk():
    d = load_defaults()
    tiers = ["low", "moderate", "high", "critical"]
    assert list(d.tiers) == tiers
    for tier in tiers:
        assert set(d.tiers[tier]) == {"score", "min_n", "max_unscored_share", "subgroup_disparity",
                                      "judge_agreement", "max_cost_per_1k"}
        assert all(len(v.rationale) >= 40 for v in d.tiers[tier].values())
    for kind in ("score", "min_n", "judge_agreement"):
        values = [d.tiers[t][kind].threshold for t in tiers]
        assert values == sorted(values) and values[0] < values[-1], kind
    shares = [d.tiers[t]["max_unscored_share"].threshold for t in tiers]
    assert shares == sorted(shares, reverse=True)
    assert "clinical lead" in d.signoff_roles


def test_default_policy_has_one_score_rule_per_subcategory_and_is_valid():
    p = default_policy("high", ["patient_provider_messaging", "providing_patient_education_resources"])
    ids = [r.id for r in p.rules]
    assert ids[:2] == ["score.patient_provider_messaging", "score.providing_patient_education_resources"]
    assert {r.kind for r in p.rules} == {"score", "min_n", "max_unscored_share", "subgroup_disparity",
                                         "judge_agreement", "max_cost_per_1k"}
    assert p.rules[0].threshold == 0.80 and p.rules[0].min_n == 200
    assert "tier high" in p.rules[0].rationale and p.lock is None
    assert default_policy("low", []).rules[0].id == "score.all"


def test_rules_validate_loudly():
    with pytest.raises(ValidationError):
        ScoreRule(id="s", threshold=1.5, rationale=WHY)
    with pytest.raises(ValidationError):
        ScoreRule(id="s", threshold=0.5, rationale=WHY, typo_field=1)
    with pytest.raises(ValidationError):
        AcceptancePolicy(rules=[MinNRule(id="x", threshold=1, rationale=WHY)] * 2)
    round_trip = AcceptancePolicy.model_validate_json(default_policy("moderate", ["planning_treatments"])
                                                      .model_dump_json())
    assert round_trip == default_policy("moderate", ["planning_treatments"])


def test_rules_hash_ignores_order_but_not_content():
    a, b = MinNRule(id="a", threshold=1, rationale=WHY), MinNRule(id="b", threshold=2, rationale=WHY)
    assert rules_hash([a, b]) == rules_hash([b, a])
    assert rules_hash([a, b]) != rules_hash([a, b.model_copy(update={"threshold": 3})])


def test_unlocked_rules_change_freely_without_a_log():
    p = default_policy("moderate", ["patient_provider_messaging"])
    p2 = set_rule(p, MinNRule(id="min_n", threshold=150, rationale=WHY), by="x")
    assert p2.rule("min_n").threshold == 150 and p2.changes == []
    assert [r.id for r in p2.rules] == [r.id for r in p.rules]  # replaced in place


def test_lock_records_who_when_hash_and_evidence_seen():
    p = lock_policy(default_policy("moderate", []), by="Dr. Rivera", evidence_ids=["e1"], note="meeting 3")
    assert p.lock.locked_by == "Dr. Rivera" and p.lock.locked_at.tzinfo is not None
    assert p.lock.rules_hash == rules_hash(p.rules) and p.lock.evidence_ids_at_lock == ("e1",)
    with pytest.raises(PolicyError, match="already locked"):
        lock_policy(p, by="someone", evidence_ids=[])
    with pytest.raises(PolicyError, match="no rules"):
        lock_policy(AcceptancePolicy(), by="x", evidence_ids=[])


def test_change_after_lock_needs_a_reason_and_is_logged_with_hashes():
    p = lock_policy(default_policy("moderate", []), by="chair", evidence_ids=[])
    new = MinNRule(id="min_n", threshold=200, rationale=WHY)
    with pytest.raises(PolicyError, match="needs a reason"):
        set_rule(p, new, by="cmio", why="")
    p2 = set_rule(p, new, by="cmio", why="tighter interval wanted")
    (change,) = p2.changes
    assert (change.old.threshold, change.new.threshold, change.by, change.why) == (100, 200, "cmio",
                                                                                  "tighter interval wanted")
    assert change.hash_before == p.lock.rules_hash and change.hash_after == rules_hash(p2.rules)
    assert p2.lock == p.lock and change_log_problem(p2) is None
    assert set_rule(p2, new, by="cmio", why="same again") == p2  # no-op is not logged
    p3 = remove_rule(p2, "cost", by="cfo", why="budget handled by procurement")
    assert p3.changes[-1].new is None and change_log_problem(p3) is None
    added = set_rule(p3, ScoreRule(id="score.x", benchmark="X", threshold=0.9, rationale=WHY), by="a",
                    why="a new benchmark")
    assert added.changes[-1].old is None


def test_unrecorded_edit_of_locked_rules_is_detected():
    p = lock_policy(default_policy("moderate", []), by="chair", evidence_ids=[])
    tampered = p.model_copy(update={"rules": [MinNRule(id="min_n", threshold=5, rationale=WHY)]})
    assert "unrecorded edit" in change_log_problem(tampered)
    logged = set_rule(p, MinNRule(id="min_n", threshold=5, rationale=WHY), by="x", why="on purpose")
    broken = logged.model_copy(update={"changes": logged.changes * 2})
    assert "does not follow" in change_log_problem(broken)
