"""The floor of governance: the `Dossier` value and its keeping.

The `Dossier` value is composed of every concept's records (``governance/<concept>/records.py``);
here are its content hash that sign-offs bind to, the hash chain and its anchor, the words shown
for stored keys, the version history and its diff, and the versioned store (append-only versions
and audit log; ``store.py`` composed of its ``store_*`` parts) behind the ``DossierStorage``
protocol. The concepts above extend the floor by registration (``extensions``: their storage
components, the save guards), never by the floor importing them; only the store's modules talk
to the database.
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "field_label": "governance.dossier.change_text",
    "diff_versions": "governance.dossier.history",
    "timeline": "governance.dossier.history",
    "VALUE_LABELS": "governance.dossier.labels",
    "count_text": "governance.dossier.labels",
    "metric_label": "governance.dossier.labels",
    "benchmark_label": "governance.dossier.labels",
    "value_label": "governance.dossier.labels",
    "source_words": "governance.dossier.labels",
    "PRACTICE_MARK": "governance.dossier.practice",
    "PracticeRefused": "governance.dossier.practice",
    "practice_line": "governance.dossier.practice",
    "DossierNotFound": "governance.dossier.store",
    "DossierVersion": "governance.dossier.store",
    "SaveConflict": "governance.dossier.store",
    "StoreError": "governance.dossier.store",
    "StoreWarning": "governance.dossier.store",
    "database_url": "governance.dossier.store",
    "default_home": "governance.dossier.store",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "DossierNotFound", "DossierVersion", "PRACTICE_MARK", "PracticeRefused", "SaveConflict", "StoreError",
    "StoreWarning", "VALUE_LABELS", "benchmark_label", "count_text", "database_url", "default_home",
    "diff_versions", "field_label", "metric_label", "practice_line", "source_words", "timeline",
    "value_label",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
