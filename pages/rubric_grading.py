"""Local scenarios' rubric grading section: grade a run's free-text responses, criterion by criterion.

Shared page code, not a page (like ``pages/run_jury.py``, whose interaction it follows): graders and how
to reach them, an estimate before anything is sent, the grading as a background job of the one job
manager (``governance.scenarios.start_grading``, which calls the operation ``medassure grade`` calls),
then the stored result and its attachment (the operation ``medassure attach --grading`` calls).
HealthBench's rule and what the score means: docs/grading.md.
"""

from __future__ import annotations

import streamlit as st

from evaluator import GradingError
from governance import Dossier
from governance.runs import job_status
from governance.scenarios import (
    GradeRequest,
    GradingPlan,
    attach_grading,
    plan_grading,
    rubric_coverage,
    run_gradings,
    start_grading,
)
from pages import signoff_guard, tables, ui
from pages.job_panel import job_ended, live_job_panel

POLL_S = 1.0
VERDICT = {True: "met", False: "not met", None: "no readable verdict"}


def _request(run_id: str) -> GradeRequest | None:
    """The form: graders, how to reach them, PHI approval; None until a grader is named."""
    graders = st.text_input("Grader model(s) (comma-separated litellm model strings; several: majority vote)",
                            key=f"grade_graders_{run_id}", placeholder="openai/<name> on the server below")
    c1, c2 = st.columns(2)
    api_base = c1.text_input("Graders' API base (optional)", key=f"grade_api_base_{run_id}",
                             help=
                             "One OpenAI-compatible server for every grader; empty: each provider's own.")
    key_env = c2.text_input("Graders' key variable NAME", key=f"grade_key_env_{run_id}",
                            help="The name of the environment variable holding the key, never the key.")
    phi = st.checkbox("The graders' endpoints are approved for PHI", key=f"grade_phi_{run_id}",
                      help="The graders read the cases and the model's answers. Without this, or a "
                           "de-identification attestation for the run's cases, identifiers stop the grading.")
    names = tuple(dict.fromkeys(g.strip() for g in graders.split(",") if g.strip()))
    if not names:
        st.caption("Name at least one grader model (HealthBench uses one; several vote per criterion).")
        return None
    return GradeRequest(run_id=run_id, graders=names, api_base=api_base.strip() or None,
                        api_key_env=key_env.strip() or None, phi_approved=phi)


def _estimate(plan: GradingPlan) -> None:
    m = st.columns(3)
    m[0].metric("Grader requests to send", sum(e.n_to_send for e in plan.graders),
                help="Criteria × responses × graders, minus replies already in the cache.")
    m[1].metric("Prompt tokens", f"{sum(e.prompt_tokens for e in plan.graders):,}")
    m[2].metric("Grading cost, at most", "—" if plan.cost_usd_max is None else f"${plan.cost_usd_max:,.4f}")
    tables.show([{"grader": e.grader, "to send": e.n_to_send, "cached (free)": e.n_cached,
                  "prompt tokens": e.prompt_tokens, "USD at most": e.cost_usd_max,
                  "price from": e.price_source or "unknown"} for e in plan.graders])
    st.caption(f"{plan.n_criteria} criteria over {plan.n_responses} responses × {len(plan.graders)} "
               f"grader(s) = {plan.n_criteria * len(plan.graders)} calls, one per criterion as HealthBench "
               f"does. **Upper bound**: {plan.note}."
               + ("" if plan.cost_usd_max is not None else " A grader has no known price, so the cost is not "
                  "bounded."))
    for problem in plan.key_problems:
        st.error(problem)


@st.fragment(run_every=POLL_S)
def _grading_job(job_id: str) -> None:
    """The background grading's progress; the section redraws with the result once it ends."""
    status = job_status(ui.store(), job_id)
    if status is not None and live_job_panel(
            status, text=f"{status.done} of {status.total} grader calls · {status.note or 'starting'}",
            stopping="Stopping after the grader requests in flight; they are kept…",
            cancel_label="Cancel grading", key="grade_cancel"):
        return
    job_ended(status, job_key="grade_job", error_key="grade_error", what="grading",
              strip=("PhiBlocked: ", "GradingError: "))


def _start(request: GradeRequest) -> None:
    st.session_state.pop("grade_error", None)
    try:
        with ui.permitted():
            job = start_grading(ui.store(), request, actor=ui.actor())
            st.session_state["grade_job"] = (request.run_id, job.job_id)  # app state: whose job it is
        st.session_state.pop("grade_plan", None)
        st.rerun()
    except GradingError as exc:
        st.error(str(exc))


def _criteria_rows(result) -> list[dict]:
    return [{"case": c.id, "case score": c.score if c.score is not None else (c.unscored_reason or "—"),
             "criterion": k.criterion, "points": k.points, "verdict": VERDICT[k.met]}
            for c in result.per_case for k in c.criteria]


