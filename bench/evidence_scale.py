"""How fast are the evidence page's aggregate queries over 1,000,000 instance-level rows?

Prints figures; it is not a timed test (the machine is shared). Loads synthetic per-instance
results for 9 models × 37 MedHELM benchmarks (≈3,000 instances per cell, jury benchmarks scored
1-5, the others 0/1) into a DuckDB file, then times the queries the evidence page runs:

1. per model × benchmark mean and n (the heatmap and win rates),
2. per model × category and × subcategory means of normalized benchmark means (MedHELM's rule),
3. a bootstrap-ready pull: every score of the dossier's mapped cells as one array per cell,
   plus the bootstrap itself (2,000 resamples per cell) for scale.

Usage: .venv/bin/python bench/evidence_scale.py [--rows 1000000] [--repeat 7] [--quick]
(``--quick``, for ``make bench-smoke``: 100,000 rows, 2 repeats.)
Target from issue 3: each aggregate query < 300 ms (median).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from evaluator.evidence.medhelm import benchmark_facts
from evaluator.statistics.estimates import bootstrap_mean

MODELS = [f"model-{i}" for i in range(9)]
MAPPED = ["MedicationQA", "MedQA", "MedCalc-Bench", "ACI-Bench", "PubMedQA"]  # a dossier's benchmarks

QUERIES = {
    "model x benchmark mean, n": """
        SELECT model, benchmark, metric, avg(score) AS mean, count(*) AS n
        FROM instance_results GROUP BY model, benchmark, metric""",
    "model x category normalized mean": """
        WITH cell AS (
            SELECT r.model, b.category, b.scale, avg(r.score) AS mean
            FROM instance_results r JOIN benchmarks b USING (benchmark)
            GROUP BY r.model, r.benchmark, b.category, b.scale)
        SELECT model, category,
               avg(CASE WHEN scale = '1-5' THEN (mean - 1) / 4 ELSE mean END) AS mean_normalized,
               count(*) AS n_benchmarks
        FROM cell GROUP BY model, category""",
    "model x subcategory normalized mean": """
        WITH cell AS (
            SELECT r.model, b.subcategory, b.scale, avg(r.score) AS mean
            FROM instance_results r JOIN benchmarks b USING (benchmark)
            GROUP BY r.model, r.benchmark, b.subcategory, b.scale)
        SELECT model, subcategory,
               avg(CASE WHEN scale = '1-5' THEN (mean - 1) / 4 ELSE mean END) AS mean_normalized
        FROM cell GROUP BY model, subcategory""",
    "bootstrap-ready pull (mapped cells)": """
        SELECT model, benchmark, list(score ORDER BY instance_id) AS scores
        FROM instance_results WHERE benchmark IN ({mapped}) GROUP BY model, benchmark""",
}


def synthetic_rows(n_rows: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-instance results spread evenly over 9 models × 37 benchmarks, plus the benchmark table."""
    facts = list(benchmark_facts().values())
    bench = pd.DataFrame([{"benchmark": f.benchmark, "category": f.category, "subcategory": f.subcategory,
                           "scale": f.scale, "main_metric": f.main_metric} for f in facts])
    rng = np.random.default_rng(seed)
    cells = len(MODELS) * len(facts)
    per_cell = -(-n_rows // cells)
    cell = np.repeat(np.arange(cells), per_cell)[:n_rows]
    model_idx, bench_idx = cell // len(facts), cell % len(facts)
    jury = (bench["scale"] == "1-5").to_numpy()[bench_idx]
    skill = rng.uniform(0.4, 0.9, cells)[cell]
    correct = (rng.random(n_rows) < skill).astype(float)
    jury_score = np.clip(np.round(1 + 4 * skill + rng.normal(0, 0.7, n_rows), 2), 1, 5)
    rows = pd.DataFrame({
        "run_id": "run-" + pd.Series(cell).astype(str),
        "model": np.array(MODELS)[model_idx],
        "benchmark": bench["benchmark"].to_numpy()[bench_idx],
        "instance_id": "i" + pd.Series(np.arange(n_rows) % per_cell).astype(str).str.zfill(5),
        "metric": bench["main_metric"].to_numpy()[bench_idx],
        "score": np.where(jury, jury_score, correct),
    })
    return rows, bench.drop(columns="main_metric")


def timed(fn, repeat: int) -> tuple[float, object]:
    """Median wall time in ms over ``repeat`` runs (after one warm-up) and the last result."""
    result = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, help="instance rows (default 1,000,000; --quick 100,000)")
    parser.add_argument("--repeat", type=int, help="timed runs per query (default 7; --quick 2)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    args = parser.parse_args()
    args.rows = args.rows or (100_000 if args.quick else 1_000_000)
    args.repeat = args.repeat or (2 if args.quick else 7)

    t0 = time.perf_counter()
    rows, bench = synthetic_rows(args.rows)
    gen_s = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        con = duckdb.connect(str(db))
        t0 = time.perf_counter()
        con.execute("CREATE TABLE instance_results AS SELECT * FROM rows")
        con.execute("CREATE TABLE benchmarks AS SELECT * FROM bench")
        con.execute("CHECKPOINT")
        load_s = time.perf_counter() - t0
        size_mb = db.stat().st_size / 1e6
        del rows
        n = con.execute("SELECT count(*) FROM instance_results").fetchone()[0]
        print(f"rows: {n:,} (9 models x 37 benchmarks); generate {gen_s:.2f} s; "
              f"load into DuckDB file {load_s:.2f} s; file {size_mb:.1f} MB")
        mapped = ", ".join(f"'{b}'" for b in MAPPED)
        print(f"median of {args.repeat} runs (after a warm-up):")
        pulled = None
        for label, sql in QUERIES.items():
            sql = sql.format(mapped=mapped)
            ms, result = timed(lambda sql=sql: con.execute(sql).df(), args.repeat)
            pulled = result
            print(f"  {label:<38} {ms:8.1f} ms  ({len(result)} rows)")
        ms, _ = timed(lambda: con.execute(
            "SELECT score FROM instance_results WHERE model = 'model-0' AND benchmark = 'MedQA'"
        ).fetchnumpy()["score"], args.repeat)
        print(f"  {'one cell as numpy (fetchnumpy)':<38} {ms:8.1f} ms")
        t0 = time.perf_counter()
        for scores in pulled["scores"]:
            bootstrap_mean(np.asarray(scores), n_resamples=2000, seed=0)
        boot_s = time.perf_counter() - t0
        print(f"  bootstrap, 2,000 resamples x {len(pulled)} mapped cells "
              f"(~{len(pulled['scores'].iloc[0]):,} instances each): {boot_s * 1000:.0f} ms total")
        con.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (ru_maxrss): {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
