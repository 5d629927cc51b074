"""Safety events, acknowledging and resolving signals: recorded with who; only the chair un-suspends."""

from __future__ import annotations

import pytest

from governance.dossier.content_hash import signable_hash
from governance.identity import Actor
from governance.identity.access import PermissionDenied
from governance.identity.identity import oidc_identity
from governance.monitoring.operations.feed import (
    MonitoringError,
    acknowledge_signal,
    import_feed,
    monitoring_status,
    record_event,
    resolve_signal,
)
from governance.monitoring.records import SafetyEvent, SignalAction
from tests.governance.monitoring_fixtures import NOW, decided_dossier, feed_rows, write_csv

ISSUER = "https://login.example-hospital.org"
ROLES = {"viewer@hospital.org": "viewer", "lee@hospital.org": "editor", "rivera@hospital.org": "chair"}


def person(email: str):
    return oidc_identity(
        {"is_logged_in": True, "iss": ISSUER, "sub": email, "email": email, "name": email.split("@")[0]}
    )


@pytest.fixture
def committee(home):
    home.mkdir(parents=True, exist_ok=True)
    members = "\n".join(f'"{who}" = ["{role}"]' for who, role in ROLES.items())
    (home / "identity.toml").write_text(f'mode = "oidc"\n[members]\n{members}\n')
    return home


@pytest.fixture
def dossier_id(store):
    return store.save(decided_dossier(), author="chair").dossier.id


def test_a_moderate_event_suspends_and_only_the_chair_returns_the_candidate(committee, store, dossier_id):
    signed = signable_hash(store.load(dossier_id).dossier)
    editor, chair, viewer = (
        person("lee@hospital.org"),
        person("rivera@hospital.org"),
        person("viewer@hospital.org"),
    )
    with pytest.raises(PermissionDenied):
        record_event(
            store, dossier_id, "moderate", "wrong dose in a draft",
            actor=Actor.of(viewer, name="viewer"), now=NOW
        )
    event, _ = record_event(
        store,
        dossier_id,
        "moderate",
        "Draft advised doubling the warfarin dose",
        output_ids=["r17"],
        actor=Actor.of(editor, name="lee"),
        now=NOW,
    )
    status = monitoring_status(store, dossier_id, now=NOW)
    assert status.status == "suspend"
    (signal,) = [s for s in status.signals if s.kind == "safety_event"]
    assert signal.deadline == NOW  # suspend: at once
    assert "committee chair" in signal.owner
    stored = store.load(dossier_id).dossier
    (ev,) = [e for e in stored.monitoring if isinstance(e, SafetyEvent)]
    assert (ev.by, ev.output_ids, ev.auth is not None) == ("lee", ["r17"], True)
    acknowledge_signal(store, dossier_id, signal.id,
                       actor=Actor.of(editor, name="lee"), note="looking", now=NOW)
    assert (
        monitoring_status(store, dossier_id, now=NOW).status == "suspend"
    )  # acknowledged, still on the ladder
    with pytest.raises(PermissionDenied, match="chair"):
        resolve_signal(
            store, dossier_id, signal.id,
            actor=Actor.of(editor, name="lee"), reason="fixed the prompt", now=NOW
        )
    resolve_signal(
        store,
        dossier_id,
        signal.id,
        actor=Actor.of(chair, name="rivera"),
        reason="Prompt now states dose changes need a pharmacist",
        now=NOW,
    )
    after = store.load(dossier_id).dossier
    actions = [e for e in after.monitoring if isinstance(e, SignalAction)]
    assert [(a.kind, a.by, a.role) for a in actions] == [
        ("signal_ack", "lee", None),
        ("signal_resolve", "rivera", "chair"),
    ]
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"
    assert signable_hash(after) == signed
    assert store.verify_chain(dossier_id).ok
    with pytest.raises(MonitoringError, match="already resolved"):
        resolve_signal(store, dossier_id, signal.id,
                       actor=Actor.of(chair, name="rivera"), reason="again", now=NOW)


def test_a_near_miss_is_registered_without_a_signal_and_bad_events_are_refused(store, dossier_id):
    record_event(store, dossier_id, "near_miss", "Reviewer caught a wrong allergy",
                 actor=Actor.named("qa"), now=NOW)
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"
    version = store.load(dossier_id).version
    with pytest.raises(MonitoringError, match="severity 'critical' is not one of"):
        record_event(store, dossier_id, "critical", "x y z", actor=Actor.named("qa"), now=NOW)
    with pytest.raises(MonitoringError, match="describe the event"):
        record_event(store, dossier_id, "minor", "  ", actor=Actor.named("qa"), now=NOW)
    assert store.load(dossier_id).version == version


def test_a_model_change_is_resolved_by_an_unknown_reevaluation_never(store, dossier_id, tmp_path):
    import_feed(
        store, dossier_id, write_csv(tmp_path / "f.csv", feed_rows(20, model="m-1-2026-05")),
        actor=Actor.named("qa"), now=NOW
    )
    (signal,) = monitoring_status(store, dossier_id, now=NOW).signals
    assert (signal.kind, signal.level, signal.command) == (
        "model_change",
        "pause",
        "medassure reevaluate D-mon1",
    )
    with pytest.raises(MonitoringError, match="no re-evaluation 'R-00000000'"):
        resolve_signal(store, dossier_id, signal.id,
                       actor=Actor.named("qa"), reevaluation_id="R-00000000", now=NOW)
    with pytest.raises(MonitoringError, match="say why"):
        resolve_signal(store, dossier_id, signal.id, actor=Actor.named("qa"), now=NOW)
    with pytest.raises(MonitoringError, match="no recorded signal"):
        acknowledge_signal(store, dossier_id, "S-0000000000", actor=Actor.named("qa"), now=NOW)
    resolve_signal(
        store, dossier_id, signal.id,
        actor=Actor.named("qa"), reason="Vendor confirmed a renamed build; alias added", now=NOW
    )
    assert monitoring_status(store, dossier_id, now=NOW).status == "in_control"


def test_only_the_chair_records_go_live_settings_and_they_set_the_baseline(committee, store, dossier_id):
    from governance.monitoring.operations.feed import record_go_live

    editor, chair = person("lee@hospital.org"), person("rivera@hospital.org")
    with pytest.raises(PermissionDenied, match="chair"):
        record_go_live(store, dossier_id, actor=Actor.of(editor, name="lee"), aliases=["m-1-eu"], now=NOW)
    with pytest.raises(MonitoringError, match="nothing to record"):
        record_go_live(store, dossier_id, actor=Actor.of(chair, name="rivera"), now=NOW)
    record_go_live(
        store,
        dossier_id,
        actor=Actor.of(chair, name="rivera"),
        aliases=["m-1-eu"],
        baseline_rate=0.03,
        prompt_version="v7",
        note="go-live 2026-02-01",
        now=NOW,
    )
    status = monitoring_status(store, dossier_id, now=NOW)
    assert status.approved.accepted_models == ["m-1", "m-1-eu"] and status.approved.prompt_version == "v7"
    assert status.cusum[0].baseline_source == "the rate the committee set (plan or go-live settings)"
    assert status.cusum[0].baseline == 0.03
    assert "with the go-live settings rivera recorded on 2026-06-20" in status.plan_source
