"""Creating a review queue in the operations: from a completed run, or from the monitoring feed's rows.

Why one ``_assemble`` for both sources: the sample (stratified by subgroup tags), the double-rated share,
the sentinels, the assignments and each rater's order must be drawn the same way whatever the outputs
came from; a source only hands over its outputs by id (context, question, output, tags, score). A run
queue takes the benchmark's rubric; a feed queue (``create_queue_from_feed``) the audit verdict, and its
rows without output text are counted, not rated. Both need an editor (``authorize.require``).
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import BenchmarkError, get_benchmark
from evaluator.grading import GradingError, load_grading
from evaluator.loaders import DatasetError, load_instances
from governance.dossier.storage import DossierStorage
from governance.identity.actor import Actor
from governance.identity.operations.authorize import require
from governance.review.operations.queues import ReviewError
from governance.review.records import CATCH_BAR, QueueItem, ReviewQueue, ReviewRubric
from governance.review.rubric import AUDIT, rubric_for
from governance.review.sampling import assign, double_count, item_ids, rater_order, stratified_sample
from governance.review.sentinels import AnswerFacts, make_sentinels
from governance.runs.operations.juries import run_dataset_path

_MONTH = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def run_outputs(
    store: DossierStorage, run_id: str, dataset_path: str | None = None
) -> tuple[dict[str, Any], list[tuple[Instance, dict]]]:
    """A completed run and its answered instances with their result rows.

    Raises:
        ReviewError: unknown or unfinished run, or its cases cannot be read.
    """
    with store.for_thread() as db:
        run = db.runs.get_run(run_id)
        if run is None:
            raise ReviewError(f"no stored run {run_id!r} (`medassure run` prints the run_id of each run)")
        if run["status"] != "completed":
            raise ReviewError(f"run {run_id} is {run['status']}: finish it before rating its outputs")
        results = {r["instance_id"]: r for r in db.runs.results(run_id)}
        scenario = db.scenarios.version_of_run(run_id)
        instances = db.scenarios.instances(scenario.scenario_id, scenario.version) if scenario else None
    if instances is None:
        try:
            spec = get_benchmark(run["benchmark_id"])
            instances = load_instances(spec, dataset_path or run_dataset_path(store, run["run_key"]))
        except (BenchmarkError, DatasetError) as exc:
            raise ReviewError(
                f"run {run_id}: its cases cannot be read ({exc}); give the dataset file"
            ) from None
    answered = [
        (i, results[i.id])
        for i in instances
        if i.id in results
        and results[i.id]["error"] is None
        and (results[i.id]["response_text"] or "").strip()
    ]
    return run, answered


def _check_sizes(n: int, double: float, sentinels: int) -> None:
    """The queue's numbers, checked the same way for a run's and a feed's queue."""
    if n < 1:
        raise ReviewError("--n must be at least 1")
    if not 0 <= double <= 1:
        raise ReviewError(f"--double must lie between 0 and 1; got {double}")
    if sentinels < 0:
        raise ReviewError("--sentinels cannot be negative")


def _clean_raters(raters: Sequence[str]) -> tuple[str, ...]:
    names = tuple(r.strip() for r in raters if r.strip())
    if not names:
        raise ReviewError("name at least one rater (--raters A,B)")
    if len(set(names)) != len(names):
        raise ReviewError(f"a rater is named twice: {', '.join(names)}")
    bad = [r for r in names if len(r) > 200 or any(c in r for c in ",\n\r\t")]
    if bad:
        raise ReviewError(
            f"rater name not usable: {bad[0]!r} (no commas or line breaks, at most 200 characters)"
        )
    return names


