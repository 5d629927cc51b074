"""``medassure reevaluate ID``: re-run a decided dossier's frozen plan after a model or prompt change.

For pipelines: a vendor ships a new model version or a team edits the prompt, and CI asks
whether the committee's decision still stands. Thin wrapper over
``governance.reevaluation.operations.job.reevaluate_and_wait`` (the job manager's background re-evaluation,
waited for): parse the change, re-run (the model is asked again: a re-evaluation never reads an answer
recorded before it started), save the addendum
as a new dossier version, print JSON. Exit codes: 0 no verdict changed (estimates that crossed a
threshold without flipping a verdict are reported, not failed), 3 a verdict flipped or a rule now
fails, 2 bad input or a re-evaluation that could not be done (nothing is saved then), 5 blocked by
the PHI gate before anything was sent (an endpoint not approved for PHI and no de-identification
attestation for the cases; see ``medassure run --help``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import (
    CONCURRENCY,
    PRICE,
    acting_name,
    actor_named,
    add_format,
    emit,
    fail,
    open_store,
    say,
)
from cli.run_support import phi_blocked

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).

EXIT_FLIPPED = 3


def _change(args: argparse.Namespace):
    from pydantic import ValidationError

    from governance.reevaluation import PlanChange, ReevaluationError, read_prompt_file

    prompt: dict[str, str] = {}
    if args.prompt_file:
        try:
            prompt = read_prompt_file(args.prompt_file)
        except ReevaluationError as exc:
            fail(str(exc))
    try:
        return PlanChange(model=args.model, api_base=args.api_base, api_key_env=args.api_key_env,
                          phi_approved=True if args.phi_approved else None, transport=args.transport,
                          input_price_per_mtok=args.input_price, output_price_per_mtok=args.output_price,
                          **prompt)
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))


def payload(result: Any) -> dict[str, Any]:
    """The JSON contract of ``medassure reevaluate`` for one result.

    Example:
        >>> sorted(payload(result))[:3]  # doctest: +SKIP
        ['addendum_id', 'benchmarks', 'cache_hits']
    """
    a, v = result.addendum, result.version
    benchmarks = [{
        "benchmark": c.benchmark, "kind": c.kind, "metric": c.metric, "candidate": c.candidate,
        "run_before": c.run_before, "run_after": c.run_after, "model_before": c.model_before,
        "model_after": c.model_after, "n_pairs": c.n_pairs, "mean_before": c.mean_before,
        "mean_after": c.mean_after, "mean_delta": c.mean_delta,
        "delta_ci": list(c.delta_ci) if c.delta_ci else None, "mcnemar_p": c.mcnemar_p,
        "flipped": {"worse": c.worse, "better": c.better},
        "verdict_before": c.verdicts_before, "verdict_after": c.verdicts_after,
        "subgroups": [s.model_dump(mode="json") for s in c.subgroups],
        "new_requests": c.new_requests, "cache_hits": c.cache_hits,
        "baseline_reproduced": c.baseline_reproduced,
        "served_before": [i.model_dump(mode="json") for i in c.served_before],
        "served_after": [i.model_dump(mode="json") for i in c.served_after],
        "served_identity_changed": c.served_identity_changed,
    } for c in a.comparisons]
    return {
        "dossier_id": v.dossier.id, "addendum_id": a.id, "change": a.change.model_dump(mode="json"),
        "based_on_version": a.based_on_version, "benchmarks": benchmarks, "skipped": a.skipped,
        "verdicts_compared": a.verdicts_compared,
        "verdict_changes": [c.model_dump(mode="json") for c in a.verdict_changes],
        "verdicts_flipped": a.verdicts_flipped, "decision_would_change": a.impact.would_change,
        "decision_why": a.impact.why, "recommended_before": a.impact.recommended_before,
        "recommended_after": a.impact.recommended_after, "new_requests": a.new_requests,
        "cache_hits": a.cache_hits, "new_version": v.version, "new_version_hash": v.hash,
        "caveats": a.caveats, "served_identity_changed": a.served_identity_changed,
    }


def _text(data: dict[str, Any]) -> None:
    out = sys.stdout
    out.write(f"Re-evaluation {data['addendum_id']} of {data['dossier_id']} "
              f"(version {data['new_version']})\n")
    for b in data["benchmarks"]:
        delta = "n/a" if b["mean_delta"] is None else f"{b['mean_delta']:+.3f}"
        out.write(f"  {b['benchmark']}: n={b['n_pairs']} delta {delta}, worse {len(b['flipped']['worse'])}, "
                  f"better {len(b['flipped']['better'])}\n")
    for c in data["verdict_changes"]:
        out.write(f"  {c['rule_id']}: {c['before']} -> {c['after']}{' (crossed)' if c['crossed'] else ''}\n")
    for b in data["benchmarks"]:
        if b["served_identity_changed"]:
            out.write(f"  {b['benchmark']}: another served model answered: "
                      f"{_served(b['served_before'])} -> {_served(b['served_after'])}\n")
    answer = "YES" if data["decision_would_change"] else "no"
    out.write(f"Would this change the decision? {answer}. {data['decision_why'][0]}\n")


def _served(identities: list[dict[str, Any]]) -> str:
    return "; ".join(f"{i['model'] or '?'} ({i['system_fingerprint'] or 'no fingerprint'})"
                     for i in identities) or "none recorded"


def cmd_reevaluate(args: argparse.Namespace) -> int:
    from evaluator import PhiBlocked
    from governance.dossier import DossierNotFound
    from governance.reevaluation import ReevaluationError, reevaluate_and_wait

    if args.concurrency < 1:
        fail(f"--concurrency must be at least 1 (got {args.concurrency})")
    change = _change(args)
    store = open_store(args)
    last: list[int] = []

    def progress(done: int, total: int, _row: Any = None) -> None:
        decile = int(10 * done / total) if total else 10
        if last != [decile]:
            last[:] = [decile]
            say(f"re-evaluation of {args.id}: {done}/{total}")

    try:  # the one job manager (as the page), waited for here
        result = reevaluate_and_wait(store, args.id, change, actor=actor_named(args.by or _who()),
                                     concurrency=args.concurrency, on_progress=progress)
    except (ReevaluationError, DossierNotFound) as exc:
        if isinstance(exc, PhiBlocked):  # the PHI gate: nothing was sent
            return phi_blocked(exc.check, {"dossier_id": args.id})
        fail(f"re-evaluation not done: {exc}")
    finally:
        store.close()
    data = payload(result)
    say(f"dossier {args.id}: version {data['new_version']} holds re-evaluation {data['addendum_id']}; "
        f"{data['new_requests']} request(s) sent, {data['cache_hits']} answered from the cache")
    for b in data["benchmarks"]:
        if b["served_identity_changed"]:
            say(f"{b['benchmark']}: the answers came from another served model than the decided run's: "
                f"{_served(b['served_before'])} -> {_served(b['served_after'])}")
    if args.format == "text":
        _text(data)
    else:
        emit(data)
    return EXIT_FLIPPED if result.addendum.verdicts_flipped else 0


def _who() -> str:
    return acting_name()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reevaluate", help="re-run a decided dossier's frozen evidence plan with a changed "
                                          "model or prompt; exit 3 when a verdict flips")
    p.add_argument("id", help="dossier id")
    p.add_argument("--model", help="new litellm model string (default: as frozen)")
    p.add_argument("--api-base", help="new server URL (default: as frozen)")
    p.add_argument("--api-key-env", help="NAME of the environment variable holding the new endpoint's key")
    p.add_argument("--prompt-file", help="new prompt: a text file (user template) or YAML/JSON with "
                                         "prompt_template and/or system_prompt")
    p.add_argument("--transport", choices=["litellm", "openai"],
                   help="client for the calls (answers unchanged)")
    p.add_argument("--input-price", type=PRICE, help="new model's USD per 1M prompt tokens")
    p.add_argument("--output-price", type=PRICE, help="new model's USD per 1M completion tokens")
    p.add_argument("--phi-approved", action="store_true", help="the new endpoint is approved for PHI")
    p.add_argument("--concurrency", type=CONCURRENCY, default=8,
                   help="requests in flight at most (default 8)")
    p.add_argument("--by", help="who runs it (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_reevaluate)
