"""Forms of the Candidates page: a candidate's record, and the vendor's questionnaire answers.

Widgets only: each form builds the packages' pydantic values (``Candidate``, an answer from
``make_answer``), applies one governance function to the latest dossier and saves it as a new
version. Uploaded documents go to ``governance.procurement.store`` and are cited by their SHA-256.
"""

from __future__ import annotations

from datetime import UTC, datetime

import streamlit as st
from pydantic import ValidationError

from evaluator import ModelEndpoint
from governance import Dossier
from governance.procurement import (
    STATUS_TEXT,
    AttestationError,
    Candidate,
    ContractFacts,
    DocumentError,
    Pricing,
    load_questionnaire,
    make_answer,
    record_attestation,
    remove_candidate,
    slugify,
    statuses,
    upsert_candidate,
)
from pages import tables, ui

NEW = "(new candidate)"
TRI = {"not known": None, "yes": True, "no": False}


def _tri(label: str, value: bool | None, key: str) -> bool | None:
    options = list(TRI)
    index = options.index(next(k for k, v in TRI.items() if v is value))
    return TRI[st.selectbox(label, options, index=index, key=key)]


def _errors(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'candidate'}: {e['msg']}" for e in exc.errors())


def candidate_editor(dossier: Dossier) -> None:
    """Add, edit or remove a candidate."""
    ids = [c.id for c in dossier.candidates]
    pick, fresh = f"cand_pick_{dossier.id}", f"cand_{dossier.id}_{NEW}_"
    typed = slugify(" ".join(str(st.session_state.get(fresh + f, "")) for f in ("vendor", "product")))
    if st.session_state.get(pick, NEW) == NEW and typed in ids:
        # The "(new candidate)" form holds a candidate that is now saved (directly, or after the sign-off
        # confirmation): show that candidate, and the form starts empty again (issue 36 item 14).
        for key in [key for key in st.session_state if str(key).startswith(fresh)]:
            del st.session_state[key]
        st.session_state[pick] = typed
    # named by the product, never the slug (issue 36 item 5)
    names = {c.id: c.label for c in dossier.candidates}
    chosen = st.selectbox("Candidate", [NEW, *ids], key=pick, format_func=lambda i: names.get(i, i))
    old = next((c for c in dossier.candidates if c.id == chosen), None)
    k = f"cand_{dossier.id}_{chosen}_"
    c1, c2 = st.columns(2)
    vendor = c1.text_input("Vendor", old.vendor if old else "", key=k + "vendor")
    product = c2.text_input("Product", old.product if old else "", key=k + "product")
    c1, c2, c3 = st.columns(3)
    model_id = c1.text_input(
        "Underlying model id",
        old.model_id if old else "",
        key=k + "model",
        help="e.g. gpt-4o, claude-3-7-sonnet, llama-3.3-70b",
    )
    model_version = c2.text_input("Model version", old.model_version if old else "", key=k + "version")
    prompt = c3.text_input(
        "Prompt / configuration version", old.prompt_version if old else "", key=k + "prompt"
    )
    c1, c2 = st.columns(2)
    snapshot = c1.text_input(
        "Vendor's model snapshot (optional)",
        old.snapshot or "" if old else "",
        key=k + "snapshot",
        help="The dated model behind the product, e.g. gpt-4o-2024-05-13, apart from a deployment name; "
        "empty: derived from the model id and version. Its retirement date is looked up in litellm's map.",
    )
    retires = c2.date_input(
        "Retirement date the vendor announced (optional)",
        value=old.retires_on if old else None,
        key=k + "retires",
        help="Empty: litellm's shipped model map is consulted for the snapshot (Monitoring warns before it).",
    )
    evidence = sorted({e.model for e in dossier.evidence})
    linked = st.multiselect(
        "Evidence models (empty: matched from the model id and version)",
        evidence,
        default=[m for m in (old.evidence_models if old else []) if m in evidence],
        key=k + "evidence",
    )
    kind = st.radio(
        "Pricing",
        ["per_token", "per_seat", "none yet"],
        format_func=lambda v: tables.VALUE_LABELS.get(v, v),
        horizontal=True,
        key=k + "kind",
        index=["per_token", "per_seat"].index(old.pricing.kind) if old and old.pricing else 2,
    )
    p = old.pricing if old and old.pricing else None
    c1, c2, c3 = st.columns(3)
    if kind == "per_token":
        a = c1.number_input(
            "USD per 1M prompt tokens", 0.0, 1e4, p.input_usd_per_mtok or 0.0 if p else 0.0, key=k + "in"
        )
        b = c2.number_input(
            "USD per 1M completion tokens",
            0.0,
            1e4,
            p.output_usd_per_mtok or 0.0 if p else 0.0,
            key=k + "out",
        )
    elif kind == "per_seat":
        a = c1.number_input(
            "USD per seat per month", 0.0, 1e6, p.usd_per_seat_month or 0.0 if p else 0.0, key=k + "seat"
        )
        b = c2.number_input("Seats", 1, 1_000_000, p.seats or 1 if p else 1, key=k + "seats")
    source = c3.text_input("Price source (quote, list page)", p.source if p else "", key=k + "source")
    st.markdown("**Contract facts**")
    f = old.contract if old else ContractFacts()
    c1, c2, c3, c4 = st.columns(4)
    residency = c1.text_input("Data residency", f.data_residency or "", key=k + "residency")
    with c2:
        phi = _tri("PHI agreement in place", f.phi_agreement, k + "phi")
    with c3:
        pinning = _tri("Version pinning available", f.version_pinning, k + "pin")
    notice = c4.number_input(
        "Change notice (days; -1 = not known)",
        -1,
        3650,
        -1 if f.change_notice_days is None else f.change_notice_days,
        key=k + "notice",
    )
    st.markdown("**Endpoint for local runs** (optional; the key stays in an environment variable)")
    e = old.endpoint if old else None
    c1, c2, c3, c4 = st.columns(4)
    ep_model = c1.text_input("litellm model string", e.model if e else "", key=k + "ep_model")
    ep_base = c2.text_input("API base", e.api_base or "" if e else "", key=k + "ep_base")
    ep_key = c3.text_input(
        "Key variable NAME",
        e.api_key_env or "" if e else "",
        key=k + "ep_key",
        help="e.g. VENDOR_API_KEY; never paste a key here",
    )
    ep_phi = c4.checkbox("PHI approved", e.phi_approved if e else False, key=k + "ep_phi")
    b1, b2 = st.columns(2)
    if b1.button(
        "Save candidate", key=k + "save", type="primary", disabled=not (vendor and product and model_id)
    ):
        try:
            pricing = (
                None
                if kind == "none yet"
                else Pricing(kind="per_token", input_usd_per_mtok=a, output_usd_per_mtok=b, source=source)
                if kind == "per_token"
                else Pricing(kind="per_seat", usd_per_seat_month=a, seats=int(b), source=source)
            )
            endpoint = (
                ModelEndpoint(
                    name=f"{vendor} · {product}",
                    model=ep_model.strip(),
                    api_base=ep_base.strip() or None,
                    api_key_env=ep_key.strip() or None,
                    phi_approved=ep_phi,
                )
                if ep_model.strip()
                else None
            )
            candidate = Candidate(
                id=old.id if old else slugify(f"{vendor} {product}"),
                vendor=vendor,
                product=product,
                model_id=model_id,
                model_version=model_version,
                snapshot=snapshot.strip() or None,
                retires_on=retires or None,
                prompt_version=prompt,
                endpoint=endpoint,
                pricing=pricing,
                evidence_models=linked,
                added_by=old.added_by if old else ui.reviewer(),
                added_at=old.added_at if old else datetime.now(UTC),
                contract=ContractFacts(
                    data_residency=residency.strip() or None,
                    phi_agreement=phi,
                    version_pinning=pinning,
                    change_notice_days=None if notice < 0 else notice,
                ),
            )
        except ValidationError as exc:
            st.error(_errors(exc))
        else:
            current = ui.current().dossier
            updated = upsert_candidate(current, candidate)
            if updated == current:  # the same content again: no new version (who added it is kept)
                st.toast("Nothing changed; no new version.")
            else:
                ui.save(updated, note=f"candidate {candidate.id} saved")
                st.rerun()
    if old and b2.button("Remove candidate", key=k + "remove"):
        ui.save(remove_candidate(ui.current().dossier, old.id), note=f"candidate {old.id} removed")
        st.rerun()


