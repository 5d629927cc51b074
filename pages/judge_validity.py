"""Judge validity: does the LLM jury agree with our clinicians? Upload ratings; compare with MedHELM."""

import hashlib
import io

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from evaluator import POOLED, RatingsError, ratings_template
from governance import assessment_and_recommendation
from governance.dossier import value_label
from governance.identity import PermissionDenied
from governance.judge_validity import (
    JudgeValidityView,
    agreement_setting,
    assess_judge_validity,
    jury_benchmarks,
    minimum_rule,
    record_agreement,
    record_grader_agreement,
    sample_size_hint,
    set_minimum,
    stored_juries,
)
from governance.procurement import candidate_names
from governance.review import (
    RaterProgress,
    ReviewError,
    closed_queues,
    grading_setting,
    queue_citation,
    queue_ratings,
    queue_status,
    queue_status_for,
    sees_unblinded,
)
from governance.rules import PolicyError, load_defaults
from governance.runs import attached_first
from pages import tables, ui

st.title("Judge validity")
version = ui.require_dossier()
dossier = version.dossier
st.caption(
    "Jury scores stand in for clinicians' judgement only as far as the jury agrees with them. Have "
    "clinicians rate a sample of the outputs the jury scored, upload both sets of ratings, and compare the "
    "agreement with MedHELM's published figures (jury-clinician ICC 0.47, clinician-clinician 0.43). "
    "The rule reads the single-rater ICC(A,1); MedHELM's figures are an average-of-two ICC(3,k), which "
    "runs higher on the same ratings, so they are set beside our ICC(3,k) for comparison only."
)

if (rec := dossier.judge_agreement) is not None:
    ci = f" [{rec.ci_lower:.2f}, {rec.ci_upper:.2f}]" if rec.has_interval else " (no interval)"
    covers = ", ".join(rec.benchmarks) or "all jury-scored evidence"
    beside = (
        f" (MedHELM-style ICC(3,k) z on the same ratings, for comparison only: {rec.comparison_icc3k_z:.2f})"
        if rec.comparison_icc3k_z is not None
        else ""
    )
    st.info(
        f"**Recorded on this dossier:** {rec.statistic} {rec.estimate:.2f}{ci}, n = {rec.n_instances}, "
        f"covers {ui.plain(covers)}{beside}. Source: {ui.plain(rec.source)}"
    )

st.subheader("1. Clinician ratings")
st.caption(
    "One row per case and clinician: `dataset` (the benchmark), `instance_id`, `rater`, then each "
    "criterion on 1-5. A `comment` column is ignored."
)
st.download_button(
    "Download the ratings template (CSV)",
    ratings_template(),
    file_name="clinician_ratings_template.csv",
    mime="text/csv",
    key="jv_template",
)
queues = closed_queues(ui.store(), dossier.id)
clin_file, queue_id, queue_frame, citation = None, None, None, None
clin_source = "A file"
if queues:
    clin_source = st.radio(
        "Clinician ratings from", ["A file", "A closed review queue"], horizontal=True, key="jv_clin_source"
    )
if clin_source == "A file":
    clin_file = st.file_uploader("Clinician ratings (CSV)", type=["csv"], key="jv_clinicians")
