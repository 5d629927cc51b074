"""Machine-readable exports of a dossier version: JSON (re-importable), evidence CSV, HTI-1 CSV.

Why the JSON carries the hash and the import checks it: a dossier leaves the building (to a
vendor, an auditor, another site) and comes back. The export is the version's canonical content
plus its hash; the import re-validates the content, recomputes the SHA-256 and refuses a file
whose content no longer matches its hash, so an edit made outside MedAssure cannot pass as the
signed version. An import that passes saves the same content, hence the same hash.

The CSVs neutralise cells that a spreadsheet would run as formulas, through the one writer every CSV
export uses (``evaluator.inputs.csv_cells``, which says why and how).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from evaluator.evidence.record import Evidence
from evaluator.inputs.capped_json import JsonRefused, parse_json
from evaluator.inputs.csv_cells import csv_text
from governance.dossier.record import Dossier
from governance.dossier.storage import DossierNotFound, DossierStorage
from governance.dossier.store import DossierVersion
from reports.hti1 import source_attributes

FORMAT = "medassure-dossier"
FORMAT_VERSION = 1


class DossierImportError(ValueError):
    """A dossier file that cannot be imported, with a message for the user."""


def export_json(version: DossierVersion) -> str:
    """The version as a JSON document: metadata plus the dossier content that the hash covers.

    Example:
        >>> doc = json.loads(export_json(store.load("D-demo-portal")))  # doctest: +SKIP
        >>> doc["format"], len(doc["hash"])  # doctest: +SKIP
        ('medassure-dossier', 64)
    """
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "dossier_id": version.dossier.id,
           "version": version.version, "hash": version.hash, "parent_hash": version.parent_hash,
           "author": version.author, "created_at": version.created_at.isoformat(), "note": version.note,
           "dossier": json.loads(version.dossier.canonical_json())}
    return json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def read_dossier_json(text: str | bytes) -> tuple[Dossier, dict[str, Any]]:
    """Validate an exported file: returns the dossier and the file's metadata.

    Raises:
        DossierImportError: not JSON, not a MedAssure dossier export, invalid content, or a content hash
            that does not match the file's ``hash`` (the content was changed after export).
    """
    try:
        doc = parse_json(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DossierImportError(f"not valid JSON: {exc}") from None
    except JsonRefused as exc:
        raise DossierImportError(f"not accepted: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or "dossier" not in doc:
        raise DossierImportError(
            f"not a MedAssure dossier export (expected \"format\": \"{FORMAT}\" and a \"dossier\")")
    if doc.get("format_version") != FORMAT_VERSION:
        raise DossierImportError(
            f"format_version {doc.get('format_version')!r} is not supported (expected {FORMAT_VERSION})")
    try:
        dossier = Dossier.model_validate(doc["dossier"])
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(dossier)"
        raise DossierImportError(
            f"invalid dossier content: {where}: {first['msg']} ({exc.error_count()} error(s))") from None
    digest = dossier.content_hash()
    if digest != doc.get("hash"):
        raise DossierImportError(
            f"content hash {digest[:12]}… does not match the file's hash {str(doc.get('hash'))[:12]}…: the "
            "dossier was changed after export, or exported by a MedAssure version with a different format")
    return dossier, {k: v for k, v in doc.items() if k != "dossier"}


def import_json(store: DossierStorage, text: str | bytes, author: str) -> DossierVersion:
    """Validate an exported file and save its dossier as a version (same content, same hash).

    Saving content identical to the dossier's latest version adds nothing and returns that version. An
    import never replaces the latest version of a dossier this store already holds: a file whose content
    differs from it is refused (``check_importable``), since anyone can edit an export and recompute its
    hash.

    Raises:
        DossierImportError: see ``read_dossier_json``, and a dossier with the same id and other content.

    Example:
        >>> v = import_json(other_store, export_json(version), author="auditor")  # doctest: +SKIP
        >>> v.hash == version.hash  # doctest: +SKIP
        True
    """
    dossier, meta = read_dossier_json(text)
    existing = check_importable(store, dossier)
    if existing is not None:
        return existing
    note = f"imported from export of version {meta.get('version')} by {meta.get('author')}"
    return store.save(dossier, author=author, note=note)


def check_importable(store: DossierStorage, dossier: Dossier) -> DossierVersion | None:
    """None when the store has no dossier of this id; its latest version when that has the same content.

    Raises:
        DossierImportError: the store holds this dossier with other content; nothing is saved.
    """
    try:
        head = store.load(dossier.id)
    except DossierNotFound:
        return None
    if head.hash == dossier.content_hash():
        return head
    raise DossierImportError(
        f"dossier {dossier.id} already exists here (version {head.version}, hash {head.hash[:12]}…) with "
        "other content; an import never replaces a dossier's latest version. Edit the dossier here, or "
        "import the file into another MedAssure home (--home)")


EVIDENCE_COLUMNS = [f for f in Evidence.model_fields if f != "subgroups"]


def evidence_csv(evidence: list[Evidence]) -> str:
    """One row per evidence record (all fields but subgroups, which get a row each in ``subgroup_*``).

    Example:
        >>> evidence_csv([]).splitlines()[0].startswith("id,model,benchmark")
        True
    """
    header = [*EVIDENCE_COLUMNS, "subgroup_tag", "subgroup_group", "subgroup_score", "subgroup_n"]
    rows: list[list[Any]] = []
    for e in evidence:
        base = [getattr(e, c) for c in EVIDENCE_COLUMNS]
        base = [v.isoformat() if hasattr(v, "isoformat") else v for v in base]
        rows.append([*base, "", "", "", ""])
        rows += [[*base, s.tag, s.group, "suppressed" if s.suppressed else s.score, s.n]
                 for s in e.subgroups or []]
    return csv_text(header, rows)


def hti1_csv(dossier: Dossier) -> str:
    """The 31 HTI-1 source attributes with the dossier's answers (``not provided`` elsewhere)."""
    return csv_text(["number", "group", "attribute", "value", "from_field"],
                [[a.number, a.group, a.attribute, a.value, a.from_field] for a in source_attributes(dossier)])
