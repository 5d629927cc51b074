"""Task mapping: suggestions of subcategories for an intended use (with the reasons shown to a
reviewer), and matching the committee's model names to the names MedHELM published. The MedHELM
taxonomy itself (``data/taxonomy.json``) is read by ``governance.mapping.taxonomy``, below every
stage, because the dossier's own mapping checks its subcategory ids against it.

Second arrow of the path (IntendedUse -> TaskMapping).
"""

from evaluator.lazy_exports import lazy_exports

_FACE = {  # what pages and the CLI use from this concept: name -> defining module (tests/test_faces.py)
    "mapping_lines": "governance.mapping.decisions",
    "record_mapping": "governance.mapping.decisions",
    "model_ready": "governance.mapping.suggest",
    "warm_up_in_background": "governance.mapping.suggest",
    "TaxonomyError": "governance.mapping.taxonomy",
    "load_taxonomy": "governance.mapping.taxonomy",
}
__all__ = [  # literal, so tools see the names; tests check it matches _FACE
    "TaxonomyError", "load_taxonomy", "mapping_lines", "model_ready", "record_mapping",
    "warm_up_in_background",
]
__getattr__, __dir__ = lazy_exports(globals(), _FACE)
