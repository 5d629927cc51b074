"""How often does following one value through the code return to a folder already left? (issue 33)

A concept spread over folders by kind of code makes a reader leave a folder and come back to it again and
again. This script follows two values the way a reader would, at run time: it records every call into the
project's own modules (``sys.setprofile``; tests, third-party code and what runs while a module is first
imported left out) and keeps each file once,
in the order the code first reaches it (a depth-first reading of the call tree). Each file belongs to a
*folder*: a concept package for governance (``governance/monitoring``), a subpackage for the evaluator
(``evaluator/statistics``), else its top folder (``cli``, ``reports``). It prints, per walk, the files,
the folders, the moves between folders and the **returns**: entering a folder that the walk had already
left; then the same counts above the floor (``FLOOR``: the dossier's store, who acts, the database, and
the records modules), which every operation passes through at each save; and a third set, labelled as
such, that also counts the shared evaluator libraries as floor (``SHARED``: the statistics and the model
gateway, see its docstring). The first two are printed as before, so nothing is hidden by the third.

The walks (on a copy of the seeded demo, which is set up untraced):

* **feed**: ``medassure monitor import`` of a new month of the demo feed, then ``medassure monitor
  report`` of that month (the signal in the monthly PDF).
* **rating**: the raters' view and ratings of a new review queue on the demo's review run, the queue's
  close, and what Judge validity reads of it (ratings, status, agreement with the demo's stored jury).

Usage: .venv/bin/python bench/concept_walks.py [--quick] [--files]
(``--files`` prints each walk's files in order; ``--quick`` is the same work, for ``make bench-smoke``.)
Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

PACKAGES = ("governance", "evaluator", "reports", "cli", "pages")


def folder(rel: str) -> str:
    """The folder a file belongs to: a concept or subpackage under governance/evaluator, else the top."""
    parts = rel.split("/")
    if parts[0] in ("governance", "evaluator") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def importing(frame) -> bool:
    """Whether this call runs inside a module being imported (its first use loads it): not the walk."""
    while frame is not None and frame.f_code is not trace.__code__:  # up to where the walk started
        if frame.f_code.co_name == "<module>":
            return True
        frame = frame.f_back
    return False


def trace(work: Callable[[], object]) -> list[str]:
    """The project's files ``work`` calls into, each once, in the order first reached."""
    seen: dict[str, None] = {}
    root = str(ROOT) + os.sep

    def profile(frame, event, _arg):
        if event != "call":
            return
        path = frame.f_code.co_filename
        if path.startswith(root) and not importing(frame):
            rel = path[len(root):].replace(os.sep, "/")
            if rel.split("/")[0] in PACKAGES and rel not in seen:
                seen[rel] = None

    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            work()
    finally:
        sys.setprofile(None)
    return list(seen)


FLOOR = ("governance/dossier", "governance/identity", "evaluator/storage", "evaluator/inputs", "evaluator")
"""What every operation stands on (the dossier's record and store, who acts, the database): a walk passes
through them at every save, so the second count leaves them out, and the records modules (the dossier's
schema, which any concept may read) with them."""


def above_floor(files: list[str]) -> list[str]:
    return [f for f in files if folder(f) not in FLOOR and not f.endswith(("records.py", "record.py"))]


SHARED = ("evaluator/statistics", "evaluator/gateway")
"""Shared evaluator libraries, counted as floor in the third set only. Why: they are libraries every concept
calls for one job and returns from, not rooms a concept is spread over. ``evaluator/statistics`` is the one
home of the intervals and charts the committee checks (Wilson, CUSUM, subgroup ratios): monitoring's rates,
drift and subgroup checks each call it in turn, and moving its math into monitoring to save a return would
copy it (issue 33). ``evaluator/gateway`` is the one gateway to models (STYLE.md rule 6): the key-shape
check every record that names a model validates with on each load (``secrets``), the endpoint record's own
module (``llm``), and litellm's shipped model map that procurement dates a snapshot by (``retirement``).
The second set still counts a return to either, so the count that hides nothing stays printed."""


def above_shared(files: list[str]) -> list[str]:
    return [f for f in above_floor(files) if folder(f) not in SHARED]


def counts(files: list[str]) -> dict[str, int]:
    """Files, folders, moves between folders and returns to a folder already left."""
    left: set[str] = set()
    moves = returns = 0
    previous = None
    for f in files:
        here = folder(f)
        if previous is not None and here != previous:
            moves += 1
            left.add(previous)
            returns += here in left
        previous = here
    return {"files": len(files), "folders": len({folder(f) for f in files}), "moves": moves,
            "returns": returns}


