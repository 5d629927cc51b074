"""The "Re-evaluation addendum" section: each re-evaluation of the frozen plan, as the committee reads it.

Why its own module and an extra section: the report model reserves ``extra_sections`` for steps
added later, and the bundle adds this one for every dossier that holds an addendum (none:
no section, because nothing was re-evaluated). Each addendum leads with the answer to "would
this change the decision?" and its reasons, then the numbers behind it: the paired comparison
per benchmark, the flipped instances by id, who answered (the served model and fingerprint the
replies named, flagged when they differ from the decided run's), the subgroups (small groups
show their size only), the verdicts that changed or crossed their threshold, and the caveats.
Only formatting happens here; every number comes from ``governance.reevaluation.operations.addendum``.

Why each addendum says it is unsigned: addenda are appended after the decision and left out of the
hash the sign-offs cover (``governance.dossier.content_hash.APPENDED``), so a sign-off stays valid
whatever an addendum says, an edited one included. A reader must not take the signatures as vouching
for it; only the version's content hash and the record's chain (``medassure verify``) cover it.
"""

from __future__ import annotations

import json

from governance.decision.records import OUTCOME_LABELS
from governance.dossier.record import Dossier
from governance.reevaluation.records import BenchmarkComparison, ReevaluationAddendum
from reports.model import Fact, Section, Table

IDS_PER_CELL = 60
UNSIGNED = ("not covered by any sign-off: recorded after the decision and left out of what the sign-offs "
            "sign; only the version's content hash and the record's chain (medassure verify) cover it")


