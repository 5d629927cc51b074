"""An imported Inspect log as one ``Evidence`` record (provenance ``inspect-import``).

Why the interval is recomputed: Inspect reports a mean and a standard error, and a committee's
verdict rests on a 95% interval fitted to the kind of score (``evaluator.statistics.estimates.interval_for``:
Wilson when every per-sample score is 0 or 1, a BCa bootstrap for other means). The log's own
headline metric and stderr travel in the caveat, and a warning shows both figures when the mean
recomputed from the samples differs from the log's (unscored samples, a reducer, a custom metric).

Benchmark naming: an Inspect Evals task whose name matches a MedHELM benchmark (``medqa`` →
MedQA, ``pubmedqa`` → PubMedQA) is filed under it, with the taxonomy's category, when the scales
agree, and the caveat says that the dataset and prompt are Inspect's, not HELM's. Any other task
is filed under its own name, so a committee can set a score rule on it.
"""

from __future__ import annotations

import math
import re

from evaluator.evidence.medhelm import BenchmarkFacts, benchmark_facts
from evaluator.evidence.record import Evidence, evidence_id
from evaluator.importers.inspect_log import InspectRun
from evaluator.statistics.estimates import interval_for

PROVENANCE = "inspect-import"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def medhelm_match(task: str) -> BenchmarkFacts | None:
    """The MedHELM benchmark an Inspect task is named for, if any.

    Example:
        >>> medhelm_match("inspect_evals/medqa").benchmark, medhelm_match("addition")
        ('MedQA', None)
    """
    name = _slug(task.rsplit("/", 1)[-1])
    for facts in benchmark_facts().values():
        if name in (_slug(facts.benchmark), _slug(facts.helm_run_group)):
            return facts
    return None


def scale_of(values: list[float]) -> str | None:
    """``0-1`` or ``1-5`` when every value lies on it, else None.

    Example:
        >>> scale_of([0, 0.5, 1]), scale_of([1, 4.5]), scale_of([7])
        ('0-1', '1-5', None)
    """
    if all(0 <= v <= 1 for v in values):
        return "0-1"
    if all(1 <= v <= 5 for v in values):
        return "1-5"
    return None


def source_of(run: InspectRun) -> str:
    """The citation: log file name, task, task version and the file's SHA-256."""
    name = run.log_file.replace("\\", "/").rsplit("/", 1)[-1]
    return f"Inspect log {name} (task {run.task}, version {run.task_version}, SHA-256 {run.sha256})"


def inspect_run_evidence(run: InspectRun) -> Evidence:
    """The run's main-scorer mean with n, a 95% interval fitted to its kind, and provenance.

    Raises:
        ValueError: no sample has a score, or the scores lie on no scale MedAssure knows.
    """
    values = list(run.sample_scores.values())
    if not values:
        raise ValueError(f"{run.log_file}: no sample has a {run.main_scorer!r} score; see its warnings")
    scale = scale_of(values)
    if scale is None:
        raise ValueError(f"{run.log_file}: {run.main_scorer!r} scores run from {min(values):g} to "
                         f"{max(values):g}, outside 0-1 and 1-5; MedAssure cannot compare them with a bar")
    interval = interval_for(values, "mean" if scale == "1-5" else "auto")
    notes = list(run.warnings)
    headline = run.log_metric
    if headline is not None:
        stderr = run.log_stderr
        notes.append(f"the log's own {headline[0]} is {headline[1]:.4f}"
                     + (f" (stderr {stderr:.4f})" if stderr is not None else ""))
        if not math.isclose(headline[1], interval.estimate, rel_tol=1e-9, abs_tol=1e-9):
            notes.append(f"the evidence cites {interval.estimate:.4f}, the mean of the {len(values)} scored "
                         f"sample(s), not the log's {headline[0]}")
    if run.unscored_reasons:
        notes.append(f"{len(run.unscored_reasons)} sample(s) unscored: "
                     + "; ".join(f"{k}: {v}" for k, v in sorted(run.unscored_reasons.items())[:3]))
    if run.epochs > 1:
        notes.append(f"{run.epochs} epochs: each sample's score is its mean over epochs")
    facts = medhelm_match(run.task)
    if facts is not None and facts.scale != scale:
        notes.append(f"task named like MedHELM's {facts.benchmark} but scored on {scale}, not {facts.scale}: "
                     "filed under the task's own name")
        facts = None
    if facts is not None:
        notes.append(f"filed under MedHELM's {facts.benchmark} by task name; the dataset, prompt and scorer "
                     "are Inspect's, not HELM's")
    benchmark = facts.benchmark if facts else run.task
    source = source_of(run)
    return Evidence(
        id=evidence_id(PROVENANCE, source, run.model, benchmark, run.main_scorer, run.eval_id),
        model=run.model, benchmark=benchmark, metric=run.main_scorer, score=interval.estimate, scale=scale,
        n=len(values), ci_lower=interval.lower, ci_upper=interval.upper, ci_method=interval.method,
        ci_missing_reason=interval.missing_reason, provenance=PROVENANCE, source=source, date=run.date,
        run_id=run.eval_id, n_unscored=len(run.unscored_reasons),
        category=facts.category if facts else None, subcategory=facts.subcategory if facts else None,
        caveat="; ".join(notes),
    )
