"""Report: preview the dossier report of a version and download the PDF and the exports."""

import streamlit as st

from governance.dossier import practice_line
from pages import ui
from reports import (
    ExportSigner,
    SigningError,
    bundle_zip,
    document_refs,
    pdf_page_images,
    report_bundle,
    section_markdown,
)

st.title("Report")
current = ui.require_dossier()
dossier_id = current.dossier.id
if current.dossier.practice is not None:  # refused whole, not watermarked: docs/monitoring.md says why
    st.error(f"**{ui.plain(practice_line(current.dossier.practice))}.** A practice copy has no dossier "
             "PDF, JSON, CHAI card, label or bundle: none of them could carry the mark reliably, and each "
             f"could be taken for the record. The record is {ui.plain(current.dossier.practice.source_id)}. "
             "The copy's monthly monitoring report can be written (`medassure monitor report`), marked on "
             "every page.")
    st.stop()
versions = [h.version for h in ui.store().history(dossier_id)][::-1]
chosen = st.selectbox("Version", versions, index=0, key=f"report_version_{dossier_id}",
                      format_func=lambda n: f"version {n}" + (" (latest)" if n == versions[0] else ""))
try:
    signer = ExportSigner.from_env()
except SigningError as exc:
    signer = None
    st.warning(f"The CHAI card cannot be signed: {ui.plain(exc)}. It is offered unsigned.")
bundle = report_bundle(ui.store(), dossier_id, chosen, signer=signer)
v, report = bundle.version, bundle.report
st.caption(f"Dossier {dossier_id}, version {v.version}, saved {v.created_at:%Y-%m-%d %H:%M} UTC by "
           f"{ui.plain(v.author)}. Every page and export is bound to this version's hash `{v.hash}`.")

st.subheader("Downloads")
columns = st.columns(len(bundle.downloads))
for column, download in zip(columns, bundle.downloads, strict=True):
    column.download_button(download.label, data=download.make, file_name=download.file_name,
                           mime=download.mime, key=f"download_{download.kind}", on_click="ignore",
                           type="primary" if download.kind == "pdf" else "secondary")
absent = [ref.filename for ref in document_refs(v.dossier) if not ui.store().documents.exists(ref.sha256)]
st.download_button("Everything in one verifiable zip (with the attached vendor documents)",
                   data=lambda: bundle_zip(ui.store(), bundle, signer=signer), on_click="ignore",
                   key="download_bundle", disabled=bool(absent),
                   file_name=f"{dossier_id}-v{v.version}-{v.hash[:8]}-bundle.zip", mime="application/zip")
if absent:
    st.warning("The zip cannot be made: " + ui.plain(", ".join(absent)) + " is cited by the dossier but not "
               "in this deployment's document store (attach it again on Candidates).")
st.caption("Files are rendered when you click (the PDF takes a few seconds). The PDF carries the CHAI model "
           "card in its metadata; the JSON re-imports with `medassure import-dossier` to the same hash. "
           "The zip holds every file above, each attached document and a manifest of their SHA-256 hashes; "
           "`medassure import-dossier` refuses it if any file was changed, added or removed.")
st.caption(f"The CHAI card XML is signed by {ui.plain(signer.subject)}; anyone holding that certificate "
           "checks it with `medassure verify-export`." if signer is not None else
           "Exports are not signed on this deployment (set MEDASSURE_EXPORT_KEY and MEDASSURE_EXPORT_CERT "
           "to the hospital's PEM key and certificate to sign the CHAI card).")

missing = [s.title for s in report.sections() if not s.recorded]
if missing:
    st.info("Not recorded yet, and said so in the report: " + "; ".join(missing) + ".")

if st.toggle("Show the first PDF pages", key="report_pdf_pages",
             help="Renders the PDF (a few seconds) and shows its first two pages."):
    with st.spinner("Rendering the PDF..."):
        images = pdf_page_images(bundle.download("pdf").make(), first=1, last=2)
    if images:
        for column, image in zip(st.columns(len(images)), images, strict=True):
            column.image(image, width="stretch")
    else:
        st.caption("Page images need poppler's pdftoppm, which is not installed here.")

st.subheader("Preview")
if report.memo is not None:
    with st.expander("Decision memo (page 1 of the PDF)", expanded=True):
        st.markdown(section_markdown(report.memo, level=4, heading=False))
for number, section in enumerate(report.sections(), start=1):
    with st.expander(f"{number}. {ui.plain(section.title)}", expanded=number <= 2):
        if section.charts:
            for chart in section.charts:
                st.markdown(f"**{ui.plain(chart.title)}**")
                st.vega_lite_chart(chart.spec, width="stretch")
                st.caption(ui.plain(chart.caption))
            section = section.model_copy(update={"charts": []})
        st.markdown(section_markdown(section, level=4, heading=False))
