"""Acceptance rules: what the evidence must show, set and locked before the evidence is run.

Why this shape: a committee can only defend a verdict if the bar was fixed before anyone saw the
result. Rules therefore start from per-tier defaults (``data/policies/default.yaml``, each number
with its rationale), are edited freely while the policy is a draft, and are then *locked*: the
lock records who, when, the SHA-256 of the rule set and which evidence was already attached.
A locked rule can still be changed, because committees learn, but every change after the lock
goes into an append-only change log (old rule, new rule, who, when, why, hashes before and
after) that pages and reports show. ``change_log_problem`` re-checks that chain, so an edit that
bypassed the log is visible.

Error control is part of what is locked: the policy names how the family of score verdicts is
corrected (``multiplicity``, Holm by default, or Bonferroni) and the power that further-case
figures aim for; the lock records both (``PolicyLock.error_control``) and they cannot change once
locked. Fields added after dossiers were first saved (these two, the lock's ``error_control``, a
change's ``evidence_ids_at_change``) are left out of the dumped JSON while at their default, so
the content hashes of dossiers saved before them stay verifiable.

Each rule kind is its own pydantic model with a ``kind`` discriminator. Thresholds of ``score``
rules are on MedHELM's normalized 0-1 scale (jury 1-5 maps to (x - 1) / 4) so one number can
apply to every benchmark of a subcategory; the direction comes from the evidence.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from evaluator.evidence.record import Provenance
from evaluator.paths import DATA_DIR
from governance.rules.records import (
    AcceptancePolicy,
    CostRule,
    JudgeAgreementRule,
    MinNRule,
    PolicyError,
    PolicyLock,
    RuleChange,
    RuleKind,
    ScoreRule,
    SubgroupDisparityRule,
    UnscoredShareRule,
)
from governance.rules.verdict_math import ALPHA

POLICY_DIR = DATA_DIR / "policies"


def rules_hash(rules: list) -> str:
    """SHA-256 of the rules' canonical JSON, independent of their order.

    Example:
        >>> r = MinNRule(id="n", threshold=100, rationale="enough cases for a tight interval")
        >>> rules_hash([r]) == rules_hash([r]) and len(rules_hash([r])) == 64
        True
    """
    docs = sorted((r.model_dump(mode="json") for r in rules), key=lambda d: d["id"])
    return hashlib.sha256(json.dumps(docs, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def error_control_text(policy: AcceptancePolicy) -> str:
    """The policy's error control in one line, as the lock records it.

    Example:
        >>> error_control_text(AcceptancePolicy())
        'holm; one-sided alpha 0.025 per family of score verdicts; power 0.8'
    """
    return (f"{policy.multiplicity}; one-sided alpha {ALPHA:g} per family of score verdicts; "
            f"power {policy.power:g}")


def set_error_control(policy: AcceptancePolicy, multiplicity: str, power: float) -> AcceptancePolicy:
    """The policy with another correction or power (only while a draft: both are pre-registered).

    Raises:
        PolicyError: the rules are locked.

    Example:
        >>> set_error_control(AcceptancePolicy(), "bonferroni", 0.9).multiplicity
        'bonferroni'
    """
    if policy.lock is not None:
        raise PolicyError("the error control was locked with the rules and cannot change now")
    return AcceptancePolicy.model_validate({**policy.model_dump(), "multiplicity": multiplicity,
                                            "power": power})


def lock_policy(policy: AcceptancePolicy, by: str, evidence_ids: list[str],
                note: str = "") -> AcceptancePolicy:
    """Pre-register the rules: record who, when, the rule-set hash and the evidence already seen.

    Raises:
        PolicyError: already locked, no rules, or no name.

    Example:
        >>> p = AcceptancePolicy(rules=[MinNRule(id="n", threshold=100, rationale="tight enough interval")])
        >>> lock_policy(p, by="dr.lee", evidence_ids=[]).lock.locked_by
        'dr.lee'
    """
    if policy.lock is not None:
        raise PolicyError(f"the rules are already locked (by {policy.lock.locked_by} at "
                          f"{policy.lock.locked_at:%Y-%m-%d %H:%M}); change a rule with a reason instead")
    if not policy.rules:
        raise PolicyError("there are no rules to lock")
    if not by.strip():
        raise PolicyError("say who locks the rules")
    lock = PolicyLock(locked_at=_now(), locked_by=by.strip(), rules_hash=rules_hash(policy.rules),
                      evidence_ids_at_lock=tuple(evidence_ids), note=note,
                      error_control=error_control_text(policy))
    return policy.model_copy(update={"lock": lock})


def _apply(policy: AcceptancePolicy, rule_id: str, new, by: str, why: str,
           evidence_ids: list[str] | None = None) -> AcceptancePolicy:
    old = next((r for r in policy.rules if r.id == rule_id), None)
    if old is None and new is None:
        raise PolicyError(f"no rule {rule_id!r} to remove")
    if old == new:
        return policy
    rules = [r for r in policy.rules if r.id != rule_id]
    if new is not None:
        at = next((i for i, r in enumerate(policy.rules) if r.id == rule_id), len(policy.rules))
        rules.insert(at, new)
    if policy.lock is None:
        return policy.model_copy(update={"rules": rules})
    if len(why.strip()) < 5:
        raise PolicyError(f"the rules are locked: changing {rule_id!r} needs a reason "
                          "(at least 5 characters)")
    if not by.strip():
        raise PolicyError("say who changes the rule")
    change = RuleChange(rule_id=rule_id, old=old, new=new, by=by.strip(), at=_now(), why=why.strip(),
                        hash_before=rules_hash(policy.rules), hash_after=rules_hash(rules),
                        evidence_ids_at_change=None if evidence_ids is None else tuple(evidence_ids))
    return policy.model_copy(update={"rules": rules, "changes": [*policy.changes, change]})


def set_rule(policy: AcceptancePolicy, rule, by: str, why: str = "",
             evidence_ids: list[str] | None = None) -> AcceptancePolicy:
    """Add a rule or replace the rule of the same id; logged (and needing ``why``) once locked.

    ``evidence_ids``: the evidence attached at the change, so later evidence counts as pre-registered.

    Example:
        >>> p = AcceptancePolicy(rules=[MinNRule(id="n", threshold=100, rationale="tight enough interval")])
        >>> p = lock_policy(p, by="a", evidence_ids=[])
        >>> p = set_rule(p, MinNRule(id="n", threshold=200, rationale="tighter interval"),
        ...                by="b", why="CMIO asked")
        >>> p.changes[0].old.threshold, p.changes[0].new.threshold
        (100, 200)
    """
    return _apply(policy, rule.id, rule, by, why, evidence_ids)


def remove_rule(policy: AcceptancePolicy, rule_id: str, by: str, why: str = "") -> AcceptancePolicy:
    """Remove a rule; logged (and needing ``why``) once locked.

    Example:
        >>> p = default_policy("low", [])
        >>> [r.id for r in remove_rule(p, "cost", by="cfo").rules][-1]
        'judge_agreement'
    """
    return _apply(policy, rule_id, None, by, why)


def change_log_problem(policy: AcceptancePolicy) -> str | None:
    """None when lock, change log and current rules form an unbroken chain, else what is wrong.

    Example:
        >>> change_log_problem(AcceptancePolicy()) is None
        True
    """
    if policy.lock is None:
        return "the rules are not locked" if policy.changes else None
    expected = policy.lock.rules_hash
    for i, change in enumerate(policy.changes, start=1):
        if change.hash_before != expected:
            return f"change {i} ({change.rule_id}) does not follow from the rules before it"
        expected = change.hash_after
    if rules_hash(policy.rules) != expected:
        return "the rules differ from the locked rules plus the recorded changes (an unrecorded edit)"
    if policy.lock.error_control and policy.lock.error_control != error_control_text(policy):
        return (f"the error control ({error_control_text(policy)}) differs from the locked one "
                f"({policy.lock.error_control})")
    return None


# ---- defaults --------------------------------------------------------------------------------
class RuleDefault(BaseModel):
    """One default number and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float | None = None
    """The number (meaning depends on the rule kind)."""
    ratio_lo: float | None = None
    """Lower ratio bound (subgroup disparity only)."""
    ratio_hi: float | None = None
    """Upper ratio bound (subgroup disparity only)."""
    provenance: tuple[Provenance, ...] = ()
    """Evidence kinds the rule reads (empty: all)."""
    rationale: str = Field(min_length=20)
    """Why this number."""


