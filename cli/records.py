"""``medassure mapping``, ``cost`` and ``oversight``: what an approval needs, recorded from the command line.

Before these, a CLI-only pipeline could not record the task mapping, a cost profile or the review and
monitoring plan, so an approval needed ``decide --override-gaps``. Each command loads the latest
version, applies one pure function of the dossier (``record_mapping``, ``with_token_profile``,
``derive_plan`` / ``edit_plan``), and saves through the operations (``save_as``: the authorization
check, the acting person as author). Repeating a command with the same values saves nothing
(``"changed": false``). Bad input exits 2 with one line, and nothing is stored.
"""

from __future__ import annotations

import argparse
from typing import Any

from cli._common import add_format, emit, fail, open_store, say
from cli.policy import _save, _who

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def _saved(store: Any, before: Any, dossier: Any, by: str, note: str) -> tuple[Any, bool]:
    """Save when something changed; the version the dossier is at, and whether a new one was made."""
    if dossier is before.dossier or dossier == before.dossier:
        say(f"dossier {before.dossier.id}: unchanged (version {before.version})")
        return before, False
    return _save(store, dossier, by, note), True


def _head(v: Any, changed: bool) -> dict[str, Any]:
    return {"id": v.dossier.id, "version": v.version, "hash": v.hash, "changed": changed}


def cmd_mapping(args: argparse.Namespace) -> int:
    from governance.mapping import TaxonomyError, mapping_lines, record_mapping

    store = open_store(args)
    before = store.load(args.id)
    dossier, by = before.dossier, _who(args)
    both = set(args.accept or []) & set(args.reject or [])
    if both:
        fail(f"a subcategory cannot be both accepted and rejected: {', '.join(sorted(both))}")
    try:
        for status, ids in (("accepted", args.accept or []), ("rejected", args.reject or [])):
            for sub_id in ids:
                dossier = record_mapping(dossier, sub_id, status, by=by, note=args.note or "")
    except TaxonomyError as exc:
        fail(f"{exc} (`medassure taxonomy` lists them); nothing was saved")
    decided = [*(f"accepted {s}" for s in args.accept or []), *(f"rejected {s}" for s in args.reject or [])]
    v, changed = _saved(store, before, dossier, by, "mapping: " + "; ".join(decided)) if decided else (
        before, False)
    lines = mapping_lines(v.dossier)
    if args.format == "text":
        for line in lines:
            print(f"{line.status:<9} {line.subcategory_id:<40} {line.subcategory} ({line.by})")
        return 0
    emit({**_head(v, changed), "accepted": list(v.dossier.mapping.accepted),
          "decisions": [line.model_dump() for line in lines]})
    return 0


def _price_model(dossier: Any, model: str) -> str:
    """What a candidate's price is looked up as: the model string its runs called, else its own name."""
    called = [e.endpoint_model for e in dossier.evidence if e.model == model and e.endpoint_model]
    return called[0] if called else model


