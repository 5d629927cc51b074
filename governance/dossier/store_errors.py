"""The store's errors, in a module that imports nothing of the house.

Why apart from the storage interface: the floor's low parts (the store's opening, the record key behind
the chain's anchor and the seals) raise these, and the interface names the concepts' store components for
type checkers; with the errors there, the seal a concept's store writes would import the interface that
names that store, a circle (``tests/test_layering.py``). ``governance.dossier.storage`` re-exports them.
"""

from __future__ import annotations


class StoreError(RuntimeError):
    """A store problem with a message meant for the user."""


class StoreLockedError(StoreError):
    """Another process holds the database file."""


class StoreCorruptError(StoreError):
    """The file exists but is not a readable MedAssure database."""


class StoreUnavailableError(StoreError):
    """The database server (PostgreSQL) cannot be reached or refused the login."""
