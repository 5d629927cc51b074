"""Import HELM run folders (``benchmark_output/runs/<suite>/``) as MedAssure evidence.

Hospitals run HELM/MedHELM themselves; this turns their output into ``HelmRun`` objects (the
headline score exactly as HELM's ``stats.json`` has it, recomputed from the per-instance stats as
a check, with the interval a local run of the same scores gets, token counts and every prompt and
completion for drill-down) and from there into ``Evidence`` with provenance ``helm-import``.

Import is all or nothing: every run folder is parsed before anything is returned, and any
missing or malformed file raises ``HelmImportError`` listing each bad file and why. A run group
MedHELM does not define imports as ``unmapped``: every stat is kept, none is called main, and a
warning says so.

Two checks keep a silent bad number out of the evidence. A per-instance main value outside the
metric's scale (HELM's jury writes 0.0 on a 1-5 scale when an annotation fails) is *unscored*
with its reason, never averaged in. And the headline mean of ``stats.json`` is compared with the
mean recomputed from ``per_instance_stats.json``: when they differ, or when instances were
unscored, a warning shows both figures and the evidence cites the mean of the scored instances
(the one its interval rests on) instead of the headline.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

from pydantic import AwareDatetime, BaseModel, ConfigDict

from evaluator.evidence.medhelm import BenchmarkFacts, facts_by_run_group
from evaluator.evidence.record import Evidence, evidence_id
from evaluator.importers.helm_format import (
    HelmFileError,
    HelmStat,
    PerInstanceStats,
    RunSpec,
    ScenarioState,
    read_helm_json,
    recompute_means,
)
from evaluator.statistics.estimates import JURY_SCALE, interval_for

UNMAPPED = "unmapped"
SCALE_BOUNDS = {"0-1": (0.0, 1.0), "1-5": (1.0, 5.0)}
FAILED_JURY_NOTE = "HELM writes 0.0 when a jury annotation fails"
N_RESAMPLES, SEED = 2000, 0
RUN_FILES = ("run_spec.json", "stats.json", "per_instance_stats.json", "scenario_state.json")
SHAPES = (RunSpec, list[HelmStat], list[PerInstanceStats], ScenarioState)


class HelmImportError(ValueError):
    """One or more run folders could not be imported; nothing was imported."""

    def __init__(self, errors: list[HelmFileError]):
        self.errors = errors
        super().__init__("HELM import failed, nothing imported:\n" + "\n".join(f"  {e}" for e in errors))


class HelmRequest(BaseModel):
    """One prompt and its completions, for drill-down."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    instance_id: str
    """HELM instance id."""
    train_trial_index: int
    """Which train trial."""
    split: str | None
    """Instance split."""
    perturbed: bool
    """Whether this is a perturbed copy of the instance."""
    input_text: str
    """The instance input."""
    references: list[str]
    """Reference outputs."""
    correct_references: list[str]
    """References tagged ``correct``."""
    prompt: str
    """Full prompt sent."""
    completions: list[str]
    """Completion texts."""
    success: bool
    """Whether the request succeeded."""
    error: str | None
    """Error message of a failed request."""
    score: float | None
    """This request's main-metric value (None if unmapped or unscored)."""


