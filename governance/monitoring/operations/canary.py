"""Canary operations: freeze the cases and their baseline, ask the approved endpoint again, compare, signal.

Why asking here and not through the re-evaluation: re-evaluation sits above monitoring in the path
(``pyproject.toml``'s layers), and a canary is a monitoring check with its own record. It uses the same
evaluator pieces in the same way: the frozen plan item's spec and prompt, the cases checked against a
digest before anything is sent, the run manager's PHI gate, and a run told to observe the model
(``RunOptions.fresh``): no response-cache row is read, so an unchanged name and URL serving new weights
are seen. The baseline is never asked for: it is the decided run's stored answers.

A drift or an identity change is asked once more before a signal is raised (a confirmation run), so a
one-off bad sample or a load balancer's stray replica does not pause a clinical service; an unreachable
endpoint raises its review at once.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from evaluator.benchmarks.specs import BenchmarkError, BenchmarkSpec, get_benchmark
from evaluator.gateway.errors import LLMError
from evaluator.gateway.llm import api_key_for
from evaluator.loaders import DatasetError, get_loader, load_instances
from evaluator.runs.phi_gate import attestation_for, check_phi, prompt_texts
from evaluator.runs.request import file_sha256
from evaluator.runs.runner import RunOptions, run_benchmark
from evaluator.runs.store import sha256_of
from evaluator.scenarios import scenario_spec
from evaluator.scenarios.run import version_attestation
from governance.dossier.storage import DossierStorage, DossierVersion
from governance.evidence.operations.plan import spec_with_prompt
from governance.evidence.plan_records import PlanItem
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require, update_as
from governance.monitoring.canary import (
    DEFAULT_CASES,
    DEFAULT_EVERY_DAYS,
    attempt_status,
    baseline_digest,
    canary_cost,
    case_order,
    choose_cases,
    digest,
    drop_p_value,
    eligible,
    latest_set,
    next_due,
)
from governance.monitoring.identity import approved_identity, bare_model
from governance.monitoring.ladder import make_signal
from governance.monitoring.operations.common import (
    MonitoringError,
    new_signal_records,
    now_or,
    served_names,
    watched_candidate,
)
from governance.monitoring.plan import resolved_plan
from governance.monitoring.procured import procured
from governance.monitoring.records import CanaryAttempt, CanaryCase, CanaryRun, CanarySet
from governance.monitoring.status import reevaluation_command

SIGNAL_KIND = {"drift": "canary_drift", "identity_changed": "canary_identity",
               "unreachable": "canary_unreachable"}


def _items(dossier, candidate: str) -> list[PlanItem]:
    plan = dossier.evidence_plan
    if dossier.decision is None or plan is None:
        raise MonitoringError(f"{dossier.id} has no decision with a frozen evidence plan: nothing to freeze")
    items = [i for i in plan.items if i.model_label == candidate and i.rerunnable]
    if not items:
        raise MonitoringError(f"{dossier.id}: the frozen plan has no re-runnable run of {candidate}")
    return items


def _baseline_answers(store: DossierStorage, cases: list[CanaryCase], baseline_runs: dict[str, str] | None
                      ) -> dict[tuple[str, str], str | None]:
    """Each case's stored baseline answer, keyed by (decided run, case): from the run that answered it."""
    out: dict[tuple[str, str], str | None] = {}
    for run_id in dict.fromkeys(c.run_id for c in cases):
        rows = store.runs.results((baseline_runs or {}).get(run_id, run_id))
        out.update({(run_id, r["instance_id"]): r.get("parsed") for r in rows})
    return out


