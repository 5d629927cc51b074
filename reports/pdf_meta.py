"""Custom document-info keys on the dossier PDF: the CHAI model card travels inside the PDF.

CHAI's model-card documentation asks a producing application to put the card's XML in the PDF's
custom metadata key ``chaiMcXml`` and its own name in ``chaiMcSoftwareId``. reportlab 5.1 has no
public call for extra document-info keys (its ``PDFInfo`` writes a fixed set; the known
workaround replaces the canvas's private ``_doc.info``). We use pypdf instead, a well-kept
library with a public API for both directions: ``add_metadata`` to write the keys after
reportlab has built the document and ``PdfReader.metadata`` to read them back. Cloning keeps
every page and the outline unchanged; it costs a few tens of milliseconds.
"""

from __future__ import annotations

import io

from pypdf import PdfReader, PdfWriter

from reports.chai import SOFTWARE_ID

XML_KEY = "/chaiMcXml"
SOFTWARE_KEY = "/chaiMcSoftwareId"


def embed_chai(pdf: bytes, xml: str, software_id: str = SOFTWARE_ID) -> bytes:
    """The same PDF with the CHAI XML and the producing software's id in its document info.

    Example:
        >>> read_chai(embed_chai(pdf, "<AppliedModelCard/>"))["xml"]  # doctest: +SKIP
        '<AppliedModelCard/>'
    """
    writer = PdfWriter(clone_from=io.BytesIO(pdf))
    writer.add_metadata({XML_KEY: xml, SOFTWARE_KEY: software_id})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def read_chai(pdf: bytes) -> dict[str, str | None]:
    """The ``chaiMcXml`` and ``chaiMcSoftwareId`` values of a PDF (None when absent)."""
    info = PdfReader(io.BytesIO(pdf)).metadata or {}
    return {"xml": info.get(XML_KEY), "software_id": info.get(SOFTWARE_KEY)}