def seeded_demo(tmp: Path) -> Path:
    from governance.demo.seed import seed_demo
    from governance.dossier.store import Store

    path = tmp / "seeded.duckdb"
    store = Store.open(path)
    with contextlib.redirect_stdout(io.StringIO()):
        seed_demo(store)
    store.close()
    return path


def fresh_home(tmp: Path, seeded: Path, name: str) -> Path:
    home = tmp / name
    home.mkdir()
    shutil.copy(seeded, home / "medassure.duckdb")
    os.environ["MEDASSURE_HOME"] = str(home)
    return home


def feed_walk(tmp: Path, seeded: Path) -> list[str]:
    from cli import main
    from governance.demo.monitoring_feed import COLUMNS, demo_feed_rows, demo_months

    home = fresh_home(tmp, seeded, "feed")
    now = datetime.now(UTC)
    later = now + timedelta(days=32)
    month = demo_months(later)[-1]  # the month of now, which the seeded demo has not imported
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = [r for r in demo_feed_rows(later) if r["timestamp"].startswith(month) and r["timestamp"] < stamp]
    feed = home / "this_month.csv"
    # only rows already past: the import refuses future ones
    with feed.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    dossier = "D-demo-portal"

    def work():
        for argv in (["monitor", "import", str(feed), "--dossier", dossier, "--format", "json"],
                     ["monitor", "report", dossier, "--month", month, "--out", str(home / "month.pdf")]):
            if main(argv) not in (0, 3, 4):  # 3/4: a signal raised (review/pause), still a full walk
                raise SystemExit(f"the walk's `medassure {' '.join(argv[:2])}` failed: "
                                 "it would trace an error path")

    return trace(work)


def rating_walk(tmp: Path, seeded: Path) -> list[str]:
    from governance.demo.review import RATERS
    from governance.dossier.store import Store
    from governance.identity import Actor
    from governance.judge_validity import assess_judge_validity
    from governance.review import (
        close_queue,
        create_queue,
        queue_ratings,
        queue_status,
        rater_view,
        record_rating,
    )

    home = fresh_home(tmp, seeded, "rating")
    store = Store.open(home / "medassure.duckdb")
    editor = Actor.named("editor")
    (demo_queue, *_) = store.reviews.list_queues("D-demo-portal")
    queue = create_queue(store, demo_queue.run_id, 6, list(RATERS), double=0.5, sentinels=0, seed=11,
                         dossier_id="D-demo-portal", actor=editor)
    juries = [j["jury_id"] for j in store.juries.list_juries()]

    def work():
        for rater in RATERS:
            who = Actor.named(rater)
            for item in rater_view(store, queue.queue_id, actor=who).items:
                scores = {"accuracy": 4, "completeness": 4, "clarity": 5}
                record_rating(store, queue.queue_id, item.item_id, scores, seconds=30.0, actor=who)
        close_queue(store, queue.queue_id, actor=editor, note="walk")
        frame = queue_ratings(store, queue.queue_id)
        queue_status(store, queue.queue_id)
        with contextlib.suppress(Exception):  # the demo's jury rated other cases: the walk is the reading
            assess_judge_validity(store.juries, frame, jury_id=juries[0] if juries else None, n_boot=50)

    try:
        return trace(work)
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the same walks (short), for bench-smoke")
    parser.add_argument("--files", action="store_true", help="print each walk's files in order")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        seeded = seeded_demo(tmp)
        walks = {"feed (monitor import -> monthly report)": feed_walk(tmp, seeded),
                 "rating (rate outputs -> judge validity)": rating_walk(tmp, seeded)}
    print(f"{'walk':<44} {'files':>5} {'folders':>7} {'moves':>5} {'returns':>7}   (above the floor: "
          "files, folders, moves, returns)   [the same, shared evaluator libraries also as floor]")
    for name, files in walks.items():
        c, a, s = counts(files), counts(above_floor(files)), counts(above_shared(files))
        print(f"{name:<44} {c['files']:>5} {c['folders']:>7} {c['moves']:>5} {c['returns']:>7}   "
              f"({a['files']}, {a['folders']}, {a['moves']}, {a['returns']})   "
              f"[{s['files']}, {s['folders']}, {s['moves']}, {s['returns']}]")
        if args.files:
            for f in files:
                print(f"    {folder(f):<28} {f}")


if __name__ == "__main__":
    main()
