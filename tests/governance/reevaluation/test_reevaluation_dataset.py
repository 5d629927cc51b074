"""A benchmark that reads a dataset file: the plan finds the upload by its hash, or says it is gone."""

from __future__ import annotations

import json

import pytest

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs.runner import run_benchmark
from governance.decision.operations import decide as actions_decision
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.reevaluation.operations.addendum import ReevaluationError, reevaluate
from governance.reevaluation.records import PlanChange
from governance.runs.operations.jobs import save_upload
from governance.runs.operations.view import attach_run

PRICES = {"input_price_per_mtok": 0.5, "output_price_per_mtok": 1.5}
ROWS = [{"id": f"q{i}", "question": f"Is {i} even? Reply yes or no.",
         "reference": "yes" if i % 2 == 0 else "no", "answer_type": "exact"} for i in range(6)]


@pytest.fixture
def decided_on_a_file(store, home, llm_server):
    llm_server.configure(answer=lambda r: "yes" if any(f"Is {i} even" in str(r) for i in (0, 2, 4)) else "no")
    data = "\n".join(json.dumps(r) for r in ROWS).encode()
    save_upload("other.jsonl", b'{"id": "x", "question": "unrelated", "reference": "a"}\n', home)
    path = save_upload("cases.jsonl", data, home)
    spec = get_benchmark("generic")
    endpoint = ModelEndpoint(name="A", model="openai/a", api_base=llm_server.url, transport="openai",
                             **PRICES)
    # run directly (not through the app's job registry), so the plan cannot know the file's path
    summary = run_benchmark(store, spec, load_instances(spec, path), endpoint)
    d = Dossier(id="D-file", title="Own cases", owner="c", intended_use=example_intended_use())
    store.save(d, author="a")
    attach_run(store, "D-file", summary.run_id, actor=Actor.named("a"))
    d = actions_decision.decide(store.load("D-file").dossier, "approve", "Works on our own cases.", [],
                                by="chair",
                         store=store, override_gaps="No cost or oversight plan in this fixture.")
    store.save(d, author="chair", note="decision")
    return store, llm_server, path


def test_dataset_found_in_uploads_by_hash_then_missing(decided_on_a_file):
    store, server, path = decided_on_a_file
    (item,) = store.load("D-file").dossier.evidence_plan.items
    assert item.dataset_path is None and item.benchmark_id == "generic"
    a = reevaluate(store, "D-file", PlanChange(**PRICES), actor=Actor.named("qa")).addendum
    assert (a.new_requests, a.cache_hits) == (6, 0) and server.hits == 12
    assert a.comparisons[0].n_pairs == 6 and a.comparisons[0].mean_delta == 0
    path.unlink()
    with pytest.raises(ReevaluationError, match="no longer on this machine"):
        reevaluate(store, "D-file", PlanChange(**PRICES), actor=Actor.named("qa"))
