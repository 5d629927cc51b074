"""Intended use: the form, inline validation, and the risk tier with its reasoning, live."""

import streamlit as st
from pydantic import ValidationError

from governance import Dossier, IntendedUse
from governance.intended_use import (
    DECISION_ROLE_LABELS,
    OVERSIGHT_LABELS,
    PHI_LABELS,
    SEVERITY_LABELS,
    TIER_INPUTS,
    assess_risk,
    high_floor_applies,
)
from pages import ui
from pages.intended_use_merge import merge_panel

st.title("Intended use")

creating = bool(st.session_state.get("new_dossier")) or ui.current() is None
latest = None if creating else ui.current()
# After someone else's save the form stays on the version this session started from, so what its user
# typed survives the rerun; the merge panel at the bottom applies it onto the latest version.
others = ui.others_since_seen(latest) if latest else []
version = (ui.seen_version(latest.dossier.id) or latest) if others else latest
dossier = version.dossier if version else None
use = dossier.intended_use if dossier else None
# Widget keys carry the dossier version so that switching dossiers shows that dossier's values.
prefix = f"iu_{version.dossier.id}_{version.version}_" if version else "iu_new_"

if creating:
    st.caption(
        "A new dossier. Fill in the intended use; the risk tier follows from severity, decision role "
        "and oversight."
    )
    if (
        st.session_state.get("new_dossier")
        and ui.current() is not None
        and st.button("Cancel", key="cancel_new")
    ):
        st.session_state["new_dossier"] = False
        st.rerun()
else:
    st.caption(
        f"Dossier {dossier.id}, version {version.version}. Saving creates version {version.version + 1}."
        if not others else
        f"Dossier {dossier.id}: you are editing version {version.version}; the latest is version "
        f"{latest.version} (see below the form)."
    )


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def choice(label: str, options: dict, current: str | None, key: str) -> str | None:
    """A required choice: nothing is preselected on a blank form (a blank form must not mean "negligible")."""
    keys = list(options)
    return st.selectbox(
        label,
        keys,
        index=keys.index(current) if current in keys else None,
        format_func=options.get,
        placeholder="Choose one (required)",
        key=prefix + key,
    )


LABELS = {
    "title": "Title", "owner": "Owner", "purpose": "Purpose", "workflow": "Workflow",
    "intended_users": "Intended users", "care_setting": "Care setting",
    "patient_population": "Patient population", "out_of_scope_uses": "Out-of-scope uses",
    "candidate_models": "Models under consideration", "decision_role": "Decision role",
    "error_severity": "Severity of an uncaught wrong output", "human_oversight": "Human oversight",
    "phi_exposure": "Patient data exposure", "expected_monthly_volume": "Expected requests per month",
    "lower_tier_reason": "Why this use is not tier high",
}
CHOICES = ("error_severity", "decision_role", "human_oversight", "phi_exposure")


col1, col2 = st.columns([3, 2])
with col1:
    title = st.text_input("Title", value=dossier.title if dossier else "", key=prefix + "title")
    owner = st.text_input(
        "Owner (accountable person or committee)",
        value=dossier.owner if dossier else "",
        key=prefix + "owner",
    )
    values = {
        "purpose": st.text_area(
            "Purpose: what the model does, for whom and why",
            value=use.purpose if use else "",
            key=prefix + "purpose",
            height=100,
        ),
        "workflow": st.text_area(
            "Workflow: where the output appears and what happens to it next",
            value=use.workflow if use else "",
            key=prefix + "workflow",
            height=100,
        ),
        "intended_users": lines(
            st.text_area(
                "Intended users (one per line)",
                value="\n".join(use.intended_users) if use else "",
                key=prefix + "users",
            )
        ),
        "care_setting": st.text_input(
            "Care setting", value=use.care_setting if use else "", key=prefix + "setting"
        ),
        "patient_population": st.text_input(
            "Patient population", value=use.patient_population if use else "", key=prefix + "population"
        ),
        "out_of_scope_uses": lines(
            st.text_area(
                "Out-of-scope uses (one per line)",
                value="\n".join(use.out_of_scope_uses) if use else "",
                key=prefix + "out_of_scope",
            )
        ),
        "candidate_models": lines(
            st.text_area(
                "Models under consideration (names as the evidence uses them, one per line)",
                value="\n".join(use.candidate_models) if use else "",
                key=prefix + "candidates",
                help="The models whose published or local evidence you will look at, e.g. GPT-4o. The "
                "vendor products built on them (price, endpoint, attestations) go on the Candidates page.",
            )
        ),
    }
