"""``medassure jury`` and ``medassure agreement``: judge a run; check the judges against clinicians.

Thin wrappers: ``jury`` loads the run's instances (the run records only their hash, so the
dataset file is needed unless the benchmark is built in; a local scenario's run reads the stored
version's cases and judges its free-text ones, no file needed), builds the jury (judges from
``--judges``, else the benchmark's jury block, else the default vendor trio) with a ``--method``
(``medhelm``: MedHELM's arithmetic as the medhelm 0.8.0 package computes it, the default on MedHELM's
own benchmarks; ``helm-0.5``: crfm-helm 0.5.16's, for older leaderboards; ``strict``: ours, the
default on local scenarios; the JSON's ``method`` and ``method_version`` say which, ``by_method`` gives
each; docs/statistics.md has the differences) and runs it through
``evaluator.jury.panel`` as a job of the one job manager (``evaluator.runs.jobs``), waited for
with a progress bar on stderr. ``agreement`` reads two ratings CSVs (or a
stored jury) and prints, per dataset and ``ALL``, the figures of ``evaluator.agreement.analysis``.
Exit codes: 0 done; 2 bad input; 3 the jury stopped early (budget or interrupt; run it again,
the cache keeps what was paid for); 4 no instance could be scored; 5 blocked by the PHI gate: the
judges read the cases *and* the model's outputs, so both are scanned and nothing is sent unless
every judge is approved for PHI (``--phi-approved``) or the run's cases carry a de-identification
attestation (recorded earlier, or here with ``--deidentified-by``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import (
    CONCURRENCY,
    N_BOOT,
    USD,
    add_format,
    cli_actor,
    emit,
    fail,
    open_store,
    require_role,
    say,
)
from cli.run_support import (
    PHI_HELP,
    ProgressBar,
    add_attestation_arguments,
    attestation_input,
    phi_blocked,
)

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

EXIT_STOPPED, EXIT_NONE_SCORED = 3, 4


def _names(text: str | None) -> list[str] | None:
    return [n.strip() for n in text.split(",") if n.strip()] if text else None


def _jury_inputs(args: argparse.Namespace, store: Any) -> tuple[Any, Any]:
    from evaluator import BenchmarkError, DatasetError, JuryError, LLMError, api_key_for, jury_config_for
    from governance.runs import jury_cases

    run = store.journaled_runs.get_run(args.run)
    if run is None:
        fail(f"no run {args.run!r} in this database")
    if str(run["benchmark_id"]).startswith("jury:"):
        fail(f"{args.run} is a judge run; give the run of the model being judged")
    try:
        cases = jury_cases(store, run, args.dataset_file)
        if cases.scenario and args.dataset_file:
            say(f"note: {args.run} is a run of local scenario {cases.scenario['scenario_id']} version "
                f"{cases.scenario['version']}; its stored cases are judged, --dataset-file is not read")
        config = jury_config_for(cases.spec, _names(args.judges), args.api_base, args.api_key_env,
                                 args.concurrency, method=args.method)
        if args.phi_approved:  # the judges' endpoints are approved for PHI
            config = config.model_copy(update={"judges": tuple(j.model_copy(update={"phi_approved": True})
                                                               for j in config.judges)})
        for judge in config.judges:
            api_key_for(judge)
    except (BenchmarkError, DatasetError, JuryError, LLMError) as exc:
        fail(str(exc))
    return cases, config


def _run_attestation(store: Any, args: argparse.Namespace) -> Any:
    """The attestation covering the judged run's cases: recorded now (``--deidentified-by``) or before."""
    from evaluator import run_attestation
    from governance.scenarios import DeidentificationError, attest_file, attest_scenario

    given = attestation_input(args)
    if given is None:
        return run_attestation(store, args.run, args.dataset_file)
    scenario = (store.runs.stored_request(run_id=args.run) or {}).get("scenario") or {}
    try:
        if args.dataset_file:
            recorded = attest_file(store, args.dataset_file, given, actor=cli_actor())
        elif scenario.get("scenario_id"):
            version = store.scenarios.get(scenario["scenario_id"], scenario.get("version"))
            recorded = attest_scenario(store, version, given, actor=cli_actor())
        else:
            fail("--deidentified-by attests the run's dataset file: give --dataset-file")
    except (DeidentificationError, KeyError) as exc:
        fail(str(exc))
    say(f"recorded attestation {recorded.attestation_id}: {recorded.describe()}")
    return recorded


