"""Decision: the recommendation the verdicts support, the committee's decision beside it, and sign-offs."""

import streamlit as st

from governance.decision import (
    DECISION_OUTCOMES,
    OUTCOME_LABELS,
    DecisionError,
    confirm_decision,
    decision_memo,
    decision_view,
    needs_override,
    sign,
)
from governance.decision import decide as record_decision
from governance.identity import PermissionDenied, local_identity
from governance.monitoring import FeedSealBroken, MonitoringError, monitoring_status
from governance.procurement import candidate_names
from pages import plain_words, ui
from pages import policy_tables as tables
from reports import one_line

st.title("Decision")
version = ui.require_dossier()
dossier = version.dossier
view = decision_view(ui.store(), dossier.id)
acting, allowed = ui.identity(), ui.access()
rec, decision, status = view.recommendation, view.decision, view.status

if view.invalidated:
    lines = []
    for b in view.invalidated:
        what = ", ".join(b.changed) if b.changed else "content"
        seen = f"version {b.signed_version}" if b.signed_version else "an earlier version"
        lines.append(f"- **{ui.plain(b.signoff.role)}** ({ui.plain(b.signoff.name)}) signed {seen}; "
                     f"changed since: {ui.plain(what)}")
    st.error(f"**{len(view.invalidated)} sign-off(s) no longer valid**: the dossier changed after they were "
             "signed. They stay on record but no longer count; the roles must sign again.\n\n"
             + "\n".join(lines))
if decision is not None and view.stale:
    changed = ", ".join(view.changed_since_decision) or "what it rests on"
    st.warning(f"**The decision no longer rests on this dossier:** {ui.plain(changed)} changed after it was "
               "recorded. Nobody can sign until the chair records the decision again or confirms it still "
               "stands (below).")
for conflict in view.blocking:
    st.error(f"**The review plan contradicts the intended use.** {ui.plain(conflict.text)}")

plain_words.memo(decision_memo(dossier, view.assessment, rec))

left, right = st.columns(2)
with left:
    st.subheader("Recommendation (computed)")
    st.markdown(f"### {OUTCOME_LABELS[rec.outcome]}")
    plain_words.outcomes(view.assessment, rec, dossier)
    plain_words.how_computed(rec.reasons + ([rec.error_control] if rec.error_control else []))
    for cand in rec.candidates:
        with st.expander(f"{ui.plain(cand.model)}: {OUTCOME_LABELS[cand.outcome]}"):
            for line in cand.reasons:
                st.markdown(f"- {ui.plain(line)}")
            if cand.conditions:
                st.markdown("**Conditions the verdicts call for**")
                for c in cand.conditions:
                    st.markdown(f"- {ui.plain(c)}")
            if cand.to_settle:
                st.markdown("**What would settle it**")
                for c in cand.to_settle:
                    st.markdown(f"- {ui.plain(c)}")
    if rec.preregistration:
        st.caption(f"Pre-registration: {rec.preregistration[0]} Which ones: see **Rules & verdicts**.")
with right:
    st.subheader("Committee decision")
    if decision is None:
        st.info("Not recorded yet.")
    else:
        who = f" for **{ui.plain(decision.model)}**" if decision.model else ""
        st.markdown(f"### {OUTCOME_LABELS[decision.outcome]}{who}")
        said = OUTCOME_LABELS.get(decision.recommended, "n/a").lower()
        whose = ui.plain(decision.model) if decision.model else "the use as a whole"
        st.markdown(f"Recorded by **{ui.plain(decision.decided_by)}** on "
                    f"{decision.decided_at:%Y-%m-%d %H:%M} UTC; for **{whose}** the tool recommended "
                    f"*{said}*" + ("" if rec.models[:1] == [decision.model] or not rec.models else
                                   f" (the headline on the left is {ui.plain(' and '.join(rec.models))}'s, "
                                   "the best candidate's)") + ".")
        st.markdown(f"**Rationale.** {ui.plain(decision.rationale)}")
        for c in decision.confirmations:
            st.caption(f"Confirmed as still standing by **{ui.plain(c.by)}** on {c.at:%Y-%m-%d %H:%M} UTC"
                       + (f" after {ui.plain(', '.join(c.changed))} changed" if c.changed else "")
                       + f": {ui.plain(c.reason)}")
        for c in decision.conditions:
            st.markdown(f"- {ui.plain(c)}")
        if view.disagreement is not None:
            st.warning("**The decision differs from the recommendation.** "
                       + ui.plain(view.disagreement.text))
        if decision.gaps_override is not None:
            o = decision.gaps_override
            st.warning(f"**Approved with items missing:** {ui.plain(', '.join(o.missing))}. Override "
                       f"recorded by **{ui.plain(o.by)}**: {ui.plain(o.reason)}")

