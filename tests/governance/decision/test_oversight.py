"""Human review and monitoring derived from tier and verdicts, then edited by the committee."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from governance.decision.oversight import derive_oversight, edit_oversight, load_oversight_defaults
from governance.rules.policy import default_policy
from governance.rules.rule_text import rule_label
from governance.rules.verdicts import Verdict


def v(status: str, kind: str = "score", model: str = "m") -> Verdict:
    return Verdict(rule_id="r", kind=kind, model=model, status=status, reason="because.")


def test_defaults_tighten_with_tier_and_carry_rationale():
    d = load_oversight_defaults()
    rates = [d.tiers[t].qa_sample_rate for t in ("low", "moderate", "high", "critical")]
    months = [d.tiers[t].schedule_months for t in ("low", "moderate", "high", "critical")]
    assert rates == sorted(rates) and months == sorted(months, reverse=True)
    assert not d.tiers["low"].review_before_release and d.tiers["high"].review_before_release
    kinds = {t.kind for t in d.triggers}
    assert kinds == {"model_version_change", "prompt_change", "vendor_notice", "schedule", "metric_breach"}


def test_all_pass_gives_tier_defaults_and_monitors_each_rule():
    rules = default_policy("high", ["patient_provider_messaging"]).rules
    plan = derive_oversight("high", "every_output", [v("pass")], rules, owner="Committee")
    assert plan.review.review_before_release and plan.review.qa_sample_rate == 0.10
    assert plan.monitoring.schedule_months == 3 and plan.monitoring.owner == "Committee"
    sources = {m.source for m in plan.monitoring.metrics}
    watched = {rule_label(r) for r in rules if r.kind in ("score", "max_unscored_share", "max_cost_per_1k")}
    assert watched == {"Score bar 0.80 for Patient-Provider Messaging", "Maximum unscored share 2%",
                       "Cost ceiling per 1,000 requests USD 25.00"} and watched <= sources  # words, not ids
    assert "the default plan's largest acceptable correction rate" in sources
    assert not plan.review.stratify_audit_by_subgroup and not plan.review.clinician_rated_audit


def test_open_verdicts_adjust_the_plan_with_reasons():
    verdicts = [v("inconclusive"), v("inconclusive", kind="subgroup_disparity"),
                v("inconclusive", kind="judge_agreement"), v("fail", model="other")]
    plan = derive_oversight("low", "sampled", verdicts, [], owner="x", model="m")
    assert plan.review.qa_sample_rate == pytest.approx(0.04)  # doubled from 2%
    assert not plan.review.review_before_release  # the fail belongs to another candidate
    assert plan.review.stratify_audit_by_subgroup and plan.review.clinician_rated_audit
    assert len(plan.reasons) == 4 and "doubled" in plan.reasons[1]
    failed = derive_oversight("low", "sampled", verdicts, [], owner="x", model="other")
    assert failed.review.review_before_release


def test_intended_use_promise_of_full_review_is_kept_at_low_tier():
    plan = derive_oversight("low", "every_output", [], [], owner="x")
    assert plan.review.review_before_release and "keeps that promise" in plan.reasons[1]


def test_edit_records_who_and_when_and_unchanged_is_a_no_op():
    plan = derive_oversight("moderate", "every_output", [], [], owner="x")
    at = datetime(2026, 5, 1, tzinfo=UTC)
    assert edit_oversight(plan, plan.review, plan.monitoring, by="chair", at=at) == plan
    edited = edit_oversight(plan, plan.review.model_copy(update={"qa_sample_rate": 0.25}),
                            plan.monitoring.model_copy(update={"schedule_months": 2}), by="chair", at=at)
    assert (edited.review.qa_sample_rate, edited.monitoring.schedule_months) == (0.25, 2)
    assert edited.edited_by == "chair" and edited.edited_at == at
    with pytest.raises(ValueError):
        edit_oversight(plan, plan.review, plan.monitoring, by=" ", at=at)
