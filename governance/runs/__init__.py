"""Runs for a dossier: starting, resuming, cancelling and following a model run (``operations.jobs``),
attaching a finished run as evidence (``operations.attach``), the run views the pages render
(``operations.view``) and LLM jury passes on a run (``operations.juries``). Running a model itself
is ``evaluator.runs``; this concept is what a run means for a dossier. All of it takes a store, so
all of it is operations.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "attach_completed_run": "governance.runs.operations.attach",
    "RunInputError": "governance.runs.operations.jobs",
    "RunnableBenchmark": "governance.runs.operations.jobs",
    "cancel_run": "governance.runs.operations.jobs",
    "estimate_request": "governance.runs.operations.jobs",
    "job_elsewhere": "governance.runs.operations.jobs",
    "job_status": "governance.runs.operations.jobs",
    "resume_run": "governance.runs.operations.jobs",
    "runnable_benchmarks": "governance.runs.operations.jobs",
    "save_upload": "governance.runs.operations.jobs",
    "start_run": "governance.runs.operations.jobs",
    "start_scenario_run": "governance.runs.operations.jobs",
    "suggested_models": "governance.runs.operations.jobs",
    "JuryPlan": "governance.runs.operations.juries",
    "JuryRequest": "governance.runs.operations.juries",
    "JuryRunError": "governance.runs.operations.juries",
    "attach_jury": "governance.runs.operations.juries",
    "attached_first": "governance.runs.operations.juries",
    "default_judges": "governance.runs.operations.juries",
    "judge_options": "governance.runs.operations.juries",
    "jury_evidence": "governance.runs.operations.juries",
    "jury_cases": "governance.runs.operations.jury_cases",
    "needs_dataset_file": "governance.runs.operations.juries",
    "run_jury_applies": "governance.runs.operations.juries",
    "plan_jury": "governance.runs.operations.juries",
    "run_dataset_path": "governance.runs.operations.juries",
    "run_juries": "governance.runs.operations.juries",
    "start_jury": "governance.runs.operations.juries",
    "RunView": "governance.runs.operations.view",
    "dossier_runs": "governance.runs.operations.view",
    "run_id_for_key": "governance.runs.operations.view",
    "run_record": "governance.runs.operations.view",
    "run_view": "governance.runs.operations.view",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "JuryPlan", "JuryRequest", "JuryRunError", "RunInputError", "RunView", "RunnableBenchmark",
    "attach_completed_run", "attach_jury", "attached_first", "cancel_run", "default_judges",
    "dossier_runs", "estimate_request", "job_elsewhere", "job_status", "judge_options",
    "jury_cases", "jury_evidence", "needs_dataset_file", "plan_jury", "resume_run", "run_dataset_path",
    "run_id_for_key", "run_juries", "run_jury_applies", "run_record", "run_view", "runnable_benchmarks",
    "save_upload", "start_jury", "start_run", "start_scenario_run", "suggested_models",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
