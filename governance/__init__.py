"""The committee's domain: dossiers, the task mapping, rules and verdicts, runs for a dossier.

The public API below is what notebooks and scripts use; the pages and the CLI call the same
functions. Names are imported on first use (``evaluator.lazy_exports``), so ``import
governance.dossier.store`` stays cheap and no import cycle appears. A typical path::

    store = Store.open()                                  # $MEDASSURE_HOME/medassure.duckdb
    dossier = Dossier(title=..., owner=..., intended_use=IntendedUse(...))
    suggestions = suggest_mapping(dossier.intended_use.text_for_mapping())
    mapping = dossier.mapping.decide(suggestions[0].subcategory_id, "accepted", by="me")
    done = run_and_wait(store, build_request("calc_builtin", "openai/m", api_base=URL, limit=12))
    version = attach_run(store, dossier.id, done.run_id, by="me")
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
    "Dossier": "governance.dossier.record",
    "TaskMapping": "governance.dossier.record",
    "IntendedUse": "governance.dossier.intended_use",
    "example_intended_use": "governance.dossier.intended_use",
    "suggest_mapping": "governance.mapping.suggest",
    "mapped_benchmarks": "governance.evidence.attach",
    "attach_evidence": "governance.evidence.attach",
    "start_rules": "governance.decision.committee",
    "lock_rules": "governance.decision.committee",
    "assess": "governance.rules.verdicts",
    "assessment_and_recommendation": "governance.rules.assessment",
    "build_request": "governance.actions.runs",
    "run_and_wait": "governance.actions.runs",
    "attach_run": "governance.actions.run_view",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Store", "Dossier", "TaskMapping", "IntendedUse", "example_intended_use", "suggest_mapping",
    "mapped_benchmarks", "attach_evidence", "start_rules", "lock_rules", "assess",
    "assessment_and_recommendation", "build_request", "run_and_wait", "attach_run",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from governance.actions.run_view import attach_run
    from governance.actions.runs import build_request, run_and_wait
    from governance.decision.committee import lock_rules, start_rules
    from governance.dossier.intended_use import IntendedUse, example_intended_use
    from governance.dossier.record import Dossier, TaskMapping
    from governance.dossier.store import Store
    from governance.evidence.attach import attach_evidence, mapped_benchmarks
    from governance.mapping.suggest import suggest_mapping
    from governance.rules.assessment import assessment_and_recommendation
    from governance.rules.verdicts import assess
