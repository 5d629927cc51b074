"""The ``helm-0.5`` jury method (crfm-helm 0.5.16) against MedHELM values derived by hand from its rules.

The package-run known answers for both versions are in ``test_medhelm_known_answers.py``; this file
keeps the hand derivations and runs the methods through the jury, the runner and the fake server.

The rules (HELM ``annotation/model_as_judge.py``, ``metrics/llm_jury_metrics.py``, MedHELM's metrics
with ``default_score=1.0``, the leaderboard's ``fix_jury_scores.py``), as applied in each derivation:
  R1 the reply's text from the first "{" to the last "}" is parsed (the whole reply if there is none);
  R2 on json's "Expecting ',' delimiter" one "}" is appended and it is parsed again; any other error:
     no judgement from that judge;
  R3 every criterion needs both "score" and "explanation", else no judgement;
  R4 every key of the reply (extra ones too) adds int(value["score"]): 4.5 -> 4, "4" -> 4, no range
     check; int("4.5") raises ValueError, which stops HELM's run;
  R5 the instance value is the mean of all those integers over all judges, or 1.0 with none (an empty
     candidate answer is never sent); values below 1 are raised to 1; the benchmark is the mean over
     all instances.
Each case is one instance on which all three judges send the same reply (first call and repair alike),
so the instance value is that one reply's value. The default rubric: accuracy, completeness, clarity.
"""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import duckdb
import pytest

from evaluator.benchmarks.instance import Instance
from evaluator.gateway.llm import ModelEndpoint
from evaluator.jury.medhelm import medhelm_instance_score, read_medhelm_reply
from evaluator.jury.panel import JuryConfig, jury_config_for, load_jury_summary, run_jury
from evaluator.jury.prompt import parse_judge_reply
from evaluator.jury.rubrics import get_rubric
from evaluator.jury.scores import instance_jury
from evaluator.runs.runner import run_benchmark
from tests.fakes import FakeConfig, FakeLLMServer, prompt_text

CRITERIA = ("accuracy", "completeness", "clarity")
JUDGES = ("openai/judge-a", "openai/judge-b", "openai/judge-c")


def reply(a, b, c, *, explain=True, **extra) -> str:
    """A judge reply with scores a, b, c (written as given: ints, floats or strings)."""
    body = {name: {"score": v, **({"explanation": "why"} if explain else {})}
            for name, v in zip(CRITERIA, (a, b, c), strict=True)}
    return json.dumps({**body, **extra})


CLEAN = reply(4, 3, 5)
# name: (judge reply, HELM value by hand or None when HELM's run stops, strict value or None = unscored)
PARITY = {
    # R1 finds the whole object; (4 + 3 + 5) / 3 = 4.0. Strict reads it: 4.0.
    "clean": (CLEAN, 4.0, 4.0),
    # R1 drops the prose around the object: 4.0. Strict: text before and after -> unscored.
    "prose": (f"Here is my assessment:\n{CLEAN}\nI hope this helps.", 4.0, None),
    # R1 takes the object inside the fence: 4.0. Strict accepts a whole-reply ```json block: 4.0.
    "fenced": (f"```json\n{CLEAN}\n```", 4.0, 4.0),
    # R1 ends at clarity's "}", json says "Expecting ',' delimiter", R2 appends "}": 4.0. Strict: unscored.
    "no_closing_brace": (CLEAN[:-1], 4.0, None),
    # R4 int(4.5) = 4: (4 + 3 + 5) / 3 = 4.0. Strict: 4.5 is not a whole number -> unscored.
    "float_score": (reply(4.5, 3, 5), 4.0, None),
    # R4 int("4") = 4, int("3") = 3, int("5") = 5: 4.0. Strict: strings are not integers -> unscored.
    "numeric_strings": (reply("4", "3", "5"), 4.0, None),
    # R3 no explanation -> no judgement from any judge -> R5 default 1.0. Strict: explanation optional, 4.0.
    "no_explanation": (reply(4, 3, 5, explain=False), 1.0, 4.0),
    # R4 the extra key counts: (4 + 3 + 5 + 1) / 4 = 3.25. Strict: an extra key -> unscored.
    "extra_key": (reply(4, 3, 5, overall={"score": 1, "explanation": "x"}), 3.25, None),
    # R4 no range check: (7 + 3 + 5) / 3 = 5.0. Strict: 7 is outside 1-5 -> unscored.
    "out_of_range": (reply(7, 3, 5), 5.0, None),
    # R4 (0 + 0 + 0) / 3 = 0.0 in HELM's metric; R5 the leaderboard raises it to 1.0. Strict: unscored.
    "zeros": (reply(0, 0, 0), 1.0, None),
    # R1 no "{": the empty text is parsed, "Expecting value" -> no judgement -> 1.0. Strict: unscored.
    "empty_reply": ("", 1.0, None),
    # R1 spans both objects, json says "Extra data" -> no judgement -> 1.0. Strict: unscored.
    "two_objects": (f"{CLEAN}\nOr, more leniently:\n{reply(5, 5, 5)}", 1.0, None),
    # A reply cut off inside a string: "Unterminated string" (not R2's message) -> 1.0. Strict: unscored.
    "truncated": (CLEAN[:40], 1.0, None),
    # R4 int("4.5") raises ValueError: HELM's metric stops the whole run, there is no HELM value. Ours
    # counts it as no judgement (1.0) and counts the error apart. Strict: unscored.
    "string_float": (reply("4.5", 3, 5), None, None),
}
OURS_FOR_HELM_ERROR = 1.0


