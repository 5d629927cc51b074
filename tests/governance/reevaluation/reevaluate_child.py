"""Child process for the restart test: a fresh Python re-evaluates a decided dossier, nothing changed.

Usage: python -m tests.governance.reevaluation.reevaluate_child DB_PATH DOSSIER_ID
Prints one JSON line: the plan frozen at the decision, the plan frozen again here (from the store
only: this process never ran anything), the request stored with the baseline run, and the
re-evaluation's request counts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evaluator.runs.jobs import JOBS
from governance.dossier.store import Store
from governance.evidence.operations.plan import freeze_plan
from governance.identity import Actor
from governance.reevaluation.operations.job import reevaluate_and_wait
from governance.reevaluation.records import PlanChange


def main() -> None:
    db, dossier_id = Path(sys.argv[1]), sys.argv[2]
    store = Store.open(db)
    try:
        assert not JOBS._jobs, "a fresh process knows no job"
        dossier = store.load(dossier_id).dossier
        frozen = dossier.evidence_plan
        fresh = freeze_plan(store, dossier, by="child")
        stored = store.runs.stored_request(frozen.items[0].run_id)
        result = reevaluate_and_wait(store, dossier_id, PlanChange(), actor=Actor.named("qa"), poll_s=0.05)
        out = {"frozen": [i.model_dump(mode="json") for i in frozen.items],
               "fresh": [i.model_dump(mode="json") for i in fresh.items], "stored_request": stored,
               "new_requests": result.addendum.new_requests, "cache_hits": result.addendum.cache_hits,
               "would_change": result.addendum.impact.would_change}
    finally:
        store.close()
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
