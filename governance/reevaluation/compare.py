"""Comparing before and after a change: per-instance pairs, verdicts, and the decision.

Why pure functions over stored results and assessments: the same comparison serves a live
re-run, a demo built from stored answers, the CLI and the page, and a test can feed it numbers
it knows. The statistics are ``evaluator.statistics.paired`` (per-instance deltas, paired bootstrap,
McNemar's exact test). Subgroups follow ``evaluator.statistics.subgroups``' suppression rule: a group with
fewer than ``MIN_N`` pairs shows its size only. Verdicts are compared by (rule, candidate,
benchmark, metric); a verdict *changes* when its status differs, and *crosses* when its point
estimate moves to the other side of the rule's threshold, which a committee wants to see even
when the interval still keeps the verdict inconclusive.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluator.benchmarks.instance import Instance
from evaluator.statistics.paired import compare_paired
from evaluator.statistics.subgroups import MIN_N
from governance.decision.records import OUTCOME_LABELS, CommitteeDecision
from governance.reevaluation.records import (
    DecisionImpact,
    ServedIdentity,
    SubgroupComparison,
    VerdictChange,
)
from governance.rules.recommendation import recommend
from governance.rules.verdicts import Assessment, Verdict

Scores = Mapping[str, float | None]


def subgroup_comparisons(instances: Sequence[Instance], before: Scores, after: Scores,
                         min_n: int = MIN_N) -> list[SubgroupComparison]:
    """Paired before/after per subgroup tag and group (tags sorted, groups largest first).

    Example:
        >>> inst = [Instance(id=str(i), subgroups={"lang": "en" if i < 12 else "es"}) for i in range(14)]
        >>> rows = subgroup_comparisons(inst, {i.id: 1.0 for i in inst}, {i.id: 1.0 for i in inst})
        >>> [(r.group, r.n_pairs, r.suppressed) for r in rows]
        [('en', 12, False), ('es', 2, True)]
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for inst in instances:
        for tag, group in inst.subgroups.items():
            groups.setdefault((tag, group), []).append(inst.id)
    out = []
    for (tag, group), ids in sorted(groups.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0][1])):
        c = compare_paired({i: before.get(i) for i in ids}, {i: after.get(i) for i in ids})
        if c.n_pairs < min_n:
            out.append(SubgroupComparison(tag=tag, group=group, n_pairs=c.n_pairs, suppressed=True))
            continue
        out.append(SubgroupComparison(
            tag=tag, group=group, n_pairs=c.n_pairs, suppressed=False, mean_before=c.mean_before,
            mean_after=c.mean_after, mean_delta=c.mean_delta, delta_ci=c.delta_ci, mcnemar_p=c.mcnemar_p,
            worse=list(c.worse), better=list(c.better)))
    return out


def _known(side: Sequence[ServedIdentity]) -> set[tuple[str | None, str | None]]:
    return {(s.model, s.system_fingerprint) for s in side
            if s.n > 0 and (s.model is not None or s.system_fingerprint is not None)}


def served_identity_changed(before: Sequence[ServedIdentity], after: Sequence[ServedIdentity]) -> bool | None:
    """Whether the answers after name another served model or build than those before.

    None when a side recorded no identity at all (answers stored before identities were kept, or a
    server that names none): then only the answers themselves can show a change.

    Example:
        >>> a = ServedIdentity(model="m", system_fingerprint="fp_1", n=20)
        >>> served_identity_changed([a], [a.model_copy(update={"system_fingerprint": "fp_2"})])
        True
        >>> served_identity_changed([], [a]) is None
        True
    """
    old, new = _known(before), _known(after)
    if not old or not new:
        return None
    return old != new


def served_identity_note(benchmark: str, before: Sequence[ServedIdentity],
                         after: Sequence[ServedIdentity], changed: bool | None) -> str | None:
    """The addendum's caveat about who answered, when it differs or cannot be told; else None."""
    def listed(side: Sequence[ServedIdentity]) -> str:
        return "; ".join(s.describe() for s in side) or "none recorded"

    if changed:
        return (f"{benchmark}: another served model answered than in the decided run: before "
                f"{listed(before)}; after {listed(after)}. The model name and server called may be "
                "unchanged: the vendor's reply names what answered.")
    if changed is None and (_known(before) or _known(after)):
        return (f"{benchmark}: the served identity cannot be compared (before {listed(before)}; after "
                f"{listed(after)}); only the answers show whether the model changed.")
    return None


