"""``medassure rules``, ``assess``, ``decide``, ``confirm-decision`` and ``signoff``: the committee's path.

Thin wrappers over ``governance.decision.committee``: load the latest version, apply one action, save a
new version as the acting person, print JSON. A refused action (rules already locked, a decision
without rationale, a sign-off before any decision or on a stale decision) exits 2 with the reason.
"""

from __future__ import annotations

import argparse
import sys

from cli._common import VERSION, acting_name, add_format, emit, fail, open_store, say
from cli.rules import add_rule_edit_arguments, edit_rules, print_rules
from governance.decision import DECISION_OUTCOMES, OUTCOME_LABELS, DecisionError
from governance.rules import PolicyError

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def _who(args: argparse.Namespace) -> str:
    return acting_name(args, "by")


def _save(store, dossier, author: str, note: str, *, identity=None, expected_hash: str | None = None):
    from governance.identity import save_as

    # checked in the operations and recorded as who acts: the given identity, else the command's own
    v = save_as(store, identity or _identity(author), dossier, note, expected_hash=expected_hash)
    say(f"dossier {dossier.id}: version {v.version} ({v.hash[:12]})")
    return v


def _identity(name: str):
    """Who the command acts as: the configured service identity, else ``name`` (local, unauthenticated)."""
    from governance.identity import command_line_identity, load_config

    return command_line_identity(name, load_config().service_identity)


def cmd_rules(args: argparse.Namespace) -> int:
    from governance import lock_rules, start_rules
    store = open_store(args)
    current = store.load(args.id)
    dossier = current.dossier
    edits: list[str] = []
    try:
        if args.init:
            dossier = start_rules(dossier, replace=args.replace)
        dossier, edits = edit_rules(args, dossier, _who(args))  # --remove, --add-score-rule (cli/rules.py)
        if args.lock:
            dossier = lock_rules(dossier, by=_who(args), note=args.note or "")
    except PolicyError as exc:
        fail(str(exc))
    if dossier is not current.dossier:
        steps = (("rules from defaults", args.init), *((e, True) for e in edits), ("rules locked", args.lock))
        action = " and ".join(a for a, on in steps if on)
        _save(store, dossier, _who(args), action, expected_hash=current.hash)
    policy = dossier.policy
    if args.format == "text":
        print_rules(policy)
        return 0
    emit(policy.model_dump(mode="json") if policy else {"rules": [], "lock": None, "changes": []})
    return 0


def cmd_assess(args: argparse.Namespace) -> int:
    from governance.decision import assessment_payload

    v = open_store(args).load(args.id, args.version)
    payload = {"dossier_id": v.dossier.id, "version": v.version, "hash": v.hash,
               **assessment_payload(v.dossier)}
    if args.format == "text":
        for row in payload["verdicts"]:
            where = " / ".join(x for x in (row["model"], row["benchmark"]) if x)
            sys.stdout.write(f"{row['verdict']:<14} {row['rule_id']:<36} {where}\n    {row['reason']}\n")
        rec = payload["recommendation"]
        sc, gc = payload["score_counts"], payload["gating_counts"]
        sys.stdout.write(f"\nScore verdicts: {sc['pass']} pass, {sc['fail']} fail, "
                         f"{sc['inconclusive']} inconclusive. "
                         f"Gating rules (counted apart): {gc['pass']} pass, {gc['fail']} fail, "
                         f"{gc['inconclusive']} inconclusive, {gc['not_applicable']} not applicable.\n")
        if payload["family"]:
            sys.stdout.write(f"{payload['family']['statement']}\n")
        if payload["preregistration"]:
            sys.stdout.write("Pre-registration: " + "\n    ".join(payload["preregistration"]) + "\n")
        sys.stdout.write(f"\nRecommendation: {OUTCOME_LABELS[rec['outcome']]} ({', '.join(rec['models'])})\n")
        shown = set()
        for line in rec["reasons"][1:]:
            shown.add(line.strip())
            sys.stdout.write(f"  - {line}\n")
        for cand in rec["candidates"]:
            for item in cand.get("to_settle", []):
                line = f"To settle for {cand['model']}: {item}"
                if line not in shown and item not in shown:  # the overall reasons may already say it
                    shown.add(line)
                    sys.stdout.write(f"  {line}\n")
    else:
        emit(payload)
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    from governance.decision import decide, signoffs_voided_by

    store = open_store(args)
    current = store.load(args.id)
    dossier = current.dossier
    roles = [r.strip() for r in args.roles.split(",")] if args.roles else None
    who = _identity(_who(args))
    try:
        dossier = decide(dossier, args.decision, args.rationale, args.condition or [], by=_who(args),
                         model=args.model, required_roles=roles, store=store, identity=who,
                         override_gaps=args.override_gaps)
    except DecisionError as exc:
        fail(f"decision not recorded: {exc}")
    voided = [{"role": r.role, "name": r.signoff.name}
              for r in signoffs_voided_by(current.dossier, dossier) if r.signoff is not None]
    v = _save(store, dossier, _who(args), f"decision: {args.decision}", identity=who,
              expected_hash=current.hash)
    if voided:  # a pipeline cannot be asked first (the Decision page asks): it is told, on stderr too
        say(f"note: the new decision voids {len(voided)} sign-off(s): "
            + "; ".join(f"{x['role']} ({x['name']})" for x in voided) + "; those roles must sign again")
    emit({"id": args.id, "version": v.version, "hash": v.hash,
          "decision": dossier.decision.model_dump(mode="json"), "signoffs_voided": voided})
    return 0


