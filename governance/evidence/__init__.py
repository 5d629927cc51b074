"""Evidence for a dossier, as pure functions of its records: which benchmarks the mapping points at,
attaching and detaching evidence, selecting and ranking records, the coverage map, the Evidence
page's view, and which benchmarks a judge-agreement setting covers.

Arrows EvidencePlan -> Evidence of the path. Starting runs, juries and imports for a dossier (they
take a store) are at the front desk, ``governance.actions``; running a model is ``evaluator.runs``.
"""
