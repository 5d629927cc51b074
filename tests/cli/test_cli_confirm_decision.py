"""CLI: signing a stale decision exits 2 with the reason by label; ``confirm-decision`` (issue 27, item 4)."""

from __future__ import annotations

from governance.dossier.store import Store
from governance.identity.identity import local_identity
from governance.identity.operations.save import save_as
from tests.cli.test_cli_policy import dossier_id, latest, run  # noqa: F401  (a fixture)


def _decide(capsys, dossier_id):  # noqa: F811
    run(capsys, "rules", dossier_id, "--init", "--lock", "--by", "chair")
    code, _, _ = run(capsys, "decide", dossier_id, "--decision", "reject", "--rationale",
                     "m1 fails ProxySender; m2 is not settled.", "--by", "chair")
    assert code == 0


def _edit_oversight(home, dossier_id, value: str):  # noqa: F811
    store = Store.open(home / "medassure.duckdb")
    try:
        v = store.load(dossier_id)
        use = v.dossier.intended_use.model_copy(update={"human_oversight": value})
        save_as(store, local_identity("editor"), v.dossier.model_copy(update={"intended_use": use}),
                "oversight changed", expected_hash=v.hash)
    finally:
        store.close()


def test_signoff_on_a_stale_decision_exits_2_until_the_chair_confirms(home, capsys, dossier_id):  # noqa: F811
    _decide(capsys, dossier_id)
    _edit_oversight(home, dossier_id, "sampled")
    before = latest(home, dossier_id)

    code, out, err = run(capsys, "signoff", dossier_id, "--role", "clinical lead", "--name", "Dr. Chen")
    assert code == 2 and out is None
    assert ("sign-off not recorded: Signing refused: Intended use › Human oversight changed after the "
            "decision was recorded.") in err
    assert "human_oversight" not in err and "Traceback" not in err
    assert latest(home, dossier_id).hash == before.hash  # nothing stored

    code, out, err = run(capsys, "confirm-decision", dossier_id, "--reason", "short", "--by", "chair")
    assert code == 2 and "at least 10 characters" in err and latest(home, dossier_id).hash == before.hash

    code, out, err = run(capsys, "confirm-decision", dossier_id, "--by", "chair", "--reason",
                         "Sampled review does not change a rejection.", "--format", "json")
    assert code == 0 and out["version"] == before.version + 1
    assert out["changed"] == ["Intended use › Human oversight"]
    assert out["confirmation"]["by"] == "chair" and out["confirmation"]["changed"] == out["changed"]

    code, out, err = run(capsys, "signoff", dossier_id, "--role", "clinical lead", "--name", "Dr. Chen")
    assert code == 0 and out["version"] == before.version + 2

    code, out, err = run(capsys, "confirm-decision", dossier_id, "--by", "chair", "--reason",
                         "Nothing changed, so nothing to confirm.")
    assert code == 2 and "nothing to confirm" in err
