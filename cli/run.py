"""``medassure benchmarks`` and ``medassure run``: list benchmarks, run one on a model.

Thin wrappers: parse flags into a ``ModelEndpoint``, load the instances, print the dry-run
estimate, or start the run through the one job manager
(``governance.runs.operations.jobs.run_and_wait``, so the request is stored beside the run as the
page stores it) and wait with a progress bar on stderr; print the summary as JSON on stdout,
with the transport that made the calls. ``--dossier ID`` (checked before anything runs) attaches
the completed run's Evidence, as ``medassure attach`` does, and adds ``attached`` to the output.
Exit codes: 0 the run completed (instances that failed are counted in ``n_errors``), 2 bad
input (unknown benchmark, unreadable dataset, key variable not set, no such dossier), 3 the run stopped early
(budget reached or interrupted; run it again to resume), 4 every instance failed (e.g. a wrong
key or URL), 5 blocked by the PHI gate (nothing sent; see below), also from ``--dry-run``, which
foresees the block with its reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import (
    CONCURRENCY,
    LIMIT,
    PRICE,
    RPM,
    TIMEOUT,
    USD,
    WORKERS,
    add_format,
    cli_actor,
    emit,
    fail,
    open_store,
    say,
)
from cli.run_support import (
    PHI_HELP,
    ProgressBar,
    add_attestation_arguments,
    attestation_input,
    endpoint_from_args,
    interrupted_run,
    phi_blocked,
    run_exit_code,
)
from cli.scenario_run import add_run_arguments, cmd_run_scenario

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def cmd_benchmarks(args: argparse.Namespace) -> int:
    from evaluator import get_loader, list_benchmarks

    rows = [
        {
            "id": s.id,
            "title": s.title,
            "answer_type": s.answer_type,
            "metrics": list(s.metrics),
            "subcategory_ids": list(s.subcategory_ids),
            "loader": s.loader,
            "access": s.access,
            "needs_dataset_file": get_loader(s.loader).needs_file and not s.dataset_path,
            "max_tokens": s.max_tokens,
        }
        for s in list_benchmarks()
    ]
    if args.format == "text":
        for r in rows:
            sys.stdout.write(f"{r['id']:<16} {r['answer_type']:<14} {r['title']}\n")
    else:
        emit(rows)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from evaluator import BenchmarkError, DatasetError, LLMError, api_key_for, get_benchmark, load_instances

    for flag in ("concurrency", "limit", "workers"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            fail(f"--{flag} must be at least 1 (got {value})")
    if args.max_cost is not None and args.max_cost <= 0:
        fail(f"--max-cost must be positive (got {args.max_cost})")
    if args.candidate and not args.dossier:
        fail("--candidate names a candidate of a dossier: give --dossier ID too")
    if args.candidate and args.name:
        fail("give --candidate or --name, not both (the candidate is the endpoint's label)")
    if args.dossier:
        _require_dossier(args)
    if args.candidate:
        args.name = args.candidate
    if args.scenario and args.fresh:
        fail("--fresh applies to --benchmark runs; a re-evaluation (`medassure reevaluate`) asks the model "
             "again for a dossier's local scenarios")
    if args.scenario:  # a local scenario instead of a benchmark: cli/scenario_run.py
        return cmd_run_scenario(args)
    if not args.benchmark:
        fail("give --benchmark ID (`medassure benchmarks`) or --scenario ID (`medassure scenario list`)")
    try:
        spec = get_benchmark(args.benchmark)
        instances = load_instances(spec, args.dataset_file, limit=args.limit)
    except (BenchmarkError, DatasetError) as exc:
        fail(str(exc))
    endpoint = endpoint_from_args(args)
    try:
        api_key_for(endpoint)
    except LLMError as exc:
        fail(str(exc))
    store = open_store(args)
    try:
        return _run(args, store, spec, instances, endpoint)
    finally:
        store.close()


def _run(args: argparse.Namespace, store: Any, spec: Any, instances: list, endpoint: Any) -> int:
    from evaluator import PhiBlocked, RunRequest, estimate_run
    from governance import run_and_wait
    from governance.runs import RunInputError

    if args.dry_run:
        estimate = estimate_run(spec, instances, endpoint, store=store.journaled_runs, fresh=args.fresh,
                                batch=args.batch)
        head = {"dry_run": True, "benchmark": spec.id, "model": endpoint.model,
                **estimate.model_dump(mode="json")}
        blocked = _foreseen_phi_block(args, store, spec, instances, endpoint)
        if blocked is not None:
            say("dry run: the real run would be blocked by the PHI gate (nothing would be sent)")
            return phi_blocked(blocked, head)
        emit(head)
        return 0
    if args.batch and (args.max_cost is not None or (args.workers or 1) > 1):
        fail("--batch sends the run as one provider batch: it takes no --max-cost and no --workers "
             "(see the cost with --dry-run first)")
    if args.max_cost is not None and endpoint.price() is None:
        fail(
            f"no price known for {endpoint.model}; give --input-price and --output-price (USD per 1M tokens) "
            "to use --max-cost"
        )
    request = RunRequest(benchmark_id=spec.id, dataset_path=args.dataset_file, endpoint=endpoint,
                         concurrency=args.concurrency, max_cost_usd=args.max_cost, limit=args.limit,
                         workers=args.workers or 1, fresh=args.fresh, batch=args.batch)
    _attest_dataset(args, store)
    try:  # the app's job manager, waited for here: the same run (and stored request) as the page's
        summary = run_and_wait(store, request, ProgressBar(f"{spec.id} × {endpoint.model}"),
                               actor=cli_actor()).summary
    except RunInputError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        return interrupted_run()
    except PhiBlocked as exc:  # the PHI gate: nothing was sent
        return phi_blocked(exc.check, {"benchmark": spec.id, "model": endpoint.model})
    code = run_exit_code(summary)
    emit({**summary.model_dump(mode="json"), "transport": endpoint.transport,
          **_attach_to_dossier(args, store, summary, code)})
    return code


def _foreseen_phi_block(args: argparse.Namespace, store: Any, spec: Any, instances: list, endpoint: Any):
    """The PHI check that would stop the real run, or None when it would pass (nothing is recorded here).

    With ``--deidentified-by`` the real run records the attestation before the gate looks, so it passes.
    """
    from evaluator import benchmark_gate

    if attestation_input(args) is not None:
        if not args.dataset_file:
            fail("--deidentified-by attests a dataset file: give --dataset-file")
        say("dry run: the de-identification attestation would be recorded before the PHI gate looks")
        return None
    check = benchmark_gate(store, spec, instances, endpoint, args.dataset_file)
    return None if check.allowed else check


def _require_dossier(args: argparse.Namespace) -> None:
    """``--dossier`` names an existing dossier, checked before anything runs (else exit 2 naming it)."""
    from cli.attach import require_dossier

    store = open_store(args)
    try:
        require_dossier(store, args.dossier)
        if args.candidate:
            from governance.procurement import run_candidates

            choices = run_candidates(store.load(args.dossier).dossier)
            if args.candidate not in choices:
                fail(f"no candidate {args.candidate!r} in dossier {args.dossier}: nothing was run "
                     f"(candidates: {', '.join(choices) or 'none recorded'})")
    finally:
        store.close()


def _attach_to_dossier(args: argparse.Namespace, store: Any, summary: Any, code: int) -> dict[str, Any]:
    """With ``--dossier``: attach the completed run (``{"attached": ...}``); a stopped run is not attached."""
    from cli.attach import attach_run_to, who

    if not args.dossier:
        return {}
    if code != 0:
        say(f"run {summary.run_id} not attached to {args.dossier}: it did not complete with answers")
        return {"attached": None}
    return {"attached": attach_run_to(store, args.dossier, summary.run_id, who())}


def _attest_dataset(args: argparse.Namespace, store: Any) -> None:
    """Record ``--deidentified-by`` for the dataset file (and the dossier given), before the gate looks."""
    from governance.scenarios import DeidentificationError, attest_file

    given = attestation_input(args)
    if given is None:
        return
    if not args.dataset_file:
        fail("--deidentified-by attests a dataset file: give --dataset-file")
    try:
        recorded = attest_file(store, args.dataset_file, given, args.dossier, actor=cli_actor())
    except DeidentificationError as exc:
        fail(str(exc))
    say(f"recorded attestation {recorded.attestation_id}: {recorded.describe()}")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchmarks`` and ``run``."""
    p = sub.add_parser("benchmarks", help="the benchmarks MedAssure can run")
    add_format(p)
    p.set_defaults(func=cmd_benchmarks)

    p = sub.add_parser(
        "run", help="run a benchmark on a model (resumes an unfinished identical run)",
        description=f"{__doc__}\n{PHI_HELP}", formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--benchmark", help="benchmark id (see `medassure benchmarks`); or --scenario")
    p.add_argument("--dataset-file", help="dataset file in the benchmark's format (nothing is downloaded)")
    p.add_argument(
        "--model",
        required=True,
        help="litellm model string, e.g. gpt-4o, azure/<deployment>, "
        "openai/<name> with --api-base for vLLM/Ollama",
    )
    p.add_argument("--api-base", help="base URL of an OpenAI-compatible server or Azure resource")
    p.add_argument("--api-key-env", help="NAME of the environment variable holding the key")
    p.add_argument("--name", help="label for the endpoint (default: the model string)")
    p.add_argument("--candidate", metavar="NAME",
                   help="with --dossier: the candidate the run is for (a recorded candidate's id, or a "
                   "candidate model of the intended use); its evidence counts for it, whatever the "
                   "model string")
    p.add_argument("--concurrency", type=CONCURRENCY, default=8, help="requests in flight (default 8)")
    p.add_argument("--rpm", type=RPM, help="requests per minute to stay under")
    p.add_argument("--timeout", type=TIMEOUT, default=60.0, help="per-request timeout in seconds")
    p.add_argument("--max-cost", type=USD, help="stop before this run's new spending passes USD")
    p.add_argument("--input-price", type=PRICE, help="override: USD per 1M prompt tokens")
    p.add_argument("--output-price", type=PRICE, help="override: USD per 1M completion tokens")
    p.add_argument("--limit", type=LIMIT, help="first N instances only")
    p.add_argument(
        "--transport",
        choices=["litellm", "openai"],
        help="client for the calls (answers, prices and cache unchanged). Default: openai (the openai SDK, "
        "less CPU per call) for an openai/ or hosted_vllm/ model with --api-base, else litellm",
    )
    p.add_argument("--workers", type=WORKERS, default=1, help="processes making model calls (default 1)")
    p.add_argument("--dry-run", action="store_true", help="estimate tokens and cost; send nothing")
    p.add_argument("--batch", action="store_true",
                   help="send the requests as one Batch API job (OpenAI's files and batches endpoints), "
                        "priced at the batch rate; the batch id is stored, so an interrupted run polls it "
                        "again")
    p.add_argument("--fresh", action="store_true",
                   help="ask the model for every instance: no answer from the response cache and no earlier "
                   "run resumed (a vendor may change the model behind the same name and URL)")
    add_format(p)
    add_run_arguments(p)  # --scenario, --phi-approved, --dossier
    add_attestation_arguments(p)  # --deidentified-by, --deidentification-method (PHI gate)
    p.set_defaults(func=cmd_run)
