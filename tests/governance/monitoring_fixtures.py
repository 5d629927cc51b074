"""A decided dossier to monitor, and feed files written in the feed format, OTLP JSON and LiteLLM's export.

The decision is built directly (no runs): candidate ``M1`` approved as ``openai/m-1`` through a frozen
evidence plan, with a monitoring plan whose bars the tests set.
"""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from governance.decision.records import (
    CommitteeDecision,
    MonitoredMetric,
    MonitoringPlan,
    OversightPlan,
    ReviewRequirements,
    Trigger,
)
from governance.dossier.content_hash import decision_basis_hash
from governance.dossier.record import Dossier
from governance.evidence.plan_records import EvidencePlan, PlanEndpoint, PlanItem
from governance.intended_use.records import example_intended_use

DECIDED_AT = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 6, 20, tzinfo=UTC)
CANDIDATE = "M1"


def monitoring_plan(**changes) -> MonitoringPlan:
    base = dict(
        triggers=[Trigger(kind="schedule", description="every 12 months")],
        schedule_months=12,
        owner="AI quality lead",
        metrics=[
            MonitoredMetric(
                name="share of audited outputs needing a material correction",
                threshold=0.05,
                direction="at_most",
            )
        ],
    )
    return MonitoringPlan(**{**base, **changes})


def decided_dossier(
    plan: MonitoringPlan | None = None,
    *,
    with_plan: bool = True,
    dossier_id: str = "D-mon1",
    decided_at: datetime = DECIDED_AT,
) -> Dossier:
    d = Dossier(
        id=dossier_id,
        title="Portal replies",
        owner="dr.lee",
        intended_use=example_intended_use(),
        status="decided",
    )
    if with_plan:
        review = ReviewRequirements(
            review_before_release=True,
            reviewer="primary care clinician",
            qualification="licensed clinician",
            qa_sample_rate=0.05,
            qa_reviewer="clinical quality team",
        )
        d = d.model_copy(
            update={"oversight": OversightPlan(review=review, monitoring=plan or monitoring_plan())}
        )
    item = PlanItem(
        kind="benchmark",
        benchmark="calc_builtin",
        benchmark_id="calc_builtin",
        endpoint=PlanEndpoint(name="m1", model="openai/m-1", api_base="http://127.0.0.1:9/v1"),
        run_id="run-1",
        model_label=CANDIDATE,
    )
    d = d.model_copy(
        update={"evidence_plan": EvidencePlan(frozen_at=decided_at, frozen_by="chair", items=[item])}
    )
    decision = CommitteeDecision(
        outcome="approve",
        model=CANDIDATE,
        rationale="Meets every bar we set.",
        decided_by="chair",
        decided_at=decided_at,
        required_roles=["chair"],
        content_hash=decision_basis_hash(d),
    )
    return d.model_copy(update={"decision": decision})


def feed_rows(
    n: int,
    *,
    start: datetime = datetime(2026, 2, 1, tzinfo=UTC),
    step: timedelta = timedelta(hours=1),
    model: str = "m-1",
    material_every: int = 0,
    audit_every: int = 2,
    prefix: str = "r",
    **extra,
) -> list[dict]:
    """``n`` rows, every ``audit_every``-th audited; every ``material_every``-th audited one material."""
    rows = []
    for i in range(n):
        audited = audit_every > 0 and i % audit_every == 0
        material = audited and material_every > 0 and (i // max(audit_every, 1)) % material_every == 0
        rows.append(
            {
                "id": f"{prefix}{i}",
                "timestamp": (start + i * step).isoformat().replace("+00:00", "Z"),
                "served_model": model,
                "outcome": "material_correction" if material else "accepted",
                "audited": "true" if audited else "false",
                "audit_verdict": ("material" if material else "correct") if audited else "",
                **extra,
            }
        )
    return rows


def write_csv(path: Path, rows: list[dict]) -> Path:
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def otlp_export(spans: list[dict], service: str = "portal-drafts") -> dict:
    """An OTLP JSON ExportTraceServiceRequest holding ``spans`` (as the collector's file exporter writes)."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
                "scopeSpans": [
                    {
                        "scope": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.1b0"},
                        "spans": spans,
                    }
                ],
            }
        ]
    }


def genai_span(
    i: int, *, model: str = "m-1", start_ns: int = 1_770_000_000_000_000_000, error: bool = False
) -> dict:
    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.provider.name", "value": {"stringValue": "openai"}},
        {"key": "gen_ai.request.model", "value": {"stringValue": "m-1"}},
        {"key": "gen_ai.response.model", "value": {"stringValue": model}},
        {"key": "gen_ai.response.id", "value": {"stringValue": f"chatcmpl-{i}"}},
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": str(100 + i)}},
        {"key": "gen_ai.usage.output_tokens", "value": {"intValue": "42"}},
    ]
    span = {
        "traceId": f"{i:032x}",
        "spanId": f"{i:016x}",
        "name": "chat m-1",
        "kind": 3,
        "startTimeUnixNano": str(start_ns + i * 60_000_000_000),
        "endTimeUnixNano": str(start_ns + i * 60_000_000_000 + 1_250_000_000),
        "attributes": attrs,
        "status": {"code": 2, "message": "rate limited"} if error else {},
    }
    return span
