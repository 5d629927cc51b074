"""Importers turning outside results (HELM run folders) into MedAssure evidence."""

from evaluator.importers.helm import HelmImportError, HelmRun, load_helm_runs, run_evidence
from evaluator.importers.helm_format import HelmFileError

__all__ = ["HelmFileError", "HelmImportError", "HelmRun", "load_helm_runs", "run_evidence"]
