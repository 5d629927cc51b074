"""How long does the PDF take for the largest dossier validation accepts, beside the demo's?

Issue 19 found an 8 MB intended use (5,000 list items) whose report never finished. Validation
now caps text and lists (``governance.dossier.user_text``, ``intended_use.TEXT_MAX``); this
script builds a dossier with every capped user field at its cap and times what ``medassure
report`` does (build the report model, render the PDF with its CHAI XML), beside the same for
the demo dossier. Prints figures; it is not a timed test (the machine is shared).

Worst case, in numbers: the four intended-use texts at ``TEXT_MAX`` characters each as one
paragraph (no line breaks: reportlab's hardest case), its three lists at ``LIST_CAP`` items of
``ITEM_CAP`` characters, a title and owner at their caps, a decision whose rationale is at its
cap with ``LIST_CAP`` conditions of ``ITEM_CAP`` characters and ``LIST_CAP`` required roles of
200 characters (a role's cap), and ``LIST_CAP`` sign-offs with notes at their cap.

Why the PDF stays bounded: reportlab re-wraps a paragraph's whole remainder at every page break,
so one 400,000-character paragraph (a list joined into one fact) cost minutes; the renderer now
sets long text in pieces of ``pdf_blocks.PIECE_CHARS`` (``reports.pdf_blocks.pieces``).

Usage: .venv/bin/python bench/report_caps.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import io
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from pypdf import PdfReader

from governance.dossier.decision_records import CommitteeDecision, SignOff
from governance.dossier.intended_use import TEXT_MAX, IntendedUse
from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion, Store
from governance.dossier.user_text import ITEM_CAP, LIST_CAP
from reports.build import build_report
from reports.chai import chai_model_card_xml
from reports.pdf import render_pdf

WORDS = ["the", "nurse", "reviews", "every", "draft", "before", "it", "is", "sent", "to", "the",
         "patient", "portal", "and", "records", "any", "change", "made", "to", "medication", "advice",
         "in", "the", "chart"]


def prose(n_chars: int, seed: int = 0) -> str:
    """``n_chars`` characters of words separated by spaces (no line breaks)."""
    out, i, size = [], seed, 0
    while size < n_chars:
        word = WORDS[i % len(WORDS)]
        out.append(word)
        size += len(word) + 1
        i += 7
    return " ".join(out)[:n_chars].rstrip() or "x" * n_chars


def items(prefix: str, n: int = LIST_CAP, size: int = ITEM_CAP) -> list[str]:
    """``n`` distinct list items of ``size`` characters."""
    return [(f"{prefix} {i}: " + prose(size, i))[:size] for i in range(n)]


def worst_case_dossier() -> Dossier:
    """A dossier with every capped user field at its cap."""
    use = IntendedUse(purpose=prose(TEXT_MAX, 1), workflow=prose(TEXT_MAX, 2),
                      care_setting=prose(TEXT_MAX, 3), patient_population=prose(TEXT_MAX, 4),
                      intended_users=items("user"),
                      out_of_scope_uses=items("not for"), candidate_models=items("model"),
                      decision_role="augments", error_severity="serious", human_oversight="every_output",
                      phi_exposure="deidentified", expected_monthly_volume=1_000_000_000)
    now = datetime.now(UTC)
    dossier = Dossier(id="D-caps", title=prose(300, 5), owner=prose(200, 6), intended_use=use)
    decision = CommitteeDecision(outcome="approve_with_conditions", rationale=prose(20_000, 7),
                                 conditions=items("condition"), decided_by=prose(200, 8), decided_at=now,
                                 required_roles=items("role", size=200), content_hash=dossier.content_hash())
    signoffs = [SignOff(role=prose(200, i), name=prose(200, i + 1), signed_at=now, signed_hash="0" * 64,
                        note=prose(5000, i + 2)) for i in range(LIST_CAP)]
    return dossier.model_copy(update={"decision": decision, "signoffs": signoffs})


def demo_version() -> DossierVersion:
    """The demo dossier, seeded into a throw-away store."""
    from governance.demo.seed import seed_demo

    home = Path(tempfile.mkdtemp(prefix="medassure-bench-"))
    store = Store.open(home / "medassure.duckdb")
    return store.load(seed_demo(store))


def medassure_report(version: DossierVersion) -> tuple[float, bytes]:
    """Wall seconds and bytes of what ``medassure report`` renders: report model, PDF, CHAI XML."""
    start = time.perf_counter()
    pdf = render_pdf(build_report(version), chai_model_card_xml(version))
    return time.perf_counter() - start, pdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    worst = worst_case_dossier()
    worst_version = DossierVersion(dossier=worst, version=1, hash=worst.content_hash(), parent_hash=None,
                                   author="bench", created_at=datetime.now(UTC))
    print(f"worst case: {len(worst.canonical_json().encode()) / 1e6:.1f} MB of dossier JSON "
          f"(texts {TEXT_MAX:,} chars, lists {LIST_CAP} x {ITEM_CAP:,} chars)")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other jobs share them)")
    for label, version in (("demo dossier", demo_version()), ("every field at its cap", worst_version)):
        for _ in range(args.repeat):
            seconds, pdf = medassure_report(version)
            pages = len(PdfReader(io.BytesIO(pdf)).pages)
            print(f"  {label:<24} {seconds:7.1f} s   {pages:5d} pages   {len(pdf) / 1024:7.0f} KB")


if __name__ == "__main__":
    main()
