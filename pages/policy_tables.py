"""Display tables for the Rules, Cost, Review and Decision pages (rendering only, no verdict logic).

Every function takes the packages' pydantic values and returns a DataFrame or a short string;
none computes a verdict, a cost or a hash.
"""

from __future__ import annotations

import pandas as pd

from governance.decision import SignOffStatus
from governance.dossier import count_text, metric_label
from governance.evidence import subcategory_name
from governance.procurement import CostReport
from governance.rules import AcceptancePolicy, Verdict, rule_bar, rule_kind, rule_label, verdict_label

STATUS_MARK = {"pass": "✓ pass", "fail": "✗ fail", "inconclusive": "⚠ inconclusive",
               "not_applicable": "– n/a"}
"""Plain symbols that every font has (colour emoji are missing on many hospital desktops)."""



def rule_target(rule) -> str:
    """Which evidence a rule reads, in words."""
    parts = [f"benchmark {rule.benchmark}" if rule.benchmark else "",
             f"subcategory {subcategory_name(rule.subcategory)}" if rule.subcategory else "",
             f"metric {metric_label(rule.metric)}" if rule.metric else "",
             f"{'/'.join(rule.provenance)} only" if rule.provenance else ""]
    return ", ".join(p for p in parts if p) or "all evidence"


def rules_frame(policy: AcceptancePolicy) -> pd.DataFrame:
    """One row per rule."""
    return pd.DataFrame([{
        "rule": rule_label(r), "kind": rule_kind(r.kind).label, "applies to": rule_target(r),
        "bar": rule_bar(r),
        "point estimates accepted": getattr(r, "allow_point_estimate", False), "rationale": r.rationale,
    } for r in policy.rules])


def changes_frame(policy: AcceptancePolicy) -> pd.DataFrame:
    """The change log after the lock."""
    return pd.DataFrame([{
        "when": c.at.strftime("%Y-%m-%d %H:%M"), "who": c.by, "rule": rule_label(c.new or c.old),
        "before": rule_bar(c.old) if c.old else "(none: added)", "after": rule_bar(c.new) if c.new else
        "(removed)", "why": c.why,
    } for c in policy.changes])


def _num(x: float | None, digits: int = 3) -> str:
    return "" if x is None else f"{x:.{digits}f}"


VERDICT_COLUMNS = ["verdict", "rule", "candidate", "benchmark", "threshold", "estimate", "95% interval", "n",
                   "further cases", "reason", "evidence", "pre-registered", "counted as", "one-sided p",
                   "adjusted p", "error rate"]


def _value(v: Verdict, x: float | None) -> str:
    """A verdict's number as its kind reads: a count as a count, a cost in USD, a share in percent."""
    if x is None:
        return ""
    if v.kind == "min_n":
        return count_text(x)
    if v.kind == "max_cost_per_1k":
        return f"USD {x:,.2f}"
    if v.kind in ("max_unscored_share", "critical_criterion"):
        return f"{x:.1%}"
    return _num(x)


def _p(x: float | None) -> str:
    if x is None:
        return ""
    return "< 0.0001" if x < 1e-4 else f"{x:.4f}"


def verdicts_frame(verdicts: list[Verdict]) -> pd.DataFrame:
    """One row per verdict, with its numbers, evidence ids, reason and error rate."""
    return pd.DataFrame([{
        "verdict": STATUS_MARK[v.status], "rule": verdict_label(v), "candidate": v.model or "",
        "benchmark": v.benchmark or "",
        "threshold": _value(v, v.threshold) + (f"–{_num(v.threshold_upper)}" if v.threshold_upper else ""),
        "estimate": _value(v, v.estimate),
        "95% interval": f"{_value(v, v.ci_lower)}–{_value(v, v.ci_upper)}" if v.ci_lower is not None else "",
        "n": v.n, "further cases": v.further_cases, "reason": v.reason,
        "evidence": ", ".join(v.evidence_ids), "pre-registered": v.pre_registered,
        "counted as": "score verdict" if v.is_score else "gating rule", "one-sided p": _p(v.p_value),
        "adjusted p": _p(v.p_adjusted) if v.family_size and v.family_size > 1 else "",
        "error rate": (f"{v.alpha:.1%} one-sided" + (f", {v.correction} over {v.family_size}"
                                                     if v.correction and (v.family_size or 0) > 1 else ""))
        if v.alpha is not None else "",
    } for v in verdicts], columns=VERDICT_COLUMNS, dtype=object)


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None else round(x, digits)


def cost_frame(report: CostReport) -> pd.DataFrame:
    """The cost table, one row per candidate (USD to the cent, scores to 3 decimals).

    The money a committee compares comes first (per 1,000 requests, per month, per 1,000 acceptable), so
    it is on screen at 1400 px; how it was computed follows. Candidates not costed yet (no token profile)
    are listed too, with their score and what is missing.
    """
    rows = [{
        "candidate": r.model, "USD / 1,000 requests": _round(r.cost_per_1k, 2),
        "USD / month": _round(r.monthly_cost, 0), "score": _round(r.score, 3),
        "pass rate": _round(r.pass_rate, 3),
        "USD / 1,000 acceptable": _round(r.cost_per_1k_acceptable, 2), "on frontier": r.on_frontier,
        "priced as": r.price_model, "USD / 1M in": r.input_per_mtok, "USD / 1M out": r.output_per_mtok,
        "prompt tokens": round(r.mean_prompt_tokens), "completion tokens": round(r.mean_completion_tokens),
        "price source": r.price_source or "unknown", "tokens from": r.token_source, "note": r.note,
    } for r in report.rows]
    rows += [{"candidate": p.model, "score": _round(p.score, 3), "pass rate": _round(p.pass_rate, 3),
              "on frontier": False, "price source": "not costed yet", "tokens from": "not known yet",
              "note": p.note} for p in report.pending]
    return pd.DataFrame(rows, columns=COST_COLUMNS)


COST_COLUMNS = ["candidate", "USD / 1,000 requests", "USD / month", "score", "pass rate",
                "USD / 1,000 acceptable", "on frontier", "priced as", "USD / 1M in", "USD / 1M out",
                "prompt tokens", "completion tokens", "price source", "tokens from", "note"]


def signoff_frame(status: SignOffStatus) -> pd.DataFrame:
    """One row per role: who signed, when, and whether it still holds."""
    return pd.DataFrame([{
        "role": r.role, "required": r.required,
        "status": "✓ valid" if r.valid else ("✗ invalidated" if r.signoff else "… not signed"),
        "signed by": r.signoff.name if r.signoff else "",
        "signed at": r.signoff.signed_at.strftime("%Y-%m-%d %H:%M") if r.signoff else "",
        "signed hash": r.signoff.signed_hash[:12] if r.signoff else "", "detail": r.reason,
    } for r in status.roles])
