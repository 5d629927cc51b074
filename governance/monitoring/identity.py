"""What was approved, and whether production still serves it: the served model and the prompt version.

Why compare served names and not the model string: a vendor can swap the weights behind a name and URL
the committee approved. The reply's own ``model`` field (the served identity) is what changes, so the
approved identity is the served identity of the decided run's answers when the run recorded one, else
the decided run's model string with the provider prefix ignored (``openai/gpt-4o`` approves ``gpt-4o``),
plus aliases the committee records in the plan. Names are compared in lower case. A row served under
any other name is an unapproved identity (pause, and the frozen plan's re-evaluation is offered); a
prompt version other than the approved one, once the committee records one (in the plan or its go-live
settings, else on the candidate's record), likewise.
"""

from __future__ import annotations

from collections.abc import Iterable

from governance.decision.records import MonitoringPlan
from governance.dossier.record import Dossier
from governance.monitoring.models import ApprovedIdentity, IdentitySeen
from governance.monitoring.procured import Procured
from governance.procurement.candidates import run_candidates


def bare_model(name: str) -> str:
    """A model name without its provider prefix, in lower case.

    Example:
        >>> bare_model("openai/GPT-4o-2024-08-06"), bare_model("azure/eu/gpt-4o")
        ('gpt-4o-2024-08-06', 'gpt-4o')
    """
    return name.strip().rsplit("/", 1)[-1].lower()


def approved_candidate(dossier: Dossier) -> str | None:
    """The candidate the committee approved (None: no approval, or none named and none decidable).

    A decision about the use as a whole approves the one candidate its frozen plan ran, when there is one.

    Example:
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="x y z", owner="me", intended_use=example_intended_use())
        >>> approved_candidate(d) is None
        True
    """
    decision = dossier.decision
    if decision is None or decision.outcome == "reject":
        return None
    if decision.model:
        return decision.model
    labels = {i.model_label for i in (dossier.evidence_plan.items if dossier.evidence_plan else [])}
    return labels.pop() if len(labels) == 1 else None


def known_candidates(dossier: Dossier) -> list[str]:
    """Every name a feed, an event or a queue may be recorded for: the approved candidate, the frozen plan's
    candidates, the recorded candidates (id and label), the intended use's candidate models and the
    evidence's model names. A name outside this list is a typo, refused before anything is stored.

    Example:
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> known_candidates(Dossier(title="x y z", owner="me", intended_use=example_intended_use()))
        ['gpt-4o', 'claude-3-7-sonnet', 'llama-3.3-70b']
    """
    plan = [i.model_label for i in (dossier.evidence_plan.items if dossier.evidence_plan else [])]
    return list(
        dict.fromkeys(
            n
            for n in [
                approved_candidate(dossier),
                *plan,
                *run_candidates(dossier),
                *(c.label for c in dossier.candidates),
                *(e.model for e in dossier.evidence),
            ]
            if n
        )
    )


def decided_model_strings(dossier: Dossier, candidate: str) -> list[str]:
    """The model strings the frozen plan's runs of ``candidate`` used (empty: no frozen plan)."""
    items = dossier.evidence_plan.items if dossier.evidence_plan else []
    return sorted({i.endpoint.model for i in items if i.model_label == candidate})


def decided_run_ids(dossier: Dossier, candidate: str) -> list[str]:
    """The decided runs of ``candidate`` (whose served identities the operations reads from the run store)."""
    items = dossier.evidence_plan.items if dossier.evidence_plan else []
    return sorted({i.run_id for i in items if i.model_label == candidate})


def approved_prompt(plan: MonitoringPlan, procured: Procured) -> tuple[str | None, str]:
    """(approved prompt version, where it comes from): the plan's (or go-live settings'), else the prompt
    version recorded on the candidate; (None, "") when neither records one."""
    if plan.approved_prompt_version is not None:
        return plan.approved_prompt_version, "the monitoring plan (or go-live settings)"
    c = procured.record
    if c is not None and c.prompt_version.strip():
        return c.prompt_version.strip(), f"the candidate record {c.label} (the plan names none)"
    return None, ""


def approved_identity(
    dossier: Dossier, candidate: str, plan: MonitoringPlan, served: Iterable[str] = (), *, procured: Procured
) -> ApprovedIdentity:
    """The approved identity: served names of the decided runs, else their model strings, plus aliases;
    the prompt version from the plan, else from the candidate's record (``procured``, gathered by the
    operation).

    Example:
        >>> from governance.decision.records import MonitoringPlan, Trigger
        >>> plan = MonitoringPlan(triggers=[Trigger(kind="schedule", description="every 6 months")],
        ...                       schedule_months=6, owner="me", model_aliases=["gpt-4o-eu"])
        >>> from governance.dossier.record import Dossier
        >>> from governance.intended_use.records import example_intended_use
        >>> d = Dossier(title="x y z", owner="me", intended_use=example_intended_use())
        >>> approved_identity(d, "openai/gpt-4o", plan, served=["gpt-4o-2024-08-06"],
        ...                   procured=Procured()).accepted_models
        ['gpt-4o-2024-08-06', 'gpt-4o-eu']
    """
    served_names = sorted({bare_model(s) for s in served if s and s.strip()})
    strings = decided_model_strings(dossier, candidate)
    if served_names:
        base, source = served_names, "the served identity of the decided run's answers"
    elif strings:
        base, source = sorted({bare_model(s) for s in strings}), "the decided run's model string"
    else:
        base, source = [bare_model(candidate)], "the candidate's name (no frozen evidence plan)"
    prompt, prompt_source = approved_prompt(plan, procured)
    aliases = sorted({bare_model(a) for a in plan.model_aliases if a.strip()} - set(base))
    if aliases:
        source += ", plus the committee's aliases"
    return ApprovedIdentity(
        candidate=candidate,
        model=base[0] if base else None,
        accepted_models=[*base, *aliases],
        prompt_version=prompt,
        prompt_source=prompt_source,
        source=source,
    )


def unapproved_models(approved: ApprovedIdentity, seen: Iterable[IdentitySeen]) -> list[IdentitySeen]:
    """Served models in the feed that the approval does not cover, earliest first.

    Example:
        >>> from datetime import UTC, datetime
        >>> t = datetime(2026, 4, 1, tzinfo=UTC)
        >>> a = ApprovedIdentity(candidate="c", model="m-1", accepted_models=["m-1"])
        >>> seen = [IdentitySeen(value="M-1", n=3, first_seen=t, last_seen=t),
        ...         IdentitySeen(value="m-2", n=1, first_seen=t, last_seen=t)]
        >>> [s.value for s in unapproved_models(a, seen)]
        ['m-2']
    """
    ok = set(approved.accepted_models)
    return sorted(
        (s for s in seen if s.value is None or bare_model(s.value) not in ok), key=lambda s: s.first_seen
    )


def unapproved_prompts(approved: ApprovedIdentity, seen: Iterable[IdentitySeen]) -> list[IdentitySeen]:
    """Prompt versions other than the approved one (none when no version was recorded), earliest first."""
    if approved.prompt_version is None:
        return []
    return sorted(
        (s for s in seen if s.value is not None and s.value != approved.prompt_version),
        key=lambda s: s.first_seen,
    )
