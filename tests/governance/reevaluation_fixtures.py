"""A decided dossier whose evidence is a local run against the test server, and a scripted model pair.

Model A answers every built-in calculator case right; model B answers the cases in ``BAD_IDS``
wrong and the rest right, so a re-evaluation that swaps A for B must find exactly those
instances. The server recognises a case by its note and question inside the prompt (not by the
exact prompt text), so a re-worded prompt template gets the same answers. The dossier has one
locked score rule on the calculator benchmark that A clears (20/20, interval [1, 1]) and B does
not clear with certainty (17/20), and the committee approved A with the plan frozen.
"""

from __future__ import annotations

from evaluator.benchmarks.specs import get_benchmark
from evaluator.gateway.llm import ModelEndpoint
from evaluator.loaders import load_instances
from governance.identity import Actor
from tests.fakes import Answer, prompt_text

MODEL_A, MODEL_B = "openai/model-a", "openai/model-b"
N = 20
BAD_POSITIONS = (3, 8, 14)
DOSSIER_ID = "D-reeval"
KEY_ENV = "MEDASSURE_TEST_REEVAL_KEY"
PRICES = {"input_price_per_mtok": 0.5, "output_price_per_mtok": 1.5}
"""Price overrides: the test models have no public price, and looking one up imports litellm (seconds)."""


def cases(n: int = N) -> list:
    """The first ``n`` built-in calculator cases."""
    return load_instances(get_benchmark("calc_builtin"), limit=n)


def bad_ids(n: int = N) -> list[str]:
    """Ids model B gets wrong, sorted as the comparison lists them."""
    chosen = cases(n)
    return sorted(chosen[p].id for p in BAD_POSITIONS)


def scripted_models(n: int = N) -> Answer:
    """Answer as model A (always right) or model B (wrong on ``bad_ids``), by the request's model."""
    known = [(f"{i.context.strip()}", i.question.strip(), i) for i in cases(n)]
    wrong = set(bad_ids(n))

    def answer(request: dict) -> str:
        text = prompt_text(request)
        inst = next((i for c, q, i in known if c in text and q in text), None)
        if inst is None:
            return "I cannot tell."
        model = str(request.get("model", "")).split("/")[-1]
        if model == MODEL_B.split("/")[-1] and inst.id in wrong:
            return f"Answer: {float(inst.reference) * 2 + 1:g}"
        return f"Answer: {inst.reference}"

    return answer


def seed_decided_dossier(store, server_url: str, *, n: int = N, sign: bool = True) -> str:
    """Run model A on the calculator cases, attach the evidence, lock a rule, approve A (plan frozen)."""
    from evaluator.runs.jobs import RunRequest
    from governance.decision import committee
    from governance.decision.operations import decide as actions_decision
    from governance.dossier.record import Dossier
    from governance.intended_use.records import example_intended_use
    from governance.rules.records import AcceptancePolicy, ScoreRule
    from governance.runs.operations.jobs import start_run
    from governance.runs.operations.view import attach_run

    d = Dossier(id=DOSSIER_ID, title="Calculator helper (re-evaluation test)", owner="AI committee",
                intended_use=example_intended_use())
    mapping = d.mapping.decide("supporting_diagnostic_decisions", "accepted", by="seed")
    d = d.model_copy(update={"mapping": mapping})
    rule = ScoreRule(id="score.calc", benchmark="calc_builtin", threshold=0.8, provenance=("local-run",),
                     rationale="Calculator answers must be right at least 80% of the time.")
    d = committee.lock_rules(d.model_copy(update={"policy": AcceptancePolicy(rules=[rule])}), by="chair")
    store.save(d, author="seed", note="created with locked rules")
    endpoint = ModelEndpoint(name="Model A (test server)", model=MODEL_A, api_base=server_url,
                             api_key_env=KEY_ENV, transport="openai", **PRICES)
    job = start_run(store, RunRequest(benchmark_id="calc_builtin", endpoint=endpoint, limit=n))
    progress = job.join(120)
    assert progress.state == "completed", progress
    attach_run(store, DOSSIER_ID, progress.run_id, actor=Actor.named("seed"))
    d = actions_decision.decide(store.load(DOSSIER_ID).dossier, "approve",
                                "Model A clears the calculator bar.", [], by="chair", model=MODEL_A,
                                required_roles=["clinical lead"], store=store,
                                override_gaps="No cost or oversight plan in this fixture.")
    v = store.save(d, author="chair", note="decision: approve")
    if sign:
        store.save(committee.sign(d, "clinical lead", "Dr. Lee", version_hash=v.hash), author="Dr. Lee",
                   note="sign-off: clinical lead")
    return DOSSIER_ID