def create_queue(
    store: DossierStorage,
    run_id: str,
    n: int,
    raters: Sequence[str],
    *,
    double: float = 0.0,
    sentinels: int = 0,
    rubric: str | None = None,
    strata: Sequence[str] | None = None,
    seed: int | None = None,
    dossier_id: str | None = None,
    written: Sequence[tuple[str, ...]] = (),
    dataset_path: str | None = None,
    catch_bar: float = CATCH_BAR,
    actor: Actor,
) -> ReviewQueue:
    """Create a blinded queue of ``n`` outputs of a completed run, with ``sentinels`` planted errors.

    ``written`` are editor-written sentinels ``(instance_id, faulty output[, note])`` (e.g. from
    ``read_sentinel_file``); the rest, up to ``sentinels``, are made by the documented perturbations from
    correct answers (outputs outside the sample first, best scored first): an option or a wrong value for
    multiple-choice and exact answers, a number, negation or warning for free text.

    Raises:
        PermissionDenied: the identity is not an editor.
        ReviewError: bad numbers, unknown run, too few outputs, or too few sentinels could be made.
    """
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "create a review queue", dossier_id)
    names = _clean_raters(raters)
    _check_sizes(n, double, sentinels)
    if dossier_id is not None:
        store.load(dossier_id)  # DossierNotFound before anything is drawn
    run, answered = run_outputs(store, run_id, dataset_path)
    if len(answered) < n:
        raise ReviewError(f"run {run_id} has {len(answered)} answered outputs; --n {n} asks for more")
    try:
        free_text = all(i.answer_type == "free_text" for i, _ in answered)
        chosen_rubric = rubric_for(run["benchmark_id"], rubric, free_text=free_text)
    except ValueError as exc:
        raise ReviewError(str(exc)) from None
    values = tuple(sorted({i.reference.strip() for i, _ in answered
                           if i.answer_type == "exact" and i.reference.strip()}))
    pool = {
        i.id: _Output(i.context, i.question, r["response_text"], dict(i.subgroups), r["score"],
                      AnswerFacts(i.answer_type, tuple(i.choices), i.reference, r.get("parsed"), values))
        for i, r in answered
    }
    return _assemble(
        store,
        pool,
        n,
        names,
        double=double,
        sentinels=sentinels,
        strata=strata,
        seed=seed,
        written=written,
        source_name=f"run {run_id}",
        fields={
            "run_id": run_id,
            "benchmark_id": run["benchmark_id"],
            "model": run["model"],
            "dossier_id": dossier_id,
            "rubric": chosen_rubric,
            "catch_bar": catch_bar,
        },
        audit_fields={"run_id": run_id},
        by=actor.name,
        auth=auth,
    )


class _Output(NamedTuple):
    context: str
    question: str
    output: str
    subgroups: dict[str, str]
    score: float | None
    facts: AnswerFacts | None = None
    criteria: tuple[str, ...] = ()


