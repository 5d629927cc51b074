"""``medassure grade``: grade a local-scenario run's free-text responses against each case's rubric.

One grader call per criterion, HealthBench's rule (docs/grading.md): a case scores the points of the
criteria met over the sum of its positive points (harms can take it below 0); the overall ``score`` is
the mean over cases clipped to [0, 1], with its bootstrap standard deviation; ``by_tag`` scores each
rubric tag on the criteria carrying it. With several graders (``--grader A,B,C``) a criterion is met
when most say so; a tie counts against the response. A grader reply that cannot be read is counted
(``n_unparsed``) and named (``unparsed``), never scored as met; a case with a criterion that no grader
answered readably is left out of the mean and counted (``n_unscored``). Exit codes: 0 done; 2 bad
input; 3 stopped early (run it again: replies already paid for come from the cache); 4 no case could
be scored; 5 blocked by the PHI gate (the graders read the cases and the outputs).
"""

from __future__ import annotations

import argparse
import sys

from cli._common import CONCURRENCY, add_format, cli_actor, emit, fail, open_store, require_role, say
from cli.run_support import PHI_HELP, ProgressBar, add_attestation_arguments, attestation_input, phi_blocked

EXIT_STOPPED, EXIT_NONE_SCORED = 3, 4


def _attestation(store, args: argparse.Namespace):
    """An attestation recorded now for the run's scenario version (``--deidentified-by``), or None."""
    from governance.scenarios import DeidentificationError, attest_scenario

    given = attestation_input(args)
    if given is None:
        return None
    version = store.scenarios.version_of_run(args.run)
    if version is None:
        fail(f"run {args.run} is not a local-scenario run")
    try:
        recorded = attest_scenario(store, version, given, actor=cli_actor())
    except DeidentificationError as exc:
        fail(str(exc))
    say(f"recorded attestation {recorded.attestation_id}: {recorded.describe()}")
    return recorded


def _text(result) -> str:
    shown = "n/a" if result.score is None else f"{result.score:.3f}"
    spread = "" if result.bootstrap_std is None else f" (bootstrap SD {result.bootstrap_std:.3f})"
    lines = [
        f"{result.grading_id}: score {shown}{spread} over {result.n} of {result.n_cases} cases; "
        f"{result.n_unscored} unscored, {result.n_unparsed} unreadable grader replies"
    ]
    lines += [f"  {tag}: {t.score:.3f} (n={t.n})" for tag, t in result.by_tag.items()]
    return "\n".join(lines) + "\n"


def cmd_grade(args: argparse.Namespace) -> int:
    from evaluator import GradingError, PhiBlocked
    from governance.scenarios import GradeRequest, grade_scenario_run

    graders = tuple(g.strip() for g in args.grader.split(",") if g.strip())
    if not graders:
        fail("--grader: name at least one grader model")
    require_role("editor", "grade a run against its rubrics (paid grader calls)")
    store = open_store(args)
    try:
        request = GradeRequest(
            run_id=args.run,
            graders=graders,
            api_base=args.api_base,
            api_key_env=args.api_key_env,
            concurrency=args.concurrency,
            phi_approved=args.phi_approved,
            batch=args.batch,
        )
        result = grade_scenario_run(
            store,
            request,
            actor=cli_actor(),
            on_progress=ProgressBar(f"grade {args.run}"),
            attestation=_attestation(store, args),
        )
    except GradingError as exc:
        fail(str(exc))
    except PhiBlocked as exc:  # nothing was sent, no grading recorded
        return phi_blocked(exc.check, {"run": args.run})
    finally:
        store.close()
    if args.format == "text":
        sys.stdout.write(_text(result))
    else:
        emit(result)
    if result.status != "completed":
        say(
            f"grading {result.grading_id} stopped: {result.status}; run the same command again (grader "
            "replies "
            "already paid for come from the cache)"
        )
        return EXIT_STOPPED
    if not result.n:
        say(f"no case could be scored: {sorted({c.unscored_reason for c in result.per_case})}")
        return EXIT_NONE_SCORED
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``grade``."""
    p = sub.add_parser(
        "grade",
        help="grade a scenario run's free-text responses against the cases' rubrics",
        description=f"{__doc__}\n{PHI_HELP}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--run", required=True, help="id of the local-scenario run whose responses are graded")
    p.add_argument(
        "--grader",
        required=True,
        help="grader model (litellm model string), or several separated by commas (majority vote)",
    )
    p.add_argument("--api-base", help="one OpenAI-compatible server for all graders (e.g. vLLM on premises)")
    p.add_argument("--api-key-env", help="NAME of the environment variable holding the graders' key")
    p.add_argument("--concurrency", type=CONCURRENCY, default=8, help="grader requests in flight (default 8)")
    p.add_argument(
        "--phi-approved",
        action="store_true",
        help="the graders' endpoints are approved for PHI (on premises, or under an agreement)",
    )
    p.add_argument("--batch", action="store_true",
                   help="send each grader's requests as one Batch API job, priced at the batch rate")
    add_attestation_arguments(p)
    add_format(p)
    p.set_defaults(func=cmd_grade)