def _keyed(verdicts: list[Verdict]) -> dict[tuple, Verdict]:
    out: dict[tuple, Verdict] = {}
    for v in verdicts:
        base = (v.rule_id, v.model, v.benchmark, v.metric)
        k = 0
        while (*base, k) in out:  # a rule may give several verdicts per record (one per subgroup tag)
            k += 1
        out[(*base, k)] = v
    return out


def _side(v: Verdict) -> bool | None:
    if v.estimate is None or v.threshold is None:
        return None
    if v.direction == "at_most":
        return v.estimate <= v.threshold
    if v.direction == "within":
        upper = v.threshold_upper if v.threshold_upper is not None else v.estimate
        return v.threshold <= v.estimate <= upper
    return v.estimate >= v.threshold


def verdict_changes(before: Assessment, after: Assessment) -> tuple[int, list[VerdictChange]]:
    """How many verdicts were compared, and those that changed or crossed their threshold.

    Example:
        >>> n, changes = verdict_changes(assess(old_dossier), assess(new_dossier))  # doctest: +SKIP
        >>> [(c.rule_id, c.before, c.after) for c in changes]  # doctest: +SKIP
        [('score.calc', 'pass', 'inconclusive')]
    """
    old, new = _keyed(before.verdicts), _keyed(after.verdicts)
    out = []
    for key in dict.fromkeys([*old, *new]):
        b, a = old.get(key), new.get(key)
        changed = (b.status if b else None) != (a.status if a else None)
        sides = (_side(b) if b else None, _side(a) if a else None)
        crossed = None not in sides and sides[0] != sides[1]
        if not changed and not crossed:
            continue
        ref = a or b
        out.append(VerdictChange(
            rule_id=ref.rule_id, kind=ref.kind, model=ref.model, benchmark=ref.benchmark, metric=ref.metric,
            before=b.status if b else None, after=a.status if a else None, status_changed=changed,
            crossed=crossed, now_fails=bool(a and a.status == "fail" and (b is None or b.status != "fail")),
            threshold=ref.threshold, estimate_before=b.estimate if b else None,
            estimate_after=a.estimate if a else None, reason_after=a.reason if a else "no verdict after"))
    return len(set(old) | set(new)), out


def _outcome_for(assessment: Assessment, model: str | None) -> str:
    rec = recommend(assessment)
    if model is None:
        return rec.outcome
    return next((c.outcome for c in rec.candidates if c.model == model), "reject")


def _label(outcome: str | None) -> str:
    return OUTCOME_LABELS.get(outcome or "", outcome or "none").lower()


def decision_impact(decision: CommitteeDecision | None, before: Assessment, after: Assessment,
                    changes: list[VerdictChange]) -> DecisionImpact:
    """Would the change alter the decision? Yes when the recommendation for the decided candidate
    changes, or when a rule newly fails for it; the reasons say which.

    Example:
        >>> decision_impact(decision, before, after, []).would_change  # doctest: +SKIP
        False
    """
    model = decision.model if decision else None
    rec_before, rec_after = _outcome_for(before, model), _outcome_for(after, model)
    mine = [c for c in changes if model is None or c.model == model]
    fails = [c for c in mine if c.now_fails]
    who = f"for {model}" if model else "for the use as a whole"
    why = []
    if rec_before != rec_after:
        why.append(f"The verdicts {who} would support '{_label(rec_after)}' instead of "
                   f"'{_label(rec_before)}'.")
    for c in fails:
        where = f" on {c.benchmark}" if c.benchmark else ""
        why.append(f"Rule {c.rule_id}{where} would fail (was {c.before or 'not assessed'}): {c.reason_after}")
    would = bool(why)
    flipped = [c for c in mine if c.status_changed and not c.now_fails]
    for c in flipped:
        where = f" on {c.benchmark}" if c.benchmark else ""
        why.append(f"Rule {c.rule_id}{where}: {c.before or 'none'} → {c.after or 'none'}.")
    crossed = [c for c in mine if c.crossed and not c.status_changed]
    if crossed:
        why.append(f"{len(crossed)} estimate(s) crossed their threshold without changing the verdict "
                   f"({', '.join(sorted({c.rule_id for c in crossed}))}).")
    if not would:
        lead = (f"No verdict {who} changed" if not flipped else
                f"{len(flipped)} verdict(s) {who} changed, but none newly fails")
        decided = f", as when the committee decided '{_label(decision.outcome)}'." if decision else "."
        why.insert(0, f"{lead}; the verdicts still support '{_label(rec_after)}'{decided}")
    return DecisionImpact(would_change=would, why=why, decided_outcome=decision.outcome if decision else None,
                          decided_model=model, recommended_before=rec_before, recommended_after=rec_after)
