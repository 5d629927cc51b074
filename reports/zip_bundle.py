"""A self-contained, verifiable zip of one dossier version, and its import.

Why a zip with a manifest: the JSON export carries attached vendor documents only as hashes, so
a dossier sent to an auditor or another site arrived without them. The bundle holds the PDF, the
re-importable JSON, the CHAI XML, the HTI-1 sheet, the evidence CSV and every document the
dossier cites (the bytes, from the document store), plus ``manifest.json`` listing each file's
SHA-256 and size with the dossier id, version and content hash.

Import trusts nothing in the archive: every file must be listed in the manifest with a matching
hash and size, every listed file must be present, every cited document must be there, and the
dossier JSON must reproduce its own content hash (``reports.exports``); the first fault refuses
the whole bundle, naming the file. The archive is read in memory and never extracted, and still
names that could escape a folder (``../``, absolute, backslashes) are refused, as are duplicate
names, too many members and members over the size caps (a zip bomb declares small and inflates
large; reads stop at the cap whatever the header says). A member that inflates more than
:data:`MAX_RATIO` times its compressed size is refused before any of it is inflated (1 MB of zeros
inflating to 800 MB once took 3.6 s and 1.3 GB of memory), and members are hashed as they stream:
only the dossier JSON and the documents, which import needs, are kept in memory.

The manifest lists only what ``bundle_zip`` writes: one file of each report kind (pdf, json, chai,
hti1, evidence) outside ``documents/`` and the cited documents inside it. Any other entry is an added
file and is refused, even when it is listed with a correct hash.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
import zlib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from evaluator.inputs.capped_json import JsonRefused, parse_json
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierStorage
from governance.dossier.store import DossierVersion
from governance.procurement.records import DocumentRef
from governance.procurement.store import MAX_BYTES as MAX_DOCUMENT_BYTES
from governance.procurement.store import sha256_hex
from reports.bundle import ReportBundle, report_bundle
from reports.exports import DossierImportError, check_importable, import_json, read_dossier_json
from reports.signing import DETACHED_SUFFIX, ExportSigner, Verified, verify_detached

FORMAT = "medassure-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
MANIFEST_SIGNATURE = MANIFEST + DETACHED_SUFFIX
"""With an export key, the manifest's detached signature (``reports.signing``); it covers every file
through their hashes. Import does not require it; ``medassure verify-export`` checks it."""
DOCUMENT_DIR = "documents/"
MAX_MEMBERS = 2000
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
MAX_MANIFEST_BYTES = 4 * 1024 * 1024
MAX_RATIO = 200
"""Most a member may inflate relative to its compressed size (deflate's own limit is about 1,030)."""
RATIO_FREE_BYTES = 1024 * 1024
"""Members inflating to at most this many bytes are not held to ``MAX_RATIO``."""
REPORT_KINDS = frozenset({"pdf", "label", "json", "chai", "hti1", "evidence"})
"""The kinds of file ``bundle_zip`` writes beside the documents (``ReportBundle.downloads``)."""
CHUNK = 1024 * 1024
UNSAFE_NAME = re.compile(r"(^/|^[A-Za-z]:|\\|(^|/)\.\.?(/|$)|//|[\x00-\x1f])")


class BundleError(ValueError):
    """A bundle that cannot be imported, with a message naming the file at fault."""


@dataclass(frozen=True)
class VerifiedBundle:
    """A bundle whose every file matched its manifest entry."""

    manifest: dict[str, Any]
    """The manifest as read."""
    dossier: Dossier
    """The dossier from the bundle's JSON (its content hash checked)."""
    dossier_json: bytes
    """The JSON file's bytes (re-imported as they are)."""
    documents: dict[str, bytes]
    """Cited document SHA-256 → bytes."""


def document_refs(value: Any) -> list[DocumentRef]:
    """Every ``DocumentRef`` a dossier cites, wherever it sits, once per hash, in order found."""
    found: dict[str, DocumentRef] = {}

    def walk(v: Any) -> None:
        if isinstance(v, DocumentRef):
            found.setdefault(v.sha256, v)
        elif isinstance(v, BaseModel):
            for name in type(v).model_fields:
                walk(getattr(v, name))
        elif isinstance(v, list | tuple | set | frozenset):
            for item in v:
                walk(item)
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)

    walk(value)
    return list(found.values())


def _document_path(ref: DocumentRef) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", ref.filename).strip("._") or "document"
    return f"{DOCUMENT_DIR}{ref.sha256[:16]}-{safe[:120]}"


