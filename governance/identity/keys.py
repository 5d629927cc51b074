"""The deployment's signing key and the keyed signature on sign-offs.

Why a keyed signature: a sign-off used to carry only a SHA-256 of the content, which anyone can
recompute, so an export edited outside MedAssure could carry sign-offs that checked as valid. Now each
sign-off carries an HMAC-SHA256, under a secret only this deployment holds, over what was signed (the
content hash, the version shown, the role, the signer's subject and issuer, the time, the name and the
note). Without the key no one can make or alter one; a sign-off made under another key (an import from
another site) cannot be checked here and is shown *unverified*, never valid.

The key is ``$MEDASSURE_SIGNING_KEY`` when set (a shared deployment sets it from its secret store),
otherwise the file ``$MEDASSURE_HOME/signing.key``, created with mode 0600 on first use. Its
``key_id`` (a hash of the key, not the key) is stored with each signature, so a reader can tell "signed
under another key" from "altered".
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

SIGNATURE_TAG = "medassure-signoff-v1"


def key_path() -> Path:
    """Where the key file lives: ``$MEDASSURE_HOME/signing.key``."""
    from governance.dossier.store import default_home

    return default_home() / "signing.key"


def signing_key() -> bytes:
    """The deployment's secret: the environment's, else the key file's (created 0600 when missing).

    Example:
        >>> len(signing_key()) >= 32  # doctest: +SKIP
        True
    """
    env = os.environ.get("MEDASSURE_SIGNING_KEY")
    if env:
        return env.encode("utf-8")
    path = key_path()
    try:
        return path.read_bytes().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_bytes().strip()
    with os.fdopen(fd, "wb") as out:
        out.write(secrets.token_hex(32).encode("ascii"))
    return path.read_bytes().strip()


def key_id(key: bytes) -> str:
    """A short fingerprint of a key (not the key) that names which key made a signature."""
    return hashlib.sha256(b"medassure-key-id:" + key).hexdigest()[:16]


def signature_message(fields: dict) -> bytes:
    """The bytes a sign-off's signature covers: its fields as sorted-key JSON, under a tag."""
    def plain(v):
        return v.astimezone(UTC).isoformat(timespec="microseconds") if isinstance(v, datetime) else v
    doc = {k: plain(v) for k, v in fields.items()}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (SIGNATURE_TAG + text).encode("utf-8")


def sign_fields(fields: dict, key: bytes | None = None) -> tuple[str, str]:
    """``(signature, key_id)`` over ``fields`` with the deployment key."""
    key = key if key is not None else signing_key()
    return hmac.new(key, signature_message(fields), hashlib.sha256).hexdigest(), key_id(key)


def check_fields(fields: dict, signature: str | None, signed_key_id: str | None,
                 key: bytes | None = None) -> str:
    """``valid``, ``unverified`` (no signature, or another key) or ``forged`` (this key, wrong signature)."""
    if not signature:
        return "unverified"
    key = key if key is not None else signing_key()
    if signed_key_id != key_id(key):
        return "unverified"
    expected = hmac.new(key, signature_message(fields), hashlib.sha256).hexdigest()
    return "valid" if hmac.compare_digest(expected, signature) else "forged"
