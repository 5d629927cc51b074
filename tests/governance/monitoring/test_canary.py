"""The canary (issue 37): frozen known-answer cases re-asked of the approved endpoint, an exact paired test.

A decided dossier whose run went to the local fake server (``reevaluation_fixtures``: model A right on all
20 calculator cases). Known answers: p-values computed here with ``math.comb`` and scipy's ``binomtest``;
the fake's request count proves the cache is never read.
"""

from __future__ import annotations

import json
import math
from datetime import timedelta

import pytest
from scipy.stats import binomtest

from cli import main
from governance.identity import Actor
from governance.monitoring.canary import allocate, canary_cost, choose_cases, detectable_losses, drop_p_value
from governance.monitoring.operations.canary import due_canaries, set_canary
from governance.monitoring.records import CanaryRun, CanarySet
from tests.fakes import prompt_text
from tests.governance.reevaluation_fixtures import PRICES, N, cases, scripted_models, seed_decided_dossier


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else None, out.err


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    return seed_decided_dossier(store, llm_server.url), llm_server, store


def wrong_on(k: int):
    """Model A now answers the first ``k`` calculator cases wrong (same name and URL, new behaviour)."""
    right, bad = scripted_models(), cases()[:k]

    def answer(request):
        text = prompt_text(request)
        hit = next((i for i in bad if i.context.strip() in text and i.question.strip() in text), None)
        return f"Answer: {float(hit.reference) * 2 + 1:g}" if hit else right(request)

    return answer


def test_canary_in_control_then_a_confirmed_drift_that_monitor_status_shows(decided, capsys):
    dossier_id, server, store = decided
    code, data, err = run(capsys, "canary", "set", dossier_id, "--cases", "20", "--every", "7",
                          "--by", "chair")
    assert code == 0, err
    assert (data["n"], data["baseline_correct"], data["every_days"]) == (N, N, 7)
    assert server.hits == N, "set asks no model: the baseline is the decided run's stored answers"

    code, data, err = run(capsys, "canary", "run", dossier_id, "--format", "json")
    assert code == 0, err
    keys = ("status", "n", "baseline_correct", "now_correct", "lost", "gained", "p_value", "changed_answers",
            "confirmed", "signal_id")
    assert {k: data[k] for k in keys} == {
        "status": "in_control", "n": N, "baseline_correct": N, "now_correct": N, "lost": 0, "gained": 0,
        "p_value": 1.0, "changed_answers": 0.0, "confirmed": False, "signal_id": None}
    assert data["served_model"] == "model-a"
    assert server.hits == 2 * N, "the canary asked the model again, never the cache"

    server.configure(answer=wrong_on(8))
    code, data, err = run(capsys, "canary", "run", dossier_id, "--format", "json")
    assert code == 3, err
    assert (data["status"], data["lost"], data["gained"], data["now_correct"]) == ("drift", 8, 0, 12)
    assert data["p_value"] == pytest.approx(binomtest(8, 8, 0.5, alternative="greater").pvalue)
    assert data["p_value"] == pytest.approx(0.5 ** 8) and data["changed_answers"] == pytest.approx(0.4)
    assert data["confirmed"] is True and data["signal_id"].startswith("S-") and data["attempts"] == 2
    assert server.hits == 4 * N, "one confirmation run before the signal"

    code, status, _ = run(capsys, "monitor", "status", dossier_id)
    (sig,) = [s for s in status["signals"] if s["kind"] == "canary_drift"]
    assert (sig["id"], sig["level"], sig["state"]) == (data["signal_id"], "review", "open")
    assert sig["owner"] and sig["deadline"] and "8 lost and 0 gained of 20" in sig["detail"]
    assert status["status"] == "review" and code == 3
    runs = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, CanaryRun)]
    assert [r.status for r in runs] == ["in_control", "drift"]


def test_a_changed_served_identity_is_confirmed_and_pauses(decided, capsys):
    dossier_id, server, store = decided
    set_canary(store, dossier_id, actor=Actor.named("chair"), cases=10)
    server.configure(served_model="model-a-2026-12-01")
    code, data, err = run(capsys, "canary", "run", dossier_id)
    assert code == 3, err
    assert (data["status"], data["served_model"], data["confirmed"], data["lost"]) == (
        "identity_changed", "model-a-2026-12-01", True, 0)
    code, status, _ = run(capsys, "monitor", "status", dossier_id)
    (sig,) = [s for s in status["signals"] if s["kind"] == "canary_identity"]
    assert sig["level"] == "pause" and status["status"] == "pause" and code == 4


def test_an_unreachable_endpoint_exits_4_with_a_review(decided, capsys):
    dossier_id, server, store = decided
    set_canary(store, dossier_id, actor=Actor.named("chair"), cases=10)
    server.configure(fault_for=lambda request: "401")
    code, data, err = run(capsys, "canary", "run", dossier_id)
    assert code == 4, err
    assert (data["status"], data["n"], data["confirmed"]) == ("unreachable", 0, False) and data["signal_id"]


