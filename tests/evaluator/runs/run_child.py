"""Child process for the SIGKILL test: runs the built-in calculator benchmark against a URL.

Usage: python -m tests.evaluator.runs.run_child DB_PATH API_BASE N [FLUSH_MS [WORKERS]]
Prints one JSON line with the summary when it finishes.
"""

from __future__ import annotations

import json
import sys

import duckdb

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from evaluator.runs.runner import RunOptions, run_benchmark


def main() -> None:
    db, api_base, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    flush_ms = float(sys.argv[4]) if len(sys.argv) > 4 else 200.0
    workers = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    spec = get_benchmark("calc_builtin")
    # openai transport and a price override: no litellm import (10-25 s on a loaded 2-core box);
    # the litellm path is covered in-process by the other runner tests.
    endpoint = ModelEndpoint(
        name="fake",
        model="openai/fake",
        api_base=api_base,
        timeout_s=5,
        transport="openai",
        input_price_per_mtok=0.0,
        output_price_per_mtok=0.0,
    )
    con = duckdb.connect(db)
    summary = run_benchmark(
        con,
        spec,
        load_instances(spec, limit=n),
        endpoint,
        concurrency=4,
        options=RunOptions(flush_ms=flush_ms, flush_every=10_000, workers=workers),
    )
    con.close()
    print(json.dumps(summary.model_dump(mode="json")), flush=True)


if __name__ == "__main__":
    main()
