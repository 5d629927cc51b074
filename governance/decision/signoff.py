"""The decision: a recommendation computed from the verdicts, the committee's own decision, sign-offs.

Why the recommendation and the decision are separate records: the tool can say what the evidence
supports; only people decide. The committee's decision stands beside the recommendation, with a
rationale (required) and its conditions, so a reader sees where and why they differ.

Sign-offs and what they bind to. A sign-off records ``signed_hash``: the SHA-256 of the dossier's
content *without its sign-off list* (``signable_hash``), plus the store version hash the signer was
looking at. It is valid only while the current dossier has the same signable hash, so adding a
second sign-off does not invalidate the first, while any other change (a rule, a piece of
evidence, the decision, the review plan, the intended use) invalidates them all, visibly.

Sign-offs are signed, not only hashed: each carries an HMAC-SHA256 under the deployment's key
(``governance.identity.keys``) over its content hash, role, signer (subject and issuer), time, name and
note. ``signoff_status`` counts a sign-off only when that signature checks here; one made under another
key (an imported export) is *unverified*, and one whose fields were changed is *forged*; neither counts.
With separation of duties (``governance.identity.config``), one signer's sign-off counts for one
required role only.

Re-evaluation addenda (``Dossier.reevaluations``) are left out of both hashes like the sign-offs:
an addendum reports what a model or prompt change *would* do and changes nothing the committee
decided on, so recording one neither invalidates the sign-offs nor makes the decision stale.

``signable_hash`` is deliberately robust to schema growth, because other parts of MedAssure add
optional fields to the dossier over time: keys whose value is ``None`` are dropped at every level,
and top-level fields still at their default are dropped, so a new optional field that nobody has
set does not invalidate existing sign-offs. Both steps are injective for a given schema (a dropped
key reads back as exactly the value that was dropped), so two different contents never share a hash.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, ValidationError

from governance.decision.records import (
    CommitteeDecision,
    GapsOverride,
    SignOff,
)
from governance.dossier.content_hash import decision_basis_hash, signable_hash
from governance.identity.config import IdentityConfig, load_config
from governance.identity.identity import Identity, local_identity
from governance.identity.keys import check_fields, sign_fields
from governance.rules.policy import load_defaults

if TYPE_CHECKING:
    from governance.dossier.record import Dossier



class DecisionError(ValueError):
    """A decision or sign-off that cannot be recorded, with a message for the user."""












def record_decision(dossier: Dossier, outcome: str, rationale: str, conditions: list[str], by: str,
                    at: datetime, model: str | None = None, recommended: str | None = None,
                    required_roles: list[str] | None = None,
                    gaps_override: GapsOverride | None = None) -> Dossier:
    """The dossier with the committee's decision recorded and its status set to ``decided``.

    Raises:
        DecisionError: the decision is incomplete (no rationale, conditions that do not fit).

    Example:
        >>> record_decision(d, "reject", "fails the privacy rule", [], by="chair", at=now)  # doctest: +SKIP
    """
    dossier = dossier.model_copy(update={"status": "decided"})
    try:
        decision = CommitteeDecision(
            outcome=outcome, model=model, rationale=rationale.strip(),
            conditions=[c.strip() for c in conditions],
            decided_by=by.strip(), decided_at=at, recommended=recommended,
            required_roles=required_roles or list(load_defaults().signoff_roles),
            content_hash=decision_basis_hash(dossier), gaps_override=gaps_override)
    except ValidationError as exc:
        raise DecisionError("; ".join(f"{'.'.join(map(str, e['loc'])) or 'decision'}: {e['msg']}"
                                      for e in exc.errors())) from None
    return dossier.model_copy(update={"decision": decision})


def add_signoff(dossier: Dossier, role: str, name: str, at: datetime, version_hash: str | None,
                note: str = "", *, identity: Identity | None = None, key: bytes | None = None) -> Dossier:
    """The dossier with one more sign-off, bound to its current signable hash and signed with the key.

    ``identity`` is the signer (its subject and issuer are recorded, its name replaces ``name``);
    None records ``name`` as a local, unauthenticated signer. Permission checks are the caller's
    (``governance.decision.committee.sign``).

    Raises:
        DecisionError: no decision yet, or an empty role or name.

    Example:
        >>> signed = add_signoff(d, "clinical lead", "Dr. Chen", at=now, version_hash=h)  # doctest: +SKIP
        >>> signed.signoffs[-1].signed_hash == signable_hash(signed)  # doctest: +SKIP
        True
    """
    if dossier.decision is None:
        raise DecisionError("record the committee's decision before signing off")
    if not role.strip() or not (identity or name.strip()):
        raise DecisionError("a sign-off needs a role and a name")
    who = identity or local_identity(name)
    unsigned = SignOff(role=role.strip(), name=who.name, signed_at=at, signed_hash=signable_hash(dossier),
                       version_hash=version_hash, note=note.strip(), subject=who.subject, issuer=who.issuer,
                       auth=who.auth_label)
    signature, kid = sign_fields(unsigned.signed_fields(), key)
    signoff = unsigned.model_copy(update={"signature": signature, "key_id": kid})
    return dossier.model_copy(update={"signoffs": [*dossier.signoffs, signoff]})


class RoleStatus(BaseModel):
    """Whether a role has a sign-off that still holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    """The role."""
    required: bool
    """Whether the decision requires this role."""
    signoff: SignOff | None
    """The role's latest sign-off, if any."""
    valid: bool
    """The latest sign-off matches the current content, its signature checks and it is not a second role
    of one signer."""
    reason: str
    """Why it is or is not valid."""
    signature: str = "none"
    """``valid``, ``unverified`` (made under another key), ``forged`` (altered) or ``none`` (unsigned)."""


