"""CHAI Applied Model Card (schema v0.2) from a dossier version, as XML text.

Why build it from the dossier and not ask again: the intended use already holds CHAI's "uses and
directions" fields, and the evidence holds its key metrics with n and intervals, so the card is a
re-expression of facts the committee recorded. What a hospital cannot know (developer, training
data, funding) is written as "not provided", which tells a reader exactly what to ask the vendor.
Elements follow the v0.2 schema's sequence (``https://mc.chai.org/v0.2/schema.xsd``); all text
fields are written as plain text (``reports.plain_text``): one item per line, "Label: value"
facts, no Markdown markers a viewer would show verbatim, and no control characters XML cannot
carry. Each metric result's ``ValueJson`` uses the ``estimate_ci`` shape of the v0.2 examples
when there is an interval and ``single`` when there is none.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from evaluator.evidence.record import Evidence, SubgroupScore
from governance.decision.records import OUTCOME_LABELS
from governance.dossier.record import Dossier
from governance.dossier.store import DossierVersion
from governance.procurement.candidates import candidate_models, candidate_names
from governance.procurement.records import Candidate
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.recommendation import Recommendation
from governance.rules.verdicts import Assessment
from reports.model import NOT_PROVIDED, Section
from reports.plain_text import lines, section_text, xml_safe
from reports.sections_decision import decision_text
from reports.sections_oversight import human_review_section, monitoring_section
from reports.sections_summary import limitations_section

NAMESPACE = "https://mc.chai.org/v0.2/schema.xsd"
SOFTWARE_ID = "MedAssure 0.1.0 (reports.chai, CHAI Applied Model Card v0.2)"
ET.register_namespace("", NAMESPACE)


def _el(parent: ET.Element, name: str, text: str | None = None) -> ET.Element:
    child = ET.SubElement(parent, f"{{{NAMESPACE}}}{name}")
    if text is not None:
        child.text = xml_safe(text)
    return child


def _fill(parent: ET.Element, name: str, fields: list[tuple[str, str]]) -> ET.Element:
    block = _el(parent, name)
    for field, text in fields:
        _el(block, field, text)
    return block


def _bullets(items: list[str]) -> str:
    return lines(items)


def value_json(e: Evidence) -> str:
    """The ``ValueJson`` of one evidence record: ``estimate_ci`` with an interval, else ``single``.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> json.loads(value_json(published_evidence(["PubMedQA"], ["DeepSeek R1"])[0]))["kind"]
        'estimate_ci'
    """
    unit = f"{e.metric} ({e.scale})"
    if e.has_interval:
        return _compact({"kind": "estimate_ci", "estimate": e.score, "lower": round(e.ci_lower, 6),
                         "upper": round(e.ci_upper, 6), "level": 95, "unit": unit})
    return _compact({"kind": "single", "value": e.score, "unit": unit})


def _subgroup_value(e: Evidence, s: SubgroupScore) -> str:
    unit = f"{e.metric} ({e.scale})"
    if s.ci_lower is None:
        return _compact({"kind": "single", "value": s.score, "unit": unit})
    return _compact({"kind": "estimate_ci", "estimate": s.score, "lower": s.ci_lower, "upper": s.ci_upper,
                     "level": 95, "unit": unit})


def _failed_share(e: Evidence) -> str:
    failed = (e.n_unparsed or 0) + (e.n_unscored or 0)
    if e.n:
        return _compact({"kind": "single", "value": round(failed / e.n, 6), "unit": "share of outputs"})
    return _compact({"kind": "single", "value": failed, "unit": "outputs"})


def _compact(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"))


def _results(block: ET.Element, results: list[tuple[str, str]]) -> None:
    holder = _el(block, "Results")
    empty = [(NOT_PROVIDED, json.dumps({"kind": "single", "value": None, "unit": None}))]
    for label, value in results or empty:
        r = _el(holder, "MetricResult")
        _el(r, "Label", label)
        _el(r, "ValueJson", value)


def _metric_block(parent: ET.Element, name: str, goal: str, results: list[tuple[str, str]],
                  interpretation: str, test_type: str, data: str, validation: str) -> None:
    block = _el(parent, name)
    _el(block, "MetricGoal", goal)
    _results(block, results)
    for field, text in (("Interpretation", interpretation), ("TestType", test_type),
                        ("TestingDataDescription", data), ("ValidationProcessAndJustification", validation)):
        _el(block, field, text)


def _label(e: Evidence) -> str:
    return f"{e.model}: {e.benchmark} ({e.metric}, n={e.n if e.n is not None else 'unknown'}, {e.provenance})"


def _recorded_markdown(section: Section) -> str:
    """A report section as Markdown, or empty when the dossier holds nothing for it."""
    return section_text(section) if section.recorded else ""


def _interpretation(d: Dossier, assessed: tuple[Assessment, Recommendation] | None = None) -> str:
    text = "Scores on each benchmark's own scale with 95% intervals where one can be computed."
    if d.policy is not None and d.policy.rules:
        assessment, rec = assessed or assessment_and_recommendation(d)
        c = assessment.counts()
        locked = "locked" if assessment.locked else "unlocked"
        text += (f" Against the committee's {locked} acceptance rules: {c['pass']} verdicts pass, "
                 f"{c['fail']} fail, {c['inconclusive']} inconclusive; the verdicts support: "
                 f"{OUTCOME_LABELS[rec.outcome]} ({', '.join(rec.models) or 'no candidate'}).")
    if d.decision is not None:
        text += f" Committee decision: {decision_text(d)}."
    return text


def _key_metrics(root: ET.Element, version: DossierVersion,
                 assessed: tuple[Assessment, Recommendation] | None = None) -> None:
    d = version.dossier
    evidence = sorted(d.evidence, key=lambda e: (e.benchmark, e.model))
    kinds = sorted({e.provenance for e in evidence})
    methods = sorted({e.ci_method or e.ci_missing_reason or "" for e in evidence} - {""})
    test_type = ("External benchmark evaluation: " + ", ".join(kinds)) if kinds else NOT_PROVIDED
    benchmarks = ", ".join(sorted({e.benchmark for e in evidence})) or NOT_PROVIDED
    metrics = _el(root, "KeyMetrics")
    _metric_block(metrics, "UsefulnessUsabilityEfficacy",
                  "Task performance of the candidate models on the benchmarks mapped to the intended use.",
                  [(_label(e), value_json(e)) for e in evidence],
                  _interpretation(d, assessed) if evidence else NOT_PROVIDED,
                  test_type, benchmarks, _bullets(methods) if methods else NOT_PROVIDED)
    sub = [(f"{e.model}: {e.benchmark}, {s.tag}={s.group} (n={s.n})", _subgroup_value(e, s))
           for e in evidence for s in (e.subgroups or []) if not s.suppressed]
    _metric_block(metrics, "FairnessEquity", "Differences in performance between patient subgroups.", sub,
                  "Subgroup scores as measured; groups too small to report are withheld." if sub
                  else f"{NOT_PROVIDED}: no attached evidence reports subgroup results.",
                  test_type if sub else NOT_PROVIDED, benchmarks if sub else NOT_PROVIDED,
                  NOT_PROVIDED)
    shares = [(f"{e.model}: {e.benchmark}, unparsed or unscored outputs (n={e.n})", _failed_share(e))
              for e in evidence if e.n_unparsed is not None or e.n_unscored is not None]
    _metric_block(metrics, "SafetyReliability", "Share of outputs that could not be parsed or scored "
                  "(outputs of unknown quality).", shares,
                  "Counts of unparsed or unscored outputs per run." if shares
                  else f"{NOT_PROVIDED}: the attached evidence does not report unparsed or unscored outputs.",
                  test_type if shares else NOT_PROVIDED, benchmarks if shares else NOT_PROVIDED, NOT_PROVIDED)


def _candidates_named(d: Dossier, decided: str | None) -> list[Candidate]:
    """The recorded candidates the card speaks of: the decided one, else every one compared."""
    if decided is None:
        return list(d.candidates)
    return [c for c in d.candidates
            if decided in (c.id, c.product, c.model_id) or decided in candidate_models(d, c)]


def _release_version(c: Candidate) -> str:
    """The vendor's model and version as recorded, e.g. ``gpt-4o 2024-05-13`` (empty when not stated)."""
    if c.snapshot:
        return f"{c.product}: {c.snapshot}"
    return f"{c.product}: {c.model_id} {c.model_version}".strip() if c.model_version else ""


