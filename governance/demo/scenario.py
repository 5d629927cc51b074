"""Demo step: a small synthetic local scenario with subgroup tags, and its Evidence attached.

Why synthetic and offline: the demo must show what a committee gets from its own cases (a
subgroup table with a flagged ratio and a suppressed small group) without any real patient data
and without calling a model. The cases below are invented portal messages; the "answers" are
generated deterministically (right for most cases, wrong for every other Spanish-language one)
and stored as an offline run, then scored, summarised and turned into Evidence by exactly the
code a live run uses. The Evidence's source and caveat say plainly that it is demo data.
"""

from __future__ import annotations

import csv
import io

from evaluator.scenarios import ScenarioStore, preview_import, record_offline_run
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.scenarios.operations.local import import_for_dossier, scenario_run_evidence

DEMO_AUTHOR = "demo"
DEMO_MODEL = "GPT-4o (2024-05-13)"  # the demo committee's candidate, as its published evidence names it
DEMO_SOURCE = ("demo data: synthetic local scenario 'Portal triage (demo)', answers generated "
               "deterministically by MedAssure's demo generator; no model was called")
MESSAGES = [
    ("I ran out of my lisinopril yesterday, can you send a refill?", "Needs same-day review?", "no"),
    ("My chest has felt tight since this morning and my left arm aches.", "Needs same-day review?", "yes"),
    ("Can I move my appointment next week to the afternoon?", "Needs same-day review?", "no"),
    ("My child has had a fever of 40 C for three days and is very sleepy.", "Needs same-day review?", "yes"),
    ("Is it fine to take ibuprofen with my blood pressure pills?", "Needs same-day review?", "no"),
    ("I feel dizzy and my sugar reading is 2.8 mmol/L.", "Needs same-day review?", "yes"),
    ("Please send my vaccination record for school.", "Needs same-day review?", "no"),
    ("The cut on my leg is red, hot and spreading since yesterday.", "Needs same-day review?", "yes"),
]
# (language, number of cases): en and es are large enough to report; vi is suppressed (n < 10).
LANGUAGES = [("en", 24), ("es", 12), ("vi", 4)]


def demo_cases_csv() -> bytes:
    """The synthetic scenario as the CSV a hospital would upload (invented text, no identifiers).

    Example:
        >>> demo_cases_csv().splitlines()[0]
        b'id,context,question,choices,reference,tag_language,tag_age_band'
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "context", "question", "choices", "reference", "tag_language", "tag_age_band"])
    n = 0
    for language, count in LANGUAGES:
        for i in range(count):
            context, question, answer = MESSAGES[(n * 3) % len(MESSAGES)]
            age = "65+" if n % 3 == 0 else "18-64"
            writer.writerow([f"{language}-{i + 1:02d}", context, question, "yes|no", answer, language, age])
            n += 1
    return out.getvalue().encode()


def demo_answers(store: ScenarioStore, scenario_id: str, version: int) -> dict[str, str]:
    """Deterministic replies: the right letter, except every other Spanish-language case.

    Example:
        >>> answers = demo_answers(scenarios, "sc_...", 1)  # doctest: +SKIP
    """
    answers = {}
    for case in store.instances(scenario_id, version):
        wrong = case.subgroups.get("language") == "es" and int(case.id.rsplit("-", 1)[1]) % 2 == 0
        right = case.reference
        answers[case.id] = f"Answer: {('B' if right == 'A' else 'A') if wrong else right}"
    return answers


def attach_demo_scenario(store: DossierStorage, dossier: Dossier) -> Dossier:
    """Import the synthetic scenario for the demo dossier, store offline results, attach Evidence.

    Example:
        >>> d = attach_demo_scenario(store, demo_dossier)  # doctest: +SKIP
        >>> [g.suppressed for g in d.evidence[-1].subgroups if g.tag == "language"]  # doctest: +SKIP
        [False, False, True]
    """
    preview = preview_import("portal_triage_demo.csv", demo_cases_csv())
    version = import_for_dossier(store, preview, name="Portal triage (demo)",
                                 actor=Actor.named(DEMO_AUTHOR),
                                 dossier=dossier)
    scenarios = store.scenarios
    answers = demo_answers(scenarios, version.scenario_id, version.version)
    run_id = record_offline_run(store, version, DEMO_MODEL, answers,
                                endpoint_name="demo data (no model called)")
    evidence = scenario_run_evidence(store, run_id, source=DEMO_SOURCE)
    evidence = evidence.model_copy(update={"caveat": f"DEMO DATA, not a measurement. {evidence.caveat}"})
    return attach_evidence(dossier, [evidence], by=DEMO_AUTHOR)
