"""Run store and journal: replay after a crash, idempotence, a torn last line, a live writer's lock."""

from __future__ import annotations

import json

import duckdb

from evaluator.runs.store import RunStore, cache_key, now_iso
from evaluator.runs.writer import ResultWriter, replay_journals


def result(run_id: str, iid: str, error: str | None = None) -> dict:
    return {
        "run_id": run_id,
        "instance_id": iid,
        "response_text": "A",
        "parsed": "A",
        "score": 1.0,
        "unparsed": False,
        "metrics": {"accuracy": 1.0},
        "prompt_tokens": 3,
        "completion_tokens": 1,
        "cost_usd": 0.001,
        "latency_s": 0.1,
        "attempts": 1,
        "cached": False,
        "error": error,
        "finished_at": now_iso(),
    }


def new_run(store: RunStore) -> str:
    return store.create_run(
        run_key="k",
        benchmark_id="b",
        hashes={},
        model="m",
        endpoint_name="e",
        api_base=None,
        params={},
        n_planned=3,
    )


def test_journal_replay_recovers_results_skips_torn_line_and_is_idempotent(tmp_path):
    db = tmp_path / "s.duckdb"
    store = RunStore(duckdb.connect(str(db)))
    run_id = new_run(store)
    journal = store.journal_dir / f"{run_id}.jsonl"
    journal.parent.mkdir(parents=True)
    lines = [json.dumps({"r": result(run_id, f"i{i}"), "c": None}) for i in range(3)]
    journal.write_text("\n".join(lines) + '\n{"r": {"run_id": "torn')  # killed mid-write
    assert store.recover() == 3
    assert not journal.exists()
    assert store.finished_ids(run_id) == {"i0", "i1", "i2"}
    journal.write_text(lines[0] + "\n")  # e.g. killed between commit and delete
    store.recover()
    assert store.con.execute("SELECT count(*) FROM run_results").fetchone() == (3,)


def test_live_writer_journal_is_not_replayed_and_close_commits(tmp_path):
    store = RunStore(duckdb.connect(str(tmp_path / "s.duckdb")))
    run_id = new_run(store)
    writer = store.writer(run_id, flush_every=10_000, flush_ms=60_000)
    writer.add(
        result(run_id, "a"),
        {
            "key": "k1",
            "model": "m",
            "api_base": None,
            "response_text": "A",
            "prompt_tokens": 3,
            "completion_tokens": 1,
            "cost_usd": 0.0,
            "created_at": now_iso(),
        },
    )
    assert replay_journals(store.con, store.journal_dir) == 0, "the writer holds the journal's lock"
    assert store.finished_ids(run_id) == set()
    writer.close()
    assert store.finished_ids(run_id) == {"a"} and set(store.cache_lookup(["k1", "k2"])) == {"k1"}
    assert not list(store.journal_dir.glob("*.jsonl"))


def test_errored_results_are_not_finished_and_get_replaced(tmp_path):
    store = RunStore(duckdb.connect())
    run_id = new_run(store)
    w = ResultWriter(store.con, None, flush_ms=10)
    w.add(result(run_id, "x", error="rate_limit 429: slow down"))
    w.close()
    assert store.finished_ids(run_id) == set()
    w = ResultWriter(store.con, None)
    w.add(result(run_id, "x"))
    w.close()
    assert store.finished_ids(run_id) == {"x"} and len(store.results(run_id)) == 1


def test_resumable_lookup_and_cache_key_stability():
    store = RunStore(duckdb.connect())
    run_id = new_run(store)
    assert store.find_resumable("k") == run_id
    store.set_status(run_id, "completed", {"n": 3})
    assert store.find_resumable("k") is None and store.get_run(run_id)["finished_at"] is not None
    a = cache_key({"model": "m"}, {"t": 0, "max": 5}, [{"role": "user", "content": "é"}])
    b = cache_key({"model": "m"}, {"max": 5, "t": 0}, [{"content": "é", "role": "user"}])
    assert a == b and a != cache_key({"model": "m2"}, {"t": 0, "max": 5}, [{"role": "user", "content": "é"}])
