"""``medassure benchmarks`` and ``medassure run`` against the local test server."""

import json

import pytest

from cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_benchmarks_json_lists_the_builtin_one(home, capsys):
    code, out, _ = run(capsys, "benchmarks", "--format", "json")
    rows = {r["id"]: r for r in json.loads(out)}
    assert code == 0 and rows["calc_builtin"]["needs_dataset_file"] is False
    assert rows["pubmedqa"]["needs_dataset_file"] is True


def test_run_then_rerun_from_cache(home, capsys, llm_server):
    llm_server.configure(answer=lambda r: "Answer: 12")
    args = [
        "run",
        "--benchmark",
        "calc_builtin",
        "--model",
        "openai/fake",
        "--api-base",
        llm_server.url,
        "--limit",
        "5",
        "--concurrency",
        "3",
        "--format",
        "json",
    ]
    code, out, err = run(capsys, *args)
    first = json.loads(out)
    assert code == 0, err
    assert (first["n"], first["new_requests"], first["cache_hits"], first["status"]) == (5, 5, 0, "completed")
    assert first["score"]["name"] == "numeric_in_range" and "lower" in first["score"]
    assert {"run_id", "n_unparsed", "prompt_tokens", "completion_tokens", "cost_usd"} <= set(first)
    assert "5/5" in err, "progress goes to stderr"
    code, out, _ = run(capsys, *args)
    second = json.loads(out)
    assert (code, second["new_requests"], second["cache_hits"]) == (0, 0, 5)
    assert llm_server.hits == 5


def test_dry_run_sends_nothing(home, capsys, llm_server):
    code, out, _ = run(
        capsys,
        "run",
        "--benchmark",
        "calc_builtin",
        "--model",
        "openai/fake",
        "--api-base",
        llm_server.url,
        "--limit",
        "4",
        "--dry-run",
        "--input-price",
        "1",
        "--output-price",
        "2",
    )
    est = json.loads(out)
    assert code == 0 and est["dry_run"] and est["n_to_send"] == 4 and est["completion_tokens_max"] == 4 * 64
    assert est["cost_usd_max"] > 0 and llm_server.hits == 0


def test_bad_input_exits_2_with_a_clear_message(home, capsys, monkeypatch):
    code, _, err = run(capsys, "run", "--benchmark", "nope", "--model", "gpt-4o")
    assert code == 2 and "unknown benchmark 'nope'" in err
    code, _, err = run(capsys, "run", "--benchmark", "pubmedqa", "--model", "gpt-4o")
    assert code == 2 and "--dataset-file" in err
    monkeypatch.delenv("NO_SUCH_VAR_FOR_TEST", raising=False)
    code, _, err = run(
        capsys,
        "run",
        "--benchmark",
        "calc_builtin",
        "--model",
        "openai/x",
        "--api-base",
        "https://llm.example.org/v1",
        "--api-key-env",
        "NO_SUCH_VAR_FOR_TEST",
    )
    assert code == 2 and "NO_SUCH_VAR_FOR_TEST is not set" in err
    code, _, err = run(
        capsys, "run", "--benchmark", "calc_builtin", "--model", "openai/x", "--concurrency", "0"
    )
    assert code == 2 and "--concurrency" in err


def test_budget_stop_exits_3(home, capsys, llm_server):
    llm_server.configure(answer=lambda r: "Answer: 1")
    code, out, err = run(
        capsys,
        "run",
        "--benchmark",
        "calc_builtin",
        "--model",
        "openai/fake",
        "--api-base",
        llm_server.url,
        "--limit",
        "10",
        "--concurrency",
        "1",
        "--max-cost",
        "0.05",
        "--input-price",
        "100",
        "--output-price",
        "100",
    )
    summary = json.loads(out)
    assert code == 3 and summary["status"] == "budget_exceeded" and "resume" in err
    # issue 25, item 12: a resume sends again what was in flight; the message says so
    assert "requests that were in flight when it stopped are sent again" in err
    assert summary["cost_usd"] <= 0.05 and summary["n"] < 10


def test_fresh_bypasses_the_response_cache_and_records_who_answered(home, capsys, llm_server):
    llm_server.configure(answer=lambda r: "Answer: 12", system_fingerprint="fp_1")
    args = ["run", "--benchmark", "calc_builtin", "--model", "openai/fake", "--api-base", llm_server.url,
            "--limit", "4", "--format", "json"]
    code, out, err = run(capsys, *args)
    assert code == 0, err
    llm_server.configure(served_model="fake-2026-01", system_fingerprint="fp_2")
    code, out, _ = run(capsys, *args, "--fresh", "--dry-run")
    estimate = json.loads(out)
    assert code == 0 and (estimate["n_cached"], estimate["n_to_send"]) == (0, 4)
    code, out, err = run(capsys, *args, "--fresh")
    fresh = json.loads(out)
    assert code == 0, err
    assert (fresh["new_requests"], fresh["cache_hits"]) == (4, 0) and llm_server.hits == 8
    assert fresh["served"] == [{"model": "fake-2026-01", "system_fingerprint": "fp_2", "n": 4}]
    code, out, _ = run(capsys, *args)
    again = json.loads(out)
    assert (again["new_requests"], again["cache_hits"]) == (0, 4) and llm_server.hits == 8
    assert again["served"] == fresh["served"], "the cache keeps the answer last observed, with who gave it"


