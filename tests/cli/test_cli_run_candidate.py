"""``medassure run --dossier ID --candidate NAME``: the run counts for the candidate named, whatever the
model string (issue 27, item 3)."""

import json

from cli import main
from governance.dossier.record import Dossier
from governance.dossier.store import Store
from governance.intended_use.records import example_intended_use

BAD = "openai/gpt-4o-bad"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _dossier(home) -> str:
    store = Store.open(home / "medassure.duckdb")
    try:
        d = Dossier(title="Paediatric doses", owner="ci", intended_use=example_intended_use())
        store.save(d, author="ci")
        return d.id
    finally:
        store.close()


def test_run_for_a_candidate_attaches_evidence_named_after_it(home, capsys, llm_server):
    llm_server.configure(answer=lambda r: "Answer: 0")
    home.mkdir(parents=True, exist_ok=True)
    dossier_id = _dossier(home)
    base = ["run", "--benchmark", "calc_builtin", "--model", BAD, "--api-base", llm_server.url,
            "--limit", "4",
            "--format", "json"]
    code, _, err = run(capsys, *base, "--dossier", dossier_id, "--candidate", "nope")
    assert code == 2 and "no candidate 'nope'" in err and "gpt-4o" in err and llm_server.hits == 0
    code, _, err = run(capsys, *base, "--candidate", "gpt-4o")
    assert code == 2 and "--dossier" in err and llm_server.hits == 0
    code, out, err = run(capsys, *base, "--dossier", dossier_id, "--candidate", "gpt-4o")
    assert code == 0, err
    assert json.loads(out)["attached"]["added"] >= 1
    store = Store.open(home / "medassure.duckdb")
    try:
        main_record = next(e for e in store.load(dossier_id).dossier.evidence if e.is_main)
    finally:
        store.close()
    assert (main_record.model, main_record.endpoint_model) == ("gpt-4o", BAD)
    code, out, _ = run(capsys, "assess", dossier_id, "--format", "json")
    assert code == 0 and BAD not in {v.get("model") for v in json.loads(out)["verdicts"]}
