"""Local scenarios: import the hospital's own cases (preview, column mapping, validation, PHI scan),
keep versions, redact identifiers, run a version on an endpoint behind the PHI gate, and read the
results with the subgroup table before attaching them to the dossier; free-text runs are graded by rubric
(``pages/rubric_grading.py``) or scored by the LLM jury (``pages/run_jury.py``)."""

import hashlib

import pandas as pd
import streamlit as st

from evaluator import (
    ACTIVITY_TEMPLATES,
    FIELDS,
    FORMAT_NOTES,
    MIN_N,
    RUBRIC_TEMPLATES,
    TEMPLATES,
    ColumnMapping,
    ImportRejected,
    ModelEndpoint,
    ScenarioRunBlocked,
    activity_template_csv,
    build_mapping,
    preview_table,
    read_table,
    rubric_template,
    scenario_results,
    suggest_column_mapping,
    template_csv,
)
from governance.mapping import load_taxonomy
from governance.runs import RunInputError, job_status, run_record, start_scenario_run
from governance.scenarios import (
    attach_scenario_run,
    import_for_dossier,
    redact_scenario,
    run_gate,
    scenario_rows,
    version_view,
)
from pages import tables, ui
from pages.job_panel import live_job_panel
from pages.rubric_grading import grading_section
from pages.run_jury import jury_section

NONE = "—"
POLL_S = 1.0
TYPES = ["infer per row", "choice", "exact", "numeric_range", "free_text"]

st.title("Local scenarios")
dossier = ui.require_dossier().dossier
store = ui.store()
tax = load_taxonomy()
st.caption("Test the candidates on cases from your own patients and workflows. Nothing is stored until the "
           "file passes every check; each save, edit or redaction makes a new, hashed version.")
if flash := st.session_state.pop("ls_flash", None):
    st.success(flash)


@st.cache_data(max_entries=4, show_spinner="Reading the file...")
def read(name: str, data: bytes):
    try:
        return read_table(name, data), []
    except ImportRejected as exc:
        return None, exc.issues


@st.cache_data(max_entries=4, show_spinner="Checking every case and scanning for identifiers...")
def check(_table, sha256: str, mapping_json: str):
    """Validation and PHI scan of one upload under one mapping (keyed by the file hash and the mapping)."""
    return preview_table(_table, ColumnMapping.model_validate_json(mapping_json))


def issues_frame(issues) -> pd.DataFrame:
    return pd.DataFrame([{"row": i.row, "column": i.column or "", "reason": i.reason} for i in issues],
                        columns=["row", "column", "reason"])


def phi_tables(report) -> None:
    if not report.total:
        st.success(f"PHI scan: {report.summary()}.")
        return
    st.warning(f"PHI scan: {report.summary()}. Examples are masked.")
    left, right = st.columns(2)
    left.dataframe(pd.DataFrame([{"case": r.instance_id, **r.counts} for r in report.rows]).fillna(0),
                   hide_index=True, width="stretch", height=200)
    examples = [{"case": e.instance_id, "field": e.field, "kind": e.kind, "example": e.masked}
                for e in report.examples]
    right.dataframe(pd.DataFrame(examples), hide_index=True, width="stretch", height=200)


st.subheader("1. Import cases")
st.session_state.setdefault("ls_uploads", 0)  # bumped after a save, which empties the uploader
with st.expander("File format and templates"):
    for note in FORMAT_NOTES:
        st.markdown(f"- {note}")
    template_cols = st.columns(len(TEMPLATES))
    for col, kind in zip(template_cols, TEMPLATES, strict=True):
        col.download_button(f"Template: {kind.replace('_', ' ')}", template_csv(kind),
                            file_name=f"medassure_scenario_{kind}.csv", mime="text/csv",
                            key=f"ls_template_{kind}", on_click="ignore")
    st.markdown("**Templates for jobs no benchmark tests** (answer types and subgroup tags filled in; "
                "replace the teaching examples with your own cases):")
    job_cols = st.columns(len(ACTIVITY_TEMPLATES))
    for col, (job, (job_title, _, _)) in zip(job_cols, ACTIVITY_TEMPLATES.items(), strict=True):
        col.download_button(f"Template: {job_title}", activity_template_csv(job),
                            file_name=f"medassure_scenario_{job}.csv", mime="text/csv",
                            key=f"ls_template_{job}", on_click="ignore")
    st.markdown("**Rubric-graded free-text cases** (criteria a clinician would check, harms with negative "
                "points; graded under Grade with rubric below a run, or `medassure grade`; docs/grading.md):")
    rubric_cols = st.columns(len(RUBRIC_TEMPLATES))
    for col, name in zip(rubric_cols, RUBRIC_TEMPLATES, strict=True):
        rubric_title, rubric_file, rubric_bytes = rubric_template(name)
        col.download_button(f"Template: {rubric_title}", rubric_bytes, file_name=rubric_file,
                            mime="application/jsonl", key=f"ls_rubric_template_{name}", on_click="ignore")
