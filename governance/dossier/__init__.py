"""The floor of governance: the `Dossier` value and its keeping.

The `Dossier` value is composed of every concept's records (``governance/<concept>/records.py``);
here are its content hash that sign-offs bind to, the hash chain and its anchor, the words shown
for stored keys, the version history and its diff, and the versioned store (append-only versions
and audit log; ``store.py`` composed of its ``store_*`` parts) behind the ``DossierStorage``
protocol. The concepts above extend the floor by registration (``extensions``: their storage
components, the save guards), never by the floor importing them; only the store's modules talk
to the database.
"""