def _assemble(
    store: DossierStorage,
    pool: dict[str, _Output],
    n: int,
    names: tuple[str, ...],
    *,
    double: float,
    sentinels: int,
    strata: Sequence[str] | None,
    seed: int | None,
    written: Sequence[tuple[str, ...]],
    source_name: str,
    fields: dict[str, Any],
    audit_fields: dict[str, Any],
    by: str,
    auth: str,
) -> ReviewQueue:
    """Sample, plant sentinels, assign, order and store a queue over ``pool`` (outputs by instance id)."""
    seed = secrets.randbelow(2**31) if seed is None else seed
    tag_names = (
        tuple(sorted({t for o in pool.values() for t in o.subgroups})) if strata is None else tuple(strata)
    )
    sample = stratified_sample({i: dict(o.subgroups) for i, o in pool.items()}, n, tag_names, seed)
    rest = [i for i in pool if i not in set(sample)]

    def best_first(i: str) -> float:
        return -(pool[i].score if pool[i].score is not None else -1)

    ranked = sorted(rest, key=best_first) + sorted(sample, key=best_first)
    unknown = [w[0] for w in written if w[0] not in pool]
    if unknown:
        raise ReviewError(f"written sentinel for unknown instance {unknown[0]!r} of {source_name}")
    made = [(w[0], "editor", w[1], (w[2].strip() if len(w) > 2 else "") or "written by the editor")
            for w in written if w[1].strip()]
    answers = {i: o.facts for i, o in pool.items() if o.facts is not None}
    made += make_sentinels([(i, pool[i].output) for i in ranked], sentinels - len(made), answers)
    if len(made) < sentinels:
        raise ReviewError(
            f"only {len(made)} of {sentinels} sentinels could be made from {source_name}'s outputs "
            "(no option, value, number, negation or warning to change): write the others "
            "(--sentinel-file)"
        )
    n_double = double_count(n, double, len(names))
    rng = random.Random(f"queue:{seed}")
    double_ids = set(rng.sample(sample, n_double))
    drafts = [(i, None, pool[i].output, "", i in double_ids) for i in sample]
    drafts += [(i, kind, text, note, False) for i, kind, text, note in made]
    rng.shuffle(drafts)
    items = []
    for item_id, (iid, kind, text, note, is_double) in zip(item_ids(len(drafts), seed), drafts, strict=True):
        src = pool[iid]
        items.append(
            QueueItem(
                item_id=item_id,
                instance_id=iid,
                context=src.context,
                question=src.question,
                output=text,
                subgroups=dict(src.subgroups),
                sentinel=kind,
                sentinel_note=note,
                double=is_double,
                criteria=src.criteria,
            )
        )
    real = [it.item_id for it in items if it.sentinel is None]
    doubles = [it.item_id for it in items if it.double]
    planted = [it.item_id for it in items if it.sentinel is not None]
    given = assign(real, doubles, planted, names, seed)
    orders = {r: rater_order(given[r], r, seed) for r in names}
    queue = ReviewQueue(
        queue_id=f"rq-{secrets.token_hex(5)}",
        raters=names,
        n_items=len(sample),
        n_double=n_double,
        n_sentinels=len(planted),
        seed=seed,
        strata=tag_names,
        created_by=by,
        created_auth=auth,
        created_at=datetime.now(UTC),
        **fields,
    )
    store.reviews.create(queue, items, orders)
    store.audit(
        by,
        "review queue created",
        queue.dossier_id,
        {
            "queue_id": queue.queue_id,
            **audit_fields,
            "n": len(sample),
            "double": n_double,
            "sentinels": len(planted),
            "raters": list(names),
        },
        auth=auth or None,
    )
    return queue


def create_queue_from_grading(
    store: DossierStorage,
    grading_id: str,
    n: int,
    raters: Sequence[str],
    *,
    double: float = 0.0,
    sentinels: int = 0,
    strata: Sequence[str] | None = None,
    seed: int | None = None,
    dossier_id: str | None = None,
    catch_bar: float = CATCH_BAR,
    actor: Actor,
) -> ReviewQueue:
    """A blinded ``criteria`` queue over ``n`` cases of a completed rubric grading.

    Each item is one graded case's response with its rubric criteria (texts, in the rubric's order); the rater
    answers met / not met for each, never seeing the graders' verdicts, the model or the scores. Judge
    validity then sets the clinicians' verdicts against the grading's, per criterion.

    Raises:
        PermissionDenied: the identity is not an editor.
        ReviewError: unknown or unfinished grading, bad numbers, too few graded cases, or sentinels asked (a
            planted error has no defined catch on a criteria queue yet).
    """
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "create a review queue", dossier_id)
    names = _clean_raters(raters)
    _check_sizes(n, double, sentinels)
    if sentinels:
        raise ReviewError("--sentinels is not offered on a --grading queue yet (what catching a planted "
                          "error means per criterion is not defined); use --sentinels 0")
    try:
        result = load_grading(store, grading_id)
    except GradingError as exc:
        raise ReviewError(str(exc)) from None
    if result.status != "completed":
        raise ReviewError(f"grading {grading_id} is {result.status}: finish it (`medassure grade`) first")
    if dossier_id is not None:
        store.load(dossier_id)
    run, answered = run_outputs(store, result.run_id)
    cases = {c.id: c for c in result.per_case if c.criteria}
    pool = {
        i.id: _Output(i.context, i.question, r["response_text"], dict(i.subgroups), None,
                      criteria=tuple(c.criterion for c in cases[i.id].criteria))
        for i, r in answered if i.id in cases
    }
    if len(pool) < n:
        raise ReviewError(f"grading {grading_id} has {len(pool)} graded cases with a response; --n {n} asks "
                          "for more")
    rubric = ReviewRubric(kind="criteria", rubric_id=grading_id, criteria=(), scale_min=0, scale_max=1,
                          questions={"criteria": "Is each criterion met by the response?"})
    return _assemble(
        store, pool, n, names, double=double, sentinels=0, strata=strata, seed=seed, written=(),
        source_name=f"grading {grading_id}",
        fields={"run_id": result.run_id, "benchmark_id": run["benchmark_id"], "model": run["model"],
                "grading_id": grading_id, "dossier_id": dossier_id, "rubric": rubric, "catch_bar": catch_bar},
        audit_fields={"run_id": result.run_id, "grading_id": grading_id}, by=actor.name, auth=auth,
    )