def test_prompt_docstring_no_longer_says_helm_falls_back_to_0():
    import evaluator.jury.prompt as prompt

    assert "falls back to 0" not in prompt.__doc__ and "default_score=1.0" in prompt.__doc__


@pytest.mark.parametrize("name", list(PARITY))
def test_one_reply_read_as_helm_and_as_strict(name):
    text, helm, strict = PARITY[name]
    reading = read_medhelm_reply(text, CRITERIA, "helm-0.5")
    value, default = medhelm_instance_score([reading] * 3)
    assert value == pytest.approx(OURS_FOR_HELM_ERROR if helm is None else helm), name
    assert reading.helm_error == (helm is None), reading
    assert default == (reading.values is None)
    parsed = parse_judge_reply(text, get_rubric())
    judgements = [{"judge": j, "scores": parsed.scores, "reason": parsed.reason} for j in JUDGES]
    assert instance_jury(name, judgements, CRITERIA).score == strict


def test_brace_repair_is_only_for_the_delimiter_message():
    assert read_medhelm_reply(CLEAN[:-1], CRITERIA, "helm-0.5").repaired_brace
    no_brace_at_all = '{"accuracy": {"score": 4, "explanation": "a"'  # R1 finds no span; R2 still fails
    assert read_medhelm_reply(no_brace_at_all, CRITERIA, "helm-0.5").values is None


def test_mixed_judges_average_every_valid_integer():
    """Judge a: 4, 3, 5; judge b: no explanation (dropped); judge c: 5, 5, 5 in prose.
    HELM: (4 + 3 + 5 + 5 + 5 + 5) / 6 = 27 / 6 = 4.5. Strict reads a and b (2, 2, 2), not c's prose:
    (4 + 3 + 5 + 2 + 2 + 2) / 6 = 3.0."""
    replies = [CLEAN, reply(2, 2, 2, explain=False), f"Verdict: {reply(5, 5, 5)}"]
    value, default = medhelm_instance_score([read_medhelm_reply(r, CRITERIA, "helm-0.5") for r in replies])
    assert (value, default) == (4.5, False)
    parsed = [parse_judge_reply(r, get_rubric()) for r in replies]
    rows = [{"judge": j, "scores": p.scores, "reason": p.reason} for j, p in zip(JUDGES, parsed, strict=True)]
    assert instance_jury("m", rows, CRITERIA).score == 3.0


# ---- through the jury, the runner and the local fake server -------------------------------------------

CASES = [*PARITY, "empty_candidate"]


class Spec(SimpleNamespace):
    pass


def scripted(seen: list[dict]):
    def answer(request: dict) -> str:
        text = prompt_text(request)
        if "CANDIDATE" not in text:  # the candidate model
            case = re.search(r"case (\w+)", text).group(1)
            return "" if case == "empty_candidate" else f"Take the tablets with food. CASE-{case}"
        seen.append(request)
        return PARITY[re.search(r"CASE-(\w+)", text).group(1)][0]

    return answer


@pytest.fixture(scope="module")
def parity():
    seen: list[dict] = []
    with FakeLLMServer(FakeConfig(answer=scripted(seen))) as server:
        con = duckdb.connect()
        instances = [Instance(id=f"i-{c}", question=f"Answer case {c}", reference="Take with food.",
                              answer_type="free_text") for c in CASES]
        run = run_benchmark(
            con, Spec(id="medication_qa", max_tokens=64, temperature=0.0, metrics=["none"]), instances,
            ModelEndpoint(name="cand", model="openai/candidate", api_base=server.url),
            render=lambda s, i: [{"role": "user", "content": i.question}],
            score=lambda s, i, t: SimpleNamespace(parsed=t, score=None, unparsed=False, metrics={}),
        )
        config = jury_config_for(Spec(id="medication_qa", jury=None), list(JUDGES), server.url)
        summary = run_jury(con, run.run_id, instances, config)
        # the same replies again (from the cache) with crfm-helm 0.5.16's arithmetic as the headline
        old = run_jury(con, run.run_id, instances, config.model_copy(update={"method": "helm-0.5"}))
        yield SimpleNamespace(con=con, summary=summary, old=old, seen=seen, config=config,
                              by_id={r.instance_id: r for r in old.instances})


