"""Evidence for a dossier, as pure functions of its records: which benchmarks the mapping points at,
attaching and detaching evidence, selecting and ranking records, the coverage map, the Evidence
page's view, and which benchmarks a judge-agreement setting covers.

Arrows EvidencePlan -> Evidence of the path. Starting runs, juries and imports for a dossier (they
take a store) are ``governance.evidence.operations`` (the frozen plan, HELM and Inspect imports) and
``governance.runs.operations``; running a model is ``evaluator.runs``.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "detach_evidence": "governance.evidence.attach",
    "CoverageRow": "governance.evidence.coverage",
    "KIND_NOTES": "governance.evidence.coverage",
    "activity_gaps": "governance.evidence.gaps",
    "InstanceRow": "governance.evidence.operations.helm_import",
    "RunPreview": "governance.evidence.operations.helm_import",
    "attached_run_instances": "governance.evidence.operations.helm_import",
    "preview_helm_import": "governance.evidence.operations.helm_import",
    "attach_inspect_logs": "governance.evidence.operations.inspect_import",
    "preview_inspect_import": "governance.evidence.operations.inspect_import",
    "preview_inspect_upload": "governance.evidence.operations.inspect_import",
    "subcategory_name": "governance.evidence.select",
    "subgroup_lines": "governance.evidence.subgroups",
    "BenchmarkTies": "governance.evidence.view",
    "GroupMeanRow": "governance.evidence.view",
    "ScoreRow": "governance.evidence.view",
    "WinRateRow": "governance.evidence.view",
    "evidence_view": "governance.evidence.view",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "BenchmarkTies", "CoverageRow", "GroupMeanRow", "InstanceRow", "KIND_NOTES", "RunPreview", "ScoreRow",
    "WinRateRow", "activity_gaps", "attach_inspect_logs", "attached_run_instances", "detach_evidence",
    "evidence_view", "preview_helm_import", "preview_inspect_import", "preview_inspect_upload",
    "subcategory_name", "subgroup_lines",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
