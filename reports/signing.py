"""Signed exports: an XML signature on the CHAI model card, a detached signature on any other file.

Why: a dossier export travels to auditors, regulators and other hospitals. A content hash inside
the file proves nothing, since whoever edits the file can recompute it. A signature made with the
hospital's own private key, checked against the certificate the hospital publishes, proves the
file is the one the hospital issued. The CHAI v0.2 schema ends the model card with an optional
``ds:Signature`` element (W3C XML Signature), so the card carries an enveloped signature over the
whole document; other files (a bundle manifest) get a small detached signature file.

The key and certificate are the hospital's (PEM files; nothing is generated here). Verification
always needs the trusted certificate given out of band: the certificate inside a signed file only
says who claims to have signed it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from lxml import etree
from signxml import InvalidInput, SignatureConfiguration, XMLSigner, XMLVerifier
from signxml.exceptions import InvalidSignature as InvalidXMLSignature

from evaluator.inputs.capped_json import parse_json

KEY_ENV, CERT_ENV = "MEDASSURE_EXPORT_KEY", "MEDASSURE_EXPORT_CERT"
"""Environment variables naming the PEM files of the export-signing key and its certificate."""

DSIG_NS = "http://www.w3.org/2000/09/xmldsig#"
DETACHED_SUFFIX = ".sig.json"
"""A detached signature sits next to its file: ``manifest.json`` → ``manifest.json.sig.json``."""


class SigningError(ValueError):
    """A key, certificate or file that cannot be used, with a message for the user."""


@dataclass(frozen=True)
class Verified:
    """What a successful verification established."""

    signer: str
    """The trusted certificate's subject, e.g. ``CN=Exports,O=St Elsewhere``."""
    sha256: str
    """SHA-256 of the signed content (the file without its signature for XML)."""


def _load_cert(cert_pem: bytes, source: str) -> x509.Certificate:
    try:
        return x509.load_pem_x509_certificate(cert_pem)
    except ValueError as exc:
        raise SigningError(f"{source}: not a PEM certificate ({exc})") from None


@dataclass(frozen=True)
class ExportSigner:
    """The hospital's export-signing key and the certificate that goes with it."""

    key_pem: bytes
    cert_pem: bytes

    @classmethod
    def from_files(cls, key_path: str | Path, cert_path: str | Path) -> ExportSigner:
        """Read and check a PEM private key (unencrypted) and its certificate.

        Raises:
            SigningError: a file is missing or unreadable, or the certificate is not the key's.
        """
        try:
            key_pem, cert_pem = Path(key_path).read_bytes(), Path(cert_path).read_bytes()
        except OSError as exc:
            raise SigningError(f"cannot read the signing key or certificate: {exc}") from None
        try:
            key = serialization.load_pem_private_key(key_pem, password=None)
        except (ValueError, TypeError) as exc:
            raise SigningError(f"{key_path}: not an unencrypted PEM private key ({exc})") from None
        if not isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            raise SigningError(f"{key_path}: use an RSA or EC key")
        cert = _load_cert(cert_pem, str(cert_path))
        public = serialization.PublicFormat.SubjectPublicKeyInfo
        if (key.public_key().public_bytes(serialization.Encoding.DER, public)
                != cert.public_key().public_bytes(serialization.Encoding.DER, public)):
            raise SigningError(f"{cert_path} is not the certificate of the key {key_path}")
        return cls(key_pem=key_pem, cert_pem=cert_pem)

    @classmethod
    def from_env(cls) -> ExportSigner | None:
        """The signer configured by ``MEDASSURE_EXPORT_KEY`` / ``MEDASSURE_EXPORT_CERT``, or None.

        Raises:
            SigningError: only one of the two is set, or the files are unusable.
        """
        key, cert = os.environ.get(KEY_ENV), os.environ.get(CERT_ENV)
        if not key and not cert:
            return None
        if not (key and cert):
            raise SigningError(f"set both {KEY_ENV} and {CERT_ENV} (PEM files), or neither")
        return cls.from_files(key, cert)

    @property
    def subject(self) -> str:
        """The certificate's subject, as shown to readers."""
        return _load_cert(self.cert_pem, "certificate").subject.rfc4514_string()

    def sign_xml(self, xml: bytes) -> bytes:
        """Add an enveloped ``ds:Signature`` over the whole document as the root's last child.

        The certificate travels in ``ds:KeyInfo``; the CHAI schema allows the signature there.
        """
        root = _parse_xml(xml)
        if root.find(f"{{{DSIG_NS}}}Signature") is not None:
            raise SigningError("the document is signed already")
        signed = XMLSigner().sign(root, key=self.key_pem, cert=self.cert_pem.decode("ascii"))
        return etree.tostring(signed, xml_declaration=True, encoding="UTF-8")

    def sign_detached(self, data: bytes) -> bytes:
        """A detached signature document (JSON) over ``data``: algorithm, SHA-256, signature, certificate."""
        key = serialization.load_pem_private_key(self.key_pem, password=None)
        if isinstance(key, rsa.RSAPrivateKey):
            algorithm = "rsa-pss-sha256"
            signature = key.sign(data, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH),
                                 hashes.SHA256())
        else:
            algorithm = "ecdsa-sha256"
            signature = key.sign(data, ec.ECDSA(hashes.SHA256()))
        return json.dumps({"algorithm": algorithm, "sha256": hashlib.sha256(data).hexdigest(),
                           "signature": base64.b64encode(signature).decode("ascii"),
                           "signer": self.subject, "certificate": self.cert_pem.decode("ascii")},
                          indent=2).encode("utf-8")