if decision is not None and decision.outcome != "reject":  # the live status after go-live (page Monitoring)
    try:
        live = monitoring_status(ui.store(), dossier.id, content=False)  # the Monitoring page checks the rows
    except FeedSealBroken as exc:  # never nothing: rows removed or added behind the app's back (issue 35)
        live = None
        st.warning(f"**Monitoring (live): the feed does not match its seal, so no status is shown.** "
                   f"{ui.plain(str(exc))}")
    except MonitoringError:
        live = None
    if live is not None:
        line = f"**Monitoring (live):** {ui.plain(one_line(live))} Details: page **Monitoring**."
        # a warning, not an error: the page's errors are about this dossier's record (sign-offs voided)
        (st.info if not live.rows else st.success if live.status == "in_control" else st.warning)(line)

st.subheader("Checklist before a decision")
for item in view.checklist:
    mark = ":green[✓]" if item.done else (":red[✗]" if item.before_decision else ":gray[○]")
    st.markdown(f"{mark} **{item.label}**: {ui.plain(item.detail)}")
if view.gaps:
    st.caption("An approval with items missing needs a recorded override: the committee's reason, kept on "
               "the decision record and stated on the report's cover. A rejection needs none: turning the "
               "use down with parts of the plan missing puts no patient at risk.")

with st.expander("Record the committee's decision", expanded=decision is None and allowed.is_chair):
    outcome = st.radio("Decision", list(DECISION_OUTCOMES), format_func=OUTCOME_LABELS.get, horizontal=True,
                       key="decision_outcome")
    models = ["(the use as a whole)", *view.assessment.models]
    names = candidate_names(dossier)  # the products compared, not model strings (issue 36 item 5)
    model = st.selectbox("Candidate", models, key="decision_model", format_func=lambda m: names.get(m, m),
                         index=models.index(rec.models[0]) if rec.models else 0)
    if not allowed.is_chair:  # the domain refuses anyway (governance.identity.access)
        st.caption("Only the committee chair records the decision"
                   + (f"; you hold: {allowed.describe()}." if acting else "; sign in to act."))
    rationale = st.text_area("Rationale (required)", key="decision_rationale")
    conditions = st.text_area("Conditions, one per line (required for approve with conditions)",
                              key="decision_conditions", disabled=outcome != "approve_with_conditions")
    roles = st.text_input("Roles that must sign off (comma-separated)", key="decision_roles",
                          value=", ".join(decision.required_roles) if decision else
                          "clinical lead, CMIO / clinical informatics, privacy / compliance, procurement")
    override = ""
    gated = bool(view.gaps) and needs_override(outcome)
    if gated:
        st.warning("Missing before an approval: " + ", ".join(i.label for i in view.gaps) + ". Record them "
                   "first, or give the committee's reason for approving without them.")
        override = st.text_area("Reason for approving with these items missing (required; kept on the "
                                "decision record and stated on the report's cover)", key="decision_override")
    if st.button("Record decision", key="decision_record", type="primary",
                 disabled=len(rationale.strip()) < 10 or not allowed.is_chair
                 or (gated and len(override.strip()) < 10)):
        wanted = outcome == "approve_with_conditions"
        lines = [c.strip() for c in conditions.splitlines() if c.strip()] if wanted else []
        try:
            updated = record_decision(ui.current().dossier, outcome, rationale, lines, by=ui.reviewer(),
                                     model=None if model == models[0] else model,
                                     required_roles=[r.strip() for r in roles.split(",") if r.strip()],
                                     store=ui.store(), identity=acting, override_gaps=override or None)
        except (DecisionError, PermissionDenied) as exc:
            st.error(str(exc))
        else:
            ui.save(updated, note=f"decision: {outcome}")  # a new decision voids sign-offs: asked first
            st.rerun()

