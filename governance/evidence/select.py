"""Which evidence a rule (or the cost table) reads, and which record wins when there are several.

Why a module of its own: verdicts and the cost table must pick the same record for the same
(model, benchmark, metric), or the two pages would disagree. The rule is written once here:

* a rule's target filters evidence by benchmark name, taxonomy subcategory (id or name, since
  published evidence carries names and local scenarios may carry ids), metric and provenance;
  a run's context records (its secondary metrics) never match: only the main metric is judged;
* when several records remain for one (model, benchmark, metric), the most specific to this
  hospital wins: a local run over an imported HELM run over a published figure, and within the
  same provenance the newest. The records passed over are reported, not hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from evaluator.evidence.record import Evidence
from governance.mapping.taxonomy import TaxonomyError, load_taxonomy

PROVENANCE_RANK = {"local-run": 0, "helm-import": 1, "inspect-import": 1, "published": 2}
"""Lower wins: local evidence speaks most directly to this hospital's use."""

JURY_WORDS = ("jury",)


def slug(text: str) -> str:
    """Lower-case with runs of non-alphanumerics collapsed to ``_``.

    Example:
        >>> slug("Patient-Provider Messaging")
        'patient_provider_messaging'
    """
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@cache
def subcategory_keys(subcategory: str) -> frozenset[str]:
    """Slugs under which evidence may name this subcategory: its id and its taxonomy name."""
    keys = {slug(subcategory)}
    tax = load_taxonomy()
    for sub in tax.subcategories:
        if slug(sub.id) in keys or slug(sub.name) in keys:
            keys |= {slug(sub.id), slug(sub.name)}
    return frozenset(keys)


def subcategory_name(subcategory: str) -> str:
    """The taxonomy name of a subcategory id (the id itself when unknown)."""
    try:
        return load_taxonomy().subcategory(subcategory).name
    except TaxonomyError:
        return subcategory


def matches(e: Evidence, benchmark: str | None = None, subcategory: str | None = None,
            metric: str | None = None, provenance: Iterable[str] = ()) -> bool:
    """Whether an evidence record falls under a target (None / empty means any).

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> e = published_evidence(["MedConfInfo"], ["DeepSeek R1"])[0]
        >>> matches(e, subcategory="patient_provider_messaging"), matches(e, benchmark="MedQA")
        (True, False)
    """
    provenance = tuple(provenance)
    if not e.is_main:
        return False
    if benchmark and slug(e.benchmark) != slug(benchmark):
        return False
    if subcategory and (not e.subcategory or slug(e.subcategory) not in subcategory_keys(subcategory)):
        return False
    if metric and slug(e.metric) != slug(metric):
        return False
    return not provenance or e.provenance in provenance


def preferred(records: Iterable[Evidence]) -> tuple[list[Evidence], dict[str, list[str]]]:
    """One record per (model, benchmark, metric): local run > HELM import > published, then newest.

    Returns:
        The kept records in first-seen order, and for each kept id the ids it was preferred over.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> ev = published_evidence(["MedQA"], ["DeepSeek R1"])
        >>> kept, over = preferred(ev + ev)
        >>> len(kept), over[kept[0].id]
        (1, [])
    """
    groups: dict[tuple[str, str, str], list[Evidence]] = {}
    for e in records:
        key = (e.model, slug(e.benchmark), slug(e.metric))
        if all(e.id != other.id for other in groups.get(key, [])):
            groups.setdefault(key, []).append(e)
    kept, passed_over = [], {}
    for group in groups.values():
        best = sorted(group, key=lambda e: (PROVENANCE_RANK[e.provenance], -e.date.timestamp()))[0]
        kept.append(best)
        passed_over[best.id] = [e.id for e in group if e.id != best.id]
    return kept, passed_over


def is_jury_scored(e: Evidence) -> bool:
    """Whether a score comes from an LLM jury (1-5 scale or a jury metric name).

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> is_jury_scored(published_evidence(["MedicationQA"], ["DeepSeek R1"])[0])
        True
    """
    return e.scale == "1-5" or any(w in e.metric.lower() for w in JURY_WORDS)


def is_share(e: Evidence) -> bool:
    """Whether the score is a share of correct outputs (usable as a pass rate).

    Means of similarity metrics (F1, ROUGE, BERTScore), jury means and context records are not shares.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> is_share(published_evidence(["MedQA"], ["DeepSeek R1"])[0])
        True
    """
    metric = e.metric.lower()
    return (e.is_main and e.scale == "0-1" and e.higher_is_better and not is_jury_scored(e)
            and not any(k in metric for k in ("f1", "rouge", "bert", "bleu")))


def models_in(evidence: Iterable[Evidence]) -> list[str]:
    """Model names in first-seen order."""
    return list(dict.fromkeys(e.model for e in evidence))


def is_tryout(e: Evidence, accepted: Iterable[str]) -> bool:
    """Whether ``e`` is a try-out: evidence for none of the subcategories the committee accepted for the job.

    The built-in calculator run tries an endpoint; unless the committee maps its subcategory it is no
    evidence for this job, so verdicts, the memo and the label leave it out (issue 36 item 4). A record
    names its subcategory, or its benchmark's spec does; one whose subcategory cannot be told (a local
    scenario, an import without one) counts as evidence. Before the mapping accepts anything, nothing can
    be told apart, and nothing is left out.

    Example:
        >>> from datetime import UTC, datetime
        >>> e = Evidence(id="x", model="m", benchmark="calc_builtin", metric="exact_match", score=0.0,
        ...              provenance="local-run", source="run-1", date=datetime(2026, 1, 1, tzinfo=UTC),
        ...              ci_missing_reason="an example")
        >>> is_tryout(e, ["documenting_patient_visits"]), is_tryout(e, ["supporting_diagnostic_decisions"])
        (True, False)
    """
    accepted = list(accepted)
    if not accepted:
        return False
    keys: set[str] = set().union(*(subcategory_keys(a) for a in accepted))
    if e.subcategory:
        return slug(e.subcategory) not in keys
    from evaluator.benchmarks.specs import load_benchmarks  # noqa: PLC0415 - reads data/benchmarks once

    spec = load_benchmarks().get(e.benchmark)
    if spec is None or not spec.subcategory_ids:
        return False
    return not any(slug(s) in keys for s in spec.subcategory_ids)


def job_evidence(evidence: Iterable[Evidence], accepted: Iterable[str]) -> list[Evidence]:
    """The records that are evidence for the job (``is_tryout`` false), in their order."""
    accepted = list(accepted)
    return [e for e in evidence if not is_tryout(e, accepted)]
