"""A key written into a re-evaluation's server URL is used for the call and stored nowhere (issue 25, item 6).

The re-evaluation reaches the same test server through a URL that carries a key in its user part
or its query; afterwards the key appears in no database row, not in ``reevaluate``'s JSON, not in
the dossier's JSON export and not in the PDF's text.
"""

from __future__ import annotations

import io
import json

import pytest
from pypdf import PdfReader

from cli import main
from reports.bundle import report_bundle
from reports.exports import export_json
from tests.governance.reevaluation_fixtures import MODEL_B, scripted_models, seed_decided_dossier

KEY = "Zq8vKEYVALUE-7781-secret"


def all_stored_text(store) -> str:
    con = store.cursor()
    tables = [r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'").fetchall()]
    out = []
    for table in tables:
        for row in con.execute(f'SELECT * FROM "{table}"').fetchall():
            out.append(" ".join(str(v) for v in row))
    return "\n".join(out)


@pytest.mark.parametrize("shape", ["user", "query"])
def test_a_key_in_the_server_url_is_stored_nowhere(store, llm_server, capsys, shape):
    llm_server.configure(answer=scripted_models())
    dossier_id = seed_decided_dossier(store, llm_server.url)
    host = llm_server.url.split("://", 1)[1]
    url = f"http://reviewer:{KEY}@{host}" if shape == "user" else f"{llm_server.url}?api-key={KEY}"
    code = main(["reevaluate", dossier_id, "--model", MODEL_B, "--api-base", url, "--input-price", "0.5",
                 "--output-price", "1.5", "--format", "json"])
    out = capsys.readouterr()
    assert KEY not in out.out and KEY not in out.err
    if shape == "user":  # a client sends the user part as basic auth: the re-run reaches the server
        assert code == 3, out.err
        assert json.loads(out.out)["new_requests"] > 0
    else:  # the query lands before the client's path, so the server answers 404: nothing is saved
        assert code == 2 and "not_found" in out.err
    assert KEY not in all_stored_text(store)
    version = store.load(dossier_id)
    assert KEY not in export_json(version)
    pdf = report_bundle(store, dossier_id).download("pdf").make()
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert KEY not in text
