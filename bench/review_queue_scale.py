"""Does a review queue stay fast as it grows? Rating, the rater's view and a closed queue's status.

Prints figures; it is not a timed test (the machine is shared). Builds queues of about 4,000 and
16,000 items straight through ``ReviewStore`` (no model calls, no run): two raters, every tenth item
double-rated, every hundredth a sentinel, items split between the raters otherwise. Then times, per
queue size, with the operations the page and the CLI call:

1. ``record_rating`` on the empty queue (the first ratings of rater A);
2. ``record_rating`` on the nearly full queue (every item rated but the last few of each rater);
3. ``rater_view`` (the rating page's read on every rerun);
4. the status of the closed queue (``queue_status``, with its clinician agreement) and the Judge
   validity page's reads of it (``queue_ratings``, ``queue_citation``, ``queue_status``).

Baseline, side by side in the same invocation: the script runs itself a second time in a subprocess on
the code of ``--baseline REF`` (default: the commit before the queue-scaling change), exported with
``git archive`` into a temporary folder (no checkout, no stash), so both columns are measured on the
same machine at the same time.

Usage: .venv/bin/python bench/review_queue_scale.py [--sizes 4000,16000] [--repeat 20] [--quick]
       [--baseline REF | --no-baseline]
(``--quick``, for ``make bench-smoke``: one queue of 400 items, 5 repeats, no baseline.)
Target from issue 34 item 6: rating and the rater's view constant in the queue's size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from datetime import UTC, datetime, timedelta
from io import BytesIO
from pathlib import Path

BASELINE_REF = "5cbda7c"  # queues branch point: the code before issue 34 item 6's scaling work
RATERS = ("dr.a", "dr.b")
GOOD = {"accuracy": 4, "completeness": 4, "clarity": 5}


def _ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def build(store, n: int, qid: str):
    """A queue of ``n`` items and its raters' orders, straight into the store; returns (queue, orders)."""
    from governance.review.records import QueueItem, ReviewQueue
    from governance.review.rubric import jury_rubric

    t0 = datetime(2026, 12, 1, 12, tzinfo=UTC)
    items = [
        QueueItem(item_id=f"it-{k:05d}", instance_id=f"case-{k}", context="Admission note " * 20,
                  question="Summarise the discharge.", output=f"Discharge summary {k}: " + "text " * 60,
                  sentinel="number" if k % 100 == 99 else None, double=k % 10 == 0)
        for k in range(n)
    ]
    orders: dict[str, list[str]] = {r: [] for r in RATERS}
    for k, it in enumerate(items):
        for r in (RATERS if it.double or it.sentinel else (RATERS[k % 2],)):
            orders[r].append(it.item_id)
    queue = ReviewQueue(queue_id=qid, run_id="run-bench", benchmark_id="discharge_bench", model="m",
                        dossier_id=None, rubric=jury_rubric("default"), raters=RATERS, n_items=n,
                        n_double=sum(it.double for it in items),
                        n_sentinels=sum(bool(it.sentinel) for it in items),
                        seed=1, created_by="editor", created_at=t0)
    store.reviews.create(queue, items, orders)
    return queue, orders


def prefill(store, qid: str, orders: dict[str, list[str]], leave: int) -> None:
    """Rate every item of each rater but their last ``leave``, in one write per rater."""
    from governance.review.records import Rating

    t0 = datetime(2026, 12, 1, 13, tzinfo=UTC)
    for r, order in orders.items():
        store.reviews.add_ratings([
            Rating(queue_id=qid, item_id=i, rater=r, scores={"accuracy": 1 + (k + len(r)) % 5,
                                                             "completeness": 1 + k % 5, "clarity": 3},
                   recorded_by=r, rated_at=t0 + timedelta(seconds=k))
            for k, i in enumerate(order[:-leave] if leave else order)
        ])


