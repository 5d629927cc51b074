"""API keys never reach the store, the journal, the job status or the CLI output (issue 19, Secrets).

The adversary is a server that echoes the request's path and headers in its 401 body, and a user
who puts the key in the server URL (user part or query string). Each case runs for real against
the local test server, then every file under ``$MEDASSURE_HOME`` is searched byte for byte, and
every text column of every table is searched through SQL (DuckDB compresses strings on disk, so
a byte search alone could miss a stored key).
"""

from __future__ import annotations

import base64
import secrets
from pathlib import Path

import duckdb
import pytest

from evaluator.gateway.errors import LLMError, classify_exception
from evaluator.gateway.secrets import REDACTED, looks_like_secret, remember_secret, scrub_text, scrub_url


def test_scrub_url_keeps_the_endpoint_and_drops_credentials():
    assert scrub_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert scrub_url(None) is None
    assert scrub_url("https://u:p4ssw0rd-long@api.example.org:8443/openai/v1") == (
        "https://api.example.org:8443/openai/v1"
    )
    assert scrub_url("https://h.example/v1?api-key=abcdef123456&api-version=2024-06-01") == (
        f"https://h.example/v1?api-key={REDACTED}&api-version=2024-06-01"
    )
    # different servers stay different after scrubbing (the cache key is built from it)
    assert scrub_url("http://a:k@h1:1/v1") != scrub_url("http://a:k@h1:2/v1")
    assert scrub_url("http://h:1/v1?k=x") != scrub_url("http://h:1/v2?k=x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"Authorization": "Bearer tok.en-123"}', f'{{"Authorization": "Bearer {REDACTED}"}}'),
        ("authorization: Basic dXNlcjpwYXNzd29yZA==", f"authorization: Basic {REDACTED}"),
        ("key sk-proj-abcdefghijklmnop1234 leaked", f"key {REDACTED} leaked"),
        ("POST /v1/chat?api-key=zz99&x=1 failed", f"POST /v1/chat?api-key={REDACTED}&x=1 failed"),
        ("url http://h:9/v1?api-key=zz99&x=1 failed",
         f"url http://h:9/v1?api-key={REDACTED}&x={REDACTED} failed"),
        ('{"x-api-key": "abc-123"}', f'{{"x-api-key": "{REDACTED}"}}'),
        ("connect to http://me:pw@host:1/v1 refused", f"connect to http://{REDACTED}@host:1/v1 refused"),
        ("plain error: model not found", "plain error: model not found"),
        ("Token limit exceeded; Basic authentication failed; max_tokens=64",
         "Token limit exceeded; Basic authentication failed; max_tokens=64"),
    ],
)
def test_scrub_text_known_answers(text, expected):
    assert scrub_text(text) == expected


def test_a_remembered_key_of_any_shape_is_scrubbed_and_errors_are_scrubbed_at_birth():
    key = "zq" + secrets.token_hex(12)
    remember_secret(key)
    assert scrub_text(f"echo {key}!") == f"echo {REDACTED}!"
    err = classify_exception(RuntimeError(f"401 unauthorized: you sent {key}"))
    assert key not in str(err) and key not in err.short()
    assert key not in str(LLMError(f"x {key}", kind="auth", retryable=False))


# ---- end to end ----------------------------------------------------------------------------------


