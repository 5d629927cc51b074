"""What a person may type into a dossier: no control characters, and bounded sizes.

Why one base class: every record a person fills in (intended use, decision, sign-off, rules,
candidates, cost inputs) inherits :class:`UserRecord`, whose one validator checks each text field
and each list of texts after the field's own constraints. Control characters (NUL, BEL, ESC, VT,
FF, the rest of C0, and DEL) have no business in a committee's words: XML 1.0 cannot carry them
(the CHAI card stops being well-formed), a terminal acts on ESC, and a PDF shows boxes. They are
refused; tab, line feed and carriage return stay allowed. The bidi controls that make text show in
another order than it is stored (U+202E and its kin, ``evaluator.inputs.text_controls``) are refused
too. (A record that strips whitespace has already dropped leading and trailing form feeds and the
like, so those never reach the store.)

Caps, far beyond any real dossier and low enough that the PDF of a dossier with every field at its
cap renders in bounded time (``bench/report_caps.py`` prints the figure):

- a text field without a stated ``max_length``: :data:`TEXT_CAP` characters (the long free-text
  fields of the intended use keep their own, larger cap, ``intended_use.TEXT_MAX``);
- a list of texts (intended users, out-of-scope uses, conditions, roles...): :data:`LIST_CAP`
  items of at most :data:`ITEM_CAP` characters each (or the record's ``item_caps``).

Each message names the field by its label (``Out-of-scope uses``), not its key.
"""

from __future__ import annotations

from typing import Any, ClassVar

from annotated_types import MaxLen
from pydantic import BaseModel, ValidationInfo, field_validator

from evaluator.inputs.text_controls import CONTROL_CHARS as CONTROL_CHARS  # re-exported: one definition
from evaluator.inputs.text_controls import control_problem

TEXT_CAP = 5_000
"""Characters in a text field that states no cap of its own."""
LIST_CAP = 200
"""Items in a list of texts."""
ITEM_CAP = 1_000
"""Characters in one item of a list of texts."""

STORED_KEY = "medassure_stored"
STORED = {STORED_KEY: True}
"""Validation context for content read back from the store: the checks here apply to what a person
types now, not to versions saved before they existed (a stored dossier with, say, a list longer than
today's cap must still open, so the committee can read and correct it; exports strip controls anyway).
Imports of files from elsewhere do not pass it and are checked in full."""

def field_label(model: type[BaseModel], name: str) -> str:
    """The human label of a field: its ``title`` when set, else its name in words.

    Example:
        >>> from governance.intended_use.records import IntendedUse
        >>> field_label(IntendedUse, "care_setting"), field_label(IntendedUse, "out_of_scope_uses")
        ('Care setting', 'Out-of-scope uses')
    """
    field = model.model_fields.get(name)
    if field is not None and field.title:
        return field.title
    return name.replace("_", " ").strip().capitalize()


def _declared_max(model: type[BaseModel], name: str) -> int | None:
    field = model.model_fields.get(name)
    for item in field.metadata if field is not None else ():
        if isinstance(item, MaxLen):
            return item.max_length
    return None


def _check_text(text: str, label: str, cap: int | None) -> None:
    problem = control_problem(text)
    if problem:
        raise ValueError(f"{label} contains {problem}: remove it (tabs and line breaks are fine)")
    if cap is not None and len(text) > cap:
        raise ValueError(f"{label} is {len(text):,} characters long; at most {cap:,} are accepted")


def check_user_value(model: type[BaseModel], name: str, value: Any) -> Any:
    """Refuse control characters and oversized text or lists in one field's raw value.

    Text and lists of texts are checked; other values (numbers, nested records, mappings) are
    left to their own validation. Returns the value unchanged.

    Raises:
        ValueError: naming the field's label, what is wrong and the limit.
    """
    label = field_label(model, name)
    declared = _declared_max(model, name)
    item_cap = getattr(model, "item_caps", {}).get(name, ITEM_CAP)
    if isinstance(value, str):
        _check_text(value, label, None if declared is not None else TEXT_CAP)
    elif isinstance(value, list | tuple) and any(isinstance(v, str) for v in value):
        cap = declared if declared is not None else LIST_CAP
        if len(value) > cap:
            raise ValueError(f"{label} lists {len(value):,} items; at most {cap:,} are accepted")
        for number, item in enumerate(value, start=1):
            if isinstance(item, str):
                _check_text(item, f"{label}, item {number},", item_cap)
    return value


class UserRecord(BaseModel):
    """Base of records a person fills in: see the module docstring for what is checked.

    A record may set ``item_caps`` (a class variable) to cap the items of one list of texts
    below :data:`ITEM_CAP`, e.g. roles, which a sign-off caps at 200 characters.
    """

    item_caps: ClassVar[dict[str, int]] = {}

    @field_validator("*", mode="after")
    @classmethod
    def _user_text(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(info.context, dict) and info.context.get(STORED_KEY):
            return value  # already in the store: read it as it was saved (see ``STORED``)
        return check_user_value(cls, info.field_name, value) if info.field_name else value
