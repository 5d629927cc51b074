"""Re-evaluation pieces without a server: prompt files, the changed endpoint, verdict flags, the answer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from governance.decision.records import CommitteeDecision
from governance.evidence.plan_records import PlanEndpoint, PlanItem
from governance.reevaluation.compare import decision_impact, verdict_changes
from governance.reevaluation.operations.rerun import ReevaluationError, item_endpoint, read_prompt_bytes
from governance.reevaluation.records import PlanChange
from governance.rules.verdicts import Assessment, Verdict


def test_prompt_files_plain_yaml_json_and_their_errors():
    assert read_prompt_bytes("p.txt", b"Q: {question}\n") == {"prompt_source": "p.txt",
                                                              "prompt_template": "Q: {question}"}
    both = read_prompt_bytes("p.yml", b"system_prompt: Be brief.\nprompt_template: '{question}'\n")
    assert (both["system_prompt"], both["prompt_template"]) == ("Be brief.", "{question}")
    assert read_prompt_bytes("p.json", b'{"system_prompt": "S"}')["system_prompt"] == "S"
    for name, data, message in [("p.yaml", b"prompt: x", "prompt_template and/or system_prompt"),
                                ("p.yaml", b"- a", "got list"), ("p.json", b"{", "not valid JSON"),
                                ("p.txt", b"  \n", "empty"), ("p.txt", b"\xff\xfe\xfa", "not UTF-8")]:
        with pytest.raises(ReevaluationError, match=message):
            read_prompt_bytes(name, data)


def item(**endpoint) -> PlanItem:
    base = dict(name="A", model="openai/a", api_base="http://127.0.0.1:9/v1", api_key_env="A_KEY",
                input_price_per_mtok=1.0, output_price_per_mtok=2.0, phi_approved=True, transport="openai")
    return PlanItem(kind="benchmark", benchmark="calc_builtin", benchmark_id="calc_builtin", run_id="run-1",
                    endpoint=PlanEndpoint(**(base | endpoint)), model_label="openai/a")


def test_unchanged_endpoint_keeps_its_approval_and_prices():
    ep = item_endpoint(item(), PlanChange())
    assert (ep.model, ep.api_key_env, ep.phi_approved) == ("openai/a", "A_KEY", True)
    assert ep.input_price_per_mtok == 1.0


def test_new_model_loses_phi_approval_and_old_prices_unless_given():
    ep = item_endpoint(item(), PlanChange(model="openai/b"))
    assert (ep.model, ep.name, ep.phi_approved) == ("openai/b", "openai/b", False)
    assert ep.input_price_per_mtok is None
    ep = item_endpoint(item(), PlanChange(model="openai/b", phi_approved=True, input_price_per_mtok=3.0,
                                          output_price_per_mtok=4.0, api_key_env="B_KEY"))
    assert (ep.phi_approved, ep.input_price_per_mtok, ep.api_key_env) == (True, 3.0, "B_KEY")


def test_bad_changes_are_refused():
    with pytest.raises(ReevaluationError, match="api_key_env"):
        item_endpoint(item(), PlanChange(api_key_env="sk-live-123"))
    with pytest.raises(ReevaluationError, match="NO_SUCH_REEVAL_VAR is not set"):
        item_endpoint(item(api_base=None, transport="litellm"), PlanChange(api_key_env="NO_SUCH_REEVAL_VAR"))


def verdict(rule: str, status: str, estimate: float | None = None, model: str = "m") -> Verdict:
    return Verdict(rule_id=rule, kind="score", model=model, benchmark="b", metric="acc", status=status,
                   threshold=0.8, estimate=estimate, reason=f"{rule} {status}", pre_registered=True)


def assessment(*verdicts: Verdict) -> Assessment:
    return Assessment(verdicts=list(verdicts), rules_hash="h", locked=True, changes_after_lock=0,
                      change_log_problem=None, models=sorted({v.model for v in verdicts}))


def decision(outcome: str = "approve") -> CommitteeDecision:
    return CommitteeDecision(outcome=outcome, model="m", rationale="clears every rule", decided_by="chair",
                             decided_at=datetime.now(UTC), required_roles=["clinical lead"], content_hash="x")


def test_flags_changes_and_crossings_only():
    before = assessment(verdict("a", "pass", 0.9), verdict("b", "inconclusive", 0.82),
                        verdict("c", "pass", 0.95))
    after = assessment(verdict("a", "fail", 0.5), verdict("b", "inconclusive", 0.78),
                       verdict("c", "pass", 0.94))
    n, changes = verdict_changes(before, after)
    assert n == 3 and [(c.rule_id, c.status_changed, c.crossed, c.now_fails) for c in changes] == [
        ("a", True, True, True), ("b", False, True, False)]


def test_decision_answer_says_yes_with_the_failing_rule_and_no_otherwise():
    before = assessment(verdict("a", "pass", 0.9))
    yes = decision_impact(decision(), before, assessment(verdict("a", "fail", 0.5)),
                          verdict_changes(before, assessment(verdict("a", "fail", 0.5)))[1])
    assert yes.would_change and yes.recommended_after == "reject"
    assert yes.why[0].startswith("The verdicts for m would support 'reject' instead of 'approve'")
    assert any(w.startswith("Rule a on b would fail (was pass)") for w in yes.why)
    no = decision_impact(decision(), before, before, [])
    assert not no.would_change
    assert no.why == ["No verdict for m changed; the verdicts still support 'approve', as when the committee "
                      "decided 'approve'."]
    other = decision_impact(decision(), assessment(verdict("a", "pass", 0.9), verdict("a", "pass", 0.9, "z")),
                            assessment(verdict("a", "pass", 0.9), verdict("a", "fail", 0.1, "z")),
                            [])
    assert not other.would_change, "a change for another candidate does not change the decision on m"