def test_bad_input_exits_2_and_nothing_is_asked(decided, capsys):
    dossier_id, server, _ = decided
    hits = server.hits
    code, data, err = run(capsys, "canary", "run", dossier_id)
    assert code == 2 and data is None and "canary set" in err and "Traceback" not in err
    code, _, err = run(capsys, "canary", "set", "D-nope")
    assert code == 2 and "D-nope" in err
    code, _, err = run(capsys, "canary", "set", dossier_id, "--cases", "0")
    assert code == 2
    code, _, err = run(capsys, "canary", "run")
    assert code == 2 and "--due" in err
    assert server.hits == hits


def test_due_runs_only_the_canaries_whose_interval_passed(decided, capsys):
    dossier_id, server, store = decided
    record, _ = set_canary(store, dossier_id, actor=Actor.named("chair"), cases=5, every_days=7)
    assert due_canaries(store, record.at + timedelta(days=6)) == []
    assert due_canaries(store, record.at + timedelta(days=7)) == [dossier_id]
    code, data, _ = run(capsys, "canary", "run", "--due")
    assert code == 0 and data == {"runs": {}}, "frozen just now: not due"


def test_the_frozen_set_is_recorded_with_who_when_ids_and_digest(decided):
    dossier_id, _, store = decided
    record, version = set_canary(store, dossier_id, actor=Actor.named("dr.lee"), cases=7)
    (saved,) = [e for e in version.dossier.monitoring if isinstance(e, CanarySet)]
    assert saved == record and saved.by == "dr.lee" and len(saved.cases) == 7
    assert len({c.instance_id for c in saved.cases}) == 7 and len(saved.baseline_digest) == 64
    again, _ = set_canary(store, dossier_id, actor=Actor.named("dr.lee"), cases=7)
    assert [c.instance_id for c in again.cases] == [c.instance_id for c in saved.cases]
    assert again.baseline_digest == saved.baseline_digest


@pytest.mark.parametrize(("lost", "gained"),
                         [(0, 0), (1, 0), (5, 0), (6, 1), (8, 2), (3, 3), (10, 4), (0, 7)])
def test_the_drop_p_value_is_the_one_sided_exact_binomial(lost, gained):
    d = lost + gained
    by_hand = sum(math.comb(d, i) for i in range(lost, d + 1)) / 2 ** d if d else 1.0
    assert drop_p_value(lost, gained) == pytest.approx(by_hand, rel=1e-12)
    if d:
        scipy_p = binomtest(lost, d, 0.5, alternative="greater").pvalue
        assert drop_p_value(lost, gained) == pytest.approx(scipy_p)


def test_detectable_losses_at_five_percent():
    table = detectable_losses(0.05, 20)
    assert [table[d] for d in (4, 5, 10, 20)] == [None, 5, 9, 15]
    # 9 of 10 discordant: P(X >= 9) = 11/1024 = 0.0107; 8 of 10: 56/1024 = 0.0547 > 0.05
    assert drop_p_value(9, 1) == pytest.approx(11 / 1024) and drop_p_value(8, 2) == pytest.approx(56 / 1024)


def test_cases_are_stratified_over_benchmarks_with_known_answers_only():
    rows_a = [{"instance_id": f"a{i}", "score": float(i % 2), "error": None} for i in range(60)]
    rows_b = [{"instance_id": f"b{i}", "score": 1.0, "error": None} for i in range(30)]
    rows_c = ([{"instance_id": f"c{i}", "score": 0.5, "error": None} for i in range(40)]
              + [{"instance_id": f"x{i}", "score": 1.0, "error": "timeout"} for i in range(5)]
              + [{"instance_id": f"c1{i}", "score": 1.0, "error": None} for i in range(10)])
    chosen = choose_cases("D-1", {("A", "r1"): rows_a, ("B", "r2"): rows_b, ("C", "r3"): rows_c}, 10)
    assert [sum(c.benchmark == b for c in chosen) for b in "ABC"] == [6, 3, 1]
    assert all(c.instance_id.startswith("c1") for c in chosen if c.benchmark == "C")
    assert allocate(10, {"a": 60, "b": 30, "c": 10}) == {"a": 6, "b": 3, "c": 1}


