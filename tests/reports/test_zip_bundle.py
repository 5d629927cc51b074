"""The verifiable zip bundle: every file and cited document with a SHA-256 manifest, and its checks."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from cli import main
from evaluator.evidence.record import published_evidence
from governance.demo.candidates import record_demo_candidates
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierNotFound
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use
from governance.procurement.store import sha256_hex
from reports.zip_bundle import (
    MANIFEST,
    MANIFEST_SIGNATURE,
    BundleError,
    document_refs,
    dossier_bundle_zip,
    import_bundle,
    verify_bundle,
)


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A dossier with published evidence and the demo candidates' documents, and its bundle."""
    home = tmp_path_factory.mktemp("source")
    store = Store.open(home / "medassure.duckdb")
    dossier = Dossier(title="Portal replies", owner="committee", intended_use=example_intended_use(),
                      evidence=published_evidence(["MedConfInfo"], ["GPT-4o (2024-05-13)"]))
    dossier = record_demo_candidates(store, dossier)
    v = store.save(dossier, author="alice")
    docs = {r.sha256: store.documents.get(r.sha256) for r in document_refs(v.dossier)}
    data = dossier_bundle_zip(store, v.dossier.id)
    store.close()
    return {"home": home, "version": v, "docs": docs, "zip": data}


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def rebuild(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body in files.items():
            z.writestr(name, body)
    return out.getvalue()


def relist(files: dict[str, bytes]) -> dict[str, bytes]:
    """The files with a manifest rewritten to match them (what a careful forger would do)."""
    manifest = json.loads(files[MANIFEST])
    kinds = {e["path"]: e["kind"] for e in manifest["files"]}
    manifest["files"] = [{"path": p, "kind": kinds.get(p, "document"), "sha256": sha256_hex(b),
                          "size": len(b)} for p, b in files.items()
                         if p not in (MANIFEST, MANIFEST_SIGNATURE)]
    return {**files, MANIFEST: json.dumps(manifest).encode()}


def test_manifest_lists_every_file_with_hash_and_size(source):
    files = members(source["zip"])
    manifest = json.loads(files[MANIFEST])
    v = source["version"]
    assert (manifest["dossier_id"], manifest["version"], manifest["dossier_hash"]) == (
        v.dossier.id, v.version, v.hash)
    listed = {e["path"]: e for e in manifest["files"]}
    assert set(listed) == set(files) - {MANIFEST}
    for path, entry in listed.items():
        assert entry["sha256"] == sha256_hex(files[path]) and entry["size"] == len(files[path])
    assert sorted(e["kind"] for e in manifest["files"] if e["kind"] != "document") == [
        "chai", "evidence", "hti1", "json", "label", "pdf"]
    documents = {sha256_hex(files[p]) for p, e in listed.items() if e["kind"] == "document"}
    assert documents == set(source["docs"]) and len(documents) == 6
    assert files[next(p for p in listed if p.endswith(".pdf"))].startswith(b"%PDF-")


def test_round_trip_keeps_the_hash_and_the_documents(source, store):
    v, stored = import_bundle(store, source["zip"], author="auditor")
    assert v.hash == source["version"].hash and v.dossier == source["version"].dossier
    assert {d.sha256 for d in stored} == set(source["docs"])
    for digest, body in source["docs"].items():
        assert store.documents.get(digest) == body


def test_one_byte_changed_in_a_document_is_refused_by_name(source, store):
    files = members(source["zip"])
    target = next(p for p in files if p.startswith("documents/"))
    body = bytearray(files[target])
    body[10] ^= 0x01
    with pytest.raises(BundleError, match=f"^{target}: SHA-256 or size does not match"):
        import_bundle(store, rebuild({**files, target: bytes(body)}), author="auditor")
    with pytest.raises(DossierNotFound):
        store.load(source["version"].dossier.id)
    assert not any(store.documents.exists(h) for h in source["docs"])


def test_extra_missing_and_uncited_files_are_refused(source):
    files = members(source["zip"])
    with pytest.raises(BundleError, match="^notes.txt: in the archive but not in the manifest"):
        verify_bundle(rebuild({**files, "notes.txt": b"hello"}))
    chai = next(p for p in files if p.endswith("-chai.xml"))
    with pytest.raises(BundleError, match=f"^{chai}: listed in the manifest but missing"):
        verify_bundle(rebuild({k: b for k, b in files.items() if k != chai}))
    with pytest.raises(BundleError, match="^documents/extra.txt: a document the dossier does not cite"):
        verify_bundle(rebuild(relist({**files, "documents/extra.txt": b"smuggled"})))
    doc = next(p for p in files if p.startswith("documents/"))
    with pytest.raises(BundleError, match="cited by the dossier but missing from the bundle"):
        verify_bundle(rebuild(relist({k: b for k, b in files.items() if k != doc})))


def test_a_rehashed_dossier_edit_is_still_refused(source):
    files = members(source["zip"])
    path = next(e["path"] for e in json.loads(files[MANIFEST])["files"] if e["kind"] == "json")
    doc = json.loads(files[path])
    doc["dossier"]["owner"] = "someone else"
    with pytest.raises(BundleError, match=f"^{path}: content hash .* does not match"):
        verify_bundle(rebuild(relist({**files, path: json.dumps(doc).encode()})))


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/passwd", "documents/../../x", "a\\b.txt"])
def test_paths_that_could_escape_are_refused(source, name):
    files = members(source["zip"])
    with pytest.raises(BundleError, match="unsafe or unexpected path"):
        verify_bundle(rebuild(relist({**files, name: b"x"})))


def test_zip_bomb_and_garbage_are_refused(source):
    files = members(source["zip"])
    bomb = b"\0" * (21 * 1024 * 1024)  # inflates from ~20 KB to just over the 20 MB document cap
    data = rebuild(relist({**files, "documents/bomb.bin": bomb}))
    assert len(data) < len(source["zip"]) + 100_000
    with pytest.raises(BundleError, match="^documents/bomb.bin: declares 22,020,096 bytes, over the"):
        verify_bundle(data)
    with pytest.raises(BundleError, match="not a zip archive"):
        verify_bundle(b"PK\x03\x04 but not really")
    manifest = json.loads(files[MANIFEST])
    manifest["files"].append(manifest["files"][0])
    with pytest.raises(BundleError, match=f"^{manifest['files'][0]['path']}: listed twice in manifest.json"):
        verify_bundle(rebuild({**files, MANIFEST: json.dumps(manifest).encode()}))
    with pytest.raises(BundleError, match="manifest.json: missing"):
        verify_bundle(rebuild({k: b for k, b in files.items() if k != MANIFEST}))


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_bundle_round_trip_and_refusal(source, capsys, tmp_path, monkeypatch):
    v = source["version"]
    target = tmp_path / "d.zip"
    monkeypatch.setenv("MEDASSURE_HOME", str(source["home"]))
    code, out, err = run(capsys, "report", v.dossier.id, "--bundle", str(target))
    assert code == 0, err
    assert json.loads(out)["files"]["bundle"] == {"path": str(target), "bytes": target.stat().st_size}
    monkeypatch.setenv("MEDASSURE_HOME", str(tmp_path / "elsewhere"))
    files = members(target.read_bytes())
    doc = next(p for p in files if p.startswith("documents/"))
    bad = tmp_path / "bad.zip"
    bad.write_bytes(rebuild({**files, doc: files[doc] + b"!"}))
    code, out, err = run(capsys, "import-dossier", str(bad))
    assert code == 2 and out == "" and f"{doc}: SHA-256 or size does not match" in err
    code, out, err = run(capsys, "import-dossier", str(target), "--author", "auditor")
    assert code == 0, err
    result = json.loads(out)
    assert (result["id"], result["version"], result["hash"]) == (v.dossier.id, 1, v.hash)
    assert len(result["documents"]) == 6
    code, _, err = run(capsys, "report", v.dossier.id)
    assert code == 2 and "--bundle" in err


def test_signed_bundle_verifies_and_a_forger_who_relists_the_manifest_is_caught(source, tmp_path):
    """Issue 17: the manifest's signature covers every file; a relisted manifest no longer verifies."""
    from reports.bundle import report_bundle
    from reports.signing import ExportSigner, SigningError
    from reports.zip_bundle import bundle_zip, verify_signed_bundle
    from tests.reports.test_signing import make_key_and_cert

    key, cert = make_key_and_cert(tmp_path, "Hospital Exports")
    store = Store.open(source["home"] / "medassure.duckdb")
    try:
        v = source["version"]
        signer = ExportSigner.from_files(key, cert)
        signed = bundle_zip(store, report_bundle(store, v.dossier.id), signer=signer)
    finally:
        store.close()
    trusted = cert.read_bytes()
    assert verify_signed_bundle(signed, trusted).signer == "O=Test Hospital,CN=Hospital Exports"
    assert verify_bundle(signed).dossier.content_hash() == v.hash  # import accepts the signature member

    files = members(signed)
    # the evidence CSV is not bound to the dossier hash: with the manifest re-hashed, the bundle check passes
    csv_name = next(p for p in files if p.endswith("-evidence.csv"))
    forged = relist({**files, csv_name: files[csv_name].replace(b"MedConfInfo", b"MedConfInfX")})
    assert forged[csv_name] != files[csv_name]
    forged[MANIFEST_SIGNATURE] = files[MANIFEST_SIGNATURE]
    forged_zip = rebuild(forged)
    verify_bundle(forged_zip)
    with pytest.raises(SigningError, match="does not verify"):
        verify_signed_bundle(forged_zip, trusted)
    with pytest.raises(SigningError, match="carries no signature"):
        verify_signed_bundle(source["zip"], trusted)


def test_a_high_ratio_member_is_refused_before_it_inflates(source):
    """Issue 25, item 11: a 1 MB zip inflating to 800 MB was read whole (3.6 s, 1.3 GB)."""
    import time

    files = members(source["zip"])
    pdf = next(p for p in files if p.endswith(".pdf"))
    data = rebuild(relist({**files, pdf: b"\0" * (60 * 1024 * 1024)}))  # under the 200 MB cap, ~1,000:1
    assert len(data) < len(source["zip"]) + 200_000
    started = time.perf_counter()
    with pytest.raises(BundleError, match=f"^{pdf}: would inflate .* times its compressed size"):
        verify_bundle(data)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(("name", "kind"), [("notes.txt", "document"), ("notes.txt", "pdf"),
                                            ("extra.csv", "evidence"), ("documents/x.pdf", "pdf")])
def test_a_file_added_and_listed_in_the_manifest_is_refused(source, name, kind):
    """Issue 25, item 11: an added file listed with its correct hash was accepted; the docs say it is not."""
    files = relist({**members(source["zip"]), name: b"added later"})
    manifest = json.loads(files[MANIFEST])
    for e in manifest["files"]:
        e["kind"] = kind if e["path"] == name else e["kind"]
    with pytest.raises(BundleError, match=f"^{name}: "):
        verify_bundle(rebuild({**files, MANIFEST: json.dumps(manifest).encode()}))
