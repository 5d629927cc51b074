"""Evidence for a dossier, as pure functions of its records: which benchmarks the mapping points at,
attaching and detaching evidence, selecting and ranking records, the coverage map, the Evidence
page's view, and which benchmarks a judge-agreement setting covers.

Arrows EvidencePlan -> Evidence of the path. Starting runs, juries and imports for a dossier (they
take a store) are ``governance.evidence.operations`` (the frozen plan, HELM and Inspect imports) and
``governance.runs.operations``; running a model is ``evaluator.runs``.
"""
