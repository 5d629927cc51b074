"""The ``Identity`` of whoever acts, in each of the four ways MedAssure can know it.

Why one small value for all modes: the domain only needs a stable ``subject`` (what roles and
separation of duties are keyed on), an ``issuer`` (who vouches for it), a display ``name`` and whether
it was authenticated at all. How the login happened (Streamlit's OIDC, a proxy header, the OS login)
stays with the page layer and this module's constructors; a record says it in ``auth_label``.
"""

from __future__ import annotations

import getpass
import ipaddress
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from governance.identity.proxy_chain import resolve_proxy_chain

log = logging.getLogger(__name__)

Mode = Literal["local", "oidc", "proxy", "service", "demo"]


class Identity(BaseModel):
    """Who is acting, and how we know."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: str = Field(min_length=1, max_length=320)
    """Stable identifier: the OIDC ``sub`` or e-mail, the proxy header's value, a login or service name."""
    issuer: str = Field(min_length=1, max_length=500)
    """Who vouches for the subject: the OIDC issuer URL, ``proxy:<header>``, ``local``, ``service``."""
    name: str = Field(min_length=1, max_length=200)
    """Display name, recorded as the author."""
    mode: Mode
    """How the identity was established."""
    authenticated: bool
    """True only when an identity provider or a trusted proxy vouched for it."""

    @property
    def auth_label(self) -> str:
        """How the identity was established, in words (stored with every version and audit event)."""
        if self.mode == "oidc":
            return f"OIDC login at {self.issuer}, subject {self.subject}"
        if self.mode == "proxy":
            return f"trusted proxy ({self.issuer.removeprefix('proxy:')} header), subject {self.subject}"
        if self.mode == "service":
            return f"service identity {self.subject} (configured for the command line), unauthenticated"
        if self.mode == "demo":
            return "DEMO DATA identity, unauthenticated"
        return "local, unauthenticated"


def login_name() -> str:
    """``$MEDASSURE_USER`` or the OS login name (``cli`` when neither can be read)."""
    try:
        return os.environ.get("MEDASSURE_USER") or getpass.getuser()
    except (KeyError, OSError):
        return "cli"


PLACEHOLDER_NAMES = frozenset({"", "reviewer"})
"""Names that say nobody: the app's old Reviewer default. No write is recorded under one in local mode
(issue 36 item 1: an audit trail must not hold "reviewer" as a signer, whichever face wrote it)."""


def is_placeholder_name(name: str | None) -> bool:
    """Whether ``name`` names nobody (empty, or the placeholder "reviewer", in any case or spacing).

    Example:
        >>> is_placeholder_name(" Reviewer "), is_placeholder_name("Dr. Lee")
        (True, False)
    """
    return (name or "").strip().casefold() in PLACEHOLDER_NAMES


def is_placeholder_identity(identity: Identity | None) -> bool:
    """A local, unauthenticated identity named by a placeholder: it holds no role (nobody is named)."""
    return identity is not None and identity.mode == "local" and is_placeholder_name(identity.name)


def local_identity(name: str | None = None) -> Identity:
    """The single user of a local (desk) deployment: unauthenticated, named as they say.

    Example:
        >>> local_identity("dr.lee").auth_label
        'local, unauthenticated'
    """
    who = (name or "").strip() or login_name()
    return Identity(subject=who, issuer="local", name=who, mode="local", authenticated=False)


def demo_identity(name: str) -> Identity:
    """A made-up committee member of the demo dossier (labelled DEMO DATA on every record)."""
    return Identity(subject=f"demo:{name}", issuer="demo", name=name, mode="demo", authenticated=False)


def service_identity(subject: str) -> Identity:
    """The command line's identity in a shared deployment (a named service, not a person)."""
    return Identity(subject=subject, issuer="service", name=subject, mode="service", authenticated=False)


def oidc_identity(claims: Mapping[str, object]) -> Identity | None:
    """An identity from the claims of an OIDC login (``st.user``), or None when not logged in.

    Example:
        >>> oidc_identity({"is_logged_in": True, "iss": "https://idp.example", "sub": "42",
        ...                "email": "a@example.org", "name": "Dr A"}).subject
        'a@example.org'
    """
    if not claims.get("is_logged_in"):
        return None
    issuer = str(claims.get("iss") or "").strip()
    subject = str(claims.get("email") or claims.get("preferred_username") or claims.get("sub") or "").strip()
    if not issuer or not subject:
        log.warning("OIDC login without an issuer or a subject claim: treated as not logged in")
        return None
    name = str(claims.get("name") or subject)[:200]
    return Identity(subject=subject, issuer=issuer, name=name, mode="oidc", authenticated=True)


