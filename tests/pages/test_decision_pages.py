"""AppTest per page of the decision path: Rules & verdicts, Cost, Review & monitoring, Decision."""

from __future__ import annotations

import json

from governance.decision.signoff import signoff_status
from governance.dossier.store import Store
from tests.pages.conftest import confirm_voiding, latest, open_page
from tests.pages.readable import assert_readable


def texts(at) -> str:
    parts = [m.value for m in at.markdown] + [e.value for e in at.error] + [s.value for s in at.success]
    return "\n".join(parts + [w.value for w in at.warning] + [i.value for i in at.info])


def test_rules_page_shows_lock_change_log_and_three_verdict_kinds(demo_copy):
    at = open_page("pages/rules_verdicts.py")
    assert at.title[0].value == "Rules & verdicts"
    assert "Locked by" in at.success[0].value and "1 change(s) since" in at.success[0].value
    rules, changes, verdicts = (f.value for f in at.dataframe)
    assert "Score bar 0.95 on PrivacyDetection" in set(rules["rule"])  # rules in words, never their ids
    assert {"score bar", "minimum n", "judge agreement"} <= set(rules["kind"])
    assert set(rules["point estimates accepted"]) <= {"yes", "no"}
    assert assert_readable(at) == 3
    assert list(changes["rule"]) == ["Score bar 0.95 on PrivacyDetection"]
    kinds = set(verdicts["verdict"])
    assert {"✓ pass", "✗ fail", "⚠ inconclusive"} <= kinds
    assert verdicts["reason"].str.len().min() > 10 and (verdicts["evidence"] != "").any()
    # issue 15: score verdicts and gates counted apart, the family stated, pre-registration by name
    assert set(verdicts["counted as"]) == {"score verdict", "gating rule"}
    score = verdicts[verdicts["counted as"] == "score verdict"]
    tested = score.loc[score["one-sided p"] != "", "error rate"]
    assert len(tested) and tested.str.startswith("2.5% one-sided, holm over").all()
    captions = "\n".join(c.value for c in at.caption)
    method = "\n".join(m.value for m in at.markdown)  # the family text sits under "How this is computed"
    assert "Family of score verdicts: 3 score rule(s) × 3 candidate(s)" in method
    assert "likely" not in captions
    assert any(m.value.startswith("**Pre-registration.**")
               and "verdicts that read evidence are pre-registered" in m.value for m in at.markdown)


