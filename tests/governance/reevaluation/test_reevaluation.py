"""Re-evaluation against the test server: frozen plan, regression found, an unchanged plan asked again."""

from __future__ import annotations

import threading

import pytest

from evaluator.benchmarks.specs import get_benchmark, prompt_hash
from governance.decision.signoff import signoff_status
from governance.dossier.history import diff_versions, timeline
from governance.identity import Actor
from governance.reevaluation.operations.addendum import ReevaluationError, reevaluate
from governance.reevaluation.operations.rerun import read_prompt_file
from governance.reevaluation.records import PlanChange
from tests.governance.reevaluation_fixtures import (
    KEY_ENV,
    MODEL_A,
    MODEL_B,
    PRICES,
    N,
    bad_ids,
    scripted_models,
    seed_decided_dossier,
)


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    dossier_id = seed_decided_dossier(store, llm_server.url)
    assert llm_server.hits == N
    return store, llm_server, dossier_id


def test_decision_freezes_the_plan_with_hashes_endpoint_and_run(decided):
    store, server, dossier_id = decided
    d = store.load(dossier_id).dossier
    (item,) = d.evidence_plan.items
    run = store.runs.get_run(item.run_id)
    spec = get_benchmark("calc_builtin")
    assert item.kind == "benchmark" and item.benchmark_id == "calc_builtin" and item.rerunnable
    assert item.dataset_hash == run["dataset_hash"] and item.n_instances == N
    assert item.prompt.template_hash == prompt_hash(spec)
    assert item.prompt.prompt_template == spec.prompt_template
    assert item.prompt.rendered_hash == run["prompt_hash"]
    endpoint = item.endpoint
    assert (endpoint.model, endpoint.api_base, endpoint.api_key_env) == (MODEL_A, server.url, KEY_ENV)
    assert item.endpoint.transport == "openai" and "request" in item.endpoint.known_from
    assert item.params == {"temperature": 0.0, "max_tokens": 64} and item.judge is None
    assert item.evidence_ids == [e.id for e in d.evidence] and item.model_label == MODEL_A
    assert signoff_status(d).decision_current and signoff_status(d).complete


def test_worse_model_is_caught_with_exactly_its_wrong_instances(decided):
    store, server, dossier_id = decided
    before = store.load(dossier_id)
    result = reevaluate(store, dossier_id, PlanChange(model=MODEL_B, **PRICES), actor=Actor.named("qa"))
    a = result.addendum
    assert server.hits == 2 * N and a.new_requests == N and a.cache_hits == 0
    (c,) = a.comparisons
    assert c.worse == bad_ids() and c.better == [] and c.n_pairs == N and c.binary
    assert (c.mean_before, c.mean_after) == (1.0, pytest.approx(17 / 20))
    assert c.mean_delta == pytest.approx(-3 / 20) and c.delta_ci[0] < c.mean_delta < 0 <= c.delta_ci[1] + 1e-9
    assert c.mcnemar_p == pytest.approx(0.25) and c.model_after == MODEL_B and c.candidate == MODEL_A
    assert c.evidence_after[0].model == MODEL_B and c.evidence_after[0].n == N
    (change,) = a.verdict_changes
    assert (change.rule_id, change.before, change.after, change.status_changed) == (
        "score.calc", "pass", "inconclusive", True)
    assert a.verdicts_flipped and a.impact.would_change
    assert (a.candidates_rerun, a.benchmarks_rerun) == ([MODEL_A], ["calc_builtin"])
    assert a.impact.decided_model == MODEL_A and a.answers_for_decided_model
    other = a.model_copy(update={"impact": a.impact.model_copy(update={"decided_model": "openai/not-rerun"})})
    assert not other.answers_for_decided_model, "the decided model was never re-run"
    # issue 15: an open score verdict is insufficient evidence, no longer a condition
    assert (a.impact.recommended_before, a.impact.recommended_after) == ("approve", "insufficient_evidence")
    assert "instead of 'approve'" in a.impact.why[0]
    # a new version holding the addendum; the decided evidence and the sign-off stay as they were
    v = result.version
    assert v.version == before.version + 1 and "re-evaluation" in v.note and "would change" in v.note
    assert v.dossier.evidence == before.dossier.evidence and v.dossier.reevaluations == [a]
    status = signoff_status(v.dossier)
    assert status.complete and status.decision_current
    assert timeline(store, dossier_id)[-1]["kind"] == "re-evaluation"
    diff = diff_versions(store, dossier_id, before.version, v.version)
    assert diff.sections == ["reevaluations"] and [c.path for c in diff.changes] == ["reevaluations"]


