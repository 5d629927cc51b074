"""Preview a HELM run folder before attaching it, and drill into an imported run's instances.

Why a preview: importing is all or nothing (``evaluator.importers.helm``), and a committee should
see what a folder holds (benchmark, model, main metric, n, interval, warnings) before any of it
enters the dossier. A run that maps to no MedHELM benchmark, or lacks its main stat, is shown
with the reason it cannot be attached instead of being dropped; instances left unscored (a jury
value outside its scale) are listed with their reasons, and a headline mean that the per-instance
values do not reproduce is shown beside the recomputed one. The drill-down reads the run
folder again (the dossier keeps only the ``Evidence`` record, which names the folder), so it
works for attached runs as long as the folder is still there, and says so when it is not.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from evaluator.importers import HelmImportError, HelmRun, helm_run_evidence, load_helm_runs

SOURCE_PREFIX = "HELM run folder "


class InstanceRow(BaseModel):
    """One request of an imported run: what was asked, what came back, how it scored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance_id: str
    """HELM instance id."""
    trial: int
    """Train trial index."""
    input_text: str
    """The instance input."""
    prompt: str
    """The full prompt sent to the model."""
    completion: str
    """The first completion (empty when the request failed)."""
    references: str
    """Correct references, joined with `` | ``."""
    score: float | None
    """Main-metric value of this request (None when unmapped or unscored)."""
    note: str = ""
    """Perturbed copy, failed request, or empty."""


class RunPreview(BaseModel):
    """One run of a folder as it would be attached."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_name: str
    """HELM run name."""
    model: str
    """HELM model name."""
    benchmark: str
    """MedHELM benchmark, or ``unmapped``."""
    metric: str | None
    """Main metric (None when unmapped)."""
    mean: float | None
    """Main-metric mean as in ``stats.json`` (the headline)."""
    recomputed_mean: float | None = None
    """The same mean recomputed from ``per_instance_stats.json`` (all values, HELM's arithmetic)."""
    score: float | None = None
    """The mean the evidence cites (the headline, or the scored instances' mean when checks disagree)."""
    score_basis: str = ""
    """Which of the two ``score`` is, in words."""
    scale: str | None
    """Scale of the mean (``0-1``, or ``1-5`` for the jury; None when unmapped)."""
    n: int
    """Instances scored."""
    n_unscored: int
    """Evaluated instances without a score."""
    unscored: list[str] = []
    """``instance id: reason`` for each instance the importer left unscored."""
    interval: str
    """Bootstrap 95% interval as text, or ``none``."""
    interval_basis: str
    """The interval's method, or the reason there is none."""
    warnings: list[str]
    """What the importer could not map or check."""
    evidence: Evidence | None
    """The record to attach, or None when the run cannot become evidence."""
    not_attachable: str = ""
    """Why the run cannot be attached (empty when it can)."""
    instances: list[InstanceRow]
    """Every request, for drill-down."""


class HelmImportPreview(BaseModel):
    """What a folder holds, or every reason it could not be read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    """The folder as given."""
    runs: list[RunPreview]
    """Runs found (empty when there are errors)."""
    errors: list[str]
    """Per-file errors; nothing is imported when there are any."""


def instance_rows(run: HelmRun) -> list[InstanceRow]:
    """The run's requests as drill-down rows, in file order."""
    rows = []
    for r in run.requests:
        why = run.unscored_reasons.get(r.instance_id, "") if not r.perturbed else ""
        note = "; ".join(x for x in ("perturbed copy" if r.perturbed else "",
                                     f"request failed: {r.error}" if not r.success else "",
                                     f"unscored: {why}" if why else "") if x)
        rows.append(InstanceRow(instance_id=r.instance_id, trial=r.train_trial_index, input_text=r.input_text,
                                prompt=r.prompt, completion=r.completions[0] if r.completions else "",
                                references=" | ".join(r.correct_references), score=r.score, note=note))
    return rows


def _preview(run: HelmRun) -> RunPreview:
    try:
        evidence, reason = helm_run_evidence(run), ""
    except ValueError as exc:
        evidence, reason = None, str(exc)
    if run.ci_lower is not None:
        interval, basis = f"{run.ci_lower:.3f}–{run.ci_upper:.3f}", run.ci_method or ""
    else:
        basis = ("no per-instance main-metric scores (run unmapped)" if run.main_metric is None
                 else run.ci_missing_reason or "no per-instance scores for the main metric")
        interval = "none"
    return RunPreview(run_name=run.run_name, model=run.model, benchmark=run.benchmark, metric=run.main_metric,
                      mean=run.mean, recomputed_mean=run.recomputed_mean, score=run.score,
                      score_basis=run.score_basis, scale=run.scale, n=run.n, n_unscored=run.n_unscored,
                      unscored=[f"{iid}: {why}" for iid, why in sorted(run.unscored_reasons.items())],
                      interval=interval, interval_basis=basis, warnings=run.warnings, evidence=evidence,
                      not_attachable=reason, instances=instance_rows(run))


def preview_helm_import(path: str) -> HelmImportPreview:
    """Read a suite folder or one run folder; never raises for a bad folder.

    Example:
        >>> preview_helm_import("/nonexistent").errors
        ['/nonexistent: no such folder']
    """
    try:
        runs = load_helm_runs(Path(path.strip()).expanduser())
    except HelmImportError as exc:
        return HelmImportPreview(path=path, runs=[], errors=[str(e) for e in exc.errors])
    return HelmImportPreview(path=path, runs=[_preview(r) for r in runs], errors=[])


def attached_run_instances(evidence: Evidence) -> tuple[list[InstanceRow], str]:
    """Drill-down rows for an attached ``helm-import`` record, read again from its folder.

    Returns:
        The rows and an empty string, or no rows and the reason (not an import, folder gone,
        folder changed so the run is no longer there).
    """
    if evidence.provenance != "helm-import" or not evidence.source.startswith(SOURCE_PREFIX):
        return [], f"{evidence.provenance} evidence has no HELM run folder to drill into"
    folder = evidence.source.removeprefix(SOURCE_PREFIX)
    try:
        runs = load_helm_runs(folder)
    except HelmImportError as exc:
        return [], f"the run folder can no longer be read: {exc.errors[0]}"
    run = next((r for r in runs if r.run_name == evidence.run_id), None)
    if run is None:
        return [], f"run {evidence.run_id!r} is no longer in {folder}"
    return instance_rows(run), ""
