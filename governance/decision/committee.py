"""The committee's actions on a dossier, each a function from a dossier to a new dossier.

Why one module of verbs: the Rules, Decision and Review pages, the CLI and the demo perform the
same actions (start the rules from defaults, lock them, change a rule with a reason, derive the
review plan, record the decision, sign off). Each action here takes the current dossier and
returns the next one, never saving: the caller saves it as a new version, so the store's author
and audit log record who did it. The clock is read here, once per action.

Who may act is checked here too (``governance.identity.access``): ``decide`` needs the chair, ``sign``
needs the role signed for and, with separation of duties, no other required role signed by the same
identity. Without an ``identity`` the name given acts as a local, unauthenticated user.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from governance.decision.oversight import derive_oversight, edit_oversight
from governance.decision.readiness import decision_gaps, needs_override
from governance.decision.records import (
    DecisionConfirmation,
    GapsOverride,
    MonitoringPlan,
    ReviewRequirements,
)
from governance.decision.signoff import DecisionError, add_signoff, record_decision
from governance.decision.standing import decision_stale, oversight_conflicts, signing_refusal
from governance.dossier.content_hash import decision_basis_hash
from governance.dossier.practice import PracticeRefused, refuse_practice
from governance.identity.access import access_for, check_signoff
from governance.identity.identity import Identity, is_placeholder_name, local_identity
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.policy import default_policy, lock_policy, remove_rule, set_rule
from governance.rules.policy import set_error_control as policy_error_control
from governance.rules.preregistration import seen_evidence_ids
from governance.rules.records import AcceptancePolicy, PolicyError
from governance.rules.verdicts import assess

if TYPE_CHECKING:
    from governance.dossier.record import Dossier
    from governance.evidence.plan_records import EvidencePlan


def _now() -> datetime:
    return datetime.now(UTC)


def start_rules(dossier: Dossier, replace: bool = False) -> Dossier:
    """The dossier with default rules for its risk tier and accepted subcategories.

    Raises:
        PolicyError: rules exist already (and ``replace`` is false), or they are locked.

    Example:
        >>> start_rules(dossier).policy.derived_from  # doctest: +SKIP
        'data/policies/default.yaml, tier moderate'
    """
    if dossier.policy is not None and dossier.policy.lock is not None:
        raise PolicyError("the rules are locked; change them one by one with a reason")
    if dossier.policy is not None and dossier.policy.rules and not replace:
        raise PolicyError("the dossier already has rules; pass replace to start again from the defaults")
    return dossier.model_copy(update={"policy": default_policy(dossier.risk.tier, dossier.mapping.accepted)})


def lock_rules(dossier: Dossier, by: str, note: str = "") -> Dossier:
    """The dossier with its rules locked (pre-registered) against the evidence attached so far.

    Example:
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> d = start_rules(Dossier(title="Portal replies", owner="me", intended_use=example_intended_use()))
        >>> lock_rules(d, by="chair").policy.lock.locked_by
        'chair'
    """
    if dossier.policy is None:
        raise PolicyError("there are no rules to lock; start from the defaults first")
    policy = lock_policy(dossier.policy, by=by, evidence_ids=seen_evidence_ids(dossier), note=note)
    return dossier.model_copy(update={"policy": policy})


def change_rule(dossier: Dossier, rule, by: str, why: str = "") -> Dossier:
    """The dossier with one rule added or replaced (logged with ``why`` once locked)."""
    policy = dossier.policy or AcceptancePolicy()
    seen = seen_evidence_ids(dossier)
    return dossier.model_copy(update={"policy": set_rule(policy, rule, by=by, why=why, evidence_ids=seen)})


def set_error_control(dossier: Dossier, multiplicity: str, power: float) -> Dossier:
    """The dossier with its family correction and power set (draft rules only: both are locked with them)."""
    policy = dossier.policy or AcceptancePolicy()
    return dossier.model_copy(update={"policy": policy_error_control(policy, multiplicity, power)})


def delete_rule(dossier: Dossier, rule_id: str, by: str, why: str = "") -> Dossier:
    """The dossier without one rule (logged with ``why`` once locked)."""
    if dossier.policy is None:
        raise PolicyError(f"no rule {rule_id!r}")
    return dossier.model_copy(update={"policy": remove_rule(dossier.policy, rule_id, by=by, why=why)})




def derive_plan(dossier: Dossier, model: str | None = None) -> Dossier:
    """The dossier with a review and monitoring plan derived from its tier and verdicts."""
    assessment = assess(dossier)
    model = model or (dossier.decision.model if dossier.decision else None)
    plan = derive_oversight(dossier.risk.tier, dossier.intended_use.human_oversight, assessment.verdicts,
                            dossier.policy.rules if dossier.policy else [], owner=dossier.owner, model=model)
    return dossier.model_copy(update={"oversight": plan})


def edit_plan(dossier: Dossier, review: ReviewRequirements, monitoring: MonitoringPlan, by: str) -> Dossier:
    """The dossier with the committee's edits to its review and monitoring plan."""
    if dossier.oversight is None:
        dossier = derive_plan(dossier)
    plan = edit_oversight(dossier.oversight, review, monitoring, by=by, at=_now())
    return dossier.model_copy(update={"oversight": plan})