class HelmRun(BaseModel):
    """One HELM run (model × run group) as imported."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    run_name: str
    """HELM run name from ``run_spec.json``."""
    run_dir: str
    """Folder the run was read from."""
    model: str
    """HELM model name."""
    model_deployment: str | None
    """HELM deployment name."""
    run_groups: list[str]
    """Run groups from ``run_spec.json``."""
    helm_run_group: str | None
    """The run group that mapped to a MedHELM benchmark (None if unmapped)."""
    benchmark: str
    """MedHELM benchmark name, or ``unmapped``."""
    main_metric: str | None
    """Main stat name (None if unmapped)."""
    main_split: str | None
    """Split of the main stat (None if unmapped)."""
    scale: str | None
    """Scale of the main metric (``0-1`` or ``1-5``; None if unmapped)."""
    higher_is_better: bool
    """Direction of the main metric."""
    mean: float | None
    """Main-metric mean exactly as in ``stats.json`` (None if unmapped or absent)."""
    recomputed_mean: float | None
    """The same mean recomputed from ``per_instance_stats.json`` with HELM's arithmetic (all values)."""
    scored_mean: float | None = None
    """Mean of ``instance_scores`` (in-scale instances only): what the interval rests on."""
    score: float | None = None
    """The mean the evidence cites: the headline, or ``scored_mean`` when the two checks disagree."""
    score_basis: str = ""
    """Which of the two ``score`` is, in words."""
    unscored_reasons: dict[str, str] = {}
    """Instance id → why it has no score (e.g. a jury value outside the scale)."""
    n: int
    """Instances scored on the main metric (unmapped: distinct evaluated instances)."""
    n_unscored: int
    """Evaluated instances of the main split without a main-metric value."""
    ci_lower: float | None
    """Lower bound of the 95% interval of the mean of per-instance scores (the policy of local runs:
    ``evaluator.statistics.estimates.interval_for``)."""
    ci_upper: float | None
    """Upper bound of that interval."""
    ci_method: str | None
    """How the interval was computed, with the small-n note where it applies."""
    ci_missing_reason: str | None = None
    """Why there is no interval (no per-instance scores, one value, no spread)."""
    instance_scores: dict[str, float]
    """Per-instance main-metric value (mean over train trials)."""
    prompt_tokens: float
    """Sum of ``num_prompt_tokens`` over unperturbed requests."""
    output_tokens: float
    """Sum of ``num_output_tokens`` over unperturbed requests."""
    stats: list[HelmStat]
    """Every stat of ``stats.json``, kept as HELM wrote it."""
    requests: list[HelmRequest]
    """Every request for drill-down."""
    date: AwareDatetime
    """Latest request time, else the time ``stats.json`` was written."""
    warnings: list[str]
    """What the importer could not map or check."""


def find_run_dirs(path: Path) -> list[Path]:
    """The run folder itself, or the run folders of a suite folder (sorted)."""
    if (path / "run_spec.json").exists():
        return [path]
    if not path.is_dir():
        raise HelmImportError([HelmFileError(path, "no such folder")])
    runs = sorted(p for p in path.iterdir() if p.is_dir() and any((p / f).exists() for f in RUN_FILES))
    if not runs:
        raise HelmImportError([HelmFileError(path, "no HELM run folders (with run_spec.json) found; pass "
                                              "benchmark_output/runs/<suite> or one run folder")])
    return runs


def load_helm_runs(path: Path | str) -> list[HelmRun]:
    """Import a suite folder or a single run folder; all runs or none.

    Raises:
        HelmImportError: listing every missing or malformed file.

    Example:
        >>> load_helm_runs("/nonexistent")
        Traceback (most recent call last):
        ...
        evaluator.importers.helm.HelmImportError: HELM import failed, nothing imported:
          /nonexistent: no such folder
    """
    runs, errors = [], []
    for run_dir in find_run_dirs(Path(path)):
        parsed = {}
        for name, shape in zip(RUN_FILES, SHAPES, strict=True):
            try:
                parsed[name] = read_helm_json(run_dir / name, shape)
            except HelmFileError as exc:
                errors.append(exc)
        if len(parsed) == len(RUN_FILES):
            runs.append(_build_run(run_dir, *parsed.values()))
    if errors:
        raise HelmImportError(errors)
    return runs


