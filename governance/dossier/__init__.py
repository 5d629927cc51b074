"""The dossier record and its keeping: the intended use, its risk tier, the `Dossier` value, the
versioned store (append-only versions and audit log), history and diffs, attached documents.

This is the first arrow of the path (IntendedUse) and the ground every later step stands on: every
other subpackage reads or returns a `Dossier`, and only `store` talks to the database.
"""
