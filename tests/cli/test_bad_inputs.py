"""Issue 19: hostile and careless CLI input ends in exit 2 with a reason, never a traceback.

One table, one row per bad input: the arguments (``{tmp}`` is a folder of prepared files,
``{dossier}`` an existing dossier), the exit code and a fragment of the message on stderr.
Covered: numeric flags (NaN, infinity, zero, negatives, out of range, not a number), unknown
dossier / scenario / run ids, JSON nested past the cap (dossier files, scenario JSON Lines and
cells, HELM files, dossier exports), control characters in every kind of dossier text, and the
caps on list items and lengths. ``test_case_count`` states how many there are.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import main
from governance.intended_use.records import example_intended_use

DEEP = "[" * 100_000 + "]" * 100_000  # past the interpreter's recursion limit
DEEP_100 = "[" * 100 + "]" * 100  # parses, but past the nesting cap
BENCH = ["run", "--benchmark", "calc_builtin", "--model", "openai/x"]


def _use(**changes) -> str:
    return json.dumps(example_intended_use().model_dump(mode="json") | changes)


FILES = {
    "ok.json": _use(),
    "deep.json": DEEP,
    "deep100.json": '{"purpose": ' + DEEP_100 + "}",
    "deep_wrapper.json": '{"intended_use": ' + DEEP + "}",
    "bel.json": _use(purpose="Draft replies to portal messages \x07 for review."),
    "nul_item.json": _use(intended_users=["nurses", "phys\x00icians"]),
    "esc_scope.json": _use(out_of_scope_uses=["Urgent messages \x1b[31m"]),
    "vt_workflow.json": _use(workflow="Messages arrive;\x0b the model drafts."),
    "ff_setting.json": _use(care_setting="Outpatient\x0cclinics"),
    "us_population.json": _use(patient_population="Adults\x1f18+"),
    "del_model.json": _use(candidate_models=["gpt-4o\x7f"]),
    "too_many_users.json": _use(intended_users=[f"user {i}" for i in range(201)]),
    "huge_list.json": _use(out_of_scope_uses=["x" * 1600 for _ in range(5000)]),  # the 8 MB report
    "long_item.json": _use(out_of_scope_uses=["y" * 1001]),
    "long_purpose.json": _use(purpose="z " * 150_000),
    "bad_wrapper_title.json": json.dumps({"title": "Portal \x07 replies",
                                          "intended_use": json.loads(_use())}),
    "deep.jsonl": '{"id": "a", "question": "q", "reference": ' + DEEP + "}\n",
    "deep100.jsonl": '{"id": "a", "question": "q", "reference": ' + DEEP_100 + "}\n",
    "deep_choices.csv": "id,question,choices,reference\na,Which?," + json.dumps(DEEP_100) + ",x\n",
    "ok.csv": "id,question,reference\na,What is 2+2?,4\nb,What is 3+3?,6\n",
    "deep_export.json": '{"format": "medassure-dossier", "dossier": ' + DEEP + "}",
    # issue 25, item 13: controls in scenario cells, bidi overrides in text, a JSON key given twice
    "bel_cell.csv": "id,question,reference\na,What is \x07 2+2?,4\n",
    "esc_cell.csv": "id,question,reference\na,What is 2+2?,4\x1b[2J\n",
    "nul_cell.jsonl": json.dumps({"id": "a", "question": "What is 2+2?\x00", "reference": "4"}) + "\n",
    "nul_choice.jsonl": json.dumps({"id": "a", "question": "Which?", "choices": ["yes", "n\x00o"],
                                    "reference": "yes"}) + "\n",
    "rlo_cell.csv": "id,question,reference\na,Is the dose \u202e01 mg?,yes\n",
    "rlo_purpose.json": _use(purpose="Draft replies to portal messages \u202eevorppa for review."),
    "lri_item.json": _use(intended_users=["nurses", "physicians \u2066x\u2069"]),
    "twice_purpose.json": _use()[:-1] + ', "purpose": "Decide on discharge without a clinician."}',
    "twice.jsonl": '{"id": "a", "question": "q", "reference": "4", "reference": "5"}\n',
    "twice_export.json": '{"format": "medassure-dossier", "format_version": 1, "dossier": {}, "dossier": {}}',
    "candidate_nul.json": json.dumps({"id": "vendor-a", "vendor": "Acme\x00", "product": "Drafts",
                                      "model_id": "gpt-4o"}),
}


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    """The prepared files, written once for the module (the 8 MB one included)."""
    tmp_path = tmp_path_factory.mktemp("bad_inputs")
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    helm = tmp_path / "helm" / "run1"
    helm.mkdir(parents=True)
    for name in ("run_spec.json", "per_instance_stats.json", "scenario_state.json"):
        (helm / name).write_text("{}")
    (helm / "stats.json").write_text(DEEP)
    return tmp_path


@pytest.fixture
def dossier(home, tmp, capsys) -> str:
    assert main(["dossier", "create", "--file", str(tmp / "ok.json"), "--author", "t"]) == 0
    return capsys.readouterr().out.strip()


CASES: list[tuple[str, list[str], str]] = [
    # numeric flags: one parser per kind of number in cli/_common.py
    ("max-mb nan", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "nan"], "not a finite number"),
    ("max-mb inf", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "inf"], "not a finite number"),
    ("max-mb 1e999", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "1e999"], "not a finite number"),
    ("max-mb zero", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "0"], "out of range"),
    ("max-mb negative", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "-5"], "out of range"),
    ("max-mb text", ["scenario", "import", "{tmp}/ok.csv", "--max-mb", "lots"], "is not a number"),
    ("concurrency zero", [*BENCH, "--concurrency", "0"], "--concurrency: 0 is out of range"),
    ("concurrency huge", [*BENCH, "--concurrency", "100000"], "out of range"),
    ("concurrency fraction", [*BENCH, "--concurrency", "2.5"], "not a whole number"),
    ("rpm zero", [*BENCH, "--rpm", "0"], "--rpm"),
    ("rpm nan", [*BENCH, "--rpm", "nan"], "not a finite number"),
    ("timeout negative", [*BENCH, "--timeout", "-1"], "--timeout"),
    ("timeout inf", [*BENCH, "--timeout", "inf"], "not a finite number"),
    ("max-cost negative", [*BENCH, "--max-cost", "-1"], "--max-cost"),
    ("max-cost nan", [*BENCH, "--max-cost", "NaN"], "not a finite number"),
    ("input-price nan", [*BENCH, "--input-price", "nan"], "--input-price"),
    ("output-price negative", [*BENCH, "--output-price", "-0.5"], "--output-price"),
    ("limit zero", [*BENCH, "--limit", "0"], "--limit"),
    ("workers zero", [*BENCH, "--workers", "0"], "--workers"),
    ("workers huge", [*BENCH, "--workers", "1000"], "--workers"),
    ("scenario-version zero", ["run", "--scenario", "sc_x", "--model", "m", "--scenario-version", "0"],
     "--scenario-version"),
    ("show version zero", ["dossier", "show", "{dossier}", "--version", "0"], "--version"),
    ("show version nan", ["dossier", "show", "{dossier}", "--version", "nan"], "not a whole number"),
    ("report version negative", ["report", "{dossier}", "--out", "{tmp}/r.pdf", "--version", "-1"],
     "--version"),
    ("results min-n zero", ["scenario", "results", "run_x", "--min-n", "0"], "--min-n"),
    ("agreement n-boot tiny", ["agreement", "--clinicians", "{tmp}/ok.csv", "--n-boot", "5"], "--n-boot"),
    ("reevaluate concurrency zero", ["reevaluate", "{dossier}", "--concurrency", "0"], "--concurrency"),
    # unknown ids are errors naming the id, never a new record
    ("show unknown dossier", ["dossier", "show", "D-nope"], "D-nope"),
    ("update unknown dossier", ["dossier", "update", "D-nope", "--file", "{tmp}/ok.json"], "D-nope"),
    ("report unknown dossier", ["report", "D-nope", "--out", "{tmp}/r.pdf"], "D-nope"),
    ("scenario import unknown scenario", ["scenario", "import", "{tmp}/ok.csv", "--scenario", "sc_nope"],
     "sc_nope"),
    ("scenario import unknown dossier", ["scenario", "import", "{tmp}/ok.csv", "--dossier", "D-nope"],
     "D-nope"),
    ("run unknown scenario", ["run", "--scenario", "sc_nope", "--model", "openai/x"], "sc_nope"),
    ("redact unknown scenario", ["scenario", "redact", "sc_nope"], "sc_nope"),
    ("results unknown run", ["scenario", "results", "run_nope"], "run_nope"),
    ("decide unknown dossier", ["decide", "D-nope", "--decision", "reject", "--rationale", "not good enough"],
     "D-nope"),
    # JSON nested past the cap: one parse helper (evaluator/inputs/capped_json.py)
    ("dossier create deep JSON", ["dossier", "create", "--file", "{tmp}/deep.json"], "nested deeper than 64"),
    ("dossier create 100 levels", ["dossier", "create", "--file", "{tmp}/deep100.json"], "nested deeper"),
    ("dossier create deep wrapper", ["dossier", "create", "--file", "{tmp}/deep_wrapper.json"], "nested"),
    ("dossier update deep JSON", ["dossier", "update", "{dossier}", "--file", "{tmp}/deep.json"], "nested"),
    ("scenario JSONL deep", ["scenario", "import", "{tmp}/deep.jsonl"], "nested deeper than 64"),
    ("scenario JSONL 100 levels", ["scenario", "import", "{tmp}/deep100.jsonl"], "nested deeper than 64"),
    ("scenario CSV deep choices", ["scenario", "import", "{tmp}/deep_choices.csv"], "choices"),
    ("HELM stats deep", ["import-helm", "{tmp}/helm"], "stats.json: arrays/objects nested deeper"),
    ("dossier export deep", ["import-dossier", "{tmp}/deep_export.json"], "nested deeper than 64"),
    ("candidate file deep", ["candidate-add", "{dossier}", "{tmp}/deep.json"], "nested deeper than 64"),
    # control characters, refused at validation with the field's label
    ("BEL in purpose", ["dossier", "create", "--file", "{tmp}/bel.json"], "Purpose contains a control "
     "character (BEL, U+0007)"),
    ("NUL in a user", ["dossier", "create", "--file", "{tmp}/nul_item.json"], "Intended users, item 2, "
     "contains a control character (NUL"),
    ("ESC in scope", ["dossier", "create", "--file", "{tmp}/esc_scope.json"], "Out-of-scope uses, item 1, "
     "contains a control character (ESC"),
    ("VT in workflow", ["dossier", "create", "--file", "{tmp}/vt_workflow.json"], "Workflow contains a "
     "control character (vertical tab"),
    ("FF in care setting", ["dossier", "create", "--file", "{tmp}/ff_setting.json"], "Care setting contains "
     "a control character (form feed"),
    ("US in population", ["dossier", "create", "--file", "{tmp}/us_population.json"], "Patient population "
     "contains a control character"),
    ("DEL in a model", ["dossier", "create", "--file", "{tmp}/del_model.json"], "Models under consideration, "
     "item 1, contains a control character (DEL"),
    ("BEL in --title", ["dossier", "create", "--file", "{tmp}/ok.json", "--title", "Portal \x07 replies"],
     "Title contains a control character (BEL"),
    ("ESC in --owner", ["dossier", "update", "{dossier}", "--file", "{tmp}/ok.json", "--owner", "dr\x1blee"],
     "Owner contains a control character (ESC"),
    ("BEL in wrapper title", ["dossier", "create", "--file", "{tmp}/bad_wrapper_title.json"],
     "Title contains a control character"),
    ("BEL in rationale", ["decide", "{dossier}", "--decision", "reject", "--rationale", "fails the \x07 bar"],
     "Rationale contains a control character (BEL"),
    ("NUL in a condition", ["decide", "{dossier}", "--decision", "approve_with_conditions", "--rationale",
                            "passes with conditions", "--condition", "review\x00 each"],
     "Conditions, item 1, contains a control character (NUL"),
    ("NUL in a vendor", ["candidate-add", "{dossier}", "{tmp}/candidate_nul.json"],
     "Vendor contains a control character (NUL"),
    ("BEL in a scenario cell", ["scenario", "import", "{tmp}/bel_cell.csv"],
     "contains a control character (BEL, U+0007)"),
    ("ESC in a scenario cell", ["scenario", "import", "{tmp}/esc_cell.csv"], "control character (ESC"),
    ("NUL in a JSONL cell", ["scenario", "import", "{tmp}/nul_cell.jsonl"], "control character (NUL"),
    ("NUL in a JSONL choice", ["scenario", "import", "{tmp}/nul_choice.jsonl"], "control character (NUL"),
    ("RLO in a scenario cell", ["scenario", "import", "{tmp}/rlo_cell.csv"],
     "control character (RIGHT-TO-LEFT OVERRIDE, U+202E)"),
    ("RLO in purpose", ["dossier", "create", "--file", "{tmp}/rlo_purpose.json"],
     "Purpose contains a control character (RIGHT-TO-LEFT OVERRIDE"),
    ("LRI in a user", ["dossier", "create", "--file", "{tmp}/lri_item.json"],
     "Intended users, item 2, contains a control character (LEFT-TO-RIGHT ISOLATE"),
    ("RLO in --title", ["dossier", "create", "--file", "{tmp}/ok.json", "--title", "Portal \u202eseilper"],
     "Title contains a control character (RIGHT-TO-LEFT OVERRIDE"),
    ("purpose given twice", ["dossier", "create", "--file", "{tmp}/twice_purpose.json"],
     "the key 'purpose' appears twice"),
    ("reference given twice", ["scenario", "import", "{tmp}/twice.jsonl"], "key 'reference' appears twice"),
    ("export key twice", ["import-dossier", "{tmp}/twice_export.json"], "the key 'dossier' appears twice"),
    ("candidate key twice", ["candidate-add", "{dossier}", "{tmp}/twice_purpose.json"], "appears twice"),
    # caps on lists and lengths
    ("201 intended users", ["dossier", "create", "--file", "{tmp}/too_many_users.json"],
     "Intended users lists 201 items; at most 200"),
    ("5,000 out-of-scope items (8 MB)", ["dossier", "create", "--file", "{tmp}/huge_list.json"],
     "Out-of-scope uses lists 5,000 items; at most 200"),
    ("1,001-character item", ["dossier", "create", "--file", "{tmp}/long_item.json"],
     "Out-of-scope uses, item 1, is 1,001 characters long; at most 1,000"),
    ("300,000-character purpose", ["dossier", "create", "--file", "{tmp}/long_purpose.json"],
     "at most 200000 characters"),
    ("301-character title", ["dossier", "create", "--file", "{tmp}/ok.json", "--title", "t" * 301],
     "at most 300 characters"),
]


@pytest.mark.parametrize(("name", "argv", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_exits_2_with_a_reason(name, argv, message, home, tmp, dossier, capsys):
    args = [a.replace("{tmp}", str(tmp)).replace("{dossier}", dossier) for a in argv]
    code = main(args)  # an uncaught exception fails the test with its traceback
    err = capsys.readouterr().err
    assert code == 2, (name, code, err)
    assert message in err, (name, err)
    assert "Traceback" not in err


def test_case_count():
    """Issue 19 asks for the number of bad inputs in the suite (at least 40)."""
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


def test_no_new_scenario_from_an_unknown_id(home, tmp, capsys):
    assert main(["scenario", "import", str(tmp / "ok.csv"), "--scenario", "sc_nope"]) == 2
    capsys.readouterr()
    assert main(["scenario", "list"]) == 0
    assert json.loads(capsys.readouterr().out) == []
