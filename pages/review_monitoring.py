"""Review & monitoring: the human review and the monitoring plan the risk and the verdicts call for."""

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from governance.decision import MonitoredMetric, Trigger, derive_plan, edit_plan
from governance.dossier import source_words
from governance.procurement import candidate_names
from pages import tables, ui

st.title("Review & monitoring")
version = ui.require_dossier()
dossier = version.dossier
plan = dossier.oversight
models = list(dict.fromkeys(e.model for e in dossier.evidence))
default_model = dossier.decision.model if dossier.decision else None

st.caption("Benchmarks say how a model did on test cases; review and monitoring are how the hospital finds "
           "out how it does on its own patients. The plan is derived from the risk tier and the verdicts, "
           "then edited and agreed by the committee.")
options = ["(all candidates)", *models]
names = candidate_names(dossier)  # the products compared, not model strings (issue 36 item 10)
pick = st.selectbox("Derive for candidate", options, key="plan_model", format_func=lambda m: names.get(m, m),
                    index=options.index(default_model) if default_model in options else 0)
label = "Derive the plan" if plan is None else "Derive again (replaces the stored plan)"
if st.button(label, key="plan_derive", type="primary" if plan is None else "secondary"):
    model = None if pick == "(all candidates)" else pick
    ui.save(derive_plan(ui.current().dossier, model=model), note="review and monitoring derived")
    st.rerun()
if plan is None:
    st.info("No plan yet.")
    st.stop()

st.markdown(f"**Derived from** {ui.plain(source_words(plan.derived_from))}"
            + (f" · **edited by** {ui.plain(plan.edited_by)} on {plan.edited_at:%Y-%m-%d %H:%M}"
               if plan.edited_by else ""))
with st.expander("Why these requirements", expanded=True):
    for reason in plan.reasons:
        st.markdown(f"- {ui.plain(reason)}")

r = plan.review
k = f"plan_{version.version}_"
st.subheader("Human review")
before = st.checkbox("Every output is reviewed by a qualified person before it reaches a chart or a patient",
                     value=r.review_before_release, key=k + "before")
reviewer = st.text_input("Who reviews", value=r.reviewer, key=k + "reviewer")
qualification = st.text_area("Reviewer qualification", value=r.qualification, key=k + "qualification")
c1, c2 = st.columns(2)
rate = c1.number_input("Audited share of released outputs", 0.0, 1.0, float(r.qa_sample_rate), 0.01,
                       format="%.2f", key=k + "rate")
qa_reviewer = c2.text_input("Who audits", value=r.qa_reviewer, key=k + "qa_reviewer")
stratify = st.checkbox("Draw the audit sample equally from each subgroup", value=r.stratify_audit_by_subgroup,
                       key=k + "stratify")
clinician = st.checkbox("Audit ratings by clinicians (not the LLM jury)", value=r.clinician_rated_audit,
                        key=k + "clinician")

m = plan.monitoring
st.subheader("Monitoring")
c1, c2 = st.columns(2)
months = c1.number_input("Months between scheduled re-evaluations", 1, 60, m.schedule_months,
                         key=k + "months")
owner = c2.text_input("Owner", value=m.owner, key=k + "owner")


def words(value: str) -> str:
    """A stored choice as words (the table keeps the stored value)."""
    return tables.VALUE_LABELS.get(value, value)


st.markdown("**Re-evaluation triggers**")
triggers = st.data_editor(pd.DataFrame([t.model_dump() for t in m.triggers]), num_rows="dynamic",
                          hide_index=True, width="stretch", key=k + "triggers",
                          column_config={"kind": st.column_config.SelectboxColumn(
                              "Trigger", options=["model_version_change", "prompt_change", "vendor_notice",
                                                  "schedule", "metric_breach"], required=True,
                              format_func=words),
                              "description": st.column_config.TextColumn("Description")})
st.markdown("**Metrics and alarm thresholds**")
metrics = st.data_editor(pd.DataFrame([x.model_dump() for x in m.metrics]), num_rows="dynamic",
                         hide_index=True, width="stretch", key=k + "metrics",
                         column_config={"direction": st.column_config.SelectboxColumn(
                             "Must stay", options=["at_least", "at_most"], required=True,
                             format_func=words),
                             "name": st.column_config.TextColumn("Metric"),
                             "threshold": st.column_config.NumberColumn("Threshold"),
                             "source": st.column_config.TextColumn("Where the threshold comes from")})

def records(frame: pd.DataFrame) -> list[dict]:
    """Edited rows without blank cells (a blank cell is a missing value, not NaN)."""
    rows = frame.dropna(how="all").to_dict("records")
    return [{k: v for k, v in row.items() if not pd.isna(v)} for row in rows]


try:
    review = r.model_copy(update={"review_before_release": before, "reviewer": reviewer,
                                  "qualification": qualification, "qa_sample_rate": rate,
                                  "qa_reviewer": qa_reviewer, "stratify_audit_by_subgroup": stratify,
                                  "clinician_rated_audit": clinician})
    review = type(review).model_validate(review.model_dump())
    monitoring = type(m).model_validate({
        "triggers": [Trigger.model_validate(t) for t in records(triggers)],
        "metrics": [MonitoredMetric.model_validate(x) for x in records(metrics)],
        "schedule_months": months, "owner": owner})
except ValidationError as exc:
    st.warning("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    review = monitoring = None
changed = review is not None and (review != r or monitoring != m)
if st.button("Save the agreed plan", key="plan_save", disabled=not changed):
    ui.save(edit_plan(ui.current().dossier, review, monitoring, by=ui.reviewer()),
            note="review and monitoring edited")
    st.rerun()
