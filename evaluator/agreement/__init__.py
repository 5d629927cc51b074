"""Judge validity statistics: agreement between the jury and clinicians (ICC, Spearman, weighted
kappa) with intervals, the ratings files, and MedHELM's published figures beside ours.
"""