def _spec(store: DossierStorage, item: PlanItem) -> BenchmarkSpec:
    try:
        if item.kind == "scenario":
            spec = scenario_spec(store.scenarios.get(item.scenario_id or "", item.scenario_version))
        else:
            spec = get_benchmark(item.benchmark_id)
    except (BenchmarkError, KeyError) as exc:
        raise MonitoringError(f"{item.benchmark}: {exc}") from None
    if item.prompt:
        spec = spec_with_prompt(spec, item.prompt.system_prompt, item.prompt.prompt_template)
    update = {k: item.params[k] for k in ("temperature", "max_tokens") if k in item.params}
    return BenchmarkSpec.model_validate({**spec.model_dump(), **update})


def _instances(store: DossierStorage, item: PlanItem, spec: BenchmarkSpec, ids: list[str] | None) -> list:
    """The plan item's cases named by ``ids``, in that order (every case when ``ids`` is None)."""
    if item.kind == "scenario":
        instances = store.scenarios.instances(item.scenario_id or "", item.scenario_version or 0)
    else:
        path = item.dataset_path
        on_disk = bool(path and Path(path).is_file())
        if get_loader(spec.loader).needs_file and not spec.dataset_path and not on_disk:
            raise MonitoringError(f"{item.benchmark}: the dataset file of run {item.run_id} is not on this "
                                  "machine; the canary cannot ask its cases")
        try:
            instances = load_instances(spec, path)
        except DatasetError as exc:
            raise MonitoringError(str(exc)) from None
    if ids is None:
        return list(instances)
    by_id = {i.id: i for i in instances}
    return [by_id[i] for i in ids if i in by_id]


def _cases_digest(instances_by_item: list[list]) -> str:
    return digest([[i.model_dump(mode="json") for i in chunk] for chunk in instances_by_item])


@dataclass(frozen=True)
class CanaryPreview:
    """What ``set_canary`` would freeze, and what the canary will cost: shown before it is confirmed."""

    candidate: str
    cases: list[CanaryCase]
    every_days: int
    cost_per_run_usd: float | None
    """USD per run: the baseline answers' tokens × the endpoint's price (None: a price or tokens unknown)."""
    runs_per_year: float
    cost_per_year_usd: float | None
    price_source: str
    """Where the price came from, or why the cost is unknown."""
    n: int
    """Cases asked for (the frozen set may hold fewer: only known-answer cases are kept)."""
    fresh_baseline: list[str]
    """Benchmarks whose decided run holds no stored answer: ``set_canary`` asks their baseline once."""
    baseline_runs: dict[str, str]
    """Decided run → the fresh run that answered its baseline, kept from the canary in force."""


def _rows(store: DossierStorage, item: PlanItem, baseline_runs: dict[str, str]) -> list[dict]:
    return store.runs.results(baseline_runs.get(item.run_id, item.run_id))


def _price_and_tokens(store: DossierStorage, items: list[PlanItem], chosen: list[CanaryCase], every: int,
                      baseline_runs: dict[str, str]) -> tuple[float | None, float, float | None, str]:
    per_run: float | None = 0.0
    per_year: float | None = 0.0
    runs_per_year = canary_cost([], None, every)[1]
    sources = []
    for item in items:
        ids = {c.instance_id for c in chosen if c.run_id == item.run_id}
        if not ids:
            continue
        rows = [r for r in _rows(store, item, baseline_runs) if r["instance_id"] in ids]
        price = item.endpoint.endpoint().price()
        tokens = [(r.get("prompt_tokens"), r.get("completion_tokens")) for r in rows]
        run, runs_per_year, year = canary_cost(tokens, price[:2] if price else None, every)
        if price is None:
            sources.append(f"no price is known for {item.endpoint.model}")
        elif run is None:
            sources.append(f"the decided run {item.run_id} recorded no token counts")
        else:
            sources.append(f"{item.endpoint.model}: {price.source}")
        per_run = None if per_run is None or run is None else per_run + run
        per_year = None if per_year is None or year is None else per_year + year
    return per_run, runs_per_year, per_year, "; ".join(dict.fromkeys(sources))


