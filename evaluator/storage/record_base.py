"""A base for stored records that gain fields over time without breaking old content hashes.

Why: a dossier version's hash is taken over its canonical JSON, and sign-offs and exports bind to
it. A field added in a later release would appear as ``null`` (or its default) in every old
record re-dumped today, so the recomputed hash would no longer match the stored one. Records list
such fields in ``_omit_at_default``; they are dumped only when set to something else.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, model_serializer


class OmitNewDefaults(BaseModel):
    """A record whose later-added fields are left out of dumps while at their default.

    Example:
        >>> class R(OmitNewDefaults):
        ...     _omit_at_default: ClassVar[tuple[str, ...]] = ("added",)
        ...     old: int
        ...     added: str | None = None
        >>> R(old=1).model_dump(), R(old=1, added="x").model_dump()
        ({'old': 1}, {'old': 1, 'added': 'x'})
    """

    _omit_at_default: ClassVar[tuple[str, ...]] = ()

    @model_serializer(mode="wrap")
    def _omit_defaults(self, handler):
        doc = handler(self)
        for name in self._omit_at_default:
            if name in doc and getattr(self, name) == type(self).model_fields[name].default:
                del doc[name]
        return doc
