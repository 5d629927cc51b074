"""The deployment's identity settings: mode, trusted proxy, the CLI's service name, the committee.

Why a file beside the database (``$MEDASSURE_HOME/identity.toml``, or ``$MEDASSURE_IDENTITY_FILE``)
rather than the dossier: membership decides who may change a dossier, so it must not be editable by
saving a dossier. Environment variables override the scalar settings for a container deployment
(``MEDASSURE_AUTH_MODE``, ``MEDASSURE_PROXY_HEADER``, ``MEDASSURE_TRUSTED_PROXIES`` comma-separated,
``MEDASSURE_SERVICE_IDENTITY``). Example file (the README's "Shared deployment" section has more)::

    mode = "oidc"                      # local (default) | oidc | proxy
    service_identity = "medassure-cli" # what the command line records in a shared deployment
    separation_of_duties = true        # one identity signs at most one required role

    [members]                          # deployment-wide committee roles, by subject
    "rivera@hospital.org" = ["chair"]
    "chen@hospital.org" = ["editor", "clinical lead"]

    [dossiers."D-3f9a1c2b".members]    # roles on one dossier only
    "okafor@hospital.org" = ["privacy / compliance"]
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from governance.identity.proxy_chain import trusted_networks


class IdentityConfigError(ValueError):
    """The identity settings cannot be read; the message says where and why."""


class DossierMembers(BaseModel):
    """Roles held on one dossier."""

    model_config = ConfigDict(extra="forbid")

    members: dict[str, list[str]] = Field(default_factory=dict)
    """Subject → roles."""


class IdentityConfig(BaseModel):
    """How this deployment knows who acts, and who holds which role."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["local", "oidc", "proxy"] = "local"
    """local: one desk user, unauthenticated; oidc: Streamlit's login; proxy: a trusted header."""
    proxy_header: str = "X-Forwarded-Email"
    """The header a trusted proxy (e.g. oauth2-proxy) sets to the signed-in user."""
    trusted_proxies: list[str] = Field(default_factory=list)
    """Addresses or networks (CIDR) of the proxies in front of the app, each hop of the chain; the
    identity header is ignored unless the connection and every hop between it and the client are listed."""
    service_identity: str | None = None
    """The command line's identity in a shared deployment; None: the OS login, unauthenticated."""
    separation_of_duties: bool = True
    """One identity signs at most one of the roles a decision requires."""
    members: dict[str, list[str]] = Field(default_factory=dict)
    """Deployment-wide roles by subject: viewer, editor, chair, and sign-off roles."""
    dossiers: dict[str, DossierMembers] = Field(default_factory=dict)
    """Roles held on single dossiers, by dossier id."""

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses_or_networks(cls, value: list[str]) -> list[str]:
        trusted_networks(value)  # a name or a typo would trust nothing, silently: refuse it here
        return value

    @property
    def has_members(self) -> bool:
        """Whether any committee membership is configured."""
        return bool(self.members) or any(d.members for d in self.dossiers.values())


ENV_SETTINGS = {"mode": "MEDASSURE_AUTH_MODE", "proxy_header": "MEDASSURE_PROXY_HEADER",
                "trusted_proxies": "MEDASSURE_TRUSTED_PROXIES",
                "service_identity": "MEDASSURE_SERVICE_IDENTITY"}
"""The settings the environment overrides, by the variable that does."""


def config_path() -> Path:
    """``$MEDASSURE_IDENTITY_FILE`` or ``$MEDASSURE_HOME/identity.toml``."""
    from governance.dossier.store_opening import default_home

    return Path(os.environ.get("MEDASSURE_IDENTITY_FILE") or default_home() / "identity.toml")


def identity_configured() -> bool:
    """Whether any identity configuration exists (a file, or the environment's settings).

    Without one the deployment is a local desk: whoever runs a command holds every role, and each
    write records "local, unauthenticated" (the CLI also says so once per command).
    """
    # set at all, even empty: a deployment that names a setting meant one (``load_config`` refuses an
    # empty one), so the desk is not a local one
    return "MEDASSURE_IDENTITY_FILE" in os.environ or _present(config_path()) or any(
        v in os.environ for v in ENV_SETTINGS.values())



def _present(path: Path) -> bool:
    """Whether anything is at ``path``: a file, a directory, or a link (a link to nothing included).

    ``is_file`` alone read a directory or a dangling link named ``identity.toml`` as "no configuration",
    which is local mode with every role.
    """
    return path.exists() or path.is_symlink()


