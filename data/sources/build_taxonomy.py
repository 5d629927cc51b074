"""Rebuild data/taxonomy.json from the MedHELM reference files plus our own definitions.

Usage: python data/sources/build_taxonomy.py [REFERENCE_DIR]   (default ../shared/reference)

Facts (category/subcategory names, benchmark → subcategory links, access tier, main metric,
scale, typical instance count) come from the reference files, whose own sources are cited per
entry. Definitions are our own wording, written here. Task names appear only where the
reference marks them verified; MedHELM's full list of 121 task names was not available.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CATEGORY_DEFS = {
    "Clinical Decision Support": "Helping clinicians reach diagnostic and treatment decisions, "
    "estimate risk and look up clinical knowledge.",
    "Clinical Note Generation": "Producing clinical documentation: visit notes, procedure "
    "records, report summaries and care plans.",
    "Patient Communication and Education": "Explaining, instructing and corresponding with "
    "patients and their families.",
    "Medical Research Assistance": "Supporting research work: literature, data analysis, "
    "study records, research quality and trial enrolment.",
    "Administration and Workflow": "Running the organisation around care: staffing, billing, "
    "referrals and coordination.",
}

SUBCATEGORY_DEFS = {
    "Supporting Diagnostic Decisions": "Deriving findings, scores or the presence of a "
    "condition from patient information to inform a diagnosis.",
    "Planning Treatments": "Proposing or checking management plans and spotting errors in documented care.",
    "Predicting Patient Risks and Outcomes": "Estimating whether a future clinical event will "
    "happen from a patient's record.",
    "Providing Clinical Knowledge Support": "Answering clinicians' medical knowledge questions "
    "and instructions, including drug and guideline questions.",
    "Documenting Patient Visits": "Writing encounter notes, discharge instructions and hospital "
    "course summaries from conversations or records.",
    "Recording Procedures": "Documenting what was done during operations and procedures.",
    "Documenting Diagnostic Reports": "Writing or summarising reports of diagnostic studies such as imaging.",
    "Documenting Care Plans": "Turning care plans into structured, usable documentation.",
    "Providing Patient Education Resources": "Answering patients' questions about conditions "
    "and medications in plain language.",
    "Delivering Personalized Care Instructions": "Writing instructions tailored to one patient, "
    "for example after a procedure.",
    "Patient-Provider Messaging": "Handling portal messages and conversations between patients "
    "and clinicians, including privacy and sender checks.",
    "Enhancing Patient Understanding and Accessibility in Health Communication": "Making health "
    "information findable and understandable for lay readers.",
    "Facilitating Patient Engagement and Support": "Engaging and supporting patients, including "
    "empathetic and mental-health conversations.",
    "Conducting Literature Research": "Finding and interpreting evidence in the biomedical literature.",
    "Analyzing Clinical Research Data": "Querying and analysing clinical data for research questions.",
    "Recording Research Processes": "Abstracting and recording facts needed by research "
    "registries and study records.",
    "Ensuring Clinical Research Quality": "Checking generated or published content for bias, "
    "hallucination and factual errors.",
    "Managing Research Enrollment": "Screening patients against trial eligibility criteria.",
    "Scheduling Resources and Staff": "Deciding who needs which service or resource and when, "
    "such as hospice referral.",
    "Overseeing Financial Activities": "Coding, billing and other financial tasks of care delivery.",
    "Organizing Workflow Processes": "Routing work through the organisation, such as deciding "
    "on clinic referrals.",
    "Care Coordination and Planning": "Coordinating care across teams: documentation queries, "
    "specialist referrals and follow-up.",
}


# Our own search terms per subcategory: words a committee is likely to use when describing a job
# in this subcategory. Used for the lexical part of mapping suggestions and its explanations.
SUBCATEGORY_TERMS = {
    "Supporting Diagnostic Decisions": "diagnosis differential score calculator risk score lab result interpretation findings",
    "Planning Treatments": "treatment plan management therapy medication choice order error correction",
    "Predicting Patient Risks and Outcomes": "prediction readmission mortality deterioration risk outcome forecast",
    "Providing Clinical Knowledge Support": "clinical question drug dosing dose guideline reference knowledge answer clinician nurse pharmacist",
    "Documenting Patient Visits": "note documentation discharge summary hospital course visit encounter scribe ambient",
    "Recording Procedures": "procedure operative note surgery operation report",
    "Documenting Diagnostic Reports": "radiology report imaging impression pathology findings summary",
    "Documenting Care Plans": "care plan structured goals community health worker",
    "Providing Patient Education Resources": "patient education explain medication question plain language leaflet",
    "Delivering Personalized Care Instructions": "instructions after procedure discharge instructions personalised patient",
    "Patient-Provider Messaging": "portal message inbox in-basket reply patient message conversation sender privacy",
    "Enhancing Patient Understanding and Accessibility in Health Communication": "readability plain language consumer health question translation accessibility",
    "Facilitating Patient Engagement and Support": "engagement support empathy counselling mental health chat",
    "Conducting Literature Research": "literature pubmed abstract evidence search research article",
    "Analyzing Clinical Research Data": "query sql database cohort data analysis research",
    "Recording Research Processes": "registry abstraction research record transplant data",
    "Ensuring Clinical Research Quality": "bias hallucination fact checking verification quality",
    "Managing Research Enrollment": "clinical trial eligibility screening enrollment recruitment",
    "Scheduling Resources and Staff": "scheduling staffing hospice referral resource allocation appointment",
    "Overseeing Financial Activities": "billing coding icd claims revenue cycle prior authorization finance",
    "Organizing Workflow Processes": "workflow routing referral triage queue administrative",
    "Care Coordination and Planning": "care coordination referral specialist documentation query handoff follow-up",
}


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def access_tier(raw: str) -> str:
    for tier in ("public", "gated", "private"):
        if raw.strip().lower().startswith(tier):
            return tier
    raise ValueError(f"unknown access tier {raw!r}")


def build(ref: Path) -> dict:
    tax = json.loads((ref / "medhelm_taxonomy.json").read_text())
    rows = list(csv.DictReader((ref / "medhelm_benchmarks.csv").open()))
    verified = {(t["subcategory"], t["task"]): t["source"] for t in tax.get("tasks_recovered", [])}
    categories = []
    for cat in tax["categories"]:
        subs = []
        for sub in cat["subcategories"]:
            benches = [
                {
                    "id": slug(r["name"]),
                    "name": r["name"],
                    "helm_run_group": r["helm_run_group"],
                    "access": access_tier(r["access"]),
                    "access_note": r["access"],
                    "main_metric": r["main_metric"],
                    "metric_type": r["metric_type"],
                    "scale": r["score_scale"],
                    "typical_instance_count": int(r["typical_instance_count"] or 0),
                    "what_it_tests": r["tasks_covered"],
                    "source": r["sources"].split(";")[0].strip(),
                }
                for r in rows
                if r["subcategory"] == sub["name"]
            ]
            tasks = [
                {"name": task, "verified": True, "source": src}
                for (s, task), src in verified.items()
                if s == sub["name"]
            ]
            subs.append(
                {
                    "id": slug(sub["name"]),
                    "name": sub["name"],
                    "definition": SUBCATEGORY_DEFS[sub["name"]],
                    "search_terms": SUBCATEGORY_TERMS[sub["name"]].split(),
                    "source": sub["source"],
                    "tasks": tasks,
                    "benchmarks": benches,
                }
            )
        categories.append(
            {
                "id": slug(cat["name"]),
                "name": cat["name"],
                "definition": CATEGORY_DEFS[cat["name"]],
                "source": cat["source"],
                "subcategories": subs,
            }
        )
    return {
        "meta": {
            "title": "MedHELM taxonomy as used by MedAssure",
            "published_counts": tax["meta"]["published_counts"],
            "sources": tax["meta"]["counts_source"] + tax["meta"]["subcategory_to_benchmark_mapping_source"],
            "definitions": "Category and subcategory definitions are MedAssure's own wording.",
            "tasks_note": "MedHELM defines 121 tasks; the task names listed here are those verified in a "
            "cited source. A committee adds its own tasks to a dossier as local tasks.",
            "generated_by": "data/sources/build_taxonomy.py from ../shared/reference "
            "(medhelm_taxonomy.json, medhelm_benchmarks.csv)",
        },
        "categories": categories,
    }


if __name__ == "__main__":
    ref = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "reference"
    out = ROOT / "data" / "taxonomy.json"
    out.write_text(json.dumps(build(ref), indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