def test_ctrl_c_during_a_run_exits_3_as_documented_and_the_same_command_resumes(home, capsys, llm_server,
                                                                                monkeypatch):
    """Issue 36 item 20: Ctrl-C during ``run`` exited 130; docs/cli.md says a run stopped early exits 3."""
    from cli.run_support import ProgressBar

    llm_server.configure(answer=lambda r: "Answer: 12")
    args = ["run", "--benchmark", "calc_builtin", "--model", "openai/fake", "--api-base", llm_server.url,
            "--limit", "5", "--concurrency", "1"]

    def press_ctrl_c(self, done, total, row):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(ProgressBar, "__call__", press_ctrl_c)
        code, out, err = run(capsys, *args)
    assert code == 3 and out == "" and "run the same command again to resume" in err
    code, out, err = run(capsys, *args)
    again = json.loads(out)
    assert code == 0 and again["status"] == "completed" and again["n"] == 5, err
    assert llm_server.hits == 5  # resumed: no request sent twice


def test_batch_run_gives_the_direct_results_at_the_batch_price(home, capsys, llm_server):
    # Issue 37 item 4: `run --batch` against the fake's Batch API, beside a direct run of the same cases.
    llm_server.configure(answer=lambda r: "Answer: 12", completion_tokens=3)
    llm_server.batches.polls_in_progress = 0
    common = ["run", "--benchmark", "calc_builtin", "--model", "gpt-4o-mini", "--api-base", llm_server.url,
              "--limit", "6", "--format", "json"]
    code, out, err = run(capsys, *common, "--batch", "--dry-run")
    estimate = json.loads(out)
    assert code == 0 and estimate["price_source"].startswith("litellm bundled cost map, batch rate"), err
    code, out, err = run(capsys, *common, "--batch")
    batched = json.loads(out)
    assert code == 0 and batched["status"] == "completed" and batched["n"] == 6, err
    assert (llm_server.hits, llm_server.batches.created, llm_server.batches.lines_answered) == (0, 1, 6)
    tokens = batched["prompt_tokens"], batched["completion_tokens"]
    assert batched["cost_usd"] == pytest.approx((tokens[0] * 0.075 + tokens[1] * 0.30) / 1e6)
    code, out, err = run(capsys, *common, "--fresh")  # the same cases asked directly, at the list price
    direct = json.loads(out)
    assert code == 0 and llm_server.hits == 6, err
    assert direct["score"]["mean"] == batched["score"]["mean"]
    assert direct["n_unparsed"] == batched["n_unparsed"]
    assert direct["cost_usd"] == pytest.approx(2 * batched["cost_usd"])
    code, _, err = run(capsys, *common, "--batch", "--max-cost", "1")
    assert code == 2 and "--batch" in err


def test_a_case_whose_server_sends_a_gzip_bomb_is_an_error_and_the_run_goes_on(home, capsys, llm_server):
    """Issue 35 item 6: the size cap holds before parsing; the CLI run records that case's error and
    answers the other cases (the stored message is checked in tests/evaluator/gateway/test_response_cap)."""
    llm_server.configure(answer=lambda r: "Answer: 12")
    sent = []

    def second_request_is_a_bomb(request):
        sent.append(1)
        return "gzip_bomb" if len(sent) == 2 else None

    llm_server.configure(fault_for=second_request_is_a_bomb)
    args = ["run", "--benchmark", "calc_builtin", "--model", "openai/fake", "--api-base", llm_server.url,
            "--limit", "4", "--concurrency", "1", "--format", "json"]
    code, out, err = run(capsys, *args)
    summary = json.loads(out)
    assert (summary["n"], summary["n_errors"], summary["errors"]) == (4, 1, {"too_large": 1}), err
    assert summary["status"] == "completed" and len(sent) == 4, "not retried, the others were asked"
    assert code == 0
    llm_server.configure(fault_for=None)
    code, out, _ = run(capsys, *args)
    again = json.loads(out)
    assert (again["n_errors"], again["cache_hits"], again["new_requests"]) == (0, 3, 1), "nothing was cached"
