from governance.demo.seed import DEMO_ID, seed_demo
from governance.dossier.history import diff_versions, timeline
from governance.dossier.record import Dossier
from governance.intended_use.records import example_intended_use


def test_diff_shows_fields_and_keyed_list_changes(store):
    d = Dossier(id="D-h1", title="Portal", owner="c", intended_use=example_intended_use())
    store.save(d, "a", "created")
    d2 = d.model_copy(update={
        "intended_use": d.intended_use.model_copy(update={"error_severity": "serious"}),
        "mapping": d.mapping.decide("patient_provider_messaging", "accepted", by="b"),
    })
    store.save(d2, "b", "mapping and severity")
    d3 = d2.model_copy(update={"mapping": d2.mapping.decide("planning_treatments", "rejected", by="b")})
    store.save(d3, "b", "mapping")
    diff = diff_versions(store, "D-h1", 1, 2)
    assert diff.sections == ["intended_use", "mapping"]
    sev = [c for c in diff.changes if c.path == "intended_use.error_severity"]
    assert sev and sev[0].old == "moderate" and sev[0].new == "serious" and sev[0].kind == "changed"
    assert sev[0].text == "Intended use › Severity of an uncaught error: Moderate → Serious"
    assert diff.section_labels == ["Intended use", "Task mapping"]
    diff = diff_versions(store, "D-h1", 2, 3)
    assert [(c.path, c.kind) for c in diff.changes] == [("mapping.decisions[planning_treatments]", "added")]
    assert diff.changes[0].text.startswith("Task mapping › Mapping decisions “planning_treatments”: added (")
    assert diff_versions(store, "D-h1", 3, 3).changes == []


def test_timeline_kinds_for_demo(store):
    seed_demo(store)
    events = timeline(store, DEMO_ID)
    assert events[0]["kind"] == "created"
    assert [e["version"] for e in events] == list(range(1, len(events) + 1))
    assert any(e["kind"] == "mapping" for e in events)
