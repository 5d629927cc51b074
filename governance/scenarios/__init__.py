"""The hospital's own local scenarios for a dossier: importing and versioning them and the run gate
(``operations.local``), de-identification attestations of their files (``operations.deidentification``),
and rubric grading of their runs (``operations.grading``; the page's estimate and job:
``operations.grading_jobs``).
The scenario store and the importers are ``evaluator.scenarios``.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "DeidentificationError": "governance.scenarios.operations.deidentification",
    "attest_file": "governance.scenarios.operations.deidentification",
    "attest_scenario": "governance.scenarios.operations.deidentification",
    "GradeRequest": "governance.scenarios.operations.grading",
    "grade_scenario_run": "governance.scenarios.operations.grading",
    "attach_grading": "governance.scenarios.operations.grading",
    "GradingPlan": "governance.scenarios.operations.grading_jobs",
    "plan_grading": "governance.scenarios.operations.grading_jobs",
    "rubric_coverage": "governance.scenarios.operations.grading_jobs",
    "run_gradings": "governance.scenarios.operations.grading_jobs",
    "start_grading": "governance.scenarios.operations.grading_jobs",
    "attach_scenario_run": "governance.scenarios.operations.local",
    "import_for_dossier": "governance.scenarios.operations.local",
    "redact_scenario": "governance.scenarios.operations.local",
    "run_gate": "governance.scenarios.operations.local",
    "scenario_rows": "governance.scenarios.operations.local",
    "version_view": "governance.scenarios.operations.local",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "DeidentificationError", "GradeRequest", "GradingPlan", "attach_grading", "attach_scenario_run",
    "attest_file", "attest_scenario", "grade_scenario_run", "import_for_dossier", "plan_grading",
    "redact_scenario", "rubric_coverage", "run_gate", "run_gradings", "scenario_rows", "start_grading",
    "version_view",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
