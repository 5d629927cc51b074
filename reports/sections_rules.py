"""Sections on the committee's rules: the rules with their rationale, verdicts, recommendation, change log.

Why recomputed here rather than stored: verdicts and the recommendation are functions of one
dossier version (``governance.decision.committee``), so the report recomputes them from the version it is
bound to and can never show verdicts of another version. Each verdict row points at the evidence
it used by the evidence table's reference (E1, E2, ...), so a reader can follow a verdict to its
number, n, interval and source.
"""

from __future__ import annotations

from governance.decision.records import OUTCOME_LABELS
from governance.dossier.labels import source_words
from governance.dossier.record import Dossier
from governance.evidence.select import subcategory_name
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.outcome_text import outcome_lines
from governance.rules.policy import change_log_problem
from governance.rules.recommendation import Recommendation
from governance.rules.records import AcceptancePolicy
from governance.rules.rule_text import rule_bar, rule_label
from governance.rules.verdicts import Assessment
from reports.model import Fact, Section, Table
from reports.sections_core import fmt_date

STATUS_LABELS = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE", "not_applicable": "n/a"}


def rule_scope(rule) -> str:
    """Which evidence a rule reads, in words."""
    parts = []
    if rule.benchmark:
        parts.append(f"benchmark {rule.benchmark}")
    if rule.subcategory:
        parts.append(f"subcategory {subcategory_name(rule.subcategory)}")
    if rule.metric:
        parts.append(f"metric {rule.metric}")
    if rule.provenance:
        parts.append("only " + ", ".join(rule.provenance))
    return "; ".join(parts) or "all evidence"


def _lock_text(policy: AcceptancePolicy) -> str:
    if policy.lock is None:
        return ("The rules are not locked: they were not pre-registered, so no verdict below can count as a "
                "pre-registered result.")
    lock = policy.lock
    control = f" Error control locked with them: {lock.error_control}." if lock.error_control else ""
    return (f"Locked by {lock.locked_by} on {lock.locked_at:%Y-%m-%d %H:%M} UTC, rules hash "
            f"{lock.rules_hash[:16]}…; {len(lock.evidence_ids_at_lock)} evidence record(s) were already "
            "attached (or attached and detached) then, so verdicts resting on them are not pre-registered; "
            "a published figure is never pre-registered, whenever it was attached; a rule changed after the "
            f"lock is pre-registered only for evidence attached after the change.{control}"
            + (f" Note: {lock.note}" if lock.note else ""))


def assessed(dossier: Dossier, computed: tuple[Assessment, Recommendation] | None = None
             ) -> tuple[Assessment, Recommendation] | None:
    """Verdicts and recommendation of the dossier's rules (None without rules); computed once per report.

    ``computed`` is the dossier's ``assessment_and_recommendation`` when the caller has it already.
    """
    if dossier.policy is None or not dossier.policy.rules:
        return None
    return computed or assessment_and_recommendation(dossier)


def rules_section(dossier: Dossier, refs: dict[str, str],
                  result: tuple[Assessment, Recommendation] | None) -> Section:
    """The rules in force, every verdict with its reason and evidence, and the recommendation."""
    policy = dossier.policy
    if policy is None or result is None:
        return Section(key="rules", title="Acceptance rules and verdicts", recorded=False, paragraphs=[
            "Not recorded yet: no acceptance rules are set for this dossier, so no verdicts are computed."])
    assessment, rec = result
    score, gating = assessment.score_counts(), assessment.gating_counts()
    started = source_words(policy.derived_from) or "the committee"
    paragraphs = [f"Rules derived from {started}. {_lock_text(policy)}",
                  "A score verdict passes when the whole 95% interval clears the bar and its one-sided "
                  "p-value, corrected over the family of score verdicts, is at most 2.5%; it fails when none "
                  "of the interval does, and is inconclusive otherwise (more cases needed); evidence without "
                  "an interval is inconclusive unless the committee accepted point estimates for that rule."]
    if assessment.family is not None:
        paragraphs.append(assessment.family.statement())
    if assessment.change_log_problem:
        paragraphs.append(f"Warning: the rule change log is broken: {assessment.change_log_problem}.")
    rules = Table(title="Rules in force", columns=["Rule", "Bar", "Applies to", "Rationale"],
                  rows=[[rule_label(r), rule_bar(r), rule_scope(r), r.rationale] for r in policy.rules],
                  widths=[1.9, 1.9, 1.6, 4.0])
    per_rule = [_rule_verdicts(r, [v for v in assessment.verdicts if v.rule_id == r.id], refs)
                for r in policy.rules]
    recommendation = Section(
        key="recommendation", title=f"Recommendation from the verdicts: {OUTCOME_LABELS[rec.outcome]}",
        paragraphs=["What the verdicts support, computed by a fixed rule: any fail, reject; a candidate "
                    "is approvable only when every accepted subcategory has a passing score verdict and no "
                    "score verdict is open (an estimate below its bar never is), otherwise insufficient "
                    "evidence, with what would settle it; open gating rules, verdicts not pre-registered or "
                    "unlocked rules make an approval conditional. It is advice: the committee decides."],
        bullets=rec.reasons,
        tables=[Table(columns=["Model", "Outcome in one sentence", "Score pass / fail / inconclusive",
                               "Conditions or what would settle it"],
                      rows=[[c.model, line.sentence,
                             f"{c.counts['pass']} / {c.counts['fail']} / {c.counts['inconclusive']}",
                             "\n".join([*c.conditions, *c.to_settle] or [line.settle])]
                            for c, line in zip(rec.candidates, outcome_lines(assessment, rec), strict=True)],
                      widths=[1.4, 3.2, 1.0, 3.6])])
    pre_head, *pre_lines = rec.preregistration or [""]
    preregistration = Section(key="preregistration", title="Pre-registration, verdict by verdict",
                              paragraphs=[pre_head], bullets=pre_lines)
    paragraphs.append(
        "Under each rule: its verdicts. 'More cases' is the number of further cases that would give a pass "
        f"with probability {policy.power:.0%} if the true value equals today's estimate (none when the "
        "estimate misses the bar); 'Evidence' points to rows of the evidence table; 'Pre-reg.' says whether "
        "the rule was fixed before every evidence record the verdict uses was attached.")
    count = ", ".join(f"{n} {STATUS_LABELS[s]}" for s, n in score.items() if s != "not_applicable")
    gates = ", ".join(f"{n} {STATUS_LABELS[s]}" for s, n in gating.items())
    return Section(key="rules", title="Acceptance rules and verdicts", paragraphs=paragraphs,
                   facts=[Fact(label="Score verdicts", value=count),
                          Fact(label="Gating rules (counted apart)", value=gates),
                          Fact(label="Pre-registered", value=pre_head)],
                   tables=[rules], subsections=[*per_rule, preregistration, recommendation])


