"""The dossier record and its keeping: the intended use, its risk tier, the `Dossier` value, the
versioned store (append-only versions and audit log), the content hash sign-offs bind to, attached documents.

The record types a `Dossier` holds live here too, one module per stage that operates on them
(``rules_records``, ``evidence_records``, ``procurement_records``, ``decision_records``,
``plan_records``, ``addendum_records``), with the MedHELM ``taxonomy`` the mapping is checked
against. They import nothing from the stages, so the stages can import the dossier without an
import cycle; the operations on each record stay in its stage's subpackage.

This is the first arrow of the path (IntendedUse) and the ground every later step stands on: every
other subpackage reads or returns a `Dossier`, and only `store` (with its `store_*` parts) talks to
the database.
"""
