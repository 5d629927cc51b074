"""The ``Actor`` every operation takes: who acts, how it was established, the name its records carry.

A named local person (a notebook, a test, the demo) holds every role in a local deployment and
records no auth label; nobody signed in is refused a write; a signed-in identity's label is stored on
the version it writes (``update_as``, the door most operations save through).
"""

from __future__ import annotations

import pytest

from governance.dossier.record import Dossier
from governance.identity import Actor, PermissionDenied, proxy_identity
from governance.identity.access import COMMITTEE_ROLES
from governance.identity.operations.authorize import update_as
from governance.intended_use.records import example_intended_use


def rename(owner: str):
    return lambda d: d.model_copy(update={"owner": owner})


@pytest.fixture
def dossier(store):
    return store.save(Dossier(id="D-actor", title="Portal replies", owner="committee",
                              intended_use=example_intended_use()), author="setup").dossier


def test_a_named_actor_is_the_local_person_with_every_role_and_no_label(home):
    lee = Actor.named("dr.lee")
    assert (lee.name, lee.identity.name, lee.identity.mode) == ("dr.lee", "dr.lee", "local")
    assert lee.by_name
    assert lee.auth_label is None
    assert lee.identity_label == "local, unauthenticated"  # what review queues record for it
    access = lee.access("D-1")
    assert access.all_roles and all(access.holds(r) for r in (*COMMITTEE_ROLES, "clinical lead"))


def test_a_named_write_records_the_name_and_no_label(store, dossier):
    v = update_as(store, Actor.named(" dr.lee "), dossier.id, rename("pharmacy"), note="owner", action="edit")
    assert (v.author, v.auth, v.dossier.owner) == (" dr.lee ", None, "pharmacy")  # the name as given


def test_nobody_signed_in_is_refused_a_write_and_nothing_is_stored(store, dossier):
    nobody = Actor.of(None)
    assert nobody.identity is None and nobody.auth_label is None and nobody.identity_label == ""
    assert not nobody.access(dossier.id).can_edit
    before = store.load(dossier.id)
    with pytest.raises(PermissionDenied, match="Nobody is signed in"):
        update_as(store, nobody, dossier.id, rename("pharmacy"), note="owner", action="change the owner")
    assert store.load(dossier.id).hash == before.hash


def test_a_proxy_identity_has_its_label_stored_on_the_version(home, store, dossier):
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text('mode = "proxy"\nproxy_header = "X-Email"\n'
                                        'trusted_proxies = ["10.0.0.0/24"]\n'
                                        '[members]\n"lee@hospital.org" = ["editor"]\n')
    who = proxy_identity({"X-Email": "lee@hospital.org"}, "10.0.0.5", "X-Email", ["10.0.0.0/24"])
    actor = Actor.of(who)
    assert actor.name == "lee@hospital.org" and actor.access(dossier.id).can_edit
    assert actor.auth_label == who.auth_label == "trusted proxy (X-Email header), subject lee@hospital.org"
    v = update_as(store, actor, dossier.id, rename("pharmacy"), note="owner", action="edit")
    assert (v.author, v.auth) == ("lee@hospital.org", who.auth_label)
    assert store.load(dossier.id).auth == who.auth_label
    named = Actor.of(who, name="Dr. Lee")  # a page records its reviewer's name; the label stays
    assert (named.name, named.auth_label) == ("Dr. Lee", who.auth_label)
