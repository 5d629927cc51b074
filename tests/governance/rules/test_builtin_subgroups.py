"""The built-in benchmark's subgroup tags survive the run: subgroup results, per-calculator accuracy and a
real disparity verdict (issue 27, item 5).

Known answers, by hand: ``calculator_answers`` answers case i right when i is even, and the 120 cases
cycle through the 12 calculators in a fixed order, so case i asks calculator i mod 12. The six
calculators at even positions are right on all 10 of their cases, the six at odd positions on none:
per-calculator accuracy is 10/10 or 0/10, overall 60/120 = 0.5. Against the largest group (ties broken
by name) a 0/10 group's ratio is 0, wholly below the 0.80 window: the disparity rule *fails*.
"""

from __future__ import annotations

import pytest

from evaluator.calculators import generate_cases
from evaluator.runs.jobs import RunJobs
from governance.dossier.record import Dossier
from governance.identity import Actor
from governance.intended_use.records import example_intended_use
from governance.rules.policy import default_policy
from governance.rules.verdicts import assess
from governance.runs.operations.jobs import build_request, run_and_wait
from governance.runs.operations.view import attach_run
from reports.sections_core import subgroups_section
from tests.calc_answers import calculator_answers


@pytest.fixture
def attached(store, llm_server):
    llm_server.configure(answer=calculator_answers(count=120))
    request = build_request("calc_builtin", "openai/fake-calc", api_base=llm_server.url, concurrency=4)
    done = run_and_wait(store, request, poll_s=0.01, jobs=RunJobs())
    assert done.state == "completed" and done.summary.n == 120
    dossier = Dossier(title="Paediatric doses", owner="a.analyst", intended_use=example_intended_use())
    store.save(dossier, author="a.analyst")
    return attach_run(store, dossier.id, done.run_id, actor=Actor.named("a.analyst")).dossier


def test_a_builtin_run_reports_per_calculator_sex_and_age_band_results(attached):
    main = next(e for e in attached.evidence if e.is_main)
    assert main.score == pytest.approx(0.5) and main.n == 120
    by_tag: dict[str, dict[str, object]] = {}
    for s in main.subgroups or []:
        by_tag.setdefault(s.tag, {})[s.group] = s
    assert set(by_tag) == {"age_band", "calculator", "sex"}
    cases = generate_cases(seed=0, count=120)
    order = list(dict.fromkeys(c.subgroups["calculator"] for c in cases))
    assert len(order) == 12 and set(by_tag["calculator"]) == set(order)
    for position, calc in enumerate(order):
        group = by_tag["calculator"][calc]
        assert group.n == 10 and group.score == (1.0 if position % 2 == 0 else 0.0)
    sexes = {c.subgroups["sex"] for c in cases}
    assert set(by_tag["sex"]) == sexes
    assert sum(g.n for g in by_tag["sex"].values()) == 120


def test_the_disparity_rule_gets_a_real_verdict(attached):
    policy = default_policy("high", ["supporting_diagnostic_decisions"])
    verdicts = [v for v in assess(attached.model_copy(update={"policy": policy})).verdicts
                if v.kind == "subgroup_disparity"]
    assert verdicts, "the disparity rule judged nothing"
    calc = [v for v in verdicts if "calculator" in v.reason]
    assert calc and all(v.status == "fail" for v in calc), [v.reason for v in verdicts]
    assert all(v.status != "not_applicable" for v in verdicts)


def test_the_report_shows_subgroup_results(attached):
    section = subgroups_section(attached)
    assert section.recorded
    text = repr(section)
    assert "Calculator" in text and "Cockcroft-Gault" in text
    table = section.tables[0]
    assert table.title.startswith("Per-calculator accuracy") and len(table.rows) == 12
    assert [r[3] for r in table.rows] == ["0%"] * 6 + ["100%"] * 6  # lowest first
    assert table.rows[0][4] == "0%–28%" and table.rows[0][5] == "10"  # Wilson 0/10: 0–0.278
