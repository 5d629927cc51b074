"""Demo step: the canary frozen on the decided portal-triage run, with one seeded run in control (DEMO DATA).

Why seeded and not asked: the demo's decided run was recorded offline (no endpoint behind it), so nothing
can be asked again. The canary's cases are frozen by the code ``canary set`` uses (``choose_cases``, the
baseline digest over the stored answers), and its one run reuses the decided run's stored answers as both
the baseline and the "fresh" answers: in control by construction, 0 lost, 0 gained, p = 1. The run's
``run_ids`` name the decided run itself, which is how the Monitoring page knows to say that no model was
called (``governance.monitoring.canary.reused_baseline``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from governance.dossier.storage import DossierStorage
from governance.evidence.operations.plan import freeze_plan
from governance.identity.actor import Actor
from governance.identity.identity import demo_identity
from governance.identity.operations.authorize import update_as
from governance.monitoring.canary import DEFAULT_CASES, baseline_digest, choose_cases, digest
from governance.monitoring.records import CanaryAttempt, CanaryRun, CanarySet

DEMO_SET_ID = "K-de00ca0a01"
DEMO_RUN_ID = "KR-de00ca0a01"


def seed_demo_canary(store: DossierStorage, dossier_id: str, chair: str, now: datetime) -> None:
    """Freeze the demo's canary on its decided scenario run and record one seeded run in control.

    Does nothing when the dossier has no decision or no scenario run of the approved model.
    """
    dossier = store.load(dossier_id).dossier
    if dossier.decision is None:
        return
    plan = freeze_plan(store, dossier, by="demo")
    items = [i for i in plan.items if i.kind == "scenario" and i.scenario_id
             and i.model_label == dossier.decision.model]
    if not items:
        return
    item = items[0]
    rows = store.runs.results(item.run_id)
    cases = choose_cases(dossier_id, {(item.benchmark, item.run_id): rows}, DEFAULT_CASES[dossier.risk.tier])
    if not cases:
        return
    answers = {(item.run_id, r["instance_id"]): r.get("parsed") for r in rows}
    ids = {c.instance_id for c in cases}
    content = [i for i in store.scenarios.instances(item.scenario_id or "", item.scenario_version or 0)
               if i.id in ids]
    at = now - timedelta(days=2)
    canary = CanarySet(id=DEMO_SET_ID, at=at, by=chair, candidate=dossier.decision.model, every_days=30,
                       cases=cases, baseline_digest=baseline_digest(cases, answers),
                       cases_digest=digest([[i.model_dump(mode="json") for i in content]]))
    correct = sum(c.correct for c in cases)
    served = next((r["served_model"] for r in rows if r.get("served_model")), None)
    attempt = CanaryAttempt(run_ids=[item.run_id], status="in_control", n=len(cases), errors=0,
                            baseline_correct=correct, now_correct=correct, lost=0, gained=0, p_value=1.0,
                            changed_answers=0.0, served_model=served)
    run = CanaryRun(id=DEMO_RUN_ID, canary_id=canary.id, at=now - timedelta(days=1), by="demo",
                    candidate=canary.candidate, status="in_control", confirmed=False, attempts=[attempt])
    update_as(store, Actor.of(demo_identity(chair)), dossier_id,
              lambda d: d.model_copy(update={"monitoring": [*d.monitoring, canary, run]}),
              action="set a canary", note="demo: canary frozen, one seeded run in control (DEMO DATA)")
