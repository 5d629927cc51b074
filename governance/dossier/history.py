"""Dossier history: a timeline of versions and a diff between any two versions.

The diff works on the canonical JSON of two versions, section by section (top-level fields
such as ``intended_use``, ``mapping``, ``evidence``, rules, verdicts, decision). Lists of records
that carry an ``id`` (evidence, rules, ...) are compared by id, so an added or removed evidence
item reads as one line instead of a shifted list. Sections added by later features need no code
here: anything in the dossier is diffed.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from governance.dossier.change_text import change_sentence, field_label
from governance.dossier.storage import DossierStorage

MAX_VALUE_CHARS = 200


class Change(BaseModel):
    """One difference between two versions."""

    model_config = ConfigDict(frozen=True)

    section: str
    """Top-level dossier field, e.g. ``intended_use``."""
    path: str
    """Dotted path inside the dossier (list items by id or index)."""
    kind: str
    """``added``, ``removed`` or ``changed``."""
    old: str = ""
    """Previous value (shortened JSON)."""
    new: str = ""
    """New value (shortened JSON)."""
    text: str = ""
    """The change in words, e.g. "Intended use › Human oversight: every output reviewed → …"."""


class VersionDiff(BaseModel):
    """All differences between two versions of one dossier."""

    dossier_id: str
    """Dossier."""
    from_version: int
    """Older side."""
    to_version: int
    """Newer side."""
    from_hash: str
    """Hash of the older side."""
    to_hash: str
    """Hash of the newer side."""
    changes: list[Change]
    """Differences, in section order."""

    @property
    def sections(self) -> list[str]:
        """Sections that differ."""
        return sorted({c.section for c in self.changes})

    @property
    def section_labels(self) -> list[str]:
        """Sections that differ, by their labels ("Intended use", "Sign-offs")."""
        return [field_label(s) for s in self.sections]


def _short(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _keyed(items: list) -> dict[str, Any] | None:
    """Index a list of records by a stable key, or None when the list is not such a list."""
    for key in ("id", "subcategory_id", "rule_id", "role", "name"):
        if items and all(isinstance(i, dict) and key in i for i in items):
            keys = [str(i[key]) for i in items]
            if len(set(keys)) == len(keys):
                return dict(zip(keys, items, strict=True))
    return None


def _walk(old: Any, new: Any, path: str, section: str, out: list[Change]) -> None:
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(dict.fromkeys([*old, *new])):
            _walk(old.get(key), new.get(key), f"{path}.{key}", section, out)
        return
    if isinstance(old, list) and isinstance(new, list):
        ko, kn = _keyed(old), _keyed(new)
        if ko is not None and kn is not None:
            for key in list(dict.fromkeys([*ko, *kn])):
                _walk(ko.get(key), kn.get(key), f"{path}[{key}]", section, out)
            return
    kind = "added" if old is None else "removed" if new is None else "changed"
    out.append(Change(section=section, path=path, kind=kind, old=_short(old), new=_short(new),
                      text=change_sentence(path, kind, old, new)))


def diff_versions(store: DossierStorage, dossier_id: str, from_version: int, to_version: int) -> VersionDiff:
    """Differences between two versions of a dossier.

    Example:
        >>> d = diff_versions(store, "D-demo-portal", 1, 2)  # doctest: +SKIP
        >>> d.sections  # doctest: +SKIP
        ['mapping']
    """
    a = store.load(dossier_id, from_version)
    b = store.load(dossier_id, to_version)
    old = json.loads(a.dossier.canonical_json())
    new = json.loads(b.dossier.canonical_json())
    changes: list[Change] = []
    for section in list(dict.fromkeys([*old, *new])):
        _walk(old.get(section), new.get(section), section, section, changes)
    return VersionDiff(
        dossier_id=dossier_id,
        from_version=a.version,
        to_version=b.version,
        from_hash=a.hash,
        to_hash=b.hash,
        changes=changes,
    )


def timeline(store: DossierStorage, dossier_id: str) -> list[dict]:
    """Every version with what kind of event produced it, oldest first.

    The kind is read from the save note and the sections that changed: ``created``, ``edit``,
    ``mapping``, ``evidence``, ``rules``, ``decision``, ``sign-off``, ``re-evaluation``.
    """
    versions = store.history(dossier_id)
    audit = {
        a.detail.get("version"): a
        for a in store.audit_log(dossier_id)
        if a.action in ("create", "save")
    }
    out = []
    for v in versions:
        event = audit.get(v.version)
        changed = event.detail.get("changed", []) if event else []
        out.append({**v.model_dump(mode="json"), "kind": _kind(v.note, changed), "changed": changed})
    return out


def _kind(note: str, changed: list[str]) -> str:
    if "(created)" in changed:
        return "created"
    if "re-evaluat" in (note or "").lower() or "reevaluat" in (note or "").lower():
        return "re-evaluation"
    sections = " ".join(sorted({c.split(".")[0].split("[")[0] for c in changed}))
    for word, kind in (
        ("sign", "sign-off"),
        ("decision", "decision"),
        ("rule", "rules"),
        ("polic", "rules"),
        ("evidence", "evidence"),
        ("scenario", "evidence"),
        ("candidate", "candidates"),
        ("mapping", "mapping"),
    ):
        if word in sections:
            return kind
    return "edit"