def _num(value: float | None, digits: int = 3, sign: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _delta(mean: float | None, ci: tuple[float, float] | None) -> str:
    text = _num(mean, sign=True)
    return f"{text} ({_num(ci[0], sign=True)} to {_num(ci[1], sign=True)})" if ci else text


def _ids(ids: list[str]) -> str:
    if not ids:
        return "none"
    more = f" … and {len(ids) - IDS_PER_CELL} more" if len(ids) > IDS_PER_CELL else ""
    return ", ".join(ids[:IDS_PER_CELL]) + more


def _p(value: float | None) -> str:
    return "–" if value is None else ("< 0.001" if value < 0.001 else f"{value:.3f}")


def comparison_table(comparisons: list[BenchmarkComparison]) -> Table:
    """Paired before/after per benchmark."""
    rows = [[c.benchmark, c.metric, str(c.n_pairs), _num(c.mean_before), _num(c.mean_after),
             _delta(c.mean_delta, c.delta_ci), _p(c.mcnemar_p), str(len(c.worse)), str(len(c.better))]
            for c in comparisons]
    return Table(title="Paired comparison (same instances, before → after)",
                 columns=["Benchmark", "Metric", "Pairs", "Before", "After", "Δ (95% CI)", "McNemar p",
                          "Worse", "Better"],
                 rows=rows, widths=[3, 1.4, 0.8, 0.9, 0.9, 2.4, 1, 0.8, 0.8],
                 note="Δ = mean of (after − before) per instance; interval: paired percentile bootstrap. "
                      "McNemar's exact test applies to right/wrong scores only.")


def flipped_table(comparisons: list[BenchmarkComparison]) -> Table:
    """Instances whose result changed, by id."""
    rows = [[c.benchmark, direction, _ids(ids)] for c in comparisons
            for direction, ids in (("worse", c.worse), ("better", c.better)) if ids]
    return Table(title="Instances that changed", columns=["Benchmark", "Direction", "Instance ids"],
                 rows=rows or [["–", "–", "no instance changed"]], widths=[3, 1, 7])


def subgroup_table(comparisons: list[BenchmarkComparison]) -> Table | None:
    """Per subgroup; groups too small to report show their size only."""
    rows = []
    for c in comparisons:
        for s in c.subgroups:
            head = [c.benchmark, f"{s.tag}={s.group}", str(s.n_pairs)]
            if s.suppressed:
                rows.append([*head, "suppressed (too few to report)", "–"])
            else:
                rows.append([*head, _delta(s.mean_delta, s.delta_ci), _ids(s.worse)])
    if not rows:
        return None
    return Table(title="Subgroups", columns=["Benchmark", "Group", "Pairs", "Δ (95% CI)", "Worse"], rows=rows,
                 widths=[3, 1.6, 0.8, 2.6, 4])


def _served(identities: list) -> str:
    return "; ".join(i.describe() for i in identities) or "not recorded"


def served_table(comparisons: list[BenchmarkComparison]) -> Table | None:
    """Who answered before and after: the served model and fingerprint the replies named."""
    rows = [[c.benchmark, _served(c.served_before), _served(c.served_after),
             {True: "CHANGED", False: "same"}.get(c.served_identity_changed, "cannot tell")]
            for c in comparisons if c.served_before or c.served_after]
    if not rows:
        return None
    return Table(title="Who answered (the replies' model and system fingerprint)",
                 columns=["Benchmark", "Decided run", "Re-run", "Served identity"], rows=rows,
                 widths=[2.6, 3.4, 3.4, 1.4],
                 note="A vendor can change the model behind an unchanged name and URL; the reply says what "
                      "answered.")


def _who_answered(addendum: ReevaluationAddendum) -> str:
    changed = addendum.served_identity_changed
    if changed:
        return "another served model or build than the decided run's (see the table)"
    return "the same served model and build as the decided run" if changed is False else "not recorded"


def verdict_table(addendum: ReevaluationAddendum) -> Table:
    """Verdicts that changed or whose estimate crossed the threshold."""

    def flags(c) -> str:
        on = (("verdict changed", c.status_changed), ("crossed threshold", c.crossed),
              ("now fails", c.now_fails))
        return "; ".join(word for word, flag in on if flag)

    rows = [[c.rule_id, c.model or "–", c.benchmark or "–", c.before or "no verdict",
             c.after or "no verdict (no evidence)",
             f"{_num(c.estimate_before)} → {_num(c.estimate_after)}", flags(c)]
            for c in addendum.verdict_changes]
    return Table(title=f"Verdicts that changed ({addendum.verdicts_compared} compared)",
                 columns=["Rule", "Candidate", "Benchmark", "Before", "After", "Estimate", "Flag"],
                 rows=rows or [["–", "–", "–", "–", "–", "–", "no verdict changed"]],
                 widths=[1.6, 1.8, 2.4, 1, 1, 1.4, 1.8])


def addendum_section(addendum: ReevaluationAddendum) -> Section:
    """One addendum as a (sub)section.

    Example:
        >>> addendum_section(dossier.reevaluations[-1]).title  # doctest: +SKIP
        'R-3f9a1c2b: model → openai/model-b (2026-05-01)'
    """
    impact = addendum.impact
    answer = "Yes" if impact.would_change else "No"
    label = OUTCOME_LABELS.get(impact.recommended_after, impact.recommended_after)
    facts = [
        Fact(label="Change", value=addendum.change.describe()),
        Fact(label="Run by", value=f"{addendum.by}, {addendum.created_at:%Y-%m-%d %H:%M} UTC"),
        Fact(label="Compared against", value=f"dossier version {addendum.based_on_version}"),
        Fact(label="Evidence plan", value=("frozen with the decision" if addendum.plan_frozen_at_decision
                                           else "frozen for this re-evaluation (the decision predates it)")
             + f" on {addendum.plan.frozen_at:%Y-%m-%d}; {len(addendum.plan.items)} local run(s)"),
        Fact(label="Requests", value=f"{addendum.new_requests} sent, {addendum.cache_hits} answered from the "
                                     "response cache"),
        Fact(label="Recommendation after", value=label),
        Fact(label="Who answered", value=_who_answered(addendum)),
        Fact(label="Signed", value=UNSIGNED),
    ]
    tables = [comparison_table(addendum.comparisons), flipped_table(addendum.comparisons)]
    served = served_table(addendum.comparisons)
    tables += [served] if served else []
    subgroups = subgroup_table(addendum.comparisons)
    tables += [subgroups] if subgroups else []
    tables.append(verdict_table(addendum))
    return Section(key=f"reevaluation_{addendum.id}",
                   title=f"{addendum.id}: {addendum.change.describe()} ({addendum.created_at:%Y-%m-%d})",
                   paragraphs=[f"Would this change the decision? {answer}. {impact.why[0]}"],
                   facts=facts, bullets=[*impact.why[1:], *addendum.skipped, *addendum.caveats],
                   tables=tables)


_SAME_RESULT = ("benchmark", "metric", "candidate", "model_before", "model_after", "prompt_hash_after",
                "n_pairs", "mean_before", "mean_after", "mean_delta", "worse", "better", "unpaired",
                "verdicts_before", "verdicts_after")
"""What two re-evaluations must share to be the same result (not the run ids, times or request counts)."""


def _result_key(addendum: ReevaluationAddendum) -> str:
    return json.dumps({
        "change": addendum.change.model_dump(mode="json"), "skipped": addendum.skipped,
        "comparisons": [c.model_dump(mode="json", include=set(_SAME_RESULT)) for c in addendum.comparisons],
        "verdicts": [v.model_dump(mode="json") for v in addendum.verdict_changes],
        "impact": addendum.impact.model_dump(mode="json"),
    }, sort_keys=True)


Repeats = list[tuple[ReevaluationAddendum, list[ReevaluationAddendum]]]


def _repeats(addenda: list[ReevaluationAddendum]) -> Repeats:
    """Newest first, each distinct result once with the older re-evaluations that found exactly the same."""
    groups: dict[str, tuple[ReevaluationAddendum, list[ReevaluationAddendum]]] = {}
    for a in reversed(addenda):
        key = _result_key(a)
        if key in groups:
            groups[key][1].append(a)
        else:
            groups[key] = (a, [])
    return list(groups.values())


def _with_repeats(section: Section, repeats: list[ReevaluationAddendum]) -> Section:
    if not repeats:
        return section
    line = "Repeated with the same results (not shown again): " + "; ".join(
        f"{a.id} by {a.by}, {a.created_at:%Y-%m-%d %H:%M} UTC" for a in repeats) + "."
    return section.model_copy(update={"paragraphs": [*section.paragraphs, line]})


def reevaluation_sections(dossier: Dossier) -> list[Section]:
    """The addendum section of a dossier, or nothing when it holds no re-evaluation.

    Example:
        >>> reevaluation_sections(dossier_without_addenda)  # doctest: +SKIP
        []
    """
    if not dossier.reevaluations:
        return []
    n = len(dossier.reevaluations)
    changed = sum(1 for a in dossier.reevaluations if a.impact.would_change)
    return [Section(
        key="reevaluation", title="Re-evaluation addendum",
        paragraphs=[f"{n} re-evaluation(s) of the frozen evidence plan after the decision; {changed} "
                    "found that the change would alter the decision. Each re-ran the plan with only the "
                    "stated change and compared every instance with its baseline. The evidence decided on "
                    "is unchanged. These addenda are not signed: the sign-offs above do not cover them."],
        subsections=[_with_repeats(addendum_section(a), same)
                     for a, same in _repeats(dossier.reevaluations)])]
