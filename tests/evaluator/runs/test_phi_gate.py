"""The PHI gate's rule (``evaluator.runs.phi_gate``), the runner's backstop and the attestation store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import duckdb
import pytest
from pydantic import ValidationError

from evaluator.benchmarks.instance import Instance
from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.phi.attestation import AttestationStore, DeidentificationAttestation
from evaluator.runs.phi_gate import PhiBlocked, check_phi, prompt_texts
from evaluator.runs.runner import RunOptions, run_benchmark
from evaluator.runs.store import RunStore

VENDOR = ModelEndpoint(name="Vendor API", model="openai/vendor")
ONPREM = ModelEndpoint(name="On-prem vLLM", model="openai/local", phi_approved=True)
DIRTY = [Instance(id="a", context="Mr. Harold Jenkins, MRN 4471223, called.", question="K?", reference="4"),
         Instance(id="b", context="Potassium 4.1 mmol/L.", question="K?", reference="4.1")]
CLEAN = [Instance(id="c", context="Wells score 4, D-dimer positive.", question="PE?", reference="yes")]


def attestation(sha: str = "ab" * 32, **kw) -> DeidentificationAttestation:
    return DeidentificationAttestation(attested_by="Dr. Lee", method="safe_harbor", sha256=sha,
                                       subject="cases.csv", **kw)


def test_clean_cases_pass_without_looking_for_an_attestation():
    def lookup():
        raise AssertionError("no attestation is needed for clean cases")

    check = check_phi(CLEAN, [VENDOR], attestation=lookup)
    assert (check.allowed, check.basis, check.n_identifiers, check.counts) == (True, "no_identifiers", 0, {})


def test_identifiers_to_an_unapproved_endpoint_are_blocked_with_kinds_and_masked_examples():
    check = check_phi(DIRTY, [VENDOR])
    assert (check.allowed, check.basis) == (False, "blocked")
    assert check.counts == {"name": 1, "mrn": 1} and check.n_identifiers == 2
    assert "1 of 2 cases" in check.explanation and "Vendor API is not approved" in check.explanation
    assert "Nothing was sent" in check.explanation and "attestation" in check.explanation
    joined = " ".join(check.examples)
    assert "Jenkins" not in joined and "4471223" not in joined and joined.count("case a") == 2


def test_every_receiving_endpoint_must_be_approved():
    assert check_phi(DIRTY, [ONPREM]).basis == "approved_endpoint"
    mixed = check_phi(DIRTY, [ONPREM, VENDOR])
    assert not mixed.allowed and "Vendor API is not approved" in mixed.explanation
    assert "On-prem" not in mixed.explanation.split("and ")[-1].split(" is not")[0]


def test_an_attestation_lets_flagged_cases_through_and_is_named():
    a = attestation()
    check = check_phi(DIRTY, [VENDOR], attestation=lambda: a)
    assert (check.allowed, check.basis, check.attestation) == (True, "attested", a)
    assert "attested by Dr. Lee" in check.explanation and "Safe Harbor" in check.explanation


def test_outputs_are_scanned_and_generated_cases_are_not():
    check = check_phi(CLEAN, [VENDOR], outputs={"c": "Ring her at 555-867-5309"})
    assert not check.allowed and check.counts == {"phone": 1}
    assert check.examples == ["case c, model output: 5**-***-***9 (phone)"]
    assert check_phi(DIRTY, [VENDOR], generated=True).basis == "generated"
    assert not check_phi(DIRTY, [VENDOR], outputs={"a": "Mr. Harold Jenkins"}, generated=True).allowed


def test_the_runner_refuses_on_its_own_and_creates_nothing(llm_server):
    con = duckdb.connect()
    spec = get_benchmark("generic")
    endpoint = ModelEndpoint(name="Vendor API", model="openai/vendor", api_base=llm_server.url)
    with pytest.raises(PhiBlocked) as err:
        run_benchmark(con, spec, DIRTY, endpoint)
    assert err.value.check.counts == {"name": 1, "mrn": 1}
    assert llm_server.hits == 0 and con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    cleared = check_phi(DIRTY, [endpoint], attestation=attestation())
    summary = run_benchmark(con, spec, DIRTY, endpoint, options=RunOptions(phi_check=cleared))
    assert summary.n == 2 and llm_server.hits == 2
    summary = run_benchmark(con, get_benchmark("calc_builtin"), DIRTY[:1], endpoint)  # generated: not scanned
    assert summary.n == 1 and RunStore(con).get_run(summary.run_id) is not None


def test_attestation_store_finds_the_newest_by_hash_and_by_dossier():
    store = AttestationStore(duckdb.connect())
    old = store.record(attestation("0" * 64, attested_at=datetime.now(UTC) - timedelta(days=1)))
    new = store.record(attestation("0" * 64, note="re-checked"), dossier_id="D-1")
    store.record(attestation("1" * 64))
    assert store.find([None, "0" * 64]).attestation_id == new.attestation_id != old.attestation_id
    assert store.find(["2" * 64]) is None and store.find([None]) is None
    assert [a.attestation_id for a in store.for_dossier("D-1")] == [new.attestation_id]


def test_an_attestation_names_a_method_and_a_real_hash():
    with pytest.raises(ValidationError):
        attestation("not-a-hash")
    with pytest.raises(ValidationError):
        DeidentificationAttestation(attested_by="x", method="guesswork", sha256="0" * 64, subject="f")
    with pytest.raises(ValidationError):
        DeidentificationAttestation(attested_by="  ", method="safe_harbor", sha256="0" * 64, subject="f")


def test_the_same_cases_are_scanned_once(monkeypatch):
    import evaluator.runs.phi_gate as gate

    calls = []
    real = gate.find_identifiers
    monkeypatch.setattr(gate, "find_identifiers", lambda text: calls.append(text) or real(text))
    cases = [Instance(id="z", context="Reach Mr. Quentin Doe at 555-867-5309.", question="?", reference="r")]
    first = check_phi(cases, [VENDOR])
    n = len(calls)
    assert n > 0 and check_phi(cases, [ONPREM]).counts == first.counts and len(calls) == n
    check_phi([cases[0].model_copy(update={"question": "Why?"})], [VENDOR])
    assert len(calls) > n


# ---- the prompt is sent with every case (issue 25, item 7) -------------------------------------


def spec_with(system: str = "", template: str = "{context}\n{question}"):
    return get_benchmark("generic").model_copy(update={"system_prompt": system, "prompt_template": template})


def test_prompt_texts_are_the_system_message_and_the_template_without_placeholders():
    texts = prompt_texts(spec_with("Be brief.", "Example: Mr. Harold Jenkins.\n{context}\n{question}"))
    assert texts == {"system prompt": "Be brief.", "prompt template": "Example: Mr. Harold Jenkins.\n\n\n\n"}
    assert "system prompt" not in prompt_texts(spec_with())


def test_identifiers_in_a_prompt_block_and_an_attestation_of_the_cases_does_not_cover_them():
    prompts = {"prompt template": "Few-shot: Patient John Smith (MRN 12345678) asked about INR."}
    check = check_phi(CLEAN, [VENDOR], prompts=prompts, attestation=lambda: attestation())
    assert (check.allowed, check.basis) == (False, "blocked") and {"name", "mrn"} <= set(check.counts)
    assert "0 of 1 cases and in the prompt" in check.explanation
    assert "does not cover the prompt" in check.explanation
    assert all(e.startswith("prompt template: ") for e in check.examples)
    assert "Smith" not in " ".join(check.examples)
    assert check_phi(CLEAN, [ONPREM], prompts=prompts).basis == "approved_endpoint"
    assert check_phi(CLEAN, [VENDOR], prompts={"system prompt": "Answer in one word."}).allowed
    assert not check_phi(CLEAN, [VENDOR], prompts=prompts, generated=True).allowed, "generated cases only"


def test_the_runner_checks_the_prompt_even_when_the_caller_cleared_the_cases(llm_server):
    con = duckdb.connect()
    spec = spec_with("Example patient: Mrs. Mary Lee, DOB 3/4/52.")
    endpoint = ModelEndpoint(name="Vendor API", model="openai/vendor", api_base=llm_server.url)
    cleared = check_phi(DIRTY, [endpoint], attestation=attestation())
    for options in (None, RunOptions(phi_check=cleared)):
        with pytest.raises(PhiBlocked, match="in the prompt"):
            run_benchmark(con, spec, CLEAN, endpoint, options=options)
    assert llm_server.hits == 0 and con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