upload = st.file_uploader("Cases file (CSV, XLSX or JSONL; UTF-8; at most 20 MB)",
                          type=["csv", "xlsx", "jsonl"], key=f"ls_upload_{st.session_state['ls_uploads']}")
if upload is not None:
    table, problems = read(upload.name, upload.getvalue())
    if table is None:
        st.error(f"{ui.plain(upload.name)} cannot be read; nothing was stored.")
        st.dataframe(issues_frame(problems), hide_index=True, width="stretch")
    else:
        # Widget keys follow the columns, not the file's bytes: a corrected file with the same columns
        # keeps the mapping the reviewer chose.
        tag = hashlib.sha256("\x1f".join(table.columns).encode()).hexdigest()[:8]
        st.caption(f"{len(table.rows)} rows · {len(table.columns)} columns · {table.file_format} "
                   f"({table.encoding}). First rows:")
        st.dataframe(pd.DataFrame([r.cells for r in table.rows[:20]]), hide_index=True, width="stretch")
        suggested = suggest_column_mapping(table.columns)
        st.markdown("**Column mapping**: which column holds each part of a case (suggested from the names).")
        cols = st.columns(4)
        options = [NONE, *table.columns]
        chosen = {}
        for i, field in enumerate(FIELDS):
            default = suggested.fields.get(field, NONE)
            chosen[field] = cols[i % 4].selectbox(field, options, index=options.index(default),
                                                  key=f"ls_map_{field}_{tag}")
        tags = st.multiselect("Subgroup tag columns", table.columns, default=list(suggested.tags.values()),
                              key=f"ls_tags_{tag}")
        kind = st.selectbox("Answer type of rows without one", TYPES, key=f"ls_type_{tag}")
        mapping = build_mapping({f: (None if c == NONE else c) for f, c in chosen.items()}, tags,
                                None if kind == TYPES[0] else kind)
        preview = check(table, table.sha256, mapping.model_dump_json())
        if preview.issues:
            st.error(f"{len(preview.issues)} problem(s): fix the file or the mapping; nothing is saved.")
            st.dataframe(issues_frame(preview.issues), hide_index=True, width="stretch")
        else:
            st.success(f"All {len(preview.instances)} cases are valid.")
            phi_tables(preview.phi)
            name = st.text_input("Scenario name", value=upload.name.rsplit(".", 1)[0], key=f"ls_name_{tag}")
            subs = st.multiselect("Subcategories it provides evidence for", [s.id for s in tax.subcategories],
                                  default=list(dossier.mapping.accepted), key=f"ls_subs_{tag}",
                                  format_func=lambda s: tax.subcategory(s).name)
            existing = {r["scenario_id"]: r["name"] for r in scenario_rows(store)
                        if r["dossier_id"] == dossier.id}
            target = st.selectbox("Save as", [None, *existing], key=f"ls_target_{tag}",
                                  format_func=lambda t: "a new scenario" if t is None else
                                  f"a new version of {existing[t]}"
                                  + (f" ({t})" if list(existing.values()).count(existing[t]) > 1 else ""))
            if st.button("Save scenario", key="ls_save", type="primary", disabled=not name.strip()):
                with ui.permitted():
                    saved = import_for_dossier(store, preview, name=name.strip(), actor=ui.actor(),
                                               dossier=dossier, subcategory_ids=subs,
                                               scenario_id=target)
                st.session_state["ls_show_version"] = f"{saved.scenario_id}@{saved.version}"
                st.session_state["ls_uploads"] += 1
                st.session_state["ls_flash"] = f"Saved {saved.scenario_id} version {saved.version}."
                st.rerun()

