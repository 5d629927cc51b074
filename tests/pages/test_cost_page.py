"""Cost page: the workload's tokens per request are editable, and an unchanged save makes no version."""

from __future__ import annotations

from tests.pages.conftest import DEMO, confirm_voiding, latest, open_page
from tests.pages.readable import assert_readable


def test_workload_tokens_save_and_unchanged_save_makes_no_new_version(demo_copy):
    at = open_page("pages/cost.py")
    before = latest(demo_copy).version
    at.button(key="cost_work_save").click().run()  # nothing entered, nothing changed
    assert not at.exception and latest(demo_copy).version == before
    at.number_input(key=f"cost_work_prompt_{DEMO}").set_value(600.0).run()
    at.number_input(key=f"cost_work_completion_{DEMO}").set_value(200.0).run()
    at.button(key="cost_work_save").click().run()
    confirm_voiding(at)  # the demo is signed: this change voids its sign-off
    saved = latest(demo_copy)
    assert saved.version == before + 1
    cost = saved.dossier.cost
    assert (cost.workload_prompt_tokens, cost.workload_completion_tokens) == (600, 200)
    table = at.dataframe[0].value
    assert (table["prompt tokens"] == 600).all() and (table["completion tokens"] == 200).all()
    at.button(key="cost_work_save").click().run()  # the same values again
    assert not at.exception and latest(demo_copy).version == saved.version


def test_demo_costs_are_priced_at_the_tested_snapshot_over_the_mapped_benchmarks(demo_copy):
    at = open_page("pages/cost.py")
    table = at.dataframe[0].value.set_index("candidate")
    gpt = table.loc["GPT-4o (2024-05-13)"]
    assert (gpt["USD / 1M in"], gpt["USD / 1M out"]) == (5.0, 15.0) and gpt["USD / 1,000 requests"] == 4.95
    assert "tested snapshot 2024-05-13" in gpt["price source"]
    assert gpt["tokens from"].startswith("MedHELM average over the mapped benchmarks, not your workload")


def test_cost_tables_read_without_a_glossary(demo_copy):
    at = open_page("pages/cost.py")
    assert assert_readable(at) >= 2  # the cost table and MedHELM's published estimates
    published = at.dataframe[-1].value
    assert "MedHELM total, all 37 benchmarks" in published
    per = published["Per instance"]
    if per.dtype == object:  # a gap somewhere: text cells
        assert all(v == "—" or v.startswith("USD ") for v in per)
    else:  # numbers, formatted by the column config
        assert '"Per instance": {"type_config": {"type": "number", "format": "USD %.2f"}' in (
            at.dataframe[-1].proto.columns
        )
    if len(at.dataframe) == 3:  # the evaluation's own cost items
        basis = set(at.dataframe[1].value["Basis"])
        assert basis <= {"measured by our runs", "MedHELM's published upper bound"}
