"""Results of a scenario run, read back from the store, and the Evidence record they make.

Why from the store: a page that reloads, or a CLI call an hour later, must show the same numbers
as the run that produced them, so everything here is computed from ``run_results`` and the
scenario version's cases, never from a runner's in-memory state. The Evidence record is the
run's main metric (overall score, n, interval) with ``subgroups`` filled from the subgroup table,
so acceptance rules can judge disparity; suppressed groups travel without a score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence, evidence_id
from evaluator.runs.runner import main_metric_name
from evaluator.runs.summary import RunSummary, summarize_run
from evaluator.scenarios.run import scenario_spec
from evaluator.scenarios.store import ScenarioVersion
from evaluator.statistics.subgroups import MIN_N, SubgroupTable, subgroup_table

if TYPE_CHECKING:
    from evaluator.storage.components import ComponentStores


class ScenarioResults(BaseModel):
    """One run of one scenario version: its summary and its subgroup table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: ScenarioVersion
    """The scenario version that was run."""
    summary: RunSummary
    """Counts, overall score with interval, tokens and cost (from the stored results)."""
    subgroups: SubgroupTable
    """Per-tag, per-group results with ratios, flags and suppression."""
    n_free_text_unscored: int = 0
    """Answered free-text cases without an automatic score (the generic spec has no text metric)."""
    unscored_note: str | None = None
    """What scores those cases instead (jury, rubric grading, clinician ratings); None when none."""


def unscored_note(n_free_text: int, run_id: str = "RUN") -> str | None:
    """Say plainly what scores a scenario's free-text cases, instead of a silent "0 of n scored".

    A local scenario runs on the generic spec, whose only metric (accuracy) reads an option, a value
    or a range; a free-text answer (a discharge summary, a reply to a patient) has no automatic metric
    here, reference text or not: word overlap with a reference is no evidence of a safe summary.

    Example:
        >>> unscored_note(0) is None, unscored_note(2).split(":")[0]
        (True, '2 free-text case(s) have no automatic score')
    """
    if not n_free_text:
        return None
    return (f"{n_free_text} free-text case(s) have no automatic score: a reference text is not a metric. "
            f"They are scored by an LLM jury (`medassure jury --run {run_id}`, or the jury section of "
            f"Local scenarios), by rubric grading against each case's criteria (`medassure grade --run "
            f"{run_id}`, or Grade with rubric on Local scenarios), or by clinician ratings (a review queue "
            "on Rate outputs, `medassure review create`); attach that score as the evidence.")


def scenario_results(
    stores: ComponentStores,
    run_id: str,
    *,
    min_n: int = MIN_N,
    reference_groups: Mapping[str, str] | None = None,
) -> ScenarioResults:
    """Read a scenario run back: summary and subgroup table.

    Args:
        stores: the component stores (the dossier ``Store`` is one).
        run_id: a run made by ``run_scenario`` or ``record_offline_run``.
        min_n: groups smaller than this are suppressed.
        reference_groups: the reference group of each tag (default: the largest group).

    Raises:
        KeyError: ``run_id`` is not a run of a local scenario, or a reference group names a tag its cases
            do not carry.

    Example:
        >>> r = scenario_results(store, "run-20250101-000000-abc123")  # doctest: +SKIP
        >>> r.subgroups.display_rows()[0]                            # doctest: +SKIP
    """
    scenarios = stores.scenarios
    version = scenarios.version_of_run(run_id)
    if version is None:
        raise KeyError(f"run {run_id!r} is not a run of a local scenario")
    runs = stores.runs
    stored = runs.get_run(run_id) or {}
    totals = json.loads(stored["totals"]) if stored.get("totals") else {}
    summary = summarize_run(
        runs,
        run_id,
        main_metric_name(scenario_spec(version)),
        cache_hits=int(totals.get("cache_hits", 0)),
        new_requests=int(totals.get("new_requests", 0)),
        resumed=bool(totals.get("resumed", False)),
        elapsed_s=float(totals.get("elapsed_s", 0.0)),
    )
    scores = {r["instance_id"]: r["score"] for r in runs.results(run_id) if r["error"] is None}
    instances = scenarios.instances(version.scenario_id, version.version)
    n_free = sum(1 for i in instances if i.answer_type == "free_text" and i.id in scores
                 and scores[i.id] is None)
    table = subgroup_table(
        instances,
        scores,
        min_n=min_n,
        reference_groups=reference_groups,
    )
    unknown = sorted(set(reference_groups or {}) - set(table.references))
    if unknown:
        raise KeyError(
            f"run {run_id!r} has no subgroup tag {unknown[0]!r} to take a reference group of "
            f"(tags: {', '.join(table.references) or 'none'})"
        )
    return ScenarioResults(version=version, summary=summary, subgroups=table, n_free_text_unscored=n_free,
                           unscored_note=unscored_note(n_free, run_id))


def _caveats(results: ScenarioResults, evidence: Evidence) -> str:
    v, table = results.version, results.subgroups
    notes = [evidence.caveat] if evidence.caveat else []
    if v.redaction:
        notes.append(f"cases redacted before the run ({v.redaction.get('summary', 'identifiers replaced')})")
    if table.rows:
        refs = ", ".join(f"{t}={g}" for t, g in table.references.items() if g)
        flagged = [f"{r.tag}={r.group} ({r.ratio:.2f})" for r in table.rows if r.flagged]
        hidden = sum(1 for r in table.rows if r.suppressed)
        notes.append(
            f"subgroup ratios to reference groups {refs or 'none'}; window {table.window[0]}–"
            f"{table.window[1]}; flagged: {', '.join(flagged) or 'none'}; "
            f"{hidden} group(s) suppressed (n < {table.min_n})"
        )
    notes += table.notes
    return "; ".join(notes)


def scenario_evidence(results: ScenarioResults, *, source: str | None = None) -> Evidence:
    """The run's main-metric Evidence with its subgroup scores.

    Args:
        results: from ``scenario_results``.
        source: overrides the citation (e.g. ``"demo data: ..."``); default the run id.

    Raises:
        ValueError: the run has no scored case, so there is no score to cite.
    """
    records = [e for e in results.summary.to_evidence() if e.is_main]
    if not records:
        raise ValueError(f"run {results.summary.run_id} has no scored case; nothing to attach")
    main = records[0]
    v = results.version
    benchmark = f"{v.name} [{v.scenario_id} v{v.version}]"
    cite = source or main.source
    return main.model_copy(
        update={
            "id": evidence_id("local-run", cite, main.model, benchmark, main.metric, main.run_id),
            "benchmark": benchmark,
            "source": cite,
            "subgroups": results.subgroups.to_subgroup_scores(),
            "caveat": _caveats(results, main),
        }
    )
