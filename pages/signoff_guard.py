"""Ask before a save voids sign-offs (issue 36 item 3).

A sign-off binds to the dossier's content, so any edit to a decided, signed dossier voids every sign-off
that holds, and that used to happen silently. ``ui.save`` calls ``ask_before_voiding`` first: when the
save would void any, the page says which (role and signer) and stops with two buttons. The change waits
in the session (its own key, not a widget's) until the user confirms it, which saves it against the
version they were shown (a save by someone else in between is refused as usual), or cancels it.
"""

from __future__ import annotations

import streamlit as st

from governance import Dossier
from governance.decision import DecisionError, signoff_status, signoffs_voided_by
from governance.dossier import DossierVersion, SaveConflict
from governance.identity import PermissionDenied, save_as
from pages import ui

PENDING = "pending_voiding_save"
"""The change waiting for the user's word: its dossier, note, base version, the roles it voids and the
session-state values (a page's flash) to set once it is saved."""


def ask_before_voiding(before: DossierVersion, dossier: Dossier, note: str, then: dict | None = None) -> None:
    """Return when saving ``dossier`` over ``before`` voids no sign-off; otherwise ask and stop the page."""
    voided = signoffs_voided_by(before.dossier, dossier)
    if not voided:
        return
    who = "; ".join(f"{r.role} ({r.signoff.name})" for r in voided if r.signoff is not None)
    st.session_state[PENDING] = {"dossier": dossier, "note": note, "expected": ui.seen_hash(dossier.id),
                                 "voided": who, "n": len(voided), "then": then or {}}
    st.warning(f"**This change voids {len(voided)} sign-off(s):** {ui.plain(who)}. Each was given on the "
               "dossier as it is now; after the change those roles must sign again. Nothing is saved until "
               "you confirm.")
    save, cancel = st.columns(2)
    save.button(f"Save and void {len(voided)} sign-off(s)", key="voiding_save_confirm", type="primary",
                on_click=_confirmed)
    cancel.button("Cancel: keep the sign-offs", key="voiding_save_cancel", on_click=_cancelled)
    st.stop()


def _confirmed() -> None:
    pending = st.session_state.pop(PENDING, None)
    if pending is None:
        return
    with ui.permitted():  # records the version as this session's own
        try:
            v = save_as(ui.store(), ui.identity(), pending["dossier"], pending["note"],
                        expected_hash=pending["expected"], config=ui.config())
        except (PermissionDenied, SaveConflict, DecisionError) as exc:
            st.error(f"{exc} Nothing was saved.")
            return
    st.toast(f"Saved version {v.version}; {pending['n']} sign-off(s) voided: {pending['voided']}.")
    st.session_state.update(pending["then"])  # the page's own message, as after a save without the question


def _cancelled() -> None:
    st.session_state.pop(PENDING, None)
    st.toast("Not saved: the sign-offs still hold.")


ASKING = "voiding_action_asked"
"""The action (its button's key) whose question is open: attaching a run or a jury saves through an
operation, so the page asks before it runs rather than before a save it makes itself."""
CONFIRMED = "voiding_action_confirmed"


def go_ahead(key: str, pressed: bool) -> bool:
    """Whether the action behind button ``key`` may run now: pressed (or its question open) and either no
    sign-off holds on the dossier shown or the user has confirmed voiding them.

    Any content change voids every sign-off that holds (``signoffs_voided_by``), so an attach on a signed
    dossier asks first, in the words of ``ask_before_voiding`` and with its buttons.
    """
    if not pressed and st.session_state.get(ASKING) != key:
        return False
    before = ui.current()
    holding = [] if before is None else [r for r in signoff_status(before.dossier).roles if r.valid]
    if not holding or st.session_state.get(CONFIRMED) == key:
        st.session_state.pop(ASKING, None)
        st.session_state.pop(CONFIRMED, None)
        return True
    st.session_state[ASKING] = key
    who = "; ".join(f"{r.role} ({r.signoff.name})" for r in holding if r.signoff is not None)
    st.warning(f"**This change voids {len(holding)} sign-off(s):** {ui.plain(who)}. Each was given on the "
               "dossier as it is now; after the change those roles must sign again. Nothing is saved until "
               "you confirm.")
    yes, no = st.columns(2)
    yes.button(f"Go ahead and void {len(holding)} sign-off(s)", key="voiding_save_confirm", type="primary",
               on_click=st.session_state.update, args=({CONFIRMED: key},))
    no.button("Cancel: keep the sign-offs", key="voiding_save_cancel", on_click=_action_cancelled)
    return False


def _action_cancelled() -> None:
    st.session_state.pop(ASKING, None)
    st.session_state.pop(CONFIRMED, None)
    st.toast("Nothing attached: the sign-offs still hold.")