class PolicyDefaults(BaseModel):
    """``data/policies/default.yaml``: per-tier defaults and the sign-off roles."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    """File format version."""
    note: str
    """What the file is and how to read it."""
    tiers: dict[Literal["low", "moderate", "high", "critical"], dict[RuleKind, RuleDefault]]
    """Defaults per risk tier and rule kind."""
    signoff_roles: list[str] = Field(min_length=1)
    """Roles whose sign-off a decision needs by default."""


@cache
def load_defaults(path: Path = POLICY_DIR / "default.yaml") -> PolicyDefaults:
    """The shipped defaults (validated; a typo in the file fails loudly).

    Example:
        >>> load_defaults().tiers["high"]["score"].threshold
        0.8
    """
    return PolicyDefaults.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def default_policy(tier: str, subcategory_ids: list[str]) -> AcceptancePolicy:
    """The default rules for a risk tier: one score rule per accepted subcategory, one of each other kind.

    Example:
        >>> p = default_policy("moderate", ["patient_provider_messaging"])
        >>> [r.id for r in p.rules][:2]
        ['score.patient_provider_messaging', 'min_n']
    """
    d = load_defaults().tiers[tier]  # type: ignore[index]
    why = {k: f"{v.rationale.strip()} (default for tier {tier})" for k, v in d.items()}
    min_n = int(d["min_n"].threshold)
    scores = [ScoreRule(id=f"score.{s}", subcategory=s, threshold=d["score"].threshold, min_n=min_n,
                        provenance=d["score"].provenance, rationale=why["score"]) for s in subcategory_ids]
    if not scores:
        scores = [ScoreRule(id="score.all", threshold=d["score"].threshold, min_n=min_n,
                            provenance=d["score"].provenance, rationale=why["score"])]
    others = [
        MinNRule(id="min_n", threshold=min_n, provenance=d["min_n"].provenance, rationale=why["min_n"]),
        UnscoredShareRule(id="unscored", threshold=d["max_unscored_share"].threshold,
                          provenance=d["max_unscored_share"].provenance, rationale=why["max_unscored_share"]),
        SubgroupDisparityRule(id="disparity", ratio_lo=d["subgroup_disparity"].ratio_lo,
                              ratio_hi=d["subgroup_disparity"].ratio_hi,
                              provenance=d["subgroup_disparity"].provenance,
                              rationale=why["subgroup_disparity"]),
        JudgeAgreementRule(id="judge_agreement", threshold=d["judge_agreement"].threshold,
                           rationale=why["judge_agreement"]),
        CostRule(id="cost", threshold=d["max_cost_per_1k"].threshold, rationale=why["max_cost_per_1k"]),
    ]
    return AcceptancePolicy(rules=[*scores, *others], tier=tier,
                            derived_from=f"the default rules for risk tier {tier}")
