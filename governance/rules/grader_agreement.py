"""The judge-agreement rule on rubric-graded evidence: each criterion's grader–clinician κ must reach the bar.

Why a module of its own: a rubric grading is judged by its graders criterion by criterion, so its validity is
per criterion too (``governance.judge_validity.criteria`` measures it from a criteria review queue and the
dossier records it as a ``GraderAgreementSetting``). The rule's threshold is read against κ as it is read
against a jury's ICC: a criterion passes when κ's lower 95% bound reaches it, fails when the upper bound is
below it, and is otherwise inconclusive; a grading passes only when every criterion does, so one criterion
below the bar keeps the evidence from an approval, and the verdict names it. The verdict's estimate is the
lowest κ of the criteria: one below the bar blocks an approval even while its interval still reaches it
(``governance.rules.recommendation``), as a jury's ICC below the bar does. A gate, outside the score family
(uncorrected one-sided 2.5%, as the jury's agreement).
"""

from __future__ import annotations

from evaluator.evidence.record import Evidence
from evaluator.grading.evidence import METRIC
from governance.rules.verdict_math import compare


def is_rubric_graded(e: Evidence) -> bool:
    """Whether the evidence is a rubric grading's score (``medassure attach --grading``)."""
    return e.metric == METRIC


def grader_agreement_verdict(rule, settings, graded: list[Evidence]) -> dict:
    """Verdict fields for the judge-agreement rule over one candidate's rubric-graded evidence."""
    out = dict(threshold=rule.threshold, evidence_ids=[e.id for e in graded])
    found = {s.grading_id: s for s in settings}
    by_bench = {s.benchmark: s for s in settings}
    rows, kappas = [], []
    for e in graded:
        s = found.get(e.source) or by_bench.get(e.benchmark)
        if s is None:
            rows.append(("inconclusive", f"rubric grading {e.source} ({e.benchmark}) has no recorded "
                                         "per-criterion agreement with clinicians; rate its cases in a "
                                         "criteria review queue (`medassure review create --grading`) and "
                                         "record it on Judge validity."))
            continue
        bad, open_ = [], []
        kappas += [c.kappa for c in s.criteria if c.kappa is not None]
        for c in s.criteria:
            if c.kappa is None or c.kappa_lower is None:
                open_.append(f"{c.criterion!r} (no κ: {c.missing_reason or 'no interval'})")
                continue
            status = compare(c.kappa_lower, c.kappa_upper, rule.threshold, "at_least")
            text = f"{c.criterion!r} κ {c.kappa:.2f} [{c.kappa_lower:.2f}, {c.kappa_upper:.2f}], n = {c.n}"
            if status == "fail":
                bad.append(text)
            elif status == "inconclusive":
                open_.append(text)
        where = f"grading {s.grading_id} against {s.source}"
        if not s.criteria:
            rows.append(("inconclusive", f"{where}: no criterion rated by both."))
        elif bad:
            rows.append(("fail", f"{where}: criteria below κ {rule.threshold:.2f}: {'; '.join(bad)}."))
        elif open_:
            rows.append(("inconclusive", f"{where}: criteria not shown to reach κ {rule.threshold:.2f}: "
                                         f"{'; '.join(open_)}."))
        else:
            rows.append(("pass", f"{where}: all {len(s.criteria)} criteria reach κ {rule.threshold:.2f}."))
    status = next((st for st in ("fail", "inconclusive", "pass") if any(r[0] == st for r in rows)),
                  "inconclusive")
    worst = dict(estimate=min(kappas), direction="at_least") if kappas else {}
    return out | worst | dict(status=status, reason=" ".join(r[1] for r in rows))
