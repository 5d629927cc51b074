"""The committee's domain: dossiers, the task mapping, rules and verdicts, runs for a dossier.

Where code goes, in one rule: **to the package of the concept it is about; inside it, records <
pure logic < storage < operations** (what takes a store or starts a job, ``<concept>/operations``).
Concepts import one way only, from a later stage of the dossier's life down to an earlier one, with
no imports between siblings (import-linter in ``make lint``; docs/layout.md)::

    demo > reevaluation > monitoring > review > judge_validity > decision > rules > runs > scenarios
         > procurement > evidence > mapping > intended_use > identity > dossier

Any concept may read any concept's records (the dossier's schema). The floor is extended from above
by registration, here (``_wire`` at the end of this file): the concepts' storage components on the
store and the decision's sign-off guard on the save door.

The public API (``__all__``) is what notebooks and scripts use. The pages and the CLI import the
rest from each concept's face (``from governance.monitoring import import_feed``: the concept's
``__init__`` lists what the app uses in ``_FACE`` and ``__all__``), never from a module below it
(``tests/test_faces.py``), so the import contracts see which page uses which concept. Names are
imported on first use (``evaluator.lazy_exports``), so ``import governance.dossier.store`` stays
cheap and no import cycle appears. A typical path::

    store = Store.open()                                  # $MEDASSURE_HOME/medassure.duckdb
    dossier = Dossier(title=..., owner=..., intended_use=IntendedUse(...))
    suggestions = suggest_mapping(dossier.intended_use.text_for_mapping())
    mapping = dossier.mapping.decide(suggestions[0].subcategory_id, "accepted", by="me")
    done = run_and_wait(store, build_request("calc_builtin", "openai/m", api_base=URL, limit=12))
    version = attach_run(store, dossier.id, done.run_id, actor=Actor.named("me"))
    assessment = assess(version.dossier)

Example:
    >>> from governance import Dossier, example_intended_use
    >>> Dossier(title="Portal replies", owner="me", intended_use=example_intended_use()).status
    'draft'
"""

from typing import TYPE_CHECKING

from evaluator.lazy_exports import lazy_exports

_EXPORTS = {
    "Store": "governance.dossier.store",
    "Actor": "governance.identity.actor",
    "Dossier": "governance.dossier.record",
    "TaskMapping": "governance.dossier.record",
    "IntendedUse": "governance.intended_use.records",
    "example_intended_use": "governance.intended_use.records",
    "suggest_mapping": "governance.mapping.suggest",
    "mapped_benchmarks": "governance.evidence.attach",
    "attach_evidence": "governance.evidence.attach",
    "start_rules": "governance.decision.committee",
    "lock_rules": "governance.decision.committee",
    "assess": "governance.rules.verdicts",
    "assessment_and_recommendation": "governance.rules.assessment",
    "build_request": "governance.runs.operations.jobs",
    "run_and_wait": "governance.runs.operations.jobs",
    "attach_run": "governance.runs.operations.view",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Store", "Actor", "Dossier", "TaskMapping", "IntendedUse", "example_intended_use", "suggest_mapping",
    "mapped_benchmarks", "attach_evidence", "start_rules", "lock_rules", "assess",
    "assessment_and_recommendation", "build_request", "run_and_wait", "attach_run",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from governance.decision.committee import lock_rules, start_rules
    from governance.dossier.record import Dossier, TaskMapping
    from governance.dossier.store import Store
    from governance.evidence.attach import attach_evidence, mapped_benchmarks
    from governance.identity.actor import Actor
    from governance.intended_use.records import IntendedUse, example_intended_use
    from governance.mapping.suggest import suggest_mapping
    from governance.rules.assessment import assessment_and_recommendation
    from governance.rules.verdicts import assess
    from governance.runs.operations.jobs import build_request, run_and_wait
    from governance.runs.operations.view import attach_run


def _wire() -> None:
    """Plug each concept into the floor it builds on, which cannot import it (docs/layout.md).

    The dossier store hands out the concepts' storage components by name, and the one save door
    (``governance.identity.operations``) runs the decision's sign-off guard on every save. Both sit
    below the concepts that extend them, so the extensions are registered here, once, whenever any
    part of ``governance`` is imported (Python runs this file before any submodule); as names
    resolved on first use, so this costs one small module at import time.
    """
    from governance.dossier import extensions

    extensions.register_component("documents", "governance.procurement.store:DocumentStore")
    extensions.register_component("reviews", "governance.review.store:ReviewStore")
    extensions.register_component("monitoring", "governance.monitoring.store:MonitoringFeedStore")
    extensions.register_save_guard("governance.decision.operations.standing:refuse_unsignable")
    extensions.register_record_check("governance.monitoring.seals:feed_seal_check")
    extensions.register_record_check("governance.review.seals:queue_seal_check")


_wire()
