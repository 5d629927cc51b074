"""``report --sign-key/--sign-cert`` and ``verify-export``: exit 0 verified, 3 not verified, 2 bad input."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli_report import run, saved  # noqa: F401 (fixture)
from tests.reports.test_signing import make_key_and_cert


@pytest.fixture
def keys(tmp_path):
    return make_key_and_cert(tmp_path, "Hospital Exports"), make_key_and_cert(tmp_path, "Someone Else")


def test_signed_card_verifies_and_a_tampered_copy_exits_3(capsys, saved, tmp_path, keys, monkeypatch):  # noqa: F811
    (key, cert), (_, other_cert) = keys
    card, pdf = tmp_path / "card.xml", tmp_path / "d.pdf"
    code, out, err = run(capsys, "report", saved[0], "--out", str(pdf), "--chai", str(card),
                         "--sign-key", str(key), "--sign-cert", str(cert))
    assert code == 0, err
    assert json.loads(out)["files"]["chai"]["signed_by"] == "O=Test Hospital,CN=Hospital Exports"

    code, out, err = run(capsys, "verify-export", str(card), "--cert", str(cert))
    assert code == 0, err
    result = json.loads(out)
    assert result["verified"] is True and result["kind"] == "xml" and "Hospital Exports" in result["signer"]

    code, out, err = run(capsys, "verify-export", str(card), "--cert", str(other_cert))
    assert code == 3 and json.loads(out)["verified"] is False and "NOT VERIFIED" in err

    tampered = tmp_path / "tampered.xml"
    tampered.write_bytes(card.read_bytes().replace(b"Portal replies", b"Portal replieZ", 1))
    assert tampered.read_bytes() != card.read_bytes()
    code, out, err = run(capsys, "verify-export", str(tampered), "--cert", str(cert))
    assert code == 3 and "does not verify" in json.loads(out)["reason"]

    # the same key from the environment; an unsigned card is "not verified", never valid
    monkeypatch.setenv("MEDASSURE_EXPORT_KEY", str(key))
    monkeypatch.setenv("MEDASSURE_EXPORT_CERT", str(cert))
    env_card = tmp_path / "env.xml"
    assert run(capsys, "report", saved[0], "--out", str(pdf), "--chai", str(env_card))[0] == 0
    assert run(capsys, "verify-export", str(env_card), "--cert", str(cert))[0] == 0
    monkeypatch.delenv("MEDASSURE_EXPORT_KEY")
    monkeypatch.delenv("MEDASSURE_EXPORT_CERT")
    plain = tmp_path / "plain.xml"
    assert run(capsys, "report", saved[0], "--out", str(pdf), "--chai", str(plain))[0] == 0
    code, out, _ = run(capsys, "verify-export", str(plain), "--cert", str(cert))
    assert code == 3 and json.loads(out)["reason"] == "the file carries no signature"
    # an unsigned PDF said "not well-formed XML" (issue 36 item 20): it says unsigned, and what is missing
    code, out, err = run(capsys, "verify-export", str(pdf), "--cert", str(cert))
    result = json.loads(out)
    assert code == 3 and result["verified"] is False and "XML" not in err.split("(")[0]
    assert result["reason"].startswith("unsigned: no signature file d.pdf.sig.json beside it")


def test_bad_input_exits_2_with_a_reason(capsys, saved, tmp_path, keys):  # noqa: F811
    (key, cert), (_, other_cert) = keys
    pdf = str(tmp_path / "d.pdf")
    code, _, err = run(capsys, "report", saved[0], "--out", pdf, "--sign-key", str(key))
    assert code == 2 and "give both --sign-key and --sign-cert" in err
    code, _, err = run(capsys, "report", saved[0], "--out", pdf,
                       "--sign-key", str(key), "--sign-cert", str(other_cert))
    assert code == 2 and "is not the certificate of the key" in err
    code, _, err = run(capsys, "verify-export", str(tmp_path / "nope.xml"), "--cert", str(cert))
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "verify-export", str(cert), "--cert", str(key))
    assert code == 2 and "not a PEM certificate" in err
    data = tmp_path / "manifest.json"
    data.write_text("{}")
    code, _, err = run(capsys, "verify-export", str(data), "--cert", str(cert),
                       "--signature", str(tmp_path / "x"))
    assert code == 2 and "no such signature file" in err


def test_detached_signature_beside_a_file_is_found(capsys, tmp_path, keys):
    from reports.signing import ExportSigner

    (key, cert), _ = keys
    data = tmp_path / "manifest.json"
    data.write_bytes(b'{"files": {}}')
    signature = ExportSigner.from_files(key, cert).sign_detached(data.read_bytes())
    (tmp_path / "manifest.json.sig.json").write_bytes(signature)
    code, out, err = run(capsys, "verify-export", str(data), "--cert", str(cert))
    assert code == 0 and json.loads(out)["kind"] == "detached", err
    data.write_bytes(b'{"files": {"x": 1}}')
    assert run(capsys, "verify-export", str(data), "--cert", str(cert))[0] == 3


def test_signed_bundle_from_the_cli_verifies_and_imports(capsys, saved, tmp_path, keys, monkeypatch):  # noqa: F811
    (key, cert), (_, other_cert) = keys
    zip_path = tmp_path / "d.zip"
    code, out, err = run(capsys, "report", saved[0], "--bundle", str(zip_path),
                         "--sign-key", str(key), "--sign-cert", str(cert))
    assert code == 0, err
    code, out, err = run(capsys, "verify-export", str(zip_path), "--cert", str(cert))
    assert code == 0 and json.loads(out)["kind"] == "bundle", err
    assert run(capsys, "verify-export", str(zip_path), "--cert", str(other_cert))[0] == 3
    monkeypatch.setenv("MEDASSURE_HOME", str(tmp_path / "elsewhere"))
    code, out, err = run(capsys, "import-dossier", str(zip_path), "--author", "auditor")
    assert code == 0 and json.loads(out)["hash"] == saved[1], err
