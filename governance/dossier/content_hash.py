"""What a dossier's content hashes to, and which top-level fields two versions differ in.

Why in ``dossier/``: the hash is a fact about the record, used by every stage that binds to content
(sign-offs in ``decision``, the authorization of a save in ``identity``, the stale-decision checks),
so it lives below all of them. The reasons for its shape (sign-offs and appended records left out,
``None`` and defaults dropped so schema growth keeps old hashes) are in ``governance.decision.signoff``.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


APPENDED = ("reevaluations", "deidentification", "monitoring")
"""Records appended after a decision that report on it without changing it: re-evaluation addenda,
monitoring after go-live (feed imports, signals and what was done about them, safety events), and
de-identification attestations (recorded for the files later runs send; they say how data was handled,
not what the committee decided on, so a re-evaluation's attestation leaves the sign-offs valid)."""


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _content_doc(dossier: Dossier, exclude: set[str]) -> dict:
    doc = dossier.model_dump(mode="json", exclude=exclude)
    for name, field in type(dossier).model_fields.items():
        if name in doc and not field.is_required():
            default = field.get_default(call_default_factory=True)
            if isinstance(default, BaseModel):
                default = default.model_dump(mode="json")
            if doc[name] == default:
                del doc[name]
    return _drop_none(doc)


def _digest(doc: dict) -> str:
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def signable_hash(dossier: Dossier) -> str:
    """SHA-256 of the dossier's content without its sign-offs (see the module docstring).

    Example:
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(id="D-x", title="demo", owner="me", intended_use=example_intended_use())
        >>> signable_hash(d) == signable_hash(d.model_copy(update={"title": "demo"}))
        True
    """
    return _digest(_content_doc(dossier, {"signoffs", *APPENDED}))


def decision_basis_hash(dossier: Dossier) -> str:
    """Signable hash without the decision either: what the committee decided on."""
    return _digest(_content_doc(dossier, {"signoffs", "decision", *APPENDED}))


def changed_fields(before: Dossier, after: Dossier) -> list[str]:
    """Top-level dossier fields that differ between two versions (sign-offs ignored).

    Example:
        >>> changed_fields(signed_version, current)  # doctest: +SKIP
        ['policy']
    """
    a, b = _content_doc(before, {"signoffs"}), _content_doc(after, {"signoffs"})
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
