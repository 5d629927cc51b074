"""Run records for the report's appendix, read from the run store through its public API.

Why through ``RunStore``: the run store owns its tables; the report only needs a few fields of
the runs the evidence names. The caller passes ``store.runs``, which is opened without a journal folder, so
reading a report never replays (writes) anything: recovery of killed runs stays the runner's business.
"""

from __future__ import annotations

from evaluator.runs.store import RunStore
from governance.dossier.record import Dossier
from reports.model import AppendixRun


def run_ids(dossier: Dossier) -> list[str]:
    """Run ids named by the dossier's evidence, in first-seen order.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> run_ids(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        []
    """
    return list(dict.fromkeys(e.run_id for e in dossier.evidence if e.run_id))


def run_records(runs: RunStore, ids: list[str]) -> dict[str, AppendixRun]:
    """The stored record of each run id that the run store knows (others are left out).

    Example:
        >>> import duckdb
        >>> run_records(RunStore(duckdb.connect(), journal_dir=None), ["run-unknown"])
        {}
    """
    if not ids:
        return {}
    found = {i: runs.get_run(i) for i in ids}
    return {i: AppendixRun.model_validate(row) for i, row in found.items() if row}
