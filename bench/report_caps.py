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

Usage: .venv/bin/python bench/report_caps.py [--repeat 1] [--quick]

``--quick`` (``make bench-smoke``) sets every capped field at 1/20 of its cap instead: the same
builder and renderer (texts of 10,000 characters are still set in pieces), seconds instead of a minute.
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

from governance import Dossier, IntendedUse, Store
from governance.decision.records import CommitteeDecision, SignOff
from governance.dossier.store import DossierVersion
from governance.dossier.user_text import ITEM_CAP, LIST_CAP
from governance.intended_use.records import TEXT_MAX
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


def worst_case_dossier(scale: float = 1.0) -> Dossier:
    """A dossier with every capped user field at its cap (or at ``scale`` times it)."""
    def cap(n: int) -> int:
        return max(1, round(n * scale))

    texts, n_items, item = cap(TEXT_MAX), cap(LIST_CAP), cap(ITEM_CAP)
    use = IntendedUse(purpose=prose(texts, 1), workflow=prose(texts, 2),
                      care_setting=prose(texts, 3), patient_population=prose(texts, 4),
                      intended_users=items("user", n_items, item),
                      out_of_scope_uses=items("not for", n_items, item),
                      candidate_models=items("model", n_items, item),
                      decision_role="augments", error_severity="serious", human_oversight="every_output",
                      phi_exposure="deidentified", expected_monthly_volume=1_000_000_000)
    now = datetime.now(UTC)
    dossier = Dossier(id="D-caps", title=prose(cap(300), 5), owner=prose(cap(200), 6), intended_use=use)
    decision = CommitteeDecision(outcome="approve_with_conditions", rationale=prose(cap(20_000), 7),
                                 conditions=items("condition", n_items, item), decided_by=prose(cap(200), 8),
                                 decided_at=now, required_roles=items("role", n_items, cap(200)),
                                 content_hash=dossier.content_hash())
    signoffs = [SignOff(role=prose(cap(200), i), name=prose(cap(200), i + 1), signed_at=now,
                        signed_hash="0" * 64, note=prose(cap(5000), i + 2)) for i in range(n_items)]
    return dossier.model_copy(update={"decision": decision, "signoffs": signoffs})


def demo_version() -> DossierVersion:
    """The demo dossier, seeded into a throw-away store."""
    from governance.demo.seed import seed_demo

    with tempfile.TemporaryDirectory(prefix="medassure-bench-") as home:
        store = Store.open(Path(home) / "medassure.duckdb")
        try:
            return store.load(seed_demo(store))
        finally:
            store.close()


def medassure_report(version: DossierVersion) -> tuple[float, bytes]:
    """Wall seconds and bytes of what ``medassure report`` renders: report model, PDF, CHAI XML."""
    start = time.perf_counter()
    pdf = render_pdf(build_report(version), chai_model_card_xml(version))
    return time.perf_counter() - start, pdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="fields at 1/20 of their caps (bench-smoke)")
    args = parser.parse_args()
    scale = 0.05 if args.quick else 1.0
    worst = worst_case_dossier(scale)
    worst_version = DossierVersion(dossier=worst, version=1, hash=worst.content_hash(), parent_hash=None,
                                   author="bench", created_at=datetime.now(UTC))
    texts, n_items, item = (max(1, round(n * scale)) for n in (TEXT_MAX, LIST_CAP, ITEM_CAP))
    print(f"{'quick (1/20 of every cap)' if args.quick else 'worst case'}: "
          f"{len(worst.canonical_json().encode()) / 1e6:.2f} MB of dossier JSON "
          f"(texts {texts:,} chars, lists {n_items} x {item:,} chars)")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other jobs share them)")
    worst_label = "every field at 1/20 cap" if args.quick else "every field at its cap"
    for label, version in (("demo dossier", demo_version()), (worst_label, worst_version)):
        for _ in range(args.repeat):
            seconds, pdf = medassure_report(version)
            pages = len(PdfReader(io.BytesIO(pdf)).pages)
            print(f"  {label:<24} {seconds:7.1f} s   {pages:5d} pages   {len(pdf) / 1024:7.0f} KB")


if __name__ == "__main__":
    main()
