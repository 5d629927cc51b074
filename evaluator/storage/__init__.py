"""The one database behind every store: migrations and dialect helpers (``db``), the open-time
checks of a DuckDB file (``integrity``), the PostgreSQL adapter (``postgres``), the evaluator's
component stores handed out together (``components``), and the base for stored records whose
content hashes must survive new fields (``record_base``).

Why one room: these are what lets DuckDB and PostgreSQL sit behind the same stores; each
component's own tables stay with the component (``runs/store.py``, ``jury/store.py``, ...).
The face imports nothing, so ``import evaluator.storage.db`` stays as cheap as that module.
"""
