"""A decided dossier re-evaluated by a fresh process: the same plan, read from the store, and the model asked.

Before the one job manager, the dataset file, the key variable's name and the transport of a run
were known only to the process that started it, so a plan frozen after an app restart lost them.
Here the decision is made in this process and the re-evaluation runs in a new Python process
(``tests.governance.reevaluation.reevaluate_child``) that has never run anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from evaluator.gateway.llm import ModelEndpoint
from evaluator.runs.request import RunRequest, request_record
from governance.decision.operations import decide as actions_decision
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.runs.operations.jobs import save_upload, start_run
from governance.runs.operations.view import attach_run
from tests.governance.reevaluation_fixtures import (
    KEY_ENV,
    MODEL_A,
    PRICES,
    N,
    scripted_models,
    seed_decided_dossier,
)

ROOT = Path(__file__).resolve().parents[3]
SECRET = "sk-live-restart-test-5f1c9e"
ROWS = [{"id": f"q{i}", "question": f"Is {i} even? Reply yes or no.",
         "reference": "yes" if i % 2 == 0 else "no", "answer_type": "exact"} for i in range(6)]


def reevaluate_in_a_fresh_process(db: Path, dossier_id: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tests.governance.reevaluation.reevaluate_child",
                           str(db), dossier_id],
                          cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_fresh_process_freezes_the_same_plan_and_asks_the_model(store, home, llm_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    llm_server.configure(answer=scripted_models())
    dossier_id = seed_decided_dossier(store, llm_server.url)
    assert llm_server.hits == N
    store.close()  # one writer per DuckDB file: the child opens it

    out = reevaluate_in_a_fresh_process(home / "medassure.duckdb", dossier_id)
    assert out["fresh"] == out["frozen"], "the plan frozen after a restart is the plan frozen at the decision"
    (item,) = out["fresh"]
    endpoint = item["endpoint"]
    assert (endpoint["model"], endpoint["api_base"]) == (MODEL_A, llm_server.url)
    assert endpoint["api_key_env"] == KEY_ENV and endpoint["transport"] == "openai"
    assert endpoint["known_from"] == "run record + stored request"
    assert endpoint["input_price_per_mtok"] == PRICES["input_price_per_mtok"]
    assert item["dataset_path"] is None and len(item["dataset_hash"]) == 64
    stored = out["stored_request"]
    assert stored["kind"] == "benchmark" and stored["benchmark_id"] == "calc_builtin"
    assert stored["api_key_env"] == KEY_ENV and stored["transport"] == "openai"
    assert stored["options"]["limit"] == N and len(stored["prompt_hash"]) == 64
    assert (out["new_requests"], out["cache_hits"]) == (N, 0) and not out["would_change"]
    assert llm_server.hits == 2 * N, "the re-evaluation in the fresh process asked the model again"


def test_a_dataset_file_and_its_hash_survive_the_restart(store, home, llm_server):
    llm_server.configure(answer=lambda r: "yes" if any(f"Is {i} even" in str(r) for i in (0, 2, 4)) else "no")
    data = "\n".join(json.dumps(r) for r in ROWS).encode()
    path = save_upload("cases.jsonl", data, home)
    endpoint = ModelEndpoint(name="A", model="openai/a", api_base=llm_server.url, transport="openai",
                             **PRICES)
    request = RunRequest(benchmark_id="generic", dataset_path=str(path), endpoint=endpoint)
    done = start_run(store, request).join(60)
    assert done.state == "completed" and llm_server.hits == 6
    store.save(Dossier(id="D-file", title="Own cases", owner="c", intended_use=example_intended_use()),
               author="a")
    attach_run(store, "D-file", done.run_id, actor=Actor.named("a"))
    d = actions_decision.decide(store.load("D-file").dossier, "approve", "Works on our own cases.", [],
                                by="chair",
                         store=store, override_gaps="No cost or oversight plan in this fixture.")
    store.save(d, author="chair", note="decision")
    store.close()

    out = reevaluate_in_a_fresh_process(home / "medassure.duckdb", "D-file")
    assert out["fresh"] == out["frozen"]
    assert out["fresh"][0]["dataset_path"] == str(path)
    assert out["stored_request"]["dataset_sha256"] == hashlib.sha256(data).hexdigest()
    assert (out["new_requests"], out["cache_hits"]) == (6, 0) and llm_server.hits == 12


def test_the_stored_request_never_holds_the_key(store, home, llm_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, SECRET)
    llm_server.configure(answer=scripted_models())
    endpoint = ModelEndpoint(name="A", model=MODEL_A, api_base=llm_server.url, api_key_env=KEY_ENV,
                             transport="openai", **PRICES)
    done = start_run(store, RunRequest(benchmark_id="calc_builtin", endpoint=endpoint, limit=3)).join(60)
    assert done.state == "completed"
    cur = store.cursor()
    try:
        rows = {t: cur.execute(f"SELECT * FROM {t}").fetchall() for t in ("run_requests", "run_jobs", "runs")}
        cur.execute("CHECKPOINT")
    finally:
        cur.close()
    text = repr(rows)
    assert KEY_ENV in text and SECRET not in text
    assert len(rows["run_requests"]) == 1 and len(rows["run_jobs"]) == 1
    assert SECRET.encode() not in (home / "medassure.duckdb").read_bytes()


def test_an_option_named_like_a_secret_is_never_recorded():
    # ModelEndpoint already refuses such options; the record drops them again should one slip through
    endpoint = ModelEndpoint.model_construct(**{**ModelEndpoint(name="A", model="openai/a").model_dump(),
                                                "extra_params": {"x-api-key": SECRET, "Auth_Token": SECRET,
                                                                 "seed": 7}})
    record = request_record("benchmark", benchmark_id="calc_builtin", endpoint=endpoint)
    assert record["endpoint"]["extra_params"] == {"seed": 7} and SECRET not in json.dumps(record)
