"""Committee roles and the checks the domain applies before a save, a decision or a sign-off.

Why checks here and not only in the pages: a page hides what a user may not do, but the CLI, the demo
and any later face call the same domain functions, so those functions refuse (``PermissionDenied``)
whatever the caller shows. Roles are ``viewer``, ``editor``, ``chair`` (chair includes editor, editor
includes viewer), ``rater`` (rates the review queues that name them, and only their own items;
``governance.review.operations.queues``) and the sign-off roles a decision requires
(``clinical lead`` ...): only a member holding role R signs as R, only editors edit, only the chair
records the decision.

Where no membership is configured at all, a local desk deployment keeps working as before: its one
user (and the CLI, and the demo's made-up members) holds every role. An OIDC or proxy deployment
without membership is read-only, because a login alone says who someone is, not what they may do;
there, an unauthenticated local name (the OS login, ``MEDASSURE_USER``) holds no role at all, so the
command line writes only through the deployment's service identity.
Separation of duties holds in every mode: one identity signs at most one required role.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.dossier.content_hash import changed_fields, signable_hash
from governance.identity.config import IdentityConfig, load_config
from governance.identity.identity import Identity, is_placeholder_identity

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

COMMITTEE_ROLES = ("viewer", "editor", "chair")
IMPLIED = {"chair": {"editor", "viewer"}, "editor": {"viewer"}}
OPEN_MODES = ("local", "demo", "service")
"""Modes whose identity holds every role while no membership is configured."""


class PermissionDenied(PermissionError):
    """An action the acting identity may not take; the message says which role it needs."""


class Access(BaseModel):
    """What one identity may do on one dossier."""

    model_config = ConfigDict(frozen=True)

    identity: Identity | None
    """Who acts; None: nobody is signed in (read-only)."""
    dossier_id: str | None
    """The dossier the roles apply to."""
    roles: frozenset[str]
    """Roles held (with the implied ones)."""
    all_roles: bool
    """Holds every role (a local deployment without membership)."""

    def holds(self, role: str) -> bool:
        """Whether the identity holds ``role`` here."""
        if self.identity is None or is_placeholder_identity(self.identity):
            return False
        return self.all_roles or role.strip() in self.roles

    @property
    def can_edit(self) -> bool:
        """May save changes to the dossier."""
        return self.holds("editor")

    @property
    def is_chair(self) -> bool:
        """May record the committee's decision and its overrides."""
        return self.holds("chair")

    def describe(self) -> str:
        """The roles in words, for the sidebar."""
        if self.identity is None:
            return "not signed in: read-only"
        if self.all_roles:
            return "all roles (no committee membership configured)"
        return ", ".join(sorted(self.roles)) or "no role: read-only"

    def require(self, role: str, action: str) -> None:
        """Raise ``PermissionDenied`` unless the identity holds ``role``.

        Raises:
            PermissionDenied: with who, what was refused and which role it needs.
        """
        if self.holds(role):
            return
        if self.identity is None:
            raise PermissionDenied(f"Nobody is signed in, so {action} is not possible: sign in first.")
        if is_placeholder_identity(self.identity):  # issue 36 item 1: never recorded under "reviewer"
            raise PermissionDenied(
                f"{self.identity.name.strip()!r} is a placeholder, not a person, so {action} is not "
                "possible: give your own name (the Reviewer box, --by/--name or $MEDASSURE_USER). "
                "Nothing was saved.")
        where = f" on dossier {self.dossier_id}" if self.dossier_id else ""
        raise PermissionDenied(
            f"{self.identity.name} ({self.identity.auth_label}) may not {action}: that needs the {role!r} "
            f"role{where}; held: {self.describe()}. Nothing was saved.")