def _parse_xml(xml: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        return etree.fromstring(xml, parser=parser)
    except etree.XMLSyntaxError as exc:
        raise SigningError(f"not well-formed XML ({exc})") from None


def verify_xml(xml: bytes, trusted_cert_pem: bytes) -> Verified:
    """Check the enveloped signature of a signed XML export against the trusted certificate.

    The signature must sit directly under the root and cover the whole document.

    Raises:
        SigningError: unsigned, altered, signed by another key, or not well-formed.
    """
    cert = _load_cert(trusted_cert_pem, "trusted certificate")
    root = _parse_xml(xml)
    if root.find(f"{{{DSIG_NS}}}Signature") is None:
        raise SigningError("the file carries no signature")
    try:
        result = XMLVerifier().verify(root, x509_cert=cert,
                                      expect_config=SignatureConfiguration(location="./"))
    except (InvalidXMLSignature, InvalidInput) as exc:
        raise SigningError(f"the signature does not verify: {exc}") from None
    signed = result.signed_xml
    if signed is None or signed.tag != root.tag:
        raise SigningError("the signature does not cover the whole document")
    content = etree.tostring(signed, method="c14n")
    return Verified(signer=cert.subject.rfc4514_string(), sha256=hashlib.sha256(content).hexdigest())


def verify_detached(data: bytes, signature_doc: bytes, trusted_cert_pem: bytes) -> Verified:
    """Check a detached signature document (from ``sign_detached``) over ``data``.

    Raises:
        SigningError: the signature document is unreadable, or does not verify with the trusted key.
    """
    cert = _load_cert(trusted_cert_pem, "trusted certificate")
    try:
        doc = parse_json(signature_doc)
        algorithm, signature = doc["algorithm"], base64.b64decode(doc["signature"], validate=True)
    except (ValueError, KeyError, TypeError) as exc:
        raise SigningError(f"unreadable signature file ({exc})") from None
    key = cert.public_key()
    try:
        if algorithm == "rsa-pss-sha256" and isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, data, padding.PSS(padding.MGF1(hashes.SHA256()), padding.PSS.MAX_LENGTH),
                       hashes.SHA256())
        elif algorithm == "ecdsa-sha256" and isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
        else:
            raise SigningError(f"signature algorithm {algorithm!r} does not fit the trusted key")
    except InvalidSignature:
        raise SigningError("the signature does not verify: the file was changed or signed with another key") \
            from None
    return Verified(signer=cert.subject.rfc4514_string(), sha256=hashlib.sha256(data).hexdigest())
