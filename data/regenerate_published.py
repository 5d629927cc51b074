"""Rebuild the shipped MedHELM evidence files from the reference CSVs.

Usage: python data/regenerate_published.py [REFERENCE_DIR] [--out DIR]
(REFERENCE_DIR defaults to ../shared/reference beside the repo; DIR to this folder.)

Writes, all deterministic (no timestamps, so a rerun on the same inputs is byte-identical):

- ``medhelm_benchmarks.csv``: one row per benchmark: HELM run group, taxonomy place, main metric
  and split, scale, direction, kind of metric, access tier. The HELM importer reads it.
- ``medhelm_published.csv``: the 9 × 37 published per-benchmark scores (row_type
  ``benchmark_score``, final 37-benchmark version) joined with the benchmark facts.
- ``medhelm_costs.csv``: the published cost estimates, labelled as budget-based upper bounds.
- ``medhelm_benchmark_tokens.csv``: per model and benchmark, mean prompt tokens per instance and the
  completion budget, derived from the per-benchmark dollar estimates (see ``benchmark_token_rows``),
  so a dossier's token profile can average over the benchmarks it maps to, not all 37.
- ``MEDHELM_PUBLISHED.md``: where every file came from (input paths and their sha256).

Scores are copied as published; nothing is recomputed here. Benchmark names that differ between
the two reference files are reconciled by ``ALIASES`` and any other mismatch stops the script.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_REFERENCE = HERE.parent / ".." / "shared" / "reference"
FINAL_VERSION_PREFIX = "final_37_benchmarks"
ALIASES = {"MIMIC-BHC": "MIMIC-IV-BHC", "N2C2-CT": "N2C2-CT Matching", "N2C2": "N2C2-CT Matching",
           "MedBullets": "Medbullets"}
# Commit dates of the cited source files (MEDHELM_FACTS.md §1: commit 94167c5 of 2025-07-31 added
# MedQA/MedMCQA and is the final 37-benchmark leaderboard and cost table).
SOURCE_DATES = {"94167c5c0298f83639ff7949ee9656062df359f1": "2025-07-31"}
COST_BASIS = ("budget-based upper bound at 2025 list prices: output tokens counted at the max_tokens "
              "budget (4,000 for reasoning models), jury priced as the sum of three judges; not an invoice")
# Caveats a committee must see beside the score (MEDHELM_FACTS.md §11).
CAVEATS = {
    "EHRSHOT": "exact match is distorted by class imbalance (GPT-4o mini: EM 0.907 but F1 0.014); "
               "prefer the supplementary precision/recall/F1 (MEDHELM_FACTS.md §11)",
    "MedAlign": "instance counts differ across models: 172 (Claude 3.5 Sonnet) vs 149 "
                "(MEDHELM_FACTS.md §11)",
    "MTSamples": "instance counts differ across models: 78 vs 427 (DeepSeek R1, o3-mini) "
                 "(MEDHELM_FACTS.md §11)",
}
DIRECTION_SOURCE = ("all 37 main metrics are accuracy, exact match, F1 or jury score; higher is better "
                    "(MEDHELM_FACTS.md §3, §11)")

BENCHMARK_COLUMNS = ["benchmark", "helm_run_group", "category", "subcategory", "main_metric", "main_split",
                     "scale", "lower_is_better", "metric_kind", "access", "access_detail", "typical_n",
                     "question_type", "caveat", "source"]
PUBLISHED_COLUMNS = ["model", "benchmark", "helm_run_group", "category", "subcategory", "metric",
                     "helm_metric", "score", "scale", "lower_is_better", "metric_kind", "n", "n_source",
                     "typical_n", "access", "caveat", "version", "source_date", "source"]
TOKEN_COLUMNS = ["model", "benchmark", "instances", "mean_prompt_tokens", "mean_completion_budget",
                 "question_type", "basis", "source"]
# MedHELM's unit prices, USD per 1M tokens (input, output), implied by its costs.csv (MEDHELM_FACTS.md §5:
# cost ÷ tokens; the repo has no explicit price table). The jury applies the sum of its three judges'
# prices (GPT-4o 2.50/10 + Claude 3.7 Sonnet 3/15 + Llama 3.3 0.71/0.71) to judge tokens.
IMPLIED_PRICES = {
    "Claude 3.5 Sonnet (20241022)": (3.00, 15.00), "Claude 3.7 Sonnet (20250219)": (3.00, 15.00),
    "GPT-4o (2024-05-13)": (2.50, 10.00), "GPT-4o mini (2024-07-18)": (0.15, 0.60),
    "Gemini 1.5 Pro (001)": (1.25, 5.00), "Gemini 2.0 Flash": (0.15, 0.60), "DeepSeek R1": (1.35, 5.40),
    "o3-mini (2025-01-31)": (1.20, 4.84), "Llama 3.3 Instruct (70B)": (0.71, 0.71),
}
JURY_PRICES, JUDGE_OUTPUT_PER_INSTANCE, REASONING_BUDGET = (6.21, 25.71), 4096, 4000
# HELM's multiple-choice adapter asks for 1 token and its short-generation adapter for 5; with these
# the budgets sum exactly to MedHELM's published output-token totals (12,910 tokens not given in the
# reference's model_max_tokens column for GPT-4o: 7,910 MCQ instances × 1 + 1,000 MedHallu × 5).
DEFAULT_MAX_TOKENS = {"(default MCQ)": 1, "(generation, short)": 5}
TOKEN_BASIS = ("MedHELM average per instance, derived: prompt tokens = (published dollar estimate "
               "− completion budget × output price − jury cost for open questions) ÷ input price, at "
               "MedHELM's implied prices; completion tokens are the max-tokens budget (an upper bound); "
               "checked against the published token totals")
COST_COLUMNS = ["model", "benchmark", "item", "value", "unit", "test_instances", "question_type", "basis",
                "version", "source"]


def read_csv(path: Path) -> list[dict[str, str]]:
    """All rows of a CSV file as dicts."""
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def canonical(name: str, known: set[str]) -> str:
    """Our benchmark name for a name used in a reference file; stops on an unknown one."""
    name = ALIASES.get(name, name)
    if name not in known:
        raise SystemExit(f"unknown benchmark name {name!r}: add it to ALIASES after checking the sources")
    return name


def access_tier(text: str) -> str:
    """``public`` / ``gated`` / ``private`` from the reference's free-text access column."""
    for tier in ("public", "gated", "private"):
        if text.startswith(tier):
            return tier
    raise SystemExit(f"unrecognised access text {text!r}")


