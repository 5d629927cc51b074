"""Dataset loaders: one registry, one entry point (``load_instances``), one module per format.

Importing this package registers every loader, so ``LOADERS`` is complete wherever it is read.
"""

from evaluator.loaders import aci_bench, builtin, generic, headqa, medcalc, medec, medication_qa, pubmedqa  # noqa: F401
from evaluator.loaders.registry import (
    LOADERS,
    DatasetError,
    Loader,
    get_loader,
    load_instances,
    register_loader,
)

__all__ = ["LOADERS", "DatasetError", "Loader", "get_loader", "load_instances", "register_loader"]