class SignOffStatus(BaseModel):
    """All sign-offs of a dossier checked against its current content."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    current_hash: str
    """Signable hash of the dossier now."""
    roles: list[RoleStatus]
    """Required roles first, then any other role that signed."""
    invalidated: list[SignOff]
    """Sign-offs whose content has since changed (every one, not only the latest per role)."""
    unverified: list[SignOff] = []
    """Sign-offs whose signature cannot be checked here or does not match (never counted as valid)."""
    complete: bool
    """Every required role has a valid sign-off."""
    decision_current: bool | None
    """Whether the dossier is unchanged since the decision (None: no decision)."""


def _signer(s: SignOff) -> tuple[str, str]:
    return (s.subject or s.name, s.issuer or "local")


def signoff_status(dossier: Dossier, key: bytes | None = None, config: IdentityConfig | None = None
                   ) -> SignOffStatus:
    """Check every sign-off against the current signable hash, its signature and separation of duties.

    Example:
        >>> signoff_status(dossier).complete  # doctest: +SKIP
        False
    """
    now = signable_hash(dossier)
    separate = (config or load_config()).separation_of_duties
    required = list(dossier.decision.required_roles) if dossier.decision else []
    checks = {id(s): check_fields(s.signed_fields(), s.signature, s.key_id, key) for s in dossier.signoffs}
    latest: dict[str, SignOff] = {}
    for s in dossier.signoffs:
        latest[s.role] = s
    roles = []
    counted: dict[tuple[str, str], str] = {}
    for role in [*required, *[r for r in latest if r not in required]]:
        s = latest.get(role)
        if s is None:
            roles.append(RoleStatus(role=role, required=role in required, signoff=None, valid=False,
                                    reason="not signed yet"))
            continue
        check = checks[id(s)]
        when = f"signed by {s.name} on {s.signed_at:%Y-%m-%d %H:%M}"
        if s.signed_hash != now:
            valid, reason = False, (f"{when}, but the dossier changed afterwards (signed "
                                    f"{s.signed_hash[:12]}, now {now[:12]}): sign again")
        elif check == "forged":
            valid, reason = False, f"{when}, but its signature does not match its fields: it was altered"
        elif check != "valid":
            valid, reason = False, (f"{when}, unverified: its signature cannot be checked with this "
                                    "deployment's key (signed elsewhere, imported, or signed before signing "
                                    "keys existed); it does not count until the role signs again here")
        elif separate and role in required and _signer(s) in counted:
            valid, reason = False, (f"{when}, who already signed as {counted[_signer(s)]!r}: separation of "
                                    "duties counts one required role per signer")
        else:
            valid, reason = True, f"{when}; content unchanged since; signature verified"
            if role in required:
                counted.setdefault(_signer(s), role)
        roles.append(RoleStatus(role=role, required=role in required, signoff=s, valid=valid, reason=reason,
                                signature=check if s.signature else "none"))
    decision_current = None
    if dossier.decision is not None:
        decision_current = dossier.decision.content_hash == decision_basis_hash(dossier)
    return SignOffStatus(current_hash=now, roles=roles,
                         invalidated=[s for s in dossier.signoffs if s.signed_hash != now],
                         unverified=[s for s in dossier.signoffs if checks[id(s)] != "valid"],
                         complete=bool(required) and all(r.valid for r in roles if r.required),
                         decision_current=decision_current)




def signoffs_voided_by(before: Dossier, after: Dossier) -> list[RoleStatus]:
    """The sign-offs that hold on ``before`` and would no longer hold once ``after`` is saved.

    A sign-off binds to the signable hash (the content without the sign-off list), so a change that
    leaves it alone (adding a sign-off, saving unchanged content) voids none; any other change voids
    every sign-off that holds now. Pages say so before the save (issue 36 item 3).
    """
    if signable_hash(before) == signable_hash(after):
        return []
    return [r for r in signoff_status(before).roles if r.valid]