def _judge_in_background(store: Any, args: argparse.Namespace) -> Any:
    """The jury pass through its operation (``start_jury``, as the page starts it), waited for with a
    progress bar on stderr (the inputs were checked by ``_jury_inputs`` first, for clear errors)."""
    from evaluator import JuryError, PhiBlocked, wait_job
    from governance.runs import JuryRequest, JuryRunError, start_jury

    _run_attestation(store, args)  # a --deidentified-by attestation is recorded before the gate looks
    request = JuryRequest(run_id=args.run, judges=tuple(_names(args.judges)), api_base=args.api_base,
                          api_key_env=args.api_key_env, dataset_path=args.dataset_file,
                          concurrency=args.concurrency, max_cost_usd=args.max_cost,
                          phi_approved=bool(args.phi_approved), method=args.method, batch=args.batch)
    try:
        job = start_jury(store, request, actor=cli_actor())
    except JuryRunError as exc:
        fail(str(exc))
    progress = wait_job(job, ProgressBar(f"jury {args.run}"))
    if isinstance(job.exception, JuryError | JuryRunError):
        fail(str(job.exception))
    if isinstance(job.exception, PhiBlocked):  # nothing was sent, no jury recorded
        raise job.exception
    if progress.state == "error":
        fail(f"the jury stopped with an error: {progress.error}")
    return progress.result


