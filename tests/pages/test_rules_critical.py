"""Rules page: a critical-criterion rule is listed in words and edited like the others."""

from __future__ import annotations

from governance.dossier.store import Store
from tests.pages.conftest import open_page


def load(home):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load("D-crit")
    finally:
        store.close()


def test_critical_rule_listed_edited_and_an_unchanged_save_is_not_offered(home):
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use
    from governance.rules import AcceptancePolicy, critical_rule

    rule = critical_rule("medication_change", 0.05, min_n=60)
    store = Store.open(home / "medassure.duckdb")
    store.save(Dossier(id="D-crit", title="Discharge summaries", owner="me",
                       intended_use=example_intended_use(), policy=AcceptancePolicy(rules=[rule])),
               author="me")
    store.close()
    at = open_page("pages/rules_verdicts.py", dossier_id="D-crit")
    assert not at.exception
    rules = at.dataframe[0].value
    assert list(rules["rule"]) == ["Critical criterion medication_change ≤ 5.0% of cases missing"]
    at.selectbox(key="rule_pick").select(rule.id).run()
    assert at.button(key="rule_save").disabled  # unchanged: nothing to save, no version
    assert load(home).version == 1
    at.number_input(key=f"rule_{rule.id}_n").set_value(100).run()
    at.button(key="rule_save").click().run()
    assert not at.exception
    saved = load(home)
    assert saved.version == 2
    edited = saved.dossier.policy.rule(rule.id)
    assert (edited.min_n, edited.threshold, edited.tag) == (100, 0.05, "medication_change")


def test_a_critical_rule_is_added_on_the_page_from_a_gradings_tags_and_fails_the_candidate(home):
    """The browser walk of issue 34 found no way to bar the medication change on the page (CLI only)."""
    from datetime import UTC, datetime

    from evaluator.evidence.record import CriterionMisses, Evidence
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use
    from governance.rules import AcceptancePolicy, ScoreRule

    misses = {"critical:medication_change": CriterionMisses(n=10, missed=10),
              "axis:completeness": CriterionMisses(n=10, missed=3)}
    graded = Evidence(id="e-graded", model="cand", benchmark="sc_ab12_v1", metric="rubric_score", score=0.3,
                      provenance="local-run", source="grading-1", date=datetime(2026, 1, 1, tzinfo=UTC), n=10,
                      ci_lower=0.18, ci_upper=0.42, ci_method="BCa", criterion_misses=misses)
    score = ScoreRule(id="score.all", threshold=0.1, rationale="A low bar that the grading clears.")
    store = Store.open(home / "medassure.duckdb")
    store.save(Dossier(id="D-crit", title="Discharge summaries", owner="me",
                       intended_use=example_intended_use(), evidence=[graded],
                       policy=AcceptancePolicy(rules=[score])), author="me")
    store.close()
    at = open_page("pages/rules_verdicts.py", dossier_id="D-crit")
    assert not at.exception
    assert not any("Reject" in i.value for i in at.info)  # the score rule alone passes
    assert at.selectbox(key="crit_add_tag").options == ["axis:completeness", "critical:medication_change"]
    at.selectbox(key="crit_add_tag").select("critical:medication_change")
    at.number_input(key="crit_add_rate").set_value(0.05).run()
    assert at.button(key="crit_add").disabled  # no rationale yet
    at.text_area(key="crit_add_why_bar").input("An omitted warfarin change can cause a bleed.").run()
    at.button(key="crit_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    saved = load(home)
    assert saved.version == 2
    rule = saved.dossier.policy.rule("critical.critical_medication_change")
    assert (rule.tag, rule.threshold, rule.rationale) == ("critical:medication_change", 0.05,
                                                          "An omitted warfarin change can cause a bleed.")
    rows = at.dataframe[0].value
    assert "Critical criterion critical:medication_change ≤ 5.0% of cases missing" in list(rows["rule"])
    assert any("Reject" in i.value for i in at.info)  # 10 of 10 miss it: the candidate fails
    # the same rule again is not offered: nothing is saved twice
    at.selectbox(key="crit_add_tag").select("critical:medication_change").run()
    assert at.button(key="crit_add").disabled
    assert load(home).version == 2