def preview_canary(store: DossierStorage, dossier_id: str, *, cases: int | None = None,
                   every_days: int | None = None) -> CanaryPreview:
    """The cases a canary would freeze and its cost per run and per year; nothing is stored or asked.

    A decided run with no stored known-answer case is listed in ``fresh_baseline``: its cases are chosen
    once ``set_canary`` has asked their baseline, and the cost is unknown until then.

    Raises:
        MonitoringError: no decision or frozen plan, a bad count or schedule.
    """
    dossier = store.load(dossier_id).dossier
    candidate = watched_candidate(dossier, None)
    n = cases if cases is not None else DEFAULT_CASES.get(dossier.risk.tier, 50)
    every = every_days if every_days is not None else DEFAULT_EVERY_DAYS
    if n < 1 or not 1 <= every <= 366:
        raise MonitoringError("--cases must be at least 1 and --every between 1 and 366 days")
    items = _items(dossier, candidate)
    current = latest_set(dossier.monitoring, candidate)
    kept = {k: v for k, v in ((current.baseline_runs or {}) if current else {}).items()
            if any(i.run_id == k for i in items)}
    strata = {(i.benchmark, i.run_id): _rows(store, i, kept) for i in items}
    fresh = [i.benchmark for i in items if not eligible(strata[(i.benchmark, i.run_id)])]
    chosen = choose_cases(dossier.id, strata, n)
    if fresh:
        per_run, runs_per_year, per_year = None, canary_cost([], None, every)[1], None
        source = (f"the decided runs of {', '.join(fresh)} hold no stored answers: the baseline is asked "
                  "once when the canary is set, and its tokens price the runs")
    else:
        per_run, runs_per_year, per_year, source = _price_and_tokens(store, items, chosen, every, kept)
    return CanaryPreview(candidate=candidate, cases=chosen, every_days=every, cost_per_run_usd=per_run,
                         runs_per_year=runs_per_year, cost_per_year_usd=per_year, price_source=source, n=n,
                         fresh_baseline=fresh, baseline_runs=kept)


def _decided_cases(store: DossierStorage, item: PlanItem, spec: BenchmarkSpec) -> list:
    """The cases the decided run planned (the first ``n_instances`` in run order), checked against the
    frozen dataset hash: without its stored answers, this is how the canary knows which cases they were."""
    every = _instances(store, item, spec, None)
    planned = every[: item.n_instances] if item.n_instances else every
    if item.dataset_hash and sha256_of([i.model_dump(mode="json") for i in planned]) != item.dataset_hash:
        raise MonitoringError(f"{item.benchmark}: the decided run {item.run_id} holds no stored answers, and "
                              "its cases cannot be told from the dataset as it is now (hash differs); "
                              "nothing was sent")
    return planned


def _ask_baseline(store: DossierStorage, dossier, items: list[PlanItem], fresh: list[str], n: int,
                  concurrency: int) -> dict[str, str]:
    """Ask the endpoint once for the baseline of each decided run without stored answers (at most ``n``
    cases each, in the dossier's case order), through the run path; decided run → fresh run."""
    out = {}
    db = store.for_thread()
    try:
        for item in items:
            if item.benchmark not in fresh:
                continue
            spec = _spec(db, item)
            instances = sorted(_decided_cases(db, item, spec), key=lambda i: case_order(dossier.id, i.id))[:n]
            endpoint = _endpoint(item, concurrency)
            out[item.run_id] = _run_fresh(db, item, spec, instances, endpoint, concurrency)
    finally:
        db.close()
    return out


