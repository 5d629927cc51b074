"""Re-evaluation: re-run a decided dossier's frozen plan with a changed model or prompt, compare, record.

Why this shape: the committee's question after a vendor update is not "what is the new score?"
but "would our decision change?". So ``reevaluate`` re-runs every re-runnable item of the frozen
plan with only the change applied (``governance.reevaluation.operations.rerun``; the model is
asked again for every instance, never answered from a cache filled before the re-evaluation started,
because a vendor may change the model behind an unchanged name), records who answered (the served
model and fingerprint of each reply), compares each item's per-instance results with its
baseline run (``governance.reevaluation.compare``), re-applies the dossier's rules with the new
evidence standing in for the old, and answers the question. The result is appended to the
dossier as a ``ReevaluationAddendum`` in a new version whose note says "re-evaluation", so the
history shows it; the evidence the committee decided on is left as it was.

``build_addendum`` works from stored runs only, so answers recorded without a model (an offline
run) give an addendum by exactly the same code.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from evaluator.benchmarks.specs import get_benchmark
from evaluator.evidence.record import Evidence
from evaluator.runs.runner import main_metric_name
from evaluator.runs.store import RunStore
from evaluator.runs.summary import summarize_run
from evaluator.scenarios import scenario_evidence, scenario_results
from evaluator.statistics.paired import compare_paired
from evaluator.storage.components import ComponentStores
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.operations.plan import freeze_plan
from governance.evidence.plan_records import EvidencePlan, PlanItem
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.reevaluation.compare import (
    decision_impact,
    served_identity_changed,
    served_identity_note,
    subgroup_comparisons,
    verdict_changes,
)
from governance.reevaluation.operations.rerun import AfterRun, ReevaluationError, check_items, rerun_item
from governance.reevaluation.records import (
    BenchmarkComparison,
    PlanChange,
    ReevaluationAddendum,
    ServedIdentity,
)
from governance.rules.verdicts import Assessment, assess

__all__ = ["AfterRun", "PlanChange", "ReevaluationError", "ReevaluationResult", "added_addenda",
           "build_addendum", "current_plan", "plan_to_rerun", "reevaluate"]

METHOD = ("Paired comparison of each instance's main-metric score before and after: mean difference "
          "with a 95% percentile bootstrap over instances (2,000 resamples, seed 0); McNemar's exact test "
          "over the discordant pairs when scores are 0/1; flipped instances listed by id. Subgroups with "
          "fewer than 10 pairs show their size only.")
STANDS_IN = ("Verdicts after the change are computed with the re-run evidence standing in for the "
             "candidate's local evidence from the frozen runs; published and imported evidence, cost "
             "profiles and judge agreement are unchanged, because only the frozen plan was re-run.")


@dataclass(frozen=True)
class ReevaluationResult(BaseModel):
    """The addendum and the dossier version that holds it."""

    model_config = ConfigDict(frozen=True)

    addendum: ReevaluationAddendum
    """What the re-evaluation found."""
    version: DossierVersion
    """The new dossier version (note contains "re-evaluation")."""


def _scores(store: RunStore, run_id: str) -> dict[str, float | None]:
    return {r["instance_id"]: (None if r["error"] is not None else r["score"]) for r in store.results(run_id)}


def _evidence_after(stores: ComponentStores, item: PlanItem, run_id: str,
                    old: list[Evidence]) -> list[Evidence]:
    """The re-run's evidence, produced as the baseline's was, labelled with the baseline's taxonomy."""
    if item.kind == "scenario":
        records = [scenario_evidence(scenario_results(stores, run_id))]
    else:
        metric = main_metric_name(get_benchmark(item.benchmark_id))
        summary = summarize_run(stores.runs, run_id, metric, cache_hits=0, new_requests=0,
                                resumed=False, elapsed_s=0.0)
        records = summary.to_evidence()
    by_metric = {e.metric: e for e in old}
    return [e.model_copy(update={"category": by_metric[e.metric].category,
                                 "subcategory": by_metric[e.metric].subcategory})
            if e.metric in by_metric else e for e in records]


def _comparison(stores: ComponentStores, after: AfterRun, old: list[Evidence]) -> BenchmarkComparison:
    runs = stores.runs
    before, now = _scores(runs, after.item.run_id), _scores(runs, after.run_id)
    c = compare_paired(before, now)
    evidence = _evidence_after(stores, after.item, after.run_id, old)
    served_before = [ServedIdentity(**s) for s in runs.served_identities(after.item.run_id)]
    served_after = [ServedIdentity(**s) for s in runs.served_identities(after.run_id)]
    return BenchmarkComparison(
        benchmark=after.item.benchmark, kind=after.item.kind,
        metric=evidence[0].metric if evidence else (after.item.metrics or ["score"])[0],
        candidate=after.item.model_label, run_before=after.item.run_id, run_after=after.run_id,
        model_before=after.item.endpoint.model, model_after=after.model,
        prompt_hash_before=after.item.prompt.template_hash if after.item.prompt else None,
        prompt_hash_after=after.prompt_hash, n_pairs=c.n_pairs, mean_before=c.mean_before,
        mean_after=c.mean_after, mean_delta=c.mean_delta, delta_ci=c.delta_ci, binary=c.binary,
        mcnemar_p=c.mcnemar_p, worse=list(c.worse), better=list(c.better),
        unpaired=len(c.only_before) + len(c.only_after),
        subgroups=subgroup_comparisons(after.instances, before, now), new_requests=after.new_requests,
        cache_hits=after.cache_hits, baseline_reproduced=after.baseline_reproduced, evidence_after=evidence,
        served_before=served_before, served_after=served_after,
        served_identity_changed=served_identity_changed(served_before, served_after))


