"""The HTI-1 predictive-DSI source-attribute sheet, filled from the dossier: a procurement checklist.

Why a hospital fills a developer's form: HTI-1 puts these 31 attributes on certified health-IT
developers, but a committee buying or approving a model needs the same answers. Filling what the
dossier already knows (intended use, population, out-of-scope uses, the external evidence it
gathered) and marking everything else "not provided" turns the sheet into the list of questions
to put to the vendor. The attribute wording lives in ``data/hti1_attributes.csv`` (with its
source); this module only decides which dossier fact answers which attribute.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from functools import cache

from pydantic import BaseModel, ConfigDict

from evaluator.paths import DATA_DIR
from governance.dossier.record import Dossier
from governance.intended_use.records import DECISION_ROLE_LABELS
from reports.model import NOT_PROVIDED, Section, Table

ATTRIBUTES_FILE = DATA_DIR / "hti1_attributes.csv"
PARTY = {"published": "Stanford MedHELM (published results)",
         "helm-import": "the hospital (its own HELM runs)",
         "local-run": "the hospital (runs made in MedAssure)",
         "inspect-import": "the hospital (its own Inspect evaluation logs)"}


class SourceAttribute(BaseModel):
    """One HTI-1 source attribute and what the dossier says about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int
    """1-31, in the order of the regulation's list."""
    group: str
    """The heading it sits under."""
    attribute: str
    """What is asked (paraphrased)."""
    value: str
    """The answer from the dossier, or ``not provided``."""
    from_field: str
    """Which dossier field answered it (empty when not provided)."""


@cache
def _attribute_rows() -> tuple[dict[str, str], ...]:
    with ATTRIBUTES_FILE.open(encoding="utf-8", newline="") as f:
        return tuple(csv.DictReader(f))


def _evidence_summary(dossier: Dossier, provenances: set[str]) -> str | None:
    chosen = [e for e in dossier.evidence if e.provenance in provenances]
    if not chosen:
        return None
    parts = []
    for (bench, metric), group in _by_benchmark(chosen).items():
        scores = [e.score for e in group]
        ns = sorted({e.n for e in group if e.n is not None})
        span = f"{min(scores):.3f}" if len(scores) == 1 else f"{min(scores):.3f} to {max(scores):.3f}"
        parts.append(f"{bench} ({metric}, n={'/'.join(map(str, ns)) or '?'}): {span} across "
                     f"{len(group)} model{'s' if len(group) > 1 else ''}")
    return "; ".join(parts) + ". Per-model scores with 95% intervals are in the dossier report."


def _by_benchmark(evidence: list) -> dict[tuple[str, str], list]:
    groups: dict[tuple[str, str], list] = {}
    for e in sorted(evidence, key=lambda e: (e.benchmark, e.metric)):
        groups.setdefault((e.benchmark, e.metric), []).append(e)
    return groups


def _subgroup_summary(dossier: Dossier, provenances: set[str]) -> str | None:
    groups: dict[str, list[float]] = {}
    for e in dossier.evidence:
        if e.provenance in provenances:
            for s in e.subgroups or []:
                if not s.suppressed and s.score is not None:
                    groups.setdefault(f"{s.tag}={s.group}", []).append(s.score)
    if not groups:
        return None
    spans = [f"{g}: {min(v):.3f} to {max(v):.3f} over {len(v)} record(s)" for g, v in sorted(groups.items())]
    return "; ".join(spans) + ". Per-record subgroup scores are in the dossier report."


def _external_sources(dossier: Dossier) -> str | None:
    benches = sorted({e.benchmark for e in dossier.evidence if e.provenance != "local-run"})
    return ("Benchmarks outside the developer's own data: " + ", ".join(benches)) if benches else None


def _parties(dossier: Dossier) -> str | None:
    parties = sorted({PARTY[e.provenance] for e in dossier.evidence})
    return "; ".join(parties) or None


def _tags(dossier: Dossier) -> str | None:
    tags = sorted({f"{s.tag}={s.group}" for e in dossier.evidence for s in (e.subgroups or [])})
    return ("Subgroups tested: " + ", ".join(tags)) if tags else None


def _validation_process(dossier: Dossier) -> str | None:
    if not dossier.evidence:
        return None
    return ("Scores per benchmark with the number of instances and a 95% interval where one can be "
            "computed (Wilson for proportions, BCa bootstrap or t for means), each traced to its source; "
            "see the dossier report.")


