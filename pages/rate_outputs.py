"""Rate outputs: one item at a time from the signed-in rater's own review queue, blinded, saved as given."""

import time

import streamlit as st

from governance.identity import PermissionDenied
from governance.review import (
    AUDIT_VERDICTS,
    CRITERION_VERDICTS,
    ReviewError,
    create_queue,
    create_queue_from_feed,
    create_queue_from_grading,
    my_queues,
    queue_warnings,
    rater_view,
    read_sentinel_file,
    record_rating,
    sentinels_for_bar,
    size_guidance,
)
from pages import ui

GRADING_SOURCE = "A rubric grading (met / not met per criterion)"
VERDICT_LABELS = {"correct": "Correct", "minor": "Minor error", "material": "Material error"}

st.title("Rate outputs")
st.caption(
    "Rate each output on its own: you are not shown which model wrote it, how anyone else scored it, or "
    "anything else about it. Each rating is saved as you give it; a reload or a second tab loses nothing."
)
who = ui.identity()
actor = ui.actor()


def _create_form() -> None:
    """Editors: a queue from a completed run, a rubric grading or the chosen dossier's monitoring feed."""
    current = ui.current()
    sentinels_needed = sentinels_for_bar()
    with st.form(key="rq_create"):
        source = st.radio(
            "Outputs to rate",
            ["A completed run", GRADING_SOURCE, "The monitoring feed (production outputs)"],
            key="rq_source",
        )
        run_id = st.text_input("Run id (for a run), or grading id (for a rubric grading)", key="rq_run",
                               help="A rubric grading's queue shows each case's response with its "
                                    "criteria; raters answer met / not met for each, never seeing the "
                                    "graders' verdicts. It takes no sentinels yet.")
        month = st.text_input("Month, YYYY-MM (for the feed; empty: the whole feed)", key="rq_month")
        n = st.number_input("Outputs to sample", min_value=1, max_value=100_000, value=20, key="rq_n")
        raters = st.text_input("Raters, comma-separated", key="rq_raters")
        guidance = size_guidance()
        left, right = st.columns(2)
        double = left.number_input(
            "Share rated by two raters", min_value=0.0, max_value=1.0, value=0.25, step=0.05,
            key="rq_double",
            help="Clinician-clinician agreement needs outputs rated twice (and two raters or more). "
            + guidance.text)
        sentinels = right.number_input(
            "Sentinels (planted errors every rater sees)", min_value=0, max_value=100_000, value=3,
            key="rq_sentinels",
            help="Each rater's catch rate needs sentinels: made from correct outputs (another option, a "
                 "wrong value, a changed number, a flipped negation, a dropped warning) or written below.")
        st.caption(f"Sample size: {ui.plain(guidance.text)} A rater who catches every sentinel clears the "
                   f"90% catch-rate bar (95% lower bound) only from {sentinels_needed} sentinels.")
        upload = st.file_uploader("Editor-written sentinels (CSV: instance_id, output, note)", type=["csv"],
                                  key="rq_sentinel_file")
        go = st.form_submit_button("Create the queue")
    if not go:
        return
    feed = source.startswith("The monitoring feed")
    grading = source == GRADING_SOURCE
    written: list[tuple[str, str, str]] = []
    if upload is not None:
        try:
            written = read_sentinel_file(upload.getvalue().decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            st.error(ui.plain(f"Sentinel file: {exc}"))
            return
    planted = 0 if grading else max(int(sentinels), len(written))
    content = (source, run_id.strip(), month.strip(), int(n), raters.strip(), current and current.dossier.id,
               float(double), planted, tuple(written))
    made = st.session_state.setdefault("rq_made", {})
    if content in made:
        st.info(f"Queue {ui.plain(made[content])} was already created from these settings.")
        return
    if feed and current is None:
        st.error("Choose the dossier whose feed to sample in the sidebar.")
        return
    try:
        with ui.permitted():
            if feed:
                queue, skipped = create_queue_from_feed(
                    ui.store(),
                    current.dossier.id,
                    int(n),
                    raters.split(","),
                    month=month.strip() or None,
                    double=float(double),
                    sentinels=planted,
                    written=written,
                    actor=actor,
                )
            else:  # from a run's or a grading's id
                skipped = None
                on_dossier = {"dossier_id": current.dossier.id if current else None, "double": float(double),
                              "actor": actor}
                queue = create_queue_from_grading(
                    ui.store(), run_id.strip(), int(n), raters.split(","), **on_dossier,
                ) if grading else create_queue(
                    ui.store(), run_id.strip(), int(n), raters.split(","), sentinels=planted, written=written,
                    **on_dossier,
                )
    except ReviewError as exc:
        st.error(ui.plain(str(exc)))
        return
    made[content] = queue.queue_id
    note = f" {skipped} feed row(s) without output text were left out." if skipped else ""
    st.success(f"Queue {ui.plain(queue.queue_id)} created: {queue.n_items} outputs ({queue.n_double} rated "
               f"twice) and {queue.n_sentinels} sentinels.{ui.plain(note)}")
    for warning in queue_warnings(queue.n_items, float(double), queue.n_sentinels, len(queue.raters)):
        st.warning(ui.plain(warning))


if st.toggle("Create a review queue (editors)", key="rq_open"):
    _create_form()

queues = my_queues(ui.store(), actor=actor)
if not queues:
    st.info(
        f"No review queue names **{ui.plain(who.name if who else 'you')}** as a rater. An editor creates one "
        "(`medassure review create --run RUN_ID --n N --raters NAME,...`); locally, type your rater name as "
        "the sidebar's Reviewer."
    )
    if ui.config().mode == "local":  # one desk: the rater names help; a shared deployment keeps them private
        names = sorted({r for q in ui.store().reviews.list_queues() for r in q.raters})
        if names:
            st.caption("Raters of the queues in this database: " + ui.plain(", ".join(names)) + ".")
    st.stop()

labels = {
    q.queue_id: f"{q.queue_id} · {q.n_items + q.n_sentinels} items · created {q.created_at:%Y-%m-%d}"
    for q in queues
}
queue_id = st.selectbox("Review queue", list(labels), format_func=labels.get, key="ro_queue")
try:
    view = rater_view(ui.store(), queue_id, actor=actor)
except (ReviewError, PermissionDenied) as exc:
    st.error(str(exc))
    st.stop()

total, done = len(view.items), len(view.done)
st.progress(
    done / total if total else 1.0, text=f"{done} of {total} rated · rating as {ui.plain(view.rater)}"
)
if view.removed:
    st.warning("You were removed from this queue: your ratings are kept, and no new ones are taken.")
    st.stop()
item = view.next_item
if item is None or view.closed:
    if item is None:
        st.success("You have rated all your items. Thank you.")
    else:
        st.info("This queue is closed: its ratings are frozen.")
    rate = view.catch_rate
    if rate is not None and rate.n:
        st.markdown(
            f"**Planted errors you caught:** {rate.caught} of {rate.n} ({rate.estimate:.0%}; 95% interval "
            f"{rate.lower:.2f}–{rate.upper:.2f}). The committee's bar is {rate.bar:.0%} at the lower bound: "
            + (
                "met."
                if rate.meets_bar
                else "not met, which with few planted errors is common; see the queue's "
                "status with its editor."
            )
        )
    st.stop()

started = st.session_state.setdefault("ro_started", {})
started.setdefault(item.item_id, time.time())  # time on the item, for the rubber-stamping check

st.subheader(f"Item {item.position} of {total}")
if item.context.strip():
    st.markdown("**Context**")
    st.markdown(ui.plain(item.context))
st.markdown("**Question**")
st.markdown(ui.plain(item.question or "(no question)"))
st.markdown("**Output to rate**")
with st.container(border=True):
    st.markdown(ui.plain(item.output))


def _save(scores: dict | None, skipped: str = "") -> None:
    seconds = time.time() - started.get(item.item_id, time.time())
    try:
        stored = record_rating(
            ui.store(),
            queue_id,
            item.item_id,
            scores,
            skipped=skipped,
            seconds=seconds,
            actor=actor,
        )
    except (ReviewError, PermissionDenied) as exc:
        st.error(str(exc))
        return
    st.toast("Saved." if stored else "Already saved earlier: the first rating stands.")
    started.pop(item.item_id, None)
    st.rerun()


with st.form(key=f"ro_form_{item.item_id}"):
    answers: dict = {}
    if view.rubric_kind == "criteria":
        st.markdown("**Rubric criteria**: for each, is it met by the output?")
        for k, text in enumerate(item.criteria, 1):
            answers[str(k)] = st.radio(
                f"{k}. {ui.plain(text)}",
                list(CRITERION_VERDICTS),
                index=None,
                horizontal=True,
                key=f"ro_{item.item_id}_c{k}",
            )
    elif view.rubric_kind == "audit":
        answers["verdict"] = st.radio(
            "Verdict: is the output correct, does it hold a minor error, or a material (clinically "
            "significant) one?",
            list(AUDIT_VERDICTS),
            index=None,
            format_func=VERDICT_LABELS.get,
            horizontal=True,
            key=f"ro_{item.item_id}_verdict",
        )
    else:
        low, high = view.scale
        for name in view.criteria:
            question = view.questions.get(name, "")
            answers[name] = st.radio(
                f"{name.replace('_', ' ').capitalize()} ({low} = worst, {high} = best): {question}",
                list(range(low, high + 1)),
                index=None,
                horizontal=True,
                key=f"ro_{item.item_id}_{name}",
            )
    submitted = st.form_submit_button("Save rating", type="primary")
if submitted:
    missing = [k for k, v in answers.items() if v is None]
    if missing:
        what = "criterion " if view.rubric_kind == "criteria" else ""
        st.error(
            f"Answer every question before saving: {what}" + ", ".join(m.replace("_", " ") for m in missing)
            + "."
        )
    else:
        _save(answers)

with st.expander("Skip this item"):
    reason = st.text_input("Why you skip it (recorded)", key=f"ro_{item.item_id}_skip_reason")
    if st.button("Skip with this reason", key=f"ro_{item.item_id}_skip"):
        if len(reason.strip()) < 3:
            st.error("Say why you skip the item (at least 3 characters).")
        else:
            _save(None, skipped=reason.strip())
