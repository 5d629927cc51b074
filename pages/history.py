"""History: the dossier's versions as a timeline, and a diff between any two of them."""

import pandas as pd
import streamlit as st

from governance.dossier.history import diff_versions, timeline
from governance.reevaluation.reevaluate import added_addenda
from pages import ui
from reports.markdown import section_markdown
from reports.sections_reevaluation import addendum_section

st.title("History")
version = ui.require_dossier()
dossier_id = version.dossier.id

events = timeline(ui.store(), dossier_id)
st.caption(
    "Every save is a version; none is ever overwritten. Each hash covers the whole dossier content and "
    "names its parent, so the chain can be checked."
)
st.dataframe(
    pd.DataFrame(
        [
            {
                "version": e["version"],
                "when": e["created_at"][:19].replace("T", " "),
                "who": e["author"],
                "kind": e["kind"],
                "note": e["note"],
                "changed": ", ".join(e["changed"][:6]),
                "hash": e["hash"][:16],
            }
            for e in reversed(events)
        ]
    ),
    hide_index=True,
    width="stretch",
)

if len(events) < 2:
    st.info("Only one version so far: nothing to compare.")
    st.stop()

numbers = [e["version"] for e in events]
c1, c2 = st.columns(2)
older = c1.selectbox("Compare version", numbers, index=len(numbers) - 2, key="history_from")
newer = c2.selectbox("with version", numbers, index=len(numbers) - 1, key="history_to")
diff = diff_versions(ui.store(), dossier_id, older, newer)
st.subheader(f"Version {diff.from_version} → {diff.to_version}")
if not diff.changes:
    st.success("The two versions have identical content.")
else:
    st.markdown("Sections changed: " + ", ".join(f"**{s}**" for s in diff.sections))
    st.dataframe(pd.DataFrame([c.model_dump() for c in diff.changes]), hide_index=True, width="stretch")
    for addendum in added_addenda(ui.store(), dossier_id, older, newer):
        with st.expander(f"Re-evaluation {addendum.id}: {addendum.change.describe()}", expanded=True):
            st.markdown(section_markdown(addendum_section(addendum), level=4, heading=False))
