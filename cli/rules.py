"""Rule edits for ``medassure rules ID``: add a score rule, remove a rule, list the rules as text.

Why a module of its own: ``medassure rules`` (in ``cli.policy``) shows, starts and locks the rules;
a pipeline also needs to set its bars without the Rules page. These options are added to that same
command, so one command owns a dossier's rules::

    medassure rules D-1 --add-score-rule calc_builtin --threshold 0.8 --min-n 20
    medassure rules D-1 --critical-tag medication_change --max-miss-rate 0.05 --min-n 60
    medassure rules D-1 --remove score.calc_builtin --why "replaced by the subcategory rule"
    medassure rules D-1 --format text          # one line per rule

The order within one call is: start from defaults (``--init``), remove, add, lock (``--lock``).
Once the rules are locked, each change needs ``--why`` and is logged as the page logs it. A
benchmark that neither MedAssure nor the dossier's evidence knows is accepted with a warning: a
rule on a local scenario may be set before the scenario is run (pre-registration), but a typo
would leave the rule inconclusive for ever.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cli._common import fail, say

# Library imports stay inside the commands: all of them cost ~3.3 s more per `medassure` call (measured).


def add_rule_edit_arguments(p: argparse.ArgumentParser) -> None:
    """The rule-editing options of ``medassure rules``."""
    p.add_argument("--add-score-rule", metavar="BENCHMARK",
                   help="add (or replace) a score rule on this benchmark (as its evidence names it)")
    p.add_argument("--threshold", type=float, help="with --add-score-rule: the bar, 0-1 (required)")
    p.add_argument("--min-n", type=int, default=None,
                   help="with --add-score-rule or --critical-tag: fewer cases make the verdict inconclusive "
                        "(default: the dossier's risk tier's minimum n; 0 sets none)")
    p.add_argument("--critical-tag", metavar="TAG",
                   help="add (or replace) a critical-criterion rule: at most --max-miss-rate of the graded "
                        "cases may miss the rubric criteria carrying TAG (e.g. medication_change)")
    p.add_argument("--max-miss-rate", type=float,
                   help="with --critical-tag: the ceiling, a share between 0 and 1 (required)")
    p.add_argument("--critical-benchmark", metavar="BENCHMARK",
                   help="with --critical-tag: only gradings of this scenario (as its evidence names it)")
    p.add_argument("--rule-id", help="the rule's id (default score.<benchmark> or critical.<tag>)")
    p.add_argument("--rationale", help="why this bar, in the committee's words")
    p.add_argument("--remove", action="append", metavar="RULE_ID", help="remove this rule (repeatable)")
    p.add_argument("--why", default="", help="reason for a change to locked rules (required once locked)")


def edit_rules(args: argparse.Namespace, dossier: Any, by: str) -> tuple[Any, list[str]]:
    """Apply ``--remove``, ``--add-score-rule``, ``--critical-tag``; returns the dossier and what was done.

    Raises:
        PolicyError: no such rule, or locked rules changed without ``--why``.
    """
    from pydantic import ValidationError

    from governance.decision import change_rule, delete_rule
    from governance.rules import score_rule, unknown_benchmark

    if args.threshold is not None and not args.add_score_rule:
        fail("--threshold goes with --add-score-rule BENCHMARK")
    if (args.max_miss_rate is not None or args.critical_benchmark) and not args.critical_tag:
        fail("--max-miss-rate and --critical-benchmark go with --critical-tag TAG")
    if args.critical_tag and args.add_score_rule and args.rule_id:
        fail("--rule-id names one rule: add the score rule and the critical-criterion rule in two calls")
    done = []
    for rule_id in args.remove or []:
        dossier = delete_rule(dossier, rule_id, by=by, why=args.why)
        done.append(f"rule {rule_id} removed")
    if args.add_score_rule:
        if args.threshold is None:
            fail("--add-score-rule needs --threshold (the bar, 0-1)")
        try:
            rule = score_rule(args.add_score_rule, args.threshold, min_n=args.min_n, rule_id=args.rule_id,
                              rationale=args.rationale, tier=dossier.risk.tier)
        except ValidationError as exc:
            fail("rule not added: " + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                                for e in exc.errors()))
        if unknown_benchmark(dossier, rule.benchmark):
            say(f"warning: no known benchmark and no evidence on {dossier.id} is named {rule.benchmark!r}; "
                "the rule stays inconclusive until such evidence is attached (`medassure benchmarks`)")
        dossier = change_rule(dossier, rule, by=by, why=args.why)
        done.append(f"rule {rule.id} set")
    if args.critical_tag:
        dossier, rule_id = _add_critical_rule(args, dossier, by)
        done.append(f"rule {rule_id} set")
    return dossier, done


def _add_critical_rule(args: argparse.Namespace, dossier: Any, by: str) -> tuple[Any, str]:
    from pydantic import ValidationError

    from governance.decision import change_rule
    from governance.rules import critical_rule, tier_min_n, unknown_benchmark

    if args.max_miss_rate is None:
        fail("--critical-tag needs --max-miss-rate (the ceiling, a share between 0 and 1)")
    min_n = tier_min_n(dossier.risk.tier) if args.min_n is None else args.min_n
    try:
        rule = critical_rule(args.critical_tag, args.max_miss_rate, benchmark=args.critical_benchmark,
                             min_n=min_n, rule_id=args.rule_id, rationale=args.rationale)
    except ValidationError as exc:
        fail("rule not added: " + "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
                                            for e in exc.errors()))
    if rule.benchmark and unknown_benchmark(dossier, rule.benchmark):
        say(f"warning: no known benchmark and no evidence on {dossier.id} is named {rule.benchmark!r}; "
            "the rule stays inconclusive until such evidence is attached")
    return change_rule(dossier, rule, by=by, why=args.why), rule.id


def print_rules(policy: Any) -> None:
    """One line per rule (id, kind, what it applies to, its bar), then the lock."""
    from governance.rules import rule_bar

    out = sys.stdout
    if policy is None or not policy.rules:
        out.write("No rules yet (`medassure rules ID --init` or --add-score-rule).\n")
        return
    for rule in policy.rules:
        scope = rule.benchmark or rule.subcategory or "any benchmark"
        out.write(f"{rule.id:<36} {rule.kind:<20} {scope:<28} {rule_bar(rule)}\n")
    lock = policy.lock
    out.write(f"Locked by {lock.locked_by} at {lock.locked_at:%Y-%m-%d %H:%M} UTC"
              f"{f'; {len(policy.changes)} change(s) since' if policy.changes else ''}.\n" if lock
              else "Not locked.\n")
