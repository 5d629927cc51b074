"""Importers turning outside results (HELM run folders) into MedAssure evidence."""

from evaluator.importers.helm import HelmImportError, HelmRun, helm_run_evidence, load_helm_runs
from evaluator.importers.helm_format import HelmFileError

__all__ = ["HelmFileError", "HelmImportError", "HelmRun", "load_helm_runs", "helm_run_evidence"]
