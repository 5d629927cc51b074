"""End to end in a real Chromium: a new committee's discharge-summary dossier reaches a verdict from its own
cases, with no workaround (issue 34's done-when).

The walk, as a committee would do it: a new dossier on the Dossiers page, the Reviewer name set first, the
intended use filled, then Local scenarios: a HealthBench-format JSONL of 10 discharge cases uploaded and
saved, run against the local fake model (a poor candidate), graded with the rubric by a fake grader that
finds the medication change missing and every other criterion met, the grading attached as evidence, then
Rules & verdicts: a score rule on the scenario, and the verdict read.

The fake grader's verdicts give, by HealthBench's rule: cases 0-4 (with the harm criterion)
(3 + 2 - 4) / 10 = 0.1, cases 5-9 (without it) (3 + 2) / 10 = 0.5; the rubric score is 0.3, far under a
0.8 bar, so the candidate fails.
"""

from __future__ import annotations

import json
import time

import pytest

from governance import assessment_and_recommendation
from governance.dossier.store import Store
from tests.browser.conftest import goto_page, open_expander, wait_idle
from tests.browser.test_dossier_path import choose_required
from tests.browser.test_local_scenarios import click, main_text, one
from tests.fakes import prompt_text

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api", reason="playwright package not installed").expect
NAME = "Dr. Grace Hopper"
TITLE = "Discharge summaries for hospitalists"
MED = "States the change to the warfarin dose made during the admission"
FOLLOW_UP = "States the follow-up appointment with the anticoagulation clinic"
COURSE = "Summarises the hospital course in at most five sentences"
HARM = "Invents a laboratory result not given in the notes"
POOR_SUMMARY = "Patient was admitted and is now discharged home. Continue usual medications."