def set_canary(store: DossierStorage, dossier_id: str, *, actor: Actor, cases: int | None = None,
               every_days: int | None = None, alpha: float = 0.05, now: datetime | None = None,
               concurrency: int = 8) -> tuple[CanarySet, DossierVersion]:
    """Freeze ``cases`` known-answer cases of the approved candidate's decided runs and their baseline.

    No model is called when the decided runs hold stored answers: the baseline is their answers and
    correctness. A decided run without any is asked once, through the run path (PHI gate, cache bypassed),
    and that fresh run is recorded as its baseline (``baseline_runs``). Setting the canary in force again
    with the same cases, baseline, schedule and level stores nothing and returns it.

    Raises:
        MonitoringError: no decision or frozen plan, no known-answer case, a bad count or schedule, or (for
            a fresh baseline) the key not set or the PHI gate closed.
        PermissionDenied: the identity is not an editor (a chair is one).
    """
    require(actor.identity, "editor", "set a canary", dossier_id)
    preview = preview_canary(store, dossier_id, cases=cases, every_days=every_days)
    dossier = store.load(dossier_id).dossier
    items = _items(dossier, preview.candidate)
    chosen, every, baseline_runs = preview.cases, preview.every_days, dict(preview.baseline_runs)
    if preview.fresh_baseline:
        baseline_runs |= _ask_baseline(store, dossier, items, preview.fresh_baseline, preview.n, concurrency)
        chosen = choose_cases(dossier.id, {(i.benchmark, i.run_id): _rows(store, i, baseline_runs)
                                           for i in items}, preview.n)
    if not chosen:
        raise MonitoringError(f"{dossier_id}: the decided runs hold no answered case with a known answer")
    used = {c.run_id for c in chosen}
    baseline_runs = {k: v for k, v in baseline_runs.items() if k in used}
    by_item = [[c.instance_id for c in chosen if c.run_id == i.run_id] for i in items]
    content = [_instances(store, i, _spec(store, i), ids) for i, ids in zip(items, by_item, strict=True)]
    base_digest = baseline_digest(chosen, _baseline_answers(store, chosen, baseline_runs))
    cases_digest = _cases_digest(content)
    current = latest_set(dossier.monitoring)
    if current is not None and (
            current.candidate, current.cases, current.every_days, current.alpha, current.baseline_digest,
            current.cases_digest, current.baseline_runs or {}) == (
            preview.candidate, chosen, every, alpha, base_digest, cases_digest, baseline_runs):
        return current, store.load(dossier_id)
    record = CanarySet(
        id="K-" + uuid.uuid4().hex[:10], at=now_or(now), by=actor.name, auth=actor.auth_label,
        candidate=preview.candidate, every_days=every, alpha=alpha, cases=chosen,
        baseline_digest=base_digest, cases_digest=cases_digest, baseline_runs=baseline_runs or None)
    asked = f"; baseline asked once ({', '.join(baseline_runs.values())})" if preview.fresh_baseline else ""
    version = update_as(store, actor, dossier_id,
                        lambda d: d.model_copy(update={"monitoring": [*d.monitoring, record]}),
                        action="set a canary",
                        note=f"canary {record.id}: {len(chosen)} cases every {every} days{asked}")
    return record, version


def _endpoint(item: PlanItem, concurrency: int):
    endpoint = item.endpoint.endpoint(concurrency)
    try:
        api_key_for(endpoint)
    except LLMError as exc:
        raise MonitoringError(str(exc)) from None
    return endpoint


def _run_fresh(store: DossierStorage, item: PlanItem, spec: BenchmarkSpec, instances: list, endpoint,
               concurrency: int, batch: bool = False) -> str:
    """One run of ``instances`` through the run manager's PHI gate, never answered from the cache."""
    def attestation():
        if item.kind == "scenario":
            return version_attestation(store, store.scenarios.get(item.scenario_id or "",
                                                                  item.scenario_version))
        stored = (store.runs.stored_request(run_id=item.run_id) or {}).get("dataset_sha256")
        path = item.dataset_path if item.dataset_path and Path(item.dataset_path).is_file() else None
        return attestation_for(store, file_sha256(path), stored)

    check = check_phi(instances, [endpoint], attestation=attestation, generated=spec.access == "builtin",
                      prompts=prompt_texts(spec))
    if not check.allowed:
        raise MonitoringError(f"{item.benchmark}: {check.explanation}")
    summary = run_benchmark(store, spec, instances, endpoint, concurrency=concurrency,
                            options=RunOptions(phi_check=check, fresh=True, batch=batch))
    return summary.run_id


