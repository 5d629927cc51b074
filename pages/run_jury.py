"""The Run evidence page's jury section: score a finished free-text run with an LLM jury.

Shared page code, not a page (like ``pages/job_panel.py``): the section reads the form, calls
``governance.runs.operations.juries`` for the estimate, the background job and the attachment, and
renders what comes back. The jury works in the one job manager and writes every judgement to the
store, so the section polls the job's status and redraws the jury's result from the store.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from evaluator import RunRecord, default_jury_method
from governance import Dossier
from governance.runs import (
    JuryPlan,
    JuryRequest,
    JuryRunError,
    attach_jury,
    default_judges,
    job_status,
    judge_options,
    jury_evidence,
    needs_dataset_file,
    plan_jury,
    run_dataset_path,
    run_juries,
    start_jury,
)
from pages import signoff_guard, ui
from pages.job_panel import job_ended, live_job_panel

POLL_S = 1.0


def _request(dossier: Dossier, record: RunRecord) -> JuryRequest | None:
    """The form: judges, how to reach them, the dataset when it is not known; None until it is complete."""
    rid = record.run_id
    chosen = st.multiselect("Judges", judge_options(dossier, record.benchmark_id),
                            default=default_judges(record.benchmark_id), key=f"jury_judges_{rid}",
                            help="The benchmark's jury, else MedHELM's three vendors (OpenAI, Anthropic, "
                                 "Meta), then the endpoints of this dossier's candidates.")
    more = st.text_input("More judges (comma-separated litellm model strings)", key=f"jury_more_{rid}",
                         placeholder="openai/<name> on the server below")
    judges = tuple(dict.fromkeys([*chosen, *(m.strip() for m in more.split(",") if m.strip())]))
    c1, c2 = st.columns(2)
    api_base = c1.text_input("Judges' API base (optional)", key=f"jury_api_base_{rid}",
                             help="One OpenAI-compatible server for every judge; empty: each provider's own.")
    key_env = c2.text_input("Judges' key variable NAME", key=f"jury_key_env_{rid}",
                            help="The name of the environment variable holding the key, never the key.")
    max_cost = c1.number_input("Max cost (USD)", min_value=0.0, value=None, key=f"jury_max_cost_{rid}",
                               placeholder="no limit")
    phi = c2.checkbox("The judges' endpoints are approved for PHI", key=f"jury_phi_{rid}",
                      help="The judges read the cases and the model's answers. Without this, or a "
                           "de-identification attestation for the run's cases, identifiers stop the jury.")
    methods = ["medhelm", "helm-0.5", "strict"]
    method = st.radio("Scoring method", methods, horizontal=True, key=f"jury_method_{rid}",
                      index=methods.index(default_jury_method(record.benchmark_id)),
                      help="medhelm: MedHELM's arithmetic as the medhelm 0.8.0 package computes it, "
                           "comparable with its published scores (an instance without a valid judgement "
                           "counts at the lowest score, 1.0; judges get 4,096 tokens). helm-0.5: crfm-helm "
                           "0.5.16's (scores truncated to integers), for older leaderboards. strict: ours "
                           "(such an instance is unscored and left out). All are computed from the same "
                           "replies and shown when they differ.")
    dataset = run_dataset_path(ui.store(), record.run_key)
    if needs_dataset_file(ui.store(), record):
        dataset = st.text_input("Dataset file the run was made on (path)", key=f"jury_dataset_{rid}",
                                help="The judges see each case's question and reference answer.") or None
        if dataset is None:
            st.caption("Give the dataset file the run was made on: its path was not stored with the run.")
            return None
    if len(judges) < 3:
        st.caption("Choose at least three judges (MedHELM uses three, from three vendors).")
        return None
    try:
        return JuryRequest(run_id=rid, judges=judges, api_base=api_base.strip() or None,
                           api_key_env=key_env.strip() or None, dataset_path=dataset,
                           max_cost_usd=max_cost or None, phi_approved=phi, method=method)
    except ValueError as exc:
        st.warning(str(exc))
        return None


def _estimate(plan: JuryPlan) -> None:
    m = st.columns(3)
    m[0].metric("Judge requests to send", sum(e.n_to_send for e in plan.judges),
                help="Judges × instances, minus replies already in the cache.")
    m[1].metric("Prompt tokens", f"{sum(e.prompt_tokens for e in plan.judges):,}")
    m[2].metric("Jury cost, at most", "—" if plan.cost_usd_max is None else f"${plan.cost_usd_max:,.4f}")
    st.dataframe(pd.DataFrame([{"judge": e.judge, "vendor": e.vendor, "to send": e.n_to_send,
                                "cached (free)": e.n_cached, "prompt tokens": e.prompt_tokens,
                                "USD at most": e.cost_usd_max, "price from": e.price_source or "unknown"}
                               for e in plan.judges]), hide_index=True, width="stretch")
    skipped = "; ".join(f"{n} {why}" for why, n in plan.skipped.items())
    st.caption(f"{plan.n_judged} of {plan.n_instances} responses go to the judges"
               + (f" ({skipped}: unscored)" if skipped else "")
               + f", rubric {plan.rubric_id}, {plan.method} method ({plan.max_tokens:,} output tokens per "
               f"reply). **Upper bound**: {plan.note}."
               + ("" if plan.cost_usd_max is not None else
                  " A judge has no known price, so the cost is not bounded."))
    if plan.n_vendors < 3:
        st.warning(f"The judges come from {plan.n_vendors} vendor(s). MedHELM's jury uses three vendors so "
                   "that one family's blind spots do not decide the score.")
    for problem in plan.key_problems:
        st.error(problem)


@st.fragment(run_every=POLL_S)
def _jury_job(job_id: str) -> None:
    """The background jury's progress; the section redraws with the result once it ends."""
    status = job_status(ui.store(), job_id)
    if status is not None and live_job_panel(
            status, text=f"{status.done} of {status.total} judgements · {status.note or 'starting'}",
            stopping="Stopping after the judge requests in flight; they are kept…",
            cancel_label="Cancel jury", key="jury_cancel"):
        return
    job_ended(status, job_key="jury_job", error_key="jury_error", what="jury", strip=("PhiBlocked: ",))


