"""A named identity configuration that is missing, empty or broken refuses; it never becomes local mode.

Issue 35 item 1: with ``MEDASSURE_IDENTITY_FILE`` naming a missing or empty file, a write used to run as
the login name with every role ("local, unauthenticated"). Now the CLI exits 2 with one line and writes
nothing, the pages show the refusal, and local mode is left for a desk with no configuration at all, where
the CLI says after each write that it acted unauthenticated with every role.
"""

from __future__ import annotations

import json

import pytest

from cli import main
from governance.dossier.store import Store
from governance.identity.config import IdentityConfigError, identity_configured, load_config


@pytest.fixture
def intended_use(tmp_path, capsys):
    assert main(["dossier", "example"]) == 0
    path = tmp_path / "intended_use.json"
    path.write_text(capsys.readouterr().out)
    return path


def dossiers(home) -> list:
    if not (home / "medassure.duckdb").exists():
        return []
    store = Store.open(home / "medassure.duckdb")
    try:
        return store.list_dossiers()
    finally:
        store.close()


@pytest.mark.parametrize("content", [None, "", "   \n# only a comment\n"],
                         ids=["missing", "empty", "comments"])
def test_a_named_file_that_is_missing_or_empty_refuses_the_write(home, tmp_path, monkeypatch, capsys,
                                                                 intended_use, content):
    named = tmp_path / "identity.toml"
    if content is not None:
        named.write_text(content)
    monkeypatch.setenv("MEDASSURE_IDENTITY_FILE", str(named))
    with pytest.raises(IdentityConfigError, match=str(named)):
        load_config()
    code = main(["dossier", "create", "--file", str(intended_use)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1 and str(named) in err
    assert dossiers(home) == []


def test_an_empty_file_in_the_home_refuses_too(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text("")
    assert identity_configured()
    with pytest.raises(IdentityConfigError, match="empty"):
        load_config()


def test_no_configuration_anywhere_is_local_mode_and_the_cli_says_so_once(home, capsys, intended_use,
                                                                          monkeypatch):
    for var in ("MEDASSURE_IDENTITY_FILE", "MEDASSURE_AUTH_MODE", "MEDASSURE_SERVICE_IDENTITY"):
        monkeypatch.delenv(var, raising=False)
    assert not identity_configured() and load_config().mode == "local"
    code = main(["dossier", "create", "--file", str(intended_use), "--author", "dr.lee", "--format", "json"])
    out = capsys.readouterr()
    assert code == 0 and json.loads(out.out)["id"]
    warnings = [line for line in out.err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "local and unauthenticated" in warnings[0]
    assert len(dossiers(home)) == 1


def test_a_configured_deployment_prints_no_local_warning(home, capsys, intended_use, monkeypatch):
    home.mkdir(parents=True, exist_ok=True)
    (home / "identity.toml").write_text('mode = "local"\n')
    code = main(["dossier", "create", "--file", str(intended_use), "--author", "dr.lee"])
    assert code == 0 and "warning: no identity configuration" not in capsys.readouterr().err



@pytest.mark.parametrize("shape", ["directory", "dangling link"])
def test_an_identity_toml_in_the_home_that_is_not_a_file_refuses(home, capsys, intended_use, monkeypatch,
                                                                  shape):
    # A directory or a link to nothing named identity.toml read as "no configuration": local mode, every role.
    monkeypatch.delenv("MEDASSURE_IDENTITY_FILE", raising=False)
    home.mkdir(parents=True, exist_ok=True)
    target = home / "identity.toml"
    if shape == "directory":
        target.mkdir()
    else:
        target.symlink_to(home / "gone.toml")
    assert identity_configured()
    with pytest.raises(IdentityConfigError, match=shape.split()[-1]):
        load_config()
    code = main(["dossier", "create", "--file", str(intended_use), "--author", "dr.lee"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and str(target) in err and "warning" not in err
    assert dossiers(home) == []


def test_a_named_directory_says_it_is_a_directory(home, tmp_path, monkeypatch):
    monkeypatch.setenv("MEDASSURE_IDENTITY_FILE", str(tmp_path))
    with pytest.raises(IdentityConfigError, match="is a directory"):
        load_config()


def test_the_variable_set_but_empty_refuses_rather_than_local_mode(home, capsys, intended_use, monkeypatch):
    # MEDASSURE_IDENTITY_FILE=$UNSET_VARIABLE in a deployment script: a file was meant, none is named.
    monkeypatch.setenv("MEDASSURE_IDENTITY_FILE", "")
    assert identity_configured()
    with pytest.raises(IdentityConfigError, match="set but empty"):
        load_config()
    code = main(["dossier", "create", "--file", str(intended_use), "--author", "dr.lee"])
    assert code == 2 and "set but empty" in capsys.readouterr().err
    assert dossiers(home) == []


def test_an_unreadable_or_non_utf8_file_refuses_with_its_reason(home, tmp_path, monkeypatch):
    named = tmp_path / "identity.toml"
    named.write_bytes(b'mode = "proxy"\n# \xff\xfe\n')
    monkeypatch.setenv("MEDASSURE_IDENTITY_FILE", str(named))
    with pytest.raises(IdentityConfigError, match="not UTF-8"):
        load_config()
    named.write_text('mode = "proxy"\n')

    def unreadable(self, *a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(type(named), "read_text", unreadable)  # root reads any file: chmod 000 tests nothing
    with pytest.raises(IdentityConfigError, match="cannot be read .Permission denied"):
        load_config()


@pytest.mark.parametrize("variable", ["MEDASSURE_AUTH_MODE", "MEDASSURE_PROXY_HEADER",
                                      "MEDASSURE_TRUSTED_PROXIES", "MEDASSURE_SERVICE_IDENTITY"])
def test_a_setting_variable_set_but_empty_refuses_rather_than_local_mode(home, capsys, intended_use,
                                                                        monkeypatch, variable):
    # ``MEDASSURE_AUTH_MODE=$UNSET`` in a deployment script was read as "not set": a local desk, every role.
    monkeypatch.setenv(variable, "  ")
    assert identity_configured()
    code = main(["dossier", "create", "--file", str(intended_use)])
    err = capsys.readouterr().err
    assert code == 2 and f"{variable} is set but empty" in err and err.count("\n") == 1
    assert dossiers(home) == []


@pytest.mark.parametrize(("settings", "named"), [
    ({"MEDASSURE_TRUSTED_PROXIES": "10.0.0.1"}, "MEDASSURE_TRUSTED_PROXIES"),
    ({"MEDASSURE_PROXY_HEADER": "X-Forwarded-User"}, "MEDASSURE_PROXY_HEADER"),
    ({"file": 'trusted_proxies = ["10.0.0.0/8"]\n[members]\n"a@h.org" = ["chair"]\n'}, "trusted_proxies"),
])
def test_proxy_settings_without_a_mode_refuse_rather_than_serve_a_local_desk(home, capsys, intended_use,
                                                                             monkeypatch, settings, named):
    # A deployment behind oauth2-proxy that forgot the mode ran as a local desk: every visitor every role.
    for variable, value in settings.items():
        if variable == "file":
            home.mkdir(parents=True, exist_ok=True)
            (home / "identity.toml").write_text(value)
        else:
            monkeypatch.setenv(variable, value)
    with pytest.raises(IdentityConfigError, match=f"{named} given but no mode"):
        load_config()
    assert main(["dossier", "create", "--file", str(intended_use)]) == 2
    assert "no mode" in capsys.readouterr().err and dossiers(home) == []
    monkeypatch.setenv("MEDASSURE_AUTH_MODE", "proxy")  # with the mode named it loads
    assert load_config().mode == "proxy"


def test_a_bad_mode_from_the_environment_names_the_variable_not_a_file(home, monkeypatch):
    monkeypatch.setenv("MEDASSURE_AUTH_MODE", "sso")
    with pytest.raises(IdentityConfigError, match=r"^MEDASSURE_AUTH_MODE: mode: Input should be"):
        load_config()