def _ask(store: DossierStorage, dossier, canary: CanarySet, concurrency: int,
         batch: bool = False) -> list[tuple[str, str, dict]]:
    """Ask every frozen case of the approved endpoint again: (baseline run, fresh run, row) per case."""
    items = {i.run_id: i for i in _items(dossier, canary.candidate)}
    runs = list(dict.fromkeys(c.run_id for c in canary.cases))
    missing = [r for r in runs if r not in items]
    if missing:
        raise MonitoringError(f"the canary's runs {missing} are no longer in the frozen plan")
    prepared = []
    for run_id in runs:
        item = items[run_id]
        spec = _spec(store, item)
        instances = _instances(store, item, spec, [c.instance_id for c in canary.cases if c.run_id == run_id])
        prepared.append((item, spec, instances, _endpoint(item, concurrency)))
    if _cases_digest([p[2] for p in prepared]) != canary.cases_digest:
        raise MonitoringError(f"the canary's cases changed since {canary.id} was set; nothing was sent "
                              "(set the canary again)")
    out = []
    for item, spec, instances, endpoint in prepared:
        fresh_id = _run_fresh(store, item, spec, instances, endpoint, concurrency, batch)
        rows = {r["instance_id"]: r for r in store.runs.results(fresh_id)}
        out += [(item.run_id, fresh_id, rows.get(i.id, {"instance_id": i.id, "error": "no result"}))
                for i in instances]
    return out


def _attempt(dossier, canary: CanarySet, answers, asked: list[tuple[str, str, dict]], accepted: set[str]
             ) -> CanaryAttempt:
    base = {(c.run_id, c.instance_id): c for c in canary.cases}
    baseline_correct = now_correct = lost = gained = changed = n = 0
    served: Counter = Counter()
    for baseline_run, _, row in asked:
        case = base[(baseline_run, row["instance_id"])]
        if row.get("error") is not None or row.get("score") is None:
            continue
        n += 1
        now = row["score"] == 1.0
        baseline_correct += case.correct
        now_correct += now
        lost += case.correct and not now
        gained += now and not case.correct
        before = answers.get((case.run_id, case.instance_id)) or ""
        changed += (row.get("parsed") or "").strip() != before.strip()
        if row.get("served_model"):
            served[row["served_model"]] += 1
    model = served.most_common(1)[0][0] if served else None
    p = drop_p_value(lost, gained)
    status = attempt_status(n, len(canary.cases), p, canary.alpha,
                            model is not None and bare_model(model) not in accepted)
    return CanaryAttempt(run_ids=list(dict.fromkeys(r for _, r, _ in asked)), status=status, n=n,
                         errors=len(asked) - n, baseline_correct=baseline_correct, now_correct=now_correct,
                         lost=lost, gained=gained, p_value=p, changed_answers=changed / n if n else 0.0,
                         served_model=model)


@dataclass(frozen=True)
class CanaryOutcome:
    """A canary run as recorded, and the dossier version that holds it."""

    record: CanaryRun
    version: DossierVersion


