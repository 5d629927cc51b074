"""``medassure run --scenario ID``: run a local scenario, after the PHI gate.

Why its own module: ``cli.run`` owns ``medassure run`` for benchmarks; it registers
these options and hands over when ``--scenario`` is given. The PHI gate runs before anything is
sent: likely identifiers bound for an endpoint without ``--phi-approved``, in a version without a
recorded de-identification attestation (``--deidentified-by NAME --deidentification-method M``
records one for the version), print the explanation and exit 5 (``EXIT_PHI_BLOCKED``).
Otherwise the run works in the one job manager's background
thread (``evaluator.scenarios.run.start_scenario``, as on the page) and this waits for it; the
output is ``medassure run``'s summary plus the scenario, the PHI check and the subgroup table,
and exit codes are those of ``medassure run``.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli._common import VERSION, acting_name, cli_actor, emit, fail, open_store, require_role, say
from cli.run_support import (
    EXIT_PHI_BLOCKED,
    ProgressBar,
    attestation_input,
    endpoint_from_args,
    interrupted_run,
    phi_blocked,
    run_exit_code,
)

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

__all__ = ["EXIT_PHI_BLOCKED", "add_run_arguments", "cmd_run_scenario"]


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The ``--scenario`` options of ``medassure run``."""
    p.add_argument("--scenario",
                   help="run a local scenario (`medassure scenario list`) instead of a benchmark")
    p.add_argument("--scenario-version", type=VERSION, help="scenario version (default: the latest)")
    p.add_argument("--phi-approved", action="store_true",
                   help="the endpoint is approved for PHI (on-premises, or covered by an agreement)")
    p.add_argument("--dossier", help="attach the run's Evidence (with subgroups) to this dossier")


def cmd_run_scenario(args: argparse.Namespace) -> int:
    """PHI gate, then the ordinary runner; see the module docstring."""
    from evaluator import LLMError, api_key_for, scenario_gate
    from governance.scenarios import attest_scenario

    if args.benchmark or args.dataset_file:
        fail("--scenario replaces --benchmark and --dataset-file; give only one of them")
    for flag in ("concurrency", "limit"):
        if getattr(args, flag) is not None and getattr(args, flag) < 1:
            fail(f"--{flag} must be at least 1 (got {getattr(args, flag)})")
    endpoint = endpoint_from_args(args).model_copy(update={"phi_approved": args.phi_approved})
    store = open_store(args)
    try:
        scenarios = store.scenarios
        try:
            version = scenarios.get(args.scenario, args.scenario_version)
        except KeyError as exc:
            fail(str(exc.args[0]))
        instances = scenarios.instances(version.scenario_id, version.version)[:args.limit]
        given = attestation_input(args)
        if given is not None:
            recorded = attest_scenario(store, version, given, args.dossier, actor=cli_actor())
            say(f"recorded attestation {recorded.attestation_id}: {recorded.describe()}")
        check = scenario_gate(store, version, instances, endpoint)
        if not check.allowed:
            return phi_blocked(check, {"scenario_id": version.scenario_id, "version": version.version})
        try:
            api_key_for(endpoint)
        except LLMError as exc:
            fail(str(exc))
        return _run(args, store, version, instances, endpoint, check)
    finally:
        store.close()


def _run(args: argparse.Namespace, store: Any, version: Any, instances: list, endpoint: Any,
         check: Any) -> int:
    from evaluator import estimate_run, scenario_results, scenario_spec, start_scenario, wait_job
    from governance.scenarios import attach_scenario_run

    head = {"scenario_id": version.scenario_id, "version": version.version,
            "phi_check": check.model_dump(mode="json")}
    if args.dry_run:
        estimate = estimate_run(scenario_spec(version), instances, endpoint, store=store.journaled_runs)
        emit({"dry_run": True, "model": endpoint.model, **head, **estimate.model_dump(mode="json")})
        return 0
    require_role("editor", "run a local scenario (paid model calls)")
    bar = ProgressBar(f"{version.scenario_id} v{version.version} × {endpoint.model}")
    job = start_scenario(store, version.scenario_id, endpoint, version=version.version,
                         concurrency=args.concurrency, max_cost_usd=args.max_cost, limit=args.limit)
    try:
        progress = wait_job(job, bar)
    except KeyboardInterrupt:  # wait_job cancelled the job and waited for it
        return interrupted_run()
    if progress.summary is None:
        fail(f"the run stopped with an error: {progress.error}")
    summary = progress.summary
    out: dict[str, Any] = {**summary.model_dump(mode="json"), "transport": endpoint.transport, **head}
    results = scenario_results(store, summary.run_id) if summary.n else None
    if results is not None and results.unscored_note:
        out["unscored_note"] = results.unscored_note
        say(results.unscored_note)
    if summary.n_scored:
        out["subgroups"] = results.subgroups.json_rows()
        if args.dossier:
            by = acting_name()  # $MEDASSURE_USER, else the login name (as `run --dossier` for a benchmark)
            require_role("editor", "attach a scenario run as evidence", args.dossier)
            saved = store.update(args.dossier, lambda d: attach_scenario_run(store, d, summary.run_id, by=by),
                                 author=by, note=f"evidence: local scenario run {summary.run_id}")
            out["attached"] = {"dossier_id": saved.dossier.id, "version": saved.version}
    emit(out)
    return run_exit_code(summary)
