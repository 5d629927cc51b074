"""A model-change signal is resolved only by a re-evaluation that saw the model it names, or by the chair's
recorded override with a reason (issue 36 item 7: a pause was closed with a re-run the old model answered)."""

from __future__ import annotations

import pytest

from governance.identity import Actor, PermissionDenied
from governance.monitoring import MonitoringError, import_feed, monitoring_status, resolve_signal
from governance.monitoring.records import SignalAction
from governance.reevaluation.records import ServedIdentity
from tests.governance.monitoring.test_monitoring_events import committee, person  # noqa: F401 (a fixture)
from tests.governance.monitoring_fixtures import CANDIDATE, NOW, decided_dossier, feed_rows, write_csv
from tests.reports.test_sections_reevaluation import addendum

NEW = "m-1-2026-05"  # the model the feed says it was served by; the decision approved m-1


def _paused(store, tmp_path, *served: str, importer: Actor | None = None, rerun: str = CANDIDATE):
    """A decided dossier whose feed names an unapproved model, with a re-evaluation of candidate ``rerun``
    per ``served`` model."""
    adds = []
    for i, model in enumerate(served):
        a = addendum()
        comparison = a.comparisons[0].model_copy(update={"candidate": rerun, "served_after": [
            ServedIdentity(model=model, system_fingerprint=None, n=20)]})
        adds.append(a.model_copy(update={"id": f"R-0000000{i}", "comparisons": [comparison]}))
    dossier_id = store.save(decided_dossier().model_copy(update={"reevaluations": adds}), author="chair"
                            ).dossier.id
    import_feed(store, dossier_id, write_csv(tmp_path / "f.csv", feed_rows(20, model=NEW)),
                actor=importer or Actor.named("qa"), now=NOW)
    (signal,) = monitoring_status(store, dossier_id, now=NOW).signals
    assert signal.kind == "model_change"
    return dossier_id, signal


def test_a_reevaluation_answered_by_the_old_model_does_not_resolve_it(store, tmp_path):
    dossier_id, signal = _paused(store, tmp_path, "m-1", NEW)
    with pytest.raises(MonitoringError, match=f"answered by m-1, not by {NEW}"):
        resolve_signal(store, dossier_id, signal.id, actor=Actor.named("qa"), reevaluation_id="R-00000000",
                       now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"
    resolve_signal(store, dossier_id, signal.id, actor=Actor.named("qa"), reevaluation_id="R-00000001",
                   now=NOW)  # this re-run was answered by the model now served
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"


def test_without_such_a_reevaluation_only_the_chair_overrides_with_a_reason(committee, store, tmp_path):  # noqa: F811
    editor, chair = person("lee@hospital.org"), person("rivera@hospital.org")
    dossier_id, signal = _paused(store, tmp_path, "openai/m-1", importer=Actor.of(editor, name="lee"))
    with pytest.raises(PermissionDenied, match="chair"):
        resolve_signal(store, dossier_id, signal.id, actor=Actor.of(editor, name="lee"),
                       reason="Vendor says it is the same model", now=NOW)
    with pytest.raises(PermissionDenied, match="chair"):  # a re-run of the old model, even with a reason
        resolve_signal(store, dossier_id, signal.id, actor=Actor.of(editor, name="lee"),
                       reason="Vendor says it is the same model", reevaluation_id="R-00000000", now=NOW)
    resolve_signal(store, dossier_id, signal.id, actor=Actor.of(chair, name="rivera"),
                   reason="Vendor's release note: a renamed build of the approved model", now=NOW)
    (done,) = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, SignalAction)]
    assert (done.by, done.role, done.reason.startswith("Vendor's release note")) == ("rivera", "chair", True)


def test_a_reevaluation_of_another_candidate_served_the_same_model_does_not_resolve_it(store, tmp_path):
    """Before (issue 35): any re-evaluation whose replies named the model resolved the signal, whichever
    candidate it re-ran; a re-run of another candidate says nothing about the one paused."""
    dossier_id, signal = _paused(store, tmp_path, NEW, rerun="M2")
    assert signal.candidate == CANDIDATE
    with pytest.raises(MonitoringError, match=f"re-evaluation R-00000000 re-ran M2, not {CANDIDATE}"):
        resolve_signal(store, dossier_id, signal.id, actor=Actor.named("qa"), reevaluation_id="R-00000000",
                       now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "pause"
    assert not [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, SignalAction)]


def test_a_reevaluation_of_its_own_candidate_served_the_model_resolves_it(store, tmp_path):
    dossier_id, signal = _paused(store, tmp_path, NEW)  # re-ran M1, the signal's candidate
    resolve_signal(store, dossier_id, signal.id, actor=Actor.named("qa"), reevaluation_id="R-00000000",
                   now=NOW)
    (done,) = [e for e in store.load(dossier_id).dossier.monitoring if isinstance(e, SignalAction)]
    assert (done.reevaluation_id, done.role) == ("R-00000000", None)
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"