def _rule_verdicts(rule, verdicts: list, refs: dict[str, str]) -> Section:
    counts = {s: sum(v.status == s for v in verdicts) for s in STATUS_LABELS}
    summary = ", ".join(f"{n} {STATUS_LABELS[s]}" for s, n in counts.items() if n) or "no verdicts"
    # one reason shared by every row (the judges' agreement is one figure for all candidates) is said once
    shared = verdicts[0].reason if len(verdicts) > 1 and len({v.reason for v in verdicts}) == 1 else None
    rows = [[v.model or "—", v.benchmark or "—", STATUS_LABELS[v.status].lower(),
             "the same for every row: see above" if shared else v.reason,
             f"{v.further_cases:,}" if v.further_cases is not None else "—",
             "yes" if v.pre_registered else "no",
             ", ".join(refs.get(i, i) for i in v.evidence_ids) or "—"] for v in verdicts]
    return Section(key=f"verdicts_{rule.id}", title=f"Verdicts of rule: {rule_label(rule)} ({summary})",
                   paragraphs=[f"Bar: {rule_bar(rule)}. Applies to: {rule_scope(rule)}.",
                               *([f"Reason, the same for every row: {shared}"] if shared else [])],
                   tables=[Table(columns=["Model", "Benchmark", "Verdict", "Reason", "More cases", "Pre-reg.",
                                          "Evidence"], rows=rows, widths=[70, 74, 58, 161, 42, 42, 46])])


def _change_text(change) -> str:
    if change.old is None:
        return f"added: {rule_bar(change.new)} ({rule_scope(change.new)})"
    if change.new is None:
        return f"removed: {rule_bar(change.old)} ({rule_scope(change.old)})"
    return f"{rule_bar(change.old)} → {rule_bar(change.new)}"


def rule_changes_section(dossier: Dossier) -> Section:
    """The lock and every change made to the rules after it."""
    policy = dossier.policy
    if policy is None or policy.lock is None:
        what = "no acceptance rules are set." if policy is None else "the rules have not been locked."
        return Section(key="rule_changes", title="Change log of locked rules", recorded=False,
                       paragraphs=[f"Not recorded yet: {what}"])
    paragraphs = [_lock_text(policy)]
    if not policy.changes:
        paragraphs.append("No rule has been changed since the lock.")
    problem = change_log_problem(policy)
    paragraphs.append(f"Warning: {problem}." if problem else
                      "The change log is an unbroken chain from the locked rules to the rules in force.")
    tables = [Table(columns=["#", "Rule", "Change", "By", "Date", "Why", "Rules hash before → after"],
                    rows=[[str(i), rule_label(c.new or c.old), _change_text(c), c.by, fmt_date(c.at), c.why,
                           f"{c.hash_before[:10]}… → {c.hash_after[:10]}…"]
                          for i, c in enumerate(policy.changes, start=1)],
                    widths=[0.3, 1.3, 2.4, 1.2, 1.15, 2.5, 1.6])] if policy.changes else []
    return Section(key="rule_changes", title="Change log of locked rules", paragraphs=paragraphs,
                   tables=tables)