if decision is not None and (view.stale or any(c.acknowledgeable for c in view.conflicts)):
    with st.expander("Confirm the decision still stands", expanded=allowed.is_chair):
        st.caption("The chair's word that the decision holds on the dossier as it is now, with the reason; "
                   "recorded on the decision with what had changed. A contradiction between the review plan "
                   "and the intended use's recorded choices still has to be corrected.")
        reason = st.text_area("Why the decision still stands (required)", key="decision_confirm_reason")
        if st.button("Confirm the decision", key="decision_confirm", type="primary",
                     disabled=len(reason.strip()) < 10 or not allowed.is_chair):
            try:
                confirmed = confirm_decision(ui.current().dossier, ui.reviewer(), reason,
                                             view.changed_since_decision, identity=acting)
            except (DecisionError, PermissionDenied) as exc:
                st.error(str(exc))
            else:
                ui.save(confirmed, note="decision confirmed: it still stands", ask_to_void=False)
                st.rerun()

st.subheader("Sign-offs")
st.caption(f"Each sign-off binds to the dossier's content hash without the sign-off list (now "
           f"`{status.current_hash[:16]}`); any later change invalidates it. Current version {view.version} "
           f"(`{view.version_hash[:12]}`).")
if status.roles:
    st.dataframe(tables.signoff_frame(status), hide_index=True, width="stretch")
if status.complete:
    st.success("Every required role has signed this content.")
if decision is None:
    st.info("Record the committee's decision before signing off.")
    st.stop()
if acting is None:
    st.info("Sign in to sign off.")
    st.stop()
if view.signing_refused:
    st.info(ui.plain(view.signing_refused))
c1, c2 = st.columns(2)
# Only the roles this member holds are offered; the domain refuses any other anyway.
choices = [r for r in decision.required_roles if allowed.holds(r)]
choices += ["other role"] if allowed.all_roles else [r for r in sorted(allowed.roles)
                                                      if r not in ("viewer", "editor", "chair", *choices)]
if not choices:
    st.info(f"You hold no sign-off role on this dossier ({ui.plain(allowed.describe())}).")
    st.stop()
role = c1.selectbox("Role", choices, key="signoff_role")
# Per-signature fields are new widgets for each sign-off (their keys carry the count): a real browser
# keeps a widget's typed value when its session-state key is removed, so the next signer saw the note.
n = len(dossier.signoffs)
if role == "other role":
    role = c1.text_input("Which role", key=f"signoff_other_role_{n}")
if acting.mode == "local":  # no login: the typed name is all there is, and the record says so
    name = c2.text_input("Name (unauthenticated)", value=ui.reviewer(), key=f"signoff_name_{n}")
    signer = local_identity(name) if ui.is_named(name) else None
else:
    name = acting.name
    c2.markdown(f"Signing as **{ui.plain(acting.name)}**  \n{ui.plain(acting.auth_label)}")
    signer = acting
note = st.text_input("Note (optional)", key=f"signoff_note_{n}")
if st.button("Sign off", key="signoff_button", type="primary",
             disabled=not role.strip() or signer is None or bool(view.signing_refused)):
    current = ui.current()
    shown = ui.seen_hash(current.dossier.id) or current.hash
    try:
        if shown != current.hash:
            raise DecisionError("The dossier changed since the version you were shown. Nothing was signed: "
                                "review the changes above first, then sign the version you have seen.")
        signed = sign(current.dossier, role, name, version_hash=shown, note=note, identity=signer,
                      changed=view.changed_since_decision)
    except (DecisionError, PermissionDenied) as exc:
        st.error(str(exc))
    else:
        ui.save(signed, note=f"sign-off: {role}")
        st.rerun()
