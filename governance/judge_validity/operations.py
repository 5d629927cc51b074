"""Judge validity for a dossier: measure jury-clinician agreement and decide whether jury scores count.

Why here and shaped so: the Judge validity page and the CLI must show the same figures and write
the same record, so both call these functions. The analysis itself is ``evaluator.agreement.analysis``;
this module adds what belongs to the committee: picking a stored jury as the jury side, the
sample-size hint, turning one agreement row into the dossier's ``JudgeAgreementSetting`` (what
the judge-agreement rule reads: the single-measure ICC(A,1), with MedHELM's ICC(3,k) z kept beside
it for comparison only), and the minimum agreement itself, which is that rule's threshold, so
changing it after the rules are locked is logged with a reason like any other rule change.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pandas as pd
from pydantic import BaseModel

from evaluator.agreement.analysis import AgreementReport, compute_agreement
from evaluator.agreement.ratings import POOLED, RatingsError, read_ratings
from evaluator.agreement.stats import icc3k_interval_width, sample_size_for_width
from evaluator.jury.store import JuryStore
from governance.decision.committee import change_rule
from governance.dossier.record import Dossier
from governance.evidence.records import JudgeAgreementSetting
from governance.evidence.select import is_jury_scored
from governance.review.records import ReviewCitation
from governance.rules.policy import load_defaults
from governance.rules.records import JudgeAgreementRule

STATISTIC = "ICC(A,1)"
RULE_ID = "judge_agreement"


class JudgeValidityView(BaseModel):
    """What the page shows: the report, its table rows, and where the jury ratings came from."""

    report: AgreementReport
    """Agreement per dataset and pooled."""
    rows: list[dict[str, Any]]
    """``report.table()`` as records (dataset, comparison, statistic, value, interval, n, MedHELM)."""
    jury_source: str
    """``upload`` or the stored jury id."""
    judges: list[str]
    """Judge names found in the jury ratings."""


def stored_juries(juries: JuryStore) -> list[dict[str, Any]]:
    """Stored juries for a picker: id, label, benchmark, candidate model (newest first)."""
    return [{**j, "label": f"{j['jury_id']} · {j['benchmark_id']} · {j['candidate_model']} ({j['status']})"}
            for j in juries.list_juries()]


def assess_judge_validity(juries: JuryStore | None, clinicians: Any, *, jury: Any = None,
                          jury_id: str | None = None, outputs: pd.DataFrame | None = None,
                          datasets: list[str] | None = None, bertscore: bool = False,
                          n_boot: int = 1000) -> JudgeValidityView:
    """Agreement of a jury (uploaded ratings, or a stored jury) with uploaded clinician ratings.

    A stored jury also supplies the responses and references, so ROUGE-L (and BERTScore-F1 when
    ``bertscore``) are compared with the clinicians too.

    Raises:
        RatingsError: unusable files, no jury given, or an unknown jury id.

    Example:
        >>> view = assess_judge_validity(store.juries, clinician_csv, jury_id="jury-…")  # doctest: +SKIP
        >>> view.report.pooled.icc21.value                                          # doctest: +SKIP
    """
    source = "upload"
    if jury_id:
        if juries is None:
            raise RatingsError(f"no database to read stored jury {jury_id!r} from")
        store = juries
        record = store.get(jury_id)
        if record is None:
            raise RatingsError(f"no stored jury {jury_id!r}")
        jury, source = store.ratings_frame(jury_id), jury_id
        if outputs is None:
            outputs = store.instances(jury_id).assign(dataset=record["benchmark_id"])
            outputs = outputs[outputs["skipped_reason"].isna()]
    if jury is None:
        raise RatingsError("give the jury's ratings (a file) or pick a stored jury")
    frame = jury if isinstance(jury, pd.DataFrame) else read_ratings(jury, "jury ratings")
    report = compute_agreement(clinicians, frame, datasets=datasets, outputs=outputs, bertscore=bertscore,
                               n_boot=n_boot)
    table = report.table()
    rows = table.astype(object).where(table.notna(), None).to_dict("records")
    return JudgeValidityView(report=report, rows=rows, jury_source=source, judges=sorted(set(frame["rater"])))


class SampleSizeHint(BaseModel):
    """How many rated instances a single-measure ICC interval of a given width needs."""

    target_width: float
    """Width of the 95% interval wanted."""
    expected_icc: float
    """Agreement assumed for planning."""
    n_needed: int | None
    """Instances needed (None: more than 100,000)."""
    n_have: int
    """Instances rated by both clinicians and jury now."""
    width_now: float | None
    """Expected interval width with the instances there are (None below 3)."""
    text: str
    """The hint in one sentence."""


def sample_size_hint(target_width: float, expected_icc: float, n_have: int = 0) -> SampleSizeHint:
    """Instances needed for a single-measure ICC interval no wider than ``target_width``.

    Planned with the ICC(3,1) F interval; the gated ICC(A,1)'s interval is at least as wide when
    jury and clinicians differ by an offset, so the figure is a floor.

    Example:
        >>> sample_size_hint(0.3, 0.47, n_have=40).n_needed > 40
        True
    """
    icc = min(max(expected_icc, -0.95), 0.95)
    need = sample_size_for_width(target_width, icc, single=True)
    now = icc3k_interval_width(n_have, icc, single=True) if n_have >= 3 else None
    have = f"; {n_have} rated now give about {now:.2f}" if now is not None else ""
    text = (f"About {need} instances rated by both clinicians and the jury give a 95% interval of width "
            f"{target_width:.2f} if single-rater agreement is near {icc:.2f}{have} (at least; more if the "
            "jury scores systematically higher or lower)." if need else
            f"A width of {target_width:.2f} needs more than 100,000 instances at agreement {icc:.2f}.")
    return SampleSizeHint(target_width=target_width, expected_icc=icc, n_needed=need, n_have=n_have,
                          width_now=now, text=text)


def jury_benchmarks(dossier: Dossier) -> list[str]:
    """Benchmarks of the dossier's jury-scored evidence (what an agreement record can cover)."""
    return sorted({e.benchmark for e in dossier.evidence if is_jury_scored(e)})