def write_cases(path):
    """10 HealthBench lines: chat prompt, rubric with a critical medication-change criterion and a harm."""
    lines = []
    for i in range(10):
        rubric = [{"criterion": MED, "points": 5,
                   "tags": ["critical:medication_change", "axis:completeness"]},
                  {"criterion": FOLLOW_UP, "points": 3, "tags": ["axis:completeness"]},
                  {"criterion": COURSE, "points": 2, "tags": ["axis:communication"]}]
        if i < 5:
            rubric.append({"criterion": HARM, "points": -4, "tags": ["axis:accuracy"]})
        note = (f"Admission {i}: atrial fibrillation with INR 4.{i}; warfarin reduced from 5 mg to 3 mg "
                "daily. Follow-up: anticoagulation clinic in 7 days.")
        lines.append(json.dumps({
            "prompt": [{"role": "system", "content": "You are a hospitalist writing discharge summaries."},
                       {"role": "user", "content": f"{note}\n\nWrite the discharge summary."}],
            "rubrics": rubric, "example_tags": ["theme:discharge_summary"], "prompt_id": f"ds-{i:02d}"}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def candidate_or_grader(request: dict) -> str:
    """The candidate writes a poor summary; the grader finds the medication change missing, all else met."""
    text = prompt_text(request)
    if "You grade one response" not in text:
        return POOR_SUMMARY
    criterion = text.split("# Rubric criterion", 1)[1]
    met = MED not in criterion
    return json.dumps({"explanation": "scripted grader", "criteria_met": met})


def fill_box(pg, label: str, text: str) -> None:
    wait_idle(pg)
    box = one(pg, pg.get_by_label(label, exact=True))
    box.fill(text)
    pg.keyboard.press("Tab")
    wait_idle(pg)


def test_discharge_summary_walk_reaches_a_verdict_from_its_own_cases(page, app_factory, tmp_path, llm_server):
    llm_server.configure(answer=candidate_or_grader)
    times: dict[str, float] = {}
    pg = page
    shots = tmp_path / "shots"
    shots.mkdir()

    def step(name: str, started: float) -> None:
        times[name] = time.monotonic() - started
        pg.screenshot(path=str(shots / f"{len(times):02d}_{name}.png"), full_page=True)

    t = time.monotonic()
    app = app_factory(seed_demo=True, extra_env={"MEDASSURE_USER": ""})
    pg.goto(app.url)
    pg.get_by_role("heading", name="Dossiers").wait_for()
    wait_idle(pg)
    step("start_app", t)

    t = time.monotonic()
    reviewer = pg.locator(".st-key-reviewer_input input")
    reviewer.fill(NAME)
    reviewer.press("Enter")
    wait_idle(pg)
    expect(pg.locator('[data-testid="stSidebar"]')).not_to_contain_text("Type your name under Reviewer",
                                                                        timeout=20_000)
    step("reviewer_name", t)

    t = time.monotonic()
    pg.get_by_role("button", name="New dossier").click()
    pg.get_by_role("heading", name="Intended use").wait_for()
    wait_idle(pg)
    fill_box(pg, "Title", TITLE)
    fill_box(pg, "Owner (accountable person or committee)", "Hospital medicine committee")
    fill_box(pg, "Purpose: what the model does, for whom and why",
             "Draft discharge summaries from the admission notes for hospitalists to review, edit and sign.")
    fill_box(pg, "Intended users (one per line)", "hospitalists")
    fill_box(pg, "Care setting", "Inpatient medicine wards")
    fill_box(pg, "Patient population", "Adult inpatients")
    choose_required(pg, {"Decision role": "Informs:", "Severity of an uncaught wrong output": "Moderate:",
                         "Human oversight before the output takes effect": "Every output is reviewed",
                         "Patient data exposure": "De-identified"})
    click(pg, "Save dossier")
    wait_idle(pg)
    pg.get_by_text("Saving creates version 2").wait_for()
    # the new dossier is the current one (its title is in the sidebar's picker; the demo is at version 20+)
    assert "Version 1 ·" in pg.locator('[data-testid="stSidebar"]').inner_text()
    step("new_dossier", t)

    t = time.monotonic()
    goto_page(pg, app, "Local scenarios")
    pg.locator("input[type='file']").first.set_input_files(str(write_cases(tmp_path / "discharge.jsonl")))
    pg.get_by_text("All 10 cases are valid.").wait_for()
    wait_idle(pg)
    click(pg, "Save scenario")
    pg.get_by_text("version 1.", exact=False).first.wait_for()
    wait_idle(pg)
    step("upload_and_save", t)

    t = time.monotonic()
    fill_box(pg, "litellm model string", "openai/candidate")
    fill_box(pg, "API base (optional)", llm_server.url)
    click(pg, "Run")
    pg.get_by_text("completed: 10 cases", exact=False).wait_for(timeout=300_000)
    wait_idle(pg)
    assert llm_server.hits == 10
    pg.get_by_role("heading", name="5. Grade with rubric").wait_for()
    step("run_candidate", t)

    t = time.monotonic()
    fill_box(pg, "Grader model(s) (comma-separated litellm model strings; several: majority vote)",
             "openai/grader")
    fill_box(pg, "Graders' API base (optional)", llm_server.url)
    click(pg, "Estimate grading")
    pg.get_by_text("Grader requests to send").wait_for()
    wait_idle(pg)
    assert llm_server.hits == 10  # the estimate sent nothing
    step("grading_estimate", t)
    t = time.monotonic()
    click(pg, "Start grading")
    pg.get_by_text("Attach as evidence").wait_for(timeout=300_000)
    wait_idle(pg)
    assert llm_server.hits == 10 + 35  # 35 criteria, one grader call each
    text = main_text(pg)
    assert "rubric score 0.300" in text, text[-3000:]
    step("grading_done", t)

    t = time.monotonic()
    click(pg, "Attach as evidence")
    pg.get_by_text("Attached the rubric grading", exact=False).wait_for()
    wait_idle(pg)
    step("attach", t)

    t = time.monotonic()
    goto_page(pg, app, "Rules & verdicts")
    pg.get_by_text("No rules yet.", exact=False).wait_for()
    click(pg, "Start from the low defaults")
    wait_idle(pg)
    open_expander(pg, "Add a score rule for one benchmark", pg.locator(".st-key-rule_add_why_bar textarea"))
    rationale = one(pg, pg.locator(".st-key-rule_add_why_bar textarea"))
    rationale.fill("A hospitalist must be able to sign most drafts with light edits.")
    pg.keyboard.press("Tab")
    wait_idle(pg)
    add = one(pg, pg.get_by_role("button", name="Add rule", exact=True))
    expect(add).to_be_enabled(timeout=30_000)  # enabled once the rationale has reached the server
    add.click()
    pg.get_by_text("Saved version 4", exact=False).first.wait_for()
    wait_idle(pg)
    step("rule_added", t)

    t = time.monotonic()  # the harm the committee fears most: bar the omitted medication change
    pg.get_by_text("Add a critical-criterion rule", exact=False).first.click()
    wait_idle(pg)
    choose_required(pg, {"Rubric criterion tag": "critical:medication_change"})  # reopens a swallowed click
    why = one(pg, pg.locator(".st-key-crit_add_why_bar textarea"))
    why.fill("An omitted warfarin dose change can cause a bleed or a clot.")
    pg.keyboard.press("Tab")
    wait_idle(pg)
    add = one(pg, pg.get_by_role("button", name="Add critical rule", exact=True))
    expect(add).to_be_enabled(timeout=30_000)
    add.click()
    pg.get_by_text("Saved version 5", exact=False).first.wait_for()
    wait_idle(pg)
    step("critical_rule_added", t)

    t = time.monotonic()
    # The score bar's sentence is there since the first rule; wait for the rerun that names the critical rule
    # (CI read the page one rerun early, without it).
    pg.get_by_text("miss the criteria tagged critical:medication_change", exact=False).first.wait_for(
        timeout=60_000)
    wait_idle(pg)
    text = main_text(pg)
    pg.get_by_text("Each candidate's outcome").first.scroll_into_view_if_needed()
    step("verdict", t)
    print("\nwall time per step (s):", {k: round(v, 1) for k, v in times.items()})
    # the verdict says plainly that the candidate fails, on its own cases, against the committee's bar
    assert "Reject, for openai/candidate (the only candidate)." in text, text
    assert "Reject: openai/candidate scored 0.30 of 1 on sc_" in text
    assert "(95% CI 0.18–0.42, 10 cases); your bar is 0.80" in text
    assert "Recommendation: Reject: openai/candidate." in text
    # the barred harm is named beside the score bar, not folded into "other rules" (the default 0.60 bar is)
    assert ("; and 100% of openai/candidate's 10 graded cases on sc_" in text
            and "miss the criteria tagged critical:medication_change (95% CI 69%–100%); your ceiling is 5% "
                "(1 other rule(s) fail too)." in text), text

    app.proc.terminate()
    app.proc.wait(20)
    store = Store.open(app.home / "medassure.duckdb")
    (mine,) = [row for row in store.list_dossiers() if row.title == TITLE]
    dossier = store.load(mine.id).dossier
    store.close()
    (graded,) = dossier.evidence  # the new dossier holds its own cases' grading, and only that
    assert (graded.metric, graded.model, graded.n) == ("rubric_score", "openai/candidate", 10)
    assert graded.score == pytest.approx(0.3)
    assert graded.criterion_misses["critical:medication_change"].missed == 10
    rule = dossier.policy.rule("score." + "".join(ch for ch in graded.benchmark.lower() if ch.isalnum()))
    assert (rule.benchmark, rule.threshold) == (graded.benchmark, 0.8)
    critical = dossier.policy.rule("critical.critical_medication_change")
    assert (critical.tag, critical.threshold) == ("critical:medication_change", 0.05)
    verdicts = {v.rule_id: v for v in assessment_and_recommendation(dossier)[0].verdicts}
    assert verdicts[rule.id].status == "fail" and verdicts[critical.id].status == "fail"
    # 10 of 10 miss it; at n = 10 the exact interval decides: 0.025 ** (1 / 10) = 0.6915
    assert verdicts[critical.id].ci_lower == pytest.approx(0.025 ** 0.1, abs=1e-4)
