"""Sections from the committee's own records: rules, verdicts, cost, review, monitoring, decision.

Why "not recorded yet" rather than defaults: a report that showed default rules or a computed
recommendation the committee never saw would put words in its mouth. Until the dossier holds a
record, its section says plainly that nothing is recorded and where it would be recorded.
"""

from __future__ import annotations

from datetime import datetime

from governance.dossier import Dossier
from reports.model import Section


def _not_recorded(key: str, title: str, what: str) -> Section:
    return Section(key=key, title=title, recorded=False, paragraphs=[f"Not recorded yet: {what}"])


def decision_text(dossier: Dossier) -> str:
    """The committee's decision in words, or a not-recorded line."""
    return "No decision recorded yet"


def decision_date(dossier: Dossier) -> datetime | None:
    """When the decision was recorded, if it was."""
    return None


def rules_section(dossier: Dossier) -> Section:
    """Acceptance rules and their verdicts."""
    return _not_recorded("rules", "Acceptance rules and verdicts",
                         "no acceptance rules are set for this dossier, so no verdicts are computed.")


def cost_section(dossier: Dossier) -> Section:
    """Cost-performance per candidate."""
    return _not_recorded("cost", "Cost-performance", "no cost inputs (token profiles, prices) are recorded.")


def human_review_section(dossier: Dossier) -> Section:
    """Human review requirements."""
    return _not_recorded("human_review", "Human review", "no human review requirements are recorded.")


def monitoring_section(dossier: Dossier) -> Section:
    """Monitoring plan."""
    return _not_recorded("monitoring", "Monitoring plan", "no monitoring plan is recorded.")


def rule_changes_section(dossier: Dossier) -> Section:
    """Changes made to the rules after they were locked."""
    return _not_recorded("rule_changes", "Change log of locked rules", "the rules have not been locked.")


def signoffs_section(dossier: Dossier, version_hash: str) -> Section:
    """Sign-offs, each bound to a version hash."""
    return _not_recorded("signoffs", "Sign-offs", "nobody has signed off this dossier.")