def _same_host(a: str, b: str) -> bool:
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b)
    except ValueError:
        return a == b


def _forwarded_hosts(values: Iterable[str]) -> list[str]:
    """The hosts named in ``X-Forwarded-For`` values, each with and without a port (``h:p``, ``[h]:p``)."""
    hosts: list[str] = []
    for value in values:
        for item in str(value).split(","):
            item = item.strip()
            if not item:
                continue
            hosts.append(item)
            if item.startswith("[") and "]" in item:
                hosts.append(item[1:item.index("]")])
            elif item.count(":") == 1:
                hosts.append(item.rsplit(":", 1)[0])
    return hosts


def direct_peer(reported: str | None, forwarded_for: Iterable[str], server_rewrites: bool) -> str | None:
    """The address of the connection itself, or None when the server may have replaced it.

    Streamlit reports the client address of its WebSocket, which uvicorn's proxy-header middleware
    replaces with an entry of ``X-Forwarded-For`` when the connection comes from an address uvicorn
    trusts (``FORWARDED_ALLOW_IPS``, default ``127.0.0.1,::1``). A trusted-proxy check must see the
    connection's own address, so: without that header, or when the server rewrites nothing
    (``server_rewrites`` False), the reported address is the peer; when it equals an address the
    header names, it may have come from the header (anyone can send one), and the peer is unknown.
    Streamlit reports 127.0.0.1 and ::1 as None; that is returned as ``127.0.0.1``.

    Example:
        >>> direct_peer("10.0.0.5", ["203.0.113.9"], server_rewrites=True)
        '10.0.0.5'
        >>> direct_peer("127.0.0.2", ["127.0.0.2"], server_rewrites=True) is None
        True
        >>> direct_peer(None, ["203.0.113.9"], server_rewrites=False)
        '127.0.0.1'
    """
    candidates = [reported] if reported else ["127.0.0.1", "::1"]
    hosts = _forwarded_hosts(forwarded_for)
    if server_rewrites and any(_same_host(c, h) for c in candidates for h in hosts):
        return None
    return reported or "127.0.0.1"


def proxy_identity(headers: Mapping[str, str], remote_address: str | None, header: str,
                   trusted: list[str], forwarded_for: Iterable[str] | None = None) -> Identity | None:
    """An identity from a trusted proxy's header, or None (header missing, or the chain vouches for nobody).

    ``remote_address`` is the connection's own address as ``direct_peer`` gives it, never one taken
    from ``X-Forwarded-For``; None means it is unknown, and nothing is trusted then. The header counts
    only when that address and every hop of ``X-Forwarded-For`` between it and the client are in
    ``trusted`` (``resolve_proxy_chain``); otherwise it is ignored and the reason logged: anyone can
    send it. ``forwarded_for`` is that header's lines (default: its value in ``headers``).

    Example:
        >>> proxy_identity({"X-Email": "b@example.org"}, "10.0.0.5", "X-Email", ["10.0.0.0/24"]).issuer
        'proxy:X-Email'
        >>> proxy_identity({"X-Email": "b@example.org"}, "192.0.2.9", "X-Email", ["10.0.0.0/24"]) is None
        True
    """
    value = _header(headers, header)
    if value is None or not str(value).strip():
        return None
    if forwarded_for is None:
        forwarded = _header(headers, "X-Forwarded-For")
        forwarded_for = [forwarded] if forwarded is not None else []
    chain = resolve_proxy_chain(remote_address, forwarded_for, trusted)
    if not chain.trusted:
        log.warning("ignored identity header %s: %s", header, chain.reason)
        return None
    subject = str(value).strip()[:320]
    return Identity(subject=subject, issuer=f"proxy:{header}", name=subject[:200], mode="proxy",
                    authenticated=True)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    return next((v for k, v in headers.items() if k.lower() == name.lower()), None)


def command_line_identity(name: str | None, service: str | None) -> Identity:
    """Who the ``medassure`` command acts as: the configured service identity, else ``name`` locally.

    Example:
        >>> command_line_identity("Dr. Chen", None).mode, command_line_identity("x", "medassure-cli").mode
        ('local', 'service')
    """
    return service_identity(service) if service else local_identity(name)
