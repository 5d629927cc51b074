"""A run counts for the candidate chosen, not for its model string (issue 27, item 3).

The walk: candidate *gpt-4o* picked, model string ``openai/gpt-4o-bad`` (an Azure deployment name or an
on-prem alias does the same). Before, the run made a phantom third candidate "openai/gpt-4o-bad" in the
verdicts, the cost and the recommendation, and GPT-4o's own verdicts ignored it.
"""

from __future__ import annotations

import pytest

from evaluator.runs.jobs import RunJobs
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.procurement.candidates import candidate_models, run_binding, run_candidates
from governance.rules.assessment import assessment_and_recommendation
from governance.rules.policy import default_policy
from governance.runs.operations.jobs import build_request, run_and_wait
from governance.runs.operations.view import attach_run
from reports.sections_core import evidence_section
from tests.governance.candidate_fixtures import candidate

BAD = "openai/gpt-4o-bad"


def _dossier(candidates=()) -> Dossier:
    d = Dossier(title="Paediatric doses", owner="a.analyst", intended_use=example_intended_use())
    mapping = d.mapping.decide("supporting_diagnostic_decisions", "accepted", by="me")
    return d.model_copy(update={"mapping": mapping, "candidates": list(candidates),
                                "policy": default_policy("high", ["supporting_diagnostic_decisions"])})


@pytest.fixture
def bad_run(store, llm_server):
    """A completed built-in run of the bad model (every answer wrong: "Answer: 0")."""
    llm_server.configure(answer=lambda _request: "Answer: 0")

    def run(name: str | None):
        request = build_request("calc_builtin", BAD, api_base=llm_server.url, limit=12, name=name)
        done = run_and_wait(store, request, poll_s=0.01, jobs=RunJobs())
        assert done.state == "completed"
        return done.run_id

    return run


def _attach(store, dossier, run_id):
    store.save(dossier, author="a.analyst")
    return attach_run(store, dossier.id, run_id, actor=Actor.named("a.analyst")).dossier


def test_picking_an_intended_use_candidate_names_the_evidence_after_it(store, bad_run):
    gpt = candidate("gpt", "gpt-4o", "2024-05-13")
    d = _attach(store, _dossier([gpt]), bad_run("gpt-4o"))
    main = next(e for e in d.evidence if e.is_main)
    assert (main.model, main.endpoint_model, main.candidate_id) == ("gpt-4o", BAD, "gpt")
    assert candidate_models(d, gpt) == ["gpt-4o"]
    assessment, rec = assessment_and_recommendation(d)
    assert BAD not in assessment.models and assessment.models == ["gpt-4o"]
    assert [c.model for c in rec.candidates] == ["gpt-4o"]
    assert all(v.model in (None, "gpt-4o") for v in assessment.verdicts)
    rows = evidence_section(d).tables[0].rows  # the PDF names the candidate, the endpoint beside it
    assert any(r[2] == f"gpt-4o (endpoint {BAD})" for r in rows)
    score = next(v for v in assessment.verdicts if v.kind == "score" and v.model == "gpt-4o")
    assert main.id in score.evidence_ids and score.estimate == main.score < 0.2  # GPT-4o sees the run


def test_a_recorded_candidate_binds_by_id_and_no_other_candidate_takes_it_by_name(store, bad_run):
    openai, azure = candidate("openai-gpt-4o", "gpt-4o"), candidate("azure-gpt-4o", "gpt-4o")
    d = _attach(store, _dossier([openai, azure]), bad_run("azure-gpt-4o"))
    main = next(e for e in d.evidence if e.is_main)
    assert (main.model, main.endpoint_model, main.candidate_id) == (azure.label, BAD, "azure-gpt-4o")
    assert candidate_models(d, azure) == [azure.label]
    assert candidate_models(d, openai) == []
    _, rec = assessment_and_recommendation(d)
    assert [c.model for c in rec.candidates] == [azure.label]


def test_without_a_chosen_candidate_the_model_string_names_it_as_before(store, bad_run):
    d = _attach(store, _dossier(), bad_run(None))
    main = next(e for e in d.evidence if e.is_main)
    assert (main.model, main.endpoint_model, main.candidate_id) == (BAD, None, None)
    dumped = main.model_dump(mode="json")
    assert "endpoint_model" not in dumped and "candidate_id" not in dumped  # old content hashes verify


def test_binding_rules_by_hand():
    d = _dossier([candidate("gpt", "gpt-4o")])
    assert run_candidates(d) == ["gpt", "gpt-4o", "claude-3-7-sonnet", "llama-3.3-70b"]
    assert run_binding(d, "gpt", BAD) == ("Vendor gpt · Product gpt", "gpt")
    assert run_binding(d, "Vendor gpt · Product gpt", BAD) == ("Vendor gpt · Product gpt", "gpt")
    assert run_binding(d, "claude-3-7-sonnet", "azure/claude-deploy") == ("claude-3-7-sonnet", None)
    assert run_binding(d, "ward model", BAD) == (BAD, None)  # a free label is not a candidate
    assert run_binding(d, BAD, BAD) == (BAD, None)
