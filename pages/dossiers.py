"""Dossiers: list, open, start a new one, seed the demo, import an intended-use JSON."""

import json

import pandas as pd
import streamlit as st
from pydantic import ValidationError

from evaluator import JsonRefused, parse_json
from governance import Dossier, IntendedUse
from pages import tables, ui

st.title("Dossiers")
st.caption("Each dossier is one intended use of a model, with its evidence, rules, decision and sign-offs. "
           "Every save is a new version with its own hash; nothing is overwritten.")

rows = [r for r in ui.store().list_dossiers() if not r.discarded]  # a discarded practice copy is set aside
if rows:
    frame = pd.DataFrame([r.model_dump() for r in rows])
    frame["monitoring"] = [ui.monitoring_words(r.id, r.version) or "—" for r in rows]
    frame["practice"] = [f"practice copy of {r.practice_of}" if r.practice_of else "" for r in rows]
    columns = ["id", "title", "owner", "status", "monitoring", "risk_tier", "version", "updated_at"]
    if any(r.practice_of for r in rows):  # a practice copy is never taken for the record (issue 36 item 16)
        columns.insert(2, "practice")
    tables.show(frame[columns],
                labels={"title": "Title", "owner": "Owner", "status": "Status", "monitoring": "Monitoring",
                        "version": "Version", "practice": "Practice"})
else:
    st.info("No dossiers yet. Start a new one, import an intended-use JSON, or load the demo dossier.")

left, right = st.columns(2)
with left:
    st.subheader("Start a new dossier")
    if st.button("New dossier", key="new_dossier_button", type="primary"):
        st.session_state["new_dossier"] = True
        st.switch_page("pages/intended_use.py")
    if st.button("Load the demo dossier", key="seed_demo_button"):
        # Imported on click: the demo's modules import scipy (5.6 s of the first page at load 12).
        from governance.demo import seed_demo

        st.session_state["dossier_id"] = seed_demo(ui.store())
        st.rerun()
with right:
    st.subheader("Import an intended use")
    upload = st.file_uploader("Intended-use JSON (as `medassure dossier example` prints)", type=["json"],
                              key="import_use_file")
    title = st.text_input("Title for the imported dossier", key="import_title")
    if upload is not None and st.button("Create dossier from file", key="import_button"):
        try:
            use = IntendedUse.model_validate(parse_json(upload.getvalue().decode("utf-8-sig")))
            dossier = Dossier(title=title or use.purpose[:80], owner=ui.reviewer(), intended_use=use)
        except (UnicodeDecodeError, json.JSONDecodeError, JsonRefused) as exc:
            st.error(f"{ui.plain(upload.name)} is not accepted as UTF-8 JSON: {exc}")
        except ValidationError as exc:
            st.error("\n".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
        else:
            ui.save(dossier, note=f"imported from {upload.name}")
            st.session_state["dossier_id"] = dossier.id
            st.rerun()
