"""Rules & verdicts: set the acceptance rules, lock them, change them with a reason, see every verdict."""

import streamlit as st
from pydantic import ValidationError

from governance import assessment_and_recommendation, lock_rules, start_rules
from governance.decision import change_rule, delete_rule, set_error_control
from governance.dossier import source_words
from governance.rules import PolicyError, ScoreRule, critical_rule, rule_label
from pages import plain_words, ui
from pages import policy_tables as tables
from pages import tables as readable

st.title("Rules & verdicts")
version = ui.require_dossier()
dossier = version.dossier
policy = dossier.policy
tier = dossier.risk.tier


def apply(action, saved_as: str, **kwargs) -> None:
    """Run one committee action on the latest version, save it and rerun; refusals show as errors."""
    try:
        ui.save(action(ui.current().dossier, **kwargs), note=saved_as)
    except (PolicyError, ValidationError, ValueError) as exc:
        st.session_state["rules_error"] = str(exc)
    st.rerun()


st.caption("Rules are the committee's bar, set before new evidence is run. A verdict passes when the whole "
           "95% interval clears the bar, fails when none of it does, and is otherwise inconclusive.")
FURTHER = ("Further cases: how many more would give a pass with probability {power:.0%} if the true value "
           "equals today's estimate (one-sided test at the family's level; score test for proportions, "
           "normal test with the spread from the interval otherwise); none is given when the estimate misses "
           "the bar. Pre-registered: the rule was fixed before every evidence record the verdict uses was "
           "attached.")
METHOD = ("A score verdict passes only when the whole 95% interval clears the bar and its one-sided p-value, "
          "corrected over the family of score verdicts, is at most 2.5%; it fails when none of the interval "
          "does, and is otherwise inconclusive, with the further cases that would give a pass at the "
          "policy's power.")
if error := st.session_state.pop("rules_error", None):
    st.error(error)

if policy is None or not policy.rules:
    st.info(f"No rules yet. Start from the defaults for risk tier **{tier}** (one score rule per accepted "
            "subcategory, and one rule of each other kind), then edit them.")
    if st.button(f"Start from the {tier} defaults", key="rules_init", type="primary"):
        apply(start_rules, f"rules: defaults for tier {tier}")
    st.stop()

WORDS = {"holm": "Holm (step-down, default)", "bonferroni": "Bonferroni"}
if policy.lock:
    lock = policy.lock
    note = f" · note: {ui.plain(lock.note)}" if lock.note else ""
    st.success(f"🔒 Locked by **{ui.plain(lock.locked_by)}** on {lock.locked_at:%Y-%m-%d %H:%M} UTC · "
               f"rule-set hash `{lock.rules_hash[:16]}` · {len(lock.evidence_ids_at_lock)} evidence "
               f"record(s) already attached at the lock · {len(policy.changes)} change(s) since{note}")
else:
    st.warning("Draft rules: not locked. Lock them before new evidence is run: only verdicts whose evidence "
               "is attached after the lock are pre-registered.")
    with st.expander("Error control (locked with the rules)"):
        c1, c2 = st.columns(2)
        method = c1.selectbox("Correction over the score verdicts", list(WORDS), format_func=WORDS.get,
                              index=list(WORDS).index(policy.multiplicity), key="rules_multiplicity")
        power = c2.number_input("Power for further-case figures", 0.5, 0.99, float(policy.power), 0.05,
                                key="rules_power")
        if st.button("Save error control", key="rules_error_control",
                     disabled=(method, power) == (policy.multiplicity, policy.power)):
            apply(set_error_control, f"error control: {method}, power {power:g}",
                  multiplicity=method, power=power)
assessment, recommendation = assessment_and_recommendation(dossier)
if assessment.models:
    st.subheader("Each candidate's outcome")
    plain_words.outcomes(assessment, recommendation, dossier)
if assessment.change_log_problem and policy.lock:
    st.error(f"Change log check failed: {assessment.change_log_problem}.")
