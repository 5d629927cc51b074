"""A score rule from a few plain values, and whether its benchmark is one the dossier can ever see.

Why: a pipeline sets its bar with one command (``medassure rules ID --add-score-rule calc_builtin
--threshold 0.8``) instead of the Rules page's form, so the rule's id and a stated rationale need
defaults, and a misspelt benchmark must be caught, because a rule that matches no evidence never
passes (it stays inconclusive) and nobody would notice why. The minimum n defaults to the risk
tier's (``data/policies/default.yaml``), as the Rules page's defaults do: a bar without one let a
jury mean on 2 cases pass.
"""

from __future__ import annotations

from evaluator.benchmarks.specs import list_benchmarks
from governance.dossier.record import Dossier
from governance.evidence.select import slug
from governance.mapping.taxonomy import load_taxonomy
from governance.rules.policy import load_defaults
from governance.rules.records import ScoreRule


def tier_min_n(tier: str) -> int:
    """The risk tier's default minimum n.

    Example:
        >>> tier_min_n("moderate"), tier_min_n("critical")
        (100, 400)
    """
    return int(load_defaults().tiers[tier]["min_n"].threshold)  # type: ignore[index]


def score_rule(benchmark: str, threshold: float, *, min_n: int | None = None, rule_id: str | None = None,
               rationale: str | None = None, tier: str = "moderate") -> ScoreRule:
    """A ``ScoreRule`` on one benchmark, with id ``score.<benchmark>`` and a stated rationale by default.

    ``min_n`` None takes the ``tier``'s minimum n; 0 sets none, which the rationale then says.

    Raises:
        pydantic.ValidationError: threshold outside 0-1, negative ``min_n``, or a malformed id.

    Example:
        >>> r = score_rule("MedicationQA", 0.7, min_n=100)
        >>> r.id, r.threshold, r.min_n
        ('score.medicationqa', 0.7, 100)
        >>> score_rule("MedicationQA", 0.7, tier="high").min_n
        200
    """
    name = benchmark.strip()
    from_tier = min_n is None
    if from_tier:
        min_n = tier_min_n(tier)
    where = f" (the default for risk tier {tier})" if from_tier else ""
    text = rationale or (f"Set from the command line: scores on {name} must reach {threshold:g}"
                         + (f" on at least {min_n} instances{where}." if min_n
                            else ", with no minimum n (set explicitly)."))
    return ScoreRule(id=rule_id or f"score.{slug(name)[:70]}", benchmark=name, threshold=threshold,
                     min_n=min_n, rationale=text)


def known_benchmarks(dossier: Dossier) -> list[str]:
    """Names a rule's benchmark can match: runnable benchmark ids, MedHELM benchmarks, the dossier's evidence.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> names = known_benchmarks(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        >>> "calc_builtin" in names and "MedicationQA" in names
        True
    """
    tax = load_taxonomy()
    names = [s.id for s in list_benchmarks()]
    names += [b.name for b in tax.benchmarks]
    names += [e.benchmark for e in dossier.evidence]
    return sorted(set(names))


def unknown_benchmark(dossier: Dossier, benchmark: str) -> bool:
    """True when no known benchmark and no evidence on the dossier carries this name (compared as slugs).

    A local scenario's Evidence is named ``<scenario name> [<id> v<version>]``; a rule on a scenario
    not yet run is reported as unknown, which is a warning, not a refusal.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="demo", owner="me", intended_use=example_intended_use())
        >>> unknown_benchmark(d, "medication qa"), unknown_benchmark(d, "MedicatonQA")
        (False, True)
    """
    return slug(benchmark) not in {slug(n) for n in known_benchmarks(dossier)}