st.subheader("2. Scenario versions")
rows = [r for r in scenario_rows(store) if r["dossier_id"] == dossier.id]
if not rows:
    st.info("No local scenario for this dossier yet: import one above.")
    st.stop()
# Named, not keyed (issue 36 item 10): no `scenario_id`, `n_instances` or `phi` headers, no "sc_…" id unless
# two scenarios share a name (then the id tells them apart in the select).
COLUMNS = {"name": "Scenario", "version": "Version", "n_instances": "Cases", "tags": "Subgroup tags",
           "phi": "Patient data check", "redacted": "Redacted", "author": "Saved by",
           "created_at": "Saved at", "note": "Note"}
tables.show([{k: r[k] for k in COLUMNS} for r in rows], labels=COLUMNS)
shared = {r["name"] for r in rows if sum(o["name"] == r["name"] and o["scenario_id"] != r["scenario_id"]
                                         for o in rows)}
labels = {f"{r['scenario_id']}@{r['version']}": (f"{r['name']} ({r['scenario_id']})" if r["name"] in shared
                                                 else r["name"]) + f" · version {r['version']}"
          for r in rows}
# A version just saved or redacted is shown next (app state, applied to the widget before it renders).
if (wanted := st.session_state.pop("ls_show_version", None)) in labels:
    st.session_state["ls_version_pick"] = wanted
pick = st.selectbox("Scenario version", list(labels), format_func=labels.get, key="ls_version_pick")
sid, ver = pick.split("@")[0], int(pick.split("@")[1])
view = version_view(store, sid, ver)
v = view.version
st.caption(f"{v.n_instances} cases · tags: {ui.plain(', '.join(v.tag_names) or 'none')} · subcategories: "
           f"{', '.join(tax.subcategory(s).name for s in v.subcategory_ids) or 'none'} · hash `{v.hash[:12]}`"
           + (f" · redacted from version {v.redaction['from_version']} ({v.redaction['summary']})"
              if v.redaction else ""))
phi_tables(view.phi)
if view.phi.total and st.button("Redact identifiers (new version)", key="ls_redact"):
    with ui.permitted():
        redacted = redact_scenario(store, sid, actor=ui.actor(), version=ver)
    st.session_state["ls_show_version"] = f"{sid}@{redacted.version}"
    st.session_state["ls_flash"] = (f"Saved version {redacted.version}: {redacted.redaction['summary']} "
                                    "replaced by typed placeholders.")
    st.rerun()

st.subheader("3. Run on an endpoint")
left, mid, right = st.columns([2, 2, 1])
model = left.text_input("litellm model string", key="ls_model", placeholder="gpt-4o, openai/<name>")
api_base = mid.text_input("API base (optional)", key="ls_api_base", placeholder="http://127.0.0.1:8000/v1")
approved = right.checkbox("Approved for PHI", key="ls_phi_ok",
                          help="On-premises, or covered by a business associate agreement.")
endpoint = None
if model.strip():
    endpoint = ModelEndpoint(name=model.strip(), model=model.strip(), api_base=api_base.strip() or None,
                             phi_approved=approved)
    gate = run_gate(store, sid, ver, endpoint)
    if not gate.allowed:
        st.error(gate.explanation)
    elif gate.n_identifiers:
        st.info(gate.explanation)
    if st.button("Run", key="ls_run", type="primary", disabled=not gate.allowed):
        try:
            with ui.permitted():
                job = start_scenario_run(store, sid, endpoint, version=ver, actor=ui.actor())
                st.session_state["ls_job"] = job.job_id
        except (RunInputError, ScenarioRunBlocked) as exc:
            st.error(str(exc))