def _build_run(run_dir: Path, spec: RunSpec, stats: list[HelmStat], per_instance: list[PerInstanceStats],
               state: ScenarioState) -> HelmRun:
    facts, warnings = _map_run_group(spec)
    recomputed = recompute_means(per_instance)
    main_key = (facts.main_metric, facts.main_split, None, None) if facts else None
    mean = _main_mean(stats, main_key, run_dir, warnings)
    scores, by_request, unscored = _instance_scores(per_instance, main_key, facts.scale if facts else None)
    recomputed_mean = recomputed.get(main_key) if main_key else None
    scored_mean = sum(scores.values()) / len(scores) if scores else None
    score, basis = _checked_score(mean, recomputed_mean, scored_mean, unscored, len(scores), warnings)
    evaluated = {r.instance.id for r in state.request_states
                 if r.instance.perturbation is None and (not facts or r.instance.split == facts.main_split)}
    # One interval policy for every source: the one local runs use (Wilson for 0/1, BCa else, small-n
    # note); a 1-5 jury score is a mean even when every value happens to be 1.
    kind = "mean" if facts is not None and facts.scale == JURY_SCALE else "auto"
    ci = interval_for(list(scores.values()), kind, seed=SEED, n_resamples=N_RESAMPLES) if scores else None
    date, date_note = _run_date(state, run_dir)
    warnings += [date_note] if date_note else []
    return HelmRun(
        run_name=spec.name, run_dir=str(run_dir), model=spec.adapter_spec.model,
        model_deployment=spec.adapter_spec.model_deployment, run_groups=spec.groups,
        helm_run_group=facts.helm_run_group if facts else None,
        benchmark=facts.benchmark if facts else UNMAPPED,
        main_metric=facts.main_metric if facts else None, main_split=facts.main_split if facts else None,
        scale=facts.scale if facts else None, higher_is_better=not facts.lower_is_better if facts else True,
        mean=mean, recomputed_mean=recomputed_mean, scored_mean=scored_mean, score=score, score_basis=basis,
        unscored_reasons=unscored,
        n=len(scores) if facts else len(evaluated), n_unscored=len(evaluated - set(scores)) if facts else 0,
        ci_lower=ci.lower if ci else None, ci_upper=ci.upper if ci else None,
        ci_method=ci.method if ci else None,
        ci_missing_reason=ci.missing_reason if ci else "no per-instance scores",
        instance_scores=scores,
        prompt_tokens=_token_sum(per_instance, "num_prompt_tokens"),
        output_tokens=_token_sum(per_instance, "num_output_tokens"),
        stats=stats, requests=[_request(r, by_request) for r in state.request_states],
        date=date, warnings=warnings,
    )


def _map_run_group(spec: RunSpec) -> tuple[BenchmarkFacts | None, list[str]]:
    head = spec.name.split(":", 1)[0]
    candidates = [*spec.groups, head, head.split(",", 1)[0]]
    known = facts_by_run_group()
    for group in candidates:
        if group in known:
            return known[group], []
    return None, [f"run group(s) {sorted(set(candidates))} map to no MedHELM benchmark: imported as "
                  f"'{UNMAPPED}'; all stats kept, none marked main"]


def _main_mean(stats: list[HelmStat], key, run_dir: Path, warnings: list[str]) -> float | None:
    if key is None:
        return None
    found = [s for s in stats if s.key == key]
    if not found or found[0].mean is None:
        warnings.append(f"{run_dir / 'stats.json'}: no unperturbed '{key[0]}' on split '{key[1]}'")
        return None
    return found[0].mean


def _instance_scores(per_instance: list[PerInstanceStats], key, scale: str | None):
    """Per-instance main values (mean over trials), per (instance, trial) values, and unscored reasons.

    An instance with any trial value outside the scale is unscored as a whole (its requests get
    no score), with the value and the reason.
    """
    by_request: dict[tuple[str, int], float] = {}
    unscored: dict[str, str] = {}
    if key is None:
        return {}, by_request, unscored
    low, high = SCALE_BOUNDS.get(scale or "", (-math.inf, math.inf))
    for row in per_instance:
        for stat in row.stats:
            if row.perturbation is None and stat.key == key and stat.count > 0:
                value = stat.sum / stat.count
                if low <= value <= high:
                    by_request[(row.instance_id, row.train_trial_index)] = value
                elif row.instance_id not in unscored:
                    note = f" ({FAILED_JURY_NOTE})" if scale == "1-5" and value == 0 else ""
                    where = f"{key[0]} = {value:g} in trial {row.train_trial_index}"
                    unscored[row.instance_id] = f"{where} is outside the {scale} scale{note}"
    by_request = {k: v for k, v in by_request.items() if k[0] not in unscored}
    grouped: dict[str, list[float]] = {}
    for (iid, _), v in by_request.items():
        grouped.setdefault(iid, []).append(v)
    return {iid: sum(v) / len(v) for iid, v in grouped.items()}, by_request, unscored


