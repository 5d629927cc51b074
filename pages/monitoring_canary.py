"""The Monitoring page's canary section: frozen cases re-asked of the approved endpoint (docs/monitoring.md).

Its own module because the Monitoring page is long already. It shows what the dossier's monitoring record
holds (``canary_view``): who froze the canary and when, its cases, schedule, baseline digest, next due date
and every run with its figures. Two writes, each one front-desk call behind the authorization check:
freezing the canary (its cost per run and per year shown first, from ``preview_canary``) and asking it now
(``run_canary``, through the PHI gate, the cache bypassed). App state lives in ``mon_*`` keys.
"""

from __future__ import annotations

import streamlit as st

from governance.monitoring import MonitoringError, canary_view, preview_canary, run_canary, set_canary
from pages import tables, ui

STATUS = {"in_control": "In control", "drift": "Drift from the baseline",
          "identity_changed": "Served identity changed", "unreachable": "Endpoint unreachable"}


def _cost(preview) -> str:
    if preview.cost_per_run_usd is None:
        return f"Cost unknown: {preview.price_source}."
    return (f"Cost: USD {preview.cost_per_run_usd:.4f} per run × {preview.runs_per_year:g} runs a year = "
            f"**USD {preview.cost_per_year_usd:.2f} a year** (the frozen cases' tokens at baseline × the "
            f"endpoint's price: {preview.price_source}). A finding is asked once more before a signal.")


def _runs(view) -> list[dict]:
    rows = []
    for run in view.runs:
        last = run.attempts[-1]
        rows.append({"When": run.at, "By": run.by, "Outcome": STATUS[run.status],
                     "Confirmed": "yes" if run.confirmed else "no", "Cases answered": last.n,
                     "Correct at baseline": last.baseline_correct, "Correct now": last.now_correct,
                     "Lost": last.lost, "Gained": last.gained, "p-value (exact, one-sided)": last.p_value,
                     "Changed answers": f"{last.changed_answers:.0%}",
                     "Served model": last.served_model or "not named", "Signal": run.signal_id or "",
                     "Model asked": ("no model (seeded)" if run.id in view.seeded
                               else f"{len(run.attempts)} time(s)")})
    return rows


def _set_form(dossier_id: str, view) -> None:
    label = "Freeze the canary again" if view else "Set the canary"
    c1, c2 = st.columns(2)
    cases = c1.number_input("Cases to freeze (default by risk tier)", min_value=1, max_value=10_000,
                            value=len(view.canary.cases) if view else None, step=1, key="mon_canary_cases")
    every = c2.number_input("Ask again every (days)", min_value=1, max_value=366,
                            value=view.canary.every_days if view else 30, step=1, key="mon_canary_every")
    try:
        preview = preview_canary(ui.store(), dossier_id, cases=int(cases) if cases else None,
                                 every_days=int(every))
    except MonitoringError as exc:
        st.info(f"A canary cannot be frozen here: {ui.plain(exc)}")
        return
    if preview.fresh_baseline:
        lacking = ", ".join(preview.fresh_baseline)
        st.markdown(ui.plain(f"The decided run of {lacking} holds no stored answers: setting the canary asks "
                             f"the approved endpoint once for its baseline (up to {preview.n} cases, through "
                             "the PHI gate), then freezes the known-answer cases among them, asked every "
                             f"{preview.every_days} days. ") + _cost(preview))
    else:
        st.markdown(ui.plain(f"{len(preview.cases)} cases of {preview.candidate} "
                             f"({sum(c.correct for c in preview.cases)} correct at baseline), asked every "
                             f"{preview.every_days} days. ") + _cost(preview))
    if st.button(label, key="mon_canary_set"):
        try:
            doing = "Asking the baseline once…" if preview.fresh_baseline else "Freezing…"
            with ui.permitted(), st.spinner(doing):
                before = view.canary.id if view else None
                record, _ = set_canary(ui.store(), dossier_id, actor=ui.actor(), cases=int(cases) if cases
                                       else None, every_days=int(every))
        except MonitoringError as exc:
            st.session_state["mon_error"] = f"Canary not set: {exc}"
        else:
            st.session_state["mon_toast"] = (f"Canary {record.id} unchanged: nothing stored."
                                             if record.id == before else
                                             f"Canary {record.id} set: {len(record.cases)} cases.")
        st.rerun()


def show(dossier) -> None:
    """Draw the canary section for ``dossier`` (decided, with an approved candidate)."""
    st.subheader("Canary")
    st.caption("A frozen set of known-answer cases asked again of the approved endpoint on a schedule (never "
               "answered from the cache), compared case by case with the decided run's answers by an exact "
               "paired test; a confirmed drop or a changed served identity raises a signal.")
    view = canary_view(dossier.monitoring)
    if view is None:
        st.info("No canary is set for this dossier: freeze one below (or `medassure canary set "
                f"{dossier.id}`).")
    else:
        c = view.canary
        bench = ", ".join(f"{b} ({n})" for b, n in view.benchmarks.items())
        due = f"{view.next_due:%Y-%m-%d}"
        st.markdown(ui.plain(
            f"**{c.id}**, set by {c.by} on {c.at:%Y-%m-%d}: {len(c.cases)} cases of {c.candidate} "
            f"({view.baseline_correct} correct at baseline) from {bench}; asked again every {c.every_days} "
            f"days at α = {c.alpha:g}. Baseline digest {c.baseline_digest[:16]}…. Next due {due}."))
        if view.runs:
            tables.table(_runs(view))
        else:
            st.info("The canary has not been run yet.")
        if view.seeded:
            st.warning("**DEMO DATA**: the demo's canary run is seeded, not asked: no model was called, and "
                       "the decided run's stored answers stand in for both the baseline and the run (the "
                       "demo's endpoint was recorded offline).")
    _set_form(dossier.id, view)
    if view is None:
        return
    if st.button("Run the canary now (asks the model again)", key="mon_canary_run", type="primary"):
        try:
            with ui.permitted(), st.spinner(f"Asking the approved endpoint {len(view.canary.cases)} cases "
                                            "again (and once more if it finds a change)…"):
                outcome = run_canary(ui.store(), dossier.id, actor=ui.actor())
        except MonitoringError as exc:
            st.session_state["mon_error"] = f"Canary not run: {exc}"
        else:
            r = outcome.record
            st.session_state["mon_toast"] = (f"Canary run {r.id}: {STATUS[r.status].lower()}"
                                             + (f"; signal {r.signal_id} raised." if r.signal_id else "."))
        st.rerun()
