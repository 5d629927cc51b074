"""What procurement records about the watched candidate, read once by the operation before the status.

Why gathered apart: the status (``status.compute_status``) is a pure function of the dossier, the feed's
aggregates and the clock, but two of its checks need facts procurement owns: the candidate's record (the
approved prompt version when the plan names none) and the snapshot's retirement date (the vendor's, else
litellm's shipped model map, which another litellm release may date otherwise). The operations look them
up here once, beside the served names they already gather from the run store, and hand them in, so the
status no longer leaves monitoring midway to resolve the candidate and read the model map, and a test can
give a retirement date without litellm's map.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from governance.dossier.record import Dossier
from governance.procurement.records import Candidate
from governance.procurement.retirement import Retirement, candidate_named, retirement


class Procured(BaseModel):
    """The procurement facts the status of one watched candidate reads."""

    model_config = ConfigDict(frozen=True)

    record: Candidate | None = None
    """The recorded candidate the watched name resolves to (by id, label or evidence model name; None:
    none, or more than one)."""
    retirement: Retirement | None = None
    """Its snapshot's retirement date and where it comes from (None: no record, or no date known)."""


def procured(dossier: Dossier, candidate: str) -> Procured:
    """The candidate's record and its retirement date, looked up once."""
    record = candidate_named(dossier, candidate)
    return Procured(record=record, retirement=retirement(record) if record is not None else None)