def _checked_score(mean: float | None, recomputed: float | None, scored: float | None,
                   unscored: dict[str, str], n_scored: int, warnings: list[str]) -> tuple[float | None, str]:
    """The mean to cite and its basis; warns (showing every figure) when the checks disagree."""
    if unscored:
        listed = ", ".join(sorted(unscored)[:5]) + (" …" if len(unscored) > 5 else "")
        warnings.append(f"{len(unscored)} instance(s) with a main value outside the scale are unscored, not "
                        f"counted as scores ({listed}); {next(iter(unscored.values()))}")
    agrees = (mean is None or recomputed is None
              or math.isclose(mean, recomputed, rel_tol=1e-9, abs_tol=1e-9))
    if not agrees:
        warnings.append(f"stats.json's headline mean {mean:.4f} differs from {recomputed:.4f} recomputed "
                        "from per_instance_stats.json")
    if mean is None or (agrees and not unscored) or scored is None:
        return mean, "stats.json headline mean" if mean is not None else ""
    headline = f"stats.json headline {mean:.4f}"
    warnings.append(f"the evidence cites {scored:.4f}, the mean of the {n_scored} scored instance(s), "
                    f"not the {headline}")
    return scored, f"mean of the {n_scored} scored per-instance values (not the {headline})"


def _token_sum(per_instance: list[PerInstanceStats], name: str) -> float:
    return sum(s.sum for r in per_instance if r.perturbation is None
               for s in r.stats if s.name.name == name and s.name.perturbation is None)


def _run_date(state: ScenarioState, run_dir: Path) -> tuple[datetime, str | None]:
    stamps = [r.result.request_datetime for r in state.request_states
              if r.result and r.result.request_datetime]
    if stamps:
        return datetime.fromtimestamp(max(stamps), tz=UTC), None
    mtime = (run_dir / "stats.json").stat().st_mtime
    note = "no request_datetime in scenario_state.json: date is stats.json's file time"
    return datetime.fromtimestamp(mtime, tz=UTC), note


def _request(r, by_request) -> HelmRequest:
    inst, res = r.instance, r.result
    return HelmRequest(
        instance_id=inst.id or "", train_trial_index=r.train_trial_index, split=inst.split,
        perturbed=inst.perturbation is not None, input_text=inst.input.text,
        references=[ref.output.text for ref in inst.references],
        correct_references=[ref.output.text for ref in inst.references if "correct" in ref.tags],
        prompt=r.request.prompt, completions=[c.text for c in res.completions] if res else [],
        success=bool(res and res.success), error=res.error if res else "no result",
        score=None if inst.perturbation else by_request.get((inst.id, r.train_trial_index)),
    )


def helm_run_evidence(run: HelmRun) -> Evidence:
    """The run's main score as ``Evidence`` (provenance ``helm-import``).

    Raises:
        ValueError: the run is unmapped or has no main-metric mean.
    """
    if run.benchmark == UNMAPPED or run.score is None or run.main_metric is None:
        raise ValueError(f"run {run.run_name!r} has no main metric to cite ({run.benchmark}); "
                         "see its warnings")
    facts = facts_by_run_group()[run.helm_run_group]
    source = f"HELM run folder {run.run_dir}"
    return Evidence(
        id=evidence_id("helm-import", source, run.model, run.benchmark, run.main_metric, run.run_name),
        model=run.model, benchmark=run.benchmark, metric=run.main_metric, score=run.score, scale=run.scale,
        higher_is_better=run.higher_is_better, n=run.n, ci_lower=run.ci_lower, ci_upper=run.ci_upper,
        ci_method=run.ci_method,
        ci_missing_reason=None if run.ci_method else (run.ci_missing_reason or "no per-instance scores"),
        provenance="helm-import", source=source, date=run.date, run_id=run.run_name,
        n_unscored=run.n_unscored, category=facts.category, subcategory=facts.subcategory,
        caveat="; ".join(run.warnings),
    )
