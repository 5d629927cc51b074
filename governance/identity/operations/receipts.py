"""Which versions an operation wrote: a page's receipt, so its own work never looks like someone else's.

Why here: every front-desk write of a dossier version ends in ``save_as`` (a reviewed change, with its
expected parent) or ``update_as`` (a change applied to the latest version: an attachment, an
attestation, an addendum). Both report the version they wrote to the receipt open in the caller's
context (a ``contextvars`` variable: each Streamlit session runs its script in its own thread, so one
session never collects another's versions). A page opens a receipt around a write
(``pages.ui.permitted``) and records what came back as seen, whatever operation it called, without each
operation returning its version in its own way. A job in a background thread writes outside the
receipt; its brief carries the version (``governance.reevaluation.operations.job``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from governance.dossier.storage import DossierVersion

_OPEN: ContextVar[list | None] = ContextVar("medassure_written_versions", default=None)


@contextmanager
def written_versions() -> Iterator[list[DossierVersion]]:
    """Collect every dossier version the operations writes inside the block (in order).

    Example:
        >>> with written_versions() as got:
        ...     pass  # attach_run(store, "D-1", run_id, actor=Actor.named("me"))
        >>> got
        []
    """
    got: list[DossierVersion] = []
    token = _OPEN.set(got)
    try:
        yield got
    finally:
        _OPEN.reset(token)


def report_written(version: DossierVersion) -> DossierVersion:
    """Note ``version`` on the receipt open in this context, if any; returns it unchanged."""
    got = _OPEN.get()
    if got is not None:
        got.append(version)
    return version
