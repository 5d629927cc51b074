"""Where the shipped, read-only files live: one definition instead of one per module.

Modules sit at different depths of the package tree, so ``Path(__file__).parent.parent`` meant
something different in each; every reader of ``data/`` asks here instead.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
"""The project root: the folder holding ``evaluator/``, ``governance/`` and ``data/``."""

DATA_DIR = REPO_ROOT / "data"
"""Shipped data with sources: taxonomy, published MedHELM results, policies, benchmark specs."""
