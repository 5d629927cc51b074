"""Evidence: coverage of the mapped subcategories, published scores with n and intervals, win
rates and tie groups on the mapped benchmarks, HELM run and Inspect log import, attach/detach."""

import streamlit as st

from evaluator import activity_template_csv
from governance import attach_evidence
from governance.evidence import (
    KIND_NOTES,
    activity_gaps,
    attached_run_instances,
    detach_evidence,
    evidence_view,
    preview_helm_import,
    preview_inspect_import,
    preview_inspect_upload,
    subgroup_lines,
)
from pages import evidence_charts as charts
from pages import tables, ui

st.title("Evidence")
version = ui.require_dossier()
dossier = version.dossier
models_key = f"evidence_models_{dossier.id}"
view = evidence_view(dossier, models=st.session_state.get(models_key))


@st.cache_data(ttl=300, max_entries=4, show_spinner="Reading the HELM run folder...")
def helm_preview(path: str):
    return preview_helm_import(path)


@st.cache_data(ttl=300, max_entries=4, show_spinner="Reading the Inspect log...")
def inspect_path_preview(path: str):
    return preview_inspect_import(path)


@st.cache_data(ttl=300, max_entries=2, show_spinner="Reading the Inspect log...")
def inspect_upload_preview(data: bytes, name: str):
    return preview_inspect_upload(data, name)


def own_figure(run) -> str:
    """The log's own headline metric and stderr, as Inspect reported them."""
    if run.log_metric is None:
        return "—"
    stderr = f" ± {run.log_stderr:.3f} (stderr)" if run.log_stderr is not None else ""
    return f"{run.log_metric[0]} {run.log_metric[1]:.3f}{stderr}"


def inspect_rows(logs) -> list[dict]:
    rows = []
    for p in logs:
        r, e = p.run, p.evidence
        rows.append({
            "task": f"{r.task} (version {r.task_version})", "model": r.model, "scorer": r.main_scorer,
            "score": "—" if e is None else f"{e.score:.3f}", "n": len(r.sample_scores),
            "unscored": len(r.unscored_reasons),
            "95% interval": f"{e.ci_lower:.3f}–{e.ci_upper:.3f}" if e and e.has_interval else "none",
            "interval method / why none": (e.ci_method or e.ci_missing_reason) if e else p.not_attachable,
            "log's own figure": own_figure(r),
            "tokens in / out": f"{r.input_tokens:,} / {r.output_tokens:,}",
            "log file SHA-256": f"{r.sha256[:16]}…",
        })
    return rows


def attach(ids: list[str], pool: dict, what: str) -> None:
    current = ui.current().dossier
    ui.save(attach_evidence(current, [pool[i] for i in ids], by=ui.reviewer()),
            note=f"evidence: attached {len(ids)} {what}")


def detach(ids: list[str]) -> None:
    current = ui.current().dossier
    ui.save(detach_evidence(current, ids, by=ui.reviewer()), note=f"evidence: detached {len(ids)}")


def instance_drilldown(rows, key: str) -> None:
    tables.show(charts.instance_frame(rows), height=240)
    labels = [f"{r.instance_id} · trial {r.trial}" for r in rows]
    pick = st.selectbox("Show one instance in full", range(len(rows)), format_func=labels.__getitem__,
                        key=key)
    row = rows[pick]
    score = "unscored" if row.score is None else f"{row.score:.3f}"
    note = f" · {ui.plain(row.note)}" if row.note else ""
    st.markdown(f"**Score** {score} · **reference** {ui.plain(row.references or '—')}{note}")
    left, right = st.columns(2)
    left.markdown("**Prompt**")
    left.code(row.prompt or "(empty)", language=None, wrap_lines=True, height=260)
    right.markdown("**Completion**")
    right.code(row.completion or "(empty)", language=None, wrap_lines=True, height=260)


st.caption("What is already known about the candidate models on this dossier's kind of task. Every score "
           "shows its n and its 95% interval, or why there is none.")
# What the job needs that no benchmark here measures (issue 27: nothing tested mg/kg dosing, unsaid).
if gaps := activity_gaps(dossier):
    st.subheader("What no benchmark here tests")
    for gap in gaps:
        st.warning(ui.plain(gap.sentence))
        if template := gap.activity.template:
            st.download_button(f"Template: {gap.template_title}", activity_template_csv(template),
                               file_name=f"medassure_scenario_{template}.csv", mime="text/csv",
                               key=f"ev_gap_template_{template}", on_click="ignore")
if not view.coverage:
    st.info("No subcategory is accepted yet. Accept the ones that describe the job on **Task mapping**; "
            "their benchmarks decide which evidence appears here.")
    st.stop()

