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
