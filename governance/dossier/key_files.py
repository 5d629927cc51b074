"""Secret keys kept in a file (or an environment variable): read whole, written atomically, never short.

Why one module for it: two secrets guard the record. The signing key (``governance.identity.keys``)
makes sign-offs that no one without it can forge; the record key (``chain_anchor``) seals each
dossier's length and head, so removing the newest version and its audit event together is found.
Both must survive a full disk: a key written in place once was left at 0 bytes, and every later
signature was an HMAC under the empty key, which anyone can compute. So a key file is written to a
temporary file, synced and then linked into place (never replacing a key another process made
first), and a key shorter than ``MIN_KEY_BYTES`` (empty included) is refused for making and for
checking alike, with a message naming where it came from.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import tempfile
from pathlib import Path

MIN_KEY_BYTES = 16
"""The shortest key accepted (128 bits); the key files MedAssure writes hold 64 hex characters."""


def read_or_create_key(env_var: str, path: Path, what: str, error: type[Exception]) -> bytes:
    """``$env_var`` when set, else the file at ``path`` (created 0600 with a fresh key when missing).

    ``what`` names the key in messages ("signing key", "record key"); ``error`` is the exception
    raised, with a one-line message naming the variable or the file, when the key is shorter than
    ``MIN_KEY_BYTES`` or the file cannot be read or written (a full disk, say).
    """
    env = os.environ.get(env_var)
    if env:
        return checked_key(env.encode("utf-8"), env_var, what, error)
    try:
        return checked_key(path.read_bytes().strip(), str(path), what, error)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise error(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    try:
        _create_key_file(path)
        return checked_key(path.read_bytes().strip(), str(path), what, error)
    except OSError as exc:
        raise error(f"{path}: cannot write the {what}, nothing was done with it: "
                    f"{exc.strerror or exc}") from None


def checked_key(key: bytes, source: str, what: str, error: type[Exception]) -> bytes:
    """``key`` when it is at least ``MIN_KEY_BYTES`` long, else ``error`` naming ``source``."""
    if len(key) < MIN_KEY_BYTES:
        size = "empty" if not key else f"{len(key)} bytes long"
        raise error(
            f"{source}: the {what} is {size}; a key needs at least {MIN_KEY_BYTES} bytes. Nothing is "
            "signed or checked with it: restore the key from a backup (or, for a new deployment with no "
            "records yet, delete the file so a new key is made)")
    return key


def key_id(key: bytes) -> str:
    """A short fingerprint of a key (not the key) that names which key made a signature or a seal."""
    return hashlib.sha256(b"medassure-key-id:" + key).hexdigest()[:16]


def _create_key_file(path: Path) -> None:
    """Write a fresh key beside ``path``, sync it, and link it into place unless another process won."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mkstemp makes it 0600
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