if assessment.tier_note:
    st.warning(f"Review the rules: {assessment.tier_note}. Adjust them here (changes are recorded once "
               "locked).")

st.subheader("Rules")
started = source_words(policy.derived_from) or "the committee"
st.caption(f"Started from {ui.plain(started)}. Score bars are on MedHELM's "
           "normalized 0-1 scale (jury 1-5 maps to (x − 1)/4).")
readable.show(tables.rules_frame(policy))

with st.expander("Edit a rule" + (" (recorded in the change log)" if policy.lock else "")):
    ids = [r.id for r in policy.rules]
    names = {r.id: rule_label(r) for r in policy.rules}
    rule = policy.rule(st.selectbox("Rule", ids, key="rule_pick", format_func=names.get))
    k = f"rule_{rule.id}_"
    updates: dict = {}
    if rule.kind == "subgroup_disparity":
        c1, c2 = st.columns(2)
        updates["ratio_lo"] = c1.number_input("Lowest ratio", 0.01, 1.0, float(rule.ratio_lo), 0.01,
                                              key=k + "lo")
        updates["ratio_hi"] = c2.number_input("Highest ratio", 1.0, 10.0, float(rule.ratio_hi), 0.01,
                                              key=k + "hi")
    elif rule.kind == "min_n":
        updates["threshold"] = int(st.number_input("Minimum n", 1, 10_000_000, int(rule.threshold),
                                                   key=k + "t"))
    else:
        label = {"score": "Threshold (normalized 0-1)", "max_unscored_share": "Maximum share (0-1)",
                 "judge_agreement": "Minimum ICC",
                 "max_cost_per_1k": "Maximum USD per 1,000 requests",
                 "critical_criterion": f"Maximum share of cases missing {getattr(rule, 'tag', '')} (0-1)",
                 }[rule.kind]
        updates["threshold"] = st.number_input(label, value=float(rule.threshold), step=0.01, format="%.3f",
                                               key=k + "t")
    if rule.kind in ("score", "critical_criterion"):
        updates["min_n"] = int(st.number_input("Minimum n", 0, 10_000_000, int(rule.min_n), key=k + "n"))
    if hasattr(rule, "allow_point_estimate"):
        updates["allow_point_estimate"] = st.checkbox(
            "Accept evidence without an interval for this rule", value=rule.allow_point_estimate,
            key=k + "pe", help="Published jury means and mean F1 have no interval; by default they cannot "
                               "pass or fail alone.")
    updates["rationale"] = st.text_area("Rationale", value=rule.rationale, key=k + "why_bar")
    why = (st.text_input("Reason for the change (required once locked)", key=k + "reason")
           if policy.lock else "")
    try:
        edited = type(rule).model_validate({**rule.model_dump(), **updates})
    except ValidationError as exc:
        st.warning("; ".join(e["msg"] for e in exc.errors()))
        edited = None
    c1, c2 = st.columns(2)
    if c1.button("Save rule", key="rule_save", disabled=edited is None or edited == rule):
        apply(change_rule, f"rule changed: {rule_label(rule)}", rule=edited, by=ui.reviewer(), why=why)
    if c2.button("Remove rule", key="rule_remove"):
        apply(delete_rule, f"rule removed: {rule_label(rule)}", rule_id=rule.id, by=ui.reviewer(), why=why)

with st.expander("Add a score rule for one benchmark"):
    benches = sorted({e.benchmark for e in dossier.evidence})
    if not benches:
        st.caption("Attach evidence first: the benchmark list comes from the dossier's evidence.")
    else:
        bench = st.selectbox("Benchmark", benches, key="rule_add_bench")
        threshold = st.number_input("Threshold (normalized 0-1)", 0.0, 1.0, 0.8, 0.01, key="rule_add_t")
        rationale = st.text_area("Rationale", key="rule_add_why_bar")
        why = (st.text_input("Reason for adding it (required once locked)", key="rule_add_reason")
               if policy.lock else "")
        rid = "score." + "".join(ch for ch in bench.lower() if ch.isalnum())
        ok = len(rationale.strip()) >= 10 and rid not in [r.id for r in policy.rules]
        new = (ScoreRule(id=rid, benchmark=bench, threshold=threshold, rationale=rationale.strip())
               if ok else None)
        if st.button("Add rule", key="rule_add", disabled=not ok):
            apply(change_rule, f"rule added: {rule_label(new) if new else rid}", rule=new, by=ui.reviewer(),
                  why=why)