def test_rules_page_locked_change_needs_a_reason_then_is_logged(demo_copy):
    at = open_page("pages/rules_verdicts.py")
    at.selectbox(key="rule_pick").select("min_n").run()
    at.number_input(key="rule_min_n_t").set_value(150).run()
    at.button(key="rule_save").click().run()
    assert any("needs a reason" in e.value for e in at.error)
    assert len(latest(demo_copy).dossier.policy.changes) == 1
    at.number_input(key="rule_min_n_t").set_value(150).run()
    at.text_input(key="rule_min_n_reason").input("Pharmacy asked for tighter intervals").run()
    at.button(key="rule_save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    policy = latest(demo_copy).dossier.policy
    assert policy.rule("min_n").threshold == 150 and policy.changes[-1].why.startswith("Pharmacy")
    assert policy.changes[-1].by == "dr.page"


def test_rules_page_starts_from_defaults_and_locks(home):
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    store = Store.open(home / "medassure.duckdb")
    store.save(Dossier(id="D-fresh", title="Fresh dossier", owner="me", intended_use=example_intended_use()),
               author="me")
    store.close()
    at = open_page("pages/rules_verdicts.py", dossier_id="D-fresh")
    assert any("No rules yet" in i.value for i in at.info)
    at.button(key="rules_init").click().run()
    assert any("not locked" in w.value for w in at.warning)
    at.text_input(key="lock_note").input("meeting 1").run()
    at.button(key="rules_lock").click().run()
    assert not at.exception and "Locked by" in at.success[0].value
    store = Store.open(home / "medassure.duckdb")
    lock = store.load("D-fresh").dossier.policy.lock
    store.close()
    assert lock.note == "meeting 1" and lock.locked_by == "dr.page"


def test_cost_page_table_chart_and_profile_save(demo_copy):
    at = open_page("pages/cost.py")
    assert at.title[0].value == "Cost"
    table = at.dataframe[0].value
    assert len(table) == 3 and (table["on frontier"] == "yes").any()
    assert (table["USD / 1,000 requests"] > 0).all()
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert "cost_per_1k" in spec and "frontier" in spec
    assert any("budget-based upper bounds" in c.value for c in at.caption)
    at.selectbox(key="cost_model").select("Llama 3.3 Instruct (70B)").run()
    # The form's keys carry a stamp of the stored profile (a save resets the form to what was saved).
    (k,) = [t.key[: -len("price_model")] for t in at.text_input
            if t.key.startswith("cost_Llama 3.3 Instruct (70B)_") and t.key.endswith("price_model")]
    at.text_input(key=k + "price_model").input("openai/llama-3.3-70b-onprem").run()
    at.number_input(key=k + "in").set_value(0.0).run()
    at.text_input(key=k + "source").input("on-prem pilot, 200 portal messages").run()
    at.number_input(key=k + "prompt").set_value(650.0).run()
    at.button(key="cost_save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    (profile,) = [p for p in latest(demo_copy).dossier.cost.profiles if p.model.startswith("Llama")]
    assert profile.mean_prompt_tokens == 650.0 and profile.price_model == "openai/llama-3.3-70b-onprem"


def test_review_page_derives_and_saves_an_edit(demo_copy):
    at = open_page("pages/review_monitoring.py")
    assert at.title[0].value == "Review & monitoring"
    assert any("doubled" in m.value for m in at.markdown)
    v = latest(demo_copy).version
    at.number_input(key=f"plan_{v}_rate").set_value(0.2).run()
    at.button(key="plan_save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    assert not at.exception
    plan = latest(demo_copy).dossier.oversight
    assert plan.review.qa_sample_rate == 0.2 and plan.edited_by == "dr.page"


def test_review_page_editors_show_labels_not_keys(demo_copy):
    at = open_page("pages/review_monitoring.py")
    assert assert_readable(at) == 2
    for editor in at.dataframe:
        config = {k: v for k, v in json.loads(editor.proto.columns).items() if k != "_index"}
        assert set(config) == set(editor.value.columns)  # every column has a label
        assert all("_" not in c["label"] for c in config.values())
        options = [o for c in config.values() for o in c["type_config"].get("options", [])]
        assert all("_" not in o["label"] for o in options)
    assert {"at least", "at most"} <= {o["label"] for o in options}


def test_decision_page_signoff_then_change_shows_invalidation(demo_copy):
    at = open_page("pages/decision.py")
    assert at.title[0].value == "Decision"
    assert "Approve with conditions" in texts(at) and not at.error
    assert "### Insufficient evidence" in texts(at)  # the recomputed recommendation (issue 15)
    (differs,) = [w.value for w in at.warning if "differs from the recommendation" in w.value]
    assert "the verdicts support reject" in differs  # GPT-4o fails the language-disparity rule
    assert "recorded reason: GPT-4o runs" in differs
    assert list(at.radio(key="decision_outcome").options) == ["Approve", "Approve with conditions", "Reject"]
    roles = at.dataframe[0].value
    assert list(roles.loc[roles["status"] == "✓ valid", "role"]) == ["clinical lead"]
    at.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    at.text_input(key="signoff_name_1").input("Dr. K. Osei").run()  # the demo holds one sign-off
    at.button(key="signoff_button").click().run()
    assert not at.exception
    assert sum(r.valid for r in signoff_status(latest(demo_copy).dossier).roles) == 2

    at.radio(key="decision_outcome").set_value("reject").run()
    at.text_area(key="decision_rationale").input("The vendor withdrew the product from the market.").run()
    at.button(key="decision_record").click().run()
    assert not at.exception
    assert [w for w in at.warning if "voids 2 sign-off(s)" in w.value]  # asked first (test_voiding_save)
    at.button(key="voiding_save_confirm").click().run()
    assert not at.exception
    assert at.error and "2 sign-off(s) no longer valid" in at.error[0].value
    assert "changed since: Decision" in at.error[0].value  # by label (issue 27)
    assert latest(demo_copy).dossier.decision.outcome == "reject"


def test_signoff_fields_start_empty_for_the_next_signer(demo_copy):
    at = open_page("pages/decision.py")
    at.selectbox(key="signoff_role").select("CMIO / clinical informatics").run()
    at.text_input(key="signoff_name_1").input("Dr. K. Osei").run()
    at.text_input(key="signoff_note_1").input("Agreed on the condition of a 90-day review.").run()
    at.button(key="signoff_button").click().run()
    # new widgets for the next signer (a real browser kept the old one's text: tests/browser)
    assert at.text_input(key="signoff_note_2").value == ""
    assert at.text_input(key="signoff_name_2").value == "dr.page"
    at.selectbox(key="signoff_role").select("privacy / compliance").run()
    at.text_input(key="signoff_name_2").input("J. Okafor").run()
    at.button(key="signoff_button").click().run()
    assert not at.exception
    signoffs = {s.role: s for s in latest(demo_copy).dossier.signoffs}
    assert signoffs["CMIO / clinical informatics"].note == "Agreed on the condition of a 90-day review."
    assert signoffs["privacy / compliance"].note == ""  # not the previous signer's note


def test_decision_page_checklist_on_the_demo_is_complete_before_the_decision(demo_copy):
    at = open_page("pages/decision.py")
    marks = (":green[", ":red[", ":gray[")
    lines = [m.value.split("[", 1)[1] for m in at.markdown if m.value.startswith(marks)]
    assert [line.split("**")[1] for line in lines] == [
        "Acceptance rules locked", "Evidence attached", "Cost analysis", "Human-review plan",
        "Monitoring plan", "Sign-offs from the required roles"]
    assert all(line.startswith("✓") for line in lines[:5])
    assert lines[5].startswith("○") and "1 of 4 required roles" in lines[5]
    assert not any("Missing before an approval" in w.value for w in at.warning)
    assert not [t for t in at.text_area if t.key == "decision_override"]


def _gapped_dossier(home) -> None:
    from evaluator.evidence.record import published_evidence
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    home.mkdir(parents=True, exist_ok=True)
    d = Dossier(id="D-gaps", title="Portal replies without a plan", owner="me",
                intended_use=example_intended_use(),
                evidence=published_evidence(["MedConfInfo"], ["GPT-4o (2024-05-13)"]))
    store = Store.open(home / "medassure.duckdb")
    store.save(d, author="me")
    store.close()


def test_decision_page_approval_with_gaps_needs_a_recorded_override(home):
    _gapped_dossier(home)
    at = open_page("pages/decision.py", dossier_id="D-gaps")
    crosses = [m.value for m in at.markdown if m.value.startswith(":red[✗]")]
    assert len(crosses) == 4 and "Cost analysis" in crosses[1]
    assert any("A rejection needs none" in c.value for c in at.caption)
    at.radio(key="decision_outcome").set_value("approve").run()
    (missing,) = [w.value for w in at.warning if "Missing before an approval" in w.value]
    assert "Acceptance rules locked, Cost analysis, Human-review plan, Monitoring plan" in missing
    at.text_area(key="decision_rationale").input("Pilot on one ward under full review only.").run()
    assert at.button(key="decision_record").disabled  # no override reason yet
    reason = "Four-week pilot; cost and monitoring plan come before any wider use."
    at.text_area(key="decision_override").input(reason).run()
    assert not at.button(key="decision_record").disabled
    at.button(key="decision_record").click().run()
    assert not at.exception and not at.error
    store = Store.open(home / "medassure.duckdb")
    decision = store.load("D-gaps").dossier.decision
    store.close()
    assert decision.outcome == "approve" and decision.gaps_override.reason == reason
    assert decision.gaps_override.missing[0] == "Acceptance rules locked"
    assert any("Approved with items missing" in w.value and reason in w.value for w in at.warning)


def test_decision_page_rejection_with_gaps_needs_no_override(home):
    _gapped_dossier(home)
    at = open_page("pages/decision.py", dossier_id="D-gaps")
    at.radio(key="decision_outcome").set_value("reject").run()
    assert not [t for t in at.text_area if t.key == "decision_override"]
    at.text_area(key="decision_rationale").input("Not for our patients until a plan exists.").run()
    at.button(key="decision_record").click().run()
    assert not at.exception
    store = Store.open(home / "medassure.duckdb")
    decision = store.load("D-gaps").dossier.decision
    store.close()
    assert decision.outcome == "reject" and decision.gaps_override is None


def test_decision_page_warns_that_the_demos_approved_snapshot_is_retired(demo_copy):
    """Issue 37: litellm's shipped map retires gpt-4o-2024-05-13 on 2026-10-23, before the demo's decision."""
    at = open_page("pages/decision.py")
    (warning,) = [w.value for w in at.warning if w.value.startswith("**Vendor retirement.**")]
    assert "gpt-4o-2024-05-13 on 2026-10-23" in warning and "already past" in warning
