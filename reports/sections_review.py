"""The report's judge-validity subsection and the review queue it cites, in the evidence and oversight parts.

Why from the dossier's record only: the agreement the judge-agreement rule read is the dossier's
``judge_agreement``; when its clinician side came from a closed review queue the record carries the
queue's citation (raters, outputs, the double-rated share, planted errors, blinding, each rater's catch
rate), so the PDF prints exactly what the committee recorded, not a fresh read of the store. The same holds
for a rubric grading's per-criterion agreement (``grader_agreements``), printed beside it.
"""

from __future__ import annotations

from governance.dossier.record import Dossier
from reports.model import Fact, Section


def judge_validity_subsection(dossier: Dossier) -> Section | None:
    """The recorded jury-clinician agreement and the review queue it came from (None: not recorded)."""
    rec = dossier.judge_agreement
    if rec is None:
        return None
    ci = f" [{rec.ci_lower:.2f}, {rec.ci_upper:.2f}]" if rec.has_interval else " (no interval)"
    facts = [
        Fact(
            label="Agreement", value=f"{rec.statistic} {rec.estimate:.2f}{ci}, n = {rec.n_instances or '—'}"
        ),
        Fact(label="Judges", value=", ".join(rec.judges) or "—"),
        Fact(label="Source", value=rec.source),
    ]
    subsections = [q] if (q := review_queue_subsection(dossier, key="judge_validity_queue")) else []
    return Section(key="judge_validity", title="Judge validity", facts=facts, subsections=subsections)


def review_queue_subsection(dossier: Dossier, key: str = "review_queue") -> Section | None:
    """The review queue the dossier cites: raters, n, blinding and catch rates (None: no queue cited)."""
    rec = dossier.judge_agreement
    cite = rec.review_queue if rec is not None else None
    if cite is None:
        return None
    facts = [
        Fact(label="Review queue", value=cite.queue_id + (f" (run {cite.run_id})" if cite.run_id else "")),
        Fact(label="Raters", value=", ".join(cite.raters)),
        Fact(label="Outputs rated", value=f"{cite.n_items}, of which {cite.n_double} by two raters"),
        Fact(label="Planted errors (sentinels)", value=f"{cite.n_sentinels}, seen by every rater"),
        Fact(label="Blinding", value=cite.blinding),
        Fact(
            label="Catch rates",
            value=f"{cite.catch_text()} (bar {cite.catch_bar:.0%} at the Wilson lower bound)",
        ),
    ]
    return Section(key=key, title="Clinician review queue", facts=facts)


def grader_agreement_subsection(dossier: Dossier) -> Section | None:
    """Each recorded rubric grading's per-criterion agreement with clinicians (None: none recorded)."""
    if not dossier.grader_agreements:
        return None

    def ci(value: float | None, lo: float | None, hi: float | None) -> str:
        if value is None:
            return "—"
        return f"{value:.2f}" + (f" [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else "")

    facts = []
    for rec in dossier.grader_agreements:
        facts += [
            Fact(label="Grading",
                 value=f"{rec.grading_id} ({rec.benchmark}); graders {', '.join(rec.graders)}"),
            Fact(label="Source", value=rec.source),
        ]
        facts += [
            Fact(label=c.criterion, value=f"Cohen's κ {ci(c.kappa, c.kappa_lower, c.kappa_upper)}"
                 + (f" ({c.missing_reason})" if c.kappa is None and c.missing_reason else "")
                 + f"; share agreeing {ci(c.share, c.share_lower, c.share_upper)}; n = {c.n}")
            for c in rec.criteria
        ]
    return Section(key="grader_agreement", title="Rubric graders: agreement with clinicians per criterion",
                   facts=facts)