def _standing_in(dossier: Dossier, comparisons: list[BenchmarkComparison], plan: EvidencePlan) -> Dossier:
    """The dossier as it would be with each re-run's evidence in place of its baseline's."""
    items = {i.run_id: i for i in plan.items}
    replace: dict[str, Evidence | None] = {}
    for comp in comparisons:
        item = items[comp.run_before]
        label = item.model_label
        new = {e.metric: e.model_copy(update={"model": label,
                                              "endpoint_model": e.model if e.model != label else None})
               for e in comp.evidence_after}
        for e in dossier.evidence:
            if e.id in item.evidence_ids:  # a run made for a candidate stays that candidate's
                found = new.get(e.metric)
                replace[e.id] = found.model_copy(update={"candidate_id": e.candidate_id}) if found else None
    evidence = [replace.get(e.id, e) for e in dossier.evidence]
    return dossier.model_copy(update={"evidence": [e for e in evidence if e is not None]})


def _statuses(assessment: Assessment, comparison: BenchmarkComparison) -> dict[str, str]:
    """Rule id → status of the candidate's verdicts on this benchmark (``#2``... for further tags)."""
    out: dict[str, str] = {}
    for v in assessment.verdicts:
        if v.model == comparison.candidate and v.benchmark == comparison.benchmark:
            key, k = v.rule_id, 1
            while key in out:
                k += 1
                key = f"{v.rule_id}#{k}"
            out[key] = v.status
    return out


def _caveats(plan: EvidencePlan, frozen_at_decision: bool,
             comparisons: list[BenchmarkComparison]) -> list[str]:
    notes = [METHOD, STANDS_IN]
    if not frozen_at_decision:
        notes.append("The decision predates plan freezing: the plan was frozen from the dossier's evidence "
                     "for this re-evaluation.")
    juried = sorted({i.benchmark for i in plan.rerunnable if i.judge})
    if juried:
        notes.append(f"The LLM jury configured for {', '.join(juried)} was not re-run; only reference "
                     "metrics were compared.")
    for comp in comparisons:
        if comp.baseline_reproduced is False:
            notes.append(f"{comp.benchmark}: the frozen prompt no longer renders exactly the baseline's "
                         "prompts (the benchmark's rendering changed since the run); differences may come "
                         "from that.")
        served = served_identity_note(comp.benchmark, comp.served_before, comp.served_after,
                                      comp.served_identity_changed)
        if served:
            notes.append(served)
        if comp.unpaired:
            notes.append(f"{comp.benchmark}: {comp.unpaired} instance(s) had an answer on one side only and "
                         "were left out of the comparison.")
    return notes


def build_addendum(stores: ComponentStores, current: DossierVersion, plan: EvidencePlan,
                   change: PlanChange, afters: list[AfterRun], *, by: str, frozen_at_decision: bool = True,
                   skipped: list[str] | None = None,
                   caveats: list[str] | None = None) -> ReevaluationAddendum:
    """The addendum for stored before/after runs of a dossier version (nothing is run or saved here).

    Example:
        >>> v = store.load("D-1")  # doctest: +SKIP
        >>> a = build_addendum(store, v, plan, PlanChange(), afters, by="dr.lee")  # doctest: +SKIP
        >>> a.impact.would_change  # doctest: +SKIP
        False
    """
    dossier = current.dossier
    old = {e.id: e for e in dossier.evidence}
    comparisons = [_comparison(stores, a, [old[i] for i in a.item.evidence_ids if i in old]) for a in afters]
    before, after = assess(dossier), assess(_standing_in(dossier, comparisons, plan))
    n, changes = verdict_changes(before, after)
    comparisons = [c.model_copy(update={"verdicts_before": _statuses(before, c),
                                        "verdicts_after": _statuses(after, c)}) for c in comparisons]
    return ReevaluationAddendum(
        id=f"R-{secrets.token_hex(4)}", created_at=datetime.now(UTC), by=by, change=change, plan=plan,
        plan_frozen_at_decision=frozen_at_decision, based_on_version=current.version, comparisons=comparisons,
        skipped=list(skipped or []), verdicts_compared=n, verdict_changes=changes,
        impact=decision_impact(dossier.decision, before, after, changes),
        new_requests=sum(a.new_requests for a in afters), cache_hits=sum(a.cache_hits for a in afters),
        caveats=[*_caveats(plan, frozen_at_decision, comparisons), *(caveats or [])])


