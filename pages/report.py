"""Report: preview the dossier report of a version and download the PDF and the exports."""

import streamlit as st

from pages import ui
from reports.bundle import report_bundle
from reports.markdown import section_markdown
from reports.preview import pdf_page_images

st.title("Report")
current = ui.require_dossier()
dossier_id = current.dossier.id
versions = [h.version for h in ui.store().history(dossier_id)][::-1]
chosen = st.selectbox("Version", versions, index=0, key=f"report_version_{dossier_id}",
                      format_func=lambda n: f"version {n}" + (" (latest)" if n == versions[0] else ""))
bundle = report_bundle(ui.store(), dossier_id, chosen)
v, report = bundle.version, bundle.report
st.caption(f"Dossier {dossier_id}, version {v.version}, saved {v.created_at:%Y-%m-%d %H:%M} UTC by "
           f"{ui.plain(v.author)}. Every page and export is bound to this version's hash `{v.hash}`.")

st.subheader("Downloads")
columns = st.columns(len(bundle.downloads))
for column, download in zip(columns, bundle.downloads, strict=True):
    column.download_button(download.label, data=download.make, file_name=download.file_name,
                           mime=download.mime, key=f"download_{download.kind}", on_click="ignore",
                           type="primary" if download.kind == "pdf" else "secondary")
st.caption("Files are rendered when you click (the PDF takes a few seconds). The PDF carries the CHAI model "
           "card in its metadata; the JSON re-imports with `medassure import-dossier` to the same hash.")

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
for number, section in enumerate(report.sections(), start=1):
    with st.expander(f"{number}. {ui.plain(section.title)}", expanded=number <= 2):
        if section.charts:
            for chart in section.charts:
                st.markdown(f"**{ui.plain(chart.title)}**")
                st.vega_lite_chart(chart.spec, width="stretch")
                st.caption(ui.plain(chart.caption))
            section = section.model_copy(update={"charts": []})
        st.markdown(section_markdown(section, level=4, heading=False))
