"""The signing key is written whole or not at all; an empty or short key is never used (issue 25, 3)."""

from __future__ import annotations

import errno
import hashlib
import hmac
import os

import pytest

from governance.dossier import key_files
from governance.identity import keys
from governance.identity.keys import SigningKeyError, check_fields, key_path, sign_fields, signing_key


def _full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def key_file_mode(home, monkeypatch):
    """The key comes from $MEDASSURE_HOME/signing.key, not the tests' environment key."""
    monkeypatch.delenv("MEDASSURE_SIGNING_KEY")
    return home / "signing.key"


def test_a_full_disk_on_the_first_key_leaves_no_key_file_and_a_one_line_error(key_file_mode, monkeypatch):
    monkeypatch.setattr(key_files.os, "write", _full_disk)
    with pytest.raises(SigningKeyError) as caught:
        signing_key()
    message = str(caught.value)
    assert str(key_file_mode) in message and "No space left on device" in message and "\n" not in message
    assert not key_file_mode.exists()
    assert os.listdir(key_file_mode.parent) == []  # no temporary file left behind either
    monkeypatch.undo()
    monkeypatch.delenv("MEDASSURE_SIGNING_KEY")
    assert len(signing_key()) == 64  # with room again, the key is made


@pytest.mark.parametrize("content", [b"", b"\n", b"0123456789"])
def test_an_empty_or_short_key_file_is_refused_naming_the_file(key_file_mode, content):
    key_file_mode.parent.mkdir(parents=True)
    key_file_mode.write_bytes(content)
    with pytest.raises(SigningKeyError, match="signing.key: the signing key is"):
        signing_key()
    with pytest.raises(SigningKeyError):
        sign_fields({"role": "chair"})
    with pytest.raises(SigningKeyError):
        check_fields({"role": "chair"}, "ab" * 32, keys.key_id(b""))
    assert key_path().read_bytes() == content  # never replaced: it may be a real key cut short


def test_a_short_environment_key_is_refused(monkeypatch):
    monkeypatch.setenv("MEDASSURE_SIGNING_KEY", "short")
    with pytest.raises(SigningKeyError, match="MEDASSURE_SIGNING_KEY: the signing key is 5 bytes long"):
        signing_key()


def test_a_signature_an_outsider_made_with_the_empty_key_is_never_checked_as_valid():
    fields = {"role": "clinical lead", "name": "Dr. Chen"}
    forged = hmac.new(b"", keys.signature_message(fields), hashlib.sha256).hexdigest()
    with pytest.raises(SigningKeyError):
        check_fields(fields, forged, keys.key_id(b""), key=b"")
    assert check_fields(fields, forged, keys.key_id(b"")) == "unverified"  # the deployment's own key


def test_the_cli_refuses_to_sign_off_with_an_empty_key_file(key_file_mode, capsys):
    from cli import main
    from governance.dossier.store import Store
    from tests.governance.policy_fixtures import dossier, ev

    key_file_mode.parent.mkdir(parents=True)
    key_file_mode.write_bytes(b"")
    d = dossier([ev(0.8, 0.76, 0.84, n=400, model="m1", benchmark="MedConfInfo")])
    store = Store.open(key_file_mode.parent / "medassure.duckdb")
    store.save(d, author="alice")
    store.close()
    main(["rules", d.id, "--init", "--lock", "--by", "chair"])
    main(["decide", d.id, "--decision", "reject", "--rationale", "The vendor withdrew the product.",
          "--by", "chair"])
    capsys.readouterr()
    code = main(["signoff", d.id, "--role", "clinical lead", "--name", "Dr. Chen"])
    err = capsys.readouterr().err
    assert code == 2 and "signing.key: the signing key is empty" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
