"""Run evidence: run a benchmark on a candidate endpoint, watch results land, attach them as Evidence.

Runs work in background threads of the app process and store every finished instance at once,
so this page renders from the store: a rerun, a reload or a second tab shows the same run."""

import pandas as pd
import streamlit as st

from evaluator import JOBS, METHOD_LABELS, RESENT_NOTE, AttestationInput, PhiBlocked
from governance import attach_run, build_request
from governance.dossier import metric_label
from governance.procurement import run_presets
from governance.runs import (
    RunInputError,
    RunnableBenchmark,
    RunView,
    cancel_run,
    dossier_runs,
    estimate_request,
    job_elsewhere,
    resume_run,
    run_id_for_key,
    run_jury_applies,
    run_view,
    runnable_benchmarks,
    save_upload,
    start_run,
    suggested_models,
)
from governance.scenarios import attest_file
from pages import signoff_guard, ui
from pages.run_jury import jury_section

OTHER = "another model"
POLL_S = 1.0

st.title("Run evidence")
version = ui.require_dossier()
dossier = version.dossier
store = ui.store()
st.caption("Run a benchmark on a candidate model here and attach the score, with its n and 95% interval, "
           "to the dossier. Each finished instance is saved as it completes: leave or reload the page and "
           "nothing is lost; an identical run continues where it stopped and never pays twice.")
if dossier.policy is None or dossier.policy.lock is None:
    st.warning("The acceptance rules are not locked yet. Evidence run now will not count as pre-registered: "
               "set and lock the rules on **Rules & verdicts** first, so the bar is fixed before the result "
               "is known.")
if flash := st.session_state.pop("run_flash", None):
    st.success(flash)


def bench_label(b: RunnableBenchmark) -> str:
    return f"{b.title} · {'mapped' if b.mapped_to else 'not mapped'}"


def candidate_preset() -> None:
    """A candidate recorded on the Candidates page fills in the endpoint, key variable and prices below.

    Labelled "vendor product" (the Candidates page's word) so that it is not confused with the
    "Candidate" picker below it.
    """
    presets = {p.candidate_id: p for p in run_presets(dossier)}
    if not presets:
        return

    def fill() -> None:
        p = presets.get(st.session_state.get("run_preset"))
        if p is not None:
            st.session_state.update({"run_candidate": OTHER, "run_model_other": p.model,
                                     "run_api_base": p.api_base, "run_key_env": p.api_key_env,
                                     "run_in_price": p.input_price, "run_out_price": p.output_price})

    chosen = st.selectbox("Recorded vendor product (fills in the endpoint below)", ["", *presets],
                          key="run_preset", format_func=lambda i: presets[i].label if i else "—",
                          on_change=fill)
    if chosen:
        st.caption(presets[chosen].note)