def save_addendum(store: DossierStorage, dossier: Dossier, addendum: ReevaluationAddendum,
                  *, actor: Actor) -> DossierVersion:
    """Append the addendum to the dossier as a new version (note: "re-evaluation: ...")."""
    require(actor.identity, "editor", "save a re-evaluation addendum", dossier.id)
    answer = "would change" if addendum.impact.would_change else "would not change"

    def append(latest: Dossier) -> Dossier:  # the latest version: the addendum names the one it compared
        return latest.model_copy(update={"reevaluations": [*latest.reevaluations, addendum]})

    note = f"re-evaluation {addendum.id}: {addendum.change.describe()}; the decision {answer}"
    return update_as(store, actor, dossier.id, append, note=note,
                     action="save a re-evaluation addendum")


def added_addenda(store: DossierStorage, dossier_id: str, from_version: int,
                  to_version: int) -> list[ReevaluationAddendum]:
    """Re-evaluation addenda present in ``to_version`` but not in ``from_version`` (for the history diff).

    Example:
        >>> [a.id for a in added_addenda(store, "D-1", 5, 6)]  # doctest: +SKIP
        ['R-3f9a1c2b']
    """
    old = {a.id for a in store.load(dossier_id, from_version).dossier.reevaluations}
    return [a for a in store.load(dossier_id, to_version).dossier.reevaluations if a.id not in old]


def current_plan(store: DossierStorage, dossier: Dossier) -> tuple[EvidencePlan, bool]:
    """The plan a re-evaluation would run, and whether it was frozen with the decision.

    Example:
        >>> plan, at_decision = current_plan(store, dossier)  # doctest: +SKIP
    """
    if dossier.evidence_plan is not None:
        return dossier.evidence_plan, True
    return freeze_plan(store, dossier, by="(not frozen yet)"), False


def plan_to_rerun(store: DossierStorage, dossier_id: str,
                  by: str) -> tuple[DossierVersion, EvidencePlan, bool]:
    """The dossier's latest version, the plan to re-run and whether it was frozen with the decision.

    Raises:
        ReevaluationError: nobody named, no decision, or nothing re-runnable.
        DossierNotFound: no such dossier.
    """
    if not by.strip():
        raise ReevaluationError("say who runs the re-evaluation")
    current = store.load(dossier_id)
    dossier = current.dossier
    if dossier.decision is None:
        raise ReevaluationError(f"dossier {dossier_id} has no decision yet: a re-evaluation compares a "
                                "change against the evidence a decision was based on")
    plan = dossier.evidence_plan
    frozen_at_decision = plan is not None
    if plan is None:
        plan = freeze_plan(store, dossier, by=by)
    if not plan.rerunnable:
        why = "; ".join(f"{i.benchmark}: {i.note}" for i in plan.items) or plan.note
        raise ReevaluationError(f"nothing in the evidence plan can be re-run ({why})")
    return current, plan, frozen_at_decision


def reevaluate(store: DossierStorage, dossier_id: str, change: PlanChange | None = None, *, actor: Actor,
               concurrency: int = 8, on_progress: Callable[[str, int, int], None] | None = None,
               cancel: Any = None) -> ReevaluationResult:
    """Re-run the decided dossier's frozen plan with ``change``, compare, and save the addendum.

    This blocks; pages and the CLI start it in the background through the job manager
    (``governance.reevaluation.operations.job``). ``cancel`` (an event) stops it between requests; nothing is
    saved then.

    Raises:
        ReevaluationError: no decision, nothing re-runnable, cases changed, key not set, PHI gate closed,
            or a re-run without any answer. Nothing is saved then.

    Example:
        >>> r = reevaluate(store, "D-1", PlanChange(model="openai/model-b"),
        ...                actor=Actor.named("dr.lee"))  # doctest: +SKIP
        >>> r.addendum.impact.would_change, r.version.note[:13]  # doctest: +SKIP
        (True, 're-evaluation')
    """
    require(actor.identity, "editor", "re-evaluate (paid model calls)", dossier_id)
    change = change or PlanChange()
    current, plan, frozen_at_decision = plan_to_rerun(store, dossier_id, actor.name)
    dossier = current.dossier
    uploads = Path(store.path).parent / "uploads" if getattr(store, "path", None) else None
    db = store.for_thread()
    try:
        check_items(db, plan.rerunnable, change, concurrency=concurrency, uploads=uploads)  # PHI gate first
        afters = []
        for item in plan.rerunnable:
            progress = (lambda d, t, _row, b=item.benchmark: on_progress(b, d, t)) if on_progress else None
            afters.append(rerun_item(db, item, change, concurrency=concurrency, uploads=uploads,
                                     on_progress=progress, cancel=cancel, own_since=current.created_at))
        skipped = [f"{i.benchmark} (run {i.run_id}): {i.note}" for i in plan.items if not i.rerunnable]
        addendum = build_addendum(db, current, plan, change, afters, by=actor.name,
                                  frozen_at_decision=frozen_at_decision, skipped=skipped)
    finally:
        db.close()
    saved = save_addendum(store, dossier, addendum, actor=actor)
    return ReevaluationResult(addendum=addendum, version=saved)
