"""The committee's accept / reject of subcategories, as the CLI and the Task mapping page record them.

Why a function over ``TaskMapping.decide``: a decision carries its time, so deciding again what is
already decided would save a new version that changes nothing a reader cares about. Repeating the
same decision (same status, same note) returns the dossier unchanged, and the save is then a no-op.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from governance.mapping.taxonomy import load_taxonomy

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class MappingLine(BaseModel):
    """One recorded decision, with the names people read."""

    model_config = ConfigDict(frozen=True)

    subcategory_id: str
    """Taxonomy subcategory id."""
    subcategory: str
    """Its name."""
    category: str
    """The category that holds it."""
    status: str
    """``accepted`` or ``rejected``."""
    by: str
    """Who decided."""
    at: str
    """When (ISO 8601)."""
    note: str
    """The reason given, if any."""


def record_mapping(dossier: Dossier, subcategory_id: str, status: str, by: str, note: str = "") -> Dossier:
    """The dossier with one subcategory accepted or rejected; unchanged when that is already recorded.

    Raises:
        TaxonomyError: an unknown subcategory id (the message names the valid ones).

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> d = Dossier(title="Doses", owner="me", intended_use=example_intended_use())
        >>> d2 = record_mapping(d, "supporting_diagnostic_decisions", "accepted", by="me")
        >>> again = record_mapping(d2, "supporting_diagnostic_decisions", "accepted", by="me")
        >>> d2.mapping.accepted, again is d2
        (['supporting_diagnostic_decisions'], True)
    """
    load_taxonomy().subcategory(subcategory_id)
    same = next((d for d in dossier.mapping.decisions if d.subcategory_id == subcategory_id), None)
    if same is not None and same.status == status and same.note == note:
        return dossier
    mapping = dossier.mapping.decide(subcategory_id, status, by=by, note=note)
    return dossier.model_copy(update={"mapping": mapping})


def mapping_lines(dossier: Dossier) -> list[MappingLine]:
    """The recorded decisions in the order they were made, with names.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> mapping_lines(Dossier(title="Doses", owner="me", intended_use=example_intended_use()))
        []
    """
    tax = load_taxonomy()
    return [MappingLine(subcategory_id=d.subcategory_id, subcategory=tax.subcategory(d.subcategory_id).name,
                        category=tax.category_of(d.subcategory_id).name, status=d.status, by=d.by,
                        at=d.at.isoformat(), note=d.note) for d in dossier.mapping.decisions]