def load_config(path: Path | None = None) -> IdentityConfig:
    """The settings from the file (when present), overridden by the environment.

    Raises:
        IdentityConfigError: a named file is missing, or the file is empty, not valid TOML, or holds
            unknown or invalid settings.

    A file that was named (``path``, or ``$MEDASSURE_IDENTITY_FILE``) and is missing, and a file that is
    empty, are errors too: a broken configuration never falls back to local mode.

    Example:
        >>> load_config(Path("/nonexistent/identity.toml"))  # doctest: +SKIP
        Traceback (most recent call last):
        IdentityConfigError: /nonexistent/identity.toml: the identity file named by ... does not exist ...
    """
    variable = os.environ.get("MEDASSURE_IDENTITY_FILE")
    if path is None and variable is not None and not variable.strip():
        # ``MEDASSURE_IDENTITY_FILE=$UNSET`` in a deployment script: a file was meant, none is named
        raise IdentityConfigError("MEDASSURE_IDENTITY_FILE is set but empty: name the identity file, or "
                                  "unset the variable for a local, unauthenticated desk")
    named = path is not None or variable is not None
    path = path or config_path()
    raw: dict = {}
    if _present(path) and not path.is_file():
        what = "a directory" if path.is_dir() else "a link to nothing" if path.is_symlink() else "not a file"
        raise IdentityConfigError(f"{path}: the identity file is {what}; point it at the TOML file, or "
                                  "remove it for a local, unauthenticated desk")
    if named and not path.is_file():
        # Fail closed: a named configuration that is not there must not become local mode, where
        # whoever runs the command holds every role.
        raise IdentityConfigError(f"{path}: the identity file named by MEDASSURE_IDENTITY_FILE does not "
                                  "exist (unset the variable for a local, unauthenticated desk)")
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise IdentityConfigError(f"{path}: not valid TOML (not UTF-8: {exc.reason})") from None
        except OSError as exc:  # unreadable (permissions): refused, and said so rather than "not TOML"
            why = exc.strerror or str(exc)
            raise IdentityConfigError(f"{path}: the identity file cannot be read ({why})") from None
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise IdentityConfigError(f"{path}: not valid TOML ({exc})") from None
        if not raw:
            raise IdentityConfigError(f"{path}: the identity file is empty; say at least its mode "
                                      '(mode = "local", "oidc" or "proxy"), or remove the file')
    from_env: set[str] = set()
    for key, var in ENV_SETTINGS.items():
        if var not in os.environ:
            continue
        value = os.environ[var].strip()
        if not value:  # ``MEDASSURE_AUTH_MODE=$UNSET``: a setting was meant; none is given
            raise IdentityConfigError(f"{var} is set but empty: give its value, or unset the variable")
        from_env.add(key)
        raw[key] = [a.strip() for a in value.split(",") if a.strip()] if key == "trusted_proxies" else value
    if "mode" not in raw and ({"proxy_header", "trusted_proxies"} & raw.keys()):
        # A proxy's settings with no mode would be a local desk (every role to whoever connects) behind a
        # proxy that was meant to say who they are: refused rather than guessed either way.
        given = sorted(ENV_SETTINGS[k] if k in from_env else k for k in {"proxy_header", "trusted_proxies"}
                       & raw.keys())
        raise IdentityConfigError(f"{', '.join(given)} given but no mode: set mode = \"proxy\" (or "
                                  "MEDASSURE_AUTH_MODE=proxy) for a trusted proxy, or remove the proxy "
                                  "settings")
    try:
        return IdentityConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(file)"
        source = ENV_SETTINGS[str(first["loc"][0])] if first["loc"] and first["loc"][0] in from_env else path
        raise IdentityConfigError(f"{source}: {where}: {first['msg']}") from None


UVICORN_DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1,::1"


def server_rewrites_forwarded_for() -> bool:
    """Whether the web server may replace a client's address with one from ``X-Forwarded-For``.

    Streamlit serves through uvicorn, whose proxy-header middleware does so for connections from the
    addresses in ``FORWARDED_ALLOW_IPS`` (default ``127.0.0.1,::1``); Streamlit passes no setting of
    its own, so the variable in this process decides, and an empty value switches the rewriting off
    (docs/shared-deployment.md#trusted-proxy).

    Example:
        >>> import os; os.environ["FORWARDED_ALLOW_IPS"] = ""; server_rewrites_forwarded_for()
        False
        >>> del os.environ["FORWARDED_ALLOW_IPS"]; server_rewrites_forwarded_for()
        True
    """
    value = os.environ.get("FORWARDED_ALLOW_IPS", UVICORN_DEFAULT_FORWARDED_ALLOW_IPS)
    return any(part.strip() for part in value.split(","))