def subgroup_results(evidence) -> None:
    """Per-calculator accuracy (lowest first) and the other subgroup scores of the attached evidence."""
    lines = subgroup_lines(evidence)
    if not lines:
        return
    calc = [x for x in lines if x.tag == "Calculator"]
    if calc:
        st.markdown("**Per-calculator accuracy** (lowest first): the share of each calculator's cases "
                    "answered right, with its 95% interval.")
        tables.show([{k: v for k, v in row.items() if k != "tag"} for row in subgroup_rows(calc)])
    rest = [x for x in lines if x.tag != "Calculator"]
    if rest:
        with st.expander(f"Results by subgroup ({len(rest)} groups)"):
            tables.show(subgroup_rows(rest))


def subgroup_rows(lines) -> list[dict]:
    return [{"model": x.model, "benchmark": x.benchmark, "tag": x.tag, "group": x.group,
                          "share right": "suppressed (too few cases)" if x.suppressed else f"{x.score:.0%}",
                          "95% interval": "—" if x.ci_lower is None else f"{x.ci_lower:.0%}–{x.ci_upper:.0%}",
                          "n": x.n} for x in lines]


st.subheader("Coverage of the mapped subcategories")
tables.table(charts.coverage_frame(view.coverage))
st.caption(" · ".join(f"**{k}**: {v}" for k, v in KIND_NOTES.items()))

st.subheader("Models under consideration")
st.caption("The models named on the **Intended use** page, matched to the names in MedHELM's results. Vendor "
           "products built on them are compared on the **Candidates** page.")
matched = [f"`{c.candidate}` → {c.published}" for c in view.candidates if c.published]
unmatched = [f"`{c.candidate}` ({c.reason})" for c in view.candidates if not c.published]
st.markdown("Matched to MedHELM's published names: " + (", ".join(matched) or "none"))
if unmatched:
    st.warning("No published MedHELM scores for: " + ", ".join(unmatched) + ". Only a local run can give "
               "evidence for these.")
st.multiselect("Models shown", view.published_models, default=view.default_models, key=models_key,
               help="Starts from the matched candidates; add other published models to compare.")
if not view.models:
    st.info("Choose at least one model.")
    st.stop()

st.subheader("Published MedHELM scores on the mapped benchmarks")
st.caption("Colour: normalized score (LLM-jury 1–5 rescaled (x − 1)/4, as MedHELM does); label: the score on "
           "its own scale. Hover a cell for n and the interval; the table below lists them all.")
st.altair_chart(charts.heatmap(view.scores, view.mapped_benchmarks, view.models), width="stretch")
scores = charts.score_frame(view.scores)
tables.show(scores.drop(columns=["normalized", "source", "caveat", "provenance", "judged"]))
bases = dict.fromkeys(scores["interval method / why none"])
st.markdown("**95% intervals**\n" + "\n".join(f"- {b}" for b in bases))
caveats = sorted({c for c in scores["caveat"] if c})
if caveats:
    st.caption("Caveats: " + " · ".join(caveats))
st.caption(f"Source: {ui.plain(view.scores[0].evidence.source)}")

st.subheader("Mean win rate on the mapped benchmarks")
tables.table(charts.win_rate_frame(view.win_rates))
st.caption(f"{view.win_rate_method}. {view.win_rate_no_interval}")
st.markdown("**Tie groups per benchmark** (models whose 95% intervals overlap share a numbered group and are "
            "not ranked apart; group 1 is best)")
tables.table(charts.ties_frame(view.ties))

st.subheader("Mean share correct per taxonomy group")
if view.group_means:
    level = st.radio("Group by", ["category", "subcategory"], horizontal=True, key="evidence_group_level")
    st.altair_chart(charts.group_means_chart(view.group_means, level, view.models))
else:
    st.info("No proportion benchmark (exact match, accuracy) among the mapped ones, so there is no mean "
            "to show: jury means and mean F1 are compared benchmark by benchmark above.")
st.caption(view.group_mean_method + ".")

st.subheader("Attach published evidence to the dossier")
pool = {s.evidence.id: s.evidence for s in view.scores if not s.attached}
labels = {s.evidence.id: f"{s.evidence.model} · {s.evidence.benchmark} · {s.evidence.score:.3f} "
          f"(n={s.evidence.n}, 95% CI {s.interval})" for s in view.scores}
if pool:
    chosen = st.multiselect("Published scores not yet attached", list(pool), format_func=labels.get,
                            key=f"attach_pick_{dossier.id}_{version.version}")
    st.button(f"Attach {len(chosen)} selected", key="attach_published", disabled=not chosen, type="primary",
              on_click=attach, args=(chosen, pool, "published scores"))
else:
    st.success("Every published score shown here is attached.")

