"""A canary's identity signal is an identity signal too (issue 36 item 7): it resolves only with a
re-evaluation that saw the model the canary was served by, or with the chair's override and a reason.

Before: only feed model-change signals were checked, so a canary that twice found the endpoint answering
as ``m-1-2026-05`` (pause) was closed by a re-evaluation the old ``m-1`` answered, with no reason and no
chair, and an editor's one-line reason closed it too.
"""

from __future__ import annotations

import pytest

from governance.identity import Actor, PermissionDenied
from governance.monitoring import MonitoringError, monitoring_status, resolve_signal
from governance.monitoring.ladder import make_signal
from governance.monitoring.operations.common import new_signal_records
from governance.monitoring.plan import resolved_plan
from governance.monitoring.records import CanaryAttempt, CanaryRun, SignalAction
from governance.reevaluation.records import ServedIdentity
from tests.governance.monitoring.test_monitoring_events import committee, person  # noqa: F401 (a fixture)
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier
from tests.reports.test_sections_reevaluation import addendum

SERVED = "openai/m-1-2026-05"  # what the canary's endpoint answered as; the decision approved m-1


def _attempt() -> CanaryAttempt:
    return CanaryAttempt(run_ids=["run-x"], status="identity_changed", n=12, errors=0, baseline_correct=10,
                         now_correct=10, lost=0, gained=0, p_value=1.0, changed_answers=0.0,
                         served_model=SERVED)


def _paused(store, *served: str, rerun: str = CANDIDATE) -> tuple[str, str]:
    adds = []
    for i, model in enumerate(served):
        a = addendum()
        comparison = a.comparisons[0].model_copy(update={"candidate": rerun, "served_after": [
            ServedIdentity(model=model, system_fingerprint=None, n=12)]})
        adds.append(a.model_copy(update={"id": f"R-1000000{i}", "comparisons": [comparison]}))
    d = decided_dossier().model_copy(update={"reevaluations": adds})
    candidate = monitoring_candidate(d)
    signal = make_signal(kind="canary_identity", candidate=candidate, metric="canary KS-00000001",
                         seen="KR-00000001", first_seen=NOW, detail=f"the canary was served by {SERVED}",
                         action="Pause use", plan=resolved_plan(d, candidate).monitoring, now=NOW)
    run = CanaryRun(id="KR-00000001", canary_id="KS-00000001", at=NOW, by="scheduler", candidate=candidate,
                    status="identity_changed", confirmed=True, attempts=[_attempt(), _attempt()],
                    signal_id=signal.id)
    d = d.model_copy(update={"monitoring": [*d.monitoring, run, *new_signal_records(d, [signal], NOW)]})
    dossier_id = store.save(d, author="chair").dossier.id
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"
    return dossier_id, signal.id


def monitoring_candidate(d) -> str:
    from governance.monitoring.identity import approved_candidate

    return approved_candidate(d)


def test_a_reevaluation_the_old_model_answered_does_not_close_a_canary_identity_signal(store):
    dossier_id, signal_id = _paused(store, "openai/m-1", SERVED)
    with pytest.raises(MonitoringError, match="not by openai/m-1-2026-05"):
        resolve_signal(store, dossier_id, signal_id, actor=Actor.named("qa"), reevaluation_id="R-10000000",
                       now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"
    resolve_signal(store, dossier_id, signal_id, actor=Actor.named("qa"), reevaluation_id="R-10000001",
                   now=NOW)  # answered by the model the canary was served by
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"


def test_an_editor_cannot_close_it_with_a_reason_only_the_chair_can(committee, store):  # noqa: F811
    editor, chair = person("lee@hospital.org"), person("rivera@hospital.org")
    dossier_id, signal_id = _paused(store, "openai/m-1")
    with pytest.raises(PermissionDenied, match="chair"):
        resolve_signal(store, dossier_id, signal_id, actor=Actor.of(editor, name="lee"),
                       reason="Vendor says it is the same model", now=NOW)
    resolve_signal(store, dossier_id, signal_id, actor=Actor.of(chair, name="rivera"),
                   reason="Vendor's release note: a renamed build of the approved model", now=NOW)
    (done,) = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, SignalAction)]
    assert (done.by, done.role) == ("rivera", "chair")


def test_a_reevaluation_of_another_candidate_does_not_close_it(store):
    """Issue 35: the re-run must be of the signal's own candidate, not any candidate served the model."""
    dossier_id, signal_id = _paused(store, SERVED, rerun="M2")
    with pytest.raises(MonitoringError, match=f"re-ran M2, not {CANDIDATE}"):
        resolve_signal(store, dossier_id, signal_id, actor=Actor.named("qa"), reevaluation_id="R-10000000",
                       now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"