def metric_kind(row: dict[str, str]) -> str:
    """What kind of number the main metric is; decides which interval can be computed."""
    if row["score_scale"] == "1-5":
        return "jury_mean"
    if row["main_metric"].endswith("_f1"):
        return "f1_mean"
    return "proportion"


def benchmark_rows(benchmarks: list[dict[str, str]], source: str) -> list[dict[str, object]]:
    """One row per benchmark with everything the importer and evidence code need."""
    rows = []
    for b in benchmarks:
        rows.append({
            "benchmark": b["name"], "helm_run_group": b["helm_run_group"], "category": b["category"],
            "subcategory": b["subcategory"], "main_metric": b["main_metric"],
            "main_split": "valid" if "valid split" in b["metric_type"] else "test",
            "scale": b["score_scale"], "lower_is_better": "false", "metric_kind": metric_kind(b),
            "access": access_tier(b["access"]), "access_detail": b["access"],
            "typical_n": b["typical_instance_count"], "question_type": b["question_type"],
            "caveat": CAVEATS.get(b["name"], ""), "source": f"{source}; direction: {DIRECTION_SOURCE}",
        })
    return rows


def instance_counts(leaderboard: list[dict[str, str]], known: set[str]) -> dict[tuple[str, str], int]:
    """Per (model, benchmark) instance counts from the per-benchmark cost rows (costs.csv)."""
    counts = {}
    for r in leaderboard:
        if r["row_type"] == "estimated_cost_per_benchmark":
            m = re.search(r"test_instances=(\d+)", r["notes"])
            if m:
                counts[(r["model"], canonical(r["benchmark"], known))] = int(m.group(1))
    return counts