def cmd_jury(args: argparse.Namespace) -> int:
    if args.concurrency < 1:
        fail(f"--concurrency must be at least 1 (got {args.concurrency})")
    if args.max_cost is not None and args.max_cost <= 0:
        fail(f"--max-cost must be positive (got {args.max_cost})")
    if args.batch and args.max_cost is not None:
        fail("--batch sends the judge requests as provider batches: it takes no --max-cost")
    from evaluator import PhiBlocked

    require_role("editor", "start a jury (paid judge calls)")
    store = open_store(args)
    try:
        _jury_inputs(args, store)
        summary = _judge_in_background(store, args)
    except PhiBlocked as exc:
        return phi_blocked(exc.check, {"run": args.run})
    finally:
        store.close()
    doc = summary.model_dump(mode="json", exclude=None if args.instances else {"instances"})
    if args.format == "text":
        mean = (
            "n/a"
            if summary.mean is None
            else f"{summary.mean:.2f} (normalized {summary.normalized_mean:.2f})"
        )
        version = f", {summary.method_version}" if summary.method_version else ""
        sys.stdout.write(
            f"{summary.jury_id}: jury score {mean} ({summary.method} method{version}); "
            f"scored {summary.n_scored}, "
            f"unscored {summary.n_unscored}, judges disagree on {summary.n_flagged}\n"
        )
        if summary.methods_differ:
            for f in summary.by_method.values():
                shown = "n/a" if f.mean is None else f"{f.mean:.2f}"
                sys.stdout.write(f"  {f.method}: {shown} over {f.n_in_mean}; {f.n_unscored} without a valid "
                                 f"judgement, {f.treatment}\n")
    else:
        emit(doc)
    if summary.status != "completed":
        from evaluator import RESENT_NOTE

        say(f"jury {summary.jury_id} stopped: {summary.status}; run the same command again to resume "
            f"({RESENT_NOTE})")
        return EXIT_STOPPED
    if summary.n and not summary.n_scored:
        say(f"no instance could be scored: {summary.unscored_reasons}")
        return EXIT_NONE_SCORED
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    import pandas as pd

    from evaluator import RatingsError
    from governance.judge_validity import assess_judge_validity

    if bool(args.jury) == bool(args.jury_id):
        fail("give the jury's ratings with exactly one of --jury FILE or --jury-id ID")
    store = open_store(args) if args.jury_id else None
    try:
        outputs = pd.read_csv(args.outputs, dtype=str, keep_default_na=False) if args.outputs else None
        view = assess_judge_validity(
            store.juries if store else None,
            args.clinicians,
            jury=args.jury,
            jury_id=args.jury_id,
            outputs=outputs,
            datasets=_names(args.datasets),
            bertscore=args.bertscore,
            n_boot=args.n_boot,
        )
    except (RatingsError, OSError, pd.errors.ParserError) as exc:
        fail(str(exc))
    finally:
        if store:
            store.close()
    for note in view.report.notes:
        say(f"note: {note}")
    if args.format == "text":
        for name, row in view.report.as_cli().items():
            ci = row["icc3k_z_ci"]
            shown = (
                "n/a"
                if row["icc3k_z"] is None
                else f"{row['icc3k_z']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")
            )
            sys.stdout.write(f"{name:<20} n={row['n_instances']:<5} ICC(3,k) z {shown}\n")
    else:
        emit(view.report.as_cli())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``jury`` and ``agreement``."""
    p = sub.add_parser("jury", help="score a run's free-text responses with an LLM jury",
                       description=f"{__doc__}\n{PHI_HELP}",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--run", required=True, help="id of the run whose responses are judged")
    p.add_argument(
        "--judges",
        help="comma-separated litellm model strings, at least 3 (default: the benchmark's "
        "jury, else OpenAI + Anthropic + Llama 3.3 70B)",
    )
    p.add_argument("--api-base", help="one OpenAI-compatible server for all judges (e.g. vLLM on premises)")
    p.add_argument("--api-key-env", help="NAME of the environment variable holding the judges' key")
    p.add_argument(
        "--dataset-file",
        help="the dataset file the run was made on (not needed for built-in ones or local scenarios)"
    )
    p.add_argument("--method", choices=("medhelm", "helm-0.5", "strict"),
                   help="medhelm: MedHELM's arithmetic as the medhelm 0.8.0 package computes it (no valid "
                        "judgement counts 1.0, judges get 4,096 tokens; default for MedHELM's benchmarks); "
                        "helm-0.5: crfm-helm 0.5.16's (scores truncated to integers), for comparison with "
                        "older leaderboards; strict: ours (unscored and left out; default for local "
                        "scenarios). All are reported; the JSON's method_version names the version")
    p.add_argument("--concurrency", type=CONCURRENCY, default=8, help="judge requests in flight (default 8)")
    p.add_argument("--max-cost", type=USD, help="stop before the jury's new spending passes USD")
    p.add_argument("--instances", action="store_true", help="include the per-instance breakdown in the JSON")
    p.add_argument("--batch", action="store_true",
                   help="send each judge's requests as one Batch API job, priced at the batch rate")
    p.add_argument("--phi-approved", action="store_true",
                   help="the judges' endpoints are approved for PHI (on premises, or under an agreement)")
    add_attestation_arguments(p)
    add_format(p)
    p.set_defaults(func=cmd_jury)

    p = sub.add_parser(
        "agreement", help="agreement of jury ratings with clinician ratings (ICC, ρ, κ)", description=__doc__
    )
    p.add_argument(
        "--clinicians", required=True, help="CSV: instance_id, rater, <criteria…>, optional dataset"
    )
    p.add_argument("--jury", help="CSV of the jury's ratings in the same format (rater = judge)")
    p.add_argument("--jury-id", help="a stored jury instead of --jury (see `medassure jury`)")
    p.add_argument("--datasets", help="comma-separated datasets to keep; ALL then pools only these")
    p.add_argument(
        "--outputs",
        help="CSV: instance_id, response, reference (optional dataset) for the "
        "ROUGE-L/BERTScore-F1 baselines",
    )
    p.add_argument("--bertscore", action="store_true", help="also compare BERTScore-F1 (loads MiniLM once)")
    p.add_argument("--n-boot", type=N_BOOT, default=1000, help="bootstrap resamples for κ's interval")
    add_format(p)
    p.set_defaults(func=cmd_agreement)