def bundle_zip(store: DossierStorage, bundle: ReportBundle, signer: ExportSigner | None = None) -> bytes:
    """The zip of a prepared report bundle with the dossier's documents and a manifest.

    With a ``signer``, the manifest gets a detached signature (``manifest.json.sig.json``).

    Raises:
        DocumentError: a cited document is missing from the store or no longer matches its hash.
    """
    v = bundle.version
    files: list[tuple[str, str, bytes]] = [(d.file_name, d.kind, d.make()) for d in bundle.downloads]
    files += [(_document_path(ref), "document", store.documents.get(ref.sha256))
              for ref in document_refs(v.dossier)]
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, "dossier_id": v.dossier.id,
                "version": v.version, "dossier_hash": v.hash, "created_at": datetime.now(UTC).isoformat(),
                "files": [{"path": p, "kind": k, "sha256": sha256_hex(b), "size": len(b)}
                          for p, k, b in files]}
    manifest_bytes = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, manifest_bytes)
        if signer is not None:
            archive.writestr(MANIFEST_SIGNATURE, signer.sign_detached(manifest_bytes))
        for path, _, data in files:
            archive.writestr(path, data)
    return out.getvalue()


def dossier_bundle_zip(store: DossierStorage, dossier_id: str, version: int | None = None) -> bytes:
    """The zip of a stored version (the latest by default)."""
    return bundle_zip(store, report_bundle(store, dossier_id, version))


def _stream_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int, keep: bool
                   ) -> tuple[str, int, bytes | None]:
    """(SHA-256, size, the bytes when ``keep``) of one member, read in chunks and never past ``cap``."""
    if info.file_size > cap:
        raise BundleError(f"{info.filename}: declares {info.file_size:,} bytes, over the {cap:,}-byte cap")
    if info.file_size > RATIO_FREE_BYTES and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        ratio = info.file_size / max(info.compress_size, 1)
        raise BundleError(f"{info.filename}: would inflate {ratio:,.0f} times its compressed size, over "
                          f"the {MAX_RATIO}:1 cap (a zip bomb?)")
    digest, size, kept = hashlib.sha256(), 0, []
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK):
                size += len(chunk)
                if size > cap:
                    raise BundleError(f"{info.filename}: inflates past the {cap:,}-byte cap")
                digest.update(chunk)
                if keep:
                    kept.append(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise BundleError(f"{info.filename}: cannot be read from the archive ({exc})") from None
    return digest.hexdigest(), size, b"".join(kept) if keep else None


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int) -> bytes:
    data = _stream_member(archive, info, cap, keep=True)[2]
    assert data is not None
    return data


def _members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise BundleError(f"{len(infos):,} files in the archive, over the {MAX_MEMBERS:,} cap")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename
        if UNSAFE_NAME.search(name) or info.is_dir():
            raise BundleError(f"{name!r}: unsafe or unexpected path in the archive")
        if name in members:
            raise BundleError(f"{name}: appears twice in the archive")
        members[name] = info
    if sum(i.file_size for i in infos) > MAX_TOTAL_BYTES:
        raise BundleError(f"the archive declares more than {MAX_TOTAL_BYTES:,} bytes in all")
    return members


def _manifest(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo]) -> dict[str, Any]:
    if MANIFEST not in members:
        raise BundleError(f"{MANIFEST}: missing, so nothing can be verified")
    try:
        manifest = parse_json(_read_member(archive, members[MANIFEST], MAX_MANIFEST_BYTES))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BundleError(f"{MANIFEST}: not valid JSON ({exc})") from None
    except JsonRefused as exc:
        raise BundleError(f"{MANIFEST}: not accepted: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BundleError(f"{MANIFEST}: not a MedAssure bundle manifest (expected \"format\": \"{FORMAT}\")")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise BundleError(f"{MANIFEST}: format_version {manifest.get('format_version')!r} is not supported")
    entries = manifest.get("files")
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("path"), str) and isinstance(e.get("sha256"), str)
            and isinstance(e.get("size"), int) for e in entries):
        raise BundleError(f"{MANIFEST}: \"files\" must list objects with path, sha256 and size")
    paths = [e["path"] for e in entries]
    twice = sorted({p for p in paths if paths.count(p) > 1})
    if twice:
        raise BundleError(f"{twice[0]}: listed twice in {MANIFEST}")
    return manifest