def run_canary(store: DossierStorage, dossier_id: str, *, actor: Actor, now: datetime | None = None,
               concurrency: int = 8, batch: bool = False) -> CanaryOutcome:
    """Ask the approved endpoint the canary's cases again, compare with the baseline, record, signal.

    ``batch``: ask through the provider's Batch API at the batch rate (``RunOptions.batch``); the
    confirmation run after a finding is a second batch.

    Raises:
        MonitoringError: no canary set, its baseline or cases changed, the key not set, the PHI gate closed.
        PermissionDenied: the identity is not an editor.
    """
    require(actor.identity, "editor", "run the canary (paid model calls)", dossier_id)
    at = now_or(now)
    dossier = store.load(dossier_id).dossier
    canary = latest_set(dossier.monitoring)
    if canary is None:
        raise MonitoringError(f"{dossier_id} has no canary: freeze one with "
                              f"`medassure canary set {dossier_id}`")
    answers = _baseline_answers(store, canary.cases, canary.baseline_runs)
    if baseline_digest(canary.cases, answers) != canary.baseline_digest:
        raise MonitoringError(f"the baseline answers of {canary.id} changed in the run store since it "
                              "was set")
    plan = resolved_plan(dossier, canary.candidate).monitoring
    accepted = set(approved_identity(dossier, canary.candidate, plan,
                                     served_names(store, dossier, canary.candidate),
                                     procured=procured(dossier, canary.candidate)).accepted_models)
    db = store.for_thread()
    try:
        def attempt() -> CanaryAttempt:
            return _attempt(dossier, canary, answers, _ask(db, dossier, canary, concurrency, batch), accepted)

        attempts = [attempt()]
        if attempts[0].status in ("drift", "identity_changed"):
            attempts.append(attempt())  # the confirmation run
    finally:
        db.close()
    first = attempts[0].status
    confirmed = len(attempts) == 2 and attempts[1].status == first
    status = first if first == "unreachable" or confirmed else "in_control"
    run_id = "KR-" + uuid.uuid4().hex[:10]
    signal = None
    if status != "in_control":
        last = attempts[-1]
        figures = (f"{last.lost} lost and {last.gained} gained of {last.n} cases (one-sided exact p = "
                   f"{last.p_value:.3g}), {last.changed_answers:.0%} of answers changed, served as "
                   f"{last.served_model or '(none named)'}")
        detail = {"drift": f"the canary's answers dropped from the baseline: {figures}",
                  "identity_changed": f"the canary was served by {last.served_model}, not an approved "
                                      f"identity ({', '.join(sorted(accepted))}): {figures}",
                  "unreachable": f"the approved endpoint answered {last.n} of {len(canary.cases)} canary "
                                 f"cases ({last.errors} errors)"}[status]
        action = {"drift": "Review the changed answers and ask the vendor what changed; re-run the frozen "
                           "plan",
                  "identity_changed": "Pause use; re-run the frozen evidence plan against the model now "
                                      "served, or record the name as an alias if it is the approved model",
                  "unreachable": "Review: check the endpoint, its key and the vendor's status"}[status]
        signal = make_signal(kind=SIGNAL_KIND[status], candidate=canary.candidate,
                             metric=f"canary {canary.id}",
                             seen=run_id, first_seen=at, detail=detail, action=action, plan=plan, now=at,
                             command=reevaluation_command(dossier_id) if status != "unreachable" else None)
    record = CanaryRun(id=run_id, canary_id=canary.id, at=at, by=actor.name, auth=actor.auth_label,
                       candidate=canary.candidate, status=status, confirmed=confirmed, attempts=attempts,
                       signal_id=signal.id if signal else None)

    def change(d):
        entries = [*d.monitoring, record]
        if signal is not None:
            entries += new_signal_records(d, [signal], at)
        return d.model_copy(update={"monitoring": entries})

    version = update_as(store, actor, dossier_id, change, action="run the canary",
                        note=f"canary run {record.id}: {status}")
    return CanaryOutcome(record=record, version=version)


def due_canaries(store: DossierStorage, now: datetime | None = None) -> list[str]:
    """Ids of the dossiers whose canary is due at ``now``."""
    at = now_or(now)
    out = []
    for summary in store.list_dossiers():
        dossier = store.load(summary.id).dossier
        canary = latest_set(dossier.monitoring)
        if canary is not None and next_due(canary, dossier.monitoring) <= at:
            out.append(dossier.id)
    return out
