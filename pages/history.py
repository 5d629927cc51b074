"""History: the dossier's versions as a timeline, and a diff between any two of them."""

import pandas as pd
import streamlit as st

from governance.dossier import diff_versions, field_label, timeline
from governance.reevaluation import added_addenda
from pages import ui
from reports import addendum_section, section_markdown

st.title("History")
version = ui.require_dossier()
dossier_id = version.dossier.id

events = timeline(ui.store(), dossier_id)
st.caption(
    "Every save is a version; none is ever overwritten. Each hash covers the whole dossier content and "
    "names its parent, so the chain can be checked."
)
chain = ui.store().verify_chain(dossier_id)
if chain.ok:
    st.success(chain.summary)
else:
    where = {"version": "version", "event": "audit event"}
    st.error(chain.summary + "\n\n" + "\n".join(
        f"- {where[b.kind]} {b.version if b.kind == 'version' else b.seq}: {b.problem}"
        for b in chain.breaks[:10]))
st.dataframe(
    pd.DataFrame(
        [
            {
                "Version": e["version"],
                "Saved (UTC)": e["created_at"][:16].replace("T", " "),
                "By": e["author"],
                "Kind": e["kind"],
                "Identity": e.get("auth") or "not recorded",
                "Note": e["note"],
                "Changed": ", ".join(dict.fromkeys(field_label(c.split("[")[0]) for c in e["changed"][:6])),
                "Hash": e["hash"][:16],
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
    st.markdown("Sections changed: " + ", ".join(f"**{s}**" for s in diff.section_labels))
    for change in diff.changes:
        st.text(change.text)  # as text: values are the committee's own words, never rendered Markdown
    with st.expander("Technical detail (paths and stored values)"):
        st.dataframe(pd.DataFrame([{"Path": c.path, "Kind": c.kind, "Before": c.old, "After": c.new}
                                   for c in diff.changes]), hide_index=True, width="stretch")
    for addendum in added_addenda(ui.store(), dossier_id, older, newer):
        change = ui.plain(addendum.change.describe())
        with st.expander(f"Re-evaluation {addendum.id}: {change}", expanded=True):
            st.markdown(section_markdown(addendum_section(addendum), level=4, heading=False))
