"""The Intended-use page after someone else saved: what they changed, and your edit applied onto theirs.

A helper of ``pages/intended_use.py`` (widgets only; the merge itself is
``governance.intended_use.form_merge``). The form keeps what its user typed: its widgets belong to the
version the user started from, so a rerun does not replace them with the latest values.
"""

from __future__ import annotations

import streamlit as st
from pydantic import ValidationError

from governance import IntendedUse
from governance.dossier import DossierVersion, field_label
from governance.intended_use import apply_merge, form_values, plan_merge
from pages import ui


def _save_merged(base: DossierVersion, latest: DossierVersion, mine: dict, picks: dict) -> None:
    merged = apply_merge(form_values(base.dossier), mine, form_values(latest.dossier), picks)
    title, owner = str(merged.pop("title")).strip(), str(merged.pop("owner")).strip()
    try:
        use = IntendedUse.model_validate(merged)
    except ValidationError as exc:
        named = sorted({field_label(str(e["loc"][0])) for e in exc.errors() if e["loc"]})
        st.warning("Not saved. Please complete: " + ui.plain(", ".join(named) or "the form"))
        return
    if len(title) < 3 or not owner:
        st.warning("Not saved. Please complete: " + ("Title (at least 3 characters)" if len(title) < 3
                                                       else "Owner"))
        return
    ui.accept_latest(latest.dossier.id, latest.hash)  # the merge was made against this version
    ui.save(latest.dossier.model_copy(update={"title": title, "owner": owner, "intended_use": use}),
            note=f"intended use edited (applied onto version {latest.version})")
    st.rerun()


def merge_panel(base: DossierVersion, latest: DossierVersion, mine: dict, others: list) -> None:
    """Say what the other person changed since ``base``; offer to apply the form's edit onto ``latest``."""
    plan = plan_merge(form_values(base.dossier), mine, form_values(latest.dossier))
    by = ", ".join(dict.fromkeys(ui.plain(h.author) for h in others))
    st.warning(f"**Someone else saved this dossier while you edited it:** version {latest.version} by {by} "
               f"(you started from version {base.version}). Your form is kept as you typed it; nothing of "
               "yours was saved yet.")
    st.markdown("**What they changed in this form**" if plan.theirs else
                "**They changed nothing in this form** (other parts of the dossier only).")
    for change in plan.theirs:
        st.text(change.theirs_line())
    dossier_id = latest.dossier.id
    if not plan.has_my_changes:
        st.button(f"I have reviewed the changes: continue with version {latest.version}",
                  key="iu_merge_continue", on_click=ui.accept_latest, args=(dossier_id, latest.hash))
        return
    st.markdown("**Your changes**")
    for change in plan.mine:
        st.text(change.mine_line())
    picks = {}
    for c in plan.conflicts:
        options = {"mine": f"Mine: {c.mine}", "theirs": f"Theirs (version {latest.version}): {c.theirs}"}
        picks[c.field] = st.radio(f"You both changed {c.label}: which value to keep?", list(options),
                                  format_func=options.get, index=None,
                                  key=f"iu_merge_pick_{c.field}_{latest.version}")
    left, right = st.columns(2)
    if left.button("Apply my edit onto the latest version", key="iu_merge_apply", type="primary",
                   disabled=any(p is None for p in picks.values()),
                   help="Your changed fields over theirs; where you both changed one, the value you chose."):
        _save_merged(base, latest, mine, picks)
    right.button("Discard my edit and show the latest version", key="iu_merge_discard",
                 on_click=ui.accept_latest, args=(dossier_id, latest.hash))
