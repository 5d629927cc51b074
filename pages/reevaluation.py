"""Re-evaluation: re-run the decision's frozen plan with a changed model or prompt; read the addenda.

The re-run works in the background (the one job manager); this page polls its status from the store,
so a rerun or a reload does not cut it off."""

import streamlit as st

from governance.reevaluation import PlanChange, current_plan, read_prompt_bytes, start_reevaluation
from governance.runs import job_status
from pages import ui
from pages.job_panel import live_job_panel
from reports import addendum_section, section_markdown

POLL_S = 1.0

st.title("Re-evaluation")
version = ui.require_dossier()
dossier = version.dossier
if dossier.decision is None:
    st.info("Record the committee's decision first (page **Decision**): a re-evaluation asks whether a model "
            "or prompt change would change that decision.")
    st.stop()

plan, at_decision = current_plan(ui.store(), dossier)
st.subheader("Frozen evidence plan")
when = "Frozen with the decision" if at_decision else (
    "The decision predates plan freezing; this plan is read from the dossier's evidence now")
st.caption(f"{when} on {plan.frozen_at:%Y-%m-%d %H:%M} UTC. {plan.note} Keys are never stored: only the "
           "name of the environment variable that holds one.")
if plan.items:
    st.dataframe(plan.display_rows(), hide_index=True, width="stretch")

st.subheader("Re-evaluate")
st.caption("Leave a field empty to keep it as frozen. Every instance is asked again, even when nothing "
           "changed: a vendor can change the model behind the same name and URL, so a re-evaluation never "
           "reads an answer recorded before it started (only a cancelled re-evaluation started again "
           "continues its own re-run).")
with st.form("reeval_form"):
    c1, c2 = st.columns(2)
    model = c1.text_input("New model (litellm model string)", key="reeval_model", placeholder="as frozen")
    api_base = c2.text_input("New API base", key="reeval_api_base", placeholder="as frozen")
    key_env = c1.text_input("Key variable NAME for the new endpoint", key="reeval_key_env",
                            placeholder="as frozen")
    upload = c2.file_uploader("New prompt file (a text template, or YAML/JSON with prompt_template and/or "
                              "system_prompt)", type=["txt", "md", "yaml", "yml", "json"],
                              key="reeval_prompt")
    p1, p2 = st.columns(2)
    in_price = p1.number_input("New model's USD per 1M prompt tokens (optional)", value=None,
                               min_value=0.0, key="reeval_in_price")
    out_price = p2.number_input("New model's USD per 1M completion tokens (optional)", value=None,
                                min_value=0.0, key="reeval_out_price")
    phi = st.checkbox("The new endpoint is approved for PHI", key="reeval_phi")
    submitted = st.form_submit_button("Run re-evaluation", type="primary", disabled=not plan.rerunnable)

if submitted:
    try:
        prompt = read_prompt_bytes(upload.name, upload.getvalue()) if upload is not None else {}
        change = PlanChange(model=model.strip() or None, api_base=api_base.strip() or None,
                            api_key_env=key_env.strip() or None, phi_approved=True if phi else None,
                            input_price_per_mtok=in_price, output_price_per_mtok=out_price, **prompt)
        # Checking the frozen plan and queueing the runs takes a moment before the first progress (issue
        # 27: the page showed nothing for 2 s).
        with ui.permitted(), st.spinner("Starting the re-evaluation: checking the frozen plan and queueing "
                                        "its runs..."):
            job = start_reevaluation(ui.store(), dossier.id, change, actor=ui.actor())
    except ValueError as exc:  # ReevaluationError, or a change the form cannot express
        st.error(f"Re-evaluation not done: {exc}")
    else:
        st.session_state["reeval_job"] = job.job_id


@st.fragment(run_every=POLL_S)
def reevaluation_job(job_id: str) -> None:
    """The background re-evaluation's progress; the page redraws with the addendum once it is saved."""
    status = job_status(ui.store(), job_id)
    if status is not None and live_job_panel(
            status, text=status.note or "starting",
            stopping="Stopping after the requests in flight; nothing will be saved…",
            cancel_label="Cancel re-evaluation", key="reeval_cancel"):
        return
    st.session_state.pop("reeval_job", None)
    brief = (status.brief or {}) if status is not None else {}
    if "addendum_id" in brief:
        if brief.get("hash"):  # the job saved in its own thread, outside this page's receipt
            ui.record_own(dossier.id, brief["hash"], brief.get("parent_hash"))
        st.session_state["reeval_shown"] = brief["addendum_id"]
        st.session_state["reeval_toast"] = (f"Saved version {brief['version']} with re-evaluation "
                                            f"{brief['addendum_id']}.")
    elif status is not None:
        reason = str(status.error or status.state).removeprefix("ReevaluationError: ")
        st.session_state["reeval_error"] = f"Re-evaluation not done: {reason}"
    st.rerun()


if toast := st.session_state.pop("reeval_toast", None):
    st.toast(toast)
if problem := st.session_state.pop("reeval_error", None):
    st.error(problem)
if job_id := st.session_state.get("reeval_job"):
    reevaluation_job(job_id)

addenda = list(reversed(ui.current().dossier.reevaluations))
st.subheader("Addenda")
if not addenda:
    st.info("No re-evaluation recorded yet.")
    st.stop()
labels = {a.id: f"{a.id} · {a.created_at:%Y-%m-%d %H:%M} · {a.change.describe()}" for a in addenda}
ids = list(labels)
# A newly saved addendum is shown at once: the selectbox's own remembered choice must not keep the old one.
shown = st.session_state.pop("reeval_shown", None)
if shown in ids or st.session_state.get("reeval_pick") not in ids:
    st.session_state["reeval_pick"] = shown if shown in ids else ids[0]
chosen = st.selectbox("Addendum", ids, key="reeval_pick", format_func=labels.get)
addendum = next(a for a in addenda if a.id == chosen)
decided = addendum.impact.decided_model
st.markdown("**Re-run:** " + (ui.plain(", ".join(addendum.candidates_rerun)) or "no candidate") + " (" +
            ui.plain(", ".join(addendum.benchmarks_rerun)) + ")")
answer = f"**Would this change the decision? {'Yes' if addendum.impact.would_change else 'No'}.** "
if not addendum.answers_for_decided_model:
    st.warning(f"The decided candidate, {ui.plain(decided)}, was not re-run in this addendum, so it cannot "
               "say whether the decision would change; re-evaluate that candidate's evidence.")
else:
    (st.error if addendum.impact.would_change else st.success)(answer + ui.plain(addendum.impact.why[0]))
if addendum.served_identity_changed:
    changed = [c for c in addendum.comparisons if c.served_identity_changed]
    st.warning("**Another served model answered than in the decided run.** " + " ".join(
        f"{ui.plain(c.benchmark)}: {ui.plain('; '.join(i.describe() for i in c.served_before))} → "
        f"{ui.plain('; '.join(i.describe() for i in c.served_after))}." for c in changed))
body = addendum_section(addendum).model_copy(update={"paragraphs": []})
st.markdown(section_markdown(body, level=3, heading=False))