def published_rows(leaderboard, bench: dict[str, dict], counts) -> list[dict[str, object]]:
    """The final 9 × 37 published scores joined with the benchmark facts."""
    rows = []
    for r in leaderboard:
        if r["row_type"] != "benchmark_score" or not r["version"].startswith(FINAL_VERSION_PREFIX):
            continue
        b = bench[canonical(r["benchmark"], set(bench))]
        n = counts.get((r["model"], b["benchmark"]))
        commit = r["source"].rsplit("@", 1)[-1]
        rows.append({
            "model": r["model"], "benchmark": b["benchmark"], "helm_run_group": b["helm_run_group"],
            "category": b["category"], "subcategory": b["subcategory"], "metric": r["metric"],
            "helm_metric": b["main_metric"], "score": r["score"], "scale": b["scale"],
            "lower_is_better": b["lower_is_better"], "metric_kind": b["metric_kind"],
            "n": n if n is not None else b["typical_n"],
            "n_source": "costs.csv test_instances for this model" if n is not None
            else "typical_instance_count",
            "typical_n": b["typical_n"], "access": b["access"], "caveat": b["caveat"],
            "version": r["version"],
            "source_date": SOURCE_DATES.get(commit, ""), "source": r["source"],
        })
    return sorted(rows, key=lambda x: (x["benchmark"], x["model"]))


def cost_rows(leaderboard, known: set[str]) -> list[dict[str, object]]:
    """Per-model totals and per-benchmark totals, each labelled with its basis."""
    rows = []
    for r in leaderboard:
        if r["row_type"] not in ("estimated_cost", "estimated_cost_per_benchmark"):
            continue
        per_bench = r["row_type"] == "estimated_cost_per_benchmark"
        notes = dict(kv.split("=", 1) for kv in r["notes"].split("; ") if "=" in kv) if per_bench else {}
        rows.append({
            "model": r["model"], "benchmark": canonical(r["benchmark"], known) if per_bench else "ALL",
            "item": r["metric"], "value": r["score"], "unit": "USD" if "(USD)" in r["metric"] else "tokens",
            "test_instances": notes.get("test_instances", ""),
            "question_type": notes.get("question_type", ""),
            "basis": COST_BASIS, "version": r["version"], "source": r["source"],
        })
    return sorted(rows, key=lambda x: (x["benchmark"] != "ALL", x["model"], x["benchmark"], x["item"]))


def benchmark_token_rows(leaderboard, reference_benchmarks: list[dict[str, str]],
                         known: set[str]) -> list[dict[str, object]]:
    """Mean prompt tokens and completion budget per instance, per model and benchmark.

    MedHELM publishes per-benchmark dollars but token counts only as totals over 37 benchmarks. Per
    benchmark, dollars = prompt × input price + budget × output price, plus for open questions the
    jury: (prompt + budget) × jury input price + 4,096 × instances × jury output price
    (MEDHELM_FACTS.md §5). Solving for prompt tokens recovers each benchmark's share; the sum over
    benchmarks must match the published total within 0.1% or the script stops.
    """
    max_tokens = {canonical(b["name"], known): b["model_max_tokens"] for b in reference_benchmarks}
    totals, per_model = {}, {}
    for r in leaderboard:
        if r["row_type"] == "estimated_cost" and "Tokens" in r["metric"]:
            totals[(r["model"], r["metric"])] = float(r["score"])
        elif r["row_type"] == "estimated_cost_per_benchmark":
            per_model.setdefault(r["model"], []).append(r)
    rows = []
    for model, bench_rows in sorted(per_model.items()):
        p_in, p_out = IMPLIED_PRICES[model]
        j_in, j_out = JURY_PRICES
        parsed = []
        for r in bench_rows:
            notes = dict(kv.split("=", 1) for kv in r["notes"].split("; ") if "=" in kv)
            name = canonical(r["benchmark"], known)
            parsed.append((name, int(notes["test_instances"]), notes["question_type"], float(r["score"]), r))
        n_all = sum(n for _, n, _, _, _ in parsed)
        reasoning = totals[(model, "Total Output Tokens (tokens)")] == REASONING_BUDGET * n_all
        derived = []
        for name, n, kind, usd, r in parsed:
            raw = max_tokens[name]
            budget = REASONING_BUDGET if reasoning else int(DEFAULT_MAX_TOKENS.get(raw, raw))
            out = budget * n
            dollars = usd * 1e6 - out * p_out
            if kind == "Open":
                dollars -= out * j_in + JUDGE_OUTPUT_PER_INSTANCE * n * j_out
            prompt = max(0.0, dollars / (p_in + (j_in if kind == "Open" else 0.0)))
            derived.append((name, n, kind, prompt, budget, r))
        total_in = totals[(model, "Total Input Tokens (tokens)")]
        if abs(sum(d[3] for d in derived) / total_in - 1) > 0.001:
            raise SystemExit(f"{model}: derived prompt tokens do not add up to the published {total_in}")
        rows += [{"model": model, "benchmark": name, "instances": n,
                  "mean_prompt_tokens": f"{prompt / n:.1f}",
                  "mean_completion_budget": budget, "question_type": kind, "basis": TOKEN_BASIS,
                  "source": r["source"]} for name, n, kind, prompt, budget, r in derived]
    return sorted(rows, key=lambda x: (x["model"], x["benchmark"]))


