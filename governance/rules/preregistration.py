"""Whether one verdict is pre-registered: its rule was fixed before every evidence record it reads.

Why per verdict and not per dossier: a committee typically locks its rules with published figures
already attached and then runs local evaluations. The published figures were seen before the bar
was set; the local runs were not. Only the second kind is a pre-registered test, so each verdict
says which it is, and pages and reports count them by name instead of calling the whole dossier
"pre-registered".

Evidence counts as *seen* from the moment it is first attached: the lock records every record
attached then *and every record detached before it* (``seen_evidence_ids``), so evidence attached,
detached, locked against and re-attached is not a pre-registered test. A *published* figure
(MedHELM's leaderboard) is never pre-registered, whenever it was attached: it was public, and the
Evidence page shows it, before any rule was set.

The rule, per verdict of rule R using evidence E₁…Eₖ:

* the rules are not locked, or the lock/change-log chain is broken → not pre-registered;
* any of E₁…Eₖ is published evidence → not pre-registered;
* R was added or changed after the lock → R took its present form at its last change; the
  verdict is pre-registered only if that change recorded which evidence was attached then
  (``RuleChange.evidence_ids_at_change``) and none of E₁…Eₖ was among it; a change that did not
  record it counts as seen (we cannot tell the order, so we do not claim it);
* otherwise → pre-registered when none of E₁…Eₖ was attached at the lock.

A verdict that reads no evidence (no evidence yet, no cost profile) is pre-registered when its
rule is: nothing was seen before the bar was set. It tests nothing either, so the headline counts
only verdicts that read evidence ("k of n verdicts that read evidence are pre-registered").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from governance.rules.policy import AcceptancePolicy

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


def seen_evidence_ids(dossier: Dossier) -> list[str]:
    """Every evidence id the dossier has shown: attached now, or attached once and detached since.

    Example:
        >>> from evaluator.evidence.record import published_evidence
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> from governance.evidence.attach import attach_evidence, detach_evidence
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> d = attach_evidence(d, published_evidence(["MedicationQA"], ["DeepSeek R1"]), by="me")
        >>> first = d.evidence[0].id
        >>> seen_evidence_ids(detach_evidence(d, [first], by="me")) == [first]
        True
    """
    return list(dict.fromkeys([*(e.id for e in dossier.evidence), *dossier.detached_evidence_ids]))


def preregistration(rule_id: str, evidence_ids: list[str], policy: AcceptancePolicy,
                    log_problem: str | None, published: set[str] | frozenset[str] = frozenset(),
                    ) -> tuple[bool, str]:
    """(pre-registered?, why in words) for one verdict of rule ``rule_id`` (see the module docstring).

    Example:
        >>> from governance.rules.policy import MinNRule, lock_policy
        >>> p = lock_policy(AcceptancePolicy(rules=[MinNRule(id="n", threshold=9, rationale="enough cases")]),
        ...                 by="chair", evidence_ids=["e1"])
        >>> preregistration("n", ["e1"], p, None)[0], preregistration("n", ["e2"], p, None)[0]
        (False, True)
    """
    if policy.lock is None:
        return False, "the rules are not locked"
    if log_problem:
        return False, f"the rule change log is broken ({log_problem})"
    used = set(evidence_ids)
    if used & set(published):
        return False, "it reads published evidence, which was public before any rule was set"
    last = next((c for c in reversed(policy.changes) if c.rule_id == rule_id), None)
    if last is not None:
        when = f"{last.at:%Y-%m-%d}"
        if last.evidence_ids_at_change is None:
            return False, (f"the rule was changed after the lock ({when}) and the change did not record "
                           "which evidence was attached then")
        seen = used & (set(last.evidence_ids_at_change) | set(policy.lock.evidence_ids_at_lock))
        if seen:
            return False, f"the rule was changed after the lock ({when}), after its evidence was attached"
        return True, f"the rule took its present form on {when}, before its evidence was attached"
    seen = used & set(policy.lock.evidence_ids_at_lock)
    if seen:
        return False, "its evidence was attached before the rules were locked"
    return True, "the rules were locked before its evidence was attached"


def _label(v) -> str:
    return " / ".join(x for x in (v.model, v.benchmark) if x) or "the dossier"


def preregistration_summary(verdicts: list, names: dict[str, str] | None = None) -> tuple[str, list[str]]:
    """A headline and one line per rule naming which of its verdicts are pre-registered and which not.

    Not-applicable verdicts are left out. The headline counts only verdicts that read evidence (a
    verdict on no evidence tests nothing), e.g. ``3 of 40 verdicts that read evidence are
    pre-registered; 37 are not (5 more read no evidence).`` Each line names its rule by ``names`` (rule id →
    the rule in words, ``Assessment.rule_names``), never by its id.
    """
    live = [v for v in verdicts if v.status != "not_applicable"]
    reading = [v for v in live if v.evidence_ids]
    yes = sum(v.pre_registered for v in reading)
    empty = len(live) - len(reading)
    head = (f"{yes} of {len(reading)} verdicts that read evidence are pre-registered; "
            f"{len(reading) - yes} are not"
            + (f" ({empty} more read no evidence)." if empty else "."))
    lines = []
    for rule_id in dict.fromkeys(v.rule_id for v in live):
        mine = [v for v in live if v.rule_id == rule_id]
        pre = [_label(v) for v in mine if v.pre_registered]
        groups: dict[str, list[str]] = {}
        for v in mine:
            if not v.pre_registered:
                groups.setdefault(v.pre_registration or "not pre-registered", []).append(_label(v))
        parts = [f"pre-registered: {', '.join(pre)}"] if pre else []
        parts += [f"not pre-registered ({why}): {', '.join(names)}" for why, names in groups.items()]
        lines.append(f"{(names or {}).get(rule_id, rule_id)}: " + "; ".join(parts) + ".")
    return head, lines
