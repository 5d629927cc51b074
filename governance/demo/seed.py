"""The demo dossier that ``medassure demo`` and ``make run`` seed on an empty database.

Each issue that adds a step of the dossier path extends the demo by appending a function to
``DEMO_STEPS``; each takes the store and the current dossier and returns the dossier to save,
so every page always has something real to show. Seeding is idempotent: an existing demo
dossier is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from governance.demo.candidates import record_demo_candidates
from governance.demo.decision import DEMO_DECISION_STEPS
from governance.demo.evidence import attach_published_demo_evidence
from governance.demo.judge_validity import record_demo_judge_validity
from governance.demo.monitoring import record_demo_monitoring
from governance.demo.reevaluation import reevaluate_demo_update
from governance.demo.review import record_demo_review_queue
from governance.demo.scenario import attach_demo_scenario
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.intended_use.records import example_intended_use

DEMO_ID = "D-demo-portal"
DEMO_AUTHOR = "demo"

DemoStep = Callable[[DossierStorage, Dossier], Dossier]


def _map_taxonomy(store: DossierStorage, dossier: Dossier) -> Dossier:
    mapping = (
        dossier.mapping.decide("patient_provider_messaging", "accepted", by=DEMO_AUTHOR,
                               note="Drafting portal replies is patient-provider messaging.")
        .decide("providing_patient_education_resources", "accepted", by=DEMO_AUTHOR,
                note="Many messages ask about medications and results.")
        .decide("planning_treatments", "rejected", by=DEMO_AUTHOR,
                note="Replies must not change treatment; out of scope.")
        .add_local_task("patient_provider_messaging", "Draft a reply to a refill request", by=DEMO_AUTHOR,
                        description="Reply stating whether a refill was sent and what the patient should do.")
    )
    return dossier.model_copy(update={"mapping": mapping})


DEMO_STEPS: list[tuple[str, DemoStep]] = [
    ("map the intended use onto the taxonomy", _map_taxonomy),
    ("attach published MedHELM evidence", attach_published_demo_evidence),
    ("record judge validity from synthetic demo ratings", record_demo_judge_validity),
    ("a closed review queue rated by two demo clinicians (DEMO DATA)", record_demo_review_queue),
    ("record vendor candidates and attestations", record_demo_candidates),
    ("attach a synthetic local scenario with subgroups", attach_demo_scenario),
    *DEMO_DECISION_STEPS,
    ("re-evaluation of the vendor's model update, re-run offline (DEMO DATA)", reevaluate_demo_update),
    ("six months of monitoring after go-live (DEMO DATA)", record_demo_monitoring),
]


def seed_demo(store: DossierStorage) -> str:
    """Create the demo dossier unless it exists; returns its id.

    Example:
        >>> seed_demo(store)  # doctest: +SKIP
        'D-demo-portal'
    """
    if store.latest_or_none(DEMO_ID) is not None:
        return DEMO_ID
    dossier = Dossier(id=DEMO_ID, title="Drafting replies to patient portal messages",
                      owner="Primary care AI committee", intended_use=example_intended_use())
    store.save(dossier, author=DEMO_AUTHOR, note="demo: intended use")
    for label, step in DEMO_STEPS:
        dossier = step(store, dossier)
        store.save(dossier, author=DEMO_AUTHOR, note=f"demo: {label}")
    return DEMO_ID
