"""What a recorded candidate pre-fills in the Run evidence form: endpoint, key variable, prices.

Why a small function of its own: a candidate recorded on the Candidates page already says how to
call it (``Candidate.endpoint``: model string, API base, the *name* of its key variable) and what
it costs (its quote). Running its evidence should start from exactly that, not from a retyped
model string, so that the run, its cost and the candidate line up. Prices come from the quote when
it is per token, else from the endpoint's own price override; a per-seat quote has no per-token
price, and the note says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from governance.dossier.record import Dossier


class RunPreset(BaseModel):
    """The run form's values for one recorded candidate."""

    model_config = ConfigDict(frozen=True)

    candidate_id: str
    """The candidate."""
    label: str
    """``vendor · product``, for the picker."""
    model: str
    """litellm model string (the endpoint's, else the candidate's model id)."""
    api_base: str
    """API base ('' when the provider's own)."""
    api_key_env: str
    """Name of the key variable ('' when none is recorded)."""
    input_price: float | None
    """USD per 1M prompt tokens (None: not known from the candidate)."""
    output_price: float | None
    """USD per 1M completion tokens."""
    note: str
    """Where the values come from."""


def run_presets(dossier: Dossier) -> list[RunPreset]:
    """One preset per recorded candidate, in the dossier's order.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> from governance.dossier.record import Dossier
        >>> run_presets(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        []
    """
    out = []
    for c in dossier.candidates:
        e, p = c.endpoint, c.pricing
        if p is not None and p.kind == "per_token":
            prices = (p.input_usd_per_mtok, p.output_usd_per_mtok)
            price_note = f"prices from the quote{f' ({p.source})' if p.source else ''}"
        elif e is not None and e.input_price_per_mtok is not None:
            prices = (e.input_price_per_mtok, e.output_price_per_mtok)
            price_note = "prices from the recorded endpoint"
        else:
            prices = (None, None)
            price_note = ("no per-token price (the quote is per seat)" if p is not None
                          else "no price recorded")
        where = ("the recorded endpoint" if e is not None
                 else "the candidate's model id (no endpoint recorded)")
        out.append(RunPreset(
            candidate_id=c.id, label=c.label, model=e.model if e else c.model_id,
            api_base=(e.api_base or "") if e else "", api_key_env=(e.api_key_env or "") if e else "",
            input_price=prices[0], output_price=prices[1],
            note=f"Model and server from {where}; {price_note}."))
    return out