with st.expander("Add a critical-criterion rule (a harm the committee bars)"):
    # The tags come from the attached rubric gradings, counted once at attachment (Evidence.criterion_misses)
    tags = sorted({t for e in dossier.evidence for t in (e.criterion_misses or {})})
    if not tags:
        st.caption("Attach a rubric grading first (Local scenarios, Grade with rubric): the tags come from "
                   "its criteria, e.g. critical:medication_change.")
    else:
        tag = st.selectbox("Rubric criterion tag", tags, key="crit_add_tag")
        c1, c2 = st.columns(2)
        rate = c1.number_input("Maximum share of cases missing it (0-1)", 0.001, 0.999, 0.05, 0.01,
                               format="%.3f", key="crit_add_rate")
        min_n = int(c2.number_input("Minimum n", 0, 10_000_000, 0, key="crit_add_n"))
        rationale = st.text_area("Rationale", key="crit_add_why_bar")
        why = (st.text_input("Reason for adding it (required once locked)", key="crit_add_reason")
               if policy.lock else "")
        new = critical_rule(tag, rate, min_n=min_n, rationale=rationale.strip() or None)
        taken = new.id in [r.id for r in policy.rules]
        ok = len(rationale.strip()) >= 10 and not taken
        if taken:
            st.caption(f"A rule on {ui.plain(tag)} exists already: change it under Edit a rule.")
        elif not ok:
            st.caption("Write a rationale (at least 10 characters) to add the rule.")
        if st.button("Add critical rule", key="crit_add", disabled=not ok):
            apply(change_rule, f"rule added: {rule_label(new)}", rule=new, by=ui.reviewer(), why=why)

if not policy.lock:
    note = st.text_input("Note for the lock (e.g. the meeting that agreed the rules)", key="lock_note")
    if st.button("Lock rules", key="rules_lock", type="primary"):
        apply(lock_rules, "rules locked", by=ui.reviewer(), note=note)
if policy.changes:
    st.subheader("Changes after the lock")
    readable.show(tables.changes_frame(policy))

st.subheader("Verdicts")
score, gating = assessment.score_counts(), assessment.gating_counts()
st.markdown("**Score verdicts** (the family whose error rate is controlled)")
cols = st.columns(3)
for col, status in zip(cols, ("pass", "fail", "inconclusive"), strict=True):
    col.metric(tables.STATUS_MARK[status], score[status])
st.markdown("**Gating rules** (minimum n, unscored share, subgroups, judge agreement, cost; counted apart)")
cols = st.columns(4)
for col, status in zip(cols, ("pass", "fail", "inconclusive", "not_applicable"), strict=True):
    col.metric(tables.STATUS_MARK[status], gating[status])
plain_words.how_computed([METHOD, *([assessment.family.statement()] if assessment.family else []),
                          FURTHER.format(power=policy.power)])
pre_head, *pre_lines = recommendation.preregistration
st.markdown(f"**Pre-registration.** {pre_head}")
with st.expander("Which verdicts are pre-registered, rule by rule"):
    for line in pre_lines:
        st.markdown(f"- {ui.plain(line)}")
shown = st.multiselect("Show", ["pass", "fail", "inconclusive", "not_applicable"],
                       default=["pass", "fail", "inconclusive", "not_applicable"], key="verdict_filter",
                       format_func=tables.STATUS_MARK.get)
readable.show(tables.verdicts_frame([v for v in assessment.verdicts if v.status in shown]))
st.info(f"Recommendation: **{recommendation.reasons[0]}** Details and the committee's decision are on the "
        "**Decision** page.")
