"""The monitoring state on the sidebar and the Dossiers list is computed once per dossier version, not on
every rerun (it took 1.2 s on the demo and about 6 s on a 1M-row PostgreSQL feed), and afresh after a save.

(AppTest hands back an empty sidebar after a rerun of the same page, so reruns are read from the list.)
"""

from governance.dossier.store import Store
from tests.pages.conftest import DEMO, open_page


def test_monitoring_state_is_kept_across_reruns_and_recomputed_after_a_new_version(demo_home, monkeypatch):
    import governance.monitoring as monitoring

    real = monitoring.monitoring_state
    calls: list[str] = []

    def counting(store, dossier_id, **kw):
        calls.append(dossier_id)
        return real(store, dossier_id, **kw)

    monkeypatch.setattr(monitoring, "monitoring_state", counting)
    at = open_page()  # the Dossiers page: its list and the sidebar both show the state
    assert "monitoring **pause**" in at.sidebar.markdown[0].value
    assert list(at.dataframe[0].value["Monitoring"]) == ["pause"]
    assert calls == [DEMO]  # one computation serves the list and the sidebar
    at.run()
    at.run()
    assert calls == [DEMO]  # reruns read the kept state
    assert list(at.dataframe[0].value["Monitoring"]) == ["pause"]

    store = Store.open(demo_home / "medassure.duckdb")  # a save from elsewhere: a new version
    v = store.load(DEMO)
    store.save(v.dossier.model_copy(update={"title": v.dossier.title + " (renamed)"}), "dr.other", "title")
    store.close()
    at.run()
    assert calls == [DEMO, DEMO]
    assert list(at.dataframe[0].value["Monitoring"]) == ["pause"]