def cmd_cost(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from governance.procurement import TokenProfile, cost_report, run_token_profile, with_token_profile

    store = open_store(args)
    before = store.load(args.id)
    dossier, by = before.dossier, _who(args)
    models = list(dict.fromkeys(e.model for e in dossier.evidence))
    if args.model not in models:
        fail(f"no evidence names {args.model!r} in {args.id}: a cost profile is for a candidate as the "
             f"evidence names it ({', '.join(models) or 'no evidence attached yet'}); nothing was saved")
    price_model = args.price_model or _price_model(dossier, args.model)
    given = (args.prompt_tokens, args.completion_tokens)
    if (given[0] is None) != (given[1] is None):
        fail("give both --prompt-tokens and --completion-tokens, or neither (then the dossier's own runs "
             "of the candidate are measured)")
    prices = {"input_price_per_mtok": args.input_price, "output_price_per_mtok": args.output_price}
    try:
        if given[0] is None:
            measured = run_token_profile(store, dossier, args.model, price_model)
            if measured is None:
                fail(f"no run of {args.model} in {args.id} carries token counts: give --prompt-tokens and "
                     "--completion-tokens; nothing was saved")
            profile = measured.model_copy(update={k: v for k, v in prices.items() if v is not None})
            if args.source:
                profile = profile.model_copy(update={"source": args.source})
        else:
            profile = TokenProfile(model=args.model, price_model=price_model, mean_prompt_tokens=given[0],
                                   mean_completion_tokens=given[1],
                                   source=args.source or f"given on the command line by {by}", **prices)
        profile = TokenProfile.model_validate(profile.model_dump())
    except ValidationError as exc:
        fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
    v, changed = _saved(store, before, with_token_profile(dossier, profile), by,
                        f"cost: token profile for {args.model}")
    report = cost_report(v.dossier)
    rows = [r.model_dump(mode="json") for r in report.rows if r.model == args.model]
    emit({**_head(v, changed), "profile": profile.model_dump(mode="json"), "cost": rows})
    return 0


def cmd_oversight(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from governance.decision import derive_plan, edit_plan

    store = open_store(args)
    before = store.load(args.id)
    dossier, by = before.dossier, _who(args)
    if args.model is not None and args.model not in {e.model for e in dossier.evidence}:
        fail(f"no evidence names {args.model!r} in {args.id}; nothing was saved")
    if dossier.oversight is None or args.derive:
        dossier = derive_plan(dossier, model=args.model)
    edits = {"review": {"reviewer": args.reviewer, "qa_sample_rate": args.qa_sample_rate},
             "monitoring": {"owner": args.owner, "schedule_months": args.schedule_months}}
    edits = {part: {k: x for k, x in fields.items() if x is not None} for part, fields in edits.items()}
    plan = dossier.oversight
    if any(edits.values()):
        try:
            review = type(plan.review).model_validate({**plan.review.model_dump(), **edits["review"]})
            monitoring = type(plan.monitoring).model_validate({**plan.monitoring.model_dump(),
                                                               **edits["monitoring"]})
        except ValidationError as exc:
            fail("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()))
        if (review, monitoring) != (plan.review, plan.monitoring):
            dossier = edit_plan(dossier, review, monitoring, by=by)
    v, changed = _saved(store, before, dossier, by, "review and monitoring plan recorded")
    emit({**_head(v, changed), "oversight": v.dossier.oversight.model_dump(mode="json")})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mapping", help="accept or reject taxonomy subcategories for a dossier; list them")
    p.add_argument("id", help="dossier id")
    p.add_argument("--accept", action="append", metavar="SUBCATEGORY", help="subcategory id to accept "
                   "(repeatable; `medassure taxonomy` lists them)")
    p.add_argument("--reject", action="append", metavar="SUBCATEGORY", help="subcategory id to reject")
    p.add_argument("--note", help="the reason, kept with each decision")
    p.add_argument("--by", help="who decides (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_mapping)

    p = sub.add_parser("cost", help="record a candidate's token profile (the cost inputs)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--model", required=True, help="the candidate as the evidence names it")
    p.add_argument("--price-model", help="litellm model string the price is looked up as (default: the "
                   "model string its runs called, else --model)")
    p.add_argument("--prompt-tokens", type=float, help="mean prompt tokens per request (default: measured "
                   "from the dossier's own runs of the candidate)")
    p.add_argument("--completion-tokens", type=float, help="mean completion tokens per request")
    p.add_argument("--input-price", type=float, help="override: USD per 1M prompt tokens actually paid")
    p.add_argument("--output-price", type=float, help="override: USD per 1M completion tokens actually paid")
    p.add_argument("--source", help="where the token means come from")
    p.add_argument("--by", help="who records it (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_cost)

    p = sub.add_parser("oversight", help="record the review and monitoring plan (derived from the tier and "
                       "the verdicts, then edited)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--model", help="the candidate the plan is for (default: the decision's, if any)")
    p.add_argument("--derive", action="store_true", help="derive the plan again, replacing the recorded one")
    p.add_argument("--reviewer", help="who reviews outputs")
    p.add_argument("--qa-sample-rate", type=float, help="share of outputs audited afterwards (0-1)")
    p.add_argument("--owner", help="who owns monitoring")
    p.add_argument("--schedule-months", type=int, help="months between re-evaluations")
    p.add_argument("--by", help="who records it (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_oversight)
