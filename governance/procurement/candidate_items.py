"""Open items and conditions from vendor due diligence, and how they reach the recommendation.

Why two kinds: a missing answer and a bad answer ask different things of a committee. Information
it still lacks is an **open item** (get it before relying on the decision); an answer or contract
fact that falls short is a **condition** (an approval holds only if it is remedied or mitigated).

From the questionnaire (``governance.procurement.attestations``): unanswered questions, free-text answers no
reviewer has judged, and required documents not attached are open items; unsatisfactory answers
are conditions, worded by the question's ``condition``.

From the candidate record, written down here so a reader can check them:

* no price → open item; no data residency → open item;
* the intended use exposes patient data (de-identified or identifiable) and the PHI agreement is
  unknown → open item; known to be absent → condition;
* version pinning unknown → open item; no pinning and the change-notice period unknown → open item;
  no pinning and less than ``MIN_NOTICE_DAYS`` of notice → condition (negotiate notice or pinning);
  no pinning with enough notice → condition (re-run the evidence plan within the notice period).

``MIN_NOTICE_DAYS`` is 30 because a local re-evaluation (runs, jury, committee review) takes weeks.

The recommendation (``governance.rules.recommendation``) is per evidence model. ``with_vendor_items``
adds each candidate's items, labelled with the candidate, to the recommendation of every evidence
model the candidate stands for; an approve with any such item becomes an approve with conditions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from governance.procurement.attestations import statuses
from governance.procurement.records import Candidate

if TYPE_CHECKING:
    from governance.dossier.record import Dossier

MIN_NOTICE_DAYS = 30


class VendorItem(BaseModel):
    """One open item or condition about a candidate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["open_item", "condition"]
    """Missing information, or a shortfall an approval must address."""
    source: Literal["attestation", "contract", "pricing"]
    """Where it comes from."""
    ref: str
    """Question id or contract fact."""
    text: str
    """What the committee must do, in words."""


def attestation_items(candidate: Candidate) -> list[VendorItem]:
    """Items from the candidate's questionnaire answers.

    Example:
        >>> from datetime import UTC, datetime
        >>> c = Candidate(id="c", vendor="v", product="p", model_id="m", added_by="me",
        ...               added_at=datetime.now(UTC))
        >>> items = attestation_items(c)
        >>> {i.kind for i in items}, len(items) == len(statuses([]))
        ({'open_item'}, True)
    """
    items = []
    for s in statuses(candidate.attestations):
        q = s.question
        where = f"{q.topic} ({q.id})"
        if s.status == "unanswered":
            items.append(VendorItem(kind="open_item", source="attestation", ref=q.id,
                                    text=f"{where}: not answered; obtain the vendor's answer."))
        elif s.status == "awaiting_review":
            items.append(VendorItem(kind="open_item", source="attestation", ref=q.id,
                                    text=f"{where}: answered; a reviewer must judge it against: "
                                         f"{q.satisfactory.strip()}"))
        elif s.status == "missing_document":
            items.append(VendorItem(kind="open_item", source="attestation", ref=q.id,
                                    text=f"{where}: attach the supporting document the question requires."))
        elif s.status == "unsatisfactory":
            items.append(VendorItem(kind="condition", source="attestation", ref=q.id,
                                    text=f"{where}: {q.condition.strip()}"))
    return items


def contract_items(candidate: Candidate, phi_exposure: str) -> list[VendorItem]:
    """Items from the candidate's price and contract facts (rules in the module docstring).

    Example:
        >>> from datetime import UTC, datetime
        >>> c = Candidate(id="c", vendor="v", product="p", model_id="m", added_by="me",
        ...               added_at=datetime.now(UTC))
        >>> [i.ref for i in contract_items(c, "identifiable")]
        ['pricing', 'data_residency', 'phi_agreement', 'version_pinning']
    """
    k = candidate.contract
    out: list[VendorItem] = []

    def add(kind: str, source: str, ref: str, text: str) -> None:
        out.append(VendorItem(kind=kind, source=source, ref=ref, text=text))

    if candidate.pricing is None:
        add("open_item", "pricing", "pricing", "No price recorded: obtain a quote.")
    if not (k.data_residency or "").strip():
        add("open_item", "contract", "data_residency", "Confirm where the product processes and stores data.")
    if phi_exposure != "none":
        if k.phi_agreement is None:
            add("open_item", "contract", "phi_agreement",
                "Confirm whether a PHI agreement (business associate agreement) is in place.")
        elif not k.phi_agreement:
            add("condition", "contract", "phi_agreement",
                "Sign a PHI agreement (business associate agreement) before any patient data reaches "
                "the product.")
    if k.version_pinning is None:
        add("open_item", "contract", "version_pinning", "Confirm whether the model version can be pinned.")
    elif not k.version_pinning:
        if k.change_notice_days is None:
            add("open_item", "contract", "change_notice_days",
                "The version cannot be pinned: obtain the vendor's notice period for model changes.")
        elif k.change_notice_days < MIN_NOTICE_DAYS:
            add("condition", "contract", "change_notice_days",
                f"The version cannot be pinned and changes come with {k.change_notice_days} days' notice: "
                f"negotiate at least {MIN_NOTICE_DAYS} days or version pinning, so a re-evaluation can run "
                "before a change takes effect.")
        else:
            add("condition", "contract", "change_notice_days",
                f"The version cannot be pinned: re-run the evidence plan within the "
                f"{k.change_notice_days}-day notice period before each announced model change.")
    return out


def vendor_items(dossier: Dossier, candidate: Candidate) -> list[VendorItem]:
    """All open items and conditions of one candidate: contract first, then attestations."""
    return [*contract_items(candidate, dossier.intended_use.phi_exposure), *attestation_items(candidate)]