@st.fragment(run_every=POLL_S)
def scenario_job(job_id: str) -> None:
    """The background run's progress, polled from the job manager; the page redraws once it ends."""
    status = job_status(store, job_id)
    if status is not None and live_job_panel(
            status, text=f"{status.done}/{status.total} cases · {status.state}",
            stopping="Stopping after the requests in flight…", cancel_label="Cancel", key="ls_cancel"):
        return
    st.session_state.pop("ls_job", None)
    if status is not None and status.summary is not None:
        s = status.summary
        st.session_state["ls_show_run"] = s.run_id
        st.session_state["ls_flash"] = f"Run {s.run_id} {s.status}: {s.n} cases."
    elif status is not None:
        st.session_state["ls_run_error"] = (f"The run stopped: {status.error or status.state}. Press Run "
                                            "again to continue it; finished cases are not sent again.")
    st.rerun()


if run_error := st.session_state.pop("ls_run_error", None):
    st.error(run_error)
if job_id := st.session_state.get("ls_job"):
    scenario_job(job_id)

st.subheader("4. Results")
if not view.runs:
    st.info("No run of this version yet.")
    st.stop()
run_ids = [r["run_id"] for r in view.runs]
if (new_run := st.session_state.pop("ls_show_run", None)) in run_ids:
    st.session_state["ls_run_pick"] = new_run
endpoints = {r["run_id"]: r["endpoint_name"] for r in view.runs}
run_id = st.selectbox("Run", run_ids, format_func=lambda r: f"{r} · {endpoints[r]}", key="ls_run_pick")
first = scenario_results(store, run_id)
refs = {}
for tag_name, default in first.subgroups.references.items():
    shown = [r.group for r in first.subgroups.rows if r.tag == tag_name and not r.suppressed]
    if shown:
        refs[tag_name] = st.selectbox(f"Reference group for {tag_name}", shown, index=shown.index(default),
                                      key=f"ls_ref_{run_id}_{tag_name}")
results = scenario_results(store, run_id, reference_groups=refs)
s = results.summary
m = st.columns(4)
m[0].metric("Cases scored", f"{s.n_scored} of {s.n_planned}")
m[1].metric("Accuracy", "—" if s.score is None else f"{s.score.mean:.3f}")
m[2].metric("95% interval", "—" if s.score is None or s.score.lower is None else
            f"{s.score.lower:.3f}–{s.score.upper:.3f}")
m[3].metric("Unparsed / errors", f"{s.n_unparsed} / {s.n_errors}")
if results.unscored_note:
    st.info(results.unscored_note)
low, high = results.subgroups.window
st.markdown(f"**Subgroups**: ratio of each group's score to its tag's reference group, with a 95% "
            "interval (MOVER-Wilson for shares of correct answers, a seeded bootstrap for mean scores); the "
            f"disparity rule judges that interval. Point ratios outside {low}–{high} are flagged; groups "
            f"with fewer than {MIN_N} scored cases are suppressed and never shown.")
if results.subgroups.rows:
    tables.plain_table(pd.DataFrame(results.subgroups.display_rows()).set_index(["tag", "group"]))
elif results.version.tag_names:
    # Tagged cases, but no group has a score yet (free-text cases wait for a jury, a grading or ratings).
    st.caption(f"Subgroup tags of this scenario: {', '.join(results.version.tag_names)}. No group has a "
               "scored case in this run yet, so there is no subgroup result to show.")
else:
    st.caption("This scenario has no subgroup tags.")
for note in results.subgroups.notes:
    st.caption(note)
if not s.n_scored:
    st.caption("Nothing to attach from this run itself: no case has an automatic score"
               + (" (see above for what scores its free-text cases)." if results.unscored_note else "."))
if st.button("Attach to dossier (new version)", key="ls_attach", disabled=not s.n_scored):
    updated = attach_scenario_run(store, ui.current().dossier, run_id, by=ui.reviewer(),
                                  reference_groups=refs)
    ui.save(updated, note=f"evidence: local scenario {sid} v{ver}, run {run_id}",
            then={"ls_flash": "Evidence attached, with its subgroup scores."})
    st.rerun()
record = run_record(store, run_id)
if record is not None and record.status == "completed" and results.n_free_text_unscored:
    grading_section(dossier, run_id)
    jury_section(dossier, record, number=6)
