"""Built-in clinical calculators: MedCalc-Bench formulas and a deterministic synthetic benchmark."""

from evaluator.calculators.cases import BY_KEY, CALCULATORS, generate_cases

__all__ = ["BY_KEY", "CALCULATORS", "generate_cases"]
