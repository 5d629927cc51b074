"""CLI contract of ``medassure reevaluate``: JSON keys, exit 3 on a flipped verdict, 0 on no change."""

from __future__ import annotations

import json

import pytest

from cli import main
from tests.governance.reevaluation_fixtures import MODEL_B, N, bad_ids, scripted_models, seed_decided_dossier


def run(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip().startswith("{") else None, out.err


@pytest.fixture
def decided(store, llm_server):
    llm_server.configure(answer=scripted_models())
    return seed_decided_dossier(store, llm_server.url), llm_server, store


def test_regression_exits_3_with_the_flipped_instances(decided, capsys):
    dossier_id, server, store = decided
    before = store.load(dossier_id).version
    code, data, err = run(capsys, "reevaluate", dossier_id, "--model", MODEL_B, "--input-price", "0.5",
                          "--output-price", "1.5", "--format", "json")
    assert code == 3, err
    (b,) = data["benchmarks"]
    assert b["flipped"] == {"worse": bad_ids(), "better": []} and b["n_pairs"] == N
    assert b["mean_before"] == 1.0 and b["mean_after"] == pytest.approx(0.85)
    assert b["mean_delta"] == pytest.approx(-0.15) and len(b["delta_ci"]) == 2 and 0 < b["mcnemar_p"] < 1
    assert b["verdict_before"] == {"score.calc": "pass"}
    assert b["verdict_after"] == {"score.calc": "inconclusive"}
    assert data["decision_would_change"] is True and data["verdicts_flipped"] is True
    assert (data["new_requests"], data["cache_hits"], data["new_version"]) == (N, 0, before + 1)
    assert data["verdict_changes"][0]["rule_id"] == "score.calc" and data["decision_why"]
    assert "version" in err and "request(s) sent" in err
    assert server.hits == 2 * N


def test_nothing_changed_asks_the_model_again_and_exits_0(decided, capsys):
    dossier_id, server, _ = decided
    code, data, err = run(capsys, "reevaluate", dossier_id)
    assert code == 0, err
    assert (data["new_requests"], data["cache_hits"]) == (N, 0) and server.hits == 2 * N
    assert data["served_identity_changed"] is False
    assert data["verdict_changes"] == [] and data["decision_would_change"] is False
    assert data["benchmarks"][0]["flipped"] == {"worse": [], "better": []}
    code = main(["reevaluate", dossier_id, "--format", "text"])
    text = capsys.readouterr().out
    assert code == 0 and "Would this change the decision? no." in text and "worse 0" in text


def test_bad_input_exits_2_with_the_reason(decided, capsys, tmp_path):
    dossier_id, server, _ = decided
    code, data, err = run(capsys, "reevaluate", "D-nope")
    assert code == 2 and data is None and "D-nope" in err and "Traceback" not in err
    code, _, err = run(capsys, "reevaluate", dossier_id, "--prompt-file", str(tmp_path / "missing.txt"))
    assert code == 2 and "no such prompt file" in err
    bad = tmp_path / "p.yaml"
    bad.write_text("prompt: x\n")
    code, _, err = run(capsys, "reevaluate", dossier_id, "--prompt-file", str(bad))
    assert code == 2 and "prompt_template and/or system_prompt" in err
    code, _, err = run(capsys, "reevaluate", dossier_id, "--concurrency", "0")
    assert code == 2 and "--concurrency" in err
    assert server.hits == N


def test_a_worse_model_behind_the_same_name_and_url_is_observed_not_cached(store, llm_server, capsys):
    """Issue 24 §4: a vendor swaps the weights behind the decided name and URL; the cache must not answer."""
    from tests.fakes import FakeConfig, FakeLLMServer

    decided_answers = scripted_models()
    llm_server.configure(answer=decided_answers, system_fingerprint="fp_a1")
    dossier_id = seed_decided_dossier(store, llm_server.url)
    port, url = llm_server.port, llm_server.url
    llm_server.stop()
    worse = FakeConfig(answer=lambda request: decided_answers({**request, "model": MODEL_B}),
                       served_model="model-a-2026-01", system_fingerprint="fp_b7")
    with FakeLLMServer(worse, port=port) as swapped:
        assert swapped.url == url
        code, data, err = run(capsys, "reevaluate", dossier_id, "--format", "json")
    assert code == 3, err
    assert (data["new_requests"], data["cache_hits"]) == (N, 0) and swapped.hits == N
    assert [(c["rule_id"], c["before"], c["after"]) for c in data["verdict_changes"]] == [
        ("score.calc", "pass", "inconclusive")]
    (b,) = data["benchmarks"]
    assert b["flipped"] == {"worse": bad_ids(), "better": []}
    assert b["served_before"] == [{"model": "model-a", "system_fingerprint": "fp_a1", "n": N}]
    assert b["served_after"] == [{"model": "model-a-2026-01", "system_fingerprint": "fp_b7", "n": N}]
    assert b["served_identity_changed"] is True and data["served_identity_changed"] is True
    assert "model-a-2026-01" in err and "Traceback" not in err
    addendum = store.load(dossier_id).dossier.reevaluations[-1]
    assert any("model-a-2026-01" in c and "fp_b7" in c for c in addendum.caveats)