def measure_size(store, n: int, repeat: int) -> dict[str, float]:
    """The figures for one queue size (three queues: rated from empty, nearly full, closed)."""
    from governance.identity import Actor
    from governance.review.operations.queues import close_queue, rater_view, record_rating
    from governance.review.operations.status import queue_citation, queue_ratings, queue_status

    fig = {}
    a, editor = Actor.named(RATERS[0]), Actor.named("editor")
    empty, orders = build(store, n, f"rq-empty-{n}")
    todo = iter(orders[RATERS[0]])
    fig["record_rating, empty queue"] = _ms(
        lambda: record_rating(store, empty.queue_id, next(todo), GOOD, actor=a), repeat)
    full, orders = build(store, n, f"rq-full-{n}")
    prefill(store, full.queue_id, orders, leave=repeat + 1)
    last = iter(orders[RATERS[0]][-(repeat + 1):])
    fig["record_rating, nearly full"] = _ms(
        lambda: record_rating(store, full.queue_id, next(last), GOOD, actor=a), repeat)
    fig["rater_view"] = _ms(lambda: rater_view(store, full.queue_id, actor=a), max(3, repeat // 4))
    closed, orders = build(store, n, f"rq-closed-{n}")
    prefill(store, closed.queue_id, orders, leave=0)
    t = time.perf_counter()
    close_queue(store, closed.queue_id, actor=editor)
    fig["close_queue"] = (time.perf_counter() - t) * 1000
    qid = closed.queue_id
    fig["queue_status, closed"] = _ms(lambda: queue_status(store, qid), 3)
    fig["Judge validity page reads"] = _ms(
        lambda: (queue_ratings(store, qid), queue_citation(store, qid), queue_status(store, qid)), 3)
    return fig


def measure(sizes: list[int], repeat: int) -> dict:
    from governance.dossier.store import Store

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEDASSURE_HOME"] = tmp
        os.environ.setdefault("MEDASSURE_RECORD_KEY", "bench-only-record-key")
        store = Store.open(Path(tmp) / "bench.duckdb")
        for n in sizes:
            out[str(n)] = measure_size(store, n, repeat)
        store.close()
    return out


def baseline(ref: str, args: argparse.Namespace) -> dict | None:
    """The same measures on the code of ``ref`` (``git archive`` into a temporary folder, run there)."""
    repo = Path(__file__).resolve().parent.parent
    try:
        blob = subprocess.run(["git", "-C", str(repo), "archive", ref, "governance", "evaluator", "data"],
                              check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"(no baseline: git archive {ref} failed: {exc})")
        return None
    with tempfile.TemporaryDirectory() as old:
        with tarfile.open(fileobj=BytesIO(blob)) as tar:
            tar.extractall(old, filter="data")
        cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--no-baseline",
               "--sizes", ",".join(map(str, args.sizes)), "--repeat", str(args.repeat)]
        env = {**os.environ, "PYTHONPATH": old}
        done = subprocess.run(cmd, cwd=old, env=env, capture_output=True, text=True)
        if done.returncode:
            print(f"(no baseline: the run on {ref} failed: {done.stderr.strip().splitlines()[-1:]})")
            return None
        return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="queue sizes in items, comma-separated (default 4000,16000)")
    parser.add_argument("--repeat", type=int, help="timed ratings per measure (default 20; --quick 5)")
    parser.add_argument("--quick", action="store_true", help="a small workload (make bench-smoke)")
    parser.add_argument("--baseline", default=BASELINE_REF, 
                        help=f"git ref to compare with (default {BASELINE_REF})")
    parser.add_argument("--no-baseline", action="store_true", help="measure this code only")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.sizes = [int(s) for s in (args.sizes or ("400" if args.quick else "4000,16000")).split(",")]
    args.repeat = args.repeat or (5 if args.quick else 20)
    if args.json:  # the baseline's run: its code is the working folder
        sys.path.insert(0, os.getcwd())
        print(json.dumps(measure(args.sizes, args.repeat)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's code, not an installed one
    old = None if (args.no_baseline or args.quick) else baseline(args.baseline, args)
    now = measure(args.sizes, args.repeat)
    for n, fig in now.items():
        head = f"      {args.baseline:>10}   this code" if old else ""
        print(f"\nqueue of {int(n):,} items (median ms){head}")
        for name, ms in fig.items():
            before = f"{old[n][name]:>10.1f}" if old and name in old.get(n, {}) else ""
            print(f"  {name:<32}{before}   {ms:>9.1f}")


if __name__ == "__main__":
    main()