def new_run() -> None:
    """Sections 1-3: benchmark, endpoint, dry-run estimate, and the Run button."""
    st.subheader("1. Benchmark")
    show_all = st.checkbox("Also show benchmarks not mapped to this dossier", key="run_show_all")
    offered = {b.id: b for b in runnable_benchmarks(dossier, include_unmapped=show_all)}
    bench = offered[st.selectbox("Benchmark", list(offered), key="run_benchmark",
                                 format_func=lambda i: bench_label(offered[i]))]
    st.caption(bench.description)
    if bench.mapped_to:
        st.caption("Evidence for this dossier's accepted subcategory: " + ", ".join(bench.mapped_to) + ".")
    else:
        st.info("Not mapped to this dossier's accepted subcategories: use it to try an endpoint; its "
                "score is not evidence for this job.")
    if bench.note:
        st.caption(bench.note)
    dataset_path = None
    if bench.needs_file:
        how = st.radio("Dataset file", ["Path on this machine", "Upload"], horizontal=True,
                       key="run_dataset_how")
        if how == "Upload":
            upload = st.file_uploader(f"Dataset ({bench.file_format})", key=f"run_upload_{bench.id}")
            dataset_path = str(save_upload(upload.name, upload.getvalue())) if upload else None
        else:
            dataset_path = st.text_input(f"Path ({bench.file_format})", key=f"run_path_{bench.id}")
        st.caption(f"Official file: {bench.dataset_source}. Nothing is downloaded.")

    st.subheader("2. Candidate endpoint")
    candidate_preset()
    candidate = st.selectbox("Candidate", [*suggested_models(dossier), OTHER], key="run_candidate",
                             help="The dossier's candidate models; the model string below is what is called.")
    left, right = st.columns(2)
    model = left.text_input("litellm model string", value="" if candidate == OTHER else candidate,
                            key="run_model_other" if candidate == OTHER else f"run_model_{candidate}",
                            placeholder="gpt-4o, azure/<deployment>, openai/<name>",
                            help="`openai/<name>` with an API base reaches vLLM, Ollama or another "
                                 "OpenAI-compatible server.")
    api_base = right.text_input("API base (optional)", key="run_api_base", placeholder="http://127.0.0.1:8000/v1")
    c1, c2 = st.columns(2)
    key_env = c1.text_input("API key variable NAME", key="run_key_env", placeholder="OPENAI_API_KEY",
                            help="The name of the environment variable holding the key, never the key.")
    concurrency = c2.number_input("Concurrency", min_value=1, max_value=256, value=8, key="run_concurrency")
    phi_ok = c1.checkbox("Approved for PHI", key="run_phi_ok",
                         help="On premises, or covered by a business associate agreement: cases with likely "
                              "patient identifiers may be sent to it.")
    max_cost = c1.number_input("Max cost (USD)", min_value=0.0, value=None, key="run_max_cost",
                               placeholder="no limit")
    limit = c2.number_input("Limit (first N instances)", min_value=1, value=None, step=1, key="run_limit",
                            placeholder="all")
    with st.expander("Price override (USD per 1M tokens), for models without a known price"):
        p1, p2 = st.columns(2)
        in_price = p1.number_input("Input", min_value=0.0, value=None, key="run_in_price")
        out_price = p2.number_input("Output", min_value=0.0, value=None, key="run_out_price")

    preset = st.session_state.get("run_preset") or None
    chosen = candidate if candidate != OTHER else preset
    if chosen and model.strip() and chosen != model.strip():
        st.caption(f"The run counts for candidate **{ui.plain(chosen)}**; {ui.plain(model.strip())} is the "
                   "endpoint it calls.")
    request = None
    try:
        request = build_request(bench.id, model, dataset_path=dataset_path, api_base=api_base, name=chosen,
                                api_key_env=key_env, concurrency=int(concurrency), max_cost_usd=max_cost,
                                limit=limit, input_price=in_price, output_price=out_price,
                                phi_approved=phi_ok)
    except RunInputError as exc:
        st.warning(str(exc) if model.strip() else "Give the litellm model string of the endpoint.")

    st.subheader("3. Dry-run estimate")
    if st.button("Estimate", key="run_estimate_button", disabled=request is None):
        try:
            st.session_state["run_plan"] = estimate_request(store, request)
        except RunInputError as exc:
            st.session_state.pop("run_plan", None)
            st.error(str(exc))
    plan = st.session_state.get("run_plan")
    if plan is not None and plan.request != request:
        st.info("The settings changed since the last estimate: estimate again before running.")
        plan = None
    if plan is None:
        st.caption("Nothing is sent until you press Run after the estimate.")
    else:
        est = plan.estimate
        m = st.columns(3)
        m[0].metric("Requests to send", est.n_to_send, help="Instances minus those already done or cached.")
        m[1].metric("Prompt tokens", f"{est.prompt_tokens:,}", help=f"Counted with {est.token_method}.")
        m[2].metric("Cost, at most", "—" if est.cost_usd_max is None else f"${est.cost_usd_max:,.4f}")
        price = ("No price is known for this model, so the cost is not bounded: give a price override"
                 if est.cost_usd_max is None else f"Price from {est.price_source}")
        st.caption(f"{est.n} instances: {est.n_already_done} already done in an unfinished identical run, "
                   f"{est.n_cached} answered from the cache (free); {est.n_to_send} request(s) to send, at "
                   f"most {est.completion_tokens_max:,} completion tokens. **Upper bound**: every completion "
                   f"counted at the full max_tokens budget; retries not included. {price}.")
        if plan.key_problem:
            st.error(plan.key_problem)
        blocked = plan.phi is not None and not plan.phi.allowed
        if blocked:
            st.error(plan.phi.explanation)
            attestation_form(plan.request.dataset_path)
        elif plan.phi is not None and plan.phi.n_identifiers:
            st.info(plan.phi.explanation)
        label = "Resume run" if est.n_already_done else "Run"
        if st.button(label, key="run_start", type="primary", disabled=bool(plan.key_problem) or blocked):
            try:
                with ui.permitted():
                    job = start_run(store, plan.request, actor=ui.actor())
                st.session_state["run_key"] = job.run_key
                st.session_state.pop("run_plan", None)
                st.rerun()
            except (RunInputError, PhiBlocked) as exc:
                st.error(str(exc))


