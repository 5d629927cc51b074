"""Task mapping: suggestions of subcategories for an intended use (with the reasons shown to a
reviewer), and matching the committee's model names to the names MedHELM published. The MedHELM
taxonomy itself (``data/taxonomy.json``) is read by ``governance.mapping.taxonomy``, below every
stage, because the dossier's own mapping checks its subcategory ids against it.

Second arrow of the path (IntendedUse -> TaskMapping).
"""