def decide(dossier: Dossier, outcome: str, rationale: str, conditions: list[str], by: str,
           model: str | None = None, required_roles: list[str] | None = None,
           override_gaps: str | None = None, *, identity: Identity | None = None,
           evidence_plan: EvidencePlan | None = None) -> Dossier:
    """The dossier with the committee's decision, recording what the tool recommended at that moment.

    An approval while checklist items are missing (``governance.decision.readiness``) needs
    ``override_gaps``: the committee's reason, recorded on the decision with who gave it and what was
    missing. A rejection needs none.

    With ``store``, the evidence plan (``governance.evidence.operations.plan``) is frozen first, so the
    decision's hash covers what was run and a re-evaluation can run it again. ``identity`` is who
    records it (its name replaces ``by``); it must hold the chair role.

    Raises:
        DecisionError: incomplete decision (see ``governance.decision.signoff``), or an approval with
            missing checklist items and no override reason.
        PermissionDenied: the identity is not the chair.
    """
    who = identity or local_identity(by)
    access_for(who, dossier.id).require("chair", "record the committee's decision")
    by = who.name
    try:
        override, refused = _gaps_override(dossier, outcome, override_gaps, by), None
    except DecisionError as exc:  # reported after the decision's own checks, which name the form's fields
        # keep the message, not the exception: its traceback would hold this frame (and the store) in a cycle
        override, refused = None, str(exc)
    if evidence_plan is not None:
        dossier = dossier.model_copy(update={"evidence_plan": evidence_plan})
    assessment, rec = assessment_and_recommendation(dossier)
    if model is not None and model not in assessment.models:
        raise DecisionError(f"no evidence names the candidate {model!r}; candidates with evidence: "
                            f"{assessment.models or 'none'}")
    recommended = next((c.outcome for c in rec.candidates if c.model == model), rec.outcome)
    decided = record_decision(dossier, outcome, rationale, conditions, by=by, at=_now(), model=model,
                              recommended=recommended, required_roles=required_roles, gaps_override=override)
    if refused is not None:
        raise DecisionError(refused)
    return decided


def _gaps_override(dossier: Dossier, outcome: str, reason: str | None, by: str) -> GapsOverride | None:
    gaps = decision_gaps(dossier) if needs_override(outcome) else []
    if not gaps:
        return None
    missing = [g.label for g in gaps]
    reason = (reason or "").strip()
    if not reason:
        raise DecisionError(f"missing before an approval: {', '.join(missing)}. Record them first, or give "
                            "the committee's reason for approving without them (an override, kept on the "
                            "decision record).")
    if len(reason) < 10:
        raise DecisionError("the reason for approving with missing items needs at least 10 characters")
    return GapsOverride(by=by.strip() or "unknown", reason=reason, missing=missing)


def confirm_decision(dossier: Dossier, by: str, reason: str, changed: list[str] | None = None, *,
                     identity: Identity | None = None) -> Dossier:
    """The dossier with its decision confirmed as still standing on what the dossier holds now.

    The confirmation is recorded on the decision (who, when, the reason, what had changed by label, the
    basis it replaces) and the decision now rests on the current content, so signing may go ahead
    (``governance.decision.standing``). Review-plan findings read from free text are acknowledged with
    it; contradictions in the recorded choices still block signing until corrected.

    Raises:
        DecisionError: no decision, nothing to confirm, or a reason under 10 characters.
        PermissionDenied: the identity is not the chair.
    """
    who = identity or local_identity(by)
    access_for(who, dossier.id).require("chair", "confirm the committee's decision")
    decision = dossier.decision
    if decision is None:
        raise DecisionError("there is no decision to confirm: record the committee's decision first")
    readable = [c.code for c in oversight_conflicts(dossier) if c.acknowledgeable]
    if not decision_stale(dossier) and not readable:
        raise DecisionError("the decision already rests on the dossier as it is: nothing to confirm")
    if len(reason.strip()) < 10:
        raise DecisionError("say in at least 10 characters why the decision still stands")
    try:
        confirmation = DecisionConfirmation(by=who.name, at=_now(), reason=reason.strip(),
                                            changed=list(changed or []), previous_hash=decision.content_hash,
                                            acknowledged=readable)
    except ValueError as exc:  # pydantic's ValidationError: the reason's length or characters
        raise DecisionError(f"the reason cannot be recorded: {exc.errors()[0]['msg']}") from None
    confirmed = decision.model_copy(update={"content_hash": decision_basis_hash(dossier),
                                            "confirmations": [*decision.confirmations, confirmation]})
    return dossier.model_copy(update={"decision": confirmed})