def _same_answer(old, new) -> bool:
    """True when a re-saved answer says what the stored one says (who and when aside)."""
    fields = ("value", "note", "document", "judgement")
    return old is not None and all(getattr(old, f) == getattr(new, f) for f in fields)


def attestation_editor(dossier: Dossier) -> None:
    """The questionnaire of one candidate: answers with status, and a form to record one."""
    q = load_questionnaire()
    labels = {c.id: c.label for c in dossier.candidates}
    cid = st.selectbox("Candidate", list(labels), format_func=labels.get, key=f"att_cand_{dossier.id}")
    candidate = next(c for c in dossier.candidates if c.id == cid)
    rows = statuses(candidate.attestations, q)
    tables.show(
        [
            {
                "Topic": s.question.topic,
                "Question": s.question.text,
                "Status": STATUS_TEXT[s.status],
                "Answer": s.answer_text or "",
                "Entered by": s.answer.entered_by if s.answer else "",
                "Entered at": s.answer.entered_at if s.answer else None,
                "Document": f"{s.answer.document.filename} ({s.answer.document.sha256[:12]}…)"
                if s.answer and s.answer.document
                else "",
            }
            for s in rows
        ],
        key="att_table",
    )
    by_id = {x.question.id: x for x in rows}
    qid = st.selectbox(
        "Question",
        [s.question.id for s in rows],
        key=f"att_q_{cid}",
        format_func=lambda i: f"{by_id[i].question.topic}: {STATUS_TEXT[by_id[i].status]}",
    )
    s = next(x for x in rows if x.question.id == qid)
    question, k = s.question, f"att_{cid}_{qid}_"
    st.markdown(f"**{question.topic}.** {question.text}  \n*Satisfactory:* {question.satisfactory}")
    judgement = None
    if question.options:
        options = list(question.options)
        value = st.radio(
            "Answer",
            options,
            format_func=question.options.get,
            key=k + "value",
            index=options.index(s.answer.value) if s.answer and s.answer.value in options else 0,
        )
    else:
        value = st.text_area(
            "Answer (the vendor's words)", s.answer.value if s.answer else "", key=k + "value"
        )
        verdicts = ["not judged yet", "satisfactory", "unsatisfactory"]
        stored = s.answer.judgement if s.answer and s.answer.judgement in verdicts else verdicts[0]
        judgement = st.radio(  # the stored judgement, not "not judged yet", so a no-op save stays one
            "Your judgement against the bar above", verdicts, horizontal=True, key=k + "judge",
            index=verdicts.index(stored),
        )
        judgement = None if judgement == verdicts[0] else judgement
    note = st.text_input("Where the answer comes from (contract clause, e-mail, document)",
                         value=s.answer.note if s.answer else "", key=k + "note")
    upload = (
        st.file_uploader(
            "Supporting document" + (" (required)" if question.document == "required" else ""), key=k + "doc"
        )
        if question.document != "none"
        else None
    )
    if st.button("Save answer", key=k + "save", type="primary"):
        try:
            ref = (
                ui.store().documents.put(
                    upload.getvalue(), upload.name, upload.type, by=ui.reviewer()
                )
                if upload is not None
                else s.answer.document
                if s.answer
                else None
            )
            answer = make_answer(
                qid,
                value,
                by=ui.reviewer(),
                at=datetime.now(UTC),
                note=note,
                document=ref,
                judgement=judgement,
                questionnaire=q,
            )
        except (AttestationError, DocumentError) as exc:
            st.error(str(exc))
        else:
            if _same_answer(s.answer, answer):
                st.toast("Nothing changed; no new version.")  # and no sign-off touched
            else:
                ui.save(
                    record_attestation(ui.current().dossier, cid, answer), note=f"attestation {qid} for {cid}"
                )
                st.rerun()
    ref = s.answer.document if s.answer else None
    if ref is not None and not ui.store().documents.exists(ref.sha256):
        st.caption(f"The linked document {ui.plain(ref.filename)} ({ref.sha256[:12]}…) is not in this "
                   "database (e.g. an imported dossier): the answer cites it by its SHA-256 only.")
    elif ref is not None:
        st.download_button(
            f"Download {ref.filename}",
            lambda: ui.store().documents.get(ref.sha256),
            file_name=ref.filename,
            mime=ref.media_type,
            key=k + "download",
            on_click="ignore",
        )
