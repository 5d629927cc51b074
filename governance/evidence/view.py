"""What the Evidence page shows for one dossier, computed in one call.

Why one view model: the page must only render, and every number it renders must come with its n
and its interval (or the reason there is none). ``evidence_view`` therefore restricts MedHELM's
published results to the benchmarks of the dossier's accepted subcategories, computes the
statistics MedHELM itself uses (HELM mean win rate; plain means per taxonomy group) over
exactly those benchmarks, groups models whose intervals overlap, and says next to each figure
how it was computed. Group means are taken over shares of correct answers only: MedHELM's
heatmap also averages jury means as (x − 1)/4 with them, but a mean across scales is not a
quantity a committee can hold a model to, so jury means and mean F1 stay per benchmark.
Candidate models from the intended use are matched to published names by
``governance.mapping.model_names``; the page's filter starts from those matches.

Win rates are computed against all published models (the field MedHELM compared), then shown
for the selected models only, so adding a model to the filter does not change another model's
win rate. Tie groups are formed among the selected models, per benchmark.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict

from evaluator.evidence.medhelm import published_scores
from evaluator.evidence.record import Evidence, published_evidence
from evaluator.statistics.estimates import group_means, mean_win_rate, tie_groups
from governance.dossier.record import Dossier
from governance.evidence.attach import mapped_benchmarks
from governance.evidence.coverage import CoverageRow, coverage_map
from governance.evidence.select import is_share
from governance.mapping.model_names import CandidateMatch, match_candidates
from governance.mapping.taxonomy import AccessTier

WIN_RATE_METHOD = ("HELM mean win rate over the mapped benchmarks, against all published MedHELM "
                   "models: per benchmark, (models strictly worse + half the other models tied) / "
                   "(models − 1), averaged over the benchmarks a model has")
WIN_RATE_NO_CI = ("No interval: a rank statistic over published point scores; MedHELM publishes no "
                  "per-instance results to resample. See the tie groups per benchmark.")
GROUP_MEAN_METHOD = ("Plain mean of the shares of correct answers (exact match, accuracy) over the "
                     "proportion benchmarks of each group. Jury means (1-5) and mean F1 are on other "
                     "scales and are not averaged in, unlike MedHELM's category heatmap, which maps jury "
                     "means to (x − 1)/4 and mixes them; see them per benchmark above. No interval: "
                     "MedHELM publishes no per-instance values")


class ScoreRow(BaseModel):
    """One evidence record ready to show: the record, its interval as text, its status here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    evidence: Evidence
    """The record itself (n, interval, provenance, source)."""
    access: AccessTier | None
    """Access tier of the benchmark in the taxonomy (None for benchmarks outside it)."""
    interval: str
    """The 95% interval on the score's own scale, e.g. ``0.612–0.701``, or ``none``."""
    interval_basis: str
    """The interval's method, or the reason there is none."""
    attached: bool
    """Whether this record is attached to the dossier."""


class WinRateRow(BaseModel):
    """One model's mean win rate over the mapped benchmarks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """Published model name."""
    candidate: str | None
    """The candidate name in the intended use that matched this model, if any."""
    mean_win_rate: float
    """HELM mean win rate (0-1, higher is better)."""
    n_benchmarks: int
    """Benchmarks the mean is over."""
    n_models: int
    """Published models it was compared against (including itself)."""


class BenchmarkTies(BaseModel):
    """Models that cannot be told apart on one benchmark, best group first."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    benchmark: str
    """Benchmark name."""
    metric: str
    """Metric the groups are about."""
    groups: list[list[str]] | None
    """Tie groups (overlapping 95% intervals), or None when intervals are missing."""
    reason: str = ""
    """Why there are no groups (empty when there are)."""

    @property
    def text(self) -> str:
        """``{A, B} > {C}``, or the reason."""
        if self.groups is None:
            return f"not grouped: {self.reason}"
        return " > ".join("{" + ", ".join(g) + "}" for g in self.groups)


class GroupMeanRow(BaseModel):
    """Mean share correct of one model over the mapped proportion benchmarks of one taxonomy group."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """Published model name."""
    level: Literal["category", "subcategory"]
    """Taxonomy level of ``group``."""
    group: str
    """Category or subcategory name."""
    mean_normalized: float
    """Plain mean of the shares of correct answers (0-1); the name is kept for the JSON contract."""
    n_benchmarks: int
    """Proportion benchmarks in the mean."""


class EvidenceView(BaseModel):
    """Everything the Evidence page renders for one dossier and one model selection."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dossier_id: str
    """The dossier shown."""
    mapped_benchmarks: list[str]
    """Benchmarks of the accepted subcategories."""
    coverage: list[CoverageRow]
    """One row per accepted subcategory."""
    candidates: list[CandidateMatch]
    """Candidate models of the intended use and their published names."""
    published_models: list[str]
    """All models MedHELM published (the filter's options)."""
    default_models: list[str]
    """Matched candidates (all published models when none match)."""
    models: list[str]
    """Models shown."""
    scores: list[ScoreRow]
    """Published scores of the shown models on the mapped benchmarks."""
    win_rates: list[WinRateRow]
    """Mean win rates of the shown models, best first."""
    ties: list[BenchmarkTies]
    """Tie groups per mapped benchmark among the shown models."""
    group_means: list[GroupMeanRow]
    """Per-category and per-subcategory mean shares correct of the shown models (proportions only)."""
    attached: list[ScoreRow]
    """Evidence attached to the dossier (any provenance)."""
    win_rate_method: str = WIN_RATE_METHOD
    """How win rates are computed."""
    win_rate_no_interval: str = WIN_RATE_NO_CI
    """Why win rates have no interval."""
    group_mean_method: str = GROUP_MEAN_METHOD
    """How group means are computed and why they have no interval."""