def cmd_signoff(args: argparse.Namespace) -> int:
    from governance.decision import changes_since_decision, sign, signoff_status

    store = open_store(args)
    current = store.load(args.id)
    who = _identity(args.name)
    try:
        dossier = sign(current.dossier, args.role, args.name, version_hash=current.hash, note=args.note or "",
                       identity=who, changed=changes_since_decision(store, current.dossier))
        if dossier.decision and args.role.strip() not in dossier.decision.required_roles:
            say(f"note: {args.role!r} is not among the required roles {dossier.decision.required_roles}; "
                "recorded as an additional sign-off")
        v = _save(store, dossier, args.name, f"sign-off: {args.role}", identity=who,
                  expected_hash=current.hash)
    except DecisionError as exc:  # a stale decision, a review plan that contradicts the use
        fail(f"sign-off not recorded: {exc}")
    emit({"id": args.id, "version": v.version, "hash": v.hash,
          "status": signoff_status(dossier).model_dump(mode="json")})
    return 0


def cmd_confirm_decision(args: argparse.Namespace) -> int:
    from governance.decision import changes_since_decision, confirm_decision

    store = open_store(args)
    current = store.load(args.id)
    who = _identity(_who(args))
    changed = changes_since_decision(store, current.dossier)
    try:
        dossier = confirm_decision(current.dossier, _who(args), args.reason, changed, identity=who)
    except DecisionError as exc:
        fail(f"decision not confirmed: {exc}")
    v = _save(store, dossier, _who(args), "decision confirmed: it still stands", identity=who,
              expected_hash=current.hash)
    emit({"id": args.id, "version": v.version, "hash": v.hash, "changed": changed,
          "confirmation": dossier.decision.confirmations[-1].model_dump(mode="json")})
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="show a dossier's acceptance rules; start them from defaults; lock them")
    p.add_argument("id", help="dossier id")
    p.add_argument("--init", action="store_true", help="start from the risk tier's default rules")
    p.add_argument("--replace", action="store_true", help="with --init: replace existing (unlocked) rules")
    p.add_argument("--lock", action="store_true", help="lock (pre-register) the rules now")
    p.add_argument("--note", help="note recorded with the lock")
    p.add_argument("--by", help="who acts (default $MEDASSURE_USER or the login name)")
    add_rule_edit_arguments(p)
    add_format(p)
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("assess", help="verdict of every rule for every candidate, and the recommendation")
    p.add_argument("id", help="dossier id")
    p.add_argument("--version", type=VERSION, help="a past version (default: latest)")
    add_format(p)
    p.set_defaults(func=cmd_assess)

    p = sub.add_parser("decide", help="record the committee's decision (new version)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--decision", required=True, choices=list(DECISION_OUTCOMES))
    p.add_argument("--rationale", required=True, help="why, in the committee's words")
    p.add_argument("--condition", action="append", help="a condition of approval (repeatable)")
    p.add_argument("--model", help="the candidate decided on, as named in the evidence")
    p.add_argument("--roles", help="comma-separated roles that must sign off (default from data/policies)")
    p.add_argument("--by", help="who records the decision (default $MEDASSURE_USER or the login name)")
    p.add_argument("--override-gaps", metavar="REASON",
                   help="approve although checklist items are missing (cost, review or monitoring plan, "
                        "locked rules, evidence); the reason is recorded on the decision. A reject "
                        "needs none")
    add_format(p)
    p.set_defaults(func=cmd_decide)

    p = sub.add_parser("confirm-decision", help="the chair confirms the decision still stands after what "
                       "it rests on changed (new version; signing is refused until then)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--reason", required=True, help="why the decision still stands (at least 10 characters)")
    p.add_argument("--by", help="who confirms, the chair (default $MEDASSURE_USER or the login name)")
    add_format(p)
    p.set_defaults(func=cmd_confirm_decision)

    p = sub.add_parser("signoff", help="sign off the dossier as it is now, for one role (new version)")
    p.add_argument("id", help="dossier id")
    p.add_argument("--role", required=True, help="e.g. 'clinical lead'")
    p.add_argument("--name", required=True, help="who signs")
    p.add_argument("--note", help="optional remark")
    add_format(p)
    p.set_defaults(func=cmd_signoff)
