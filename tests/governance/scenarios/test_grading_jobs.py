"""The page's rubric grading operations: coverage, the estimate (calls, tokens, price), keys, the job."""

from __future__ import annotations

import pytest

from evaluator.grading import GradingError
from evaluator.grading.grade import GraderSpec
from evaluator.scenarios import import_scenario, record_offline_run
from governance.identity import Actor
from governance.scenarios import GradeRequest, plan_grading, rubric_coverage, run_gradings, start_grading
from tests.cli.test_cli_grade import grader_or_candidate, healthbench_file

PRICED = "gpt-4o-2024-05-13"  # in the price table, so the estimate has a cost


@pytest.fixture
def rubric_run(store, tmp_path) -> str:
    version = import_scenario(store.scenarios, "hb.jsonl", healthbench_file(tmp_path).read_bytes(),
                              author="test")
    answers = {"hb-1": "Metformin halved.", "hb-2": "Call 911.", "hb-3": "Amoxicillin."}  # hb-4 unanswered
    return record_offline_run(store, version, "cand", answers, endpoint_name="cand")


def test_coverage_counts_the_answered_rubric_cases_and_their_criteria(store, rubric_run):
    coverage = rubric_coverage(store, rubric_run)
    assert (coverage.n_free_text, coverage.n_rubric, coverage.n_criteria) == (3, 3, 7)  # 3 + 2 + 2
    assert rubric_coverage(store, "no-such-run") is None


def test_the_estimate_is_criteria_times_responses_per_grader_priced_by_the_endpoint(store, rubric_run):
    from evaluator.gateway.llm import ModelEndpoint

    plan = plan_grading(store, GradeRequest(run_id=rubric_run, graders=(PRICED, "openai/unpriced-x")))
    assert (plan.n_responses, plan.n_criteria) == (3, 7)
    assert [e.n_to_send for e in plan.graders] == [7, 7]
    assert plan.cost_usd_max is None  # a grader without a price: not bounded
    priced = plan_grading(store, GradeRequest(run_id=rubric_run, graders=(PRICED,))).graders[0]
    price = ModelEndpoint(name=PRICED, model=PRICED).price()
    assert price is not None and priced.prompt_tokens > 0
    assert priced.cost_usd_max == pytest.approx(
        price.cost(priced.prompt_tokens, 7 * GraderSpec.model_fields["max_tokens"].default))  # 1,024 a reply
    assert priced.price_source == price.source


def test_a_missing_key_is_listed_in_the_estimate_and_refuses_the_start(store, rubric_run):
    request = GradeRequest(run_id=rubric_run, graders=("openai/g",), api_key_env="NO_SUCH_GRADER_KEY_XYZ")
    plan = plan_grading(store, request)
    assert len(plan.key_problems) == 1 and "NO_SUCH_GRADER_KEY_XYZ" in plan.key_problems[0]
    with pytest.raises(GradingError, match="NO_SUCH_GRADER_KEY_XYZ"):
        start_grading(store, request, actor=Actor.named("editor"))
    assert run_gradings(store, rubric_run) == []


def test_the_job_grades_as_the_cli_and_a_second_estimate_is_free(store, rubric_run, llm_server):
    llm_server.configure(answer=grader_or_candidate)
    request = GradeRequest(run_id=rubric_run, graders=("openai/grader-a",), api_base=llm_server.url)
    job = start_grading(store, request, actor=Actor.named("editor"))
    status = job.join(60)
    assert status.state == "completed" and status.brief["grading_id"].startswith("grading-")
    (result,) = run_gradings(store, rubric_run)
    assert result.grading_id == status.brief["grading_id"] and llm_server.hits == 7
    assert result.score == pytest.approx((0.125 + 4 / 6 - 0.5) / 3)  # tests/cli/test_cli_grade.py, by hand
    again = plan_grading(store, request).graders[0]
    assert (again.n_to_send, again.n_cached) == (0, 7)