def _monitoring_validity(dossier: Dossier) -> str | None:
    plan = dossier.oversight
    if plan is None:
        return None
    m = plan.monitoring
    watched = "; ".join(f"{x.name} ({'at least' if x.direction == 'at_least' else 'at most'} {x.threshold:g})"
                        for x in m.metrics)
    return (f"Re-evaluation every {m.schedule_months} months and on: "
            + "; ".join(t.description for t in m.triggers)
            + (f". Watched: {watched}" if watched else "") + f". Owner: {m.owner}.")


def _monitoring_fairness(dossier: Dossier) -> str | None:
    plan = dossier.oversight
    if plan is None or not plan.review.stratify_audit_by_subgroup:
        return None
    return (f"The post-release audit ({plan.review.qa_sample_rate:.0%} of outputs) is drawn in equal numbers "
            f"from each subgroup; re-evaluated every {plan.monitoring.schedule_months} months.")


Filler = Callable[[Dossier], str | None]
FILLERS: dict[int, tuple[str, Filler]] = {
    3: ("intended_use.purpose", lambda d: d.intended_use.purpose),
    5: ("intended_use.purpose, intended_use.workflow",
        lambda d: " ".join(p for p in (d.intended_use.purpose, d.intended_use.workflow) if p)),
    6: ("intended_use.patient_population", lambda d: d.intended_use.patient_population),
    7: ("intended_use.intended_users", lambda d: ", ".join(d.intended_use.intended_users)),
    8: ("intended_use.decision_role", lambda d: DECISION_ROLE_LABELS[d.intended_use.decision_role]),
    9: ("intended_use.out_of_scope_uses", lambda d: "; ".join(d.intended_use.out_of_scope_uses) or None),
    10: ("risk tier (derived), intended_use.error_severity",
         lambda d: f"Risk tier {d.risk.tier}; an uncaught error is {d.intended_use.error_severity}. "
                   "See the Limitations section of the dossier report."),
    17: ("evidence (published, helm-import)", _external_sources),
    18: ("evidence provenance", _parties),
    19: ("evidence subgroups", _tags),
    20: ("evidence", _validation_process),
    23: ("evidence (published, helm-import)", lambda d: _evidence_summary(d, {"published", "helm-import"})),
    24: ("evidence subgroups (published, helm-import)",
         lambda d: _subgroup_summary(d, {"published", "helm-import"})),
    26: ("oversight.monitoring", _monitoring_validity),
    27: ("evidence (local-run)", lambda d: _evidence_summary(d, {"local-run"})),
    28: ("oversight.review", _monitoring_fairness),
    29: ("evidence subgroups (local-run)", lambda d: _subgroup_summary(d, {"local-run"})),
}


def source_attributes(dossier: Dossier) -> list[SourceAttribute]:
    """All 31 attributes, answered from the dossier where it holds the fact.

    Example:
        >>> from governance.intended_use.records import example_intended_use
        >>> attrs = source_attributes(Dossier(title="demo", owner="me", intended_use=example_intended_use()))
        >>> len(attrs), attrs[0].value, attrs[5].from_field
        (31, 'not provided', 'intended_use.patient_population')
    """
    out = []
    for row in _attribute_rows():
        number = int(row["number"])
        field, fill = FILLERS.get(number, ("", lambda d: None))
        value = fill(dossier)
        out.append(SourceAttribute(number=number, group=row["group"], attribute=row["attribute"],
                                   value=value or NOT_PROVIDED, from_field=field if value else ""))
    return out


def source_attributes_section(dossier: Dossier) -> Section:
    """The sheet as a report appendix."""
    attrs = source_attributes(dossier)
    provided = sum(a.value != NOT_PROVIDED for a in attrs)
    return Section(key="source_attributes", title="Appendix: HTI-1 source attributes", paragraphs=[
        f"The 31 source attributes HTI-1 asks of predictive decision-support interventions (45 CFR "
        f"170.315(b)(11)(iv)), answered from this dossier: {provided} answered, {len(attrs) - provided} "
        "not provided. The duty to publish them falls on certified health-IT developers; the unanswered "
        "ones are questions for the vendor."],
        tables=[Table(columns=["#", "Attribute", "Answer from the dossier", "Field"],
                      rows=[[str(a.number), a.attribute, a.value, _readable(a.from_field)] for a in attrs],
                      widths=[0.4, 3.2, 5.0, 1.8])])


def _readable(field: str) -> str:
    """``intended_use.patient_population`` → ``intended use: patient population`` (wraps in a cell)."""
    return field.replace(".", ": ").replace("_", " ") if field else "—"