def chai_model_card_xml(version: DossierVersion,
                        assessed: tuple[Assessment, Recommendation] | None = None) -> str:
    """The Applied Model Card of one dossier version as an XML document (UTF-8 text).

    ``assessed``: the version's ``assessment_and_recommendation`` when the caller has it (the bundle).

    Example:
        >>> xml = chai_model_card_xml(store.load("D-demo-portal"))  # doctest: +SKIP
        >>> xml.startswith("<?xml")  # doctest: +SKIP
        True
    """
    d, use = version.dossier, version.dossier.intended_use
    root = ET.Element(f"{{{NAMESPACE}}}AppliedModelCard")
    models = ", ".join(use.candidate_models) or NOT_PROVIDED
    decided = d.decision.model if d.decision is not None and d.decision.model else None
    # the product the committee compared, not the evidence's model string (issue 36 item 5)
    name = f"{candidate_names(d).get(decided, decided)} for: {d.title}" if decided else \
        f"{d.title} (candidates: {models})"
    shown = _candidates_named(d, decided)
    developer = "; ".join(dict.fromkeys(c.vendor for c in shown)) or NOT_PROVIDED
    versions = [_release_version(c) for c in shown]
    release = "; ".join(dict.fromkeys(v for v in versions if v)) or NOT_PROVIDED
    _fill(root, "BasicInfo", [("ModelName", name),
                              ("ModelDeveloper", developer), ("DeveloperContact", NOT_PROVIDED)])
    _fill(root, "ReleaseInfo", [("ReleaseStage", NOT_PROVIDED), ("ReleaseDate", NOT_PROVIDED),
                                ("ReleaseVersion", release), ("GlobalAvailability", NOT_PROVIDED)])
    summary = _el(root, "ModelSummary")
    _el(summary, "Summary", use.purpose)
    keywords = _el(summary, "Keywords")
    for word in sorted({e.subcategory for e in d.evidence if e.subcategory} | {use.care_setting}):
        _el(keywords, "Keyword", word)
    _fill(root, "UsesAndDirections", [
        ("IntendedUseAndWorkflow", "\n\n".join(p for p in (use.purpose, use.workflow) if p)),
        ("PrimaryIntendedUsers", ", ".join(use.intended_users)),
        ("HowToUse", "\n\n".join(p for p in (use.workflow, _recorded_markdown(human_review_section(d))) if p)
         or NOT_PROVIDED),
        ("TargetedPatientPopulation", use.patient_population),
        ("CautionedOutOfScopeSettings", _bullets(use.out_of_scope_uses) or NOT_PROVIDED)])
    limits = limitations_section(d)
    subgroup_tags = sorted({f"{s.tag}={s.group}" for e in d.evidence for s in (e.subgroups or [])})
    _fill(root, "Warnings", [
        ("KnownRisksAndLimitations", "\n\n".join(section_text(sub) for sub in limits.subsections)),
        ("KnownBiasesOrEthicalConsiderations",
         ("Subgroups tested: " + ", ".join(subgroup_tags)) if subgroup_tags
         else f"{NOT_PROVIDED}: no subgroup results are attached."),
        ("ClinicalRiskLevel", f"{d.risk.tier.capitalize()}. " + " ".join(d.risk.reasons))])
    trust = _el(root, "TrustIngredients")
    _fill(trust, "AISystemFacts", [
        ("OutcomesAndOutputs", use.purpose), ("ModelType", "Large language model"),
        ("FoundationModels", models), ("InputDataSource", NOT_PROVIDED),
        ("OutputAndInputDataTypes", "Text in, text out."),
        ("DevelopmentDataCharacterization", NOT_PROVIDED), ("BiasMitigationApproaches", NOT_PROVIDED),
        ("OngoingMaintenance", _recorded_markdown(monitoring_section(d)) or NOT_PROVIDED),
        ("Transparency", f"Generated by MedAssure from dossier {d.id}, version {version.version} "
                         f"(SHA-256 {version.hash}).")])
    sources = sorted({e.source for e in d.evidence})
    people = sorted({d.owner} | {m.by for m in d.mapping.decisions})
    _fill(trust, "TransparencyInformation", [
        ("FundingSource", NOT_PROVIDED),
        ("ThirdPartyInformation", ("Evidence sources:\n" + _bullets(sources)) if sources else NOT_PROVIDED),
        ("StakeholdersConsulted", "Recorded in the dossier: " + ", ".join(people))])
    _key_metrics(root, version, assessed)
    _fill(root, "Resources", [("EvaluationReferences", _bullets(sources) or NOT_PROVIDED),
                              ("PeerReviewedPublications", NOT_PROVIDED),
                              ("PatientConsentOrDisclosure", NOT_PROVIDED)])
    _el(root, "Bibliography", "")
    ET.indent(root, space="  ")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
