"""``review create`` sentinels for multiple-choice and exact answers, editor-written ones from a file, and
the warnings a queue that cannot test its raters gets (issue 34 item 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from governance.dossier.store import Store
from governance.review.sample_size import queue_warnings, sentinels_for_bar


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def scenario_run(capsys, llm_server, tmp_path, rows: list[dict], answer: str) -> str:
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    llm_server.configure(answer=lambda request: answer)
    code, out, err = run(capsys, "scenario", "import", str(path), "--format", "json")
    assert code == 0, err
    scenario_id = json.loads(out)["scenario"]["scenario_id"]
    code, out, err = run(capsys, "run", "--scenario", scenario_id, "--model", "openai/cand",
                         "--api-base", llm_server.url)
    assert code == 0, err
    return json.loads(out)["run_id"]


@pytest.fixture
def choice_run(home, capsys, llm_server, tmp_path) -> str:
    rows = [{"id": f"q{i}", "context": f"Message {i}", "question": "Same-day review?",
             "choices": ["yes", "no", "unsure"], "reference": "A", "answer_type": "choice"} for i in range(8)]
    return scenario_run(capsys, llm_server, tmp_path, rows, "A")


def items(home: Path, queue_id: str):
    store = Store.open(home / "medassure.duckdb")
    try:
        return list(store.reviews.items(queue_id).values())
    finally:
        store.close()


def test_multiple_choice_sentinels_pick_another_option(choice_run, capsys, home):
    code, out, err = run(capsys, "review", "create", "--run", choice_run, "--n", "4", "--sentinels", "2",
                         "--raters", "a,b", "--double", "0.5", "--format", "json")
    assert code == 0, err  # before: "only 0 of 2 sentinels could be made"
    doc = json.loads(out)
    assert doc["n_sentinels"] == 2
    planted = [i for i in items(home, doc["queue_id"]) if i.sentinel]
    shown = [(i.sentinel, i.output, i.sentinel_note) for i in planted]
    assert shown == [("option", "B", "option: A became B")] * 2
    assert any("2 sentinel(s)" in w and "35 are needed" in w for w in doc["warnings"])


def test_exact_answer_sentinels_give_a_wrong_value(home, capsys, llm_server, tmp_path):
    rows = [{"id": f"e{i}", "question": "Is a same-day visit needed?", "reference": "yes" if i % 2 else "no",
             "answer_type": "exact"} for i in range(6)]
    run_id = scenario_run(capsys, llm_server, tmp_path, rows, "yes")
    code, out, err = run(capsys, "review", "create", "--run", run_id, "--n", "3", "--sentinels", "1",
                         "--raters", "a", "--format", "json")
    assert code == 0, err
    (planted,) = [i for i in items(home, json.loads(out)["queue_id"]) if i.sentinel]
    assert (planted.sentinel, planted.output) == ("value", "no")  # from an answer that was right ("yes")


def test_editor_sentinels_from_a_file(choice_run, capsys, home, tmp_path):
    sheet = tmp_path / "sentinels.csv"
    sheet.write_text("instance_id,output,note\nq1,C,picked unsure for a clear yes\n"
                     "q2,\"B, no review\",wrong\n", encoding="utf-8")
    code, out, err = run(capsys, "review", "create", "--run", choice_run, "--n", "4", "--raters", "a,b",
                         "--sentinel-file", str(sheet), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    planted = sorted((i.instance_id, i.sentinel, i.output, i.sentinel_note)
                     for i in items(home, doc["queue_id"]) if i.sentinel)
    assert planted == [("q1", "editor", "C", "picked unsure for a clear yes"),
                       ("q2", "editor", "B, no review", "wrong")]
    assert any(w.startswith("No output is rated twice") for w in doc["warnings"])
    sheet.write_text("instance_id,output\nq1,\n", encoding="utf-8")
    code, _, err = run(capsys, "review", "create", "--run", choice_run, "--n", "4", "--raters", "a",
                       "--sentinel-file", str(sheet))
    assert code == 2 and "line 2: needs both an instance_id and an output" in err and "Traceback" not in err
    sheet.write_text("case,text\nq1,C\n", encoding="utf-8")
    code, _, err = run(capsys, "review", "create", "--run", choice_run, "--n", "4", "--raters", "a",
                       "--sentinel-file", str(sheet))
    assert code == 2 and "needs the columns instance_id, output" in err


def test_sentinels_needed_for_the_bar_match_the_closed_form():
    from scipy.stats import norm

    z2 = norm.ppf(0.975) ** 2
    for bar in (0.8, 0.9, 0.95):
        n = sentinels_for_bar(bar)
        assert n - 1 < bar * z2 / (1 - bar) <= n  # all caught: Wilson lower bound n / (n + z²)
    heads = [w.split(":")[0] for w in queue_warnings(20, 0.0, 0, 2)]
    assert heads == ["No sentinels", "No output is rated twice"]
    assert queue_warnings(400, 0.6, 40, 2) == []
