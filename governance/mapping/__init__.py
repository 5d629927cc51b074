"""Task mapping: the MedHELM taxonomy read from ``data/taxonomy.json``, suggestions of subcategories
for an intended use (with the reasons shown to a reviewer), and matching the committee's model
names to the names MedHELM published.

Second arrow of the path (IntendedUse -> TaskMapping).
"""
