"""Evidence: benchmarks, model endpoints, the runner, published MedHELM results.

The public API below is what notebooks and scripts use; the pages and the CLI call the same
functions. Names are imported on first use (``evaluator.lazy_exports``), so ``import
evaluator.storage.db`` stays cheap. evaluator never imports governance or reports.

Example:
    >>> from evaluator import evidence_frame, published_evidence
    >>> evidence_frame(published_evidence(["MedCalc-Bench"], ["DeepSeek R1"]))[["model", "score"]].shape
    (1, 2)
"""

from typing import TYPE_CHECKING

from evaluator.lazy_exports import lazy_exports

_EXPORTS = {
    "Evidence": "evaluator.evidence.record",
    "published_evidence": "evaluator.evidence.record",
    "evidence_frame": "evaluator.evidence.record",
    "list_benchmarks": "evaluator.benchmarks.specs",
    "get_benchmark": "evaluator.benchmarks.specs",
    "load_instances": "evaluator.loaders",
    "ModelEndpoint": "evaluator.gateway.llm",
    "run_benchmark": "evaluator.runs.runner",
    "tqdm_progress": "evaluator.runs.progress",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Evidence", "published_evidence", "evidence_frame", "list_benchmarks", "get_benchmark",
    "load_instances", "ModelEndpoint", "run_benchmark", "tqdm_progress",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from evaluator.benchmarks.specs import get_benchmark, list_benchmarks
    from evaluator.evidence.record import Evidence, evidence_frame, published_evidence
    from evaluator.gateway.llm import ModelEndpoint
    from evaluator.loaders import load_instances
    from evaluator.runs.progress import tqdm_progress
    from evaluator.runs.runner import run_benchmark
