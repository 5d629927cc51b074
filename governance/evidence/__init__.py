"""Evidence for a dossier: which benchmarks the mapping points at, attaching and selecting
evidence, the coverage map, the Evidence page's view, HELM run imports, local scenarios in a
dossier, local runs started for a dossier, the LLM jury over a finished free-text run, and judge
validity (whether jury scores count).

Arrows EvidencePlan -> Runs -> Evidence of the path; running a model itself lives in
``evaluator.runs``.
"""
