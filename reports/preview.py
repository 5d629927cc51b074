"""PDF pages as PNG images for the Report page's preview, via poppler's ``pdftoppm``.

Why a command-line tool: poppler renders PDF pages faithfully and is already what we use to
check the PDF by eye (STACK_NOTES §6: all 11 pages of a test report in 0.64 s). It is optional:
without ``pdftoppm`` the preview says so and the page shows the Markdown preview only.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


def pdftoppm_available() -> bool:
    """Whether poppler's ``pdftoppm`` is on the PATH."""
    return shutil.which("pdftoppm") is not None


def pdf_page_images(pdf: bytes, first: int = 1, last: int = 2, dpi: int = 70) -> list[bytes]:
    """PNG bytes of pages ``first``..``last`` (fewer when the PDF is shorter; [] without pdftoppm).

    Example:
        >>> images = pdf_page_images(render_pdf(report))  # doctest: +SKIP
        >>> images[0][:4]  # doctest: +SKIP
        b'\\x89PNG'
    """
    if not pdftoppm_available():
        return []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "report.pdf"
        source.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", str(dpi), "-png", "-f", str(first), "-l", str(last), str(source),
                        str(Path(tmp) / "page")], check=True, capture_output=True, timeout=120)
        return [p.read_bytes() for p in sorted(Path(tmp).glob("page-*.png"))]