else:
    qlabels = {  # a queue's benchmark and raters are for editors who do not rate it (blinding)
        q.queue_id: f"{q.queue_id} · {q.benchmark_id} · {len(q.raters)} raters, {q.n_items} outputs"
        if sees_unblinded(q, ui.actor()) else q.queue_id
        for q in queues
    }
    queue_id = st.selectbox("Review queue", list(qlabels), format_func=qlabels.get, key="jv_queue")
    queue_frame = queue_ratings(ui.store(), queue_id)
    try:  # blinding (issue 35 item 4): editors see every rater and the agreement; a rater, their own row
        seen = queue_status_for(ui.store(), queue_id, actor=ui.actor())
    except PermissionDenied as exc:
        st.info(ui.plain(str(exc)))
        st.stop()
    if isinstance(seen, RaterProgress):
        mine = seen.catch_rate
        st.info(f"Your progress in queue {queue_id}: {seen.done} of {seen.total} rated"
                + (f"; planted errors caught {mine.caught} of {mine.n}" if mine and mine.n else "")
                + ". The other raters' results, the model and the agreement figures are shown to the "
                "committee's editors only.")
        st.stop()
    citation = queue_citation(ui.store(), queue_id)
    st.info(ui.plain(citation.text()))
    qstatus = queue_status(ui.store(), queue_id)
    cc = qstatus.clinician_clinician
    catch_rows = [
        {
            "rater": r.rater,
            "rated": f"{r.done} of {r.total}",
            "planted errors caught": f"{r.catch_rate.caught} of {r.catch_rate.n}" if r.catch_rate else "—",
            "catch rate (95% interval)": (
                f"{r.catch_rate.estimate:.2f} [{r.catch_rate.lower:.2f}, {r.catch_rate.upper:.2f}]"
            )
            if r.catch_rate and r.catch_rate.n
            else "—",
            "meets the bar": ("yes" if r.catch_rate.meets_bar else "no")
            if r.catch_rate and r.catch_rate.n
            else "—",
            "flags": "; ".join(r.flags) or "—",
        }
        for r in qstatus.raters
    ]
    tables.plain_table(pd.DataFrame(catch_rows).set_index("rater"))
    cc_text = (
        f"{cc.value:.2f} [{cc.ci_lower:.2f}, {cc.ci_upper:.2f}] on {cc.n} double-rated outputs"
        if cc is not None and cc.value is not None and cc.ci_lower is not None
        else f"not computed ({cc.missing_reason})"
        if cc is not None
        else "not computed"
    )
    st.caption(
        f"Clinician–clinician agreement (ICC(A,1)) on the double-rated share: {ui.plain(cc_text)}. "
        f"Catch-rate bar: {qstatus.catch_bar:.0%} at the Wilson lower bound."
    )
    queue_jury = next(
        (
            j["jury_id"]
            for j in stored_juries(ui.store().juries)
            if j["run_id"] == qstatus.run_id and j["status"] == "completed"
        ),
        None,
    )
    if queue_jury and st.session_state.get("jv_jury_for_queue") != queue_id:
        st.session_state["jv_jury_for_queue"] = queue_id  # once per queue: the user may pick otherwise after
        st.session_state["jv_source"] = "A stored jury run"
        st.session_state["jv_jury_id"] = queue_jury

st.subheader("2. Jury ratings")
juries = attached_first(stored_juries(ui.store().juries), dossier)
jury_file, jury_id = None, None
source = "A file"
if juries:
    source = st.radio("Jury ratings from", ["A file", "A stored jury run"], horizontal=True, key="jv_source")
else:
    st.caption(
        "No jury has been run in this database yet (**Run evidence** → Score with the LLM jury, or "
        "`medassure jury --run RUN_ID`); upload the jury's "
        "ratings instead."
    )
if source == "A file":
    jury_file = st.file_uploader(
        "Jury ratings (CSV, same format; rater = judge model)", type=["csv"], key="jv_jury"
    )
else:
    labels = {j["jury_id"]: j["label"] for j in juries}
    jury_id = st.selectbox("Stored jury", list(labels), format_func=labels.get, key="jv_jury_id")
with st.expander("Responses and references (optional: ROUGE-L and BERTScore-F1 baselines)"):
    out_file = st.file_uploader(
        "CSV with instance_id, response, reference (optional dataset)", type=["csv"], key="jv_outputs"
    )
    bertscore = st.checkbox(
        "Also compare BERTScore-F1 (loads the offline MiniLM model once)", key="jv_bertscore"
    )

view: JudgeValidityView | None = None
if (clin_file is not None or queue_frame is not None) and (jury_file is not None or jury_id):
    clin_bytes = clin_file.getvalue() if clin_file is not None else queue_frame.to_csv(index=False).encode()
    jury_bytes = jury_file.getvalue() if jury_file else None
    out_bytes = out_file.getvalue() if out_file else None
    key = hashlib.sha256(
        b"\x1f".join(
            [clin_bytes, jury_bytes or str(jury_id).encode(), out_bytes or b"", str(bertscore).encode()]
        )
    ).hexdigest()
    cached = st.session_state.get("jv_result")
    if cached and cached[0] == key:
        view = JudgeValidityView.model_validate(cached[1])
    else:
        try:
            with st.spinner("Computing agreement..."):
                outputs = (
                    pd.read_csv(io.BytesIO(out_bytes), dtype=str, keep_default_na=False)
                    if out_bytes
                    else None
                )
                view = assess_judge_validity(
                    ui.store().juries,
                    clin_bytes if queue_frame is None else queue_frame,
                    jury=jury_bytes,
                    jury_id=jury_id,
                    outputs=outputs,
                    bertscore=bertscore,
                )
            st.session_state["jv_result"] = (key, view.model_dump(mode="json"))
        except (RatingsError, pd.errors.ParserError) as exc:
            st.error(str(exc))

