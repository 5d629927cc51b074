"""Throughput of the text metrics (ROUGE-1/2/L and BERTScore P/R/F) through evaluator.scoring.metrics.

Prints pairs per second on 1,000 synthetic clinical-style sentence pairs (all unique, seeded), plus
two figures a runner author needs: BERTScore one pair per call (what per-instance scoring costs
when replies are scored as they land) and note-length texts (ACI-Bench-like, ~150 words).
The metric caches are cleared before each cold measurement so repeated pairs cannot flatter it.

Run: ``.venv/bin/python bench/metrics_throughput.py [--pairs 1000] [--seed 0] [--quick]``
(``--quick``, for ``make bench-smoke``: 64 sentence pairs, 8 note pairs, 8 one-pair calls.)
"""

from __future__ import annotations

import argparse
import os
import random
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from evaluator.benchmarks.instance import Instance  # noqa: E402
from evaluator.scoring import metrics  # noqa: E402
from evaluator.scoring.metrics import Sample, compute_metric  # noqa: E402

SUBJECTS = ["The patient", "She", "He", "A 64-year-old man", "The infant", "An elderly woman", "The resident"]
FINDINGS = [
    "reports chest pain radiating to the left arm",
    "denies fever or chills",
    "has a productive cough",
    "presents with worsening dyspnea on exertion",
    "complains of intermittent abdominal pain",
    "has bilateral lower extremity edema",
    "reports three days of watery diarrhea",
    "describes a throbbing frontal headache",
    "has a new rash on the trunk",
    "notes blurred vision",
]
DETAILS = [
    "for {n} days",
    "since {n} weeks",
    "after starting {drug}",
    "with a heart rate of {n} bpm",
    "and a temperature of 38.{d} C",
    "despite taking {drug} {n} mg",
    "with oxygen saturation of 9{d}%",
    "while on {drug}",
    "and creatinine of 1.{d} mg/dL",
    "after a fall {n} days ago",
]
DRUGS = [
    "lisinopril",
    "metformin",
    "warfarin",
    "amoxicillin",
    "ibuprofen",
    "atorvastatin",
    "prednisone",
    "insulin",
]
PLANS = [
    "Start {drug} and recheck in {n} days.",
    "Order a chest radiograph.",
    "Admit for observation.",
    "Refer to cardiology.",
    "Obtain a basic metabolic panel.",
    "Continue {drug} at {n} mg daily.",
]


def sentence(rng: random.Random) -> str:
    """One clinical-style sentence, about 12-20 words."""
    detail = rng.choice(DETAILS).format(n=rng.randint(2, 120), d=rng.randint(0, 9), drug=rng.choice(DRUGS))
    plan = rng.choice(PLANS).format(n=rng.randint(2, 40), drug=rng.choice(DRUGS))
    return f"{rng.choice(SUBJECTS)} {rng.choice(FINDINGS)} {detail}. {plan}"


def unique_pairs(rng: random.Random, n: int, sentences_each: int = 1) -> list[tuple[str, str]]:
    """``n`` (candidate, reference) pairs with no repeated text on either side."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []
    while len(out) < n:
        cand = " ".join(sentence(rng) for _ in range(sentences_each))
        ref = " ".join(sentence(rng) for _ in range(sentences_each))
        if cand not in seen and ref not in seen:
            seen.update((cand, ref))
            out.append((cand, ref))
    return out


def samples(pairs: list[tuple[str, str]]) -> list[Sample]:
    return [
        Sample(Instance(id=str(i), reference=ref, answer_type="free_text"), cand, cand)
        for i, (cand, ref) in enumerate(pairs)
    ]


def timed(fn) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def cold_rouge(batch: list[Sample]) -> None:
    metrics._rouge_scores.cache_clear()
    for name in ("rouge1", "rouge2", "rougeL"):
        compute_metric(name, batch)


def cold_bertscore(batch: list[Sample]) -> None:
    metrics._BERT_CACHE.clear()
    for name in ("bertscore_f", "bertscore_p", "bertscore_r"):
        compute_metric(name, batch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, help="sentence pairs (default 1000; --quick 64)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    args = parser.parse_args()
    n_pairs = args.pairs or (64 if args.quick else 1000)
    n_notes, n_single = (8, 8) if args.quick else (200, 100)
    rng = random.Random(args.seed)
    short = samples(unique_pairs(rng, n_pairs))
    long = samples(unique_pairs(rng, n_notes, sentences_each=8))
    words = sum(len(s.response.split()) for s in short) / len(short)
    long_words = sum(len(s.response.split()) for s in long) / len(long)

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    load_avg = os.getloadavg()[0]
    threads = torch.get_num_threads()
    print(f"metrics throughput, {os.cpu_count()} CPUs, torch threads {threads}, 1-min load {load_avg:.1f}")
    print(f"{len(short)} sentence pairs ({words:.1f} words); {len(long)} note pairs ({long_words:.0f} words)")
    rows = []
    first = min(50, len(short))
    rows.append(
        (f"ROUGE-1/2/L (stemmer), first {first} pairs incl. import", first,
         timed(lambda: cold_rouge(short[:first])))
    )
    rows.append(("ROUGE-1/2/L (stemmer), sentence pairs", len(short), timed(lambda: cold_rouge(short))))
    rows.append(("ROUGE-1/2/L (stemmer), note pairs", len(long), timed(lambda: cold_rouge(long))))
    load, _ = timed(metrics.bert_scorer)
    rows.append(
        ("BERTScore P/R/F, sentence pairs, one batch", len(short), timed(lambda: cold_bertscore(short)))
    )
    rows.append(
        (
            "BERTScore P/R/F, same pairs again (cache)",
            len(short),
            timed(lambda: [compute_metric(n, short) for n in ("bertscore_f", "bertscore_p", "bertscore_r")]),
        )
    )

    def one_by_one() -> None:
        metrics._BERT_CACHE.clear()
        for s in short[:n_single]:
            compute_metric("bertscore_f", [s])

    rows.append(("BERTScore P/R/F, one pair per call", min(n_single, len(short)), timed(one_by_one)))
    rows.append(("BERTScore P/R/F, note pairs, one batch", len(long), timed(lambda: cold_bertscore(long))))
    print(f"BERTScorer build (MiniLM-L6, offline, first use): {load:.2f} s")
    print(f"{'measurement':52} {'pairs':>6} {'wall s':>7} {'pairs/s':>8} {'CPU s':>7} {'pairs/CPU-s':>11}")
    for label, n, (wall, cpu) in rows:
        print(f"{label:52} {n:6d} {wall:7.2f} {n / wall:8.0f} {cpu:7.2f} {n / max(cpu, 1e-9):11.0f}")


if __name__ == "__main__":
    main()
