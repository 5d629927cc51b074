"""Signed exports: the CHAI card's XML signature and detached signatures, with throw-away keys."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from lxml import etree

from reports.chai import chai_model_card_xml
from reports.signing import DETACHED_SUFFIX, ExportSigner, SigningError, verify_detached, verify_xml
from tests.conftest import shared_path


def make_key_and_cert(tmp_path, name: str, kind: str = "rsa"):
    """A throw-away private key and self-signed certificate, written as PEM files."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048) if kind == "rsa" \
        else ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Test Hospital")])
    now = dt.datetime.now(dt.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    key_path, cert_path = tmp_path / f"{name}.key", tmp_path / f"{name}.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    return {"hospital": make_key_and_cert(d, "Hospital Exports"),
            "other": make_key_and_cert(d, "Someone Else"),
            "ec": make_key_and_cert(d, "EC Exports", kind="ec")}


@pytest.fixture
def signed_card(base_version, keys):
    signer = ExportSigner.from_files(*keys["hospital"])
    return signer.sign_xml(chai_model_card_xml(base_version).encode("utf-8"))


def test_signed_card_verifies_with_the_hospital_certificate(signed_card, keys):
    result = verify_xml(signed_card, keys["hospital"][1].read_bytes())
    assert result.signer == "O=Test Hospital,CN=Hospital Exports" and len(result.sha256) == 64
    root = etree.fromstring(signed_card)
    assert root[-1].tag == "{http://www.w3.org/2000/09/xmldsig#}Signature", "the schema wants it last"
    assert b"Hospital Exports" not in signed_card.split(b"<ds:Signature")[0]  # only in KeyInfo's certificate


def test_one_changed_character_or_another_certificate_fails(signed_card, keys):
    trusted = keys["hospital"][1].read_bytes()
    tampered = signed_card.replace(b"<Summary>", b"<Summary>X", 1)
    assert tampered != signed_card
    with pytest.raises(SigningError, match="does not verify"):
        verify_xml(tampered, trusted)
    with pytest.raises(SigningError, match="does not verify"):
        verify_xml(signed_card, keys["other"][1].read_bytes())


def test_unsigned_card_is_refused_and_signing_twice_is_refused(base_version, keys, signed_card):
    unsigned = chai_model_card_xml(base_version).encode("utf-8")
    with pytest.raises(SigningError, match="no signature"):
        verify_xml(unsigned, keys["hospital"][1].read_bytes())
    with pytest.raises(SigningError, match="signed already"):
        ExportSigner.from_files(*keys["hospital"]).sign_xml(signed_card)


def test_signed_card_still_validates_against_the_chai_schema(tmp_path, keys):
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema is in the test extra")
    schema = xmlschema.XMLSchema(str(shared_path("reference", "chai_mc_v0.2", "schema.xsd")))
    from tests.reports.test_exports import _demo_version

    xml = chai_model_card_xml(_demo_version(tmp_path)).encode()
    card = ExportSigner.from_files(*keys["hospital"]).sign_xml(xml)
    assert [f"{e.path}: {e.reason}" for e in schema.iter_errors(card.decode("utf-8"))] == []


@pytest.mark.parametrize("kind", ["hospital", "ec"])
def test_detached_signature_round_trip_and_tamper(keys, kind):
    signer = ExportSigner.from_files(*keys[kind])
    data = json.dumps({"files": {"a.pdf": "ab" * 32}}).encode()
    sig = signer.sign_detached(data)
    assert verify_detached(data, sig, keys[kind][1].read_bytes()).sha256 == json.loads(sig)["sha256"]
    with pytest.raises(SigningError, match="does not verify"):
        verify_detached(data + b" ", sig, keys[kind][1].read_bytes())
    with pytest.raises(SigningError):
        verify_detached(data, sig, keys["other" if kind == "hospital" else "hospital"][1].read_bytes())
    assert DETACHED_SUFFIX == ".sig.json"


def test_mismatched_or_missing_key_files_are_clear_errors(keys, tmp_path, monkeypatch):
    with pytest.raises(SigningError, match="is not the certificate of the key"):
        ExportSigner.from_files(keys["hospital"][0], keys["other"][1])
    with pytest.raises(SigningError, match="cannot read"):
        ExportSigner.from_files(tmp_path / "nope.key", keys["hospital"][1])
    with pytest.raises(SigningError, match="not an unencrypted PEM private key"):
        ExportSigner.from_files(keys["hospital"][1], keys["hospital"][1])
    monkeypatch.delenv("MEDASSURE_EXPORT_KEY", raising=False)
    monkeypatch.delenv("MEDASSURE_EXPORT_CERT", raising=False)
    assert ExportSigner.from_env() is None
    monkeypatch.setenv("MEDASSURE_EXPORT_KEY", str(keys["hospital"][0]))
    with pytest.raises(SigningError, match="set both"):
        ExportSigner.from_env()
