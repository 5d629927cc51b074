"""Every write passes one authorization check in the operations (issue 25, item 1).

A shared deployment (OIDC) with a committee: a viewer, an editor and a chair, and nobody signed in.
Each write path is tried by each at the domain level: the allowed ones write, the refused ones raise
``PermissionDenied`` naming the role they need, and nothing is stored or sent. Then the command line:
a service identity that holds only ``viewer`` is refused every write (exit 2), and in a shared
deployment without a service identity a name in ``MEDASSURE_USER`` holds no role at all.
"""

from __future__ import annotations

import json

import pytest

from cli import main
from evaluator.gateway.llm import ModelEndpoint
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.identity.access import PermissionDenied
from governance.identity.identity import Identity, oidc_identity
from governance.identity.operations.authorize import update_as
from governance.identity.operations.save import save_as
from governance.intended_use.records import example_intended_use
from governance.reevaluation.operations.addendum import save_addendum
from governance.runs.operations.attach import attach_completed_run
from governance.runs.operations.jobs import build_request, run_and_wait, start_run
from governance.runs.operations.view import attach_run
from governance.scenarios.operations.deidentification import record_attestation
from tests.fakes import constant_answer

ISSUER = "https://login.example-hospital.org"
ROLES = {"viewer@hospital.org": "viewer", "lee@hospital.org": "editor", "rivera@hospital.org": "chair"}


def person(email: str) -> Identity:
    return oidc_identity({"is_logged_in": True, "iss": ISSUER, "sub": email, "email": email,
                          "name": email.split("@")[0]})


@pytest.fixture
def committee(home):
    home.mkdir(parents=True, exist_ok=True)
    members = "\n".join(f'"{who}" = ["{role}"]' for who, role in ROLES.items())
    (home / "identity.toml").write_text(f'mode = "oidc"\n[members]\n{members}\n"svc-viewer" = ["viewer"]\n')
    return home


@pytest.fixture
def seeded(committee, store, llm_server):
    llm_server.configure(answer=constant_answer("Answer: 1"))
    chair = person("rivera@hospital.org")
    dossier = Dossier(id="D-auth", title="Portal replies", owner="committee",
                      intended_use=example_intended_use())
    save_as(store, chair, dossier, "created")
    request = build_request("calc_builtin", "openai/m", api_base=llm_server.url, limit=3)
    done = run_and_wait(store, request, actor=Actor.of(chair))
    return store, done.run_id, llm_server


WHO = {"nobody": None, "viewer": "viewer@hospital.org", "editor": "lee@hospital.org",
       "chair": "rivera@hospital.org"}
EDITOR_OR_ABOVE = {"nobody": False, "viewer": False, "editor": True, "chair": True}


def attempt(store, run_id, server, path: str, identity: Identity | None):
    """One write path; returns what it wrote (versions added, requests sent)."""
    before, hits = store.load("D-auth").version, server.hits
    if path == "save an edit":
        d = store.load("D-auth").dossier
        save_as(store, identity, d.model_copy(update={"title": "Portal replies (edited)"}), "edit")
    elif path == "attach a run":
        attach_run(store, "D-auth", run_id, actor=Actor.of(identity, name="x"))
    elif path == "attach a completed run":
        attach_completed_run(store, "D-auth", run_id, actor=Actor.of(identity, name="x"))
    elif path == "update onto the latest":
        update_as(store, Actor.of(identity, name="x"), "D-auth",
                  lambda d: d.model_copy(update={"owner": "pharmacy"}), note="owner",
                  action="change the owner")
    elif path == "start a paid run":
        start_run(store, build_request("calc_builtin", "openai/m2", api_base=server.url, limit=2),
                  actor=Actor.of(identity)).join(timeout=30)
    return store.load("D-auth").version - before, server.hits - hits