def _texts_in_db(path: Path) -> list[str]:
    """Every row of every table, as text."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'").fetchall()]
        out = []
        for table in tables:
            out += [str(row) for row in con.execute(f'SELECT * FROM "{table}"').fetchall()]
        return out
    finally:
        con.close()


def _leaks(home: Path, needles: list[str]) -> list[str]:
    """Where any needle occurs: file names (byte search of every file) and table rows."""
    hits = []
    files = [p for p in home.rglob("*") if p.is_file()]
    assert files, "nothing was written"
    for path in files:
        data = path.read_bytes()
        hits += [f"{path.name}: {n}" for n in needles if n.encode() in data]
    rows = _texts_in_db(home / "medassure.duckdb")
    hits += [f"row: {n}" for n in needles for row in rows if n in row]
    return hits


def _echo_everything(server) -> None:
    server.configure(fault_for=lambda _request: "echo401")


def test_cli_and_library_runs_store_no_key_anywhere(home, capsys, monkeypatch, llm_server):
    from cli import main

    key = "zq" + secrets.token_hex(16)  # no well-known shape: only knowing the value can catch it
    monkeypatch.setenv("WARD_LLM", key)
    _echo_everything(llm_server)
    host = llm_server.url.removeprefix("http://")
    cases = {
        "env": (llm_server.url, ["--api-key-env", "WARD_LLM"]),
        "userinfo": (f"http://ward:{key}@{host}", []),
        "query": (f"{llm_server.url}?api-key={key}", []),
        # worker processes build the error text; the parent rebuilds (and scrubs) it again
        "workers": (f"http://ward:{key}@{host}", ["--api-key-env", "WARD_LLM", "--workers", "2",
                                                  "--transport", "openai"]),
    }
    outputs = []
    for api_base, extra in cases.values():
        code = main(["run", "--benchmark", "calc_builtin", "--model", "openai/fake", "--api-base", api_base,
                     "--limit", "3", "--concurrency", "2", "--format", "json", *extra])
        captured = capsys.readouterr()
        outputs.append(captured.out + captured.err)
        assert code == 4, captured.err  # every instance failed with the 401
    assert any(key in header for header in llm_server.auth_headers), "the key was really sent"

    from evaluator.benchmarks.specs import get_benchmark
    from evaluator.gateway.llm import ModelEndpoint
    from evaluator.loaders import load_instances
    from evaluator.runs.runner import run_benchmark
    from governance.dossier.store import Store

    spec = get_benchmark("calc_builtin")
    errors: list[str] = []
    with Store.open(home / "medassure.duckdb") as store:
        for api_base, env in ((llm_server.url, "WARD_LLM"), (cases["query"][0], None)):
            endpoint = ModelEndpoint(name="lib", model="openai/fake2", api_base=api_base, api_key_env=env)
            summary = run_benchmark(store, spec, load_instances(spec, limit=2), endpoint, concurrency=2)
            assert summary.n_errors == 2
            errors += [r["error"] for r in store.runs.results(summary.run_id)]
    # the echo came back (a 401 with the headers; litellm mangles a query in api_base into a 404 that
    # echoes the path) and was stored scrubbed
    assert len(errors) == 4 and all(REDACTED in e for e in errors), errors

    basic = base64.b64encode(f"ward:{key}".encode()).decode()
    needles = [key, basic, key[:16]]
    assert _leaks(home, needles) == []
    assert not [n for n in needles for text in outputs if n in text]
    rows = _texts_in_db(home / "medassure.duckdb")
    assert any(summary.run_id in row for row in rows), "the row search does see stored text"


def test_a_key_echoed_back_reversed_base64_or_hex_is_scrubbed():
    key = "wardKEY-" + secrets.token_hex(12)
    remember_secret(key)
    b64 = base64.b64encode(key.encode()).decode()
    urlsafe = base64.urlsafe_b64encode(key.encode()).decode()
    echoes = [key[::-1], b64, b64.rstrip("="), urlsafe, key.encode().hex()]
    for echo in echoes:
        body = f'401 {{"error": "invalid key", "received": "{echo}"}}'
        assert echo not in scrub_text(body) and REDACTED in scrub_text(body), echo


@pytest.mark.parametrize("model", ["sk-proj-" + "Ab3" * 10, "openai/sk-" + "x9" * 12, "azure/" + "3f9a" * 8,
                                   "AKIA" + "ABCDEFGHIJKLMNOP", "hosted_vllm/" + "Zx81" * 9])
def test_a_model_string_holding_a_key_is_refused(model):
    from pydantic import ValidationError

    from evaluator.gateway.llm import ModelEndpoint
    from governance.reevaluation.records import PlanChange

    assert looks_like_secret(model)
    with pytest.raises(ValidationError, match="looks like an API key"):
        ModelEndpoint(name="x", model=model)
    with pytest.raises(ValidationError, match="looks like an API key"):
        PlanChange(model=model)


def test_no_model_name_litellm_knows_looks_like_a_key():
    """Measured on names we did not write: every model in litellm's shipped price map (thousands)."""
    import json

    import litellm

    path = Path(litellm.__file__).parent / "model_prices_and_context_window_backup.json"
    names = [n for n in json.loads(path.read_text()) if n != "sample_spec"]
    assert len(names) > 1000
    assert [n for n in names if looks_like_secret(n)] == []


def test_run_with_a_key_as_the_model_exits_2_and_stores_nothing(home, capsys):
    from cli import main

    code = main(["run", "--benchmark", "calc_builtin", "--model", "openai/sk-" + "Qw7" * 9,
                 "--api-base", "http://127.0.0.1:9/v1", "--limit", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "looks like an API key" in err and "Traceback" not in err
    db = home / "medassure.duckdb"
    assert not db.exists() or not [r for r in _texts_in_db(db) if "sk-" in r]
