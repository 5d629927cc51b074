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

Why the key file is written to a temporary file, synced and then linked into place: written in place, a
full disk once left ``signing.key`` at 0 bytes, and every later sign-off was an HMAC under the empty key,
which anyone can compute. A key shorter than ``MIN_KEY_BYTES`` (empty included) is refused, for signing
and for checking alike, with a message naming where the key came from.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from governance.dossier.storage import StoreError

SIGNATURE_TAG = "medassure-signoff-v1"
MIN_KEY_BYTES = 16
"""The shortest key accepted (128 bits); the key file MedAssure writes holds 64 hex characters."""


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
    env = os.environ.get("MEDASSURE_SIGNING_KEY")
    if env:
        return _checked(env.encode("utf-8"), "MEDASSURE_SIGNING_KEY")
    path = key_path()
    try:
        return _checked(path.read_bytes().strip(), str(path))
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot read the signing key: {exc.strerror or exc}") from None
    try:
        _create_key_file(path)
        return _checked(path.read_bytes().strip(), str(path))
    except OSError as exc:
        raise SigningKeyError(f"{path}: cannot write the signing key, nothing was signed: "
                              f"{exc.strerror or exc}") from None


def _checked(key: bytes, source: str) -> bytes:
    if len(key) < MIN_KEY_BYTES:
        what = "empty" if not key else f"{len(key)} bytes long"
        raise SigningKeyError(
            f"{source}: the signing key is {what}; a key needs at least {MIN_KEY_BYTES} bytes. Nothing is "
            "signed or checked with it: restore the key from a backup (or, for a new deployment with no "
            "sign-offs yet, delete the file so a new key is made)")
    return key


def _create_key_file(path: Path) -> None:
    """Write a fresh key beside ``path``, sync it, and link it into place unless another process won."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".signing.key.", dir=path.parent)  # mkstemp makes it 0600
    try:
        data = secrets.token_hex(32).encode("ascii")
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
        os.close(fd)
        fd = -1
        try:
            os.link(tmp, path)  # never replaces a key another process made first
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
        _sync_folder(path.parent)
    finally:
        if fd != -1:
            os.close(fd)
        Path(tmp).unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


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