def test_medhelm_is_the_default_on_a_medhelm_benchmark_with_helms_token_budget(parity):
    assert parity.config.method == "medhelm" and parity.summary.method == "medhelm"
    assert parity.summary.method_version == "medhelm 0.8.0"
    assert parity.old.method_version == "crfm-helm 0.5.16"
    assert {r["max_tokens"] for r in parity.seen} == {4096}
    assert jury_config_for(None, list(JUDGES)).method == "strict"
    assert jury_config_for(None, list(JUDGES)).max_tokens == 1024


def test_every_crafted_reply_gives_the_hand_derived_helm_value(parity):
    for name, (_, helm, strict) in PARITY.items():
        row = parity.by_id[f"i-{name}"]
        assert row.helm05_score == pytest.approx(OURS_FOR_HELM_ERROR if helm is None else helm), name
        assert row.score == strict, name
    empty = parity.by_id["i-empty_candidate"]
    assert (empty.helm05_score, empty.helm05_default, empty.score) == (1.0, True, None)
    assert (empty.medhelm_score, empty.medhelm_default) == (1.0, True)


def test_both_methods_with_their_unscored_counts(parity):
    s = parity.old
    helm_values = [OURS_FOR_HELM_ERROR if h is None else h for _, h, _ in PARITY.values()] + [1.0]
    strict_values = [v for _, _, v in PARITY.values() if v is not None]
    m, st = s.by_method["helm-0.5"], s.by_method["strict"]
    # helm-0.5: 15 instances, every one in the mean; no judgement on no_explanation, zeros? (no: zeros has
    # integers, its 0.0 is raised to 1), empty_reply, two_objects, truncated, string_float, empty_candidate.
    assert m.mean == pytest.approx(sum(helm_values) / 15) and m.n_in_mean == 15
    assert (m.n_unscored, m.n_scored, m.n_helm_errors) == (6, 9, 3)
    # strict: clean, fenced, no_explanation score 4.0; the other 12 are unscored and left out.
    assert st.mean == pytest.approx(sum(strict_values) / len(strict_values)) == 4.0
    assert (st.n_in_mean, st.n_unscored) == (3, 12)
    assert (s.mean, s.n_unscored, s.n_scored) == (m.mean, 6, 9) and s.methods_differ
    again = load_jury_summary(parity.con, s.jury_id)
    assert again.method == "helm-0.5" and again.mean == pytest.approx(m.mean)
    (ev,) = s.to_evidence()
    assert (ev.score, ev.n, ev.n_unparsed, ev.n_unscored) == (pytest.approx(m.mean), 15, 6, 0)
    assert "method helm-0.5 (crfm-helm 0.5.16)" in ev.caveat
    assert "the strict method gives 4.00 with 12 unscored" in ev.caveat


def test_ten_percent_empty_answers_450_strict_415_medhelm():
    """18 answered cases, 9 judged 5 on everything and 9 judged 4, plus 2 empty answers (10%).
    Strict: (9 × 5 + 9 × 4) / 18 = 81 / 18 = 4.50, 2 unscored. MedHELM: (81 + 2 × 1.0) / 20 = 4.15."""
    def answer(request: dict) -> str:
        text = prompt_text(request)
        if "CANDIDATE" not in text:
            k = int(re.search(r"case (\d+)", text).group(1))
            return "" if k >= 18 else f"Answer CASE-{k}"
        k = int(re.search(r"CASE-(\d+)", text).group(1))
        return reply(5, 5, 5) if k % 2 else reply(4, 4, 4)

    with FakeLLMServer(FakeConfig(answer=answer)) as server:
        con = duckdb.connect()
        instances = [Instance(id=f"i-{k:02d}", question=f"Answer case {k}", answer_type="free_text")
                     for k in range(20)]
        run = run_benchmark(
            con, Spec(id="aci_bench", max_tokens=64, temperature=0.0, metrics=["none"]), instances,
            ModelEndpoint(name="cand", model="openai/candidate", api_base=server.url),
            render=lambda s, i: [{"role": "user", "content": i.question}],
            score=lambda s, i, t: SimpleNamespace(parsed=t, score=None, unparsed=False, metrics={}),
        )
        endpoints = tuple(ModelEndpoint(name=j, model=j, api_base=server.url) for j in JUDGES)
        helm = run_jury(con, run.run_id, instances, JuryConfig(judges=endpoints, method="medhelm"))
        strict = run_jury(con, run.run_id, instances, JuryConfig(judges=endpoints, method="strict"))
    assert helm.mean == pytest.approx(4.15) and helm.n_unscored == 2 and helm.n == 20
    assert strict.mean == pytest.approx(4.50) and strict.n_unscored == 2 and strict.n_scored == 18
    assert helm.by_method["strict"].mean == pytest.approx(4.50)
    assert strict.by_method["medhelm"].mean == pytest.approx(4.15)
