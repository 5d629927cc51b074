"""Task mapping: ranked suggestions with explanations, accept/reject, browse the taxonomy, local tasks."""

import time

import streamlit as st

from governance import suggest_mapping
from governance.mapping import load_taxonomy, model_ready, warm_up_in_background
from pages import tables, ui

st.title("Task mapping")
version = ui.require_dossier()
dossier = version.dossier
tax = load_taxonomy()
decided = {d.subcategory_id: d for d in dossier.mapping.decisions}


@st.cache_data(max_entries=32, show_spinner=False)
def suggestions(text: str) -> list[dict]:
    return [s.model_dump() for s in suggest_mapping(text, top_k=8)]


def decide(sub_id: str, status: str, score: float | None) -> None:
    mapping = ui.current().dossier.mapping.decide(sub_id, status, by=ui.reviewer(), score=score,
                                                  note=st.session_state.get(f"note_{sub_id}", ""))
    ui.save(ui.current().dossier.model_copy(update={"mapping": mapping}), note=f"mapping: {status} {sub_id}")


def wait_for_model(note) -> None:
    """Say how long the model has been loading, each second, until it is ready (no promised duration).

    The first call in a process imports torch in this thread (2-10 s on a busy 2-core server) before the
    loader thread starts, so the note is drawn before that call.
    """
    started = time.monotonic()
    thread = warm_up_in_background()
    while thread.is_alive():
        note.info(f"Loading the sentence model that ranks subcategories by meaning (MiniLM, shipped with the "
                  f"app): once per server start, 10–50 s on a busy 2-core server. Waiting "
                  f"{time.monotonic() - started:.0f} s so far; the rest of this page is ready below.",
                  icon="⏳")
        thread.join(timeout=1.0)


def show_suggestions() -> None:
    ranked = suggestions(dossier.intended_use.text_for_mapping())
    st.subheader("Suggested subcategories")
    for rank, s in enumerate(ranked, start=1):
        sub_id = s["subcategory_id"]
        status = decided[sub_id].status if sub_id in decided else "undecided"
        with st.container(border=True):
            c1, c2, c3 = st.columns([6, 1, 1])
            c1.markdown(f"**{rank}. {s['subcategory']}** · {s['category']} · score {s['score']:.2f} · "
                        f"*{status}*  \n{s['explanation']}")
            c1.text_input("Note (optional)", key=f"note_{sub_id}", label_visibility="collapsed",
                          placeholder="Note (optional)")
            c2.button("Accept", key=f"accept_{sub_id}", on_click=decide,
                      args=(sub_id, "accepted", s["score"]), disabled=status == "accepted")
            c3.button("Reject", key=f"reject_{sub_id}", on_click=decide,
                      args=(sub_id, "rejected", s["score"]), disabled=status == "rejected")


st.caption("Suggestions rank MedHELM subcategories against the intended use. Accept the ones that describe "
           "the job; every decision is recorded with who made it and when.")
# The suggestions have a slot at the top. With the sentence model loaded they are drawn there at once;
# while it loads the slot says so and is filled last, so the rest of the page (current mapping, local
# tasks, the taxonomy) shows meanwhile (issue 27: 4.2 s of blank page before the suggestions).
suggestion_slot = st.container()
ready_at_start = model_ready()  # then the suggestions are drawn first, in their place (below)
with suggestion_slot:
    waiting = st.empty()  # says at once that the suggestions are coming, before the rest is drawn
    if not ready_at_start:
        waiting.info("Loading the sentence model that ranks subcategories by meaning (MiniLM, shipped with "
                     "the app): once per server start. The rest of this page is ready below.", icon="⏳")
    else:  # ranking takes a second here, a minute on a loaded machine: say so while it runs (issue 36)
        with st.spinner("Ranking the 22 MedHELM subcategories against the intended use…"):
            show_suggestions()

st.subheader("Current mapping")
if dossier.mapping.decisions:
    tables.show([
        {"subcategory": tax.subcategory(d.subcategory_id).name, "status": d.status, "by": d.by,
         "at": d.at, "note": d.note} for d in dossier.mapping.decisions
    ])
else:
    st.info("Nothing accepted yet.")
if dossier.mapping.local_tasks:
    st.markdown("**Local tasks** (the committee's own, not MedHELM's)")
    tables.show([{"subcategory": tax.subcategory(t.subcategory_id).name, "task": t.name,
                  "description": t.description, "added by": t.added_by} for t in dossier.mapping.local_tasks])

with st.expander("Add a local task"):
    subs = {s.id: s.name for s in tax.subcategories}
    sub_choice = st.selectbox("Subcategory", list(subs), format_func=subs.get, key="local_task_sub")
    name = st.text_input("Task name", key="local_task_name")
    description = st.text_area("Description", key="local_task_description")
    if st.button("Add local task", key="local_task_add", disabled=len(name.strip()) < 3):
        mapping = dossier.mapping.add_local_task(sub_choice, name.strip(), by=ui.reviewer(),
                                                 description=description.strip())
        ui.save(dossier.model_copy(update={"mapping": mapping}), note=f"local task added: {name.strip()}")
        st.rerun()

st.subheader("Browse the taxonomy")
st.caption(tax.meta["tasks_note"])
for cat in tax.categories:
    with st.expander(f"{cat.name} ({len(cat.subcategories)} subcategories)"):
        st.caption(cat.definition)
        for sub in cat.subcategories:
            mark = {"accepted": " ✓ accepted", "rejected": " ✗ rejected"}.get(
                decided[sub.id].status if sub.id in decided else "", "")
            st.markdown(f"**{sub.name}**{mark}: {sub.definition}")
            if sub.benchmarks:
                tables.show([{"benchmark": b.name, "access": b.access, "metric": b.metric_type,
                              "scale": b.scale, "instances": b.typical_instance_count,
                              "tests": b.what_it_tests} for b in sub.benchmarks])


if not ready_at_start:  # the rest of the page is drawn by now; wait here, saying so
    with suggestion_slot:
        wait_for_model(waiting)
        waiting.empty()
        show_suggestions()