with col2:
    values["decision_role"] = choice("Decision role", DECISION_ROLE_LABELS, use and use.decision_role, "role")
    values["error_severity"] = choice(
        "Severity of an uncaught wrong output", SEVERITY_LABELS, use and use.error_severity, "severity"
    )
    values["human_oversight"] = choice(
        "Human oversight before the output takes effect",
        OVERSIGHT_LABELS,
        use and use.human_oversight,
        "oversight",
    )
    values["phi_exposure"] = choice("Patient data exposure", PHI_LABELS, use and use.phi_exposure, "phi")
    values["expected_monthly_volume"] = st.number_input(
        "Expected requests per month",
        min_value=0,
        value=use.expected_monthly_volume if use else 0,
        step=1000,
        key=prefix + "volume",
    )

    drivers = [LABELS[f] for f in TIER_INPUTS[:3]]
    unchosen = [f for f in TIER_INPUTS[:3] if values[f] is None]
    values["lower_tier_reason"] = ""
    reason_shown = values["error_severity"] == "serious" and (
        bool(use and use.lower_tier_reason)
        or (not unchosen and high_floor_applies(IntendedUse.model_construct(**values)))
    )
    if reason_shown:
        values["lower_tier_reason"] = st.text_area(
            LABELS["lower_tier_reason"] + " (optional; recorded with the dossier)",
            value=use.lower_tier_reason if use else "",
            key=prefix + "lower_tier_reason",
            help="An error in this use could cause serious harm, so its tier is at least high, with the high "
            "tier's bars. If the committee decides otherwise, say why here; the tier then follows the points "
            "(never below moderate) and the reason appears in the dossier and the report.",
        )
    if unchosen:
        st.subheader("Risk tier: not set yet")
        st.markdown("Choose " + ", ".join(LABELS[f] for f in unchosen).lower()
                    + ": the tier follows from them.")
    else:
        risk = assess_risk(IntendedUse.model_construct(**values))
        st.subheader(f"Risk tier: :{ui.TIER_COLOURS[risk.tier]}[{risk.tier}]")
        for reason in risk.reasons:
            st.markdown(f"- {reason}")
        if reason_shown and not values["lower_tier_reason"]:
            st.caption("To record why this use is not tier high, fill in the reason field above.")
    st.caption(
        "What drives the tier: " + "; ".join(drivers) + ", and for a serious use a recorded reason why it is "
        "not tier high. Patient data exposure, users, setting and volume do not change it."
    )


def problems() -> tuple[IntendedUse | None, list[str]]:
    """The validated intended use, or the problems in words, each named by its field's label."""
    found = [f"**{LABELS[f]}**: choose one" for f in CHOICES if values[f] is None]
    checked = None
    try:
        checked = IntendedUse.model_validate(values)
    except ValidationError as exc:
        for e in exc.errors():
            field = str(e["loc"][0]) if e["loc"] else ""
            if field in CHOICES and values[field] is None:
                continue  # said above, in words
            message = e["msg"].replace("String should have", "should have").replace("List should have",
                                                                                       "should list")
            found.append(f"**{LABELS.get(field, field)}**: {message.lower()}")
    if len(title.strip()) < 3:
        found.append("**Title**: at least 3 characters")
    if not owner.strip():
        found.append("**Owner**: required")
    return checked, found


# Checked when the reviewer saves, not while the form is still empty.
if others and version.hash != latest.hash:
    merge_panel(version, latest, {"title": title, "owner": owner, **values}, others)
elif st.button("Save dossier" if creating else "Save new version", key="save_intended_use", type="primary"):
    candidate, errors = problems()
    if errors:
        st.warning("Not saved. Please complete:\n\n" + "\n".join(f"- {e}" for e in errors))
    elif creating:
        new = Dossier(title=title.strip(), owner=owner.strip(), intended_use=candidate)
        saved = ui.save(new, note="created on the intended-use page")
        st.session_state["new_dossier"] = False
        st.session_state["dossier_id"] = new.id
        st.rerun()
    else:
        updated = dossier.model_copy(
            update={"title": title.strip(), "owner": owner.strip(), "intended_use": candidate}
        )
        saved = ui.save(updated, note="intended use edited")
        st.rerun()