PATHS = ["save an edit", "attach a run", "attach a completed run", "update onto the latest",
         "start a paid run"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("who", list(WHO))
def test_each_write_path_needs_an_editor(seeded, path, who):
    store, run_id, server = seeded
    identity = person(WHO[who]) if WHO[who] else None
    if EDITOR_OR_ABOVE[who]:
        versions, _ = attempt(store, run_id, server, path, identity)
        assert path == "start a paid run" or versions == 1
        return
    before, hits = store.load("D-auth").version, server.hits
    with pytest.raises(PermissionDenied, match="editor|sign in"):
        attempt(store, run_id, server, path, identity)
    assert (store.load("D-auth").version, server.hits) == (before, hits), "a refusal stores and sends nothing"


def test_a_refused_attestation_and_addendum_store_nothing(seeded):
    from evaluator.phi.attestation import DeidentificationAttestation

    store, _, _ = seeded
    viewer = person("viewer@hospital.org")
    before = store.load("D-auth").version
    with pytest.raises(PermissionDenied, match="editor"):
        record_attestation(store, DeidentificationAttestation.model_construct(attested_by="v"), "D-auth",
                           actor=Actor.of(viewer))
    with pytest.raises(PermissionDenied, match="editor"):
        save_addendum(store, store.load("D-auth").dossier, None, actor=Actor.of(viewer, name="v"))
    assert store.load("D-auth").version == before


def _cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_command_line_with_a_viewer_service_identity_is_refused_every_write(seeded, capsys, monkeypatch,
                                                                               tmp_path):
    store, run_id, server = seeded
    monkeypatch.setenv("MEDASSURE_SERVICE_IDENTITY", "svc-viewer")
    use = tmp_path / "use.json"
    use.write_text(json.dumps(example_intended_use().model_dump(mode="json")))
    before = store.load("D-auth").version
    writes = [
        ("dossier", "create", "--file", str(use)),
        ("dossier", "update", "D-auth", "--file", str(use)),
        ("rules", "D-auth", "--init"),
        ("attach", run_id, "--dossier", "D-auth"),
        ("run", "--benchmark", "calc_builtin", "--model", "openai/m3", "--api-base", server.url,
         "--limit", "2"),
        ("demo",),
        ("decide", "D-auth", "--decision", "reject", "--rationale", "Not good enough for our patients."),
    ]
    hits = server.hits
    for argv in writes:
        code, _, err = _cli(capsys, *argv)
        assert code == 2, (argv, err)
        assert "svc-viewer" in err and "role" in err and "Traceback" not in err, (argv, err)
    assert store.load("D-auth").version == before and server.hits == hits
    assert [d for d in store.list_dossiers()] and len(store.list_dossiers()) == 1


def test_a_local_name_holds_no_role_in_a_shared_deployment(seeded, capsys, monkeypatch):
    store, _, _ = seeded
    monkeypatch.delenv("MEDASSURE_SERVICE_IDENTITY", raising=False)
    monkeypatch.setenv("MEDASSURE_USER", "rivera@hospital.org")  # a member's name, typed, proves nothing
    before = store.load("D-auth").version
    code, _, err = _cli(capsys, "decide", "D-auth", "--decision", "reject", "--rationale",
                        "Not good enough for our patients.")
    assert code == 2 and "chair" in err and "Traceback" not in err
    assert store.load("D-auth").version == before


def test_in_a_local_deployment_the_desk_user_still_holds_every_role(home, store, llm_server):
    llm_server.configure(answer=constant_answer("Answer: 1"))
    d = Dossier(id="D-local", title="Portal replies", owner="me", intended_use=example_intended_use())
    store.save(d, author="me")
    done = run_and_wait(store, build_request("calc_builtin", "openai/m", api_base=llm_server.url, limit=2))
    assert attach_run(store, "D-local", done.run_id, actor=Actor.named("me")).version == 2
    assert isinstance(ModelEndpoint(name="x", model="openai/m"), ModelEndpoint)