def score_row(ev: Evidence, attached: bool, access: AccessTier | None = None) -> ScoreRow:
    """Wrap a record with its interval written out.

    Example:
        >>> ev = published_evidence(["MedQA"], ["DeepSeek R1"])[0]
        >>> score_row(ev, attached=False).interval
        '0.834–0.877'
    """
    if ev.has_interval:
        interval, basis = f"{ev.ci_lower:.3f}–{ev.ci_upper:.3f}", ev.ci_method or ""
    else:
        interval, basis = "none", ev.ci_missing_reason or ""
    return ScoreRow(evidence=ev, access=access, interval=interval, interval_basis=basis, attached=attached)


def _default_models(candidates: list[CandidateMatch], published: list[str]) -> list[str]:
    matched = list(dict.fromkeys(m.published for m in candidates if m.published))
    return matched or list(published)


def _win_rates(benchmarks: list[str], models: list[str],
               candidates: list[CandidateMatch]) -> list[WinRateRow]:
    scores = published_scores()
    scores = scores[scores["benchmark"].isin(benchmarks)]
    table = mean_win_rate(scores[["model", "benchmark", "score", "lower_is_better"]])
    by_model = {m.published: m.candidate for m in candidates if m.published}
    n_models = scores["model"].nunique()
    return [WinRateRow(model=r.model, candidate=by_model.get(r.model), mean_win_rate=float(r.mean_win_rate),
                       n_benchmarks=int(r.n_columns), n_models=n_models)
            for r in table.itertuples() if r.model in models]


def _ties(evidence: list[Evidence], benchmarks: list[str]) -> list[BenchmarkTies]:
    out = []
    for bench in benchmarks:
        rows = [e for e in evidence if e.benchmark == bench]
        if not rows:
            continue
        missing = next((e for e in rows if not e.has_interval), None)
        if missing is not None:
            out.append(BenchmarkTies(benchmark=bench, metric=rows[0].metric, groups=None,
                                     reason=missing.ci_missing_reason or "no interval"))
            continue
        frame = pd.DataFrame({"model": [e.model for e in rows], "estimate": [e.score for e in rows],
                              "lower": [e.ci_lower for e in rows], "upper": [e.ci_upper for e in rows]})
        out.append(BenchmarkTies(benchmark=bench, metric=rows[0].metric,
                                 groups=tie_groups(frame, higher_is_better=rows[0].higher_is_better)))
    return out


def _group_means(evidence: list[Evidence]) -> list[GroupMeanRow]:
    evidence = [e for e in evidence if is_share(e)]
    if not evidence:
        return []
    frame = pd.DataFrame([{"model": e.model, "score": e.score, "scale": e.scale, "category": e.category,
                           "subcategory": e.subcategory} for e in evidence])
    rows = []
    for level in ("category", "subcategory"):
        for r in group_means(frame, level=level).itertuples():
            rows.append(GroupMeanRow(model=r.model, level=level, group=getattr(r, level),
                                     mean_normalized=float(r.mean_normalized),
                                     n_benchmarks=int(r.n_benchmarks)))
    return rows


def evidence_view(dossier: Dossier, models: list[str] | None = None) -> EvidenceView:
    """Build the Evidence page's view of a dossier.

    Args:
        dossier: the dossier (its accepted subcategories, candidate models, attached evidence).
        models: published model names to show; None shows the matched candidates (or all
            published models when no candidate matches).

    Raises:
        ValueError: a requested model is not a published MedHELM model.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> d = d.model_copy(update={"mapping": d.mapping.decide(
        ...     "providing_patient_education_resources", "accepted", by="me")})
        >>> view = evidence_view(d)
        >>> view.mapped_benchmarks, len(view.scores), [t.groups for t in view.ties], view.group_means
        (['MedicationQA'], 3, [None], [])
    """
    benchmarks = mapped_benchmarks(dossier)
    names = [b.name for b in benchmarks]
    access = {b.name: b.access for b in benchmarks}
    published = sorted(published_scores()["model"].unique())
    candidates = match_candidates(dossier.intended_use.candidate_models, published)
    default = _default_models(candidates, published)
    shown = default if models is None else list(models)
    unknown = sorted(set(shown) - set(published))
    if unknown:
        raise ValueError(f"not published MedHELM models: {unknown}; published: {published}")
    evidence = published_evidence(names, shown) if names and shown else []
    evidence.sort(key=lambda e: (names.index(e.benchmark), shown.index(e.model)))
    attached_ids = {e.id for e in dossier.evidence}
    return EvidenceView(
        dossier_id=dossier.id, mapped_benchmarks=names, coverage=coverage_map(dossier),
        candidates=candidates, published_models=published, default_models=default, models=shown,
        scores=[score_row(e, e.id in attached_ids, access.get(e.benchmark)) for e in evidence],
        win_rates=_win_rates(names, shown, candidates) if names else [],
        ties=_ties(evidence, names), group_means=_group_means(evidence),
        attached=[score_row(e, True, access.get(e.benchmark)) for e in dossier.evidence],
    )