st.subheader("Agreement")
if view is None:
    st.info(
        "Upload clinician ratings and give the jury's ratings to see the agreement (or take the clinician "
        "ratings from a closed review queue)."
    )
else:
    for note in view.report.notes:
        st.warning(note)
    rows = pd.DataFrame(view.rows)

    def shown(x: object) -> str:
        return "—" if x is None or pd.isna(x) else f"{x:.2f}"

    table = pd.DataFrame(
        {
            "dataset": rows["dataset"],
            "comparison": rows["comparison"],
            "statistic": rows["statistic"],
            "value": rows["value"].map(shown),
            "95% interval": [
                f"[{lo:.2f}, {hi:.2f}]" if lo is not None and pd.notna(lo) else "—"
                for lo, hi in zip(rows["ci_lower"], rows["ci_upper"], strict=True)
            ],
            "n": rows["n"].map(lambda x: tables.MISSING if tables.missing(x) else str(int(x))),
            "MedHELM (published)": rows["medhelm"].map(shown),
            "note": rows["note"].map(tables.text),
        }
    )
    tables.plain_table(table.set_index("dataset"))  # small and fixed: readable without the grid
    pooled = view.report.pooled
    st.caption(
        f"Criteria averaged into each composite: {', '.join(view.report.criteria)}. Judges: "
        f"{', '.join(view.judges)}. MedHELM's jury-clinician 0.47 and clinician-clinician 0.43 "
        "(arXiv 2505.23802, v1 abstract) pool aci_bench + medi_qa, so they appear only beside a row that "
        "pools exactly those datasets; 0.43 is not reproducible from the released annotations (0.635 by "
        "the authors' script, 0.641 with its duplicated column removed, as computed here). ICC(3,k) z "
        "follows MedHELM's analysis code and averages two series, so it is only for comparison with "
        "MedHELM. The rule reads ICC(A,1) (gated)."
    )

st.subheader("How many cases to rate")
c1, c2 = st.columns(2)
width = c1.number_input("Target width of the 95% interval", 0.05, 1.0, 0.3, 0.05, key="jv_width")
observed = view.report.pooled.icc21.value if view else None
expected = c2.number_input(
    "Single-rater agreement expected (ICC(A,1))",
    -0.9,
    0.95,
    round(min(max(observed, -0.9), 0.95) if observed is not None else 0.47, 2),
    0.05,
    key="jv_expected",
)
hint = sample_size_hint(width, expected, view.report.pooled.n_instances if view else 0)
st.write(hint.text)

st.subheader("Dossier setting")
rule = minimum_rule(dossier)
default_min = (
    rule.threshold if rule else load_defaults().tiers[dossier.risk.tier]["judge_agreement"].threshold
)
st.caption(
    "Jury-scored evidence counts toward a verdict only if the recorded single-rater agreement's (ICC(A,1)) "
    "lower 95% bound reaches this minimum (the judge-agreement rule of Rules & verdicts)."
)
locked = bool(dossier.policy and dossier.policy.lock)
m1, m2 = st.columns([1, 3])
minimum = m1.number_input(
    "Minimum agreement (single-rater ICC(A,1))", -1.0, 1.0, float(default_min), 0.05, key="jv_minimum"
)
why = (
    m2.text_input("Reason (the rules are locked; the change is logged)", key="jv_minimum_why")
    if locked
    else ""
)
if st.button("Save minimum", key="jv_save_minimum", disabled=rule is not None and minimum == rule.threshold):
    try:
        ui.save(
            set_minimum(ui.current().dossier, minimum, by=ui.reviewer(), why=why),
            note=f"judge validity: minimum agreement {minimum:.2f}",
        )
        st.rerun()
    except (PolicyError, ValidationError) as exc:
        st.error(str(exc))

