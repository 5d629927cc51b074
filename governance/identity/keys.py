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

The key file is written whole or not at all, and a key shorter than ``MIN_KEY_BYTES`` (empty
included) is refused for signing and for checking alike (``governance.dossier.key_files``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import UTC, datetime
from pathlib import Path

from governance.dossier.key_files import MIN_KEY_BYTES, checked_key, key_id, read_or_create_key
from governance.dossier.storage import StoreError

SIGNATURE_TAG = "medassure-signoff-v1"
__all__ = ["MIN_KEY_BYTES", "SigningKeyError", "check_fields", "key_id", "key_path", "sign_fields",
           "signing_key"]


class SigningKeyError(StoreError):
    """The signing key is missing, empty, too short or cannot be written; nothing is signed or checked."""


def key_path() -> Path:
    """Where the key file lives: ``$MEDASSURE_HOME/signing.key``."""
    from governance.dossier.store_opening import default_home

    return default_home() / "signing.key"


def signing_key() -> bytes:
    """The deployment's secret: the environment's, else the key file's (created 0600 when missing).

    Raises:
        SigningKeyError: the key is shorter than ``MIN_KEY_BYTES``, or the key file cannot be read
            or written (a full disk, say); the message names the variable or the file.

    Example:
        >>> len(signing_key()) >= 32  # doctest: +SKIP
        True
    """
    return read_or_create_key("MEDASSURE_SIGNING_KEY", key_path(), "signing key", SigningKeyError)


def _checked(key: bytes, source: str) -> bytes:
    return checked_key(key, source, "signing key", SigningKeyError)


def signature_message(fields: dict) -> bytes:
    """The bytes a sign-off's signature covers: its fields as sorted-key JSON, under a tag."""
    def plain(v):
        return v.astimezone(UTC).isoformat(timespec="microseconds") if isinstance(v, datetime) else v
    doc = {k: plain(v) for k, v in fields.items()}
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return (SIGNATURE_TAG + text).encode("utf-8")


def sign_fields(fields: dict, key: bytes | None = None) -> tuple[str, str]:
    """``(signature, key_id)`` over ``fields`` with the deployment key."""
    key = _checked(key, "the given key") if key is not None else signing_key()
    return hmac.new(key, signature_message(fields), hashlib.sha256).hexdigest(), key_id(key)


def check_fields(fields: dict, signature: str | None, signed_key_id: str | None,
                 key: bytes | None = None) -> str:
    """``valid``, ``unverified`` (no signature, or another key) or ``forged`` (this key, wrong signature)."""
    if not signature:
        return "unverified"
    key = _checked(key, "the given key") if key is not None else signing_key()
    if signed_key_id != key_id(key):
        return "unverified"
    expected = hmac.new(key, signature_message(fields), hashlib.sha256).hexdigest()
    return "valid" if hmac.compare_digest(expected, signature) else "forged"