def attestation_form(dataset_path: str | None) -> None:
    """Record that the dataset file is de-identified (the PHI gate's way past a false alarm)."""
    if not dataset_path:
        return
    with st.form("run_attest_form"):
        st.markdown("**Record a de-identification attestation** for this file, if its cases are "
                    "de-identified and the findings above are false alarms. It is kept with the file's "
                    "SHA-256 and shown in this dossier and its PDF.")
        by = st.text_input("Attested by (name and role)", key="run_attest_by")
        method = st.radio("Method", list(METHOD_LABELS), format_func=METHOD_LABELS.get,
                          key="run_attest_method")
        note = st.text_input("Note (optional)", key="run_attest_note",
                             placeholder="e.g. expert determination report reference")
        if st.form_submit_button("Record attestation"):
            if not by.strip():
                st.error("Say who attests the de-identification.")
                return
            given = AttestationInput(attested_by=by, method=method, note=note)
            with ui.permitted():
                recorded = attest_file(store, dataset_path, given, dossier.id, actor=ui.actor())
            st.session_state.pop("run_plan", None)
            st.session_state["run_flash"] = (f"Attestation recorded: {ui.plain(recorded.describe())}. "
                                             "Estimate again to run.")
            st.rerun()


def data_handling() -> None:
    """The de-identification attestations recorded with this dossier."""
    if dossier.deidentification:
        st.subheader("Data handling")
        for a in dossier.deidentification:
            st.text(a.describe())


def results_frame(view: RunView) -> pd.DataFrame:
    """Latest results; the cached and error columns only when some row has one."""
    rows = [{"instance": r.instance_id, "parsed answer": r.parsed, "score": r.score, "unparsed": r.unparsed,
             "cached": r.cached, "error": r.error or ""} for r in view.recent]
    frame = pd.DataFrame(rows, columns=["instance", "parsed answer", "score", "unparsed", "cached", "error"])
    return frame.drop(columns=[c for c in ("cached", "error") if not frame[c].any()])