def test_nothing_changed_asks_the_model_again_and_flags_nothing(decided):
    store, server, dossier_id = decided
    result = reevaluate(store, dossier_id, actor=Actor.named("qa"))
    a = result.addendum
    assert server.hits == 2 * N, "a re-evaluation observes the model, not the cache"
    assert (a.new_requests, a.cache_hits) == (N, 0)
    assert a.served_identity_changed is False and not any("served" in c for c in a.caveats)
    (c,) = a.comparisons
    assert c.worse == c.better == [] and c.mean_delta == 0 and c.baseline_reproduced is True
    assert c.run_after != c.run_before and c.mcnemar_p == 1.0
    assert a.verdict_changes == [] and not a.verdicts_flipped and not a.impact.would_change
    assert a.impact.why[0].startswith("No verdict for openai/model-a changed")
    assert "would not change" in result.version.note and a.change.describe().startswith("nothing changed")


def test_prompt_change_sends_new_requests_and_keeps_the_verdicts(decided, tmp_path):
    store, server, dossier_id = decided
    prompt = tmp_path / "prompt.yaml"
    prompt.write_text("prompt_template: |-\n  Note:\n  {context}\n\n  {question}\n"
                      "  Reply as 'Answer: <number>'.\n")
    change = PlanChange(**read_prompt_file(prompt))
    a = reevaluate(store, dossier_id, change, actor=Actor.named("qa")).addendum
    (c,) = a.comparisons
    assert server.hits == 2 * N and a.new_requests == N
    assert c.prompt_hash_after != c.prompt_hash_before and c.baseline_reproduced is None
    assert c.worse == [] and a.verdict_changes == [] and not a.impact.would_change
    assert a.change.prompt_source == "prompt.yaml"


def test_refusals_name_the_problem_and_save_nothing(decided, tmp_path):
    store, server, dossier_id = decided
    latest = store.load(dossier_id).version
    bad = tmp_path / "bad.txt"
    bad.write_text("Use {patient_name}")
    with pytest.raises(ReevaluationError, match="unknown placeholders"):
        reevaluate(store, dossier_id, PlanChange(**read_prompt_file(bad)), actor=Actor.named("qa"))
    with pytest.raises(ReevaluationError, match="no such prompt file"):
        read_prompt_file(tmp_path / "missing.txt")
    server.configure(fault_for=lambda req: "401" if req.get("model") == "broken" else None)
    with pytest.raises(ReevaluationError, match="no scored answer"):
        reevaluate(store, dossier_id, PlanChange(model="openai/broken", **PRICES), actor=Actor.named("qa"))
    assert server.hits == 2 * N
    server.configure(fault_for=None)
    d = store.load(dossier_id).dossier
    item = d.evidence_plan.items[0].model_copy(update={"dataset_hash": "0" * 64})
    tampered = d.model_copy(update={"evidence_plan": d.evidence_plan.model_copy(update={"items": [item]})})
    store.save(tampered, author="x", note="tampered plan")
    with pytest.raises(ReevaluationError, match="the cases changed since the decision"):
        reevaluate(store, dossier_id, actor=Actor.named("qa"))
    assert store.load(dossier_id).version == latest + 1  # only the tampering saved a version
    assert server.hits == 2 * N  # the tampered plan sent nothing


def test_undecided_dossier_is_refused(store):
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use

    store.save(Dossier(id="D-open", title="Open", owner="c", intended_use=example_intended_use()), "a")
    with pytest.raises(ReevaluationError, match="has no decision yet"):
        reevaluate(store, "D-open", actor=Actor.named("qa"))


def test_a_cancelled_reevaluation_started_again_continues_its_own_rerun(decided):
    store, server, dossier_id = decided
    stop = threading.Event()

    def progress(_benchmark: str, done: int, _total: int) -> None:
        if done >= 5:
            stop.set()

    with pytest.raises(ReevaluationError, match="cancelled"):
        reevaluate(store, dossier_id,
                   actor=Actor.named("qa"), concurrency=1, on_progress=progress, cancel=stop)
    first = server.hits - N
    assert 5 <= first < N
    a = reevaluate(store, dossier_id, actor=Actor.named("qa"), concurrency=1).addendum
    assert a.new_requests == N - first and server.hits == 2 * N, "its own answers are kept, the rest asked"
    a = reevaluate(store, dossier_id, actor=Actor.named("qa"), concurrency=1).addendum
    assert a.new_requests == N and server.hits == 3 * N, "a later re-evaluation asks again for everything"
