"""Local scenarios: a hospital's own cases, imported from CSV/XLSX/JSONL, validated, PHI-scanned,
versioned in the app's DuckDB file and run like any benchmark.

Modules, in the order an upload passes through them: ``table`` (read the bytes), ``columns``
(which column is which field), ``validate`` (row-level rules), ``importer`` (preview, store,
redact), ``store`` (versions), ``run`` (PHI gate and run), ``results`` (subgroup table and
Evidence). Dossier linkage (subcategories, attaching evidence) lives in
``governance.scenarios.operations.local``.
"""

from evaluator.scenarios.columns import (
    FIELDS,
    ColumnMapping,
    MappingError,
    build_mapping,
    parse_map_args,
    suggest_column_mapping,
)
from evaluator.scenarios.importer import (
    ImportPreview,
    import_scenario,
    preview_import,
    preview_table,
    redact_version,
    store_preview,
)
from evaluator.scenarios.issues import ImportIssue, ImportRejected
from evaluator.scenarios.results import ScenarioResults, scenario_evidence, scenario_results
from evaluator.scenarios.run import (
    ScenarioRunBlocked,
    phi_gate,
    record_offline_run,
    run_scenario,
    scenario_spec,
)
from evaluator.scenarios.store import ScenarioStore, ScenarioVersion
from evaluator.scenarios.table import DEFAULT_MAX_BYTES, read_table, read_table_file
from evaluator.scenarios.template import RUBRIC_TEMPLATES, rubric_template

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FIELDS",
    "ColumnMapping",
    "ImportIssue",
    "ImportPreview",
    "ImportRejected",
    "MappingError",
    "RUBRIC_TEMPLATES",
    "ScenarioResults",
    "ScenarioRunBlocked",
    "ScenarioStore",
    "ScenarioVersion",
    "build_mapping",
    "import_scenario",
    "parse_map_args",
    "phi_gate",
    "preview_import",
    "preview_table",
    "read_table",
    "read_table_file",
    "record_offline_run",
    "redact_version",
    "rubric_template",
    "run_scenario",
    "scenario_evidence",
    "scenario_results",
    "scenario_spec",
    "store_preview",
    "suggest_column_mapping",
]