def run_panel(run_id: str, live_mode: bool) -> None:
    view = run_view(store, run_id, ui.current().dossier)
    if view is None:
        st.warning(f"Run {run_id} is not in the store.")
        return
    if live_mode and view.state != "running":
        st.rerun()  # finished: redraw the whole page with the summary and the attach button
    rec = view.record
    done = view.live.done if view.live and view.state == "running" else rec.n_results
    total = rec.n_planned or 1
    st.progress(min(done / total, 1.0), text=f"{done} of {rec.n_planned} instances · {view.state}")
    m = st.columns(4)
    m[0].metric("Scored", rec.n_scored)
    mean = "—" if rec.mean_score is None else f"{rec.mean_score:.3f}"
    m[1].metric("Mean so far" if view.state == "running" else "Mean", mean,
                help="No interval while running; the summary below gives it.")
    m[2].metric("Unparsed", rec.n_unparsed, help="Replies with no readable answer: scored wrong and counted.")
    m[3].metric("Errors", rec.n_errors, help="No answer after all retries; excluded from the score.")
    if view.live and view.live.error:
        st.error(f"The run stopped: {view.live.error}")
    if view.state != "running" and view.summary and view.summary.n_errors:
        # Say why, in the page's text: "Errors 120" with no reason left a user guessing (browser walk).
        top = sorted(view.summary.errors.items(), key=lambda kv: -kv[1])[:3]
        reasons = "; ".join(f"{ui.plain(str(msg)[:200])} ({n}×)" for msg, n in top)
        st.error(f"{view.summary.n_errors} of {rec.n_planned} instances got no answer from the endpoint, so "
                 f"they are not scored: {reasons}. Check the model string, the API base and the key "
                 "variable above.")
    if view.state == "running":
        if view.live and view.live.elsewhere:
            st.caption("Running in another app process sharing this database "
                       f"({ui.plain(view.live.elsewhere)}); its progress is read from the database.")
        if view.live and view.live.cancel_requested:
            st.caption("Stopping after the requests in flight…")
        elif st.button("Cancel", key=f"run_cancel_{run_id}"):
            cancel_run(rec.run_key, store=store)
    st.markdown(f"**Latest results** ({len(view.recent)} most recent)")
    st.dataframe(results_frame(view), hide_index=True, width="stretch",
                 column_config={"instance": st.column_config.TextColumn(width="medium"),
                                "parsed answer": st.column_config.TextColumn(width="small"),
                                "score": st.column_config.NumberColumn(format="%.2f", width="small")})
    if view.summary and view.summary.score:
        s = view.summary.score
        ci = (f"no interval: {s.missing_reason or 'n < 2'}" if s.lower is None
              else f"95% CI {s.lower:.3f}–{s.upper:.3f}")
        partial = "" if view.state == "completed" else f"So far ({view.state}): "
        st.markdown(f"{partial}**{ui.plain(metric_label(s.name))}: {s.mean:.3f}** ({ci}, n={s.n}; "
                    f"{s.method or 'interval by percentile bootstrap over instances'}) · "
                    f"{view.summary.n_unparsed} unparsed · {view.summary.n_errors} without an answer · "
                    f"{view.summary.prompt_tokens + view.summary.completion_tokens:,} tokens · "
                    + ("cost unknown" if not view.summary.cost_known else f"${view.summary.cost_usd:,.4f}"))
    if view.state in ("cancelled", "budget_exceeded", "failed", "interrupted"):
        if view.resumable_here:
            st.caption(f"Resuming sends only what is missing; {RESENT_NOTE}.")
            if st.button("Resume", key=f"run_resume_{run_id}", type="primary"):
                with ui.permitted():
                    resumed = resume_run(store, rec.run_key, actor=ui.actor())
                    st.session_state["run_key"] = resumed.run_key
                st.rerun()
        else:
            st.info("To continue this run, enter the same benchmark, dataset and endpoint above and press "
                    f"Estimate: its finished instances are not sent again; {RESENT_NOTE}.")
    if view.evidence:
        if view.attached:
            st.success("This run's evidence is attached to the dossier.")
        elif signoff_guard.go_ahead(f"run_attach_{run_id}", st.button(
                "Attach as evidence", key=f"run_attach_{run_id}", type="primary")):
            try:
                with ui.permitted():
                    v = attach_run(store, dossier.id, run_id, actor=ui.actor())
                st.session_state["run_flash"] = f"Attached: saved version {v.version} ({v.hash[:12]})."
                st.rerun()
            except RunInputError as exc:
                st.error(str(exc))


def runs() -> None:
    """Section 4: the runs of these benchmarks, the chosen one live while it works."""
    st.subheader("4. Runs")
    run_key = st.session_state.get("run_key")
    focus = run_id_for_key(store, run_key) if run_key else None
    job = JOBS.get(run_key) if run_key else None
    if focus is None and job is not None and job.alive:
        st.progress(0.0, text="Starting…")
        st.fragment(run_every=POLL_S)(lambda: st.rerun() if run_id_for_key(store, run_key) else None)()
        return
    records = {r.run_id: r for r in dossier_runs(store, dossier)}
    if not records:
        st.info("No run of these benchmarks yet.")
        return
    picked = focus if focus in records else next(iter(records))

    def run_label(i: str) -> str:
        r = records[i]
        return (f"{r.benchmark_id} × {r.endpoint_name} · {r.n_planned} instances · "
                f"{r.created_at:%Y-%m-%d %H:%M}")

    run_id = st.selectbox("Run", list(records), index=list(records).index(picked), key=f"run_pick_{picked}",
                          format_func=run_label, help="Runs of the benchmarks offered here, working first.")
    key = records[run_id].run_key
    if any(j.run_key == key for j in JOBS.live()) or (
            records[run_id].status == "running" and job_elsewhere(store, key) is not None):
        st.fragment(run_every=POLL_S)(run_panel)(run_id, True)
    else:
        run_panel(run_id, False)
        jury(records[run_id])


def jury(record) -> None:
    """Section 5, for a completed run with free-text answers: score it with the LLM jury."""
    if record.status == "completed" and run_jury_applies(store, record.run_id, record.benchmark_id):
        jury_section(dossier, record)


setup_column, runs_column = st.columns(2, gap="large")
with setup_column:
    new_run()
with runs_column:
    runs()
data_handling()