def test_set_prints_the_cost_first_and_dry_run_freezes_nothing(decided, capsys):
    dossier_id, server, store = decided
    plan = store.load(dossier_id).dossier.evidence_plan
    rows = {r["instance_id"]: r for i in plan.items for r in store.runs.results(i.run_id)}
    before, hits = store.load(dossier_id).version, server.hits
    code, dry, err = run(capsys, "canary", "set", dossier_id, "--cases", "12", "--every", "14", "--dry-run")
    assert code == 0, err
    assert dry["dry_run"] is True and dry["n"] == 12 and store.load(dossier_id).version == before
    code, data, err = run(capsys, "canary", "set", dossier_id, "--cases", "12", "--every", "14")
    assert code == 0, err
    (canary,) = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, CanarySet)]
    chosen = [rows[c.instance_id] for c in canary.cases]
    assert all(r["prompt_tokens"] and r["completion_tokens"] for r in chosen)
    per_run = sum(r["prompt_tokens"] * PRICES["input_price_per_mtok"]
                  + r["completion_tokens"] * PRICES["output_price_per_mtok"] for r in chosen) / 1e6
    assert data["cost_per_run_usd"] == pytest.approx(per_run, rel=1e-12)
    assert data["runs_per_year"] == 26.07 and data["cost_per_year_usd"] == pytest.approx(per_run * 365 / 14)
    assert "endpoint override" in data["price_source"]
    assert {k: dry[k] for k in ("cost_per_run_usd", "runs_per_year", "cost_per_year_usd")} == {
        k: data[k] for k in ("cost_per_run_usd", "runs_per_year", "cost_per_year_usd")}
    assert f"USD {per_run:.4f} per run x 26.07 runs a year" in err
    assert server.hits == hits, "neither the preview nor the set asks a model"


def test_the_cost_is_unknown_not_zero_without_a_price_or_tokens():
    assert canary_cost([(100, 10), (None, 5)], (1.0, 2.0), 30) == (None, 12.17, None)
    assert canary_cost([(100, 10)], None, 30) == (None, 12.17, None)
    assert canary_cost([(1_000_000, 0)], (0.0, 0.0), 365) == (0.0, 1.0, 0.0)


def test_a_decided_run_without_stored_answers_gets_one_fresh_baseline_run(decided, capsys):
    dossier_id, server, store = decided
    (item,) = store.load(dossier_id).dossier.evidence_plan.items
    store.runs.con.execute("DELETE FROM run_results WHERE run_id = ?", [item.run_id])  # answers lost
    hits = server.hits
    code, dry, err = run(capsys, "canary", "set", dossier_id, "--cases", "10", "--dry-run")
    assert code == 0, err
    assert dry["fresh_baseline"] == [item.benchmark] and dry["n"] == 0 and dry["cost_per_run_usd"] is None
    assert server.hits == hits, "a dry run asks nothing"

    code, data, err = run(capsys, "canary", "set", dossier_id, "--cases", "10", "--by", "chair")
    assert code == 0, err
    assert server.hits - hits == 10, "the baseline asked once, for the cases to freeze only"
    (canary,) = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, CanarySet)]
    (fresh,) = canary.baseline_runs.values()
    assert canary.baseline_runs == {item.run_id: fresh} == data["baseline_runs"] and fresh != item.run_id
    assert (data["n"], data["baseline_correct"]) == (10, 10)
    assert {c.run_id for c in canary.cases} == {item.run_id}, "cases still name the decided run"
    rows = store.runs.results(fresh)
    assert len(rows) == 10 and all(r["score"] == 1.0 for r in rows)
    per_run = sum(r["prompt_tokens"] * PRICES["input_price_per_mtok"]
                  + r["completion_tokens"] * PRICES["output_price_per_mtok"] for r in rows) / 1e6
    assert data["cost_per_run_usd"] == pytest.approx(per_run), "priced by the baseline just asked"

    version = store.load(dossier_id).version
    code, again, err = run(capsys, "canary", "set", dossier_id, "--cases", "10", "--by", "chair")
    assert code == 0 and again["canary_id"] == canary.id and store.load(dossier_id).version == version
    assert server.hits - hits == 10, "setting the same canary again asks nothing and stores nothing"

    code, data, err = run(capsys, "canary", "run", dossier_id, "--format", "json")
    assert code == 0, err
    assert (data["status"], data["n"], data["lost"], data["changed_answers"]) == ("in_control", 10, 0, 0.0)
    assert server.hits - hits == 20


def test_an_old_canary_set_dumps_without_the_new_field():
    from governance.monitoring.records import CanaryCase

    old = CanarySet(id="K-0123456789", at="2026-12-01T00:00:00Z", by="chair", candidate="A", every_days=30,
                    cases=[CanaryCase(benchmark="b", run_id="r", instance_id="i", correct=True)],
                    baseline_digest="0" * 64, cases_digest="1" * 64)
    assert "baseline_runs" not in old.model_dump(mode="json")
    assert CanarySet.model_validate(old.model_dump(mode="json")) == old


def test_canary_run_batch_asks_through_the_batch_api(decided, capsys):
    # Issue 37 item 4: `canary run --batch`, the same comparison, no direct request.
    dossier_id, server, store = decided
    code, _, err = run(capsys, "canary", "set", dossier_id, "--cases", "20", "--by", "chair")
    assert code == 0, err
    server.batches.polls_in_progress = 0
    hits = server.hits
    code, data, err = run(capsys, "canary", "run", dossier_id, "--batch", "--format", "json")
    assert code == 0, err
    assert (data["status"], data["now_correct"], data["lost"]) == ("in_control", N, 0)
    assert server.hits == hits and (server.batches.created, server.batches.lines_answered) == (1, N)
