"""A three-way merge of the Intended-use form: your edit applied onto a version someone else saved since.

Why a merge and not "reload and type it again": when two people edit one dossier, the second save is
refused (a save never overwrites an unseen version), and a page that then shows the latest version
throws away what its user typed. Here the form is compared field by field against the version the
user started from (*base*), their form (*mine*) and the latest version (*theirs*): a field only one
side changed takes that side's value; a field both changed to different values is a conflict the
user settles by choosing, with both values in front of them. Nothing typed is dropped silently.

Fields are named by their labels and values in words (``governance.dossier.change_text``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from governance.dossier.change_text import field_label, value_text

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

FORM_FIELDS = ("title", "owner", "purpose", "workflow", "intended_users", "care_setting",
               "patient_population", "out_of_scope_uses", "candidate_models", "decision_role",
               "error_severity", "human_oversight", "phi_exposure", "expected_monthly_volume")
"""What the Intended-use form edits: the dossier's title and owner, and every intended-use field."""

Side = Literal["mine", "theirs"]


class FieldChange(BaseModel):
    """One form field as the three versions have it, in words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str
    """The form field (never shown)."""
    label: str
    """Its label."""
    base: str
    """Its value in the version the user started from."""
    mine: str
    """Its value in the user's form."""
    theirs: str
    """Its value in the latest version."""

    def theirs_line(self) -> str:
        """ "Title: Portal replies → Portal replies (pilot)" """
        return f"{self.label}: {self.base} → {self.theirs}"

    def mine_line(self) -> str:
        """ "Title: Portal replies → Portal drafts" """
        return f"{self.label}: {self.base} → {self.mine}"


class FormMerge(BaseModel):
    """What each side changed since the base, and where both changed the same field differently."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    theirs: list[FieldChange]
    """Fields the other person changed (base → latest)."""
    mine: list[FieldChange]
    """Fields the user changed in the form (base → form)."""
    conflicts: list[FieldChange]
    """Fields both changed, to different values: the user picks one."""

    @property
    def has_my_changes(self) -> bool:
        """Whether the user's form differs from the version they started from."""
        return bool(self.mine)


def form_values(dossier: Dossier) -> dict[str, Any]:
    """The form's fields of a dossier, as the form holds them (lists as lists).

    Example:
        >>> form_values(dossier)["title"]  # doctest: +SKIP
        'Portal replies'
    """
    use = dossier.intended_use.model_dump()
    return {"title": dossier.title, "owner": dossier.owner, **{k: use[k] for k in FORM_FIELDS[2:]}}


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if str(v).strip()]
    return value


def _words(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(value) if value else "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return value_text(value)


def plan_merge(base: dict[str, Any], mine: dict[str, Any], theirs: dict[str, Any]) -> FormMerge:
    """Compare the three versions of the form field by field.

    Example:
        >>> b = {"title": "Portal", "owner": "A"}
        >>> m = plan_merge(b, {**b, "title": "Portal drafts"}, {**b, "owner": "B"})
        >>> [c.mine_line() for c in m.mine], [c.theirs_line() for c in m.theirs], m.conflicts
        (['Title: Portal → Portal drafts'], ['Owner: A → B'], [])
    """
    theirs_changed, mine_changed, conflicts = [], [], []
    for name in (f for f in FORM_FIELDS if f in base):
        b, m, t = _norm(base[name]), _norm(mine.get(name, base[name])), _norm(theirs.get(name, base[name]))
        change = FieldChange(field=name, label=field_label(name), base=_words(b), mine=_words(m),
                             theirs=_words(t))
        if t != b:
            theirs_changed.append(change)
        if m != b:
            mine_changed.append(change)
            if t != b and t != m:
                conflicts.append(change)
    return FormMerge(theirs=theirs_changed, mine=mine_changed, conflicts=conflicts)


def apply_merge(base: dict[str, Any], mine: dict[str, Any], theirs: dict[str, Any],
                picks: dict[str, Side] | None = None) -> dict[str, Any]:
    """The merged form: the user's changes over the latest version, each conflict as picked.

    Raises:
        ValueError: a conflict without a pick, named by its label.

    Example:
        >>> b = {"title": "Portal", "owner": "A"}
        >>> mine, theirs = {"title": "Mine", "owner": "A"}, {"title": "Theirs", "owner": "B"}
        >>> apply_merge(b, mine, theirs, {"title": "mine"})
        {'title': 'Mine', 'owner': 'B'}
    """
    picks = picks or {}
    plan = plan_merge(base, mine, theirs)
    open_ = [c.label for c in plan.conflicts if picks.get(c.field) not in ("mine", "theirs")]
    if open_:
        raise ValueError(f"choose whose value to keep for: {', '.join(open_)}")
    merged = dict(theirs)
    conflicted = {c.field for c in plan.conflicts}
    for c in plan.mine:
        if c.field not in conflicted or picks[c.field] == "mine":
            merged[c.field] = mine[c.field]
    return merged