def to_csv(rows: list[dict[str, object]], columns: list[str]) -> str:
    """CSV text with a fixed column order and Unix line ends."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def sha256(path: Path) -> str:
    """Hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def provenance_note(ref: Path, counts: dict[str, int]) -> str:
    """The README that says where each generated file came from."""
    lines = ["# MedHELM published evidence: provenance", "",
             "Generated by `data/regenerate_published.py`; do not edit the CSVs by hand.", "",
             "| input | sha256 |", "|---|---|"]
    for name in ("medhelm_leaderboard.csv", "medhelm_benchmarks.csv"):
        lines.append(f"| `shared/reference/{name}` | `{sha256(ref / name)}` |")
    lines += ["", "| output | rows | built from |", "|---|---|---|",
              f"| `medhelm_benchmarks.csv` | {counts['benchmarks']} | medhelm_benchmarks.csv (its `sources` "
              "column cites HELM@63754d0 schema/run specs and SHAH@51a9bec constants/costs) |",
              f"| `medhelm_published.csv` | {counts['published']} | leaderboard rows `benchmark_score`, "
              "version `final_37_benchmarks`; per-row `source` = som-shahlab/medhelm:data/leaderboard.csv"
              "@94167c5 |",
              f"| `medhelm_costs.csv` | {counts['costs']} | leaderboard rows `estimated_cost` "
              "(token_utilization.csv@94167c5) and `estimated_cost_per_benchmark` (costs.csv@94167c5) |",
              f"| `medhelm_benchmark_tokens.csv` | {counts['tokens']} | derived from the rows of "
              "`medhelm_costs.csv` and the reference's `model_max_tokens` (see `benchmark_token_rows`) |",
              "", "Notes:", "",
              "- `n` is the model's own instance count from costs.csv where given, else the benchmark's "
              "typical count (`n_source` says which).",
              f"- Benchmark names reconciled between the files: {ALIASES}.",
              "- `main_split` is `valid` only for MedMCQA (MEDHELM_FACTS.md §7), else `test`.",
              f"- Costs: {COST_BASIS}.", ""]
    return "\n".join(lines)


def regenerate(ref: Path, out: Path) -> dict[str, int]:
    """Write the four files into ``out``; returns row counts per output."""
    leaderboard = read_csv(ref / "medhelm_leaderboard.csv")
    source = "shared/reference/medhelm_benchmarks.csv"
    bench_rows = benchmark_rows(read_csv(ref / "medhelm_benchmarks.csv"), source)
    bench = {b["benchmark"]: b for b in bench_rows}
    published = published_rows(leaderboard, bench, instance_counts(leaderboard, set(bench)))
    costs = cost_rows(leaderboard, set(bench))
    if len(published) != 9 * 37:
        raise SystemExit(f"expected 333 published scores (9 models x 37 benchmarks), got {len(published)}")
    tokens = benchmark_token_rows(leaderboard, read_csv(ref / "medhelm_benchmarks.csv"), set(bench))
    counts = {"benchmarks": len(bench_rows), "published": len(published), "costs": len(costs),
              "tokens": len(tokens)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "medhelm_benchmarks.csv").write_text(to_csv(bench_rows, BENCHMARK_COLUMNS), encoding="utf-8")
    (out / "medhelm_published.csv").write_text(to_csv(published, PUBLISHED_COLUMNS), encoding="utf-8")
    (out / "medhelm_costs.csv").write_text(to_csv(costs, COST_COLUMNS), encoding="utf-8")
    (out / "medhelm_benchmark_tokens.csv").write_text(to_csv(tokens, TOKEN_COLUMNS), encoding="utf-8")
    (out / "MEDHELM_PUBLISHED.md").write_text(provenance_note(ref, counts), encoding="utf-8")
    return counts


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", nargs="?", default=str(DEFAULT_REFERENCE))
    parser.add_argument("--out", default=str(HERE))
    args = parser.parse_args(argv)
    ref = Path(args.reference)
    if not (ref / "medhelm_leaderboard.csv").is_file():
        raise SystemExit(f"{ref}: no medhelm_leaderboard.csv here")
    counts = regenerate(ref, Path(args.out))
    print(f"wrote {counts} to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
