"""CLI contract of rules, assess, decide and signoff: JSON keys, new versions, exit codes."""

from __future__ import annotations

import json

import pytest

from cli import main
from governance.dossier.store import Store
from tests.governance.policy_fixtures import dossier, ev


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith(("{", "[")) else None, out.err


@pytest.fixture
def dossier_id(home):
    d = dossier([ev(0.80, 0.76, 0.84, n=400, model="m1", benchmark="MedConfInfo"),
                 ev(0.62, 0.56, 0.67, n=300, model="m1", benchmark="ProxySender"),
                 ev(0.72, 0.667, 0.768, n=300, model="m2", benchmark="ProxySender",
                    method="Wilson score interval, 95%")])
    d = d.model_copy(update={"mapping": d.mapping.decide("patient_provider_messaging", "accepted", by="x")})
    store = Store.open(home / "medassure.duckdb")
    store.save(d, author="alice", note="created")
    store.close()
    return d.id


def latest(home, dossier_id):
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.load(dossier_id)
    finally:
        store.close()


def test_rules_init_lock_then_assess_json(home, capsys, dossier_id):
    code, policy, err = run(capsys, "rules", dossier_id, "--init", "--lock", "--by", "chair", "--note", "m1")
    assert code == 0 and policy["lock"]["locked_by"] == "chair" and "version 2" in err
    assert policy["rules"][0]["id"] == "score.patient_provider_messaging"
    code, out, err = run(capsys, "rules", dossier_id, "--lock")
    assert code == 2 and out is None and "already locked" in err

    code, data, _ = run(capsys, "assess", dossier_id, "--format", "json")
    assert code == 0 and data["locked"] and data["version"] == 2 and data["rules_hash"]
    score = [v for v in data["verdicts"] if v["rule_id"] == "score.patient_provider_messaging"]
    by = {(v["model"], v["benchmark"]): v for v in score}
    assert by[("m1", "MedConfInfo")]["verdict"] == "pass"
    assert by[("m1", "ProxySender")]["verdict"] == "fail"
    open_ = by[("m2", "ProxySender")]
    assert open_["verdict"] == "inconclusive" and open_["further_cases"] > 0
    for v in score:
        assert {"verdict", "threshold", "estimate", "interval", "evidence_ids", "reason"} <= set(v)
        assert v["threshold"] == 0.70 and len(v["interval"]) == 2 and v["evidence_ids"]
    # m1 fails ProxySender (reject); m2's ProxySender is open, so insufficient evidence, not a condition
    assert data["recommendation"]["outcome"] == "insufficient_evidence"
    assert data["recommendation"]["models"] == ["m2"]
    # the family: 1 score rule x 2 candidates, 3 tests; Holm over them; gates counted apart
    family = data["family"]
    assert family["tests"] == 3 and family["pairs"] == 2 and family["method"] == "holm"
    assert data["score_counts"] == {"pass": 1, "fail": 1, "inconclusive": 1, "not_applicable": 0}
    assert sum(data["gating_counts"].values()) == len(data["verdicts"]) - 3
    assert open_["alpha"] == 0.025 and open_["p_value"] == pytest.approx(0.2248, abs=1e-4)
    assert open_["adjusted"] >= open_["p_value"] and not open_["gating"] and open_["family_size"] == 3
    assert "80% chance of a pass" in open_["reason"] and "likely" not in open_["reason"]


def test_decide_then_signoff_then_change_invalidates(home, capsys, dossier_id):
    run(capsys, "rules", dossier_id, "--init", "--lock", "--by", "chair")
    code, out, _ = run(capsys, "decide", dossier_id, "--decision", "approve_with_conditions", "--model", "m2",
                       "--rationale", "Cheaper and no failed rule.", "--condition", "Review every draft.",
                       "--condition", "Local evaluation of 300 messages.", "--by", "chair",
                       "--override-gaps", "Pilot only; cost and plan follow before go-live.")
    assert code == 0
    assert out["decision"]["conditions"] == ["Review every draft.", "Local evaluation of 300 messages."]
    assert out["decision"]["recommended"] == "insufficient_evidence"
    assert out["signoffs_voided"] == []  # a first decision voids nothing
    decided_hash = out["hash"]

    code, out, err = run(capsys, "signoff", dossier_id, "--role", "clinical lead", "--name", "Dr. Chen")
    assert code == 0
    assert latest(home, dossier_id).dossier.signoffs[0].version_hash == decided_hash
    roles = {r["role"]: r for r in out["status"]["roles"]}
    assert roles["clinical lead"]["valid"] and not out["status"]["complete"]
    code, out, err = run(capsys, "signoff", dossier_id, "--role", "data steward", "--name", "K. Lee")
    assert code == 0 and "not among the required roles" in err

    # a later change (re-deciding) invalidates both sign-offs, visibly: named in the JSON and on stderr
    code, out, err = run(capsys, "decide", dossier_id, "--decision", "reject",
                         "--rationale", "Vendor withdrew the product.")
    assert code == 0 and out["signoffs_voided"] == [{"role": "clinical lead", "name": "Dr. Chen"},
                                                     {"role": "data steward", "name": "K. Lee"}]
    assert "voids 2 sign-off(s): clinical lead (Dr. Chen); data steward (K. Lee)" in err
    from governance.decision.signoff import signoff_status

    status = signoff_status(latest(home, dossier_id).dossier)
    assert len(status.invalidated) == 2 and not any(r.valid for r in status.roles)


@pytest.mark.parametrize("argv, message", [
    (["decide", "{id}", "--decision", "approve", "--rationale", "too short"], "rationale"),
    (["decide", "{id}", "--decision", "approve_with_conditions", "--rationale", "Good enough for a pilot."],
     "at least one condition"),
    (["decide", "{id}", "--decision", "maybe", "--rationale", "Good enough for a pilot."], "invalid choice"),
    (["signoff", "{id}", "--role", "clinical lead", "--name", "Dr. Chen"], "decision before signing"),
    (["assess", "D-nope"], "No dossier"),
    (["decide", "{id}", "--decision", "reject", "--rationale", "Not good enough here.", "--model", "m9"],
     "no evidence names the candidate 'm9'"),
])
def test_bad_input_exits_2_with_a_message(home, capsys, dossier_id, argv, message):
    code = main([a.format(id=dossier_id) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert latest(home, dossier_id).version == 1  # nothing saved


def test_assess_text_format(home, capsys, dossier_id):
    run(capsys, "rules", dossier_id, "--init")
    code = main(["assess", dossier_id, "--format", "text"])
    out = capsys.readouterr().out
    assert code == 0 and "Recommendation:" in out and "fail" in out