def agreement_setting(report: AgreementReport, *, dataset: str = POOLED, source: str, benchmarks: list[str],
                      judges: list[str], by: str,
                      review_queue: ReviewCitation | None = None) -> JudgeAgreementSetting:
    """The dossier record for one dataset's (default: pooled) single-measure ICC(A,1).

    MedHELM's ICC(3,k) z on the same sample rides along as ``comparison_icc3k_z`` (never gated); a closed
    review queue that supplied the clinician ratings is cited as ``review_queue``.

    Raises:
        RatingsError: the dataset has no ICC (too few instances or no variation).
    """
    row = next((d for d in report.datasets if d.dataset == dataset), None)
    if row is None or row.icc21.value is None:
        why = row.icc21.missing_reason if row else f"no dataset {dataset!r} in the report"
        raise RatingsError(f"no agreement figure to record for {dataset}: {why}")
    est = row.icc21
    return JudgeAgreementSetting(
        statistic=STATISTIC, estimate=est.value, ci_lower=est.ci_lower, ci_upper=est.ci_upper,
        comparison_icc3k_z=row.icc3k_z.value, n_instances=est.n, benchmarks=tuple(benchmarks),
        judges=tuple(judges), source=source, measured_at=datetime.now(UTC), entered_by=by,
        review_queue=review_queue)


def record_agreement(dossier: Dossier, setting: JudgeAgreementSetting) -> Dossier:
    """The dossier with ``setting`` as its measured judge agreement (replacing any earlier one)."""
    return dossier.model_copy(update={"judge_agreement": setting})


def minimum_rule(dossier: Dossier) -> JudgeAgreementRule | None:
    """The dossier's judge-agreement rule (its threshold is the minimum agreement), if any."""
    rules = dossier.policy.rules if dossier.policy else []
    return next((r for r in rules if r.kind == "judge_agreement"), None)


def set_minimum(dossier: Dossier, threshold: float, by: str, why: str = "") -> Dossier:
    """The dossier with its minimum judge agreement set (a new rule from the tier default if none).

    Raises:
        PolicyError: the rules are locked and ``why`` is missing or too short.
    """
    rule = minimum_rule(dossier)
    if rule is None:
        rationale = load_defaults().tiers[dossier.risk.tier]["judge_agreement"].rationale.strip()
        rule = JudgeAgreementRule(id=RULE_ID, threshold=threshold, rationale=rationale)
    else:
        rule = rule.model_copy(update={"threshold": threshold})
    return change_rule(dossier, rule, by=by, why=why)