def access_for(identity: Identity | None, dossier_id: str | None = None,
               config: IdentityConfig | None = None) -> Access:
    """The roles ``identity`` holds on ``dossier_id`` under the deployment's membership.

    Example:
        >>> from governance.identity.identity import local_identity
        >>> access_for(local_identity("me"), "D-1", IdentityConfig()).is_chair
        True
        >>> cfg = IdentityConfig(members={"me": ["clinical lead"]})
        >>> a = access_for(local_identity("me"), "D-1", cfg)
        >>> a.holds("clinical lead"), a.can_edit
        (True, False)
    """
    config = config or load_config()
    if identity is None:
        return Access(identity=None, dossier_id=dossier_id, roles=frozenset(), all_roles=False)
    if identity.mode == "local" and config.mode != "local":
        # In a shared deployment (OIDC or a trusted proxy) an unauthenticated name proves nothing: the
        # command line acts through the configured service identity, and a local name holds no role.
        return Access(identity=identity, dossier_id=dossier_id, roles=frozenset(), all_roles=False)
    if identity.mode == "demo" or (not config.has_members and identity.mode in OPEN_MODES):
        return Access(identity=identity, dossier_id=dossier_id, roles=frozenset(COMMITTEE_ROLES),
                      all_roles=True)
    held = set(config.members.get(identity.subject, []))
    if dossier_id and dossier_id in config.dossiers:
        held |= set(config.dossiers[dossier_id].members.get(identity.subject, []))
    held = {r.strip() for r in held if r.strip()}
    for role in list(held):
        held |= IMPLIED.get(role, set())
    if held:
        held.add("viewer")
    return Access(identity=identity, dossier_id=dossier_id, roles=frozenset(held), all_roles=False)


def signer_key(subject: str | None, issuer: str | None, name: str) -> tuple[str, str]:
    """Who a sign-off is by, for separation of duties (records without a subject: by name)."""
    return (subject or name, issuer or "local")


def check_signoff(access: Access, dossier: Dossier, role: str, config: IdentityConfig | None = None) -> None:
    """Refuse a sign-off the identity may not give: a role it does not hold, or a second required role.

    Raises:
        PermissionDenied: the role is not held, or (with separation of duties) the same identity already
            holds a current sign-off for another role the decision requires.
    """

    access.require(role, f"sign off as {role!r}")
    config = config or load_config()
    required = set(dossier.decision.required_roles) if dossier.decision else set()
    if not config.separation_of_duties or role not in required:
        return
    me = signer_key(access.identity.subject, access.identity.issuer, access.identity.name)
    now = signable_hash(dossier)
    for s in dossier.signoffs:
        if (s.role in required and s.role != role and s.signed_hash == now
                and signer_key(s.subject, s.issuer, s.name) == me):
            raise PermissionDenied(
                f"{access.identity.name} already signed this content as {s.role!r}; separation of duties "
                f"lets one person sign only one of the required roles, so {role!r} needs another member.")


def authorize_save(access: Access, before: Dossier | None, after: Dossier) -> None:
    """Refuse a save the identity may not make, judged by what it changes.

    A change to the decision needs the chair; a change that only adds sign-offs needs each new
    sign-off's role and signer to be the identity's own; any other change needs an editor.

    Raises:
        PermissionDenied: the identity lacks the role the change needs.
    """

    if before is None:
        access.require("editor", "create a dossier")
        return
    changed = set(changed_fields(before, after))
    signoffs_changed = before.signoffs != after.signoffs
    if not changed and not signoffs_changed:
        return
    if "decision" in changed:
        access.require("chair", "record or change the committee's decision")
        changed -= {"decision", "status", "evidence_plan"}
    if changed:
        access.require("editor", "edit the dossier (" + ", ".join(sorted(changed)) + ")")
    if signoffs_changed:
        old = before.signoffs
        if after.signoffs[: len(old)] != old:
            access.require("chair", "remove or alter recorded sign-offs")
        me = signer_key(access.identity.subject, access.identity.issuer, access.identity.name)
        for s in after.signoffs[len(old):]:
            access.require(s.role, f"sign off as {s.role!r}")
            # An authenticated user saves only their own sign-offs (unauthenticated modes prove nothing).
            if access.identity.authenticated and signer_key(s.subject, s.issuer, s.name) != me:
                raise PermissionDenied(
                    f"{access.identity.name} may not save a sign-off recorded for {s.name}.")


