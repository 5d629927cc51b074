"""Issue 27 item 12 on the Cost page: a reason beside every grey button, measured tokens win over invented
defaults, the money columns come first, the chart axis has no padded decimals, every candidate is listed."""

from __future__ import annotations

import json

import pytest

from governance import attach_run, build_request, run_and_wait
from governance.dossier.store import Store
from governance.identity import Actor
from tests.calc_answers import calculator_answers
from tests.pages.conftest import DEMO, latest, open_page

MODEL = "openai/gpt-4o-bad"


@pytest.fixture
def measured_run(demo_home, llm_server):
    """The demo plus an attached 3-case run whose replies each count 6 completion tokens."""
    llm_server.configure(answer=calculator_answers(count=20), completion_tokens=6)
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        done = run_and_wait(store, build_request("calc_builtin", MODEL, api_base=llm_server.url, limit=3))
        attach_run(store, DEMO, done.run_id, actor=Actor.named("Dr. Cost"))
        rows = store.runs.results(done.run_id)
    finally:
        store.close()
    return sum(r["prompt_tokens"] for r in rows) / len(rows)


@pytest.fixture
def unprofiled(demo_home) -> str:
    """The demo with one evidence model's token profile removed (as before a profile is saved for it)."""
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        d = store.load(DEMO).dossier
        dropped = d.cost.profiles[0].model
        cost = d.cost.model_copy(update={"profiles": [p for p in d.cost.profiles if p.model != dropped]})
        store.save(d.model_copy(update={"cost": cost}), author="reviewer", note="test: profile removed")
    finally:
        store.close()
    return dropped


def form_key(at, suffix: str) -> str:
    (key,) = [w.key for w in [*at.text_input, *at.number_input] if w.key.startswith("cost_") and
              w.key.endswith("_" + suffix) and not w.key.startswith("cost_work")]
    return key


def test_every_evidence_model_is_listed_before_a_profile_and_money_comes_first(unprofiled, demo_home):
    at = open_page("pages/cost.py")
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(table.columns[:3]) == ["candidate", "USD / 1,000 requests", "USD / month"]
    row = table[table["candidate"] == unprofiled].iloc[0]
    assert "no token profile yet" in row["note"] and row["price source"] == "not costed yet"
    assert row["score"] not in (None, "—")  # what is known: its score on the score benchmark
    assert set(table["candidate"]) == {e.model for e in latest(demo_home).dossier.evidence}


def test_the_chart_axes_do_not_pad_decimals(demo_home):
    at = open_page("pages/cost.py")
    (chart,) = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    spec = json.loads(chart.proto.spec)
    formats = {layer["encoding"][axis]["axis"]["format"] for layer in spec["layer"][1:]
               for axis in ("x", "y")}
    assert formats == {",~r"}


def test_a_grey_save_button_says_what_is_missing(unprofiled, demo_home):
    at = open_page("pages/cost.py")
    at.selectbox(key="cost_model").select(unprofiled).run()
    assert at.button(key="cost_save").disabled
    hint = next(c.value for c in at.caption if c.value.startswith("To save a token profile"))
    assert "**Priced as**" in hint and "**Mean prompt tokens per request**" in hint
    assert at.number_input(key=form_key(at, "prompt")).value is None  # no invented 1,000
    assert at.number_input(key=form_key(at, "completion")).value is None  # no invented 300


def test_measured_tokens_fill_the_form_and_survive_a_later_save(measured_run, demo_home):
    mean_prompt = measured_run
    at = open_page("pages/cost.py")
    at.selectbox(key="cost_model").select(MODEL).run()
    assert at.number_input(key=form_key(at, "prompt")).value == pytest.approx(mean_prompt)
    assert at.number_input(key=form_key(at, "completion")).value == 6.0
    at.text_input(key=form_key(at, "price_model")).input("gpt-4o").run()
    assert not at.button(key="cost_save").disabled
    at.button(key="cost_save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    saved = latest(demo_home)
    (profile,) = [p for p in saved.dossier.cost.profiles if p.model == MODEL]
    assert (profile.mean_prompt_tokens, profile.mean_completion_tokens) == (pytest.approx(mean_prompt), 6.0)
    assert profile.price_model == "gpt-4o" and profile.n_requests == 3
    # The form now shows what was saved; a second save of the same content changes nothing.
    assert at.number_input(key=form_key(at, "completion")).value == 6.0
    at.button(key="cost_save").click().run()
    assert not at.exception and latest(demo_home).version == saved.version
    # A changed price, saved again, keeps the measured tokens (no 1,000 / 300 left in the form).
    at.text_input(key=form_key(at, "price_model")).input("gpt-4o-2024-05-13").run()
    at.button(key="cost_save").click().run()
    (profile,) = [p for p in latest(demo_home).dossier.cost.profiles if p.model == MODEL]
    assert (profile.price_model, profile.mean_completion_tokens) == ("gpt-4o-2024-05-13", 6.0)


def test_a_run_bound_to_a_candidate_is_priced_as_its_endpoint_not_its_label(demo_home, llm_server):
    """The browser walk: "Use this dossier's runs" filled "Priced as" with the candidate's label."""
    llm_server.configure(answer=calculator_answers(count=20), completion_tokens=6)
    label = "gpt-4o"  # a candidate model of the demo's intended use: the run counts for it
    store = Store.open(demo_home / "medassure.duckdb")
    try:
        done = run_and_wait(store, build_request("calc_builtin", MODEL, api_base=llm_server.url, limit=3,
                                                 name=label))
        attach_run(store, DEMO, done.run_id, actor=Actor.named("Dr. Cost"))
        (ev,) = [e for e in store.load(DEMO).dossier.evidence if e.run_id == done.run_id]
    finally:
        store.close()
    assert ev.model == label and ev.endpoint_model == MODEL
    at = open_page("pages/cost.py")
    at.selectbox(key="cost_model").select(label).run()
    at.button(key="cost_runs").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (profile,) = [p for p in latest(demo_home).dossier.cost.profiles if p.model == label]
    assert profile.price_model == MODEL and profile.mean_completion_tokens == 6.0
