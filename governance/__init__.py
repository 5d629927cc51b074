"""The committee's domain: dossiers, the task mapping, rules and verdicts, runs for a dossier.

The public API below is what notebooks and scripts use; the pages and the CLI call the same
functions. Names are imported on first use (``evaluator.lazy_exports``), so ``import
governance.store`` stays cheap and no import cycle appears. A typical path::

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
    "Store": "governance.store",
    "Dossier": "governance.dossier",
    "TaskMapping": "governance.dossier",
    "IntendedUse": "governance.intended_use",
    "example_intended_use": "governance.intended_use",
    "suggest_mapping": "governance.mapping",
    "mapped_benchmarks": "governance.dossier_evidence",
    "attach_evidence": "governance.dossier_evidence",
    "start_rules": "governance.committee",
    "lock_rules": "governance.committee",
    "assess": "governance.verdicts",
    "assessment_and_recommendation": "governance.committee",
    "build_request": "governance.run_evidence",
    "run_and_wait": "governance.run_evidence",
    "attach_run": "governance.run_evidence_view",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Store", "Dossier", "TaskMapping", "IntendedUse", "example_intended_use", "suggest_mapping",
    "mapped_benchmarks", "attach_evidence", "start_rules", "lock_rules", "assess",
    "assessment_and_recommendation", "build_request", "run_and_wait", "attach_run",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from governance.committee import assessment_and_recommendation, lock_rules, start_rules
    from governance.dossier import Dossier, TaskMapping
    from governance.dossier_evidence import attach_evidence, mapped_benchmarks
    from governance.intended_use import IntendedUse, example_intended_use
    from governance.mapping import suggest_mapping
    from governance.run_evidence import build_request, run_and_wait
    from governance.run_evidence_view import attach_run
    from governance.store import Store
    from governance.verdicts import assess
