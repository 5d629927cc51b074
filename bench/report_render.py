"""How long does the dossier PDF take for 12 benchmarks × 5 models with 4 charts?

Prints figures; it is not a timed test (the machine is shared). Builds a dossier in memory with
MedHELM's published evidence for 12 benchmarks × 5 models (60 records, their subcategories
accepted) and the committee's records: default rules locked, cost inputs (MedHELM token means
with price overrides, so litellm's price map is not imported), the derived review and monitoring
plan, a decision and a sign-off. Charts: scores, model means, coverage, cost against score.
Then it times, side by side in the same process:

* ``build_report``: the report model (tables, chart specs, HTI-1 sheet);
* baseline: the same story rendered without its charts;
* the 4 chart PNGs alone (vl-convert);
* the full PDF: story with the 4 charts, plus the CHAI XML embedded in the metadata.

The first full render also pays vl-convert's one-time start-up, so it is printed apart from the
median of the warm repeats.

Usage: .venv/bin/python bench/report_render.py [--repeat 5] [--quick]

``--quick`` (``make bench-smoke``) is one warm repeat of each row instead of five.
Target from issue 8: the full render < 5 s.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from datetime import UTC, datetime

from pypdf import PdfReader

from evaluator import published_evidence
from governance import Dossier, TaskMapping, example_intended_use, lock_rules, start_rules
from governance.decision import committee
from governance.dossier.store import DossierVersion
from governance.mapping.taxonomy import load_taxonomy
from governance.procurement.cost_inputs import medhelm_token_profile
from governance.procurement.records import CostSettings
from reports.build import build_report
from reports.chai import chai_model_card_xml
from reports.pdf import render_pdf
from reports.pdf_blocks import chart_png

BENCHMARKS = ["MedCalc-Bench", "MedQA", "MedMCQA", "PubMedQA", "HeadQA", "MedicationQA", "MedDialog",
              "MIMIC-RRS", "MedConfInfo", "ProxySender", "PrivacyDetection", "Medec"]
MODELS = ["GPT-4o (2024-05-13)", "Claude 3.7 Sonnet (20250219)", "Llama 3.3 Instruct (70B)", "DeepSeek R1",
          "Gemini 2.0 Flash"]
TARGET_S = 5.0


def bench_version() -> DossierVersion:
    """A stored-like version of a dossier with 60 published evidence records."""
    evidence = published_evidence(BENCHMARKS, MODELS)
    tax = load_taxonomy()
    mapping = TaskMapping()
    for sub_id in dict.fromkeys(tax.subcategory_of_benchmark(b).id for b in BENCHMARKS):
        mapping = mapping.decide(sub_id, "accepted", by="bench")
    dossier = Dossier(id="D-bench", title="Benchmark dossier: 12 benchmarks x 5 models", owner="bench",
                      intended_use=example_intended_use(), mapping=mapping, evidence=evidence)
    dossier = lock_rules(start_rules(dossier), by="bench")
    profiles = [medhelm_token_profile(m, "override").model_copy(
        update={"input_price_per_mtok": 1.0 + i, "output_price_per_mtok": 4.0 + 2 * i})
        for i, m in enumerate(MODELS)]
    dossier = dossier.model_copy(update={"cost": CostSettings(profiles=profiles, score_benchmark="MedQA")})
    dossier = committee.derive_plan(dossier, model=MODELS[0])
    dossier = committee.decide(dossier, "approve_with_conditions", rationale="Benchmark decision for timing.",
                               conditions=["Every output is reviewed."], by="bench", model=MODELS[0])
    dossier = committee.sign(dossier, "clinical lead", "bench", version_hash=None)
    return DossierVersion(dossier=dossier, version=1, hash=dossier.content_hash(), parent_hash=None,
                          author="bench", created_at=datetime.now(UTC))


def _charts(section):
    return [*section.charts, *(c for sub in section.subsections for c in _charts(sub))]


def timed(fn, repeat: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds (all threads of this process) of ``repeat`` calls, and the last result.

    CPU time is printed beside wall time because the machine is shared: waiting for a core shows
    up in wall time only.
    """
    wall, cpu, result = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, help="warm runs per row (default 5, --quick 1)")
    parser.add_argument("--quick", action="store_true", help="one warm run per row (make bench-smoke)")
    args = parser.parse_args()
    args.repeat = args.repeat or (1 if args.quick else 5)

    version = bench_version()
    start, start_cpu = time.perf_counter(), time.process_time()
    report = build_report(version)
    cold_pdf = render_pdf(report, chai_model_card_xml(version))
    cold, cold_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    charts = [c for s in report.sections() for c in _charts(s)]

    rows = {
        "build_report (model only)": timed(lambda: build_report(version), args.repeat),
        "baseline: same story without charts": timed(lambda: render_pdf(report, charts=False), args.repeat),
        f"the {len(charts)} chart PNGs alone (vl-convert)": timed(lambda: [chart_png(c.spec) for c in charts],
                                                     args.repeat),
        "full: build + PDF with charts + CHAI XML": timed(
            lambda: render_pdf(build_report(version), chai_model_card_xml(version)), args.repeat),
    }
    print(f"dossier: {len(version.dossier.evidence)} evidence records ({len(BENCHMARKS)} benchmarks x "
          f"{len(MODELS)} models), {len(charts)} charts: {[c.key for c in charts]}")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other jobs share them)")
    print(f"median of {args.repeat} warm runs:            wall s   CPU s")
    for label, (wall, cpu, result) in rows.items():
        extra = ""
        if isinstance(result, bytes):
            extra = f"   {len(PdfReader(io.BytesIO(result)).pages)} pages, {len(result) / 1024:.0f} KB"
        print(f"  {label:<42} {wall:6.2f}  {cpu:6.2f}{extra}")
    full = rows["full: build + PDF with charts + CHAI XML"][0]
    print(f"first full render in this process (vl-convert start-up included): {cold:.2f} s wall, "
          f"{cold_cpu:.2f} s CPU, {len(cold_pdf) / 1024:.0f} KB")
    for name, seconds in (("warm median", full), ("cold first render", cold)):
        verdict = "meets" if seconds < TARGET_S else "MISSES"
        print(f"target < {TARGET_S:.0f} s, {name}: {verdict} ({seconds:.2f} s wall)")


if __name__ == "__main__":
    main()