class FeedQueue(NamedTuple):
    """A queue made from the monitoring feed, and the feed rows left out for want of output text."""

    queue: ReviewQueue
    skipped_no_text: int


def create_queue_from_feed(
    store: DossierStorage,
    dossier_id: str,
    n: int,
    raters: Sequence[str],
    *,
    candidate: str | None = None,
    month: str | None = None,
    double: float = 0.0,
    sentinels: int = 0,
    strata: Sequence[str] | None = None,
    seed: int | None = None,
    catch_bar: float = CATCH_BAR,
    written: Sequence[tuple[str, ...]] = (),
    actor: Actor,
) -> FeedQueue:
    """A blinded audit-verdict queue of ``n`` production outputs of the dossier's monitoring feed.

    Items are the feed rows that carry output text (of ``month`` if given), sampled at random and
    stratified by their tags as run queues are; rows without text cannot be rated and are counted in
    ``skipped_no_text``. The text stays in the store; the queue belongs to the dossier, so only its
    raters see the items. The rubric is the audit verdict; once the queue closes its verdicts count as
    the feed's audits (``monitor status``).

    Raises:
        PermissionDenied: the identity is not an editor of the dossier.
        ReviewError: bad numbers or month, no or an ambiguous candidate, too few rows with text.
        DossierNotFound: unknown dossier.
    """
    who, auth = actor.identity, actor.identity_label
    require(who, "editor", "create a review queue", dossier_id)
    names = _clean_raters(raters)
    _check_sizes(n, double, sentinels)
    if month is not None and not _MONTH.fullmatch(month):
        raise ReviewError(f"--month must be YYYY-MM; got {month!r}")
    store.load(dossier_id)
    known = store.monitoring.candidates(dossier_id)
    if not known:
        raise ReviewError(f"dossier {dossier_id} has no monitoring feed (`medassure monitor import` first)")
    if candidate is None:
        if len(known) > 1:
            raise ReviewError(
                f"the feed holds several candidates ({', '.join(known)}): name one (--candidate)"
            )
        candidate = known[0]
    elif candidate not in known:
        raise ReviewError(
            f"no feed rows of candidate {candidate!r} in dossier {dossier_id} (candidates with a feed: "
            f"{', '.join(known)})"
        )
    rows, skipped = store.monitoring.review_rows(dossier_id, candidate, month)
    where = f"{candidate}'s feed" + (f" in {month}" if month else "")
    if len(rows) < n:
        raise ReviewError(
            f"{where} has {len(rows)} outputs with text ({skipped} without text cannot be rated); "
            f"--n {n} asks for more"
        )
    pool = {k: _Output("", "", text, tags, None) for k, text, tags in rows}
    queue = _assemble(
        store,
        pool,
        n,
        names,
        double=double,
        sentinels=sentinels,
        strata=strata,
        seed=seed,
        written=written,
        source_name=where,
        fields={
            "source": "production",
            "benchmark_id": f"feed:{candidate}",
            "model": candidate,
            "candidate": candidate,
            "month": month,
            "dossier_id": dossier_id,
            "rubric": AUDIT,
            "catch_bar": catch_bar,
        },
        audit_fields={"feed": candidate, "month": month, "skipped_no_text": skipped},
        by=actor.name,
        auth=auth,
    )
    return FeedQueue(queue, skipped)
