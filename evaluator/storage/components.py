"""The evaluator's component stores, handed out together so no caller above holds a connection.

Runs, local scenarios and jury passes each own their tables (``evaluator/runs/store.py``,
``evaluator/scenarios/store.py``, ``evaluator/jury/store.py``). Code above the evaluator (pages,
CLI, reports, governance) used to build them from the raw DuckDB connection; now it asks a
``ComponentStores`` (the dossier ``Store`` is one) for ``.runs``, ``.scenarios`` or ``.juries``
and passes that object on. The connection stays private to the store modules, which is what lets
a second backend replace them (see ``governance/dossier/storage.py``).

Each accessor builds a fresh component object over the same connection, exactly as the callers
did before (``runs`` is ``RunStore(con, journal_dir=None)``, ``journaled_runs`` is ``RunStore(con)``);
a component's constructor applies its migrations once and is cheap afterwards.
DuckDB connections are not thread-safe: a background thread takes ``for_thread()`` and closes it.

Why by name: the components sit above this floor (they build on ``evaluator.storage.db``), so the
floor must not import them. Each accessor builds the class (or calls the function) registered for
its name in ``evaluator.extensions`` (``"runs"``: ``RunStore``, ``"read_job"``: ``read_job``, ...),
as a ``"module:name"`` string resolved on first use. The registrations are made in
``evaluator/__init__.py``, which Python runs before this module, so every accessor is complete
whenever a store is opened, even if nothing but ``evaluator.storage`` was imported; each component
still applies its own migrations when it is first built, exactly as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb

from evaluator.extensions import component
from evaluator.storage.db import harden

if TYPE_CHECKING:
    from typing import Self


class ComponentStores:
    """The run, scenario and jury stores over one DuckDB connection.

    Example:
        >>> stores = ComponentStores(duckdb.connect())
        >>> stores.scenarios.list_versions(), stores.runs.get_run("run-x")
        ([], None)
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        harden(con)
        self._con = con

    @property
    def runs(self) -> Any:
        """Run records, results and the response cache, for reading and direct writes.

        Opened without a journal folder, so reading never replays (writes) a killed run's journal:
        recovery is the runner's business (``journaled_runs``). A ``RunStore``.
        """
        return component("runs")(self._con, journal_dir=None)

    @property
    def journaled_runs(self) -> Any:
        """The run store the runner writes through: journals beside the database file, and the
        journals of killed runs replayed when it is opened (so an estimate counts their answers)."""
        return component("runs")(self._con)

    @property
    def run_reads(self) -> Any:
        """Read-only run views for pages that poll a run while it is written (lists, latest results):
        a ``RunReads``."""
        return component("run_reads")(self._con)

    @property
    def scenarios(self) -> Any:
        """Local scenarios: versions, cases and the runs made of them (a ``ScenarioStore``)."""
        return component("scenarios")(self._con)

    @property
    def juries(self) -> Any:
        """Jury passes, their judgements and ratings (a ``JuryStore``)."""
        return component("juries")(self._con)

    @property
    def gradings(self) -> Any:
        """Rubric gradings of scenario runs and their verdicts (a ``GradingStore``)."""
        return component("gradings")(self._con)

    @property
    def attestations(self) -> Any:
        """De-identification attestations, found by the SHA-256 of the file they cover (PHI gate):
        an ``AttestationStore``."""
        return component("attestations")(self._con)

    def read_job(self, job_id: str) -> dict[str, Any] | None:
        """One background job's status row (``evaluator.runs.jobs``), or None.

        Read only, without the migration check a component store runs on creation: pages poll it
        every second next to the job's own writes.
        """
        return component("read_job")(self._con, job_id)

    def for_thread(self) -> Self:
        """The same stores over a new cursor, for use from another thread; ``close()`` it after."""
        view = object.__new__(type(self))
        view.__dict__.update(self.__dict__)
        view._con = self._con.cursor()
        return view

    def close(self) -> None:
        """Close the connection (or this thread's cursor)."""
        self._con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_stores(db: ComponentStores | duckdb.DuckDBPyConnection) -> ComponentStores:
    """``db`` itself, or the component stores over a raw connection (evaluator code and its tests).

    Example:
        >>> isinstance(as_stores(duckdb.connect()), ComponentStores)
        True
    """
    return db if isinstance(db, ComponentStores) else ComponentStores(db)
