"""Local scenarios in a dossier: which subcategories they cover, who did what, and their evidence.

Why here and not in ``evaluator.scenarios``: parsing, validation, storage and runs are evidence
work and know nothing of dossiers; the committee's side is different. A scenario imported for a
dossier covers that dossier's accepted subcategories unless the importer narrows them; every
import and redaction is written to the dossier's audit log; and a run's Evidence is labelled with
its taxonomy subcategory, so the Evidence page's coverage map counts it for the job. Attaching
returns a new dossier; the caller saves it, which makes the new version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.evidence.record import Evidence
from evaluator.gateway.llm import ModelEndpoint
from evaluator.phi import PhiCheck, PhiReport, scan_instances
from evaluator.scenarios import (
    ImportPreview,
    ScenarioVersion,
    redact_version,
    scenario_evidence,
    scenario_results,
    store_preview,
)
from evaluator.scenarios.run import scenario_gate
from evaluator.statistics.subgroups import MIN_N
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.mapping.taxonomy import load_taxonomy


def default_subcategories(dossier: Dossier | None) -> list[str]:
    """The subcategories a new scenario covers by default: the dossier's accepted ones.

    Example:
        >>> default_subcategories(None)
        []
    """
    return list(dossier.mapping.accepted) if dossier is not None else []


def import_for_dossier(store: DossierStorage, preview: ImportPreview, *, name: str, actor: Actor,
                       dossier: Dossier | None = None, subcategory_ids: Sequence[str] | None = None,
                       scenario_id: str | None = None) -> ScenarioVersion:
    """Store a previewed upload as a scenario version mapped to subcategories, and audit it.

    Raises:
        ImportRejected: the preview has problems (nothing stored).
        TaxonomyError: an unknown subcategory id.
    """
    require(actor.identity, "editor", "import a local scenario")
    subs = list(subcategory_ids) if subcategory_ids is not None else default_subcategories(dossier)
    tax = load_taxonomy()
    for sub in subs:
        tax.subcategory(sub)
    version = store_preview(store.scenarios, preview, scenario_name=name, author=actor.name,
                            subcategory_ids=subs, dossier_id=dossier.id if dossier else None,
                            scenario_id=scenario_id)
    store.audit(actor.name, "scenario import", dossier.id if dossier else None,
                {"scenario_id": version.scenario_id, "version": version.version, "hash": version.hash,
                 "source": version.source_name, "n_instances": version.n_instances, "phi": version.phi})
    return version


def redact_scenario(store: DossierStorage, scenario_id: str, *, actor: Actor,
                    version: int | None = None) -> ScenarioVersion:
    """A redacted new version (typed placeholders), recorded in the audit log.

    Raises:
        ValueError: nothing to redact. KeyError: no such scenario.
    """
    require(actor.identity, "editor", "redact a local scenario")
    redacted = redact_version(store.scenarios, scenario_id, author=actor.name, version=version)
    store.audit(actor.name, "scenario redact", redacted.dossier_id,
                {"scenario_id": scenario_id, "version": redacted.version, "redaction": redacted.redaction})
    return redacted


def labelled_evidence(evidence: Evidence, subcategory_ids: Sequence[str]) -> Evidence:
    """Evidence with the taxonomy category and subcategory names of its first mapped subcategory.

    Example:
        >>> from datetime import UTC, datetime
        >>> e = Evidence(id="x", model="m", benchmark="b", metric="accuracy", score=0.5, n=2,
        ...              ci_missing_reason="demo", provenance="local-run", source="r", date=datetime.now(UTC))
        >>> labelled_evidence(e, ["patient_provider_messaging"]).subcategory
        'Patient-Provider Messaging'
    """
    if not subcategory_ids:
        return evidence
    tax = load_taxonomy()
    first = tax.subcategory(subcategory_ids[0])
    caveat = evidence.caveat
    if len(subcategory_ids) > 1:
        others = ", ".join(tax.subcategory(s).name for s in subcategory_ids[1:])
        caveat = "; ".join(p for p in (caveat, f"the scenario also maps to {others}") if p)
    return evidence.model_copy(update={"subcategory": first.name, "category": tax.category_of(first.id).name,
                                       "caveat": caveat})


def scenario_run_evidence(store: DossierStorage, run_id: str, *, reference_groups: Mapping[str,
                          str] | None = None,
                 min_n: int = MIN_N, source: str | None = None) -> Evidence:
    """The Evidence of one scenario run (main metric with subgroups), labelled for the taxonomy.

    Raises:
        KeyError: not a scenario run. ValueError: no scored case.
    """
    results = scenario_results(store, run_id, min_n=min_n, reference_groups=reference_groups)
    evidence = scenario_evidence(results, source=source)
    return labelled_evidence(evidence, results.version.subcategory_ids)


def attach_scenario_run(store: DossierStorage, dossier: Dossier, run_id: str, *, by: str,
               reference_groups: Mapping[str, str] | None = None, min_n: int = MIN_N) -> Dossier:
    """A new dossier with the run's Evidence attached (save it to make the version).

    Example:
        >>> d = attach_scenario_run(store, dossier, "run-...", by="dr.lee")  # doctest: +SKIP
        >>> store.save(d, author="dr.lee", note="evidence: local scenario run")  # doctest: +SKIP
    """
    evidence = scenario_run_evidence(store, run_id, reference_groups=reference_groups, min_n=min_n)
    return attach_evidence(dossier, [evidence], by=by)


def scenario_rows(store: DossierStorage) -> list[dict]:
    """Every scenario version, newest first, as plain rows (CLI list and the page's table).

    Example:
        >>> scenario_rows(store)[0]["scenario_id"]  # doctest: +SKIP
        'sc_3f9a1c2b'
    """
    scenarios = store.scenarios
    return [{"scenario_id": v.scenario_id, "version": v.version, "name": v.name, "n_instances": v.n_instances,
             "tags": v.tag_names, "subcategory_ids": v.subcategory_ids, "dossier_id": v.dossier_id,
             "phi": (v.phi or {}).get("summary", ""), "redacted": v.redaction is not None, "hash": v.hash,
             "source": v.source_name, "author": v.author, "created_at": v.created_at.isoformat(),
             "note": v.note}
            for v in scenarios.list_versions()]


class VersionView(BaseModel):
    """One scenario version as the page shows it: record, PHI findings and its runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: ScenarioVersion
    """The stored version."""
    phi: PhiReport
    """PHI scan of its cases (masked examples only)."""
    runs: list[dict[str, Any]]
    """Runs made on it, newest first."""


def version_view(store: DossierStorage, scenario_id: str, version: int | None = None) -> VersionView:
    """Record, PHI scan and runs of one version (newest by default).

    Example:
        >>> version_view(store, "sc_3f9a1c2b").phi.summary()  # doctest: +SKIP
        'no likely identifiers in 40 cases'
    """
    scenarios = store.scenarios
    chosen = scenarios.get(scenario_id, version)
    cases = scenarios.instances(chosen.scenario_id, chosen.version)
    return VersionView(version=chosen, phi=scan_instances(cases),
                       runs=scenarios.runs(chosen.scenario_id, chosen.version))


def run_gate(store: DossierStorage, scenario_id: str, version: int, endpoint: ModelEndpoint) -> PhiCheck:
    """The PHI gate for running this version on this endpoint (shown before the Run button).

    Example:
        >>> run_gate(store, "sc_3f9a1c2b", 1, endpoint).allowed  # doctest: +SKIP
        False
    """
    scenarios = store.scenarios
    chosen = scenarios.get(scenario_id, version)
    return scenario_gate(store, chosen, scenarios.instances(scenario_id, version), endpoint)
