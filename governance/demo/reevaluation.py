"""Demo step: a re-evaluation addendum after the vendor's model update, re-run offline (DEMO DATA).

Why offline and deterministic: the demo must show what a committee gets when a vendor ships a new
model version (the Re-evaluation page's answer "would this change the decision?", flipped cases by
id, subgroup deltas, and the PDF's re-evaluation section) without calling a model and in well under
a second. So the update's "answers" to the demo's synthetic portal-triage scenario are generated
here, stored as an offline run by the code a live run's results go through, and compared with the
decided run by ``governance.reevaluation.operations.addendum.build_addendum``, the function a live
re-evaluation uses. The invented update fixes the Spanish-language cases the decided model got
wrong but now misses three English-language ones, so the addendum has cases on both sides.
Every text says plainly that this is demo data and that no model was called.
"""

from __future__ import annotations

from evaluator.scenarios import ScenarioStore, record_offline_run
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.operations.plan import freeze_plan
from governance.reevaluation.operations.addendum import AfterRun, build_addendum
from governance.reevaluation.records import PlanChange

DEMO_AUTHOR = "demo"
UPDATED_MODEL = "GPT-4o (2024-08-06)"  # the vendor's update of the decided snapshot (2024-05-13)
NEWLY_WRONG = ("en-03", "en-10", "en-17")
UPDATE_ENDPOINT = "demo data: simulated vendor update (no model called)"
DEMO_CAVEAT = ("DEMO DATA, not a measurement: the vendor's update was simulated with answers generated "
               "deterministically by MedAssure's demo generator; no model was called. The decided run "
               "was recorded offline too, so nothing here could be re-run against an endpoint.")


def updated_answers(store: ScenarioStore, scenario_id: str, version: int) -> dict[str, str]:
    """The simulated update's replies: right everywhere except the cases in ``NEWLY_WRONG``.

    Example:
        >>> answers = updated_answers(store.scenarios, "sc_...", 1)  # doctest: +SKIP
        >>> answers["en-03"] != answers["en-01"]                     # doctest: +SKIP
        True
    """
    answers = {}
    for case in store.instances(scenario_id, version):
        right = case.reference
        answers[case.id] = f"Answer: {('B' if right == 'A' else 'A') if case.id in NEWLY_WRONG else right}"
    return answers


def reevaluate_demo_update(store: DossierStorage, dossier: Dossier) -> Dossier:
    """The decided demo dossier with a re-evaluation addendum for the vendor's update (save it).

    Returns the dossier unchanged when it has no decision or no demo scenario run to compare with.

    Example:
        >>> d = reevaluate_demo_update(store, decided_demo)          # doctest: +SKIP
        >>> d.reevaluations[-1].comparisons[0].worse                 # doctest: +SKIP
        ['en-03', 'en-10', 'en-17']
    """
    if dossier.decision is None:
        return dossier
    current = store.load(dossier.id)
    plan = freeze_plan(store, current.dossier, by=DEMO_AUTHOR)
    items = [i for i in plan.items if i.kind == "scenario" and i.scenario_id]
    if not items:
        return dossier
    item = items[0]
    scenarios = store.scenarios
    version = scenarios.get(item.scenario_id, item.scenario_version)
    answers = updated_answers(scenarios, version.scenario_id, version.version)
    run_id = record_offline_run(store, version, UPDATED_MODEL, answers,
                                endpoint_name=UPDATE_ENDPOINT)
    after = AfterRun(item=item, run_id=run_id, model=UPDATED_MODEL,
                     instances=scenarios.instances(version.scenario_id, version.version),
                     prompt_hash=item.prompt.template_hash if item.prompt else None)
    with store.for_thread() as db:
        addendum = build_addendum(db, current, plan, PlanChange(model=UPDATED_MODEL), [after],
                                  by="Dr. A. Rivera (chair)", frozen_at_decision=False, caveats=[DEMO_CAVEAT])
    return dossier.model_copy(update={"reevaluations": [*dossier.reevaluations, addendum]})
