"""Attaching any completed local run to a dossier: a benchmark run or a local-scenario run.

Why one function for both kinds: a pipeline that runs ``medassure run --benchmark ... --dossier``
or ``medassure attach RUN_ID`` does not care which kind of run it made, and it must never be told
"done" when nothing was attached. The two kinds turn into Evidence differently (a scenario run
carries its subgroup table and is labelled with the scenario's subcategories; a benchmark run is
labelled with the dossier's matching subcategory), so this looks the run up and hands it to the
code the pages use for that kind. Attaching an already attached run adds nothing and saves no
new version; the result says so.
"""

from __future__ import annotations

from pydantic import BaseModel

from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.evidence.attach import attach_evidence
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.runs.operations.jobs import RunInputError
from governance.runs.operations.view import local_run_evidence, stored_summary
from governance.scenarios.operations.local import scenario_run_evidence


class AttachedRun(BaseModel):
    """What attaching one run did."""

    dossier_id: str
    """The dossier."""
    run_id: str
    """The run."""
    kind: str
    """``benchmark`` or ``scenario``."""
    evidence_ids: list[str]
    """Evidence records of the run (attached now or before)."""
    added: int
    """How many of them were new to the dossier (0: already attached, no new version)."""
    version: int
    """The dossier version that holds them."""
    hash: str
    """That version's content hash."""


def attach_completed_run(store: DossierStorage, dossier_id: str, run_id: str, *,
                         actor: Actor) -> AttachedRun:
    """Attach the Evidence of a completed run (benchmark or local scenario) as a new dossier version.

    Raises:
        DossierNotFound: no such dossier (checked before the run is read).
        RunInputError: no such run, the run did not complete, or it scored no instance.

    Example:
        >>> done = attach_completed_run(store, "D-1", "run-20260101-000000-abc123",
        ...                             actor=Actor.named("ci"))  # doctest: +SKIP
        >>> done.kind, done.added                                                         # doctest: +SKIP
        ('benchmark', 1)
    """
    require(actor.identity, "editor", "attach a run as evidence", dossier_id)
    current = store.load(dossier_id)
    with store.for_thread() as db:
        record = db.run_reads.get_run_record(run_id)
        scenario = db.scenarios.version_of_run(run_id) if record is not None else None
    if record is None:
        raise RunInputError(f"no stored run {run_id!r} (`medassure run` prints the run_id of each run)")
    if record.status != "completed":
        raise RunInputError(f"run {run_id} is {record.status} ({record.n_results} of {record.n_planned} "
                            "instances): run the same command again to finish it before attaching")
    if scenario is not None:
        try:
            evidence = [scenario_run_evidence(store, run_id)]
        except ValueError as exc:
            raise RunInputError(f"run {run_id}: {exc}") from None
        kind, label = "scenario", f"local scenario run {run_id}"
    else:
        summary = stored_summary(store, record)
        if summary is None or not summary.metrics:
            raise RunInputError(f"run {run_id} has no scored instance to attach")
        evidence = local_run_evidence(summary, record, current.dossier)
        kind, label = "benchmark", f"local run {run_id} ({record.benchmark_id} × {record.model})"
    counts: list[int] = []

    def attach(latest: Dossier) -> Dossier:  # onto the latest version: a change saved meanwhile is kept
        updated = attach_evidence(latest, evidence, by=actor.name)
        counts.append(len(updated.evidence) - len(latest.evidence))
        return updated

    saved = update_as(store, actor, dossier_id, attach, note=f"evidence: attached {label}",
                      action="attach a run as evidence")  # 0 added: same
    added = counts[-1]
    return AttachedRun(dossier_id=dossier_id, run_id=run_id, kind=kind, evidence_ids=[e.id for e in evidence],
                       added=added, version=saved.version, hash=saved.hash)
