"""The rule-kind registry: every kind a rule record allows is registered once, with working words."""

import typing

import pytest

from governance.rules import records as rules_records
from governance.rules.kinds import REGISTRY, RuleKind, kinds_where, register, rule_kind
from governance.rules.policy import default_policy
from governance.rules.rule_text import rule_bar


def test_every_record_kind_is_registered_and_nothing_else():
    assert set(typing.get_args(rules_records.RuleKind)) == set(REGISTRY)


def test_a_second_registration_and_an_unknown_kind_are_refused():
    with pytest.raises(ValueError, match="registered twice"):
        register(RuleKind("min_n", "again", str, lambda r, c: []))
    with pytest.raises(KeyError, match="known kinds: critical_criterion, judge_agreement, max_cost_per_1k"):
        rule_kind("max_latency")


def test_each_default_rule_reads_in_words_through_its_kind():
    rules = default_policy("high", ["patient_provider_messaging"]).rules
    # every kind but the critical criterion, whose tag (the harm feared most) only the committee can name
    assert {r.kind for r in rules} == set(REGISTRY) - {"critical_criterion"}
    bars = {r.kind: rule_bar(r) for r in rules}
    assert bars["min_n"].startswith("n ≥ ") and bars["min_n"].endswith(" instances")
    assert bars["max_cost_per_1k"].startswith("≤ USD ")
    assert "ICC lower bound" in bars["judge_agreement"]


def test_facts_other_modules_ask_of_a_kind():
    assert kinds_where(per_benchmark=True) == ("score", "min_n", "max_unscored_share", "subgroup_disparity")
    assert kinds_where(interval_gate=True) == ("max_unscored_share", "subgroup_disparity", "judge_agreement",
                                               "critical_criterion")