def _results(dossier: Dossier, run_id: str, request: GradeRequest | None) -> None:
    gradings = run_gradings(ui.store(), run_id)
    if not gradings:
        return
    g = gradings[0]
    score = "—" if g.score is None else f"{g.score:.3f}"
    spread = "" if g.bootstrap_std is None else f" (bootstrap SD {g.bootstrap_std:.3f})"
    st.markdown(f"**Grading {g.grading_id}** ({g.status}; {ui.plain(', '.join(g.graders))}): rubric score "
                f"{score}{spread} over {g.n} of {g.n_cases} cases; **{g.n_unscored} unscored**; "
                f"**{g.n_unparsed} unreadable grader replies** of {g.n_calls}.")
    m = st.columns(4)
    m[0].metric("Rubric score", score, help="Mean case score clipped to [0, 1] (HealthBench's rule).")
    m[1].metric("Bootstrap SD", "—" if g.bootstrap_std is None else f"{g.bootstrap_std:.3f}")
    m[2].metric("Cases graded", f"{g.n} of {g.n_cases}")
    m[3].metric("Unreadable grader replies", g.n_unparsed)
    tags = [{"tag": t, "kind": kind, "score": s.score, "n": s.n, "bootstrap SD": s.bootstrap_std}
            for kind, part in (("rubric tag", g.by_tag), ("case tag", g.by_example_tag))
            for t, s in part.items()]
    if tags:
        st.markdown("**By tag** (a rubric tag scores each case on its criteria only):")
        tables.table(tags)
    st.markdown("**Per case**, every criterion with the graders' verdict:")
    tables.show(_criteria_rows(g))
    if g.unparsed:
        st.markdown("Unreadable grader replies (never counted as met):\n" + "\n".join(
            f"- {ui.plain(u.id)} · {ui.plain(u.grader)} · “{ui.plain(u.criterion)}”: {ui.plain(u.reason)}"
            for u in g.unparsed))
    if g.status != "completed":
        st.info("This grading stopped before it finished. Starting it again sends only what is not in the "
                "cache.")
        if request is not None and st.button("Resume grading", key=f"grade_resume_{g.grading_id}",
                                             type="primary"):
            _start(request)
        return
    if not g.n:
        st.caption("Nothing to attach: no case could be graded.")
    elif any(e.source == g.grading_id for e in dossier.evidence):
        st.success("This grading's score is attached to the dossier as evidence.")
    elif signoff_guard.go_ahead(f"grade_attach_{g.grading_id}", st.button(
            "Attach as evidence", key=f"grade_attach_{g.grading_id}", type="primary")):
        try:
            with ui.permitted():
                v = attach_grading(ui.store(), dossier.id, g.grading_id, actor=ui.actor())
            st.session_state["ls_flash"] = (f"Attached the rubric grading: saved version {v.version} "
                                            f"({v.hash[:12]}).")
            st.rerun()
        except GradingError as exc:
            st.error(str(exc))


def grading_section(dossier: Dossier, run_id: str) -> None:
    """Section 5 for a completed scenario run with free-text answers: graders, estimate, job, result."""
    st.subheader("5. Grade with rubric")
    coverage = rubric_coverage(ui.store(), run_id)
    if coverage is None or not coverage.n_rubric:
        n = coverage.n_free_text if coverage else 0
        st.info(f"No rubric to grade against: none of this run's {n} free-text case(s) carries rubric "
                "criteria. Import the cases with a `rubric` column or as HealthBench JSONL (templates "
                "under File format and templates; docs/grading.md), or score them with the LLM jury below.")
        return
    st.caption(f"{coverage.n_rubric} of the run's {coverage.n_free_text} free-text case(s) carry "
               f"{coverage.n_criteria} rubric criteria. Each grader reads the case and the response and "
               "answers, once per criterion, whether it is met; a case scores the points met over its "
               "positive points (harms subtract), the run the mean clipped to [0, 1] (HealthBench's rule, "
               "as `medassure grade`). A reply that cannot be read is counted and named, never met.")
    if problem := st.session_state.get("grade_error"):  # kept until the next start
        st.error(problem)
    request = _request(run_id)  # drawn while a job runs too, so the form keeps what was typed
    running = st.session_state.get("grade_job")
    if running is not None and running[0] == run_id:  # another run's grading is shown under that run
        _grading_job(running[1])
        return
    if st.button("Estimate grading", key="grade_estimate", disabled=request is None):
        try:
            st.session_state["grade_plan"] = plan_grading(ui.store(), request)
        except GradingError as exc:
            st.session_state.pop("grade_plan", None)
            st.error(str(exc))
    plan = st.session_state.get("grade_plan")
    if plan is not None and plan.request != request:
        plan = None
    if plan is None:
        st.caption("Nothing is sent until you press Start grading after the estimate.")
    else:
        _estimate(plan)
        if st.button("Start grading", key="grade_start", type="primary", disabled=bool(plan.key_problems)):
            _start(plan.request)
    _results(dossier, run_id, request)
