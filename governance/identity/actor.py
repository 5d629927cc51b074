"""The ``Actor``: who acts in an operation, how that was established, and the name their records carry.

Why one value: every write records an author (a version's, an event's) and how the author was known
(the auth label), and is checked against the roles the acting identity holds. Before, an operation
took the author (``by``) and the identity as two arguments, with a private default for "the local
person named"; each operation re-derived the label from the pair. An ``Actor`` carries all three, and
the label is worked out here, once.

Two ways to make one:

* ``Actor.named("dr.lee")``: a notebook, a test or the demo names a local person. They act as that
  local identity (every role in a local deployment without membership; none in a shared one), and
  their records carry no auth label, as records written by naming someone always have.
* ``Actor.of(identity, name=...)``: the pages and the CLI hand down the identity they established
  (None: nobody is signed in, read-only); the records carry its auth label.
"""

from __future__ import annotations

from dataclasses import dataclass

from governance.identity.access import Access, access_for
from governance.identity.identity import Identity, local_identity


@dataclass(frozen=True)
class Actor:
    """Who acts: the author name recorded, the identity checked, and whether it was only named.

    Example:
        >>> lee = Actor.named("dr.lee")
        >>> lee.name, lee.identity.mode, lee.auth_label
        ('dr.lee', 'local', None)
        >>> Actor.of(local_identity("dr.kim")).auth_label
        'local, unauthenticated'
        >>> Actor.of(None).identity is None
        True
    """

    name: str
    """The author recorded on versions, events and audit rows."""
    identity: Identity | None
    """The identity whose roles are checked; None: nobody is signed in (read-only)."""
    by_name: bool = False
    """Established by naming a local person (a notebook, a test, the demo): its records carry no label."""

    @classmethod
    def named(cls, name: str | None = None) -> Actor:
        """The local person ``name`` (None: the login name), acting as a local identity.

        Example:
            >>> Actor.named("dr.lee").identity.name
            'dr.lee'
        """
        who = local_identity(name)
        return cls(name=who.name if name is None else name, identity=who, by_name=True)

    @classmethod
    def of(cls, identity: Identity | None, name: str | None = None) -> Actor:
        """The identity a page or the CLI established, recorded as ``name`` (default: the identity's name).

        Example:
            >>> Actor.of(local_identity("dr.lee"), name="Dr. Lee").name
            'Dr. Lee'
        """
        if name is None:
            name = identity.name if identity is not None else "not signed in"
        return cls(name=name, identity=identity, by_name=False)

    @property
    def auth_label(self) -> str | None:
        """How the author was established, as versions and events store it (None when only named)."""
        if self.by_name or self.identity is None:
            return None
        return self.identity.auth_label

    @property
    def identity_label(self) -> str:
        """The identity's own label even when only named ('' for nobody), as review queues record it."""
        return self.identity.auth_label if self.identity is not None else ""

    def access(self, dossier_id: str | None = None) -> Access:
        """The roles the actor holds on ``dossier_id`` under the deployment's membership."""
        return access_for(self.identity, dossier_id)