def _results(dossier: Dossier, record: RunRecord, request: JuryRequest | None) -> None:
    juries = run_juries(ui.store(), record.run_id)
    if not juries:
        return
    s = juries[0]
    mean = "—" if s.mean is None else f"{s.mean:.2f} on 1-5 (normalized {s.normalized_mean:.3f})"
    ci = ("" if s.ci_lower is None else f", 95% CI {s.ci_lower:.2f}–{s.ci_upper:.2f}")
    st.markdown(f"**Jury {s.jury_id}** ({s.status}, {s.method} method): mean {mean}{ci}; {s.n_scored} "
                f"scored, **{s.n_unscored} unscored** of {s.n}; judges disagree on {s.n_flagged}; "
                f"{s.new_requests} request(s) sent, {s.cache_hits} from the cache, ${s.cost_usd:,.4f}.")
    if s.methods_differ:
        st.markdown("The two methods differ on these replies:\n" + "\n".join(
            f"- **{f.method}**: {'—' if f.mean is None else f'{f.mean:.2f}'} over {f.n_in_mean} instance(s); "
            f"{f.n_unscored} without a valid judgement, {f.treatment}"
            + (f"; {f.n_helm_errors} judgement(s) would stop HELM's own run" if f.n_helm_errors else "")
            for f in s.by_method.values()))
    if s.evidence_method() != s.method:
        st.caption(f"Its evidence uses the {s.evidence_method()} method: {s.benchmark_id} is a MedHELM "
                   "benchmark, so its score stands beside a published MedHELM one.")
    if s.unscored_reasons:
        st.markdown("Unscored judgements and instances, by reason:\n"
                    + "\n".join(f"- {why}: {n}" for why, n in s.unscored_reasons.items()))
    if s.status != "completed":
        st.info("This jury stopped before it finished. Starting it again sends only what is not in the "
                "cache.")
        if request is not None and st.button("Resume jury", key=f"jury_resume_{s.jury_id}", type="primary"):
            _start(request)
        return
    evidence = jury_evidence(s, dossier)
    if not evidence:
        return
    if all(e.id in {x.id for x in dossier.evidence} for e in evidence):
        st.success("This jury's score is attached to the dossier as evidence.")
    elif signoff_guard.go_ahead(f"jury_attach_{s.jury_id}", st.button(
            "Attach jury score as evidence", key=f"jury_attach_{s.jury_id}", type="primary")):
        try:
            with ui.permitted():
                v = attach_jury(ui.store(), dossier.id, s.jury_id, actor=ui.actor())
            st.session_state["run_flash"] = (f"Attached the jury score: saved version {v.version} "
                                             f"({v.hash[:12]}).")
            st.rerun()
        except JuryRunError as exc:
            st.error(str(exc))


def _start(request: JuryRequest) -> None:
    st.session_state.pop("jury_error", None)
    try:
        with ui.permitted():
            st.session_state["jury_job"] = start_jury(ui.store(), request, actor=ui.actor()).job_id
        st.session_state.pop("jury_plan", None)
        st.rerun()
    except JuryRunError as exc:
        st.error(str(exc))


def jury_section(dossier: Dossier, record: RunRecord, number: int = 5) -> None:
    """Section ``number`` for a completed free-text run: judges, estimate, the background jury, evidence."""
    st.subheader(f"{number}. Score with the LLM jury")
    st.caption("Free-text answers are scored by judge models on the benchmark's rubric (1-5), as MedHELM "
               "does (a local scenario's free-text cases on the default rubric; its other cases keep their "
               "own scores and are not judged). Under the strict method a judge reply that cannot be read is "
               "asked for once more, then "
               "counted as unscored with its reason, never as a score; the medhelm method reads the replies "
               "as MedHELM does, so the score is comparable with its published ones.")
    if problem := st.session_state.get("jury_error"):  # kept until the next start
        st.error(problem)
    if job_id := st.session_state.get("jury_job"):
        _jury_job(job_id)
        return
    request = _request(dossier, record)
    if st.button("Estimate jury", key="jury_estimate", disabled=request is None):
        try:
            st.session_state["jury_plan"] = plan_jury(ui.store(), request)
        except JuryRunError as exc:
            st.session_state.pop("jury_plan", None)
            st.error(str(exc))
    plan = st.session_state.get("jury_plan")
    if plan is not None and plan.request != request:
        plan = None
    if plan is None:
        st.caption("Nothing is sent until you press Start jury after the estimate.")
    else:
        _estimate(plan)
        if st.button("Start jury", key="jury_start", type="primary", disabled=bool(plan.key_problems)):
            _start(plan.request)
    _results(dossier, record, request)