if view is not None:
    datasets = [d.dataset for d in view.report.datasets]
    r1, r2 = st.columns(2)
    chosen = r1.selectbox("Figure to record", datasets, index=datasets.index(POOLED), key="jv_record_dataset")
    options = sorted(set(jury_benchmarks(dossier)) | {d for d in datasets if d != POOLED})
    covers_default = [b for b in options if b in datasets and b in jury_benchmarks(dossier)]
    covered = r2.multiselect(
        "Benchmarks it covers (none: all jury-scored evidence)",
        options,
        default=covers_default,
        key="jv_covers",
    )
    if st.button("Record this agreement on the dossier", key="jv_record", type="primary"):
        src = f"local judge-validity study ({view.jury_source}; {pooled.n_instances} cases, {chosen})"
        if citation is not None:
            src = (f"review queue {citation.queue_id} against {view.jury_source} "
                   f"({pooled.n_instances} cases, {chosen})")
        try:
            setting = agreement_setting(
                view.report,
                dataset=chosen,
                source=src,
                benchmarks=covered,
                judges=view.judges,
                by=ui.reviewer(),
                review_queue=citation,
            )
            ui.save(
                record_agreement(ui.current().dossier, setting), note=f"judge validity: recorded {chosen}"
            )
            st.rerun()
        except (RatingsError, ValidationError) as exc:
            st.error(str(exc))

st.subheader("Rubric graders: agreement per criterion")
graded_queues = closed_queues(ui.store(), dossier.id, kind="criteria")
if not graded_queues:
    st.caption(
        "A rubric grading counts toward a verdict only if its graders agree with clinicians on every "
        "criterion. Have clinicians rate its cases criterion by criterion (`medassure review create "
        "--grading GRADING_ID`, then Rate outputs); once the queue closes, its agreement shows here."
    )
else:
    glabels = {
        q.queue_id: f"{q.queue_id} · grading {q.grading_id} · {len(q.raters)} raters, {q.n_items} cases"
        for q in graded_queues
    }
    gqueue = st.selectbox("Criteria review queue", list(glabels), format_func=glabels.get,
                          key="jv_grading_queue")
    gv = None
    try:  # blinding: the agreement is the editors'; a rater sees their own progress only
        gseen = queue_status_for(ui.store(), gqueue, actor=ui.actor())
        if isinstance(gseen, RaterProgress):
            st.info("The agreement figures of this queue are shown to the committee's editors only.")
        else:
            gv = gseen.grader_clinician
    except (ReviewError, PermissionDenied) as exc:
        st.error(ui.plain(str(exc)))
    if gv is not None:
        def _ci(est) -> str:
            return (f"{est.value:.2f} [{est.ci_lower:.2f}, {est.ci_upper:.2f}]" if est.value is not None
                    else f"— ({est.missing_reason})")

        tables.plain_table(pd.DataFrame([
            {"criterion": c.agreement.criterion, "cases": c.agreement.n, "Cohen's κ (95% interval)":
             _ci(c.agreement.kappa), "share agreeing (95% interval)": _ci(c.agreement.share_agreeing),
             "verdict": c.status} for c in gv.criteria]).set_index("criterion"))
        st.markdown(f"**Against κ ≥ {gv.bar:.2f}** ({ui.plain(gv.bar_source)}): **{gv.status}**. "
                    + ui.plain(gv.reason))
        st.caption(f"Clinicians' verdict: their majority; {gv.n_ties} case criteria split evenly were left "
                   f"out. Graders: {', '.join(gv.graders)}.")
        if st.button("Record this per-criterion agreement on the dossier", key="jv_record_grading"):
            try:
                setting = grading_setting(ui.store(), gqueue, by=ui.reviewer())
                ui.save(record_grader_agreement(ui.current().dossier, setting),
                        note=f"judge validity: grading {setting.grading_id} per criterion")
                st.rerun()
            except (ReviewError, ValidationError) as exc:
                st.error(ui.plain(str(exc)))
for rec in dossier.grader_agreements:
    st.info(f"**Recorded on this dossier:** grading {ui.plain(rec.grading_id)} ({ui.plain(rec.benchmark)}), "
            f"{len(rec.criteria)} criteria, from {ui.plain(rec.source)}.")

verdicts = [v for v in assessment_and_recommendation(dossier)[0].verdicts if v.kind == "judge_agreement"]
names = candidate_names(dossier)  # products, not model strings; statuses in words (issue 36 item 10)
for v in verdicts:
    who = names.get(v.model, v.model) if v.model else "all candidates"
    st.markdown(f"**Judge-agreement rule** ({ui.plain(who)}): **{value_label(v.status)}**. "
                + ui.plain(v.reason))