def sign(dossier: Dossier, role: str, name: str, version_hash: str | None, note: str = "", *,
         identity: Identity | None = None, changed: list[str] | None = None) -> Dossier:
    """The dossier with one more sign-off bound to its current content, signed with the deployment key.

    ``identity`` is the signer (subject and issuer recorded); None: ``name`` as a local, unauthenticated
    signer. ``version_hash`` is the version the signer was shown: save the result with it as the
    expected parent (``Store.save(expected_hash=...)``) so a sign-off never binds to unseen content.

    A stale decision or a review plan that contradicts the intended use refuses the sign-off
    (``governance.decision.standing.signing_refusal``); ``changed`` names what changed since the decision
    (the operations' ``changes_since_decision``) for that message.

    Raises:
        DecisionError: no decision yet, an empty role or name, or signing refused (stale decision,
            contradicting review plan, a practice copy).
        PermissionDenied: the signer does not hold ``role``, or already signed another required role.
    """
    try:  # nobody signs a practice copy: its signatures would read as the record's
        refuse_practice(dossier, "be signed off")
    except PracticeRefused as exc:
        raise DecisionError(str(exc)) from None
    if (name or "").strip() and is_placeholder_name(name):  # a signer is a person, in every mode (issue 36)
        raise DecisionError(f"{name.strip()!r} is a placeholder, not a person: a sign-off needs the "
                            "signer's own name. Nothing was saved.")
    who = identity or local_identity(name)
    if dossier.decision is not None:
        check_signoff(access_for(who, dossier.id), dossier, role.strip())
        refused = signing_refusal(dossier, changed)
        if refused:
            raise DecisionError(refused)
    return add_signoff(dossier, role, name, at=_now(), version_hash=version_hash, note=note, identity=who)


def assessment_payload(dossier: Dossier) -> dict:
    """The assessment as plain JSON data (the ``medassure assess`` contract).

    Example:
        >>> sorted(assessment_payload(dossier))  # doctest: +SKIP
        ['change_log_problem', 'changes', 'counts', 'lock', 'locked', 'recommendation', ...]
    """
    assessment, rec = assessment_and_recommendation(dossier)
    verdicts = [{
        "rule_id": v.rule_id, "kind": v.kind, "model": v.model, "benchmark": v.benchmark, "metric": v.metric,
        "verdict": v.status, "threshold": v.threshold, "threshold_upper": v.threshold_upper,
        "direction": v.direction, "estimate": v.estimate,
        "interval": None if v.ci_lower is None else [v.ci_lower, v.ci_upper], "n": v.n,
        "evidence_ids": v.evidence_ids, "reason": v.reason, "further_cases": v.further_cases,
        "further_cases_method": v.further_cases_method, "pre_registered": v.pre_registered,
        "pre_registration": v.pre_registration, "gating": not v.is_score, "alpha": v.alpha,
        "p_value": v.p_value, "adjusted": v.p_adjusted, "correction": v.correction,
        "family_size": v.family_size, "subcategory": v.subcategory,
        "point_estimate_only": v.point_estimate_only, "reads_jury": v.reads_jury,
        "suppressed_groups": v.suppressed_groups,
    } for v in assessment.verdicts]
    family = assessment.family
    policy = dossier.policy
    return {
        "locked": assessment.locked, "rules_hash": assessment.rules_hash,
        "lock": policy.lock.model_dump(mode="json") if policy and policy.lock else None,
        "changes": [c.model_dump(mode="json") for c in policy.changes] if policy else [],
        "change_log_problem": assessment.change_log_problem, "counts": assessment.counts(),
        "rules": [r.model_dump(mode="json") for r in policy.rules] if policy else [],
        "verdicts": verdicts, "recommendation": rec.model_dump(mode="json"),
        "score_counts": assessment.score_counts(), "gating_counts": assessment.gating_counts(),
        "family": None if family is None else {**family.model_dump(mode="json"), "pairs": family.pairs,
                                               "statement": family.statement()},
        "preregistration": rec.preregistration,
    }