def verify_bundle(data: bytes) -> VerifiedBundle:
    """Check every file of a bundle against its manifest and the dossier's own hash.

    Raises:
        BundleError: not a zip, unsafe or duplicate paths, over a cap, a file missing, extra or
            changed, a cited document absent, or a dossier whose content hash does not match.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise BundleError(f"not a zip archive ({exc})") from None
    with archive:
        members = _members(archive)
        manifest = _manifest(archive, members)
        listed = {e["path"]: e for e in manifest["files"]}
        extra = sorted(set(members) - set(listed) - {MANIFEST, MANIFEST_SIGNATURE})
        if extra:
            raise BundleError(f"{extra[0]}: in the archive but not in the manifest (extra file)")
        missing = sorted(set(listed) - set(members))
        if missing:
            raise BundleError(f"{missing[0]}: listed in the manifest but missing from the archive")
        _check_kinds(manifest["files"])
        contents: dict[str, bytes] = {}
        for path, entry in listed.items():
            document = path.startswith(DOCUMENT_DIR)
            keep = document or entry.get("kind") == "json"
            digest, size, body = _stream_member(archive, members[path],
                                                MAX_DOCUMENT_BYTES if document else MAX_FILE_BYTES, keep)
            if size != entry["size"] or digest != entry["sha256"]:
                raise BundleError(f"{path}: SHA-256 or size does not match the manifest (file changed)")
            if body is not None:
                contents[path] = body
    return _verified(manifest, contents)


def _check_kinds(entries: list[dict[str, Any]]) -> None:
    """Refuse a manifest entry that is not a file ``bundle_zip`` writes (an added file, listed or not)."""
    seen: set[str] = set()
    for e in entries:
        path, kind = e["path"], e.get("kind")
        if path.startswith(DOCUMENT_DIR):
            if kind != "document":
                raise BundleError(f"{path}: listed as {kind!r}, but files under {DOCUMENT_DIR} are documents")
            continue
        if kind not in REPORT_KINDS or kind in seen:
            raise BundleError(f"{path}: not a file MedAssure writes into a bundle (added file, kind "
                              f"{kind!r})")
        seen.add(kind)


def _verified(manifest: dict[str, Any], contents: dict[str, bytes]) -> VerifiedBundle:
    json_paths = [e["path"] for e in manifest["files"] if e.get("kind") == "json"]
    if len(json_paths) != 1:
        raise BundleError(f"{MANIFEST}: needs one dossier JSON (kind \"json\"), found {len(json_paths)}")
    try:
        dossier, meta = read_dossier_json(contents[json_paths[0]])
    except DossierImportError as exc:
        raise BundleError(f"{json_paths[0]}: {exc}") from None
    if (meta.get("hash"), meta.get("dossier_id"), meta.get("version")) != (
            manifest.get("dossier_hash"), manifest.get("dossier_id"), manifest.get("version")):
        raise BundleError(f"{MANIFEST}: dossier id, version or hash differ from {json_paths[0]}")
    by_hash = {sha256_hex(b): b for p, b in contents.items() if p.startswith(DOCUMENT_DIR)}
    cited = {ref.sha256: ref for ref in document_refs(dossier)}
    absent = [ref.filename for h, ref in cited.items() if h not in by_hash]
    if absent:
        raise BundleError(f"document {absent[0]!r}: cited by the dossier but missing from the bundle")
    uncited = [p for p, b in contents.items() if p.startswith(DOCUMENT_DIR) and sha256_hex(b) not in cited]
    if uncited:
        raise BundleError(f"{uncited[0]}: a document the dossier does not cite (extra file)")
    return VerifiedBundle(manifest=manifest, dossier=dossier, dossier_json=contents[json_paths[0]],
                          documents={h: by_hash[h] for h in cited})


def import_bundle(store: DossierStorage, data: bytes, author: str) -> tuple[DossierVersion,
                  list[DocumentRef]]:
    """Verify a bundle, store its documents, then import its dossier (same content, same hash).

    Raises:
        BundleError: see ``verify_bundle``; nothing is stored then.
    """
    verified = verify_bundle(data)
    try:
        check_importable(store, verified.dossier)  # before any document is stored
    except DossierImportError as exc:
        raise BundleError(str(exc)) from None
    refs = document_refs(verified.dossier)
    stored = [store.documents.put(verified.documents[r.sha256], r.filename, r.media_type, by=author)
              for r in refs]
    return import_json(store, verified.dossier_json, author=author), stored


def verify_signed_bundle(data: bytes, trusted_cert_pem: bytes) -> Verified:
    """Check a bundle whole (``verify_bundle``) and its manifest's signature against a trusted certificate.

    Raises:
        BundleError: the bundle itself does not verify (see ``verify_bundle``).
        SigningError: no manifest signature, or it does not verify with the trusted certificate.
    """
    from reports.signing import SigningError

    verify_bundle(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = _members(archive)
        if MANIFEST_SIGNATURE not in members:
            raise SigningError(f"the bundle carries no signature ({MANIFEST_SIGNATURE} is absent)")
        manifest = _read_member(archive, members[MANIFEST], MAX_MANIFEST_BYTES)
        signature = _read_member(archive, members[MANIFEST_SIGNATURE], MAX_MANIFEST_BYTES)
    return verify_detached(manifest, signature, trusted_cert_pem)
