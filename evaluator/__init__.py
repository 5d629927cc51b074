"""Evidence: benchmarks, model endpoints, the runner, published MedHELM results.

The public API below is what notebooks and scripts use; the pages and the CLI call the same
functions. Names are imported on first use (``evaluator.lazy_exports``), so ``import
evaluator.storage.db`` stays cheap. evaluator never imports governance or reports. The rooms that
extend a lower one (the component stores the storage floor hands out, the registries a benchmark
file's names are checked against) are plugged in here, by name (``_wire`` at the end of this file;
``evaluator.extensions`` says why here).

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
    "CusumPath": "evaluator.statistics.cusum",
    "CusumMonitor": "evaluator.statistics.cusum",
    "bernoulli_cusum_path": "evaluator.statistics.cusum",
    "bernoulli_cusum_arl": "evaluator.statistics.cusum",
    "bernoulli_cusum_limit": "evaluator.statistics.cusum",
    "bernoulli_cusum_monitor": "evaluator.statistics.cusum",
    "standardized_cusum_path": "evaluator.statistics.cusum",
    "standardized_cusum_arl": "evaluator.statistics.cusum",
    "standardized_cusum_limit": "evaluator.statistics.cusum",
    "detection_delay": "evaluator.statistics.cusum",
    "audit_sample_size": "evaluator.statistics.cusum",
}
__all__ = [  # literal, so tools see the public names; tests check it matches _EXPORTS
    "Evidence", "published_evidence", "evidence_frame", "list_benchmarks", "get_benchmark",
    "load_instances", "ModelEndpoint", "run_benchmark", "tqdm_progress",
    "CusumPath", "CusumMonitor", "bernoulli_cusum_path", "bernoulli_cusum_arl", "bernoulli_cusum_limit",
    "bernoulli_cusum_monitor", "standardized_cusum_path", "standardized_cusum_arl",
    "standardized_cusum_limit", "detection_delay", "audit_sample_size",
]
_FACE = {  # what the pages and the CLI import besides the public API (tests/test_faces.py)
    "POOLED": "evaluator.agreement.ratings",
    "RatingsError": "evaluator.agreement.ratings",
    "ratings_template": "evaluator.agreement.ratings",
    "BenchmarkError": "evaluator.benchmarks.specs",
    "benchmark_tokens": "evaluator.evidence.medhelm",
    "published_scores": "evaluator.evidence.medhelm",
    "LLMError": "evaluator.gateway.errors",
    "api_key_for": "evaluator.gateway.llm",
    "default_transport": "evaluator.gateway.llm",
    "HelmImportError": "evaluator.importers",
    "load_helm_runs": "evaluator.importers",
    "InspectNotInstalled": "evaluator.importers.inspect_log",
    "JsonRefused": "evaluator.inputs.capped_json",
    "parse_json": "evaluator.inputs.capped_json",
    "default_jury_method": "evaluator.jury.medhelm",
    "GradingError": "evaluator.grading.grade",
    "JuryError": "evaluator.jury.panel",
    "jury_config_for": "evaluator.jury.panel",
    "DatasetError": "evaluator.loaders",
    "get_loader": "evaluator.loaders",
    "AttestationInput": "evaluator.phi.attestation",
    "METHOD_LABELS": "evaluator.phi.attestation",
    "JOBS": "evaluator.runs.jobs",
    "wait_job": "evaluator.runs.jobs",
    "PhiBlocked": "evaluator.runs.phi_gate",
    "benchmark_gate": "evaluator.runs.phi_gate",
    "run_attestation": "evaluator.runs.phi_gate",
    "RunRecord": "evaluator.runs.reads",
    "RESENT_NOTE": "evaluator.runs.retry",
    "RunRequest": "evaluator.runs.request",
    "estimate_run": "evaluator.runs.runner",
    "ColumnMapping": "evaluator.scenarios",
    "FIELDS": "evaluator.scenarios",
    "ImportRejected": "evaluator.scenarios",
    "MappingError": "evaluator.scenarios",
    "build_mapping": "evaluator.scenarios",
    "parse_map_args": "evaluator.scenarios",
    "preview_table": "evaluator.scenarios",
    "read_table": "evaluator.scenarios",
    "read_table_file": "evaluator.scenarios",
    "scenario_results": "evaluator.scenarios",
    "scenario_spec": "evaluator.scenarios",
    "suggest_column_mapping": "evaluator.scenarios",
    "ScenarioRunBlocked": "evaluator.scenarios.run",
    "scenario_gate": "evaluator.scenarios.run",
    "start_scenario": "evaluator.scenarios.run",
    "ACTIVITY_TEMPLATES": "evaluator.scenarios.template",
    "FORMAT_NOTES": "evaluator.scenarios.template",
    "activity_template_csv": "evaluator.scenarios.template",
    "TEMPLATES": "evaluator.scenarios.template",
    "template_csv": "evaluator.scenarios.template",
    "RUBRIC_TEMPLATES": "evaluator.scenarios.template",
    "rubric_template": "evaluator.scenarios.template",
    "mean_win_rate": "evaluator.statistics.estimates",
    "RoleSetupError": "evaluator.storage.pg_roles",
    "MIN_N": "evaluator.statistics.subgroups",
}
__getattr__, __dir__ = lazy_exports(globals(), {**_EXPORTS, **_FACE})

if TYPE_CHECKING:  # for editors and type checkers; at run time the names load on first use
    from evaluator.agreement.ratings import POOLED, RatingsError, ratings_template
    from evaluator.benchmarks.specs import BenchmarkError, get_benchmark, list_benchmarks
    from evaluator.evidence.medhelm import benchmark_tokens, published_scores
    from evaluator.evidence.record import Evidence, evidence_frame, published_evidence
    from evaluator.gateway.errors import LLMError
    from evaluator.gateway.llm import ModelEndpoint, api_key_for, default_transport
    from evaluator.grading.grade import GradingError
    from evaluator.importers import HelmImportError, load_helm_runs
    from evaluator.importers.inspect_log import InspectNotInstalled
    from evaluator.inputs.capped_json import JsonRefused, parse_json
    from evaluator.jury.medhelm import default_jury_method
    from evaluator.jury.panel import JuryError, jury_config_for, run_jury
    from evaluator.loaders import DatasetError, get_loader, load_instances
    from evaluator.phi.attestation import METHOD_LABELS, AttestationInput
    from evaluator.runs.jobs import JOBS, wait_job
    from evaluator.runs.phi_gate import PhiBlocked, benchmark_gate, run_attestation
    from evaluator.runs.progress import tqdm_progress
    from evaluator.runs.reads import RunRecord
    from evaluator.runs.request import RunRequest
    from evaluator.runs.retry import RESENT_NOTE
    from evaluator.runs.runner import RunOptions, estimate_run, run_benchmark
    from evaluator.runs.store import sha256_of
    from evaluator.scenarios import (
        FIELDS,
        ColumnMapping,
        ImportRejected,
        MappingError,
        build_mapping,
        parse_map_args,
        preview_table,
        read_table,
        read_table_file,
        scenario_results,
        scenario_spec,
        suggest_column_mapping,
    )
    from evaluator.scenarios.run import ScenarioRunBlocked, scenario_gate, start_scenario
    from evaluator.scenarios.template import (
        ACTIVITY_TEMPLATES,
        FORMAT_NOTES,
        RUBRIC_TEMPLATES,
        TEMPLATES,
        activity_template_csv,
        rubric_template,
        template_csv,
    )
    from evaluator.statistics.cusum import (
        CusumMonitor,
        CusumPath,
        audit_sample_size,
        bernoulli_cusum_arl,
        bernoulli_cusum_limit,
        bernoulli_cusum_monitor,
        bernoulli_cusum_path,
        detection_delay,
        standardized_cusum_arl,
        standardized_cusum_limit,
        standardized_cusum_path,
    )
    from evaluator.statistics.estimates import mean_win_rate
    from evaluator.statistics.subgroups import MIN_N
    from evaluator.storage.pg_roles import RoleSetupError


def _wire() -> None:
    """Plug each component into the floor it builds on, which cannot import it (``evaluator.extensions``).

    The storage floor's ``ComponentStores`` hands out the runs, local scenarios, juries and PHI
    attestation stores, which live with their rooms above it; a benchmark file's loader and metric
    names are checked against the loader and metric registries, which read the benchmark's
    ``Instance``. Registered here, once, whenever any part of ``evaluator`` is imported (Python runs
    this file before any submodule), so no store can be opened and no benchmark file read before
    they are; as names resolved on first use, so this costs one small module.
    """
    from evaluator import extensions

    extensions.register_component("runs", "evaluator.runs.store:RunStore")
    extensions.register_component("run_reads", "evaluator.runs.reads:RunReads")
    extensions.register_component("read_job", "evaluator.runs.store:read_job")
    extensions.register_component("scenarios", "evaluator.scenarios.store:ScenarioStore")
    extensions.register_component("juries", "evaluator.jury.store:JuryStore")
    extensions.register_component("gradings", "evaluator.grading.store:GradingStore")
    extensions.register_component("attestations", "evaluator.phi.attestation:AttestationStore")
    extensions.register_lookup("loader", "evaluator.loaders:get_loader")
    extensions.register_lookup("metric", "evaluator.scoring.metrics:get_metric")


_wire()