st.subheader(f"Attached evidence ({len(view.attached)})")
if view.attached:
    attached = charts.score_frame(view.attached)
    shown = ["provenance", "model", "benchmark", "metric", "judged", "score", "scale", "n", "95% interval",
             "interval method / why none", "source"]
    if any(s.evidence.endpoint_model for s in view.attached):  # a run made for a candidate: what it called
        shown.insert(2, "endpoint")
    tables.show(attached[shown])
    if not all(s.evidence.is_main for s in view.attached):
        st.caption("A local run is judged on its benchmark's main metric only; its other metrics are kept as "
                   "context, shown here but never compared with a score bar or averaged.")
    by_id = {s.evidence.id: f"{s.evidence.provenance} · {s.evidence.model} · {s.evidence.benchmark}"
             for s in view.attached}
    gone = st.multiselect("Detach", list(by_id), format_func=by_id.get,
                          key=f"detach_pick_{dossier.id}_{version.version}")
    st.button(f"Detach {len(gone)} selected", key="detach_evidence", disabled=not gone, on_click=detach,
              args=(gone,), help="Earlier versions keep them; the history shows who detached what.")
    subgroup_results([s.evidence for s in view.attached])
    helm = {s.evidence.id: s.evidence for s in view.attached if s.evidence.provenance == "helm-import"}
    if helm:
        with st.expander("Drill into an attached HELM run"):
            ev_id = st.selectbox("Run", list(helm), key="attached_run_pick",
                                 format_func=lambda i: f"{helm[i].run_id} ({helm[i].model})")
            rows, reason = attached_run_instances(helm[ev_id])
            if reason:
                st.warning(reason)
            else:
                instance_drilldown(rows, key="attached_instance_pick")
else:
    st.info("Nothing attached yet.")

st.subheader("Import a HELM run folder")
st.caption("A `benchmark_output/runs/<suite>/` folder (or one run folder in it) on this machine. Nothing is "
           "imported unless every file reads cleanly.")
path = st.text_input("Folder", key="helm_path_input", placeholder="/data/helm/benchmark_output/runs/my_suite")
if st.button("Read folder", key="helm_read", disabled=not path.strip()):
    st.session_state["helm_import_path"] = path.strip()
if st.session_state.get("helm_import_path"):
    preview = helm_preview(st.session_state["helm_import_path"])
    for error in preview.errors:
        st.error(error)
    if preview.runs:
        tables.show(charts.run_frame(preview.runs))
        for run in preview.runs:
            for warning in run.warnings:
                st.warning(f"{ui.plain(run.run_name)}: {ui.plain(warning)}")
            if run.not_attachable:
                st.info(f"{ui.plain(run.run_name)} cannot be attached: {ui.plain(run.not_attachable)}")
        runs = {r.evidence.id: r.evidence for r in preview.runs if r.evidence}
        new = [i for i in runs if i not in {s.evidence.id for s in view.attached}]
        label = f"Attach {len(new)} importable run(s)" if new else "No run left to attach"
        st.button(label, key="helm_attach", disabled=not new,
                  on_click=attach, args=(new, runs, "HELM runs"))
        names = [r.run_name for r in preview.runs]
        pick = st.selectbox("Drill into run", range(len(names)), format_func=names.__getitem__,
                            key="helm_run_pick")
        instance_drilldown(preview.runs[pick].instances, key="helm_instance_pick")

st.subheader("Import Inspect evaluation logs")
st.caption("An Inspect `.eval` or `.json` log (for example Inspect Evals' MedQA, PubMedQA or HealthBench), "
           "uploaded or given as a file or folder on this machine. Nothing is imported unless every log "
           "reads cleanly and the evaluation finished. The interval is recomputed from the per-sample "
           "scores.")
upload = st.file_uploader("Upload a log", type=["eval", "json"], key="inspect_upload")
inspect_path = st.text_input("Or a log file or folder on this machine", key="inspect_path_input",
                             placeholder="/data/inspect/logs")
if st.button("Read path", key="inspect_read", disabled=not inspect_path.strip()):
    st.session_state["inspect_import_path"] = inspect_path.strip()
inspect_preview = None
if upload is not None:
    inspect_preview = inspect_upload_preview(upload.getvalue(), upload.name)
elif st.session_state.get("inspect_import_path"):
    inspect_preview = inspect_path_preview(st.session_state["inspect_import_path"])
if inspect_preview is not None:
    for error in inspect_preview.errors:
        st.error(error)
    if inspect_preview.logs:
        tables.show(inspect_rows(inspect_preview.logs))
        for log in inspect_preview.logs:
            for warning in log.run.warnings:
                st.warning(f"{log.run.task}: {warning}")
            if log.not_attachable:
                st.info(f"{log.run.task} cannot be attached: {log.not_attachable}")
        inspect_pool = {p.evidence.id: p.evidence for p in inspect_preview.logs if p.evidence}
        new = [i for i in inspect_pool if i not in {s.evidence.id for s in view.attached}]
        st.button(f"Attach {len(new)} log(s)" if new else "No log left to attach", key="inspect_attach",
                  disabled=not new, on_click=attach, args=(new, inspect_pool, "Inspect logs"))
